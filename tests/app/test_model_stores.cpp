// Issue 51: the models users already have, opened by the names their tools give them. Fake stores
// are built in a temporary home folder — Ollama's manifests and blobs, a HuggingFace cache with
// refs and snapshots (a model folder, a sharded folder, a repo of two GGUF files), an LM Studio
// folder holding a GGUF split into three parts, llama.cpp's cache — and each model, opened by its
// name through --model, gives the numbers of the file it was copied from.

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "attnlab/gguf.hpp"
#include "attnlab/memory.hpp"
#include "attnlab/safetensors.hpp"
#include "cli_test_support.hpp"
#include "gguf_writer.hpp"
#include "options/bundled_models.hpp"
#include "options/message.hpp"
#include "options/model_stores.hpp"
#include "safetensors_writer.hpp"

namespace attnlab_test_model_stores {

using namespace attnlab;
using namespace attnlab::test;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const fs::path kTiny = fs::path(ATTNLAB_TEST_DATA_DIR) / "models/tiny-llama";
const fs::path kQwen = fs::path(ATTNLAB_TEST_DATA_DIR) / "models/tiny-qwen2";
const std::string kText = "the cat sat on the mat";

/// Sets environment variables for the life of the object, then puts the old values back.
class Environment {
 public:
  void set(const char* name, const QByteArray& value) {
    remember(name);
    qputenv(name, value);
  }
  void unset(const char* name) {
    remember(name);
    qunsetenv(name);
  }
  ~Environment() {
    for (const auto& [name, old] : old_) {
      if (old) qputenv(name.c_str(), *old);
      else qunsetenv(name.c_str());
    }
  }

