// The OpenCL kernels against the CPU reference, on every device variant (CPU-shaped and
// GPU-shaped kernels both run on PoCL here).
//
// Tolerances, one table: |opencl − cpu| ≤ abs + rel·scale per element, where scale is |cpu| for
// scores and weights, and for outputs o_ic = Σ_j p_ij v_jc the magnitude the sum is formed from,
// Σ_j p_ij |v_jc| (≥ |o_ic|). An output can cancel to ~0 while its terms do not: with unscaled
// scores at d_k = 256 (|s| ≈ 50) both the float32 CPU reference and the kernels sit ~1.5e-5 from a
// float64 evaluation, so |o| alone would demand more than float32 gives either of them.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>

#include "attnlab/pretrained.hpp"
#include "attnlab/attention.hpp"
#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/synthetic.hpp"
#include "opencl/opencl_backend.hpp"
#include "opencl/runtime.hpp"

using namespace attnlab;
using attnlab::opencl::MaskParams;
using attnlab::opencl::Runtime;
using attnlab::opencl::Variant;

namespace {

struct Tolerance {
  const char* quantity;
  double abs;
  double rel;
};
// The named tolerance table.
constexpr Tolerance kWeights{"weights", 1e-5, 1e-4};
constexpr Tolerance kOutputs{"outputs", 1e-5, 1e-4};
constexpr Tolerance kScores{"scores", 1e-4, 1e-4};
constexpr Tolerance kPooled{"pooled weights", 1e-5, 1e-4};

// Largest violation of the tolerance (≤ 0 means within it), with the worst index.
struct Comparison {
  double worst_excess = -1;
  double worst_abs_diff = 0;
  std::size_t index = 0;
  bool matching_infinities = true;
};

Comparison compare(const std::vector<float>& got, const std::vector<float>& want,
                   const Tolerance& tol, const std::vector<float>& scale) {
  REQUIRE(got.size() == want.size());
  Comparison c;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(want[i]) || std::isinf(got[i])) {
      if (got[i] != want[i]) c.matching_infinities = false;
      continue;
    }
    const double diff = std::abs(double(got[i]) - want[i]);
    const double magnitude = scale.empty() ? std::abs(double(want[i])) : scale[i];
    const double excess = diff - (tol.abs + tol.rel * magnitude);
    if (excess > c.worst_excess || std::isnan(got[i])) {
      c.worst_excess = std::isnan(got[i]) ? 1e30 : excess;
      c.worst_abs_diff = diff;
      c.index = i;
    }
  }
  return c;
}

void requireClose(const std::vector<float>& got, const std::vector<float>& want,
                  const Tolerance& tol, const std::vector<float>& scale = {}) {
  const Comparison c = compare(got, want, tol, scale);
  INFO(tol.quantity << ": worst |diff| " << c.worst_abs_diff << " at " << c.index
                    << " (abs " << tol.abs << " + rel " << tol.rel << ")");
  REQUIRE(c.matching_infinities);
  REQUIRE(c.worst_excess <= 0);
}

// A Runtime per variant on device 0, or nullptr (with the reason) when there is no device.
Runtime* runtimeFor(Variant variant) {
  static std::unique_ptr<Runtime> runtimes[2];
  static std::string why;
  static bool probed = false;
  if (!probed) {
    probed = true;
    if (!listOpenClDevices(&why).empty()) {
      runtimes[0] = std::make_unique<Runtime>(0, Variant::kCpu);
      runtimes[1] = std::make_unique<Runtime>(0, Variant::kGpu);
    }
  }
  if (!runtimes[0]) {
    // CI installs PoCL: a missing device there is a failure, elsewhere a visible skip.
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") FAIL("CI=true but no OpenCL device: " << why);
    WARN("SKIPPED: no OpenCL device (" << why << "); install pocl-opencl-icd (scripts/setup)");
    return nullptr;
  }
  return runtimes[variant == Variant::kCpu ? 0 : 1].get();
}

