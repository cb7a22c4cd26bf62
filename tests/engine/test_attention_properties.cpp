// Properties over generated shapes: every mechanism, mask and shape obeys the softmax's rules.

#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/attention.hpp"
#include "attnlab/backend.hpp"
#include "attnlab/synthetic.hpp"
#include "helpers.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_attention_properties {

using namespace attnlab;
using attnlab::test::randomInputs;

namespace {
AttentionSpec specOf(Mechanism m, Mask mask, int h) {
  AttentionSpec s;
  s.mechanism = m;
  s.mask = mask;
  s.heads = h;
  return s;
}
}  // namespace

TEST_CASE("rows sum to 1 and weights lie in [0, 1]", "[properties]") {
  const int h = GENERATE(1, 3);
  const int n = GENERATE(1, 2, 7, 33);
  const int d_k = GENERATE(1, 5, 64);
  const Mechanism m = GENERATE(Mechanism::kAdditive, Mechanism::kDot, Mechanism::kScaled);
  const Mask mask = GENERATE(Mask::kNone, Mask::kCausal);
  const AttentionInputs in = randomInputs(h, n, n, d_k, 4, 1000u + n * 7 + d_k);
  const AttentionResult r = computeAttentionCpu(in, specOf(m, mask, h));
  REQUIRE(r.heads() == h);
  REQUIRE(r.nQ() == n);
  REQUIRE(r.nK() == n);
  for (int k = 0; k < h; ++k) {
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int j = 0; j < n; ++j) {
        const float p = r.weights(k, i, j);
        REQUIRE(std::isfinite(p));
        REQUIRE(p >= 0.0f);
        REQUIRE(p <= 1.0f);
        sum += p;
      }
      REQUIRE(std::abs(sum - 1.0) <= 1e-6);
      REQUIRE(r.stats[k].normalized_entropy[i] >= 0.0f);
      REQUIRE(r.stats[k].normalized_entropy[i] <= 1.0f);
      REQUIRE(r.stats[k].max_weight[i] >= 1.0f / n - 1e-6f);
    }
  }
}

TEST_CASE("causal upper triangle is exactly 0 with scores in the thousands", "[properties][causal]") {
  const int n = GENERATE(2, 9, 50);
  const int d_k = GENERATE(16, 1024);
  // Unscaled dot products of components ~N(0, 30²) over d_k = 1024: |score| reaches 10⁴–10⁶.
  const AttentionInputs in = randomInputs(2, n, n, d_k, 3, 77u + n, 30.0);
  const AttentionResult r = computeAttentionCpu(in, specOf(Mechanism::kDot, Mask::kCausal, 2));
  float largest = 0;
  for (float s : r.scores.data) largest = std::max(largest, std::abs(s));
  REQUIRE(largest > 1000.0f);
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) REQUIRE(r.weights(k, i, j) == 0.0f);
      double sum = 0;
      for (int j = 0; j <= i; ++j) sum += r.weights(k, i, j);
      REQUIRE(std::abs(sum - 1.0) <= 1e-6);
    }
  }
}

TEST_CASE("no NaN for finite inputs, even when scores overflow", "[properties][numerics]") {
  // Inputs up to ~1e30 are finite, but their dot products (~1e60) overflow float32.
  const float big = GENERATE(1e4f, 1e20f, 1e30f);
  AttentionInputs in = randomInputs(1, 4, 4, 8, 2, 5, 1.0);
  for (float& x : in.q.data) x *= big;
  for (float& x : in.k.data) x *= big;
  for (Mechanism m : {Mechanism::kDot, Mechanism::kScaled, Mechanism::kAdditive}) {
    for (Mask mask : {Mask::kNone, Mask::kCausal}) {
      const AttentionResult r = computeAttentionCpu(in, specOf(m, mask, 1));
      for (float p : r.weights.data) REQUIRE(std::isfinite(p));
      for (float o : r.head_outputs.data) REQUIRE(std::isfinite(o));
      for (int i = 0; i < 4; ++i) {
        double sum = 0;
        for (int j = 0; j < 4; ++j) sum += r.weights(0, i, j);
        REQUIRE(std::abs(sum - 1.0) <= 1e-6);
      }
    }
  }
}

