// Worked examples small enough to check by hand. Every expected number is derived in the comment
// beside it.

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "helpers.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_attention_worked {

using namespace attnlab;
using attnlab::test::oneHead;
using Catch::Detail::Approx;

namespace {

// Q = [[1, 1], [0, 2]], K = [[1, 0], [0, 1]]  →  Q Kᵀ = [[1, 1], [0, 2]].
// V = [[1, 2], [3, 4]].
AttentionInputs twoTokens() {
  AttentionInputs in;
  in.q = oneHead({{1, 1}, {0, 2}});
  in.k = oneHead({{1, 0}, {0, 1}});
  in.v = oneHead({{1, 2}, {3, 4}});
  return in;
}

AttentionSpec specFor(Mechanism m, Mask mask = Mask::kNone) {
  AttentionSpec s;
  s.mechanism = m;
  s.mask = mask;
  s.heads = 1;
  s.d_model = 2;
  return s;
}

constexpr float kTol = 1e-5f;

}  // namespace

TEST_CASE("scaled dot-product, two tokens, by hand", "[worked][scaled]") {
  const AttentionResult r = computeAttentionCpu(twoTokens(), specFor(Mechanism::kScaled));
  // Scale 1/√2: S = [[1/√2, 1/√2], [0, √2]].
  CHECK(r.scale == Approx(1 / std::sqrt(2.0)));
  CHECK(r.scores(0, 0, 0) == Approx(0.7071068f).margin(kTol));
  CHECK(r.scores(0, 0, 1) == Approx(0.7071068f).margin(kTol));
  CHECK(r.scores(0, 1, 0) == Approx(0.0f).margin(kTol));
  CHECK(r.scores(0, 1, 1) == Approx(1.4142136f).margin(kTol));
  // Row 0: equal scores → [½, ½]. Row 1: softmax([0, √2]) = [1, e^√2] / (1 + e^√2), e^√2 = 4.113250
  // → [1/5.113250, 4.113250/5.113250] = [0.195570, 0.804430].
  CHECK(r.weights(0, 0, 0) == Approx(0.5f).margin(kTol));
  CHECK(r.weights(0, 0, 1) == Approx(0.5f).margin(kTol));
  CHECK(r.weights(0, 1, 0) == Approx(0.195570f).margin(kTol));
  CHECK(r.weights(0, 1, 1) == Approx(0.804430f).margin(kTol));
  // Output row 0 = ½[1, 2] + ½[3, 4] = [2, 3];
  // row 1 = 0.195570·[1, 2] + 0.804430·[3, 4] = [2.608859, 3.608859].
  CHECK(r.head_outputs(0, 0, 0) == Approx(2.0f).margin(kTol));
  CHECK(r.head_outputs(0, 0, 1) == Approx(3.0f).margin(kTol));
  CHECK(r.head_outputs(0, 1, 0) == Approx(2.608859f).margin(kTol));
  CHECK(r.head_outputs(0, 1, 1) == Approx(3.608859f).margin(kTol));
  // Row 0 statistics: uniform over 2 keys → max ½, H = ln 2 = 0.693147, H/ln 2 = 1, exp(H) = 2,
  // ‖J‖_F = √(1/2 − 1/4) = ½.
  CHECK(r.stats[0].max_weight[0] == Approx(0.5f));
  CHECK(r.stats[0].entropy[0] == Approx(0.693147f));
  CHECK(r.stats[0].normalized_entropy[0] == Approx(1.0f));
  CHECK(r.stats[0].effective_keys[0] == Approx(2.0f));
  CHECK(r.stats[0].jacobian_norm[0] == Approx(0.5f));
  // Row 1: H = −(0.195570 ln 0.195570 + 0.804430 ln 0.804430) = 0.319120 + 0.175080 = 0.494200.
  // For two keys J = p0 p1 [[1, −1], [−1, 1]], so ‖J‖_F = 2 p0 p1 = 2 · 0.195570 · 0.804430
  // = 0.314645.
  CHECK(r.stats[0].entropy[1] == Approx(0.494200f).epsilon(1e-4));
  CHECK(r.stats[0].jacobian_norm[1] == Approx(0.314645f).epsilon(1e-4));
}

