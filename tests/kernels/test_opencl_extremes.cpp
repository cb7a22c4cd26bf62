// Extreme scores on every kernel variant against the CPU reference: magnitudes up to ±1e6 (rows
// sum to 1 within 1e-6), temperatures whose 1/T overflows float32 (the one-hot limit), products of
// huge inputs (the overflow contract of ScoreScale in attention.hpp).

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

#include "attnlab/attention.hpp"
#include "attnlab/synthetic.hpp"
#include "cpu/attention_cpu.hpp"
#include "kernel_support.hpp"
#include "opencl/opencl_backend.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_opencl_extremes {

using namespace attnlab;
using namespace attnlab::test;

namespace {

// The synthetic lab's inputs for a sentence, as the CLI builds them.
AttentionInputs labInputs(const AttentionSpec& spec, const std::string& text) {
  const SyntheticModel model(spec, 0);
  const Matrix x = model.embed(tokenize(text));
  return model.project(x, x, spec.mechanism);
}

// The largest |score| of a result.
float largestScore(const AttentionResult& r) {
  float largest = 0;
  for (float s : r.scores.data) largest = std::max(largest, std::abs(s));
  return largest;
}

}  // namespace

TEST_CASE("temperature 5e-3 on the fox sentence: rows sum to 1 on every backend",
          "[opencl][numerics][extreme]") {
  // attention-lab-cli compute --text "the quick brown fox jumps over the lazy dog"
  // --temperature 5e-3: |scores| up to ~2260; OpenCL rows summed to 1 − 2.0e-5 when the kernels
  // kept L = m + log l as one float.
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  const bool causal = GENERATE(false, true);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  AttentionSpec spec;  // the CLI's defaults: scaled, 8 heads, d_model 64
  spec.temperature = 5e-3;
  spec.mask = causal ? Mask::kCausal : Mask::kNone;
  const AttentionInputs in = labInputs(spec, "the quick brown fox jumps over the lazy dog");
  const AttentionResult cpu = computeAttentionCpu(in, spec);
  const AttentionResult gpu = opencl::computeOnDevice(*rt, in, spec);
  INFO(variantName(variant) << " largest |score| " << largestScore(cpu));
  CHECK(largestScore(cpu) > 1000.0f);
  requireParity(gpu, cpu, in, scoreMagnitude(in.q, in.k, cpu.scale));
}

TEST_CASE("scores up to ±1e6: every kernel variant sums rows to 1 and equals the CPU",
          "[opencl][numerics][extreme]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  // 0–2: temperatures 1e-2, 1e-4, 1e-6 at d_k = 64; 3: dot product at d_k = 1024 with
  // components of standard deviation 30 (|q·k| to ~1e5–1e6); 4: additive at T = 1e-6.
  const int kind = GENERATE(0, 1, 2, 3, 4);
  const bool causal = GENERATE(false, true);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  AttentionSpec spec;
  spec.heads = 2;
  spec.mask = causal ? Mask::kCausal : Mask::kNone;
  int d_k = 64, n = 150;
  double sd = 1.0;
  if (kind <= 2) spec.temperature = kind == 0 ? 1e-2 : kind == 1 ? 1e-4 : 1e-6;
  if (kind == 3) spec.mechanism = Mechanism::kDot, d_k = 1024, n = 70, sd = 30.0;
  if (kind == 4) spec.mechanism = Mechanism::kAdditive, spec.temperature = 1e-6;
  const AttentionInputs in = randomInputs(2, n, n, d_k, 16, 31u + kind, sd);
  const AttentionResult cpu = computeAttentionCpu(in, spec);
  const AttentionResult gpu = opencl::computeOnDevice(*rt, in, spec);
  INFO(variantName(variant) << " kind " << kind << " causal " << causal << ", largest |score| "
                            << largestScore(cpu));
  CHECK(largestScore(cpu) >= (kind == 0 ? 1e2f : 1e4f));
  requireParity(gpu, cpu, in,
                kind == 4 ? additiveMagnitude(in, cpu.scale)
                          : scoreMagnitude(in.q, in.k, cpu.scale));

  if (kind == 4) return;
  // The kernels one by one: the two-pass tiled path, the fused output and the pooled weights
  // with scores this large, each against the same reference.
  const MaskParams mask{causal, 0, 0};
  const Tensor3 q = scaledQ(in.q, cpu.scale);
  const opencl::Materialized m = rt->materialize(q, in.k, mask);
  const std::vector<double> diff = rowScoreDiff(m.scores, cpu.scores);
  requireRowSums(m.weights, mask);
  requireSelfConsistent(m.scores, m.weights, mask);
  requireWeights(m.weights, cpu.weights, diff);
  const opencl::Fused f = rt->fused(q, in.k, in.v, mask);
  requireOutputs(f.output, cpu.head_outputs, cpu.weights, in.v, diff);
  const opencl::Pooled pooled = rt->pool(q, in.k, f.norm, mask, 1);  // b = 1: P itself
  requireWeights(pooled.mean, cpu.weights, diff, kPooled);
}

