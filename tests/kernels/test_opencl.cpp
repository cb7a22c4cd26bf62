// The OpenCL kernels against the CPU reference, on every device variant (CPU-shaped and
// GPU-shaped kernels both run on PoCL here), with guard bands around every result buffer. The
// tolerance table and what it allows are in kernel_support.hpp.

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "attnlab/attention.hpp"
#include "attnlab/synthetic.hpp"
#include "kernel_support.hpp"
#include "opencl/opencl_backend.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_opencl {

using namespace attnlab;
using namespace attnlab::test;

TEST_CASE("OpenCL parity with the CPU reference (dot and scaled)", "[opencl][parity]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  const int dk_index = GENERATE(range(0, 5));
  const int d_k = std::array{8, 63, 80, 96, 256}[static_cast<std::size_t>(dk_index)];
  const int n = GENERATE(1, 7, 63, 65, 1000);
  const int h = GENERATE(1, 8);
  const Mechanism mechanism = GENERATE(Mechanism::kDot, Mechanism::kScaled);
  const int layout = GENERATE(0, 1, 2);  // 0 self, 1 self + causal, 2 cross
  // At n = 1000 every d_k meets every layout on both variants, with one head (eight only at
  // d_k = 8: heads are independent, so more of them add no tiles) and the mechanism taking turns
  // (30 of the 120 cells); each pair of settings still meets at n <= 65.
  if (n == 1000 && ((h == 8) != (d_k == 8) ||
                    (mechanism == Mechanism::kScaled) != ((dk_index + layout + int(variant == Variant::kGpu)) % 2 == 0)))
    return;
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  const int n_k = layout == 2 ? n / 2 + 3 : n;
  AttentionSpec spec;
  spec.mechanism = mechanism;
  spec.heads = h;
  spec.mask = layout == 1 ? Mask::kCausal : Mask::kNone;
  const AttentionInputs in = randomInputs(h, n, n_k, d_k, d_k, 1000u * n + d_k + h);
  INFO(variantName(variant) << " d_k=" << d_k << " n=" << n << " n_k=" << n_k << " h=" << h
                            << " " << toString(mechanism) << " layout=" << layout);
  const AttentionResult cpu = computeAttentionCpu(in, spec);
  const AttentionResult gpu = opencl::computeOnDevice(*rt, in, spec);
  CHECK(gpu.backend == "opencl");
  requireParity(gpu, cpu, in, scoreMagnitude(in.q, in.k, cpu.scale));
}

TEST_CASE("OpenCL parity with the CPU reference (additive)", "[opencl][parity][additive]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  const int d_k = GENERATE(8, 63, 80, 96, 256);
  const int n = GENERATE(1, 7, 63, 65);
  const int h = GENERATE(1, 8);
  const int layout = GENERATE(0, 1, 2);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  const int n_k = layout == 2 ? n / 2 + 3 : n;
  AttentionSpec spec;
  spec.mechanism = Mechanism::kAdditive;
  spec.heads = h;
  spec.mask = layout == 1 ? Mask::kCausal : Mask::kNone;
  const AttentionInputs in = randomInputs(h, n, n_k, d_k, d_k, 7u * n + d_k);
  INFO(variantName(variant) << " additive d_k=" << d_k << " n=" << n << " h=" << h
                            << " layout=" << layout);
  const AttentionResult cpu = computeAttentionCpu(in, spec);
  const AttentionResult gpu = opencl::computeOnDevice(*rt, in, spec);
  requireParity(gpu, cpu, in, additiveMagnitude(in, cpu.scale));
}