AttentionInputs randomInputs(int h, int n_q, int n_k, int d_k, int d_v, std::uint64_t seed) {
  auto fill = [](Tensor3& t, Rng& rng, double sd) {
    for (float& x : t.data) x = static_cast<float>(sd * rng.normal());
  };
  Rng rng(seed);
  AttentionInputs in;
  in.q = Tensor3(h, n_q, d_k);
  in.k = Tensor3(h, n_k, d_k);
  in.v = Tensor3(h, n_k, d_v);
  fill(in.q, rng, 1.0);
  fill(in.k, rng, 1.0);
  fill(in.v, rng, 1.0);
  const int d_a = std::min(d_k, 32);
  in.w_a = Tensor3(h, d_k, d_a);
  in.u_a = Tensor3(h, d_k, d_a);
  in.v_a = Tensor3(h, 1, d_a);
  fill(in.w_a, rng, 1.0 / std::sqrt(d_k));
  fill(in.u_a, rng, 1.0 / std::sqrt(d_k));
  fill(in.v_a, rng, 1.0 / std::sqrt(d_a));
  return in;
}

// CPU reference for an arbitrary MaskParams: scores, softmax over the visible range, P V.
struct Reference {
  Tensor3 scores, weights, output;
};
Reference referenceWithMask(const AttentionInputs& in, double scale, const MaskParams& mask) {
  const int h = in.q.h, n_q = in.q.rows, n_k = in.k.rows;
  Reference r{Tensor3(h, n_q, n_k), Tensor3(h, n_q, n_k), Tensor3(h, n_q, in.v.cols)};
  for (int k = 0; k < h; ++k) {
    r.scores.head(k) = (static_cast<float>(scale) * in.q.head(k)) * in.k.head(k).transpose();
    for (int i = 0; i < n_q; ++i) {
      const auto [lo, hi] = opencl::visibleRange(mask, i, n_k);
      softmaxRow(r.scores.row(k, i), r.weights.row(k, i), n_k, lo, hi);
    }
    r.output.head(k) = r.weights.head(k) * in.v.head(k);
  }
  return r;
}

Tensor3 scaledQ(const Tensor3& q, double scale) {
  Tensor3 out = q;
  for (float& x : out.data) x *= static_cast<float>(scale);
  return out;
}

// Σ_j p_ij |v_jc| for every output element [h, n_q, d_v]: the scale of the outputs' tolerance.
std::vector<float> outputScale(const Tensor3& weights, const Tensor3& v) {
  Tensor3 scale(weights.h, weights.rows, v.cols);
  for (int k = 0; k < weights.h; ++k)
    scale.head(k) = weights.head(k) * v.head(k).cwiseAbs();
  return scale.data;
}

// Scores, weights and outputs of an OpenCL result against the CPU reference (v: the values).
void requireParity(const AttentionResult& gpu, const AttentionResult& cpu, const Tensor3& v) {
  requireClose(gpu.scores.data, cpu.scores.data, kScores);
  requireClose(gpu.weights.data, cpu.weights.data, kWeights);
  requireClose(gpu.head_outputs.data, cpu.head_outputs.data, kOutputs,
               outputScale(cpu.weights, v));
}

const char* variantName(Variant v) { return v == Variant::kCpu ? "cpu-shaped" : "gpu-shaped"; }

}  // namespace

TEST_CASE("OpenCL parity with the CPU reference (dot and scaled)", "[opencl][parity]") {
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  const int d_k = GENERATE(8, 63, 80, 96, 256);
  const int n = GENERATE(1, 7, 63, 65, 1000);
  const int h = GENERATE(1, 8);
  const Mechanism mechanism = GENERATE(Mechanism::kDot, Mechanism::kScaled);
  const int layout = GENERATE(0, 1, 2);  // 0 self, 1 self + causal, 2 cross
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
  requireParity(gpu, cpu, in.v);
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
  requireParity(gpu, cpu, in.v);
}

