// Issue 12 in the CPU reference: grouped-query attention, mask patterns (sliding window, global
// tokens, strides, key padding) and ALiBi. Hand-checked cases first (the arithmetic beside each
// number), then properties over generated shapes.

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "attnlab/positions.hpp"
#include "test_support.hpp"
#include "helpers.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_attention_variants {

using namespace attnlab;
using attnlab::test::ErrorMatches;
using attnlab::test::oneHead;
using attnlab::test::randomInputs;
using attnlab::test::randomTensor;
using Catch::Detail::Approx;

namespace {

constexpr float kTol = 1e-6f;

AttentionSpec dotSpec(int heads, int d, Mask mask = Mask::kNone) {
  AttentionSpec s;
  s.mechanism = Mechanism::kDot;
  s.mask = mask;
  s.heads = heads;
  s.d_model = heads * d;
  return s;
}

// n tokens, one head of width 1, queries all 0: every visible score is 0, so each row's weights
// are uniform over exactly the keys the pattern leaves visible.
AttentionInputs zeroQueries(int n) {
  AttentionInputs in;
  in.q = Tensor3(1, n, 1, 0.0f);
  in.k = Tensor3(1, n, 1, 1.0f);
  in.v = Tensor3(1, n, 1, 0.0f);
  for (int j = 0; j < n; ++j) in.v(0, j, 0) = static_cast<float>(j);
  return in;
}

// The weights of row i as a vector, for readable comparisons.
std::vector<float> row(const AttentionResult& r, int head, int i) {
  return std::vector<float>(r.weights.row(head, i), r.weights.row(head, i) + r.nK());
}

void requireRow(const AttentionResult& r, int head, int i, std::vector<float> expected) {
  INFO("head " << head << ", row " << i);
  REQUIRE(static_cast<int>(expected.size()) == r.nK());
  for (int j = 0; j < r.nK(); ++j) {
    INFO("key " << j);
    if (expected[j] == 0.0f) {
      CHECK(r.weights(head, i, j) == 0.0f);  // masked: exactly 0
    } else {
      CHECK(r.weights(head, i, j) == Approx(expected[j]).margin(kTol));
    }
  }
}

// K and V of G heads repeated for the h query heads (HuggingFace's repeat_kv).
AttentionInputs repeatKv(const AttentionInputs& in, int h) {
  AttentionInputs out = in;
  const int g = in.k.h;
  out.k = Tensor3(h, in.k.rows, in.k.cols);
  out.v = Tensor3(h, in.v.rows, in.v.cols);
  for (int head = 0; head < h; ++head) {
    out.k.head(head) = in.k.head(kvHeadOf(head, h, g));
    out.v.head(head) = in.v.head(kvHeadOf(head, h, g));
  }
  return out;
}

void requireIdentical(const AttentionResult& a, const AttentionResult& b) {
  REQUIRE(a.scores.data == b.scores.data);
  REQUIRE(a.weights.data == b.weights.data);
  REQUIRE(a.head_outputs.data == b.head_outputs.data);
  for (int head = 0; head < a.heads(); ++head)
    REQUIRE(a.stats[head].entropy == b.stats[head].entropy);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Grouped-query attention.

TEST_CASE("GQA: two query heads share one K/V head, by hand", "[variants][gqa][worked]") {
  AttentionInputs in;
  in.q = Tensor3(2, 2, 2);
  // Head 0: Q = [[1, 0], [0, 1]]; head 1: Q = [[0, 1], [1, 0]].
  in.q.head(0) = oneHead({{1, 0}, {0, 1}}).head(0);
  in.q.head(1) = oneHead({{0, 1}, {1, 0}}).head(0);
  in.k = oneHead({{1, 0}, {0, 1}});  // one K/V head: K = I, V = [[1, 2], [3, 4]]
  in.v = oneHead({{1, 2}, {3, 4}});
  AttentionSpec spec = dotSpec(2, 2);
  spec.kv_heads = 1;
  const AttentionResult r = computeAttentionCpu(in, spec);
  // Head 0: S = Q Kᵀ = [[1, 0], [0, 1]]; head 1: [[0, 1], [1, 0]] — both against the same K.
  CHECK(r.scores(0, 0, 0) == 1.0f);
  CHECK(r.scores(0, 0, 1) == 0.0f);
  CHECK(r.scores(1, 0, 0) == 0.0f);
  CHECK(r.scores(1, 0, 1) == 1.0f);
  // softmax([1, 0]) = [e, 1] / (1 + e) = [0.731059, 0.268941].
  requireRow(r, 0, 0, {0.731059f, 0.268941f});
  requireRow(r, 1, 0, {0.268941f, 0.731059f});
  // Output of head 0, row 0 = 0.731059·[1, 2] + 0.268941·[3, 4] = [1.537883, 2.537883];
  // head 1, row 0 = 0.268941·[1, 2] + 0.731059·[3, 4] = [2.462117, 3.462117] — the same V.
  CHECK(r.head_outputs(0, 0, 0) == Approx(1.537883f).margin(1e-5));
  CHECK(r.head_outputs(0, 0, 1) == Approx(2.537883f).margin(1e-5));
  CHECK(r.head_outputs(1, 0, 0) == Approx(2.462117f).margin(1e-5));
  CHECK(r.head_outputs(1, 0, 1) == Approx(3.462117f).margin(1e-5));
}

TEST_CASE("GQA: K and V must carry exactly G heads, G dividing h", "[variants][gqa][errors]") {
  AttentionInputs in = randomInputs(4, 3, 3, 2, 2, 7);
  AttentionSpec spec = dotSpec(4, 2);
  spec.kv_heads = 2;  // k, v have 4 heads, not 2
  REQUIRE_THROWS_MATCHES(computeAttentionCpu(in, spec), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "2 K/V heads"));
  spec.kv_heads = 3;  // 3 does not divide 4
  REQUIRE_THROWS_MATCHES(computeAttentionCpu(in, spec), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "must divide the 4 query heads"));
  spec.kv_heads = 0;  // multi-head: k with 2 heads is refused
  in.k = randomTensor(2, 3, 2, 9);
  REQUIRE_THROWS_MATCHES(computeAttentionCpu(in, spec), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "as q has"));
  spec.kv_heads = 3;
  REQUIRE_THROWS_MATCHES(spec.validate(), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "kv heads (3) must divide heads (4)"));
}

