// Issue 12's variants in the OpenCL kernels — grouped-query attention, sliding windows (causal and
// not), global tokens, strides, key padding and the ALiBi bias — against a reference in double
// (kernel_support.hpp, referenceWithMask) and against the engine's CPU reference, on both kernel
// variants (CPU-shaped and GPU-shaped, both on PoCL here), every result buffer inside guard
// bands. The tolerance table is kernel_support.hpp's; a score's magnitude includes |ALiBi bias|.

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "attnlab/attention.hpp"
#include "attnlab/positions.hpp"
#include "kernel_support.hpp"
#include "opencl/opencl_backend.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_opencl_variants {

using namespace attnlab;
using namespace attnlab::test;

namespace {

// Inputs with G K/V heads: q [h, n, d_k], k and v [g, n, d].
AttentionInputs groupedInputs(int h, int g, int n, int d_k, int d_v, std::uint64_t seed,
                              double sd = 1.0) {
  AttentionInputs in = randomInputs(h, n, n, d_k, d_v, seed, sd);
  Tensor3 k(g, n, d_k), v(g, n, d_v);
  for (int i = 0; i < g; ++i) {
    k.head(i) = in.k.head(i);
    v.head(i) = in.v.head(i);
  }
  in.k = std::move(k);
  in.v = std::move(v);
  return in;
}

// Every path of one runtime under `mask` against the reference: the tiled two-pass kernels, the
// fused kernel and the one-call path the backend uses (on CPU devices flash_probs_cpu).
void requireAllPaths(Runtime& rt, const AttentionInputs& in, double scale, const MaskParams& mask) {
  const Reference ref = referenceWithMask(in, scale, mask);
  const Tensor3 q = scaledQ(in.q, scale);
  const std::vector<double> magnitude =
      withAlibi(scoreMagnitude(q, in.k, 1.0), mask, in.q.h, in.q.rows, in.k.rows);
  const opencl::Materialized m = rt.materialize(q, in.k, mask);
  const std::vector<double> m_diff = rowScoreDiff(m.scores, ref.scores);
  requireScores(m.scores, ref.scores, magnitude);
  requireWeights(m.weights, ref.weights, m_diff);
  requireRowSums(m.weights, mask);
  requireSelfConsistent(m.scores, m.weights, mask);

  opencl::Attended a;
  rt.attendInto(q, in.k, in.v, mask, a);
  const std::vector<double> a_diff = rowScoreDiff(a.scores, ref.scores);
  requireScores(a.scores, ref.scores, magnitude);
  requireWeights(a.weights, ref.weights, a_diff);
  requireOutputs(a.output, ref.output, ref.weights, in.v, a_diff);
  requireRowSums(a.weights, mask);
  requireSelfConsistent(a.scores, a.weights, mask);

  // The fused kernel stores no scores: its rows move with the tiled path's score differences.
  const opencl::Fused f = rt.fused(q, in.k, in.v, mask);
  requireOutputs(f.output, ref.output, ref.weights, in.v, a_diff);
  for (int k = 0; k < in.q.h; ++k)
    for (int i = 0; i < in.q.rows; ++i) {
      bool any = false;
      for (int j = 0; j < in.k.rows && !any; ++j) any = opencl::keyVisible(mask, i, j);
      if (any) continue;  // a row with no visible key: (−inf, 0) and a zero output
      const std::size_t row = static_cast<std::size_t>(k) * in.q.rows + i;
      REQUIRE(f.norm[2 * row] == -std::numeric_limits<float>::infinity());
      REQUIRE(f.norm[2 * row + 1] == 0.0f);
      REQUIRE(a.norm[2 * row + 1] == 0.0f);
    }
}

}  // namespace