TEST_CASE("additive at n = 1000 matches the CPU", "[opencl][parity][additive]") {
  // Every d_k, head count and layout; the CPU reference is formed once for both variants.
  const int d_k = GENERATE(8, 63, 80, 96, 256);
  const int h = GENERATE(1, 8);
  const int layout = GENERATE(0, 1, 2);
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
    requireParity(opencl::computeOnDevice(*runtimeFor(variant), in, spec), cpu, in.v);
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
  requireClose(f.output.data, pv.data, kOutputs, outputScale(m.weights, in.v));
  requireClose(f.lse, m.lse, kScores);  // both passes agree on L = m + log l
  // The one-call path (on CPU devices one kernel writing S and P from its own fused pass).
  opencl::Attended a;
  rt->attendInto(q, in.k, in.v, mask, a);
  requireClose(a.scores.data, m.scores.data, kScores);
  requireClose(a.weights.data, m.weights.data, kWeights);
  requireClose(a.output.data, f.output.data, kOutputs, outputScale(m.weights, in.v));
  requireClose(a.lse, f.lse, kScores);
  // Kept tensors are reused: a second call with other shapes resizes them.
  const AttentionInputs small = randomInputs(1, 17, 9, 64, 40, 6);
  rt->attendInto(scaledQ(small.q, 0.125), small.k, small.v, MaskParams{false, 0, 0}, a);
  CHECK(a.weights.h == 1);
  CHECK(a.weights.rows == 17);
  CHECK(a.weights.cols == 9);
  CHECK(a.output.cols == 40);
  CHECK(a.lse.size() == 17);
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
  const opencl::Pooled pooled = rt->pool(q, in.k, f.lse, mask, b);
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
  requireClose(pooled.mean.data, mean.data, kPooled);
  requireClose(pooled.max.data, max.data, kPooled);
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
    for (float x : m.weights.data) REQUIRE(std::isfinite(x));
    for (float x : a.weights.data) REQUIRE(std::isfinite(x));
    requireClose(m.weights.data, ref.weights.data, kWeights);
    requireClose(f.output.data, ref.output.data, kOutputs, outputScale(ref.weights, in.v));
    requireClose(a.scores.data, ref.scores.data, kScores);  // S before the mask, every key
    requireClose(a.weights.data, ref.weights.data, kWeights);
    requireClose(a.output.data, ref.output.data, kOutputs, outputScale(ref.weights, in.v));
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
      REQUIRE(f.lse[i] == -std::numeric_limits<float>::infinity());
      REQUIRE(a.lse[i] == -std::numeric_limits<float>::infinity());
    }
    const Reference ref = referenceWithMask(in, 0.25, mask);
    requireClose(m.weights.data, ref.weights.data, kWeights);
    requireClose(f.output.data, ref.output.data, kOutputs, outputScale(ref.weights, in.v));
    requireClose(a.scores.data, ref.scores.data, kScores);
    requireClose(a.weights.data, ref.weights.data, kWeights);
    requireClose(a.output.data, ref.output.data, kOutputs, outputScale(ref.weights, in.v));
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
    for (float x : gpu.weights.data) REQUIRE(std::isfinite(x));
    requireClose(gpu.weights.data, cpu.weights.data, kWeights);
    requireClose(gpu.head_outputs.data, cpu.head_outputs.data, kOutputs,
               outputScale(cpu.weights, in.v));
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
    CHECK(gpu.scores(0, 0, 3) == Approx(1e4f));
    CHECK(gpu.weights(0, 0, 3) == 1.0f);
    CHECK(gpu.weights(0, 0, 5) == 0.0f);
    requireClose(gpu.weights.data, cpu.weights.data, kWeights);
  }
}

