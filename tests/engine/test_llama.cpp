// Llama-family models: RoPE and GQA by hand and as properties; the tiny Llama fixture (GGUF and
// HuggingFace folder) and SmolLM2-135M-Instruct against HuggingFace transformers' attention
// weights and next-token predictions; broken model files as one-line errors.

#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/memory.hpp"
#include "attnlab/positions.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"
#include "attnlab/spec.hpp"
#include "gguf_writer.hpp"
#include "golden_parity.hpp"
#include "minilm_dir.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_llama {

using namespace attnlab;
using namespace attnlab::test;
namespace fs = std::filesystem;

namespace {

const fs::path kData = ATTNLAB_TEST_DATA_DIR;
const fs::path kTinyDir = kData / "models/tiny-llama";
const fs::path kTinyGguf = kTinyDir / "tiny-llama.gguf";
constexpr double kWeightTolerance = 1e-4;  // the tolerance against HuggingFace

/// Score of q rotated to position p against k rotated to position s (one head of width d).
float ropeScore(const std::vector<float>& q, const std::vector<float>& k, int p, int s,
                double base) {
  const int d = static_cast<int>(q.size());
  const RopeTable table = makeRopeTable(std::max(p, s) + 1, d, base);
  std::vector<float> qq(static_cast<std::size_t>(d) * (p + 1)),
      kk(static_cast<std::size_t>(d) * (s + 1));
  std::copy(q.begin(), q.end(), qq.begin() + static_cast<std::ptrdiff_t>(d) * p);
  std::copy(k.begin(), k.end(), kk.begin() + static_cast<std::ptrdiff_t>(d) * s);
  applyRope(qq.data(), p + 1, 1, d, d, table);
  applyRope(kk.data(), s + 1, 1, d, d, table);
  double dot = 0;
  for (int j = 0; j < d; ++j)
    dot +=
        double(qq[static_cast<std::size_t>(d) * p + j]) * kk[static_cast<std::size_t>(d) * s + j];
  return static_cast<float>(dot);
}

}  // namespace

TEST_CASE("RoPE rotates each pair by position times theta_m", "[llama][rope]") {
  // d = 4, base 100: θ_0 = 1, θ_1 = 100^(−1/2) = 0.1. Position 2 rotates pair 0 by 2 rad and
  // pair 1 by 0.2 rad: (1, 0) → (cos 2, sin 2), (0, 1) → (−sin 0.2, cos 0.2).
  const std::vector<float> theta = ropeFrequencies(4, 100.0);
  CHECK(theta[0] == 1.0f);
  CHECK(theta[1] == Approx(0.1).epsilon(1e-7));
  const RopeTable table = makeRopeTable(3, 4, 100.0);
  std::vector<float> x = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1};  // rows for positions 0, 1, 2
  applyRope(x.data(), 3, 1, 4, 4, table);
  CHECK(x[8] == Approx(std::cos(2.0)).margin(1e-7));
  CHECK(x[9] == Approx(std::sin(2.0)).margin(1e-7));
  CHECK(x[10] == Approx(-std::sin(0.2)).margin(1e-7));
  CHECK(x[11] == Approx(std::cos(0.2)).margin(1e-7));
  CHECK_THROWS_AS(makeRopeTable(3, 5, 100.0), Error);  // odd width
}