TEST_CASE("a temperature whose 1/T overflows float32 gives the one-hot limit on both backends",
          "[opencl][numerics][extreme]") {
  // compute --text "a b c" --heads 1 --d-model 8 --temperature 1e-39: OpenCL returned every
  // weight 0 and every score NaN; the CPU clamped scores to ±3.4e38, so the two largest tied.
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  const double temperature = GENERATE(1e-39, 1e-300);
  const Mechanism mechanism = GENERATE(Mechanism::kScaled, Mechanism::kAdditive);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  AttentionSpec spec;
  spec.heads = 1;
  spec.d_model = 8;
  spec.temperature = temperature;
  spec.mechanism = mechanism;
  const AttentionInputs in = labInputs(spec, "a b c");
  const AttentionResult cpu = computeAttentionCpu(in, spec);
  const AttentionResult gpu = opencl::computeOnDevice(*rt, in, spec);
  INFO(variantName(variant) << " T = " << temperature << " " << toString(mechanism));
  for (const AttentionResult* r : {&cpu, &gpu}) {
    for (int i = 0; i < 3; ++i) {
      // The arg-max of the exact scores (q·k or the additive energy, in double).
      int best = 0;
      double best_value = -std::numeric_limits<double>::infinity();
      for (int j = 0; j < 3; ++j) {
        double e = 0;
        if (mechanism == Mechanism::kScaled) {
          for (int c = 0; c < 8; ++c) e += double(in.q(0, i, c)) * in.k(0, j, c);
        } else {
          for (int a = 0; a < in.v_a.cols; ++a) {
            double x = 0;
            for (int c = 0; c < 8; ++c)
              x +=
                  double(in.q(0, i, c)) * in.w_a(0, c, a) + double(in.k(0, j, c)) * in.u_a(0, c, a);
            e += double(in.v_a(0, 0, a)) * std::tanh(x);
          }
        }
        if (e > best_value) best_value = e, best = j;
        // Scores reported honestly: ±inf exactly where e/T leaves float32's range.
        const double exact = e / temperature;
        const float s = r->scores(0, i, j);
        if (std::abs(exact) > std::numeric_limits<float>::max()) {
          CHECK(std::isinf(s));
          CHECK((s > 0) == (exact > 0));
        } else {
          CHECK(s == Approx(exact).epsilon(1e-4));
        }
      }
      for (int j = 0; j < 3; ++j) CHECK(r->weights(0, i, j) == (j == best ? 1.0f : 0.0f));
    }
  }
}

TEST_CASE("keys that truly tie share the weight in the T → 0 limit; near ties do not",
          "[opencl][numerics][extreme]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  // q = (1, 0); keys 0 and 2 are equal, key 1 is 2^-20 below them, key 3 far below.
  AttentionInputs in = randomInputs(1, 1, 4, 2, 2, 1);
  in.q(0, 0, 0) = 1.0f, in.q(0, 0, 1) = 0.0f;
  const float near = 1.0f - std::ldexp(1.0f, -20);
  const float key[4] = {1.0f, near, 1.0f, -3.0f};
  for (int j = 0; j < 4; ++j) in.k(0, j, 0) = key[j], in.k(0, j, 1) = 0.5f;
  AttentionSpec spec;
  spec.heads = 1;
  spec.mechanism = Mechanism::kDot;
  spec.temperature = 1e-39;
  for (const AttentionResult& r :
       {computeAttentionCpu(in, spec), opencl::computeOnDevice(*rt, in, spec)}) {
    INFO(r.backend << " " << variantName(variant));
    CHECK(r.weights(0, 0, 0) == 0.5f);
    CHECK(r.weights(0, 0, 1) == 0.0f);
    CHECK(r.weights(0, 0, 2) == 0.5f);
    CHECK(r.weights(0, 0, 3) == 0.0f);
    CHECK(std::isinf(r.scores(0, 0, 0)));     // 1e39 leaves float32
    CHECK(r.scores(0, 0, 3) < -1e38f);        // −3e39 too: −inf
  }
}