TEST_CASE("cross-attention has shape n_target x n_source", "[properties][cross]") {
  const int n_q = GENERATE(1, 3, 10);
  const int n_k = GENERATE(1, 4, 17);
  const AttentionInputs in = randomInputs(2, n_q, n_k, 8, 5, 9);
  const AttentionResult r = computeAttentionCpu(in, specOf(Mechanism::kScaled, Mask::kNone, 2));
  CHECK(r.weights.rows == n_q);
  CHECK(r.weights.cols == n_k);
  CHECK(r.scores.rows == n_q);
  CHECK(r.head_outputs.rows == n_q);
  CHECK(r.head_outputs.cols == 5);
  CHECK(r.stats[1].max_weight.size() == static_cast<std::size_t>(n_q));
}

TEST_CASE("each head's output is its own P_h V_h", "[properties][heads]") {
  const AttentionInputs in = randomInputs(4, 6, 6, 8, 8, 21);
  const AttentionResult r = computeAttentionCpu(in, specOf(Mechanism::kScaled, Mask::kNone, 4));
  for (int k = 0; k < 4; ++k) {
    const Matrix expected = r.weights.head(k) * in.v.head(k);
    REQUIRE((expected - Matrix(r.head_outputs.head(k))).cwiseAbs().maxCoeff() < 1e-5f);
    // Head k depends on head k's inputs only.
    AttentionInputs single;
    single.q = Tensor3(1, 6, 8);
    single.k = Tensor3(1, 6, 8);
    single.v = Tensor3(1, 6, 8);
    single.q.head(0) = in.q.head(k);
    single.k.head(0) = in.k.head(k);
    single.v.head(0) = in.v.head(k);
    const AttentionResult one =
        computeAttentionCpu(single, specOf(Mechanism::kScaled, Mask::kNone, 1));
    REQUIRE((Matrix(one.weights.head(0)) - Matrix(r.weights.head(k))).cwiseAbs().maxCoeff() ==
            0.0f);
  }
}

TEST_CASE("multi-head output concatenates heads in order, then W_O", "[properties][heads]") {
  AttentionSpec spec;
  spec.heads = 4;
  spec.d_model = 16;
  const SyntheticModel model(spec, 3);
  Tensor3 outputs(4, 2, 4);
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int c = 0; c < 4; ++c) outputs(k, i, c) = static_cast<float>(100 * k + 10 * i + c);
  const Matrix combined = model.combineHeads(outputs);
  // concat row i = [head0 row i | head1 row i | head2 | head3], widths d_v = 4.
  Matrix concat(2, 16);
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k)
      for (int c = 0; c < 4; ++c) concat(i, 4 * k + c) = outputs(k, i, c);
  const Matrix expected = concat * model.wO();
  REQUIRE(combined.rows() == 2);
  REQUIRE(combined.cols() == 16);
  REQUIRE((combined - expected).cwiseAbs().maxCoeff() < 1e-3f);
}

TEST_CASE("same seed, same result; another seed, another", "[properties][determinism]") {
  AttentionSpec spec;
  spec.heads = 2;
  spec.d_model = 32;
  auto cpu = makeCpuBackend();
  const std::string text = "The cat sat on the mat because it was tired.";
  const LabRun a = runSynthetic(SyntheticModel(spec, 42), spec, text, std::nullopt, *cpu);
  const LabRun b = runSynthetic(SyntheticModel(spec, 42), spec, text, std::nullopt, *cpu);
  const LabRun c = runSynthetic(SyntheticModel(spec, 43), spec, text, std::nullopt, *cpu);
  REQUIRE(a.attention.weights.data == b.attention.weights.data);
  REQUIRE(a.attention.scores.data == b.attention.scores.data);
  REQUIRE((a.output - b.output).cwiseAbs().maxCoeff() == 0.0f);
  REQUIRE(a.attention.weights.data != c.attention.weights.data);
}

}  // namespace attnlab_test_attention_properties
