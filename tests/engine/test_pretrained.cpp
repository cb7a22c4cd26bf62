// Pretrained models against HuggingFace transformers' own attention weights (goldens written by
// tests/reference/make_goldens.py), and every kind of broken model folder as a clear error.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"
#include "minilm_dir.hpp"
#include "safetensors_writer.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_pretrained {

using namespace attnlab;
using namespace attnlab::test;
namespace fs = std::filesystem;

namespace {

const fs::path kData = ATTNLAB_TEST_DATA_DIR;
/// The tolerance the issue sets against HuggingFace (float32 on both sides).
constexpr double kWeightTolerance = 1e-4;

struct GoldenCase {
  std::string name, text;
  std::optional<std::string> pair;
  std::vector<std::string> tokens;
  std::vector<std::int64_t> ids, type_ids;
  std::vector<float> attentions;  // [L, h, n, n]
};

std::vector<GoldenCase> readGoldens(const fs::path& path, std::string* versions) {
  const SafeTensors file(path);
  const auto cases = nlohmann::json::parse(file.metadata().at("cases"));
  *versions = file.metadata().count("versions") ? file.metadata().at("versions") : "";
  std::vector<GoldenCase> out;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string key = std::string("case") + (i < 10 ? "0" : "") + std::to_string(i);
    GoldenCase c;
    c.name = cases[i].at("name").get<std::string>();
    c.text = cases[i].at("text").get<std::string>();
    if (!cases[i].at("pair").is_null()) c.pair = cases[i].at("pair").get<std::string>();
    c.tokens = cases[i].at("tokens").get<std::vector<std::string>>();
    c.ids = file.integers(key + ".input_ids");
    c.type_ids = file.integers(key + ".token_type_ids");
    c.attentions = file.floats(key + ".attentions");
    out.push_back(std::move(c));
  }
  return out;
}

/// Every golden case: identical ids (and type ids, and for WordPiece the token strings), then
/// every layer's and head's weights within kWeightTolerance of HuggingFace's.
void checkAgainstGoldens(const fs::path& model_dir, const fs::path& goldens, bool compare_labels) {
  const auto model = PretrainedModel::load(model_dir);
  std::string versions;
  const std::vector<GoldenCase> cases = readGoldens(goldens, &versions);
  REQUIRE(cases.size() >= 10);
  const ModelConfig& config = model->config();
  auto backend = makeCpuBackend();
  double worst = 0;
  for (const GoldenCase& c : cases) {
    INFO("case " << c.name << ": " << c.text);
    std::optional<std::string_view> pair;
    if (c.pair) pair = *c.pair;
    // Through the tokenizer and runIds: the goldens include an empty text, which run() refuses
    // (HuggingFace gives [CLS] [SEP]).
    const Encoding e = model->tokenizer().encode(c.text, pair);
    const ModelRun run = model->runIds(e, {}, *backend);
    std::vector<std::int64_t> ids(e.ids.begin(), e.ids.end());
    std::vector<std::int64_t> type_ids(e.type_ids.begin(), e.type_ids.end());
    REQUIRE(ids == c.ids);
    CHECK(type_ids == c.type_ids);
    if (compare_labels) CHECK(e.labels == c.tokens);
    const auto n = static_cast<int>(ids.size());
    REQUIRE(c.attentions.size() ==
            static_cast<std::size_t>(config.layers) * config.heads * n * n);
    REQUIRE(run.attention.size() == static_cast<std::size_t>(config.layers));
    double case_worst = 0;
    for (int l = 0; l < config.layers; ++l) {
      const Tensor3& w = run.attention[static_cast<std::size_t>(l)].weights;
      for (int h = 0; h < config.heads; ++h) {
        double head_worst = 0;
        for (int i = 0; i < n; ++i) {
          for (int j = 0; j < n; ++j) {
            const float golden =
                c.attentions[((static_cast<std::size_t>(l) * config.heads + h) * n + i) * n + j];
            head_worst = std::max(head_worst, std::abs(static_cast<double>(w(h, i, j)) - golden));
          }
        }
        INFO("layer " << l << " head " << h);
        CHECK(head_worst <= kWeightTolerance);
        case_worst = std::max(case_worst, head_worst);
      }
    }
    worst = std::max(worst, case_worst);
  }
  // Printed so the margin to the tolerance is on record in the test log.
  std::printf("%s: %zu cases, max |Δweight| vs HuggingFace = %.3g (tolerance %.0e); goldens %s\n",
              model->name().c_str(), cases.size(), worst, kWeightTolerance, versions.c_str());
}