TEST_CASE("dot-product, two tokens, by hand", "[worked][dot]") {
  const AttentionResult r = computeAttentionCpu(twoTokens(), specFor(Mechanism::kDot));
  // S = Q Kᵀ = [[1, 1], [0, 2]], no scale.
  CHECK(r.scale == 1.0);
  CHECK(r.scores(0, 1, 1) == Approx(2.0f));
  // Row 1: softmax([0, 2]) = [1, e²] / (1 + e²), e² = 7.389056 → [0.119203, 0.880797].
  CHECK(r.weights(0, 1, 0) == Approx(0.119203f).margin(kTol));
  CHECK(r.weights(0, 1, 1) == Approx(0.880797f).margin(kTol));
  // Output row 1 = 0.119203·[1, 2] + 0.880797·[3, 4] = [2.761594, 3.761594].
  CHECK(r.head_outputs(0, 1, 0) == Approx(2.761594f).margin(kTol));
  CHECK(r.head_outputs(0, 1, 1) == Approx(3.761594f).margin(kTol));
}

TEST_CASE("temperature replaces the scale, by hand", "[worked][temperature]") {
  AttentionSpec spec = specFor(Mechanism::kScaled);
  spec.temperature = 2.0;
  const AttentionResult r = computeAttentionCpu(twoTokens(), spec);
  // S = Q Kᵀ / 2 = [[½, ½], [0, 1]] (not /√2): row 1 softmax([0, 1]) = [1, e] / (1 + e)
  // = [0.268941, 0.731059].
  CHECK(r.scale == 0.5);
  CHECK(r.scores(0, 1, 1) == Approx(1.0f));
  CHECK(r.weights(0, 1, 0) == Approx(0.268941f).margin(kTol));
  CHECK(r.weights(0, 1, 1) == Approx(0.731059f).margin(kTol));
}

TEST_CASE("causal mask, two tokens, by hand", "[worked][causal]") {
  for (Mechanism m : {Mechanism::kDot, Mechanism::kScaled}) {
    const AttentionResult r = computeAttentionCpu(twoTokens(), specFor(m, Mask::kCausal));
    // Query 0 sees key 0 only: p = [1, 0] exactly, output = V₀ = [1, 2].
    CHECK(r.weights(0, 0, 0) == 1.0f);
    CHECK(r.weights(0, 0, 1) == 0.0f);
    CHECK(r.head_outputs(0, 0, 0) == Approx(1.0f));
    CHECK(r.head_outputs(0, 0, 1) == Approx(2.0f));
    // Query 1 sees both keys: as without the mask.
    CHECK(r.weights(0, 1, 1) ==
          Approx(m == Mechanism::kDot ? 0.880797f : 0.804430f).margin(kTol));
    // One visible key: normalised entropy 0, Jacobian 0 (one-hot).
    CHECK(r.stats[0].normalized_entropy[0] == 0.0f);
    CHECK(r.stats[0].jacobian_norm[0] == 0.0f);
  }
}

TEST_CASE("causal mask, three tokens with zero scores, by hand", "[worked][causal]") {
  AttentionInputs in;
  in.q = oneHead({{0, 0}, {0, 0}, {0, 0}});
  in.k = oneHead({{1, 2}, {3, 4}, {5, 6}});
  in.v = oneHead({{3, 0}, {0, 3}, {3, 3}});
  AttentionSpec spec = specFor(Mechanism::kScaled, Mask::kCausal);
  const AttentionResult r = computeAttentionCpu(in, spec);
  // All scores 0 → each row uniform over its visible keys: [1,0,0], [½,½,0], [⅓,⅓,⅓].
  CHECK(r.weights(0, 1, 0) == Approx(0.5f));
  CHECK(r.weights(0, 1, 2) == 0.0f);
  for (int j = 0; j < 3; ++j) CHECK(r.weights(0, 2, j) == Approx(1.0f / 3));
  // Outputs: row 1 = ½[3,0] + ½[0,3] = [1.5, 1.5]; row 2 = ⅓([3,0]+[0,3]+[3,3]) = [2, 2].
  CHECK(r.head_outputs(0, 1, 0) == Approx(1.5f));
  CHECK(r.head_outputs(0, 2, 1) == Approx(2.0f));
  // Row 2: H = ln 3 = 1.098612, normalised by ln 3 → 1, exp(H) = 3, ‖J‖_F = √(1/3 − 1/9) = 0.471405.
  CHECK(r.stats[0].entropy[2] == Approx(1.098612f));
  CHECK(r.stats[0].normalized_entropy[2] == Approx(1.0f));
  CHECK(r.stats[0].effective_keys[2] == Approx(3.0f));
  CHECK(r.stats[0].jacobian_norm[2] == Approx(0.471405f));
  // Row 1 uses 2 of 3 keys: normalised by ln 2 (its visible keys) → 1.
  CHECK(r.stats[0].normalized_entropy[1] == Approx(1.0f));
}