TEST_CASE("RoPE scores depend on the offset only and keep norms", "[llama][rope]") {
  const int d = GENERATE(2, 8, 64);
  std::vector<float> q(static_cast<std::size_t>(d)), k(static_cast<std::size_t>(d));
  for (int j = 0; j < d; ++j) {
    q[static_cast<std::size_t>(j)] = std::sin(1.3f * j + 0.2f);
    k[static_cast<std::size_t>(j)] = std::cos(0.7f * j - 0.4f);
  }
  // Toeplitz: the score of (p, s) equals that of (p + t, s + t).
  for (int t : {1, 5, 40}) {
    CHECK(ropeScore(q, k, 3, 1, 10000) ==
          Approx(ropeScore(q, k, 3 + t, 1 + t, 10000)).margin(1e-5));
    CHECK(ropeScore(q, k, 2, 7, 100000) ==
          Approx(ropeScore(q, k, 2 + t, 7 + t, 100000)).margin(1e-5));
  }
  const RopeTable table = makeRopeTable(50, d, 10000);
  std::vector<float> rows(static_cast<std::size_t>(50 * d));
  for (int i = 0; i < 50; ++i) std::copy(q.begin(), q.end(), rows.begin() + i * d);
  applyRope(rows.data(), 50, 1, d, d, table);
  double norm_q = 0;
  for (float v : q) norm_q += double(v) * v;
  for (int i = 0; i < 50; ++i) {
    double norm = 0;
    for (int j = 0; j < d; ++j)
      norm += double(rows[static_cast<std::size_t>(i * d + j)]) *
              rows[static_cast<std::size_t>(i * d + j)];
    CHECK(std::sqrt(norm) == Approx(std::sqrt(norm_q)).epsilon(1e-6));
  }
}

TEST_CASE("the rotate-half layout permuted to interleaved gives the same rotation",
          "[llama][rope]") {
  // HuggingFace: rotate_half pairs (m, m + d/2). Rotating a vector in that layout and then
  // permuting it equals permuting first and rotating interleaved pairs.
  const int d = 8;
  const std::vector<int> order = rotateHalfToInterleaved(d);
  CHECK(order == std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7});
  const RopeTable table = makeRopeTable(4, d, 10000);
  std::vector<float> hf = {0.3f, -1.2f, 0.8f, 2.0f, -0.5f, 0.9f, 1.1f, -0.7f};
  const int p = 3;
  std::vector<float> rotated_hf(d);
  for (int m = 0; m < d / 2; ++m) {
    const float c = table.cos[static_cast<std::size_t>(p * d / 2 + m)];
    const float s = table.sin[static_cast<std::size_t>(p * d / 2 + m)];
    rotated_hf[static_cast<std::size_t>(m)] = hf[m] * c - hf[m + d / 2] * s;
    rotated_hf[static_cast<std::size_t>(m + d / 2)] = hf[m + d / 2] * c + hf[m] * s;
  }
  std::vector<float> inter(static_cast<std::size_t>(4 * d), 0.0f);
  for (int j = 0; j < d; ++j) inter[static_cast<std::size_t>(p * d + j)] = hf[order[j]];
  applyRope(inter.data(), 4, 1, d, d, table);
  for (int j = 0; j < d; ++j) {
    CHECK(inter[static_cast<std::size_t>(p * d + j)] == Approx(rotated_hf[order[j]]).margin(1e-6));
  }
  // The same permutation applied to weight rows, head by head.
  Matrix w(2 * d, 1);
  for (int r = 0; r < 2 * d; ++r) w(r, 0) = static_cast<float>(r);
  const Matrix permuted = permuteRotateHalfRows(w, 2, d);
  CHECK(permuted(1, 0) == 4.0f);
  CHECK(permuted(d + 1, 0) == d + 4.0f);
  CHECK_THROWS_AS(permuteRotateHalfRows(w, 3, d), Error);
}

TEST_CASE("grouped-query attention maps query head i to K/V head floor(i G / h)", "[llama][gqa]") {
  std::vector<int> smol;
  for (int i = 0; i < 9; ++i) smol.push_back(kvHeadOf(i, 9, 3));
  CHECK(smol == std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 2});
  const int h = GENERATE(1, 4, 8, 12);
  for (int i = 0; i < h; ++i) {
    CHECK(kvHeadOf(i, h, h) == i);  // MHA
    CHECK(kvHeadOf(i, h, 1) == 0);  // MQA
  }
}