/// A tiny random BERT folder (2 layers, 2 heads, d_model 8) for the bad-input tests.
void writeTinyBert(const fs::path& dir, const std::string& vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n.\n") {
  fs::create_directories(dir);
  const int d = 8, ff = 16, vocab_size = 16, positions = 32, layers = 2;
  std::ofstream(dir / "config.json")
      << R"({"model_type":"bert","num_hidden_layers":2,"num_attention_heads":2,"hidden_size":8,)"
      << R"("intermediate_size":16,"max_position_embeddings":32,"vocab_size":16,"type_vocab_size":2,)"
      << R"("layer_norm_eps":1e-12,"hidden_act":"gelu"})";
  std::ofstream(dir / "vocab.txt") << vocab;
  std::map<std::string, RawTensor> t;
  std::uint64_t seed = 1;
  auto random = [&](std::vector<long long> shape) {
    long long n = 1;
    for (long long s : shape) n *= s;
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& x : v) x = static_cast<float>((seed = seed * 6364136223846793005ULL + 1442695040888963407ULL) >> 40) / 16777216.0f - 0.5f;
    return f32(std::move(shape), v);
  };
  t["embeddings.word_embeddings.weight"] = random({vocab_size, d});
  t["embeddings.position_embeddings.weight"] = random({positions, d});
  t["embeddings.token_type_embeddings.weight"] = random({2, d});
  t["embeddings.LayerNorm.weight"] = random({d});
  t["embeddings.LayerNorm.bias"] = random({d});
  for (int l = 0; l < layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    for (const char* name : {"attention.self.query", "attention.self.key", "attention.self.value",
                             "attention.output.dense"}) {
      t[p + name + ".weight"] = random({d, d});
      t[p + name + ".bias"] = random({d});
    }
    t[p + "intermediate.dense.weight"] = random({ff, d});
    t[p + "intermediate.dense.bias"] = random({ff});
    t[p + "output.dense.weight"] = random({d, ff});
    t[p + "output.dense.bias"] = random({d});
    for (const char* ln : {"attention.output.LayerNorm", "output.LayerNorm"}) {
      t[p + ln + ".weight"] = random({d});
      t[p + ln + ".bias"] = random({d});
    }
  }
  writeSafetensors(dir / "model.safetensors", t);
}

/// Loading dir must fail with `code` and a message containing `needle`.
void requireLoadError(const fs::path& dir, ErrorCode code, const std::string& needle) {
  REQUIRE_THROWS_MATCHES(PretrainedModel::load(dir), Error, test::ErrorMatches(code, needle));
}

}  // namespace

TEST_CASE("pretrained: all-MiniLM-L6-v2 matches HuggingFace on every layer and head",
          "[pretrained][minilm]") {
  const auto dir = requireMiniLm();
  if (!dir) return;
  checkAgainstGoldens(*dir, kData / "goldens/all-MiniLM-L6-v2.safetensors", true);
}

TEST_CASE("pretrained: a tiny GPT-2 matches HuggingFace on every layer and head", "[pretrained]") {
  checkAgainstGoldens(kData / "models/tiny-gpt2", kData / "goldens/tiny-gpt2.safetensors", false);
}