// The sweep through the public path (computeOnDevice against computeAttentionCpu, the
// reference every backend answers to), both kernel variants on the same CPU result, and the fused
// kernel's outputs on their own.
TEST_CASE("sliding window, GQA and ALiBi: OpenCL equals the CPU reference",
          "[opencl][variants][sweep]") {
  const int n = GENERATE(1, 7, 65, 1000);
  const int window_index = GENERATE(range(0, 4));
  const int window = std::array{1, 3, 64, 1000}[static_cast<std::size_t>(window_index)];
  const int g_index = GENERATE(range(0, 3));
  const int g = std::array{1, 2, 4}[static_cast<std::size_t>(g_index)];  // h = 4: MQA, GQA, MHA
  const bool causal = GENERATE(false, true);
  const bool alibi = GENERATE(false, true);
  // At n = 1000, 12 of the 48 cells: every window and every G meets both masks, and every G all
  // four (causal, ALiBi) pairs; the full grid runs at n <= 65.
  if (n == 1000 && (causal != ((window_index + g_index) % 2 == 1) ||
                    alibi != ((window_index / 2 + g_index) % 2 == 1)))
    return;
  if (!runtimeFor(Variant::kCpu)) return;
  const int h = 4, d_k = n == 1000 ? 64 : 24;
  AttentionSpec spec;
  spec.heads = h;
  spec.d_model = h * d_k;
  spec.kv_heads = g;
  spec.window = window;
  spec.mask = causal ? Mask::kCausal : Mask::kNone;
  spec.positions = alibi ? Positions::kAlibi : Positions::kNone;
  const AttentionInputs in = groupedInputs(h, g, n, d_k, 16, 31u * n + window + g);
  const AttentionResult cpu = computeAttentionCpu(in, spec);
  const MaskParams mask = MaskParams::fromSpec(spec);
  const std::vector<double> magnitude =
      withAlibi(scoreMagnitude(in.q, in.k, cpu.scale), mask, h, n, n);
  for (const Variant variant : {Variant::kCpu, Variant::kGpu}) {
    INFO(variantName(variant) << " n=" << n << " W=" << window << " G=" << g << " h=" << h
                              << (causal ? " causal" : "") << (alibi ? " alibi" : ""));
    Runtime& rt = *runtimeFor(variant);
    const AttentionResult gpu = opencl::computeOnDevice(rt, in, spec);
    CHECK(gpu.fallback_reason.empty());
    requireParity(gpu, cpu, in, magnitude, mask);
    const opencl::Fused f = rt.fused(scaledQ(in.q, cpu.scale), in.k, in.v, mask);
    requireOutputs(f.output, cpu.head_outputs, cpu.weights, in.v,
                   rowScoreDiff(gpu.scores, cpu.scores));
  }
}

TEST_CASE("every pattern and mechanism through the backend equals the CPU reference",
          "[opencl][variants][backend]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  const Mechanism mechanism = GENERATE(Mechanism::kScaled, Mechanism::kAdditive);
  const int n = GENERATE(7, 65);
  const bool causal = GENERATE(false, true);
  // 0: window 3 + global 2; 1: window 3 + stride 4; 2: padding (last 3 keys) + ALiBi;
  // 3: window 5 + padding + GQA 2; 4: every key padding
  const int pattern = GENERATE(0, 1, 2, 3, 4);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  AttentionSpec spec;
  spec.mechanism = mechanism;
  spec.heads = 4;
  spec.d_model = 64;
  spec.mask = causal ? Mask::kCausal : Mask::kNone;
  spec.window = pattern <= 1 ? 3 : pattern == 3 ? 5 : 0;
  spec.global_tokens = pattern == 0 ? 2 : 0;
  spec.stride = pattern == 1 ? 4 : 0;
  spec.valid_keys = pattern == 2 || pattern == 3 ? n - 3 : pattern == 4 ? 0 : -1;
  spec.positions = pattern == 2 ? Positions::kAlibi : Positions::kSinusoidal;
  spec.kv_heads = pattern == 3 ? 2 : 0;
  INFO(variantName(variant) << " " << toString(mechanism) << " n=" << n << " pattern=" << pattern
                            << (causal ? " causal" : ""));
  const AttentionInputs in = groupedInputs(4, spec.resolvedKvHeads(), n, 16, 16, 5u * n + pattern);
  const AttentionResult cpu = computeAttentionCpu(in, spec);
  const AttentionResult gpu = opencl::computeOnDevice(*rt, in, spec);
  const MaskParams mask = MaskParams::fromSpec(spec);
  const std::vector<double> magnitude = mechanism == Mechanism::kAdditive
                                            ? additiveMagnitude(in, cpu.scale)
                                            : scoreMagnitude(in.q, in.k, cpu.scale);
  requireParity(gpu, cpu, in, withAlibi(magnitude, mask, 4, n, n), mask);
  for (int k = 0; k < 4; ++k)  // the statistics count the keys the pattern leaves visible
    for (int i = 0; i < n; ++i)
      REQUIRE(gpu.stats[k].normalized_entropy[i] ==
              Approx(cpu.stats[k].normalized_entropy[i]).margin(1e-5));
}

