// Gemma 2's attention-logit soft-capping (AttentionSpec::score_cap) and its scale width
// (AttentionSpec::scale_width, query_pre_attn_scalar) in the CPU reference and the KV-cache
// decode: by hand first, then properties against the uncapped scores.

#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/attention.hpp"
#include "attnlab/decode.hpp"
#include "attnlab/error.hpp"
#include "helpers.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_softcap {

using namespace attnlab;
using attnlab::test::ErrorMatches;
using attnlab::test::oneHead;
using attnlab::test::randomInputs;
using Catch::Detail::Approx;

namespace {

AttentionSpec spec(Mechanism mechanism, int heads, int d, Mask mask = Mask::kNone) {
  AttentionSpec s;
  s.mechanism = mechanism;
  s.mask = mask;
  s.heads = heads;
  s.d_model = heads * d;
  return s;
}

}  // namespace

TEST_CASE("soft-capping, by hand", "[softcap][worked]") {
  // One head of width 1: raw scores q·k = [[1, 3], [2, 6]]. c = 2: S = 2·tanh(x/2).
  AttentionInputs in;
  in.q = oneHead({{1}, {2}});
  in.k = oneHead({{1}, {3}});
  in.v = oneHead({{0}, {1}});
  AttentionSpec s = spec(Mechanism::kDot, 1, 1);
  s.score_cap = 2;
  const AttentionResult r = computeAttentionCpu(in, s);
  // 2·tanh(0.5) = 0.924234, 2·tanh(1.5) = 1.810297, 2·tanh(1) = 1.523188, 2·tanh(3) = 1.990110.
  CHECK(r.scores(0, 0, 0) == Approx(0.924234f).margin(1e-6));
  CHECK(r.scores(0, 0, 1) == Approx(1.810297f).margin(1e-6));
  CHECK(r.scores(0, 1, 0) == Approx(1.523188f).margin(1e-6));
  CHECK(r.scores(0, 1, 1) == Approx(1.990110f).margin(1e-6));
  // Softmax of the capped scores: row 0 [0.291923, 0.708077], row 1 [0.385345, 0.614655]
  // (uncapped row 1 would be [0.017986, 0.982014]).
  CHECK(r.weights(0, 0, 0) == Approx(0.291923f).margin(1e-6));
  CHECK(r.weights(0, 0, 1) == Approx(0.708077f).margin(1e-6));
  CHECK(r.weights(0, 1, 0) == Approx(0.385345f).margin(1e-6));
  CHECK(r.weights(0, 1, 1) == Approx(0.614655f).margin(1e-6));
  CHECK(r.head_outputs(0, 1, 0) == Approx(0.614655f).margin(1e-6));
}

TEST_CASE("capped scores are c·tanh(S/c) of the uncapped ones, every mechanism and mask",
          "[softcap][property]") {
  const Mechanism mechanism = GENERATE(Mechanism::kDot, Mechanism::kScaled, Mechanism::kAdditive);
  const Mask mask = GENERATE(Mask::kNone, Mask::kCausal);
  const double cap = GENERATE(0.5, 5.0, 50.0);
  const int h = 3, n = 9, d = 8;
  const AttentionInputs in = randomInputs(h, n, n, d, d, 41, 2.0);
  AttentionSpec s = spec(mechanism, h, d, mask);
  s.window = 4;
  s.positions = Positions::kAlibi;
  const AttentionResult plain = computeAttentionCpu(in, s);
  s.score_cap = cap;
  const AttentionResult capped = computeAttentionCpu(in, s);
  CHECK(capped.scale == plain.scale);
  for (int head = 0; head < h; ++head) {
    for (int i = 0; i < n; ++i) {
      std::vector<float> expected(n);
      for (int j = 0; j < n; ++j) {
        expected[j] = static_cast<float>(cap * std::tanh(plain.scores(head, i, j) / cap));
        REQUIRE(capped.scores(head, i, j) == Approx(expected[j]).margin(1e-6));
        REQUIRE(std::fabs(capped.scores(head, i, j)) <= cap);
      }
      std::vector<float> p(n);
      softmaxRowMasked(expected.data(), p.data(), n, capped.pattern(), i);
      for (int j = 0; j < n; ++j) REQUIRE(capped.weights(head, i, j) == Approx(p[j]).margin(1e-6));
    }
  }
}

