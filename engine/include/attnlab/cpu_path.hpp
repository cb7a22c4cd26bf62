#pragma once
/// \file cpu_path.hpp
/// Run-time choice of the CPU instruction-set path for the engine's hot loops (the dense products
/// of the pretrained models' forward passes): one binary that runs the fastest code the processor
/// it runs on supports, whatever it was built for.
///
/// Paths (x86-64 microarchitecture levels of the psABI):
///   kAvx512   x86-64-v4: AVX512F, AVX512BW/CD/DQ/VL (Intel Skylake-SP and later, AMD Zen 4+)
///   kAvx2     x86-64-v3: AVX2 and FMA (Intel Haswell and later, AMD Zen 1–3)
///   kBaseline x86-64-v2: SSE4.2, no FMA (every other x86-64 CPU of the last 15 years)
/// The best path the CPU supports is chosen by CPUID (GCC's __builtin_cpu_supports, which also
/// checks that the operating system saves the wide registers). The environment variable
/// ATTNLAB_CPU_PATH = avx512 | avx2 | baseline forces a path (for tests and benchmarks: every path
/// can be measured on one machine); forcing one the CPU lacks is an error, never a crash.

#include <string>
#include <vector>

namespace attnlab {

/// An instruction-set path, widest last.
enum class CpuPath { kBaseline, kAvx2, kAvx512 };

/// "baseline", "avx2" or "avx512".
std::string toString(CpuPath path);

/// The widest path this CPU (and operating system) supports.
CpuPath bestCpuPath();

/// Every path this CPU supports, narrowest first (baseline always).
std::vector<CpuPath> supportedCpuPaths();

/// The path in use: ATTNLAB_CPU_PATH when set, else bestCpuPath(); read once per process.
/// Throws Error(kInvalidArgument) for an unknown ATTNLAB_CPU_PATH value (naming the choices) or a
/// path the CPU lacks (naming the best one it has).
CpuPath activeCpuPath();

/// One line for `info` and the bench: the path in use, whether it was forced, and the CPU's model
/// name, e.g. "avx2 (forced by ATTNLAB_CPU_PATH; this CPU supports avx512) on AMD EPYC 9B45".
/// Throws as activeCpuPath().
std::string describeCpuPath();

}  // namespace attnlab
