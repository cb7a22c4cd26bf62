// Models stored in several files (issue 51): a GGUF model split by gguf-split's rules and a
// safetensors folder sharded through model.safetensors.index.json read the same numbers as the
// single file they were made from; every fault of a part is one line naming it.

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"
#include "gguf_writer.hpp"
#include "safetensors_writer.hpp"

namespace attnlab_test_split_models {

using namespace attnlab;
using namespace attnlab::test;
namespace fs = std::filesystem;

namespace {

const fs::path kTinyLlama = fs::path(ATTNLAB_TEST_DATA_DIR) / "models/tiny-llama";
constexpr const char* kText = "the cat sat on the mat and the dog ran";

/// Every layer's weights and the next-token predictions of a run of kText.
ModelRun runOf(const fs::path& path) {
  const auto model = PretrainedModel::load(path);
  auto backend = makeCpuBackend();
  return model->run(kText, std::nullopt, {}, *backend);
}

/// The two runs are the same numbers, bit for bit.
void requireSameRun(const ModelRun& a, const ModelRun& b) {
  REQUIRE(a.attention.size() == b.attention.size());
  REQUIRE(!a.attention.empty());
  for (std::size_t l = 0; l < a.attention.size(); ++l) {
    INFO("layer " << l);
    REQUIRE(a.attention[l].weights.data.size() == b.attention[l].weights.data.size());
    CHECK(a.attention[l].weights.data == b.attention[l].weights.data);
  }
  REQUIRE(a.next_tokens.size() == b.next_tokens.size());
  for (std::size_t i = 0; i < a.next_tokens.size(); ++i) {
    CHECK(a.next_tokens[i].id == b.next_tokens[i].id);
    CHECK(a.next_tokens[i].logit == b.next_tokens[i].logit);
  }
}

/// A later part read on its own (from memory: its siblings are not followed).
GgufFile partAlone(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return GgufFile(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), path.filename().string());
}

template <typename Open>
void requireRefused(Open open, const std::string& needle) {
  try {
    open();
    FAIL("no error for " << needle);
  } catch (const Error& e) {
    INFO(e.what());
    CHECK_THAT(e.what(), Catch::Contains(needle));
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
}

/// The tiny Llama's safetensors as `shards` shard files and an index in `dir` (with config.json
/// and tokenizer.json), tensors dealt out in name order.
void writeShards(const fs::path& dir, int shards) {
  const SafeTensors whole(kTinyLlama / "model.safetensors");
  std::vector<std::map<std::string, RawTensor>> parts(static_cast<std::size_t>(shards));
  nlohmann::json index = {{"metadata", {{"total_size", whole.fileBytes()}}}, {"weight_map", nlohmann::json::object()}};
  std::size_t i = 0;
  for (const auto& [name, view] : whole.tensors()) {
    const std::size_t s = i++ * static_cast<std::size_t>(shards) / whole.tensors().size();
    RawTensor t{std::string(dtypeName(view.dtype)), {}, {}};
    for (const auto d : view.shape) t.shape.push_back(d);
    const auto* p = reinterpret_cast<const unsigned char*>(view.data);
    t.bytes.assign(p, p + view.bytes);
    parts[s][name] = std::move(t);
    char file[64];
    std::snprintf(file, sizeof file, "model-%05zu-of-%05d.safetensors", s + 1, shards);
    index["weight_map"][name] = file;
  }
  for (std::size_t s = 0; s < parts.size(); ++s) {
    char file[64];
    std::snprintf(file, sizeof file, "model-%05zu-of-%05d.safetensors", s + 1, shards);
    writeSafetensors(dir / file, parts[s]);
  }
  std::ofstream(dir / "model.safetensors.index.json") << index.dump(1);
  fs::copy_file(kTinyLlama / "config.json", dir / "config.json");
  fs::copy_file(kTinyLlama / "tokenizer.json", dir / "tokenizer.json");
}

}  // namespace

TEST_CASE("split GGUF: three parts read the same numbers as the file they were split from", "[gguf][split]") {
  const fs::path dir = freshDir("split_gguf");
  const GgufFile whole(kTinyLlama / "tiny-llama.gguf");
  const auto parts = splitGguf(whole, dir, "tiny-llama", 3);
  const GgufFile split(parts[0]);
  CHECK(split.splitCount() == 3);
  CHECK(split.tensors().size() == whole.tensors().size());
  CHECK(split.partPaths() == parts);
  std::uint64_t bytes = 0;
  for (const auto& p : parts) bytes += fs::file_size(p);
  CHECK(split.totalBytes() == bytes);
  for (const GgufTensor& t : whole.tensors()) {
    const GgufTensor* s = split.findTensor(t.name);
    REQUIRE(s != nullptr);
    CHECK(std::equal(t.data, t.data + t.bytes, s->data, s->data + s->bytes));
  }
  const ModelRun a = runOf(kTinyLlama / "tiny-llama.gguf");
  const ModelRun b = runOf(parts[0]);
  requireSameRun(a, b);
  CHECK(PretrainedModel::load(parts[0])->name() == "tiny-llama");
  CHECK(inspectModel(parts[0]).file_bytes == static_cast<long long>(bytes));
}

TEST_CASE("split GGUF: a missing or wrong part is named", "[gguf][split]") {
  const fs::path dir = freshDir("split_gguf_bad");
  const GgufFile whole(kTinyLlama / "tiny-llama.gguf");
  auto parts = splitGguf(whole, dir, "tiny-llama", 3);
  SECTION("a later part opened first names the first") {
    requireRefused([&] { GgufFile f(parts[1]); }, "this is part 2 of 3 of a split model: open its first part, tiny-llama-00001-of-00003.gguf");
  }
  SECTION("a missing part") {
    fs::remove(parts[2]);
    requireRefused([&] { GgufFile f(parts[0]); }, "part 3 of 3, tiny-llama-00003-of-00003.gguf, is missing");
    requireRefused([&] { PretrainedModel::load(parts[0]); }, "tiny-llama-00003-of-00003.gguf, is missing");
  }
  SECTION("a part of another split") {
    fs::copy_file(parts[1], parts[2], fs::copy_options::overwrite_existing);
    requireRefused([&] { GgufFile f(parts[0]); }, "tiny-llama-00003-of-00003.gguf: split.no and split.count should say part 3 of 3, not 2 of 3");
  }
  SECTION("a renamed first part") {
    fs::rename(parts[0], dir / "renamed.gguf");
    requireRefused([&] { GgufFile f(dir / "renamed.gguf"); }, "the name does not follow gguf-split's PREFIX-00001-of-00003.gguf");
  }
  SECTION("a tensor count that does not add up") {
    auto two = splitGguf(whole, dir, "two", 2);
    // The first part's split.tensors.count one more than the two parts hold.
    GgufBuilder c;
    copyGguf(partAlone(two[0]), c, [](const std::string& key) { return key == "split.tensors.count"; });
    c.i32("split.tensors.count", static_cast<std::int32_t>(whole.tensors().size() + 1));
    writeBytes(two[0], c.bytes());
    requireRefused([&] { GgufFile f(two[0]); }, "split.tensors.count says " + std::to_string(whole.tensors().size() + 1) +
                                                     " tensors, but the 2 parts hold " + std::to_string(whole.tensors().size()));
  }
  SECTION("a tensor in two parts") {
    GgufBuilder c;
    copyGguf(partAlone(parts[2]), c, [](const std::string&) { return false; });
    const GgufTensor& t = whole.tensors().front();  // part 1's first tensor, again in part 3
    const auto* p = reinterpret_cast<const unsigned char*>(t.data);
    c.tensor(t.name, t.type, t.dims, std::vector<unsigned char>(p, p + t.bytes));
    writeBytes(parts[2], c.bytes());
    requireRefused([&] { GgufFile f(parts[0]); }, "tensor " + t.name + " is also in an earlier part of the split model");
  }
}

TEST_CASE("sharded safetensors: the shards read the same numbers as the single file", "[safetensors][split]") {
  const fs::path dir = freshDir("sharded_llama");
  writeShards(dir, 3);
  const SafeTensors index(dir / "model.safetensors.index.json");
  const SafeTensors whole(kTinyLlama / "model.safetensors");
  CHECK(index.partPaths().size() == 3);
  CHECK(index.tensors().size() == whole.tensors().size());
  const ModelRun a = runOf(kTinyLlama);
  const ModelRun b = runOf(dir);
  requireSameRun(a, b);
}

TEST_CASE("sharded safetensors: a missing shard or a wrong index is named", "[safetensors][split]") {
  const fs::path dir = freshDir("sharded_bad");
  writeShards(dir, 2);
  const fs::path index = dir / "model.safetensors.index.json";
  SECTION("a missing shard") {
    fs::remove(dir / "model-00002-of-00002.safetensors");
    requireRefused([&] { SafeTensors f(index); }, "model.safetensors.index.json: shard model-00002-of-00002.safetensors is missing");
    requireRefused([&] { PretrainedModel::load(dir); }, "shard model-00002-of-00002.safetensors is missing");
  }
  nlohmann::json j = nlohmann::json::parse(std::ifstream(index));
  const std::string first = j["weight_map"].begin().key();
  SECTION("a tensor placed in the wrong shard") {
    j["weight_map"][first] = "model-00002-of-00002.safetensors";
    std::ofstream(index) << j.dump();
    requireRefused([&] { SafeTensors f(index); }, "the index places tensor " + first + " in model-00002-of-00002.safetensors, which has no such tensor");
  }
  SECTION("a tensor the index leaves out") {
    j["weight_map"].erase(first);
    std::ofstream(index) << j.dump();
    requireRefused([&] { SafeTensors f(index); }, "tensor " + first + " of model-00001-of-00002.safetensors is not in the index's weight_map");
  }
  SECTION("a shard outside the folder") {
    j["weight_map"][first] = "../model-00001-of-00002.safetensors";
    std::ofstream(index) << j.dump();
    requireRefused([&] { SafeTensors f(index); }, "is not a file name in the index's folder");
  }
  SECTION("no weight_map") {
    std::ofstream(index) << "{\"metadata\": {}}";
    requireRefused([&] { SafeTensors f(index); }, "weight_map (tensor name → shard file) is missing or empty");
  }
}

}  // namespace attnlab_test_split_models
