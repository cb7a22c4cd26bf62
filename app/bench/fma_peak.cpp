// attention-lab-bench: this machine's float32 FMA peak, measured in the same run as the kernels so
// that each kernel's GFLOP/s can be given as a fraction of it (the load of a shared machine then
// weighs on both alike).
//
// Every thread (OpenMP, as many as the kernels' device uses: all cores) runs kChains independent
// chains acc = acc·a + b on the widest vectors the build targets (AVX-512: 16 floats, else 8),
// enough chains to cover the FMA latency on both FMA ports. The file is compiled with
// -ffp-contract=fast (app/CMakeLists.txt), so each update is one fused multiply-add: 2 flops per
// lane, the convention the kernels' GFLOP/s use (a multiply-add of Q Kᵀ or P V counts 2).

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "bench/bench.hpp"

namespace attnlab::bench {

namespace {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
#else
constexpr int kLanes = 8;
#endif
constexpr int kChains = 12;  // ≥ latency (4 cycles) × ports (2)
using Vec = float __attribute__((vector_size(kLanes * sizeof(float))));

// One round: acc[c] = acc[c]·a + b for every chain, written out so the chains stay in registers.
template <std::size_t... C>
inline void step(Vec* acc, Vec a, Vec b, std::index_sequence<C...>) {
  ((acc[C] = acc[C] * a + b), ...);
}

// Runs `iterations` rounds of kChains FMAs on every thread; returns the wall time in seconds.
double runChains(long iterations, float* sink) {
  const auto start = std::chrono::steady_clock::now();
#pragma omp parallel
  {
    Vec acc[kChains];
    Vec a, b;
    for (int l = 0; l < kLanes; ++l) {
      a[l] = 0.999999f;
      b[l] = 1e-7f * static_cast<float>(omp_get_thread_num() + 1);
    }
    for (int c = 0; c < kChains; ++c)
      for (int l = 0; l < kLanes; ++l) acc[c][l] = 0.001f * static_cast<float>(c + l);
    for (long r = 0; r < iterations; ++r) step(acc, a, b, std::make_index_sequence<kChains>());
    float total = 0;
    for (int c = 0; c < kChains; ++c)
      for (int l = 0; l < kLanes; ++l) total += acc[c][l];
#pragma omp atomic
    *sink += total;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

FmaPeak measureFmaPeak(double seconds, int tries) {
  float sink = 0;
  FmaPeak peak;
  peak.threads = omp_get_max_threads();
  peak.lanes = kLanes;
  // Calibrate the iteration count to about `seconds` per try.
  long iterations = 1 << 16;
  double t = runChains(iterations, &sink);
  while (t < seconds / 8) {
    iterations *= 4;
    t = runChains(iterations, &sink);
  }
  iterations = static_cast<long>(iterations * seconds / t) + 1;
  for (int i = 0; i < tries; ++i) {
    const double wall = runChains(iterations, &sink);
    const double flops = 2.0 * kLanes * kChains * static_cast<double>(iterations) * peak.threads;
    peak.gflops = std::max(peak.gflops, flops / wall / 1e9);
  }
  peak.sink = sink;
  return peak;
}

}  // namespace attnlab::bench