TEST_CASE("additive (Bahdanau) attention, two tokens, by hand", "[worked][additive]") {
  AttentionInputs in = twoTokens();
  // d_a = 1: W_a = [[1], [0]] picks q's first component, U_a = [[0], [1]] picks k's second,
  // v = [1]: e_ij = tanh(q_i0 + k_j1).
  in.w_a = oneHead({{1}, {0}});
  in.u_a = oneHead({{0}, {1}});
  in.v_a = oneHead({{1}});
  const AttentionResult r = computeAttentionCpu(in, specFor(Mechanism::kAdditive));
  // q_00 = 1, q_10 = 0; k_01 = 0, k_11 = 1.
  // e = [[tanh 1, tanh 2], [tanh 0, tanh 1]] = [[0.761594, 0.964028], [0, 0.761594]].
  CHECK(r.scale == 1.0);
  CHECK(r.scores(0, 0, 0) == Approx(0.761594f).margin(kTol));
  CHECK(r.scores(0, 0, 1) == Approx(0.964028f).margin(kTol));
  CHECK(r.scores(0, 1, 0) == Approx(0.0f).margin(kTol));
  CHECK(r.scores(0, 1, 1) == Approx(0.761594f).margin(kTol));
  // Row 0: difference 0.202434, e^0.202434 = 1.224378 → p = [1/2.224378, 1.224378/2.224378]
  // = [0.449564, 0.550436]. Row 1: e^0.761594 = 2.141710 → [0.318300, 0.681700].
  CHECK(r.weights(0, 0, 0) == Approx(0.449564f).margin(kTol));
  CHECK(r.weights(0, 0, 1) == Approx(0.550436f).margin(kTol));
  CHECK(r.weights(0, 1, 0) == Approx(0.318300f).margin(kTol));
  CHECK(r.weights(0, 1, 1) == Approx(0.681700f).margin(kTol));
}

TEST_CASE("additive with a causal mask and a temperature, by hand", "[worked][additive]") {
  AttentionInputs in = twoTokens();
  in.w_a = oneHead({{1}, {0}});
  in.u_a = oneHead({{0}, {1}});
  in.v_a = oneHead({{1}});
  AttentionSpec spec = specFor(Mechanism::kAdditive, Mask::kCausal);
  spec.temperature = 0.5;
  const AttentionResult r = computeAttentionCpu(in, spec);
  // e/T = 2e: row 1 = [0, 1.523188] → [1, e^1.523188] / (1 + 4.586827) = [0.178993, 0.821007].
  CHECK(r.weights(0, 0, 1) == 0.0f);
  CHECK(r.weights(0, 1, 0) == Approx(0.178993f).margin(kTol));
  CHECK(r.weights(0, 1, 1) == Approx(0.821007f).margin(kTol));
}

TEST_CASE("a row with every key masked gives zero weights", "[worked][mask]") {
  const float scores[3] = {1e4f, -1e4f, 0.0f};
  float p[3] = {7, 7, 7};
  CHECK_FALSE(softmaxRow(scores, p, 3, 2, 2));  // empty visible range
  CHECK(p[0] == 0.0f);
  CHECK(p[1] == 0.0f);
  CHECK(p[2] == 0.0f);
  const RowStats s = rowStats(p, 3, 0);
  CHECK(s.max_weight == 0.0);
  CHECK(s.entropy == 0.0);
  CHECK(s.jacobian_norm == 0.0);
}

TEST_CASE("mismatched shapes are reported, not computed", "[worked][errors]") {
  AttentionInputs in = twoTokens();
  in.k = oneHead({{1, 0, 0}, {0, 1, 0}});
  REQUIRE_THROWS_AS(computeAttentionCpu(in, specFor(Mechanism::kDot)), Error);
  AttentionInputs cross = twoTokens();
  cross.k = oneHead({{1, 0}, {0, 1}, {1, 1}});
  cross.v = oneHead({{1, 0}, {0, 1}, {1, 1}});
  CHECK_NOTHROW(computeAttentionCpu(cross, specFor(Mechanism::kDot)));
  CHECK_THROWS_WITH(computeAttentionCpu(cross, specFor(Mechanism::kDot, Mask::kCausal)),
                    Catch::Contains("self-attention only"));
}

