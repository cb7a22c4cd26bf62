// The OpenCL backend around the kernels: selection, failures that must be seen (builds that fail
// in the background, device limits), retry, and the guard bands that catch a kernel writing past
// its result.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "attnlab/pretrained.hpp"
#include "attnlab/synthetic.hpp"
#include "kernel_support.hpp"
#include "opencl/opencl_backend.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_opencl_backend {

using namespace attnlab;
using namespace attnlab::test;
namespace fs = std::filesystem;

namespace {

const char* const kKernelFiles[] = {"attention_mask.cl", "flash_attention.cl",
                                    "materialized_attention.cl", "pool_attention.cl",
                                    "additive_attention.cl"};

// A fresh kernel folder holding the embedded kernels, for ATTNLAB_KERNEL_DIR.
fs::path kernelFolder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("attnlab_" + name + "_" +
                                                    std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::unsetenv("ATTNLAB_KERNEL_DIR");
  for (const char* file : kKernelFiles) std::ofstream(dir / file) << opencl::kernelSource(file);
  return dir;
}

// Restores ATTNLAB_KERNEL_DIR and the runtime overrides when a test case ends, however it ends.
struct Restore {
  ~Restore() {
    ::unsetenv("ATTNLAB_KERNEL_DIR");
    opencl::setRuntimeOverridesForTesting({});
  }
};

AttentionSpec smallSpec(int heads = 1, int d_model = 8) {
  AttentionSpec spec;
  spec.heads = heads;
  spec.d_model = d_model;
  return spec;
}

AttentionResult runOn(Backend& backend, const AttentionSpec& spec,
                      const std::string& text = "a b") {
  return runSynthetic(SyntheticModel(spec, 0), spec, text, std::nullopt, backend).attention;
}

// Computes until `done` holds for the result (each call answers at once in kBackground mode),
// at most `tries` times with a pause between; returns the last result.
template <typename Done>
AttentionResult computeUntil(Backend& backend, const AttentionSpec& spec, Done done,
                             int tries = 1200) {
  AttentionResult r;
  for (int i = 0; i < tries; ++i) {
    r = runOn(backend, spec);
    if (done(r)) return r;
    ::usleep(100 * 1000);
  }
  return r;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("selectBackend uses OpenCL when a device builds the kernels", "[opencl][backend]") {
  if (!runtimeFor(Variant::kCpu)) return;
  BackendChoice choice = selectBackend(BackendKind::kOpenCl, 0, BuildMode::kWait);
  REQUIRE(choice.fallback_reason.empty());
  const AttentionResult r = runOn(*choice.backend, smallSpec(2, 16), "The cat sat on the mat.");
  CHECK(r.backend == "opencl");
  CHECK(r.fallback_reason.empty());
  REQUIRE_THROWS_MATCHES(selectBackend(BackendKind::kOpenCl, 99), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "device 99 does not exist"));
}

TEST_CASE("a kernel build failure falls back to the CPU with the build log", "[opencl][fallback]") {
  if (!runtimeFor(Variant::kCpu)) return;
  const Restore restore;
  const fs::path dir = kernelFolder("broken_wait");
  for (const char* file : kKernelFiles)
    std::ofstream(dir / file) << "__kernel void broken( { this is not OpenCL C }\n";
  ::setenv("ATTNLAB_KERNEL_DIR", dir.c_str(), 1);
  Runtime rt(0);
  REQUIRE_THROWS_MATCHES(rt.prepare(8, 8), Error,
                         ErrorMatches(ErrorCode::kBackend, "clBuildProgram failed"));
  const std::optional<Error> kept = rt.buildError(8, 8);
  REQUIRE(kept);
  CHECK_FALSE(kept->buildLog().empty());
  CHECK_FALSE(rt.prepared(8, 8));
  // The CLI's mode: the build runs before the first result, which says why it is the CPU's.
  BackendChoice choice = selectBackend(BackendKind::kAuto, 0, BuildMode::kWait);
  const AttentionResult r = runOn(*choice.backend, smallSpec());
  CHECK(r.backend == "cpu");
  CHECK(contains(r.fallback_reason, "clBuildProgram failed"));
  CHECK(contains(r.fallback_reason, "error"));  // the build log's first error line
}

TEST_CASE("a background build that fails is reported, kept, and built again on retry",
          "[opencl][fallback][background]") {
  // The window's mode (auto, kBackground) with ATTNLAB_KERNEL_DIR at a folder whose
  // materialized_attention.cl does not compile. Before the fix the failure was swallowed and
  // every later result said "the OpenCL kernels for d_k = … are building".
  if (!runtimeFor(Variant::kCpu)) return;
  const Restore restore;
  const fs::path dir = kernelFolder("broken_background");
  const std::string good = opencl::kernelSource("materialized_attention.cl");
  std::ofstream(dir / "materialized_attention.cl") << good << "\nthis line is not OpenCL C\n";
  ::setenv("ATTNLAB_KERNEL_DIR", dir.c_str(), 1);
  BackendChoice choice = selectBackend(BackendKind::kAuto, 0, BuildMode::kBackground);
  Backend& backend = *choice.backend;
  const AttentionSpec spec = smallSpec();
  AttentionResult r = computeUntil(backend, spec, [](const AttentionResult& x) {
    return contains(x.fallback_reason, "clBuildProgram failed");
  });
  INFO("last reason: " << r.fallback_reason);
  REQUIRE(contains(r.fallback_reason, "clBuildProgram failed for materialized_attention.cl"));
  CHECK(r.backend == "cpu");
  // Kept: later results say the same at once, not "building", and nothing builds again.
  r = runOn(backend, spec);
  CHECK(contains(r.fallback_reason, "clBuildProgram failed"));
  CHECK_FALSE(contains(r.fallback_reason, "building"));
  // The user fixes the kernel and asks again: a background build, then OpenCL.
  std::ofstream(dir / "materialized_attention.cl") << good;
  backend.retry();
  r = runOn(backend, spec);
  CHECK(r.backend == "cpu");
  CHECK(contains(r.fallback_reason, "are building"));
  r = computeUntil(backend, spec, [](const AttentionResult& x) { return x.backend == "opencl"; });
  INFO("last reason: " << r.fallback_reason);
  CHECK(r.backend == "opencl");
  CHECK(r.fallback_reason.empty());
}

TEST_CASE("results never wait for a kernel build in progress", "[opencl][background]") {
  // materialized_attention.cl is a FIFO, so the background build blocks reading it until this
  // test writes the source. Meanwhile every compute must answer on the CPU: one that waited for
  // the build (or for a lock the build holds) would never return, and CTest's timeout fails it.
  if (!runtimeFor(Variant::kCpu)) return;
  const Restore restore;
  const fs::path dir = kernelFolder("fifo");
  const std::string text = opencl::kernelSource("materialized_attention.cl");  // embedded
  const fs::path fifo = dir / "materialized_attention.cl";
  fs::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  ::setenv("ATTNLAB_KERNEL_DIR", dir.c_str(), 1);
  BackendChoice choice = selectBackend(BackendKind::kAuto, 0, BuildMode::kBackground);
  Backend& backend = *choice.backend;
  // Writes the source into the FIFO (releasing the blocked build), then leaves a plain file in
  // its place; also on the way out of a failed REQUIRE, so the backend's destructor can finish.
  struct Release {
    fs::path dir, fifo;
    const std::string& text;
    bool done = false;
    void operator()() {
      if (done) return;
      done = true;
      std::ofstream(dir / "plain.cl") << text;
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // fails when nobody reads
      if (fd >= 0) {
        const ssize_t written = ::write(fd, text.data(), text.size());
        (void)written;
        ::close(fd);
      }
      fs::rename(dir / "plain.cl", fifo);
    }
    ~Release() { (*this)(); }
  } release{dir, fifo, text};
  const AttentionSpec spec = smallSpec();
  AttentionResult r = computeUntil(backend, spec, [](const AttentionResult& x) {
    return contains(x.fallback_reason, "are building");
  });
  CHECK(r.backend == "cpu");
  REQUIRE(contains(r.fallback_reason, "the OpenCL kernels for d_k = 8 are building"));
  for (int i = 0; i < 5; ++i) CHECK(runOn(backend, spec).backend == "cpu");
  release();
  r = computeUntil(backend, spec, [](const AttentionResult& x) { return x.backend == "opencl"; });
  INFO("last reason: " << r.fallback_reason);
  CHECK(r.backend == "opencl");
}

TEST_CASE("GPU tiles are chosen to fit the device's local memory and work-group size",
          "[opencl][limits]") {
  using opencl::chooseGpuTiles;
  using opencl::DeviceLimits;
  // A typical GPU: 64 KiB of local memory, 1024 work-items per group.
  const DeviceLimits gpu{64 * 1024, 1024, {1024, 1024}};
  opencl::GpuTiles t = chooseGpuTiles(gpu, 64, 64);
  CHECK(t.queries == 64);
  CHECK(t.keys == 16);  // 16 · (64 + 64) floats = 8 KiB
  CHECK(t.tile == 16);
  // d_k = 512 asks 16 · (512 + 512) · 4 B = 64 KiB for BKG = 16: with 32 KiB, BKG = 8.
  t = chooseGpuTiles(DeviceLimits{32 * 1024, 1024, {1024, 1024}}, 512, 512);
  CHECK(t.keys == 8);
  CHECK(t.tile == 16);  // 16 · 512 · 4 B = 32 KiB
  t = chooseGpuTiles(DeviceLimits{16 * 1024, 1024, {1024, 1024}}, 512, 512);
  CHECK(t.keys == 4);
  CHECK(t.tile == 8);
  // 64 work-items per group at most: BQ = 64, TILE = 8 (8² = 64); 16: BQ = 16, TILE = 4.
  t = chooseGpuTiles(DeviceLimits{64 * 1024, 64, {64, 64}}, 64, 64);
  CHECK(t.queries == 64);
  CHECK(t.tile == 8);
  t = chooseGpuTiles(DeviceLimits{64 * 1024, 16, {16, 16}}, 64, 64);
  CHECK(t.queries == 16);
  CHECK(t.tile == 4);
  // Nothing fits: the error names the limit and what one key needs (4 KiB at d_k = d_v = 512).
  REQUIRE_THROWS_MATCHES(chooseGpuTiles(DeviceLimits{1024, 1024, {1024, 1024}}, 512, 512),
                         Error, ErrorMatches(ErrorCode::kBackend, "CL_DEVICE_LOCAL_MEM_SIZE"));
  REQUIRE_THROWS_MATCHES(chooseGpuTiles(DeviceLimits{1024, 1024, {1024, 1024}}, 512, 512),
                         Error, ErrorMatches(ErrorCode::kBackend, "need 4 KiB of local memory"));
  REQUIRE_THROWS_MATCHES(chooseGpuTiles(DeviceLimits{64 * 1024, 0, {0, 0}}, 64, 64), Error,
                         ErrorMatches(ErrorCode::kBackend, "CL_DEVICE_MAX_WORK_GROUP_SIZE"));
}

TEST_CASE("GPU-shaped kernels with lowered device limits: smaller tiles, same results",
          "[opencl][limits]") {
  if (!runtimeFor(Variant::kGpu)) return;
  const Restore restore;
  const int d_k = GENERATE(64, 512);
  opencl::RuntimeOverrides limits;
  limits.limits = opencl::DeviceLimits{16 * 1024, 64, {64, 64}};
  limits.guard_floats = kGuardFloats;
  opencl::setRuntimeOverridesForTesting(limits);
  Runtime rt(0, Variant::kGpu);
  AttentionSpec spec;
  spec.heads = 2;
  spec.mask = GENERATE(Mask::kNone, Mask::kCausal);
  const AttentionInputs in = randomInputs(2, 130, 130, d_k, d_k, 77u + d_k);
  const AttentionResult cpu = computeAttentionCpu(in, spec);
  const AttentionResult gpu = opencl::computeOnDevice(rt, in, spec);
  INFO("d_k = " << d_k);
  requireParity(gpu, cpu, in, scoreMagnitude(in.q, in.k, cpu.scale));
}

TEST_CASE("a device whose limits the kernels cannot fit falls back with the limit named",
          "[opencl][limits][fallback]") {
  if (!runtimeFor(Variant::kGpu)) return;
  const Restore restore;
  opencl::RuntimeOverrides small;
  small.variant = Variant::kGpu;
  small.limits = opencl::DeviceLimits{2 * 1024, 256, {256, 256}};  // 2 KiB of local memory
  opencl::setRuntimeOverridesForTesting(small);
  BackendChoice choice = selectBackend(BackendKind::kOpenCl, 0, BuildMode::kWait);
  AttentionSpec spec = smallSpec(1, 512);  // d_k = 512: one key of K and V needs 4 KiB
  AttentionResult r = runOn(*choice.backend, spec);
  CHECK(r.backend == "cpu");
  CHECK(contains(r.fallback_reason, "CL_DEVICE_LOCAL_MEM_SIZE"));
  CHECK(contains(r.fallback_reason, "d_k = 512"));
  // d_k = 8 fits in 2 KiB: OpenCL, with smaller tiles.
  r = runOn(*choice.backend, smallSpec(1, 8));
  CHECK(r.backend == "opencl");
}

TEST_CASE("guard bands catch a kernel that writes past its result", "[opencl][guards]") {
  // A copy of the kernels where the fused output's last element lands one float past the end.
  // Both variants: on CPU devices the result is written in place into host memory.
  const Variant variant = GENERATE(Variant::kCpu, Variant::kGpu);
  if (!runtimeFor(variant)) return;
  const Restore restore;
  const fs::path dir = kernelFolder("overrun");
  std::string source = opencl::kernelSource("flash_attention.cl");
  for (const std::string& store :
       {std::string("o[((size_t)head * n_q + i0 + r) * D_V + col] = tmp[r];"),
        std::string("o[((size_t)head * n_q + i) * D_V + c] = acc[c] * inv;")}) {
    const std::size_t at = source.find(store);
    REQUIRE(at != std::string::npos);
    std::string shifted = store;
    shifted.replace(shifted.find("] ="), 3, " + 1] =");
    source.replace(at, store.size(), shifted);
  }
  std::ofstream(dir / "flash_attention.cl") << source;
  ::setenv("ATTNLAB_KERNEL_DIR", dir.c_str(), 1);
  opencl::RuntimeOverrides guards;
  guards.guard_floats = kGuardFloats;
  opencl::setRuntimeOverridesForTesting(guards);
  Runtime rt(0, variant);
  const AttentionInputs in = randomInputs(1, 20, 20, 8, 8, 3);
  REQUIRE_THROWS_MATCHES(rt.fused(in.q, in.k, in.v, MaskParams{}), Error,
                         ErrorMatches(ErrorCode::kInternal, "outside its result buffer"));
}

TEST_CASE("a pretrained model's forward pass on OpenCL matches the CPU, layer by layer",
          "[opencl][pretrained]") {
  if (!runtimeFor(Variant::kCpu)) return;
  // The tiny GPT-2 fixture: causal, d_k = 16; every layer's attention goes through the backend,
  // so a kernel error would also shift the later layers.
  const auto model =
      PretrainedModel::load(std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-gpt2");
  BackendChoice choice = selectBackend(BackendKind::kOpenCl, 0, BuildMode::kWait);
  REQUIRE(choice.fallback_reason.empty());
  auto cpu = makeCpuBackend();
  const std::string text = "The cat sat on the mat because it was tired. 我的猫很累 😀";
  for (const std::optional<Mechanism> mechanism :
       {std::optional<Mechanism>{}, std::optional(Mechanism::kDot)}) {
    ModelRunOptions options;
    options.mechanism = mechanism;
    const ModelRun on_cpu = model->run(text, std::nullopt, options, *cpu);
    const ModelRun on_cl = model->run(text, std::nullopt, options, *choice.backend);
    REQUIRE(on_cl.attention.size() == on_cpu.attention.size());
    for (std::size_t l = 0; l < on_cpu.attention.size(); ++l) {
      INFO("layer " << l);
      CHECK(on_cl.attention[l].backend == "opencl");
      const FloatStore& a = on_cpu.attention[l].weights.data;
      const FloatStore& b = on_cl.attention[l].weights.data;
      REQUIRE(a.size() == b.size());
      double worst = 0;
      for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::abs(double(a[i]) - b[i]));
      CHECK(worst <= 1e-4);  // the HuggingFace tolerance, after the layers compound the differences
    }
  }
}

TEST_CASE("Gemma on OpenCL: Gemma 3's local and global layers equal the CPU; Gemma 2's "
          "soft-capped scores fall back to the CPU saying why",
          "[opencl][pretrained][gemma]") {
  if (!runtimeFor(Variant::kCpu)) return;
  BackendChoice choice = selectBackend(BackendKind::kOpenCl, 0, BuildMode::kWait);
  REQUIRE(choice.fallback_reason.empty());
  auto cpu = makeCpuBackend();
  const std::string data = ATTNLAB_TEST_DATA_DIR;
  const std::string text = "The cat sat on the mat because it was tired.";
  // Gemma 3: a window of 4 on layers 0–4, layer 5 global, one K/V head (MQA), d_k = 16.
  const auto gemma3 = PretrainedModel::load(data + "/models/tiny-gemma3");
  const ModelRun on_cpu = gemma3->run(text, std::nullopt, {}, *cpu);
  const ModelRun on_cl = gemma3->run(text, std::nullopt, {}, *choice.backend);
  REQUIRE(on_cl.attention.size() == on_cpu.attention.size());
  for (std::size_t l = 0; l < on_cpu.attention.size(); ++l) {
    INFO("layer " << l);
    CHECK(on_cl.attention[l].backend == "opencl");
    CHECK(on_cl.attention[l].pattern().window == on_cpu.attention[l].pattern().window);
    const FloatStore& a = on_cpu.attention[l].weights.data;
    const FloatStore& b = on_cl.attention[l].weights.data;
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double(a[i]) - b[i]));
    CHECK(worst <= 1e-4);
  }
  // Gemma 2: the kernels do not soft-cap, so every layer is computed on the CPU reference.
  const auto gemma2 = PretrainedModel::load(data + "/models/tiny-gemma2");
  const ModelRun capped = gemma2->run(text, std::nullopt, {}, *choice.backend);
  for (const AttentionResult& r : capped.attention) {
    CHECK(r.backend == "cpu");
    CHECK(r.fallback_code == FallbackCode::kCpuOnlyNumerics);
    CHECK(contains(r.fallback_reason, "soft-capping c·tanh(S/c), c = 5"));
  }
}

}  // namespace attnlab_test_opencl_backend