TEST_CASE("products of huge finite inputs: finite weights, honest scores, equal backends",
          "[opencl][numerics][extreme]") {
  // Inputs up to ~1e30 are finite but their dot products (~1e60) overflow float32.
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  const float big = GENERATE(1e4f, 1e20f, 1e30f);
  const Mechanism mechanism = GENERATE(Mechanism::kDot, Mechanism::kScaled, Mechanism::kAdditive);
  Runtime* rt = runtimeFor(variant);
  if (!rt) return;
  AttentionInputs in = randomInputs(1, 9, 9, 8, 3, 5);
  for (float& x : in.q.data) x *= big;
  for (float& x : in.k.data) x *= big;
  AttentionSpec spec;
  spec.heads = 1;
  spec.mechanism = mechanism;
  const AttentionResult cpu = computeAttentionCpu(in, spec);
  const AttentionResult gpu = opencl::computeOnDevice(*rt, in, spec);
  INFO(variantName(variant) << " inputs ×" << big << " " << toString(mechanism));
  const MaskParams none{false, 0, 0};
  requireRowSums(cpu.weights, none);
  requireRowSums(gpu.weights, none);
  for (const float o : gpu.head_outputs.data) REQUIRE(std::isfinite(o));
  // Scores beyond float32 are ±inf on both, the same ones; the weights then are the limit.
  for (std::size_t i = 0; i < cpu.scores.data.size(); ++i) {
    const float a = cpu.scores.data[i], b = gpu.scores.data[i];
    REQUIRE(std::isinf(a) == std::isinf(b));
    if (std::isinf(a)) REQUIRE(a == b);
  }
  if (big < 1e20f) {
    requireParity(gpu, cpu, in,
                  mechanism == Mechanism::kAdditive ? additiveMagnitude(in, cpu.scale)
                                                    : scoreMagnitude(in.q, in.k, cpu.scale));
  } else if (mechanism != Mechanism::kAdditive) {
    // Scores ≥ 1e38 apart: each row is one-hot at the same key on both, its weight 1 (the other
    // terms of the sum are below 2⁻²⁴, so 1/sum rounds to 1 exactly: equality is guaranteed).
    // The other weights are e^((s_j − m)·b), far below float32's normal range: a device may give
    // them as subnormals or flush them to 0 (OpenCL 1.2 §7.5.3 lets single precision flush
    // denormals), and its exp may differ by a few ulp (OpenCL 1.2 §7.4: ≤ 3 ulp) — on AMD Zen's
    // PoCL (pthread-haswell) they came out as tiny subnormals where the CPU gave 0. So those
    // compare within 4 ulp of the larger plus FLT_MIN, the smallest normal float.
    const int n_k = cpu.weights.cols;
    for (int i = 0; i < cpu.weights.rows; ++i) {
      const float* a = cpu.weights.row(0, i);
      const float* b = gpu.weights.row(0, i);
      const int argmax_cpu = static_cast<int>(std::max_element(a, a + n_k) - a);
      const int argmax_gpu = static_cast<int>(std::max_element(b, b + n_k) - b);
      INFO("query " << i);
      REQUIRE(argmax_cpu == argmax_gpu);
      REQUIRE(a[argmax_cpu] == 1.0f);
      REQUIRE(b[argmax_gpu] == 1.0f);
      for (int j = 0; j < n_k; ++j) {
        if (j == argmax_cpu) continue;
        const float tolerance =
            4.0f * std::numeric_limits<float>::epsilon() * std::max(std::abs(a[j]), std::abs(b[j])) +
            std::numeric_limits<float>::min();
        INFO("key " << j << ": cpu " << a[j] << ", device " << b[j]);
        REQUIRE(std::abs(a[j] - b[j]) <= tolerance);
        REQUIRE(a[j] < std::numeric_limits<float>::min());  // far below a normal weight
      }
    }
  }
}

}  // namespace attnlab_test_opencl_extremes