namespace {

/// The tiny Llama (GGUF or folder) against its goldens: ids, every weight, the top-5 tokens.
void checkTinyLlama(const fs::path& path) {
  const auto model = PretrainedModel::load(path);
  const ModelConfig& c = model->config();
  CHECK(c.architecture == Architecture::kLlama);
  CHECK(c.layers == 2);
  CHECK(c.heads == 4);
  CHECK(c.kv_heads == 2);
  CHECK(c.dK() == 16);
  CHECK(c.rope_base == 10000.0);
  CHECK(c.tied_embeddings);
  CHECK(c.kvCacheBytesPerToken() == 2 * 2 * 2 * 16 * 4);
  CHECK(c.mhaKvCacheBytesPerToken() == 2 * 2 * 4 * 16 * 4);
  const SafeTensors golden(kData / "goldens/tiny-llama.safetensors");
  const auto cases = nlohmann::json::parse(golden.metadata().at("cases"));
  REQUIRE(cases.size() >= 10);
  auto backend = makeCpuBackend();
  GoldenParity worst;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string text = cases[i].at("text").get<std::string>();
    INFO("case " << cases[i].at("name").get<std::string>() << ": " << text);
    const std::vector<std::int64_t> ids = golden.integers(caseKey(i) + ".input_ids");
    Encoding e;
    e.ids.assign(ids.begin(), ids.end());
    if (cases[i].at("name") != "paragraph_60") {
      const Encoding ours = model->tokenizer().encode(text);
      REQUIRE(std::vector<std::int64_t>(ours.ids.begin(), ours.ids.end()) == ids);
    }
    const ModelRun run = model->runIds(e, {}, *backend);
    REQUIRE(run.attention.size() == 2);
    CHECK(run.kv_head == std::vector<int>{0, 0, 1, 1});
    addParity(run, golden.floats(caseKey(i) + ".attentions"),
              golden.integers(caseKey(i) + ".next_ids"), golden.floats(caseKey(i) + ".next_probs"),
              worst);
  }
  WARN(path.filename().string() << ": max |Δ attention weight| vs HuggingFace = " << worst.weights
                                << ", max |Δ next-token probability| = " << worst.probs);
  CHECK(worst.weights < kWeightTolerance);
  CHECK(worst.probs < kWeightTolerance);
}

}  // namespace

TEST_CASE("the tiny Llama from GGUF equals HuggingFace", "[llama][golden]") {
  checkTinyLlama(kTinyGguf);
}

TEST_CASE("the tiny Llama from a HuggingFace folder equals HuggingFace", "[llama][golden]") {
  checkTinyLlama(kTinyDir);
}