TEST_CASE("additive at n = 1000 matches the CPU", "[opencl][parity][additive]") {
  // Every d_k meets every layout with one head (eight at d_k = 8), 15 of 30 cells; the CPU
  // reference is formed once for both variants.
  const int dk_index = GENERATE(range(0, 5));
  const int d_k = std::array{8, 63, 80, 96, 256}[static_cast<std::size_t>(dk_index)];
  const int layout = GENERATE(0, 1, 2);
  const int h = d_k == 8 ? 8 : 1;
  if (!runtimeFor(Variant::kCpu)) return;
  const int n = 1000, n_k = layout == 2 ? 503 : n;
  AttentionSpec spec;
  spec.mechanism = Mechanism::kAdditive;
  spec.heads = h;
  spec.mask = layout == 1 ? Mask::kCausal : Mask::kNone;
  const AttentionInputs in = randomInputs(h, n, n_k, d_k, d_k, 99u + d_k + h);
  const AttentionResult cpu = computeAttentionCpu(in, spec);
  for (const Variant variant : {Variant::kCpu, Variant::kGpu}) {
    INFO(variantName(variant) << " additive n=1000 d_k=" << d_k << " h=" << h
                              << " layout=" << layout);
    requireParity(opencl::computeOnDevice(*runtimeFor(variant), in, spec), cpu, in,
                  additiveMagnitude(in, cpu.scale));
  }
}

TEST_CASE("the fused output equals P V from the materialised path", "[opencl][fused]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  const bool causal = GENERATE(false, true);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  const AttentionInputs in = randomInputs(2, 300, 300, 64, 40, 5);
  const Tensor3 q = scaledQ(in.q, 0.125);
  const MaskParams mask{causal, 0, 0};
  const opencl::Materialized m = rt->materialize(q, in.k, mask);
  const opencl::Fused f = rt->fused(q, in.k, in.v, mask);
  Tensor3 pv(2, 300, 40);
  for (int k = 0; k < 2; ++k) pv.head(k) = m.weights.head(k) * in.v.head(k);
  const std::vector<double> same(600, 0.0);  // one device, the same score bits in both passes
  requireOutputs(f.output, pv, m.weights, in.v, same);
  requireRowSums(m.weights, mask);
  // Both passes agree on each row's (m, l): the same maximum up to the CPU variant's lazy
  // reference (within RESCALE_AT), and then on e^{m}·l, the row's total.
  REQUIRE(f.norm.size() == m.norm.size());
  for (std::size_t row = 0; row < f.norm.size() / 2; ++row) {
    const double total_f = std::exp(double(f.norm[2 * row])) * f.norm[2 * row + 1];
    const double total_m = std::exp(double(m.norm[2 * row])) * m.norm[2 * row + 1];
    REQUIRE(total_f == Approx(total_m).epsilon(1e-5));
  }
  // The one-call path (on CPU devices one kernel writing S and P from its own fused pass).
  opencl::Attended a;
  rt->attendInto(q, in.k, in.v, mask, a);
  requireScores(a.scores, m.scores, scoreMagnitude(q, in.k, 1.0));
  requireWeights(a.weights, m.weights, rowScoreDiff(a.scores, m.scores));
  requireOutputs(a.output, f.output, m.weights, in.v, same);
  requireRowSums(a.weights, mask);
  requireSelfConsistent(a.scores, a.weights, mask);
  // Kept tensors are reused: a second call with other shapes resizes them.
  const AttentionInputs small = randomInputs(1, 17, 9, 64, 40, 6);
  rt->attendInto(scaledQ(small.q, 0.125), small.k, small.v, MaskParams{false, 0, 0}, a);
  CHECK(a.weights.h == 1);
  CHECK(a.weights.rows == 17);
  CHECK(a.weights.cols == 9);
  CHECK(a.output.cols == 40);
  CHECK(a.norm.size() == 2 * 17);
}

