// Run-time CPU path selection (see attnlab/cpu_path.hpp) and the kernel table it picks.

#include "attnlab/cpu_path.hpp"

#include <cstdlib>
#include <optional>
#include <string>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "cpu/cpu_path_internal.hpp"

namespace attnlab {

std::string toString(CpuPath path) {
  switch (path) {
    case CpuPath::kAvx512: return "avx512";
    case CpuPath::kAvx2: return "avx2";
    case CpuPath::kBaseline: return "baseline";
  }
  return "baseline";
}

CpuPath bestCpuPath() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const CpuPath best = [] {
    __builtin_cpu_init();
    // x86-64-v4 as the kernel file is compiled for it: AVX512F, BW, CD, DQ, VL.
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("fma"))
      return CpuPath::kAvx512;
    // x86-64-v3: AVX2, FMA, BMI1/2 (and F16C, MOVBE, which every CPU with AVX2 has; clang 14's
    // __builtin_cpu_supports cannot ask for them).
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2"))
      return CpuPath::kAvx2;
    return CpuPath::kBaseline;
  }();
  return best;
#else
  return CpuPath::kBaseline;
#endif
}

std::vector<CpuPath> supportedCpuPaths() {
  std::vector<CpuPath> paths;
  for (CpuPath p : {CpuPath::kBaseline, CpuPath::kAvx2, CpuPath::kAvx512}) {
    if (p <= bestCpuPath()) paths.push_back(p);
  }
  return paths;
}

namespace {

struct Choice {
  CpuPath path = CpuPath::kBaseline;
  bool forced = false;
  std::string error;  // non-empty: ATTNLAB_CPU_PATH is unusable
};

const Choice& choice() {
  static const Choice c = [] {
    Choice out;
    out.path = bestCpuPath();
    const char* env = std::getenv("ATTNLAB_CPU_PATH");
    if (env == nullptr || *env == '\0') return out;
    const std::string value = env;
    std::optional<CpuPath> wanted;
    for (const CpuPath p : {CpuPath::kAvx512, CpuPath::kAvx2, CpuPath::kBaseline})
      if (value == toString(p)) wanted = p;
    if (!wanted) {
      out.error = "ATTNLAB_CPU_PATH must be avx512, avx2 or baseline (got '" + value + "')";
      return out;
    }
    if (*wanted > out.path) {
      out.error = "ATTNLAB_CPU_PATH=" + value + " but this CPU (" + cpuDeviceName() +
                  ") supports at most " + toString(out.path);
      return out;
    }
    out.path = *wanted;
    out.forced = true;
    return out;
  }();
  return c;
}

}  // namespace

CpuPath activeCpuPath() {
  const Choice& c = choice();
  if (!c.error.empty()) throw Error(ErrorCode::kInvalidArgument, c.error);
  return c.path;
}

std::string describeCpuPath() {
  const CpuPath path = activeCpuPath();
  std::string line = toString(path);
  if (choice().forced) {
    line += " (forced by ATTNLAB_CPU_PATH; this CPU supports " + toString(bestCpuPath()) + ")";
  }
  return line + " on " + cpuDeviceName();
}

namespace kernels {

const DenseKernel& denseKernel(CpuPath path) {
  if (path > bestCpuPath()) {
    throw Error(ErrorCode::kInvalidArgument,
                "this CPU does not support the " + toString(path) + " path");
  }
  switch (path) {
    case CpuPath::kAvx512: return kAvx512;
    case CpuPath::kAvx2: return kAvx2;
    case CpuPath::kBaseline: break;
  }
  return kBaseline;
}

const DenseKernel& activeDenseKernel() {
  static const DenseKernel& kernel = denseKernel(activeCpuPath());  // throws until the path is usable
  return kernel;
}

const QuantKernel& quantKernel(CpuPath path) {
  (void)denseKernel(path);  // the same check
  switch (path) {
    case CpuPath::kAvx512: return avx512Vnni() ? kQuantAvx512Vnni : kQuantAvx512;
    case CpuPath::kAvx2: return kQuantAvx2;
    case CpuPath::kBaseline: break;
  }
  return kQuantBaseline;
}

bool avx512Vnni() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool vnni = [] {
    __builtin_cpu_init();
    const char* off = std::getenv("ATTNLAB_NO_VNNI");
    return __builtin_cpu_supports("avx512vnni") && (off == nullptr || *off == '\0');
  }();
  return vnni;
#else
  return false;
#endif
}

const QuantKernel& activeQuantKernel() {
  static const QuantKernel& kernel = quantKernel(activeCpuPath());
  return kernel;
}

}  // namespace kernels
}  // namespace attnlab