TEST_CASE("SmolLM2-135M-Instruct equals HuggingFace on every layer and head",
          "[llama][golden][smollm2]") {
  const auto path = requireSmolLm2();
  if (!path) return;
  const auto model = PretrainedModel::load(*path);
  const ModelConfig& c = model->config();
  CHECK(c.layers == 30);
  CHECK(c.heads == 9);
  CHECK(c.kv_heads == 3);
  CHECK(c.dK() == 64);
  CHECK(c.rope_base == 100000.0);
  CHECK(c.weight_type == "Q4_1");
  CHECK(c.kvCacheBytesPerToken() == 46080);      // 2 · 30 · 3 · 64 · 4
  CHECK(c.mhaKvCacheBytesPerToken() == 138240);  // 2 · 30 · 9 · 64 · 4
  const SafeTensors golden(kData / "goldens/SmolLM2-135M-Instruct.safetensors");
  const auto cases = nlohmann::json::parse(golden.metadata().at("cases"));
  REQUIRE(cases.size() >= 10);
  auto backend = makeCpuBackend();
  double worst_rows = 0, worst_full = 0, worst_mean = 0, worst_prob = 0;
  std::size_t compared = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string text = cases[i].at("text").get<std::string>();
    INFO("case " << cases[i].at("name").get<std::string>() << ": " << text);
    const std::vector<std::int64_t> ids = golden.integers(caseKey(i) + ".input_ids");
    const ModelRun run = model->run(text, std::nullopt, {}, *backend);
    REQUIRE(std::vector<std::int64_t>(run.encoding.ids.begin(), run.encoding.ids.end()) == ids);
    const int n = static_cast<int>(ids.size());
    const std::vector<std::int64_t> rows = golden.integers(caseKey(i) + ".row_index");
    const std::vector<float> row_values = golden.floats(caseKey(i) + ".rows");
    const std::vector<float> mean_key = golden.floats(caseKey(i) + ".mean_key");
    const int r = static_cast<int>(rows.size());
    REQUIRE(run.attention.size() == 30);
    for (int l = 0; l < 30; ++l) {
      const Tensor3& w = run.attention[static_cast<std::size_t>(l)].weights;
      for (int h = 0; h < 9; ++h) {
        for (int q = 0; q < n; ++q) {
          double mean = 0;
          for (int k = 0; k < n; ++k) mean += double(k) * w(h, q, k);
          worst_mean = std::max(
              worst_mean, std::abs(mean - mean_key[(static_cast<std::size_t>(l) * 9 + h) * n + q]));
        }
        for (int j = 0; j < r; ++j) {
          for (int k = 0; k < n; ++k) {
            const float e = row_values[((static_cast<std::size_t>(l) * 9 + h) * r + j) * n + k];
            worst_rows =
                std::max(worst_rows, std::abs(double(w(h, static_cast<int>(rows[j]), k)) - e));
            ++compared;
          }
        }
      }
    }
    if (golden.contains(caseKey(i) + ".full")) {
      const std::vector<float> full = golden.floats(caseKey(i) + ".full");
      const int layers[] = {0, 29};
      for (int f = 0; f < 2; ++f) {
        const Tensor3& w = run.attention[static_cast<std::size_t>(layers[f])].weights;
        for (std::size_t k = 0; k < w.data.size(); ++k) {
          worst_full =
              std::max(worst_full, std::abs(double(w.data[k]) - full[f * w.data.size() + k]));
          ++compared;
        }
      }
    }
    const std::vector<std::int64_t> next_ids = golden.integers(caseKey(i) + ".next_ids");
    const std::vector<float> next_probs = golden.floats(caseKey(i) + ".next_probs");
    REQUIRE(run.next_tokens.size() == 5);
    for (std::size_t t = 0; t < 5; ++t) {
      CHECK(run.next_tokens[t].id == next_ids[t]);
      worst_prob = std::max(worst_prob, std::abs(run.next_tokens[t].probability - next_probs[t]));
    }
    CHECK(run.kv_head == std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 2});
  }
  WARN("SmolLM2 vs HuggingFace: " << compared << " weights compared; max |Δ| sampled rows "
                                  << worst_rows << ", full layers 0 and 29 " << worst_full
                                  << ", mean key position " << worst_mean
                                  << " (tokens), next-token probability " << worst_prob);
  CHECK(worst_rows < kWeightTolerance);
  CHECK(worst_full < kWeightTolerance);
  CHECK(worst_mean < 1e-2);  // Σ_j j·p_ij over ≤ 256 keys: 1e-4 per weight would allow far more
  CHECK(worst_prob < kWeightTolerance);
}

TEST_CASE("a text longer than context_length is refused with one line", "[llama]") {
  const auto model = PretrainedModel::load(kTinyGguf);
  auto backend = makeCpuBackend();
  std::string text;
  for (int i = 0; i < 80; ++i) text += "cat ";
  try {
    model->run(text, std::nullopt, {}, *backend);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidInput);
    CHECK_THAT(e.what(), Catch::Contains("tokens; tiny-llama reads at most 64"));
  }
}

