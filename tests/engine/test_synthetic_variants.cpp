// Issue 12 in the synthetic lab: K/V heads drawn per group, RoPE and ALiBi instead of sinusoids,
// key padding with [PAD] tokens.

#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/synthetic.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_synthetic_variants {

using namespace attnlab;
using attnlab::test::ErrorMatches;

namespace {
const std::string kCat = "The cat sat on the mat because it was tired.";

AttentionSpec spec(int heads, int d_model, int kv_heads = 0,
                   Positions positions = Positions::kSinusoidal) {
  AttentionSpec s;
  s.heads = heads;
  s.d_model = d_model;
  s.kv_heads = kv_heads;
  s.positions = positions;
  return s;
}
}  // namespace

TEST_CASE("GQA: W_K and W_V have G·d_k and G·d_v columns, the first G heads of MHA's",
          "[synthetic][gqa]") {
  const SyntheticModel mha(spec(8, 64), 3), gqa(spec(8, 64, 2), 3), mqa(spec(8, 64, 1), 3);
  CHECK(gqa.wQ().cols() == 8 * 8);
  CHECK(gqa.wK().cols() == 2 * 8);
  CHECK(gqa.wV().cols() == 2 * 8);
  CHECK(mqa.wK().cols() == 8);
  // Same streams: W_Q is MHA's, K/V head g is MHA's head g.
  CHECK(gqa.wQ() == mha.wQ());
  CHECK(gqa.wK() == mha.wK().leftCols(16));
  CHECK(gqa.wV() == mha.wV().leftCols(16));
  const auto cpu = makeCpuBackend();
  const LabRun run = runSynthetic(gqa, spec(8, 64, 2), kCat, std::nullopt, *cpu);
  const AttentionInputs in = gqa.project(gqa.embed(run.query_tokens), gqa.embed(run.query_tokens));
  CHECK(in.q.h == 8);
  CHECK(in.k.h == 2);
  CHECK(in.v.h == 2);
  CHECK(run.attention.heads() == 8);
  CHECK(run.output.cols() == 64);
  // A model of other K/V heads is another model.
  CHECK_FALSE(gqa.sameWeights(spec(8, 64, 4), 3));
  CHECK(gqa.sameWeights(spec(8, 64, 2), 3));
}

TEST_CASE("RoPE: one repeated token gives a Toeplitz score matrix", "[synthetic][rope]") {
  const int d_model = GENERATE(16, 64);
  const double base = GENERATE(10000.0, 100.0);
  AttentionSpec s = spec(4, d_model, 0, Positions::kRope);
  s.rope_base = base;
  const SyntheticModel model(s, 5);
  const auto cpu = makeCpuBackend();
  const LabRun run = runSynthetic(model, s, "a a a a a a a a", std::nullopt, *cpu);
  const AttentionResult& r = run.attention;
  REQUIRE(r.nQ() == 8);
  // Every q_i = R_i q, every k_j = R_j k for the same q, k: S_ij = q·R_(j−i) k / √d_k depends on
  // j − i only — constant along each diagonal.
  double worst = 0;
  for (int head = 0; head < 4; ++head)
    for (int i = 1; i < 8; ++i)
      for (int j = 1; j < 8; ++j)
        worst = std::max(worst, std::fabs(double(r.scores(head, i, j)) - r.scores(head, i - 1, j - 1)));
  CHECK(worst <= 1e-5);
  // Not trivially: the diagonals differ from each other.
  CHECK(std::fabs(r.scores(0, 0, 1) - r.scores(0, 0, 5)) > 1e-3);
  // With sinusoids added to the embeddings instead, the matrix is not Toeplitz.
  const SyntheticModel sin_model(spec(4, d_model), 5);
  const LabRun sin_run = runSynthetic(sin_model, spec(4, d_model), "a a a a a a a a", std::nullopt,
                                      *cpu);
  double sin_worst = 0;
  for (int i = 1; i < 8; ++i)
    sin_worst = std::max(sin_worst, std::fabs(double(sin_run.attention.scores(0, i, i)) -
                                              sin_run.attention.scores(0, i - 1, i - 1)));
  CHECK(sin_worst > 1e-3);
}

TEST_CASE("RoPE keeps ‖q‖ and ‖k‖ and adds no sinusoids", "[synthetic][rope]") {
  const int kv = GENERATE(0, 2);
  const SyntheticModel rope(spec(4, 32, kv, Positions::kRope), 9);
  const SyntheticModel none(spec(4, 32, kv, Positions::kNone), 9);
  const auto tokens = tokenize(kCat);
  // No sinusoids with RoPE: the embeddings are the bare token vectors.
  const Matrix x = rope.embed(tokens);
  REQUIRE(x == none.embed(tokens));
  const AttentionInputs a = rope.project(x, x), b = none.project(x, x);
  for (const auto& [t_rope, t_none] : {std::pair{&a.q, &b.q}, std::pair{&a.k, &b.k}}) {
    for (int head = 0; head < t_rope->h; ++head)
      for (int i = 0; i < t_rope->rows; ++i) {
        const float n_rope = t_rope->head(head).row(i).norm();
        const float n_none = t_none->head(head).row(i).norm();
        REQUIRE(n_rope == Approx(n_none).epsilon(1e-5));
      }
    // Row 0 is position 0: not rotated; later rows are.
    REQUIRE(t_rope->head(0).row(0) == t_none->head(0).row(0));
    REQUIRE(t_rope->head(0).row(3) != t_none->head(0).row(3));
  }
  REQUIRE(a.v.data == b.v.data);  // values are never rotated
  // RoPE needs pairs of dimensions.
  AttentionSpec odd = spec(2, 10, 0, Positions::kRope);  // d_k = 5
  REQUIRE_THROWS_MATCHES(SyntheticModel(odd, 1), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "d_k must be even (got 5)"));
}