 private:
  void remember(const char* name) {
    if (old_.count(name) == 0)
      old_[name] = qEnvironmentVariableIsSet(name) ? std::optional<QByteArray>(qgetenv(name)) : std::nullopt;
  }
  std::map<std::string, std::optional<QByteArray>> old_;
};

std::string sha256Of(const fs::path& file) {
  QFile f(QString::fromStdString(file.string()));
  REQUIRE(f.open(QIODevice::ReadOnly));
  QCryptographicHash h(QCryptographicHash::Sha256);
  h.addData(&f);
  return h.result().toHex().toStdString();
}

void writeText(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

/// An Ollama store: NAME:TAG's manifest naming `gguf` as its model layer (a blob named by its
/// SHA-256, the size written as `size`, or the blob's own when negative).
void addOllama(const fs::path& root, const std::string& path, const fs::path& gguf, long long size = -1) {
  const std::string sha = sha256Of(gguf);
  fs::create_directories(root / "blobs");
  const fs::path blob = root / "blobs" / ("sha256-" + sha);
  if (!fs::exists(blob)) fs::copy_file(gguf, blob);
  const json manifest = {
      {"schemaVersion", 2},
      {"mediaType", "application/vnd.docker.distribution.manifest.v2+json"},
      {"config", {{"mediaType", "application/vnd.docker.container.image.v1+json"}, {"digest", "sha256:00"}, {"size", 2}}},
      {"layers", json::array({{{"mediaType", "application/vnd.ollama.image.template"}, {"digest", "sha256:11"}, {"size", 3}},
                              {{"mediaType", "application/vnd.ollama.image.model"},
                               {"digest", "sha256:" + sha},
                               {"size", size >= 0 ? size : static_cast<long long>(fs::file_size(gguf))}}})}};
  writeText(root / "manifests" / path, manifest.dump());
}

/// A HuggingFace cache repo ORG--NAME whose snapshot `hash` (refs/main unless `ref` says
/// otherwise) holds `files` {name in the snapshot: source}, linked to blobs as the hub does.
void addHuggingFace(const fs::path& hub, const std::string& repo, const std::string& hash,
                    const std::map<std::string, fs::path>& files, const std::string& ref = "main") {
  const fs::path dir = hub / ("models--" + repo);
  writeText(dir / "refs" / ref, hash);
  fs::create_directories(dir / "blobs");
  for (const auto& [name, source] : files) {
    const std::string sha = sha256Of(source);
    if (!fs::exists(dir / "blobs" / sha)) fs::copy_file(source, dir / "blobs" / sha);
    const fs::path link = dir / "snapshots" / hash / name;
    fs::create_directories(link.parent_path());
    fs::create_symlink(fs::relative(dir / "blobs" / sha, link.parent_path()), link);
  }
}

/// The tiny Llama's safetensors as three shards with an index, in `dir`; returns the files.
std::map<std::string, fs::path> shardedTiny(const fs::path& dir) {
  fs::create_directories(dir);
  const SafeTensors whole(kTiny / "model.safetensors");
  std::vector<std::map<std::string, RawTensor>> parts(3);
  json index = {{"metadata", json::object()}, {"weight_map", json::object()}};
  std::size_t i = 0;
  for (const auto& [name, view] : whole.tensors()) {
    const std::size_t s = i++ * 3 / whole.tensors().size();
    RawTensor t{std::string(dtypeName(view.dtype)), {}, {}};
    for (const auto d : view.shape) t.shape.push_back(d);
    const auto* p = reinterpret_cast<const unsigned char*>(view.data);
    t.bytes.assign(p, p + view.bytes);
    parts[s][name] = std::move(t);
    index["weight_map"][name] = "model-0000" + std::to_string(s + 1) + "-of-00003.safetensors";
  }
  std::map<std::string, fs::path> files;
  for (std::size_t s = 0; s < 3; ++s) {
    const std::string name = "model-0000" + std::to_string(s + 1) + "-of-00003.safetensors";
    writeSafetensors(dir / name, parts[s]);
    files[name] = dir / name;
  }
  writeText(dir / "model.safetensors.index.json", index.dump());
  files["model.safetensors.index.json"] = dir / "model.safetensors.index.json";
  files["config.json"] = kTiny / "config.json";
  files["tokenizer.json"] = kTiny / "tokenizer.json";
  return files;
}

/// compute's numbers for a model: every layer's attention, the tokens, the next tokens.
json numbers(const std::string& model) {
  const json j = computeJson({"--model", model, "--text", kText});
  return {{"layers", j["layers"]}, {"tokens", j["tokens"]}, {"next", j["next_tokens"]}};
}

/// The temporary home with every store, its environment pointing there.
struct Stores {
  QTemporaryDir tmp;
  fs::path home;
  Environment env;
  Stores() {
    REQUIRE(tmp.isValid());
    home = fs::path(tmp.path().toStdString());
    env.set("HOME", QByteArray::fromStdString(home.string()));
    for (const char* name : {"OLLAMA_MODELS", "HF_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "LLAMA_CACHE"})
      env.unset(name);
    env.set("ATTNLAB_MODEL_CACHE", QByteArray::fromStdString((home / "lab").string()));
    const fs::path ollama = home / ".ollama/models";
    addOllama(ollama, "registry.ollama.ai/library/tiny/latest", kTiny / "tiny-llama.gguf");
    addOllama(ollama, "registry.ollama.ai/library/tiny/q8", kTiny / "tiny-llama.gguf");
    addOllama(ollama, "registry.ollama.ai/someone/qwen/latest", kQwen / "tiny-qwen2.gguf");
    addOllama(ollama, "registry.ollama.ai/library/short/latest", kTiny / "tiny-llama.gguf", 12);
    const fs::path hub = home / ".cache/huggingface/hub";
    addHuggingFace(hub, "org--tiny-llama", "1111aaaa",
                   {{"config.json", kTiny / "config.json"}, {"tokenizer.json", kTiny / "tokenizer.json"},
                    {"model.safetensors", kTiny / "model.safetensors"}});
    addHuggingFace(hub, "org--tiny-llama", "2222bbbb", {{"config.json", kQwen / "config.json"},
                   {"tokenizer.json", kQwen / "tokenizer.json"}, {"model.safetensors", kQwen / "model.safetensors"}}, "v2");
    addHuggingFace(hub, "org--tiny-GGUF", "3333cccc",
                   {{"tiny-llama.gguf", kTiny / "tiny-llama.gguf"}, {"sub/tiny-qwen2.gguf", kQwen / "tiny-qwen2.gguf"}});
    addHuggingFace(hub, "org--sharded", "4444dddd", shardedTiny(home / "shards"));
    const fs::path lmstudio = home / ".lmstudio/models/org/tiny-split-GGUF";
    fs::create_directories(lmstudio);
    splitGguf(GgufFile(kTiny / "tiny-llama.gguf"), lmstudio, "tiny-split", 3);
    fs::create_directories(home / ".cache/llama.cpp");
    fs::copy_file(kQwen / "tiny-qwen2.gguf", home / ".cache/llama.cpp/org_tiny-qwen2.gguf");
  }
};

}  // namespace

TEST_CASE("model stores: each store's model opens by its name with the original's numbers", "[stores]") {
  Stores stores;
  const json tiny = numbers((kTiny / "tiny-llama.gguf").string());
  const json tiny_folder = numbers(kTiny.string());
  const json qwen = numbers((kQwen / "tiny-qwen2.gguf").string());
  const json qwen_folder = numbers(kQwen.string());
  SECTION("Ollama") {
    CHECK(numbers("ollama:tiny") == tiny);
    CHECK(numbers("ollama:tiny:latest") == tiny);
    CHECK(numbers("ollama:tiny:q8") == tiny);
    CHECK(numbers("ollama:someone/qwen") == qwen);
    // A blob is named by its digest: the model by its general.name.
    CHECK(computeJson({"--model", "ollama:tiny", "--text", kText})["model"] == "tiny-llama");
  }
  SECTION("HuggingFace: a model folder, a revision, a sharded folder, GGUF files by name") {
    CHECK(numbers("org/tiny-llama") == tiny_folder);
    CHECK(numbers("hf:org/tiny-llama") == tiny_folder);
    CHECK(numbers("hf:org/tiny-llama@v2") == qwen_folder);
    CHECK(numbers("org/tiny-llama@2222bbbb") == qwen_folder);
    CHECK(numbers("org/sharded") == tiny_folder);
    CHECK(numbers("org/tiny-GGUF:tiny-llama.gguf") == tiny);
    CHECK(numbers("hf:org/tiny-GGUF:sub/tiny-qwen2.gguf") == qwen);
  }
  SECTION("LM Studio (a split GGUF by its first part's name) and llama.cpp, by file name") {
    CHECK(numbers("tiny-split-00001-of-00003.gguf") == tiny);
    CHECK(numbers("org_tiny-qwen2.gguf") == qwen);
  }
}

TEST_CASE("model stores: a name that is not there says where it looked and what to do", "[stores]") {
  Stores stores;
  const std::string home = stores.home.string();
  requireUsageError({"compute", "--model", "ollama:nope", "--text", "hi"},
                    "ollama:nope:latest is not pulled (no manifest in " + home + "/.ollama/models): run ollama pull nope:latest");
  requireUsageError({"compute", "--model", "ollama:tiny:7b", "--text", "hi"}, "run ollama pull tiny:7b");
  requireUsageError({"compute", "--model", "ollama:short", "--text", "hi"},
                    "ollama:short:latest: its model blob " + home + "/.ollama/models/blobs/sha256-");
  requireUsageError({"compute", "--model", "ollama:short", "--text", "hi"}, "bytes, the manifest says 12: run ollama pull short:latest again");
  requireUsageError({"compute", "--model", "org/absent", "--text", "hi"},
                    "org/absent is neither a path nor a model in the HuggingFace cache (" + home +
                        "/.cache/huggingface/hub): download it (huggingface-cli download org/absent)");
  requireUsageError({"compute", "--model", "hf:org/tiny-llama@v9", "--text", "hi"},
                    "org/tiny-llama has no revision v9 in the HuggingFace cache");
  requireUsageError({"compute", "--model", "org/tiny-GGUF", "--text", "hi"},
                    "org/tiny-GGUF has 2 GGUF files: name one as org/tiny-GGUF:FILE (sub/tiny-qwen2.gguf, tiny-llama.gguf)");
  requireUsageError({"compute", "--model", "org/tiny-GGUF:other.gguf", "--text", "hi"},
                    "org/tiny-GGUF in the HuggingFace cache has no GGUF file other.gguf");
}

TEST_CASE("model stores: models lists every store without reading a weight", "[stores]") {
  Stores stores;
  std::map<std::string, std::string> found;  // name → store
  for (const options::StoredModel& m : options::listStoredModels())
    found[m.name.toStdString()] = options::storeName(m.store).toStdString();
  CHECK(found["ollama:tiny:latest"] == "Ollama");
  CHECK(found["ollama:tiny:q8"] == "Ollama");
  CHECK(found["ollama:someone/qwen:latest"] == "Ollama");
  CHECK(found["org/tiny-llama"] == "HuggingFace");
  CHECK(found["org/sharded"] == "HuggingFace");
  CHECK(found["org/tiny-GGUF:tiny-llama.gguf"] == "HuggingFace");
  CHECK(found["org/tiny-GGUF:sub/tiny-qwen2.gguf"] == "HuggingFace");
  CHECK(found["tiny-split-00001-of-00003.gguf"] == "LM Studio");
  CHECK(found.count("tiny-split-00002-of-00003.gguf") == 0);
  CHECK(found["org_tiny-qwen2.gguf"] == "llama.cpp");
  const CliResult r = runCli({"models"});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  for (const char* line : {"ollama:tiny:latest", "org/sharded", "tiny-split-00001-of-00003.gguf", "org_tiny-qwen2.gguf"})
    CHECK(r.out.find(line) != std::string::npos);
  // The columns: name, store, architecture, size, type.
  CHECK(r.out.find("NAME") == 0);
  const auto row = r.out.find("org_tiny-qwen2.gguf");
  const std::string line = r.out.substr(row, r.out.find('\n', row) - row);
  CHECK_THAT(line, Catch::Contains("llama.cpp") && Catch::Contains("qwen2") &&
                       Catch::Contains(formatBytes(static_cast<long long>(fs::file_size(kQwen / "tiny-qwen2.gguf")))));
  const auto split = r.out.find("tiny-split-00001-of-00003.gguf");
  const std::string split_line = r.out.substr(split, r.out.find('\n', split) - split);
  CHECK_THAT(split_line, Catch::Contains("LM Studio") && Catch::Contains("llama"));
}

}  // namespace attnlab_test_model_stores