TEST_CASE("a huge cap changes nothing; a temperature near 0 stays finite under a cap",
          "[softcap][extreme]") {
  const AttentionInputs in = randomInputs(2, 7, 7, 4, 4, 5);
  AttentionSpec s = spec(Mechanism::kScaled, 2, 4, Mask::kCausal);
  const AttentionResult plain = computeAttentionCpu(in, s);
  s.score_cap = 1e12;
  const AttentionResult wide = computeAttentionCpu(in, s);
  for (std::size_t t = 0; t < plain.weights.data.size(); ++t)
    REQUIRE(wide.weights.data[t] == Approx(plain.weights.data[t]).margin(1e-7));
  // 1/T overflows float32 (the overflow contract splits it); capped, every score is within ±c.
  s.score_cap = 3;
  s.temperature = 1e-40;
  const AttentionResult hot = computeAttentionCpu(in, s);
  for (int head = 0; head < 2; ++head) {
    for (int i = 0; i < 7; ++i) {
      double sum = 0;
      for (int j = 0; j <= i; ++j) {
        REQUIRE(std::isfinite(hot.scores(head, i, j)));
        REQUIRE(std::fabs(hot.scores(head, i, j)) <= 3.0f);
        sum += hot.weights(head, i, j);
      }
      REQUIRE(sum == Approx(1.0).margin(1e-6));
    }
  }
}

TEST_CASE("the KV-cache decode caps as the full pass does", "[softcap][decode]") {
  const AttentionInputs in = randomInputs(4, 10, 10, 8, 8, 17, 2.0);
  AttentionSpec s = spec(Mechanism::kScaled, 4, 8, Mask::kCausal);
  s.window = 3;
  s.score_cap = 1.5;
  const DecodeResult d = decodeWithCache(in, s, CacheBug::kNone, 0);
  CHECK(d.max_abs_diff < 1e-6);
  const AttentionResult full = computeAttentionCpu(in, s);
  for (std::size_t t = 0; t < full.scores.data.size(); ++t) {
    if (full.weights.data[t] == 0.0f) continue;  // hidden: the cache has no score there
    REQUIRE(d.attention.scores.data[t] == Approx(full.scores.data[t]).margin(1e-6));
  }
}

TEST_CASE("scale_width replaces d_k in 1/sqrt(d_k); dot and temperature replace it",
          "[softcap][scale]") {
  AttentionSpec s = spec(Mechanism::kScaled, 1, 16);
  CHECK(s.scoreScale(16) == Approx(0.25));
  s.scale_width = 144;  // Gemma 2 27B: query_pre_attn_scalar = d_model / h = 144, d_k = 128
  CHECK(s.scoreScale(128) == Approx(1.0 / 12));
  s.temperature = 2;
  CHECK(s.scoreScale(128) == 0.5);
  s.temperature.reset();
  s.mechanism = Mechanism::kDot;
  CHECK(s.scoreScale(128) == 1.0);
}

TEST_CASE("invalid caps and widths, linear attention and the OpenCL note", "[softcap][errors]") {
  const AttentionInputs in = randomInputs(1, 3, 3, 2, 2, 9);
  AttentionSpec s = spec(Mechanism::kScaled, 1, 2);
  s.score_cap = -1;
  REQUIRE_THROWS_MATCHES(s.validate(), Error, ErrorMatches(ErrorCode::kInvalidArgument, "score cap"));
  s.score_cap = NAN;
  REQUIRE_THROWS_MATCHES(s.validate(), Error, ErrorMatches(ErrorCode::kInvalidArgument, "score cap"));
  s.score_cap = 0;
  s.scale_width = -4;
  REQUIRE_THROWS_MATCHES(s.validate(), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "scale width"));
  s.scale_width = 0;
  s.score_cap = 5;
  CHECK(s.cpuOnlyNumerics());
  CHECK(cpuOnlyNumericsNames(s) == "soft-capping c·tanh(S/c), c = 5");
  s.mechanism = Mechanism::kLinear;
  REQUIRE_THROWS_MATCHES(computeAttentionCpu(in, s), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "soft-capping"));
}

}  // namespace attnlab_test_softcap