TEST_CASE("ALiBi: no sinusoids, the bias in the scores", "[synthetic][alibi]") {
  const SyntheticModel alibi(spec(4, 32, 0, Positions::kAlibi), 9);
  const SyntheticModel none(spec(4, 32, 0, Positions::kNone), 9);
  const auto cpu = makeCpuBackend();
  const LabRun a = runSynthetic(alibi, spec(4, 32, 0, Positions::kAlibi), kCat, std::nullopt, *cpu);
  const LabRun b = runSynthetic(none, spec(4, 32, 0, Positions::kNone), kCat, std::nullopt, *cpu);
  // H = 4: slopes 2^(−8(h+1)/4) = 1/4, 1/16, 1/64, 1/256; S_alibi − S_none = −m_h·|i − j|.
  const float m[4] = {1 / 4.0f, 1 / 16.0f, 1 / 64.0f, 1 / 256.0f};
  for (int head = 0; head < 4; ++head)
    CHECK(a.attention.scores(head, 0, 5) - b.attention.scores(head, 0, 5) ==
          Approx(-5 * m[head]).margin(1e-6));
}

TEST_CASE("key padding: [PAD] keys get weight 0, and more than 0 without the mask",
          "[synthetic][padding]") {
  const AttentionSpec s = spec(2, 16);
  const SyntheticModel model(s, 4);
  const auto cpu = makeCpuBackend();
  const LabRun run = runSynthetic(model, s, "the cat sat", std::nullopt, *cpu, KeyPadding{6, true});
  REQUIRE(run.pad_tokens == 3);
  REQUIRE(run.query_tokens.size() == 6);
  REQUIRE(run.key_tokens.size() == 6);
  CHECK(run.query_tokens[3].text == "[PAD]");
  CHECK(run.query_tokens[5].text == "[PAD]");
  CHECK(run.attention.pattern().valid_keys == 3);
  for (int head = 0; head < 2; ++head)
    for (int i = 0; i < 6; ++i) {
      double sum = 0;
      for (int j = 0; j < 3; ++j) sum += run.attention.weights(head, i, j);
      CHECK(sum == Approx(1.0).margin(1e-6));
      for (int j = 3; j < 6; ++j) CHECK(run.attention.weights(head, i, j) == 0.0f);
    }
  // The classic bug: no padding mask, weight leaks onto [PAD].
  const LabRun leak = runSynthetic(model, s, "the cat sat", std::nullopt, *cpu, KeyPadding{6, false});
  CHECK(leak.attention.pattern().valid_keys == -1);
  double leaked = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 3; j < 6; ++j) leaked += leak.attention.weights(0, i, j);
  CHECK(leaked > 0.0);
  // The text's own rows are what they were without padding only when masked … and the real
  // tokens' rows of the masked run equal the unpadded run (padding keys hidden, positions equal).
  const LabRun plain = runSynthetic(model, s, "the cat sat", std::nullopt, *cpu);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      CHECK(run.attention.weights(0, i, j) == Approx(plain.attention.weights(0, i, j)).margin(1e-6));
  // Errors: padding shorter than the text, padding with cross-attention.
  REQUIRE_THROWS_MATCHES(runSynthetic(model, s, "the cat sat", std::nullopt, *cpu, KeyPadding{2}),
                         Error, ErrorMatches(ErrorCode::kInvalidArgument, "more than pad-to (2)"));
  REQUIRE_THROWS_MATCHES(
      runSynthetic(model, s, "the cat sat", std::string("le chat"), *cpu, KeyPadding{5}), Error,
      ErrorMatches(ErrorCode::kInvalidArgument, "self-attention only"));
}

TEST_CASE("window, global and stride pass through to the result", "[synthetic][mask]") {
  AttentionSpec s = spec(2, 16);
  s.mask = Mask::kCausal;
  s.window = 2;
  s.global_tokens = 1;
  s.stride = 3;
  const SyntheticModel model(spec(2, 16), 4);
  const auto cpu = makeCpuBackend();
  const LabRun run = runSynthetic(model, s, kCat, std::nullopt, *cpu);
  const MaskPattern p = run.attention.pattern();
  CHECK(p == s.maskPattern());
  for (int i = 0; i < run.attention.nQ(); ++i)
    for (int j = 0; j < run.attention.nK(); ++j)
      if (!p.visible(i, j)) REQUIRE(run.attention.weights(0, i, j) == 0.0f);
  // Row 9 sees key 0 (global), 8 and 9 (window 2), 6 and 3 (stride 3): five keys.
  CHECK(p.visibleCount(9, 11) == 5);
}

}  // namespace attnlab_test_synthetic_variants