namespace {

/// A minimal valid Llama GGUF (1 layer, d_model 32, 2 heads of 16, vocab of the byte tokens),
/// with `edit` applied to the builder before tensors are added.
std::vector<unsigned char> tinyGguf(int heads, int kv_heads, bool drop_ffn_up,
                                    std::uint32_t q_type = 0) {
  GgufBuilder b;
  b.str("general.architecture", "llama").u32("llama.block_count", 1);
  b.u32("llama.context_length", 16).u32("llama.embedding_length", 32);
  b.u32("llama.feed_forward_length", 32)
      .u32("llama.attention.head_count", static_cast<std::uint32_t>(heads));
  b.u32("llama.attention.head_count_kv", static_cast<std::uint32_t>(kv_heads));
  b.f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  std::vector<std::string> tokens = {"<s>", "a", "b", "\xC4\xA0"};  // Ġ
  b.str("tokenizer.ggml.model", "gpt2").str("tokenizer.ggml.pre", "smollm");
  b.strings("tokenizer.ggml.tokens", tokens).i32s("tokenizer.ggml.token_type", {3, 1, 1, 1});
  b.strings("tokenizer.ggml.merges", {});
  const int d = 32 / heads;
  auto mat = [](int rows, int cols) {
    return std::vector<float>(static_cast<std::size_t>(rows * cols), 0.01f);
  };
  b.tensorF32("token_embd.weight", {32, 4}, mat(4, 32));
  b.tensorF32("output_norm.weight", {32}, mat(1, 32));
  b.tensorF32("blk.0.attn_norm.weight", {32}, mat(1, 32));
  b.tensorF32("blk.0.ffn_norm.weight", {32}, mat(1, 32));
  if (q_type == 0) {
    b.tensorF32("blk.0.attn_q.weight", {32, 32}, mat(32, 32));
  } else {
    b.tensor("blk.0.attn_q.weight", q_type, {256, 4}, std::vector<unsigned char>(4 * 66));
  }
  b.tensorF32("blk.0.attn_k.weight", {32, kv_heads * d}, mat(kv_heads * d, 32));
  b.tensorF32("blk.0.attn_v.weight", {32, kv_heads * d}, mat(kv_heads * d, 32));
  b.tensorF32("blk.0.attn_output.weight", {32, 32}, mat(32, 32));
  b.tensorF32("blk.0.ffn_gate.weight", {32, 32}, mat(32, 32));
  if (!drop_ffn_up) b.tensorF32("blk.0.ffn_up.weight", {32, 32}, mat(32, 32));
  b.tensorF32("blk.0.ffn_down.weight", {32, 32}, mat(32, 32));
  return b.bytes();
}

void requireLoadError(const std::vector<unsigned char>& bytes, const std::string& needle) {
  const fs::path path = writeBytes(fs::temp_directory_path() / "attnlab_llama.gguf", bytes);
  try {
    PretrainedModel::load(path);
    FAIL("no error for " << needle);
  } catch (const Error& e) {
    INFO(e.what());
    CHECK_THAT(e.what(), Catch::Contains(needle));
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
}

}  // namespace

TEST_CASE("broken Llama GGUF files give one line naming the fault", "[llama]") {
  {
    const fs::path path =
        writeBytes(fs::temp_directory_path() / "attnlab_llama_ok.gguf", tinyGguf(2, 1, false));
    const auto model = PretrainedModel::load(path);
    CHECK(model->config().kv_heads == 1);  // MQA
    auto backend = makeCpuBackend();
    const ModelRun run = model->run("ab a", std::nullopt, {}, *backend);
    CHECK(run.encoding.ids == std::vector<int>{1, 2, 3, 1});
    CHECK(run.kv_head == std::vector<int>{0, 0});
  }
  requireLoadError(
      tinyGguf(2, 3, false),
      "llama.attention.head_count_kv (3) does not divide llama.attention.head_count (2)");
  requireLoadError(tinyGguf(2, 2, true), "has no tensor blk.0.ffn_up.weight");
  requireLoadError(tinyGguf(2, 2, false, 16),
                   "blk.0.attn_q.weight is IQ2_XXS, which this engine cannot dequantise");
  auto unknown = tinyGguf(2, 2, false);
  // The magic only: an unknown GGUF version through the model loader.
  unknown[4] = 9;
  requireLoadError(unknown, "GGUF version 9 is not supported");
  requireLoadError(std::vector<unsigned char>{'G', 'G', 'U', 'F', 3, 0}, "truncated");
}

TEST_CASE("GPT-2's next-token predictions equal HuggingFace's", "[llama][gpt2]") {
  // transformers 4.49, GPT2LMHeadModel on tests/data/models/tiny-gpt2, "The cat sat on the mat":
  // softmax of the last position's logits (tied wte after ln_f), top 5.
  const auto model = PretrainedModel::load(kData / "models/tiny-gpt2");
  auto backend = makeCpuBackend();
  const ModelRun run = model->run("The cat sat on the mat", std::nullopt, {}, *backend);
  CHECK(run.encoding.ids == std::vector<int>{335, 307, 536, 286, 260, 548});
  const int ids[] = {466, 141, 746, 563, 134};
  const double probs[] = {0.154189, 0.038365, 0.036381, 0.019736, 0.018757};
  REQUIRE(run.next_tokens.size() == 5);
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(run.next_tokens[i].id == ids[i]);
    CHECK(run.next_tokens[i].probability == Approx(probs[i]).margin(2e-6));
  }
  ModelRunOptions none;
  none.next_tokens = 0;
  CHECK(model->run("The cat", std::nullopt, none, *backend).next_tokens.empty());
}