TEST_CASE("GQA: G = h is multi-head attention, bit for bit", "[variants][gqa][property]") {
  const int h = GENERATE(1, 2, 4, 6);
  const int n = GENERATE(1, 5, 17);
  const Mechanism m = GENERATE(Mechanism::kScaled, Mechanism::kAdditive);
  const AttentionInputs in = randomInputs(h, n, n, 8, 4, 100 + h * 31 + n);
  AttentionSpec spec = dotSpec(h, 8, Mask::kCausal);
  spec.mechanism = m;
  const AttentionResult mha = computeAttentionCpu(in, spec);
  spec.kv_heads = h;
  requireIdentical(computeAttentionCpu(in, spec), mha);
}

TEST_CASE("GQA: with G K/V heads each query head sees its group's keys", "[variants][gqa][property]") {
  const int h = GENERATE(2, 4, 8);
  const int g = GENERATE(1, 2);
  const int n = GENERATE(1, 7, 33);
  const Mechanism m = GENERATE(Mechanism::kScaled, Mechanism::kAdditive);
  AttentionInputs in = randomInputs(h, n, n, 8, 4, 500 + h * 7 + g * 3 + n);
  in.k = randomTensor(g, n, 8, 900 + n);
  in.v = randomTensor(g, n, 4, 901 + n);
  AttentionSpec spec = dotSpec(h, 8);
  spec.mechanism = m;
  spec.kv_heads = g;
  const AttentionResult gqa = computeAttentionCpu(in, spec);
  // Identical to multi-head attention on K and V repeated per group.
  AttentionSpec mha = spec;
  mha.kv_heads = 0;
  requireIdentical(gqa, computeAttentionCpu(repeatKv(in, h), mha));
  if (g == 1 && m != Mechanism::kAdditive) {
    // G = 1 (MQA): every head sees identical keys, so heads with identical queries agree exactly.
    AttentionInputs same = in;
    for (int head = 1; head < h; ++head) same.q.head(head) = same.q.head(0);
    const AttentionResult r = computeAttentionCpu(same, spec);
    for (int head = 1; head < h; ++head) {
      REQUIRE(row(r, head, n - 1) == row(r, 0, n - 1));
      REQUIRE(r.head_outputs.head(head) == r.head_outputs.head(0));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Mask patterns.

TEST_CASE("sliding window, by hand", "[variants][window][worked]") {
  const AttentionInputs in = zeroQueries(3);
  AttentionSpec spec = dotSpec(1, 1, Mask::kCausal);
  spec.window = 2;
  // Causal, W = 2: query i sees i − 2 < j ≤ i → row 0 {0}, row 1 {0, 1}, row 2 {1, 2}.
  AttentionResult r = computeAttentionCpu(in, spec);
  requireRow(r, 0, 0, {1, 0, 0});
  requireRow(r, 0, 1, {0.5f, 0.5f, 0});
  requireRow(r, 0, 2, {0, 0.5f, 0.5f});
  // Output of row 2 = ½·v_1 + ½·v_2 = ½·1 + ½·2 = 1.5; normalised entropy ln 2 / ln 2 = 1.
  CHECK(r.head_outputs(0, 2, 0) == Approx(1.5f));
  CHECK(r.stats[0].normalized_entropy[2] == Approx(1.0f));
  CHECK(r.stats[0].normalized_entropy[0] == 0.0f);  // one visible key
  // Not causal, W = 2: |i − j| < 2 → row 0 {0, 1}, row 1 {0, 1, 2}, row 2 {1, 2}.
  spec.mask = Mask::kNone;
  r = computeAttentionCpu(in, spec);
  requireRow(r, 0, 0, {0.5f, 0.5f, 0});
  requireRow(r, 0, 1, {1 / 3.0f, 1 / 3.0f, 1 / 3.0f});
  requireRow(r, 0, 2, {0, 0.5f, 0.5f});
  // Row 1: H = ln 3 = 1.098612 over its 3 visible keys → normalised 1.
  CHECK(r.stats[0].entropy[1] == Approx(1.098612f));
  CHECK(r.stats[0].normalized_entropy[1] == Approx(1.0f));
}

TEST_CASE("global tokens and strides leave gaps, by hand", "[variants][global][stride][worked]") {
  const AttentionInputs in = zeroQueries(4);
  AttentionSpec spec = dotSpec(1, 1);
  spec.window = 1;
  spec.global_tokens = 1;
  // Not causal, W = 1 (only j = i), global token 0: row 0 sees every key; rows 1–3 see key 0 and
  // themselves.
  AttentionResult r = computeAttentionCpu(in, spec);
  requireRow(r, 0, 0, {0.25f, 0.25f, 0.25f, 0.25f});
  requireRow(r, 0, 1, {0.5f, 0.5f, 0, 0});
  requireRow(r, 0, 3, {0.5f, 0, 0, 0.5f});
  // Row 3: ½·v_0 + ½·v_3 = ½·0 + ½·3 = 1.5; two visible keys of four: normalised entropy
  // ln 2 / ln 2 = 1 (over the visible keys, not ln 4).
  CHECK(r.head_outputs(0, 3, 0) == Approx(1.5f));
  CHECK(r.stats[0].normalized_entropy[3] == Approx(1.0f));
  CHECK(r.pattern().visibleFraction(4, 4) == Approx((4 + 2 + 2 + 2) / 16.0));

  // Causal, W = 1, stride 2: (i − j) mod 2 = 0 → row 3 {1, 3}, row 2 {0, 2}, row 1 {1}.
  spec = dotSpec(1, 1, Mask::kCausal);
  spec.window = 1;
  spec.stride = 2;
  r = computeAttentionCpu(in, spec);
  requireRow(r, 0, 1, {0, 1, 0, 0});
  requireRow(r, 0, 2, {0.5f, 0, 0.5f, 0});
  requireRow(r, 0, 3, {0, 0.5f, 0, 0.5f});
  // With real scores: q_3 = 1 and k = [0, 0, 5, ln 3] give row 3 the visible scores
  // [0 (key 1), ln 3 (key 3)] → softmax [1, 3] / 4 = [0.25, 0.75]; key 2's score 5 is masked.
  AttentionInputs scored = in;
  scored.q(0, 3, 0) = 1;
  scored.k = oneHead({{0}, {0}, {5}, {std::log(3.0f)}});
  r = computeAttentionCpu(scored, spec);
  CHECK(r.scores(0, 3, 2) == 5.0f);  // reported before the mask
  requireRow(r, 0, 3, {0, 0.25f, 0, 0.75f});
}

TEST_CASE("key padding, by hand", "[variants][padding][worked]") {
  AttentionInputs in = zeroQueries(3);
  in.k = oneHead({{0}, {0}, {0}});
  in.q = oneHead({{1}, {1}, {1}});
  in.k(0, 2, 0) = 100;  // the [PAD] key would take every weight were it visible
  AttentionSpec spec = dotSpec(1, 1);
  spec.valid_keys = 2;
  // Keys 0 and 1 (scores 0, 0) are the only visible ones: [½, ½, 0] on every row.
  AttentionResult r = computeAttentionCpu(in, spec);
  for (int i = 0; i < 3; ++i) requireRow(r, 0, i, {0.5f, 0.5f, 0});
  // Without the padding mask the [PAD] key leaks: softmax([0, 0, 100]) ≈ [e^−100, e^−100, 1].
  spec.valid_keys = -1;
  r = computeAttentionCpu(in, spec);
  CHECK(r.weights(0, 0, 2) > 0.99f);
  // Everything padded: every row is fully masked — zero weights, outputs and statistics.
  spec.valid_keys = 0;
  r = computeAttentionCpu(in, spec);
  for (int i = 0; i < 3; ++i) {
    requireRow(r, 0, i, {0, 0, 0});
    CHECK(r.head_outputs(0, i, 0) == 0.0f);
    CHECK(r.stats[0].entropy[i] == 0.0f);
    CHECK(r.stats[0].max_weight[i] == 0.0f);
  }
}

TEST_CASE("a window of W ≥ n is full attention, bit for bit", "[variants][window][property]") {
  const int n = GENERATE(1, 2, 9, 40);
  const int extra = GENERATE(0, 1, 100);
  const Mask mask = GENERATE(Mask::kNone, Mask::kCausal);
  const Mechanism m = GENERATE(Mechanism::kScaled, Mechanism::kAdditive);
  const AttentionInputs in = randomInputs(3, n, n, 8, 4, 40 + n);
  AttentionSpec spec = dotSpec(3, 8, mask);
  spec.mechanism = m;
  const AttentionResult full = computeAttentionCpu(in, spec);
  spec.window = n + extra;
  requireIdentical(computeAttentionCpu(in, spec), full);
}

TEST_CASE("a causal window of 1 is the identity matrix", "[variants][window][property]") {
  const int n = GENERATE(1, 3, 16, 65);
  const AttentionInputs in = randomInputs(2, n, n, 8, 8, 70 + n, 10.0);
  AttentionSpec spec = dotSpec(2, 8, Mask::kCausal);
  spec.mechanism = Mechanism::kScaled;
  spec.window = 1;
  const AttentionResult r = computeAttentionCpu(in, spec);
  for (int head = 0; head < 2; ++head) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) REQUIRE(r.weights(head, i, j) == (i == j ? 1.0f : 0.0f));
      // Output row i is value row i; one visible key: entropy 0.
      REQUIRE(r.head_outputs(head, i, 0) == in.v(head, i, 0));
      REQUIRE(r.stats[head].entropy[i] == 0.0f);
    }
  }
}