TEST_CASE("global tokens, strides and key padding in every kernel path",
          "[opencl][variants][patterns]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  const int n = GENERATE(7, 65, 300);
  const bool causal = GENERATE(false, true);
  // 0: global 2 + window 3; 1: stride 4 + window 3; 2: global 1 + stride 5 + window 2;
  // 3: key padding (the last 5 keys); 4: padding + window 4 + ALiBi; 5: global + padding + ALiBi
  const int pattern = GENERATE(0, 1, 2, 3, 4, 5);
  const int g = GENERATE(1, 3);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  const int h = 3;
  MaskParams mask;
  mask.pattern.causal = causal;
  mask.pattern.window = pattern == 0 || pattern == 1 ? 3 : pattern == 2 ? 2 : pattern == 4 ? 4 : 0;
  mask.pattern.global = pattern == 0 ? 2 : pattern == 2 ? 1 : pattern == 5 ? 3 : 0;
  mask.pattern.stride = pattern == 1 ? 4 : pattern == 2 ? 5 : 0;
  mask.pattern.valid_keys = pattern >= 3 ? n - 5 : -1;
  if (pattern >= 4) mask.alibi_slopes = alibiSlopes(h);
  if (pattern == 5) mask.pattern.window = 3;
  INFO(variantName(variant) << " n=" << n << " pattern=" << pattern << " G=" << g
                            << (causal ? " causal" : ""));
  requireAllPaths(*rt, groupedInputs(h, g, n, 40, 24, 7u * n + pattern), 0.2, mask);
}

TEST_CASE("hand-checked 3-token cases: window, stride, global and ALiBi",
          "[opencl][variants][hand]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  INFO(variantName(variant));
  // q = k = 0: every visible score is 0 (plus the bias), so the weights are uniform over the
  // visible keys and the output averages their values v_j = (j + 1).
  AttentionInputs in = randomInputs(1, 3, 3, 4, 1, 1);
  for (float& x : in.q.data) x = 0.0f;
  for (float& x : in.k.data) x = 0.0f;
  for (int j = 0; j < 3; ++j) in.v(0, j, 0) = static_cast<float>(j + 1);

  SECTION("causal window 2: row 2 sees keys 1, 2 → (2 + 3)/2 = 2.5") {
    MaskParams mask;
    mask.pattern.causal = true;
    mask.pattern.window = 2;
    const opencl::Fused f = rt->fused(in.q, in.k, in.v, mask);
    CHECK(f.output(0, 0, 0) == 1.0f);
    CHECK(f.output(0, 1, 0) == 1.5f);
    CHECK(f.output(0, 2, 0) == 2.5f);
  }
  SECTION("window 2 without a mask: row 1 sees 0, 1, 2 → 2; row 0 sees 0, 1 → 1.5") {
    MaskParams mask;
    mask.pattern.window = 2;
    opencl::Attended a;
    rt->attendInto(in.q, in.k, in.v, mask, a);
    CHECK(a.output(0, 0, 0) == 1.5f);
    CHECK(a.output(0, 1, 0) == Approx(2.0f).epsilon(1e-6));
    CHECK(a.weights(0, 0, 2) == 0.0f);
    CHECK(a.weights(0, 2, 0) == 0.0f);
  }
  SECTION("window 1 with global token 0: row 2 sees keys 0 and 2 → (1 + 3)/2 = 2") {
    MaskParams mask;
    mask.pattern.window = 1;
    mask.pattern.global = 1;
    const opencl::Materialized m = rt->materialize(in.q, in.k, mask);
    CHECK(m.weights(0, 2, 0) == 0.5f);
    CHECK(m.weights(0, 2, 1) == 0.0f);
    CHECK(m.weights(0, 2, 2) == 0.5f);
    CHECK(m.weights(0, 0, 1) == Approx(1.0f / 3).epsilon(1e-6));  // the global row sees all
  }
  SECTION("causal ALiBi with slope ln 2: row 2 scores −2 ln 2, −ln 2, 0 → weights 1:2:4 / 7") {
    MaskParams mask;
    mask.pattern.causal = true;
    mask.alibi_slopes = {static_cast<float>(std::log(2.0))};
    opencl::Attended a;
    rt->attendInto(in.q, in.k, in.v, mask, a);
    CHECK(a.scores(0, 2, 0) == Approx(-2 * std::log(2.0)).epsilon(1e-6));
    CHECK(a.weights(0, 2, 0) == Approx(1.0 / 7).epsilon(1e-6));
    CHECK(a.weights(0, 2, 1) == Approx(2.0 / 7).epsilon(1e-6));
    CHECK(a.weights(0, 2, 2) == Approx(4.0 / 7).epsilon(1e-6));
    CHECK(a.output(0, 2, 0) == Approx((1 + 2 * 2 + 4 * 3) / 7.0).epsilon(1e-6));
  }
}