TEST_CASE("block-pooled P equals pooling the CPU P", "[opencl][pool]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  const int b = GENERATE(1, 4, 7, 32);
  // 0 self, 1 causal, 2 causal with a window of 5, 3 causal with offset −3 (rows 0–2 see no
  // key), 4 cross (37 keys).
  const int layout = GENERATE(0, 1, 2, 3, 4);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  const int n_q = 100, n_k = layout == 4 ? 37 : n_q;
  const MaskParams mask{layout >= 1 && layout <= 3, layout == 3 ? -3 : 0, layout == 2 ? 5 : 0};
  INFO(variantName(variant) << " b=" << b << " layout=" << layout);
  const AttentionInputs in = randomInputs(3, n_q, n_k, 16, 16, 17);
  const Tensor3 q = scaledQ(in.q, 0.25);
  const Reference ref = referenceWithMask(in, 0.25, mask);
  const opencl::Fused f = rt->fused(q, in.k, in.v, mask);
  const opencl::Pooled pooled = rt->pool(q, in.k, f.norm, mask, b);
  const int nb_q = (n_q + b - 1) / b, nb_k = (n_k + b - 1) / b;
  REQUIRE(pooled.mean.rows == nb_q);
  REQUIRE(pooled.mean.cols == nb_k);
  Tensor3 mean(3, nb_q, nb_k), max(3, nb_q, nb_k);
  for (int k = 0; k < 3; ++k) {
    for (int bi = 0; bi < nb_q; ++bi) {
      for (int bj = 0; bj < nb_k; ++bj) {
        double sum = 0;
        float largest = 0;
        int cells = 0;
        for (int i = bi * b; i < std::min(n_q, (bi + 1) * b); ++i)
          for (int j = bj * b; j < std::min(n_k, (bj + 1) * b); ++j, ++cells) {
            sum += ref.weights(k, i, j);
            largest = std::max(largest, ref.weights(k, i, j));
          }
        mean(k, bi, bj) = static_cast<float>(sum / cells);
        max(k, bi, bj) = largest;
      }
    }
  }
  // The pool kernels recompute the scores as the materialised ones do (the same FMA order), so
  // a block inherits the largest score difference of its query rows.
  const std::vector<double> diff = rowScoreDiff(rt->materialize(q, in.k, mask).scores, ref.scores);
  std::vector<double> row_diff(static_cast<std::size_t>(3) * nb_q, 0.0);
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < n_q; ++i) {
      double& d = row_diff[static_cast<std::size_t>(k) * nb_q + i / b];
      d = std::max(d, diff[static_cast<std::size_t>(k) * n_q + i]);
    }
  requireWeights(pooled.mean, mean, row_diff, kPooled);
  requireWeights(pooled.max, max, row_diff, kPooled);
}