TEST_CASE("a run's kept attention is known before it starts and refused above the budget",
          "[llama][memory]") {
  const auto model = PretrainedModel::load(kTinyGguf);
  const ModelConfig& c = model->config();
  auto cpu = makeCpuBackend();
  const std::string text = "the cat sat on the mat";
  const int n = static_cast<int>(model->tokenizer().encode(text).ids.size());
  // Per layer: scores and weights [h, n, n] and head outputs [h, n, d_k] in float32, plus five
  // statistics per row; every layer kept, or the one asked for plus one in flight.
  const long long per_layer = 1LL * c.heads * n * n * 8 + 1LL * c.heads * n * c.dK() * 4 +
                              1LL * c.heads * n * 5 * 4;
  ModelRunOptions all;
  CHECK(model->attentionBytes(n, all) == c.layers * per_layer);
  ModelRunOptions one;
  one.layer = 0;
  CHECK(model->attentionBytes(n, one) == 2 * per_layer);  // the pass runs on for the predictions
  one.next_tokens = 0;
  CHECK(model->attentionBytes(n, one) == per_layer);      // it stops at layer 0

  // The budget covers the whole run: weights, activations and the attention kept.
  const MemoryNeeds needs = model->memoryNeeds(n, all);
  CHECK(needs.attention == c.layers * per_layer);
  CHECK(needs.weights == model->weightBytes().total);
  CHECK(needs.weights > 0);
  CHECK(needs.activations == activationBytes(c, n));
  CHECK(needs.kv_cache == 0);
  ModelRunOptions tight;
  tight.memory_budget = needs.total() - 1;
  int layers_run = 0;
  tight.progress = [&](int, int) { return ++layers_run, true; };
  try {
    (void)model->run(text, std::nullopt, tight, *cpu);
    FAIL("a run over its budget must be refused");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidInput);
    CHECK_THAT(e.what(), Catch::Contains("this run would keep") &&
                             Catch::Contains("more than the memory budget") &&
                             Catch::Contains("--layer"));
  }
  CHECK(layers_run == 0);  // refused before any layer ran
  tight.memory_budget = needs.total();
  const ModelRun run = model->run(text, std::nullopt, tight, *cpu);
  CHECK(layers_run == c.layers);
  CHECK(static_cast<int>(run.attention.size()) == c.layers);
}

TEST_CASE("a progress callback that returns false cancels the pass after that layer",
          "[llama][memory]") {
  const auto model = PretrainedModel::load(kTinyGguf);
  auto cpu = makeCpuBackend();
  ModelRunOptions options;
  std::vector<std::pair<int, int>> calls;
  options.progress = [&](int done, int total) {
    calls.emplace_back(done, total);
    return false;
  };
  try {
    (void)model->run("the cat", std::nullopt, options, *cpu);
    FAIL("the pass must stop");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCancelled);
  }
  REQUIRE(calls.size() == 1);
  CHECK(calls[0] == std::make_pair(1, model->config().layers));
}