TEST_CASE("every pattern: weights sum to 1 over exactly the visible keys",
          "[variants][mask][property]") {
  const int n = GENERATE(1, 7, 33);
  const int window = GENERATE(0, 1, 3);
  const int global = GENERATE(0, 2);
  const int stride = GENERATE(0, 3);
  const Mask mask = GENERATE(Mask::kNone, Mask::kCausal);
  const int valid = GENERATE(-1, 5);
  const AttentionInputs in = randomInputs(2, n, n, 4, 4, 10 + n);
  AttentionSpec spec = dotSpec(2, 4, mask);
  spec.mechanism = Mechanism::kScaled;
  spec.window = window;
  spec.global_tokens = global;
  spec.stride = stride;
  spec.valid_keys = valid;
  const AttentionResult r = computeAttentionCpu(in, spec);
  const MaskPattern p = spec.maskPattern();
  for (int head = 0; head < 2; ++head) {
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      int visible = 0;
      for (int j = 0; j < n; ++j) {
        if (p.visible(i, j)) {
          ++visible;
          sum += r.weights(head, i, j);
          REQUIRE(r.weights(head, i, j) > 0.0f);  // scores of sd ~1: no underflow
        } else {
          REQUIRE(r.weights(head, i, j) == 0.0f);
        }
      }
      REQUIRE(visible == p.visibleCount(i, n));
      if (visible > 0) {
        REQUIRE(sum == Approx(1.0).margin(1e-6));
        const double expected_norm =
            visible > 1 ? r.stats[head].entropy[i] / std::log(double(visible)) : 0.0;
        REQUIRE(r.stats[head].normalized_entropy[i] ==
                Approx(std::min(1.0, expected_norm)).margin(1e-6));
      } else {
        REQUIRE(sum == 0.0);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// ALiBi.

TEST_CASE("ALiBi slopes follow the paper's rule", "[variants][alibi]") {
  // H = 8, a power of two: m_h = 2^(−8(h+1)/8) = 1/2, 1/4, …, 1/256.
  const std::vector<float> eight = alibiSlopes(8);
  REQUIRE(eight.size() == 8);
  for (int h = 0; h < 8; ++h) CHECK(eight[h] == std::ldexp(1.0f, -(h + 1)));
  // H = 6: the 4 slopes of H = 4 (2^(−8(h+1)/4) = 1/4, 1/16, 1/64, 1/256), then every other
  // slope of H = 8 (1/2, 1/8, 1/32, …), the first 6 − 4 = 2 of them: 1/2, 1/8.
  const std::vector<float> six = alibiSlopes(6);
  const std::vector<float> expected_six = {1 / 4.0f, 1 / 16.0f, 1 / 64.0f, 1 / 256.0f, 1 / 2.0f,
                                           1 / 8.0f};
  CHECK(six == expected_six);
  // H = 1: 2^−8.
  CHECK(alibiSlopes(1) == std::vector<float>{1 / 256.0f});
  REQUIRE_THROWS_MATCHES(alibiSlopes(0), Error, ErrorMatches(ErrorCode::kInvalidArgument, "head"));
}

TEST_CASE("ALiBi, two heads, by hand", "[variants][alibi][worked]") {
  // Three tokens, queries 0: every raw score is 0 and the scores are the bias alone.
  // H = 2: slopes 2^(−8·1/2) = 1/16 and 2^(−8·2/2) = 1/256.
  AttentionInputs in;
  in.q = Tensor3(2, 3, 1, 0.0f);
  in.k = Tensor3(2, 3, 1, 1.0f);
  in.v = Tensor3(2, 3, 1, 0.0f);
  AttentionSpec spec = dotSpec(2, 1);
  spec.positions = Positions::kAlibi;
  AttentionResult r = computeAttentionCpu(in, spec);
  // Head 0, not causal: S_ij = −|i − j|/16 → row 0 = [0, −0.0625, −0.125].
  CHECK(r.scores(0, 0, 0) == 0.0f);
  CHECK(r.scores(0, 0, 1) == -0.0625f);
  CHECK(r.scores(0, 0, 2) == -0.125f);
  CHECK(r.scores(1, 2, 0) == -2 / 256.0f);
  // Row 0: [1, e^−0.0625, e^−0.125] = [1, 0.939413, 0.882497], sum 2.821910
  // → [0.354370, 0.332900, 0.312730].
  requireRow(r, 0, 0, {0.354370f, 0.332900f, 0.312730f});
  // Row 1: [e^−0.0625, 1, e^−0.0625], sum 2.878826 → [0.326318, 0.347364, 0.326318].
  requireRow(r, 0, 1, {0.326318f, 0.347364f, 0.326318f});
  // Causal: −m·(i − j) on the visible keys j ≤ i; row 2 of head 0 = [−2/16, −1/16, 0], the same
  // numbers as row 0 reversed → [0.312730, 0.332900, 0.354370].
  spec.mask = Mask::kCausal;
  r = computeAttentionCpu(in, spec);
  CHECK(r.scores(0, 2, 0) == -0.125f);
  requireRow(r, 0, 2, {0.312730f, 0.332900f, 0.354370f});
  requireRow(r, 0, 0, {1, 0, 0});
}

TEST_CASE("ALiBi scores minus plain scores are −m_h·|i − j| exactly", "[variants][alibi][property]") {
  const int h = GENERATE(1, 6, 8);
  const int n = GENERATE(1, 5, 64);
  const Mask mask = GENERATE(Mask::kNone, Mask::kCausal);
  // Integer-valued queries and keys: dot-product scores are small integers and every slope of
  // H = 1, 6, 8 is a power of two, so x' + bias is exact and the difference must be too.
  AttentionInputs in = randomInputs(h, n, n, 4, 4, 300 + h + n);
  for (float& x : in.q.data) x = std::round(x * 2);
  for (float& x : in.k.data) x = std::round(x * 2);
  AttentionSpec spec = dotSpec(h, 4, mask);
  const AttentionResult plain = computeAttentionCpu(in, spec);
  spec.positions = Positions::kAlibi;
  const AttentionResult alibi = computeAttentionCpu(in, spec);
  const std::vector<float> m = alibiSlopes(h);
  for (int head = 0; head < h; ++head) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        const float d = static_cast<float>(mask == Mask::kCausal ? i - j : std::abs(i - j));
        REQUIRE(alibi.scores(head, i, j) - plain.scores(head, i, j) == -m[head] * d);
      }
    }
  }
  // Random real inputs with the 1/√d_k scale: equal up to the rounding of one addition.
  const AttentionInputs real = randomInputs(h, n, n, 4, 4, 700 + h + n);
  spec.mechanism = Mechanism::kScaled;
  spec.positions = Positions::kSinusoidal;
  const AttentionResult p2 = computeAttentionCpu(real, spec);
  spec.positions = Positions::kAlibi;
  const AttentionResult a2 = computeAttentionCpu(real, spec);
  for (int head = 0; head < h; ++head)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const float bias = alibiBias(m[head], i, j, mask == Mask::kCausal);
        const float ulp = std::nextafter(std::fabs(a2.scores(head, i, j)), INFINITY) -
                          std::fabs(a2.scores(head, i, j));
        REQUIRE(std::fabs(a2.scores(head, i, j) - p2.scores(head, i, j) - bias) <= ulp);
      }
}