TEST_CASE("pretrained: scaling and temperature on a real model", "[pretrained][minilm]") {
  const auto dir = requireMiniLm();
  if (!dir) return;
  const auto model = PretrainedModel::load(*dir);
  CHECK(model->config().layers == 6);
  CHECK(model->config().heads == 12);
  CHECK(model->config().dK() == 32);
  auto backend = makeCpuBackend();
  const std::string text = "The cat sat on the mat because it was tired.";
  const ModelRun scaled = model->run(text, std::nullopt, {}, *backend);
  CHECK(scaled.encoding.labels.front() == "[CLS]");
  CHECK(scaled.encoding.special.front());
  CHECK(scaled.encoding.special.back());

  SECTION("T = √d_k is the model's own scaling, bit for bit") {
    ModelRunOptions options;
    options.temperature = std::sqrt(32.0);
    const ModelRun t = model->run(text, std::nullopt, options, *backend);
    for (std::size_t l = 0; l < t.attention.size(); ++l) {
      CHECK(t.attention[l].weights.data == scaled.attention[l].weights.data);
    }
  }
  SECTION("switching the scaling off sharpens layer 0's heads (lower mean entropy)") {
    ModelRunOptions options;
    options.mechanism = Mechanism::kDot;
    options.layer = 0;
    const ModelRun dot = model->run(text, std::nullopt, options, *backend);
    REQUIRE(dot.attention.size() == 1);
    CHECK(dot.layers == std::vector<int>{0});
    auto meanEntropy = [](const AttentionResult& r) {
      double sum = 0;
      int count = 0;
      for (const HeadStats& s : r.stats) {
        for (float e : s.entropy) { sum += e; ++count; }
      }
      return sum / count;
    };
    CHECK(meanEntropy(dot.attention[0]) < meanEntropy(scaled.attention[0]));
  }
  SECTION("one layer kept: the same weights as in the full run") {
    ModelRunOptions options;
    options.layer = 3;
    const ModelRun one = model->run(text, std::nullopt, options, *backend);
    CHECK(one.attention.at(0).weights.data == scaled.attention.at(3).weights.data);
  }
}