TEST_CASE("weights as stored: sizes from the header, the file kept mapped, the pages touched",
          "[llama][memory]") {
  const ModelFileInfo info = inspectModel(kTinyGguf);
  const auto model = PretrainedModel::load(kTinyGguf);
  CHECK(info.config.layers == model->config().layers);
  CHECK(info.name == model->name());
  CHECK(info.weights.total == model->weightBytes().total);
  CHECK(info.file_bytes == static_cast<long long>(fs::file_size(kTinyGguf)));
  long long tensors = 0;
  const GgufFile file(kTinyGguf);
  for (const GgufTensor& t : file.tensors()) tensors += static_cast<long long>(t.bytes);
  CHECK(info.weights.total == tensors);  // every tensor as stored, nothing converted
  long long by_type = 0;
  for (const auto& [type, bytes] : info.weights.by_type) by_type += bytes;
  CHECK(by_type == tensors);
  // Touching the mapped weights reads every page once, with progress; a cancel stops it.
  std::vector<long long> done;
  model->touchWeights([&](long long d, long long total) {
    CHECK(total == static_cast<long long>(fs::file_size(kTinyGguf)));
    done.push_back(d);
    return true;
  });
  REQUIRE(!done.empty());
  CHECK(done.back() == static_cast<long long>(fs::file_size(kTinyGguf)));
  CHECK(model->residentWeightBytes() > 0);
  CHECK_THROWS_AS(model->touchWeights([](long long, long long) { return false; }), Error);

  // A folder of half-precision safetensors stays half precision: its F16 tensors as stored, the
  // file mapped (the pages a pass read are in the process), not a float32 copy of twice the size.
  const fs::path qwen2 = kData / "models/tiny-qwen2";
  const auto half = PretrainedModel::load(qwen2);
  const WeightBytes& w = half->weightBytes();
  REQUIRE(!w.by_type.empty());
  CHECK(w.by_type.front().first == "F16");
  const SafeTensors qwen2_file(qwen2 / "model.safetensors");
  long long stored = 0;
  for (const auto& [name, t] : qwen2_file.tensors()) stored += static_cast<long long>(t.bytes);
  CHECK(w.total == stored);
  CHECK(inspectModel(qwen2).weights.total == stored);
  auto backend = makeCpuBackend();
  (void)half->run("the cat sat", std::nullopt, {}, *backend);
  CHECK(half->residentWeightBytes() > 0);
}

TEST_CASE("a file that claims more weights than the machine can hold is refused with the sizes",
          "[llama][memory]") {
  // A header whose last tensor runs past twice this machine's memory, the file extended to it
  // without writing (sparse): refused by its size, before it is mapped or a weight is read.
  const long long huge = std::max(usableMemoryBytes(), availableMemoryBytes()) * 2;
  GgufBuilder b;
  b.str("general.architecture", "llama").u32("llama.block_count", 1);
  b.u32("llama.context_length", 16).u32("llama.embedding_length", 32);
  b.u32("llama.feed_forward_length", 32).u32("llama.attention.head_count", 2);
  b.strings("tokenizer.ggml.tokens", {"a"}).str("tokenizer.ggml.model", "gpt2");
  const std::int64_t rows = huge / 128 + 1;
  b.tensor("blk.0.ffn_down.weight", 0, {32, rows}, {});
  const fs::path path = writeBytes(fs::temp_directory_path() / "attnlab_huge.gguf", b.bytes());
  fs::resize_file(path, fs::file_size(path) + static_cast<std::uintmax_t>(rows) * 128);
  try {
    (void)PretrainedModel::load(path);
    FAIL("a model larger than the memory must be refused");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kInvalidInput);
    CHECK_THAT(e.what(), Catch::Contains("attnlab_huge.gguf: its weights take ") &&
                             Catch::Contains(" in memory, more than the ") &&
                             Catch::Contains("available now: close other programs"));
  }
  // The header alone still reads: its sizes, without a weight.
  const ModelFileInfo info = inspectModel(path);
  CHECK(info.weights.total >= huge);
  fs::remove(path);
}

TEST_CASE("the formatted sizes of memory messages", "[memory]") {
  CHECK(formatBytes(812'000'000) == "812 MB");
  CHECK(formatBytes(26'100'000'000LL) == "26.1 GB");
  CHECK(formatBytes(999) == "999 bytes");
  CHECK(usableMemoryBytes() > 0);
  CHECK(availableMemoryBytes() > 0);
  CHECK(defaultMemoryBudget() > 0);
  CHECK(defaultMemoryBudget() <= availableMemoryBytes());
}

}  // namespace attnlab_test_llama