TEST_CASE("selectBackend uses OpenCL when a device builds the kernels", "[opencl][backend]") {
  if (!runtimeFor(Variant::kCpu)) return;
  BackendChoice choice = selectBackend("opencl", 0, BuildMode::kWait);
  REQUIRE(choice.fallback_reason.empty());
  AttentionSpec spec;
  spec.heads = 2;
  spec.d_model = 16;
  const LabRun run = runSynthetic(SyntheticModel(spec, 0), spec, "The cat sat on the mat.",
                                  std::nullopt, *choice.backend);
  CHECK(run.attention.backend == "opencl");
  CHECK(run.attention.fallback_reason.empty());
  CHECK_THROWS_WITH(selectBackend("opencl", 99), Catch::Contains("device 99 does not exist"));
}

TEST_CASE("a kernel build failure falls back to the CPU with the build log", "[opencl][fallback]") {
  if (!runtimeFor(Variant::kCpu)) return;
  // A kernel folder with a broken file: the build fails and the error carries the log.
  const std::string dir = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                          "/attnlab_broken_kernels";
  std::system(("mkdir -p " + dir).c_str());
  for (const char* name : {"flash_attention.cl", "materialized_attention.cl", "pool_attention.cl",
                           "additive_attention.cl"}) {
    FILE* f = std::fopen((dir + "/" + name).c_str(), "w");
    REQUIRE(f);
    std::fputs("__kernel void broken( { this is not OpenCL C }\n", f);
    std::fclose(f);
  }
  setenv("ATTNLAB_KERNEL_DIR", dir.c_str(), 1);
  try {
    Runtime rt(0);
    rt.prepare(8, 8);
    FAIL("a broken kernel built");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kBackend);
    CHECK(std::string(e.what()).find("clBuildProgram failed") != std::string::npos);
    CHECK_FALSE(e.buildLog().empty());
  }
  BackendChoice choice = selectBackend("auto", 0, BuildMode::kWait);
  AttentionSpec spec;
  spec.heads = 1;
  spec.d_model = 8;
  const LabRun run =
      runSynthetic(SyntheticModel(spec, 0), spec, "a b", std::nullopt, *choice.backend);
  unsetenv("ATTNLAB_KERNEL_DIR");
  CHECK(run.attention.backend == "cpu");
  CHECK(run.attention.fallback_reason.find("clBuildProgram failed") != std::string::npos);
}

TEST_CASE("a pretrained model's forward pass on OpenCL matches the CPU, layer by layer",
          "[opencl][pretrained]") {
  if (!runtimeFor(Variant::kCpu)) return;
  // The tiny GPT-2 fixture: causal, d_k = 16; every layer's attention goes through the backend,
  // so a kernel error would also shift the later layers.
  const auto model = PretrainedModel::load(std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-gpt2");
  BackendChoice choice = selectBackend("opencl", 0, BuildMode::kWait);
  REQUIRE(choice.fallback_reason.empty());
  auto cpu = makeCpuBackend();
  const std::string text = "The cat sat on the mat because it was tired. 我的猫很累 😀";
  for (const std::optional<Mechanism> mechanism : {std::optional<Mechanism>{}, std::optional(Mechanism::kDot)}) {
    ModelRunOptions options;
    options.mechanism = mechanism;
    const ModelRun on_cpu = model->run(text, std::nullopt, options, *cpu);
    const ModelRun on_cl = model->run(text, std::nullopt, options, *choice.backend);
    REQUIRE(on_cl.attention.size() == on_cpu.attention.size());
    for (std::size_t l = 0; l < on_cpu.attention.size(); ++l) {
      INFO("layer " << l);
      CHECK(on_cl.attention[l].backend == "opencl");
      const std::vector<float>& a = on_cpu.attention[l].weights.data;
      const std::vector<float>& b = on_cl.attention[l].weights.data;
      REQUIRE(a.size() == b.size());
      double worst = 0;
      for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double(a[i]) - b[i]));
      CHECK(worst <= 1e-4);  // the HuggingFace tolerance, after the layers compound the differences
    }
  }
}
