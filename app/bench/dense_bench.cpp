// attention-lab-bench --dense: the dense products y = x Wᵀ of the model passes at the models'
// shapes, on the CPU path in use (attnlab/cpu_path.hpp), beside the FMA peak of the same path and
// beside Eigen's GEMM on the same matrices, measured in the same run (interleaved rounds, best of
// each: these machines are noisy). Eigen's code is compiled for the build's target (-march=native
// by default, the portable baseline in the .deb), whatever path is forced.

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "attnlab/cpu_path.hpp"
#include "bench/bench.hpp"
#include "cpu/cpu_path_internal.hpp"
#include "model/linear.hpp"

namespace attnlab::bench {

namespace {

using Clock = std::chrono::steady_clock;

// The best time of `rounds` rounds of f, each repeated until it has run ~20 ms, in ms per call.
template <class F>
double bestMs(F&& f, int rounds) {
  f();
  const auto t0 = Clock::now();
  f();
  const double once = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  const int reps = std::max(1, static_cast<int>(20.0 / std::max(once, 1e-3)));
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) {
    const auto start = Clock::now();
    for (int i = 0; i < reps; ++i) f();
    best = std::min(best,
                    std::chrono::duration<double, std::milli>(Clock::now() - start).count() / reps);
  }
  return best;
}

}  // namespace

int runDenseBench(const std::vector<int>& rows) {
  const CpuPath path = activeCpuPath();
  const kernels::DenseKernel& kernel = kernels::denseKernel(path);
  const FmaPeak peak = measureFmaPeak(path);
  std::printf("\ndense products y = x Wᵀ (model passes), cpu path %s: %d × %d register blocks, "
              "%d threads; FMA peak of the path %.1f GFLOP/s\n\n",
              describeCpuPath().c_str(), kernel.block_rows, kernel.block_columns, peak.threads,
              peak.gflops);
  std::printf("| rows | in → out | ours (GFLOP/s) | of peak | Eigen GEMM (GFLOP/s) | ours / Eigen |\n"
              "|---:|---|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  struct Shape {
    int in, out;
  };
  const Shape shapes[] = {{576, 576}, {576, 1536}, {1536, 576}, {384, 1536}, {1536, 384}};
  double worst = 1.0;
  for (const Shape& s : shapes) {
    Matrix w = Matrix::Random(s.out, s.in);
    const linear::PackedWeights packed(w);
    const Matrix wt = w.transpose();  // Eigen's x · Wᵀ from a stored Wᵀ, as a library user would
    for (int n : rows) {
      const Matrix x = Matrix::Random(n, s.in);
      Matrix y_eigen(n, s.out);
      const double ours = bestMs([&] { (void)linear::timesTransposed(x, packed); }, 5);
      const double eigen = bestMs([&] { y_eigen.noalias() = x * wt; }, 5);
      const double flops = 2.0 * n * s.in * s.out;
      const double g_ours = flops / ours / 1e6, g_eigen = flops / eigen / 1e6;
      worst = std::min(worst, g_ours / peak.gflops);
      std::printf("| %d | %d → %d | %.1f | %.0f %% | %.1f | %.2f |\n", n, s.in, s.out, g_ours,
                  100.0 * g_ours / peak.gflops, g_eigen, g_ours / g_eigen);
      std::fflush(stdout);
    }
  }
  std::printf("\nlowest fraction of the path's FMA peak: %.0f %%\n", 100.0 * worst);
  return 0;
}

}  // namespace attnlab::bench