TEST_CASE("numerics: masks, tiles, widths and large scores", "[opencl][numerics]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  INFO(variantName(variant));

  SECTION("a first key tile that is fully masked does not poison the row") {
    // A sliding window of 5 keys: for late queries the first several key tiles are all masked.
    const AttentionInputs in = randomInputs(2, 70, 70, 24, 24, 3);
    const MaskParams mask{true, 0, 5};
    const Reference ref = referenceWithMask(in, 0.2, mask);
    const Tensor3 q = scaledQ(in.q, 0.2);
    const opencl::Materialized m = rt->materialize(q, in.k, mask);
    const opencl::Fused f = rt->fused(q, in.k, in.v, mask);
    opencl::Attended a;
    rt->attendInto(q, in.k, in.v, mask, a);
    const std::vector<double> magnitude = scoreMagnitude(q, in.k, 1.0);
    requireRowSums(m.weights, mask);
    requireRowSums(a.weights, mask);
    requireWeights(m.weights, ref.weights, rowScoreDiff(m.scores, ref.scores));
    requireOutputs(f.output, ref.output, ref.weights, in.v, rowScoreDiff(a.scores, ref.scores));
    requireScores(a.scores, ref.scores, magnitude);  // S before the mask, every key
    requireWeights(a.weights, ref.weights, rowScoreDiff(a.scores, ref.scores));
    requireOutputs(a.output, ref.output, ref.weights, in.v, rowScoreDiff(a.scores, ref.scores));
    CHECK(m.weights(1, 69, 10) == 0.0f);  // outside the window: exactly 0
    CHECK(a.weights(1, 69, 10) == 0.0f);
  }
  SECTION("a fully masked row gives zero weights and zero output") {
    // Causal with offset −3: queries 0, 1, 2 see no key at all.
    const AttentionInputs in = randomInputs(1, 20, 20, 16, 8, 4);
    const MaskParams mask{true, -3, 0};
    const Tensor3 q = scaledQ(in.q, 0.25);
    const opencl::Materialized m = rt->materialize(q, in.k, mask);
    const opencl::Fused f = rt->fused(q, in.k, in.v, mask);
    opencl::Attended a;
    rt->attendInto(q, in.k, in.v, mask, a);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 20; ++j) REQUIRE(m.weights(0, i, j) == 0.0f);
      for (int j = 0; j < 20; ++j) REQUIRE(a.weights(0, i, j) == 0.0f);
      for (int c = 0; c < 8; ++c) REQUIRE(f.output(0, i, c) == 0.0f);
      for (int c = 0; c < 8; ++c) REQUIRE(a.output(0, i, c) == 0.0f);
      for (const opencl::RowNorm* norm :
           {&f.norm, static_cast<const opencl::RowNorm*>(&a.norm), &m.norm}) {
        REQUIRE((*norm)[2 * i] == -std::numeric_limits<float>::infinity());
        REQUIRE((*norm)[2 * i + 1] == 0.0f);
      }
    }
    const Reference ref = referenceWithMask(in, 0.25, mask);
    const std::vector<double> diff = rowScoreDiff(a.scores, ref.scores);
    requireRowSums(m.weights, mask);
    requireRowSums(a.weights, mask);
    requireWeights(m.weights, ref.weights, rowScoreDiff(m.scores, ref.scores));
    requireOutputs(f.output, ref.output, ref.weights, in.v, diff);
    requireScores(a.scores, ref.scores, scoreMagnitude(q, in.k, 1.0));
    requireWeights(a.weights, ref.weights, diff);
    requireOutputs(a.output, ref.output, ref.weights, in.v, diff);
  }
  SECTION("masked weights are exactly 0 with scores of ±1e4, scaling off") {
    AttentionInputs in = randomInputs(1, 33, 33, 100, 16, 8);
    for (float& x : in.q.data) x *= 10.0f;  // |q·k| ≈ 10·√100·… reaches ~1e4
    AttentionSpec spec;
    spec.mechanism = Mechanism::kDot;
    spec.heads = 1;
    spec.mask = Mask::kCausal;
    const AttentionResult cpu = computeAttentionCpu(in, spec);
    const AttentionResult gpu = opencl::computeOnDevice(*rt, in, spec);
    float largest = 0;
    for (float s : cpu.scores.data) largest = std::max(largest, std::abs(s));
    CHECK(largest > 300.0f);
    for (int i = 0; i < 33; ++i)
      for (int j = i + 1; j < 33; ++j) REQUIRE(gpu.weights(0, i, j) == 0.0f);
    requireParity(gpu, cpu, in, scoreMagnitude(in.q, in.k, 1.0));
  }
  SECTION("scores of ±1e4 without a mask") {
    AttentionInputs in = randomInputs(1, 17, 17, 8, 8, 9);
    for (int c = 0; c < 8; ++c) {
      in.q(0, 0, c) = 100.0f;
      in.k(0, 3, c) = 12.5f;   // q0·k3 = 1e4
      in.k(0, 5, c) = -12.5f;  // q0·k5 = −1e4
    }
    AttentionSpec spec;
    spec.mechanism = Mechanism::kDot;
    spec.heads = 1;
    const AttentionResult cpu = computeAttentionCpu(in, spec);
    const AttentionResult gpu = opencl::computeOnDevice(*rt, in, spec);
    CHECK(gpu.scores(0, 0, 3) == 1e4f);
    CHECK(gpu.weights(0, 0, 3) == 1.0f);
    CHECK(gpu.weights(0, 0, 5) == 0.0f);
    requireParity(gpu, cpu, in, scoreMagnitude(in.q, in.k, 1.0));
  }
}

}  // namespace attnlab_test_opencl
