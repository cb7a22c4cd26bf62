// attention-lab-bench: this machine's float32 FMA peak on one CPU path, measured in the same run
// as the kernels so that each kernel's GFLOP/s can be given as a fraction of it (the load of a
// shared machine then weighs on both alike).
//
// Every thread (OpenMP, as many as the kernels use: all cores) runs the path's FMA chains
// (engine/src/cpu/dense_kernel_impl.hpp): independent chains acc = acc·a + b on the path's widest
// vectors, enough chains to cover the FMA latency on both FMA ports; one fused multiply-add per
// update where the path has FMA (a multiply and an add on the baseline path): 2 flops per lane,
// the convention the kernels' GFLOP/s use (a multiply-add of Q Kᵀ or P V counts 2).

#include <omp.h>

#include <algorithm>
#include <chrono>

#include "bench/bench.hpp"
#include "cpu/cpu_path_internal.hpp"

namespace attnlab::bench {

namespace {

// Runs `iterations` rounds of the chains on every thread; returns the wall time in seconds.
double runChains(const kernels::DenseKernel& kernel, long iterations, float* sink) {
  const auto start = std::chrono::steady_clock::now();
#pragma omp parallel
  {
    const float total = kernel.chains(iterations, static_cast<float>(omp_get_thread_num() + 1));
#pragma omp atomic
    *sink += total;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

FmaPeak measureFmaPeak(CpuPath path, double seconds, int tries) {
  const kernels::DenseKernel& kernel = kernels::denseKernel(path);
  float sink = 0;
  FmaPeak peak;
  peak.threads = omp_get_max_threads();
  peak.lanes = kernel.lanes;
  peak.path = path;
  // Calibrate the iteration count to about `seconds` per try.
  long iterations = 1 << 16;
  double t = runChains(kernel, iterations, &sink);
  while (t < seconds / 8) {
    iterations *= 4;
    t = runChains(kernel, iterations, &sink);
  }
  iterations = static_cast<long>(iterations * seconds / t) + 1;
  for (int i = 0; i < tries; ++i) {
    const double wall = runChains(kernel, iterations, &sink);
    const double flops =
        2.0 * kernel.lanes * kernel.chain_count * static_cast<double>(iterations) * peak.threads;
    peak.gflops = std::max(peak.gflops, flops / wall / 1e9);
  }
  peak.sink = sink;
  return peak;
}

FmaPeak measureFmaPeak(double seconds, int tries) {
  return measureFmaPeak(bestCpuPath(), seconds, tries);
}

}  // namespace attnlab::bench