TEST_CASE("extremes with the variants: scores in the thousands, rows with no visible key",
          "[opencl][variants][extremes]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  INFO(variantName(variant));
  SECTION("scores of ±3000 with a window, GQA and ALiBi") {
    const AttentionInputs in = groupedInputs(4, 2, 90, 32, 8, 11, 10.0);
    MaskParams mask;
    mask.pattern.causal = GENERATE(false, true);
    mask.pattern.window = 17;
    mask.alibi_slopes = alibiSlopes(4);
    float largest = 0;
    const Reference ref = referenceWithMask(in, 1.0, mask);
    for (float s : ref.scores.data) largest = std::max(largest, std::abs(s));
    CHECK(largest > 1000.0f);
    requireAllPaths(*rt, in, 1.0, mask);
  }
  SECTION("every key is padding: zero weights, zero outputs, (−inf, 0)") {
    const AttentionInputs in = groupedInputs(2, 1, 20, 16, 8, 12);
    MaskParams mask;
    mask.pattern.valid_keys = 0;
    mask.pattern.window = GENERATE(0, 3);
    requireAllPaths(*rt, in, 0.25, mask);
    opencl::Attended a;
    rt->attendInto(scaledQ(in.q, 0.25), in.k, in.v, mask, a);
    for (float p : a.weights.data) REQUIRE(p == 0.0f);
    for (float o : a.output.data) REQUIRE(o == 0.0f);
  }
  SECTION("a causal offset and a window leave the first rows with no key") {
    const AttentionInputs in = groupedInputs(2, 2, 40, 16, 8, 13);
    MaskParams mask;
    mask.pattern.causal = true;
    mask.offset = -4;
    mask.pattern.window = 5;
    mask.pattern.valid_keys = 30;
    requireAllPaths(*rt, in, 0.25, mask);
  }
}

TEST_CASE("block-pooled P with the variants equals pooling the reference P",
          "[opencl][variants][pool]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  const int pattern = GENERATE(0, 1, 2);  // window + GQA, global + stride, padding + ALiBi
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  const int h = 4, n = 77, b = 8;
  MaskParams mask;
  mask.pattern.causal = pattern != 1;
  mask.pattern.window = pattern == 2 ? 0 : 6;
  mask.pattern.global = pattern == 1 ? 2 : 0;
  mask.pattern.stride = pattern == 1 ? 7 : 0;
  mask.pattern.valid_keys = pattern == 2 ? 70 : -1;
  if (pattern == 2) mask.alibi_slopes = alibiSlopes(h);
  INFO(variantName(variant) << " pattern=" << pattern);
  const AttentionInputs in = groupedInputs(h, pattern == 0 ? 2 : 4, n, 16, 16, 21);
  const Tensor3 q = scaledQ(in.q, 0.25);
  const Reference ref = referenceWithMask(in, 0.25, mask);
  const opencl::Fused f = rt->fused(q, in.k, in.v, mask);
  const opencl::Pooled pooled = rt->pool(q, in.k, f.norm, mask, b);
  const int nb = (n + b - 1) / b;
  Tensor3 mean(h, nb, nb), max(h, nb, nb);
  for (int k = 0; k < h; ++k)
    for (int bi = 0; bi < nb; ++bi)
      for (int bj = 0; bj < nb; ++bj) {
        double sum = 0;
        float largest = 0;
        int cells = 0;
        for (int i = bi * b; i < std::min(n, (bi + 1) * b); ++i)
          for (int j = bj * b; j < std::min(n, (bj + 1) * b); ++j, ++cells) {
            sum += ref.weights(k, i, j);
            largest = std::max(largest, ref.weights(k, i, j));
          }
        mean(k, bi, bj) = static_cast<float>(sum / cells);
        max(k, bi, bj) = largest;
      }
  const std::vector<double> diff = rowScoreDiff(rt->materialize(q, in.k, mask).scores, ref.scores);
  std::vector<double> row_diff(static_cast<std::size_t>(h) * nb, 0.0);
  for (int k = 0; k < h; ++k)
    for (int i = 0; i < n; ++i) {
      double& d = row_diff[static_cast<std::size_t>(k) * nb + i / b];
      d = std::max(d, diff[static_cast<std::size_t>(k) * n + i]);
    }
  requireWeights(pooled.mean, mean, row_diff, kPooled);
  requireWeights(pooled.max, max, row_diff, kPooled);
}

TEST_CASE("keys and values whose head count does not divide h are refused",
          "[opencl][variants][errors]") {
  Runtime* rt = runtimeFor(Variant::kCpu);
  if (!rt) return;
  const AttentionInputs in = groupedInputs(4, 3, 5, 8, 8, 1);
  REQUIRE_THROWS_MATCHES(rt->fused(in.q, in.k, in.v, MaskParams{}), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "dividing the h = 4"));
  REQUIRE_THROWS_MATCHES(rt->materialize(in.q, in.k, MaskParams{}), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "dividing the h = 4"));
}

}  // namespace attnlab_test_opencl_variants