TEST_CASE("the overflow contract's split of the scale, by hand", "[worked][overflow]") {
  // Ordinary inputs: a = s, b = 1 (the score is x' itself).
  ScoreScale s = splitScoreScale(0.125, 100.0);
  CHECK(s.query_factor == 0.125f);
  CHECK(s.score_factor == 1.0f);
  // s = 1e39 with bound 2: s·bound > 2^126, so a is the largest power of two with a·2 ≤ 2^126,
  // a = 2^125, and b = 1e39 / 2^125 = 1e39 / 4.2535e37 = 23.51.
  s = splitScoreScale(1e39, 2.0);
  CHECK(s.query_factor == std::ldexp(1.0f, 125));
  CHECK(s.score_factor == Approx(23.5099f).epsilon(1e-5));
  // A bound below 1 counts as 1 (a itself must stay below 2^126): s = 1e300 → a = 2^126,
  // b = 1e300 / 2^126 overflows float32 and is clamped to FLT_MAX.
  s = splitScoreScale(1e300, 1e-3);
  CHECK(s.query_factor == std::ldexp(1.0f, 126));
  CHECK(s.score_factor == std::numeric_limits<float>::max());
}

TEST_CASE("a temperature near 0: one-hot at the arg-max, shared by true ties",
          "[worked][overflow]") {
  // q = [1], keys [2], [1], [2], [−1]: q·k = 2, 1, 2, −1. With T = 1e-38 the scores are 2e38,
  // 1e38, 2e38, −1e38 (all finite in float32); with T = 1e-39 they are 2e39 → +inf, 1e39 → +inf,
  // +inf, −1e39 → −inf. Either way the T → 0 limit puts 1/2 on keys 0 and 2 (a true tie) and 0
  // elsewhere — not 1/3 each on the three +inf keys, as clamped or infinite scores would.
  AttentionInputs in;
  in.q = oneHead({{1}});
  in.k = oneHead({{2}, {1}, {2}, {-1}});
  in.v = oneHead({{10}, {20}, {30}, {40}});
  AttentionSpec spec = specFor(Mechanism::kDot);
  spec.d_model = 1;
  for (const double t : {1e-38, 1e-39, 1e-300}) {
    CAPTURE(t);
    spec.temperature = t;
    const AttentionResult r = computeAttentionCpu(in, spec);
    CHECK(r.weights(0, 0, 0) == 0.5f);
    CHECK(r.weights(0, 0, 1) == 0.0f);
    CHECK(r.weights(0, 0, 2) == 0.5f);
    CHECK(r.weights(0, 0, 3) == 0.0f);
    CHECK(r.head_outputs(0, 0, 0) == 20.0f);  // (10 + 30) / 2
    if (t == 1e-38) {
      CHECK(r.scores(0, 0, 0) == Approx(2e38f));
      CHECK(r.scores(0, 0, 1) == Approx(1e38f));
      CHECK(r.scores(0, 0, 3) == Approx(-1e38f));
    } else {
      CHECK(r.scores(0, 0, 0) == std::numeric_limits<float>::infinity());
      CHECK(r.scores(0, 0, 1) == std::numeric_limits<float>::infinity());
      CHECK(r.scores(0, 0, 3) == -std::numeric_limits<float>::infinity());
    }
    CHECK(r.stats[0].entropy[0] == Approx(std::log(2.0)));
  }
}

TEST_CASE("scores of ±1e6: rows sum to 1 within 1e-6 and equal the exact softmax",
          "[worked][overflow]") {
  // T = 2^-20 (9.5e-7) and q·k = 1, 1 − 2^-20, 1/2: scores 2^20 = 1048576, 1048575 and 524288,
  // all exact in float32. Exactly: p = [1, e^−1, e^−524288] / (1 + e^−1 + …)
  // = [0.7310586, 0.2689414, 0].
  AttentionInputs in;
  in.q = oneHead({{1}});
  in.k = oneHead({{1}, {1.0f - std::ldexp(1.0f, -20)}, {0.5f}});
  in.v = oneHead({{1}, {2}, {3}});
  AttentionSpec spec = specFor(Mechanism::kDot);
  spec.d_model = 1;
  spec.temperature = std::ldexp(1.0, -20);
  const AttentionResult r = computeAttentionCpu(in, spec);
  CHECK(r.scores(0, 0, 0) == 1048576.0f);
  CHECK(r.scores(0, 0, 1) == 1048575.0f);
  CHECK(r.scores(0, 0, 2) == 524288.0f);
  CHECK(r.weights(0, 0, 0) == Approx(0.7310586f).margin(1e-6));
  CHECK(r.weights(0, 0, 1) == Approx(0.2689414f).margin(1e-6));
  CHECK(r.weights(0, 0, 2) == 0.0f);
  CHECK(std::abs(double(r.weights(0, 0, 0)) + r.weights(0, 0, 1) - 1.0) <= 1e-6);
}

}  // namespace attnlab_test_attention_worked