TEST_CASE("pretrained: bad model folders and inputs are clear errors", "[pretrained]") {
  const fs::path root = freshDir("pretrained_bad");
  auto backend = makeCpuBackend();

  SECTION("a working tiny BERT, then each thing a user can get wrong") {
    writeTinyBert(root / "ok");
    const auto model = PretrainedModel::load(root / "ok");
    const ModelRun run = model->run("the cat sat.", std::string_view("the cat"), {}, *backend);
    CHECK(run.encoding.labels ==
          std::vector<std::string>{"[CLS]", "the", "cat", "sat", ".", "[SEP]", "the", "cat", "[SEP]"});
    CHECK(run.encoding.type_ids == std::vector<int>{0, 0, 0, 0, 0, 0, 1, 1, 1});
    CHECK(run.attention.size() == 2);
    CHECK_THROWS_WITH(model->run("", std::nullopt, {}, *backend), Catch::Contains("the text is empty"));
    CHECK_THROWS_WITH(model->run(" \t\n", std::nullopt, {}, *backend), Catch::Contains("only white space"));
    CHECK_THROWS_WITH(model->run("the", std::string_view(""), {}, *backend),
                      Catch::Contains("the second text (--pair) is empty"));
    requireLoadError(root / "ok/config.json", ErrorCode::kIo,
                     "is neither a model folder nor a GGUF file (--model takes a HuggingFace "
                     "model folder or a .gguf file)");
    ModelRunOptions layer9;
    layer9.layer = 9;
    CHECK_THROWS_WITH(model->run("the cat", std::nullopt, layer9, *backend),
                      Catch::Contains("layer 9 does not exist"));
    ModelRunOptions additive;
    additive.mechanism = Mechanism::kAdditive;
    CHECK_THROWS_WITH(model->run("the cat", std::nullopt, additive, *backend),
                      Catch::Contains("additive"));
    std::string long_text;
    for (int i = 0; i < 40; ++i) long_text += "the ";
    CHECK_THROWS_WITH(model->run(long_text, std::nullopt, {}, *backend),
                      Catch::Contains("tokens; ok reads at most 32"));
  }
  SECTION("missing folder and files") {
    requireLoadError(root / "nowhere", ErrorCode::kIo, "does not exist");
    writeTinyBert(root / "noconfig");
    fs::remove(root / "noconfig/config.json");
    requireLoadError(root / "noconfig", ErrorCode::kIo, "config.json");
    writeTinyBert(root / "noweights");
    fs::remove(root / "noweights/model.safetensors");
    requireLoadError(root / "noweights", ErrorCode::kIo, "model.safetensors");
    writeTinyBert(root / "novocab");
    fs::remove(root / "novocab/vocab.txt");
    requireLoadError(root / "novocab", ErrorCode::kIo, "vocab.txt");
  }
  SECTION("unknown architecture") {
    writeTinyBert(root / "t5");
    std::ofstream(root / "t5/config.json") << R"({"model_type":"t5","num_layers":2})";
    requireLoadError(root / "t5", ErrorCode::kInvalidArgument, "model_type \"t5\" is not supported");
  }
  SECTION("truncated weights") {
    writeTinyBert(root / "trunc");
    const fs::path weights = root / "trunc/model.safetensors";
    fs::resize_file(weights, fs::file_size(weights) - 100);
    requireLoadError(root / "trunc", ErrorCode::kInvalidInput, "run past the data block");
  }
  SECTION("header claiming more bytes than the file has") {
    writeTinyBert(root / "header");
    const fs::path weights = root / "header/model.safetensors";
    std::fstream f(weights, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    const char big[8] = {0, 0, 0, 0x10, 0, 0, 0, 0};
    f.write(big, 8);
    f.close();
    requireLoadError(root / "header", ErrorCode::kInvalidInput, "header claims");
  }
  SECTION("a missing or wrongly shaped weight names the tensor") {
    writeTinyBert(root / "shape");
    const SafeTensors original(root / "shape/model.safetensors");
    std::map<std::string, RawTensor> t;
    for (const auto& [name, view] : original.tensors()) {
      if (name == "encoder.layer.1.output.dense.bias") continue;  // dropped
      std::vector<long long> shape(view.shape.begin(), view.shape.end());
      t[name] = f32(shape, original.floats(name));
    }
    t["encoder.layer.0.attention.self.key.weight"] = f32({8, 4}, std::vector<float>(32, 0.0f));
    writeSafetensors(root / "shape/model.safetensors", t);
    requireLoadError(root / "shape", ErrorCode::kInvalidInput,
                     "tensor encoder.layer.0.attention.self.key.weight has shape [8, 4], expected [8, 8]");
    t["encoder.layer.0.attention.self.key.weight"] = f32({8, 8}, std::vector<float>(64, 0.0f));
    writeSafetensors(root / "shape/model.safetensors", t);
    requireLoadError(root / "shape", ErrorCode::kInvalidInput, "has no tensor encoder.layer.1.output.dense.bias");
  }
  SECTION("a vocabulary without [UNK]") {
    writeTinyBert(root / "nounk", "[PAD]\n[CLS]\n[SEP]\nthe\ncat\n");
    requireLoadError(root / "nounk", ErrorCode::kInvalidInput, "[UNK]");
  }
  SECTION("GPT-2 takes no sentence pair") {
    const auto gpt2 = PretrainedModel::load(kData / "models/tiny-gpt2");
    CHECK(gpt2->config().mask() == Mask::kCausal);
    CHECK_THROWS_WITH(gpt2->run("a", std::string_view("b"), {}, *backend),
                      Catch::Contains("sentence pairs need a BERT-family model"));
  }
}

TEST_CASE("pretrained: only text the model's tokenizer reads as nothing is refused",
          "[pretrained][tokens]") {
  // Byte-level BPE reads white space as content: HuggingFace gives ['Ċ', 'Ċ'] for "\n\n" with
  // the tiny GPT-2 (its vocabulary has no 'ĊĊ'); "   ", "\t" and U+200B (a format character)
  // are tokens too. Before, all four were refused as "only white space".
  const auto gpt2 = PretrainedModel::load(kData / "models/tiny-gpt2");
  auto backend = makeCpuBackend();
  ModelRunOptions layer0;
  layer0.layer = 0;
  const ModelRun newlines = gpt2->run("\n\n", std::nullopt, layer0, *backend);
  CHECK(newlines.encoding.ids == std::vector<int>{199, 199});  // 'Ċ' twice
  CHECK(newlines.encoding.labels == std::vector<std::string>{"↵", "↵"});
  CHECK(newlines.attention.at(0).nQ() == 2);
  for (const std::string text : {"   ", "\t", "\u200B"}) {
    CAPTURE(text);
    const ModelRun run = gpt2->run(text, std::nullopt, layer0, *backend);
    CHECK(run.encoding.ids.size() >= 1);
    CHECK(run.attention.at(0).nQ() == static_cast<int>(run.encoding.ids.size()));
  }
  REQUIRE_THROWS_MATCHES(gpt2->run("", std::nullopt, layer0, *backend), Error,
                         ErrorMatches(ErrorCode::kInvalidInput, "the text is empty"));

  // WordPiece drops white space, control and format characters, and says so — U+200B included,
  // which is not white space.
  const fs::path root = freshDir("pretrained_tokens");
  writeTinyBert(root / "bert");
  const auto bert = PretrainedModel::load(root / "bert");
  for (const std::string text : {" \t\n", "\u200B", "\u200B \x01"}) {
    CAPTURE(text);
    REQUIRE_THROWS_MATCHES(
        bert->run(text, std::nullopt, {}, *backend), Error,
        ErrorMatches(ErrorCode::kInvalidInput,
                     "the text has no tokens (only white space, control or format characters, "
                     "which the WordPiece tokenizer drops)"));
  }
  REQUIRE_THROWS_MATCHES(bert->run("the cat", std::string_view("\u200B"), {}, *backend), Error,
                         ErrorMatches(ErrorCode::kInvalidInput,
                                      "the second text (--pair) has no tokens"));
  CHECK(bert->run("[SEP]", std::nullopt, {}, *backend).encoding.ids.size() == 3);  // typed special
}

TEST_CASE("pretrained: a model file that is a Git LFS pointer says so", "[pretrained][lfs]") {
  // What a clone without git-lfs leaves in place of the weights; its first 8 bytes read as a
  // header length of 2336927755350992246.
  const std::string pointer =
      "version https://git-lfs.github.com/spec/v1\n"
      "oid sha256:53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db\n"
      "size 90868376\n";
  const fs::path root = freshDir("pretrained_lfs");
  for (const char* file : {"model.safetensors", "config.json", "vocab.txt"}) {
    CAPTURE(file);
    const fs::path dir = root / file;
    writeTinyBert(dir);
    std::ofstream(dir / file, std::ios::trunc) << pointer;
    requireLoadError(dir, ErrorCode::kInvalidInput,
                     std::string(file) + ": this is a Git LFS pointer, not ");
    requireLoadError(dir, ErrorCode::kInvalidInput, "fetch the real file");
  }
  requireLoadError(root / "model.safetensors", ErrorCode::kInvalidInput,
                   "this is a Git LFS pointer, not the weights");
}

TEST_CASE("pretrained: an error quoting a file's text stays one line", "[pretrained][errors]") {
  // Found by fuzz_model_config (tests/fuzz/regressions/model_config/model_type_with_newline.json):
  // a model_type with a newline broke the "one line naming the problem" rule. Every Error now
  // shows control characters and line separators as escapes.
  const fs::path root = freshDir("pretrained_one_line");
  std::ofstream(root / "config.json")
      << R"({"model_type": "llam\na\u2028b\u0001", "hidden_size": 8})";
  REQUIRE_THROWS_MATCHES(readModelConfig(root / "config.json"), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument,
                                      R"(model_type "llam\na\u2028b\x01" is not supported)"));
  CHECK(oneLine("a\tb\r\n\x7F é") == R"(a\tb\r\n\x7F é)");
}

TEST_CASE("pretrained: config.json sizes at the limit do not overflow", "[pretrained][errors]") {
  // GPT-2's n_inner defaults to 4·n_embd; with n_embd = 2^30 (the largest size accepted) that
  // overflowed int (undefined behaviour, caught by UBSan): now computed in 64 bits and capped.
  const fs::path root = freshDir("pretrained_limits");
  std::ofstream(root / "config.json")
      << R"({"model_type":"gpt2","n_layer":1,"n_head":1,"n_embd":1073741824,"n_positions":8,)"
      << R"("vocab_size":10})";
  const ModelConfig c = readModelConfig(root / "config.json");
  CHECK(c.d_model == 1 << 30);
  CHECK(c.d_ff == 1 << 30);
}

}  // namespace attnlab_test_pretrained