TEST_CASE("ALiBi keeps the overflow contract at a temperature near 0", "[variants][alibi][extreme]") {
  const AttentionInputs in = randomInputs(4, 6, 6, 4, 4, 77, 1000.0);
  AttentionSpec spec = dotSpec(4, 4, Mask::kCausal);
  spec.mechanism = Mechanism::kScaled;
  spec.positions = Positions::kAlibi;
  spec.window = 3;
  spec.temperature = 1e-40;  // 1/T overflows float32
  const AttentionResult r = computeAttentionCpu(in, spec);
  for (int head = 0; head < 4; ++head) {
    for (int i = 0; i < 6; ++i) {
      double sum = 0;
      for (int j = 0; j < 6; ++j) {
        REQUIRE_FALSE(std::isnan(r.weights(head, i, j)));
        REQUIRE_FALSE(std::isnan(r.scores(head, i, j)));
        sum += r.weights(head, i, j);
      }
      REQUIRE(sum == Approx(1.0).margin(1e-6));
      REQUIRE(r.stats[head].max_weight[i] == Approx(1.0f).margin(1e-6));  // the one-hot limit
    }
  }
}

TEST_CASE("MaskPattern::visibleFraction counts the visible pairs, by hand and against visible()",
          "[variants][mask]") {
  MaskPattern none;
  CHECK(none.visibleFraction(4, 4) == 1.0);
  CHECK(none.visibleFraction(0, 4) == 0.0);  // no pairs at all
  CHECK(none.visibleFraction(4, 0) == 0.0);
  MaskPattern causal;
  causal.causal = true;
  CHECK(causal.visibleFraction(4, 4) == Approx(10.0 / 16));  // 1 + 2 + 3 + 4 of 16
  MaskPattern diagonal = causal;
  diagonal.window = 1;
  CHECK(diagonal.visibleFraction(4, 4) == Approx(0.25));  // a causal window of 1: 25 % of pairs
  MaskPattern padded;
  padded.valid_keys = 3;
  CHECK(padded.visibleFraction(2, 4) == Approx(0.75));  // 3 of 4 keys in both rows

  // Any pattern: the count of visible(i, j) over the matrix, gaps (global, stride) included.
  MaskPattern p;
  p.causal = GENERATE(false, true);
  p.window = GENERATE(0, 1, 3);
  p.global = GENERATE(0, 2);
  p.stride = GENERATE(0, 2);
  p.valid_keys = GENERATE(-1, 5);
  const int n_q = GENERATE(1, 7), n_k = GENERATE(1, 9);
  int count = 0;
  for (int i = 0; i < n_q; ++i)
    for (int j = 0; j < n_k; ++j) count += p.visible(i, j) ? 1 : 0;
  INFO("causal " << p.causal << " window " << p.window << " global " << p.global << " stride "
                 << p.stride << " valid_keys " << p.valid_keys << " n_q " << n_q << " n_k " << n_k);
  CHECK(p.visibleFraction(n_q, n_k) == Approx(static_cast<double>(count) / (n_q * n_k)));
}

}  // namespace attnlab_test_attention_variants
