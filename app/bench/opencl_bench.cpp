// attention-lab-bench, OpenCL part: Eigen materialised (the reference) vs OpenCL tiled
// materialised vs OpenCL fused, as a table on stdout and a CSV.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "attnlab/synthetic.hpp"
#include "bench/bench.hpp"
#include "opencl/runtime.hpp"

namespace attnlab::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Median wall time in ms of each path over `runs` rounds, after one warm-up call of each. The
// paths take turns within a round, so a noisy interval of the machine hits all of them alike and
// their ratios stay fair. A null function is skipped (its time is NaN).
std::vector<double> medianMs(int runs, const std::vector<std::function<void()>>& paths) {
  for (const auto& f : paths)
    if (f) f();
  std::vector<std::vector<double>> times(paths.size());
  for (int r = 0; r < runs; ++r) {
    for (std::size_t p = 0; p < paths.size(); ++p) {
      if (!paths[p]) continue;
      const auto start = Clock::now();
      paths[p]();
      times[p].push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
  }
  std::vector<double> medians;
  for (auto& t : times) {
    std::sort(t.begin(), t.end());
    medians.push_back(t.empty() ? NAN : t[t.size() / 2]);
  }
  return medians;
}

// The reference path: S = (αQ)Kᵀ, row softmax (max subtracted), O = P V, per head on Eigen.
void eigenMaterialized(const Tensor3& q, const Tensor3& k, const Tensor3& v, float scale,
                       bool causal, Matrix& p, Tensor3& o) {
  for (int head = 0; head < q.h; ++head) {
    p.noalias() = (scale * q.head(head)) * k.head(head).transpose();
    const Eigen::Index n = p.rows();
    for (Eigen::Index i = 0; i < n; ++i) {
      auto row = p.row(i);
      const Eigen::Index visible = causal ? i + 1 : row.size();
      const float m = row.head(visible).maxCoeff();
      row.head(visible) = (row.head(visible).array() - m).exp();
      row.head(visible) /= row.head(visible).sum();
      if (visible < row.size()) row.tail(row.size() - visible).setZero();
    }
    o.head(head).noalias() = p * v.head(head);
  }
}

Tensor3 randomTensor(int h, int rows, int cols, std::uint64_t seed) {
  Tensor3 t(h, rows, cols);
  Rng rng(seed);
  for (float& x : t.data) x = static_cast<float>(rng.normal());
  return t;
}

std::string mib(double bytes) {
  char buf[32];
  if (bytes >= 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
  return buf;
}

}  // namespace

int runOpenClBench(const OpenClBenchOptions& options) {
  opencl::Runtime rt(options.device);
  const int d = 64;
  auto t0 = Clock::now();
  rt.prepare(d, d);
  const double first_build =
      std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::printf("\nOpenCL device: %s (%s-shaped kernels)\n", rt.deviceName().c_str(),
              rt.variant() == opencl::Variant::kCpu ? "CPU" : "GPU");
  std::printf("program build for d_k = 64 (4 programs): %.0f ms this run "
              "(cold without PoCL's kernel cache, warm with it: run with POCL_KERNEL_CACHE=0 "
              "to see the cold figure)\n\n",
              first_build);
  std::printf("| n | h | mask | Eigen ms | Eigen GFLOP/s | tiled ms | tiled GFLOP/s | tiled / Eigen "
              "| fused ms | fused GFLOP/s | fused / Eigen | extra memory Eigen / tiled / fused |\n");
  std::printf("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  std::ofstream csv(options.csv_path);
  csv << "device,n,h,mask,eigen_ms,eigen_gflops,tiled_ms,tiled_gflops,tiled_ratio,fused_ms,"
         "fused_gflops,fused_ratio,eigen_extra_bytes,tiled_extra_bytes,fused_extra_bytes\n";
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  for (int n : options.sizes) {
    for (int h : options.heads) {
      for (bool causal : {false, true}) {
        if (causal && h != 1) continue;  // the causal comparison is made at one head
        const Tensor3 q = randomTensor(h, n, d, 1), k = randomTensor(h, n, d, 2),
                      v = randomTensor(h, n, d, 3);
        Tensor3 q_scaled = q;
        for (float& x : q_scaled.data) x *= scale;
        const double flop = 4.0 * n * n * d * h;
        const double n2 = static_cast<double>(n) * n;
        // Extra memory beyond Q, K, V and O: Eigen holds one head's P (n² floats, reused per
        // head); the tiled path holds S and P for all heads (on CPU devices only in host memory,
        // which the kernel writes in place; GPUs hold a device copy too); the fused path holds Q
        // transposed and L (O(n·d)).
        const double eigen_bytes = n2 * 4;
        const double tiled_bytes = (rt.variant() == opencl::Variant::kCpu ? 2.0 : 4.0) * h * n2 * 4;
        const double fused_bytes = static_cast<double>(h) * n * (d + 1) * 4;
        const bool eigen_fits = n2 * 4 * h <= options.max_materialized_bytes;
        const bool tiled_fits = tiled_bytes <= options.max_materialized_bytes;
        const int runs = n >= 8192 ? options.runs_large : options.runs;
        const opencl::MaskParams mask{causal, 0, 0};

        // Eigen: P for one head at a time. Tiled, what the heatmaps use: outputs, L, S and P,
        // into memory kept between runs (as Eigen keeps its P). Fused: outputs and L only.
        Matrix p;
        Tensor3 o;
        opencl::Attended a;
        if (eigen_fits) {
          p.resize(n, n);
          o = Tensor3(h, n, d);
        }
        const std::vector<double> ms = medianMs(
            runs,
            {eigen_fits ? std::function<void()>(
                              [&] { eigenMaterialized(q, k, v, scale, causal, p, o); })
                        : nullptr,
             tiled_fits
                 ? std::function<void()>([&] { rt.attendInto(q_scaled, k, v, mask, a); })
                 : nullptr,
             [&] { rt.fused(q_scaled, k, v, mask); }});
        const double eigen_ms = ms[0], tiled_ms = ms[1], fused_ms = ms[2];
        auto gflops = [&](double ms) { return flop / (ms * 1e6); };
        auto cell = [](double x, const char* fmt) {
          char buf[32];
          if (std::isnan(x)) return std::string("—");
          std::snprintf(buf, sizeof buf, fmt, x);
          return std::string(buf);
        };
        std::printf("| %d | %d | %s | %s | %s | %s | %s | %s | %.1f | %.1f | %s | %s / %s / %s |\n",
                    n, h, causal ? "causal" : "none", cell(eigen_ms, "%.1f").c_str(),
                    cell(gflops(eigen_ms), "%.1f").c_str(), cell(tiled_ms, "%.1f").c_str(),
                    cell(gflops(tiled_ms), "%.1f").c_str(),
                    cell(eigen_ms / tiled_ms, "%.2f×").c_str(), fused_ms, gflops(fused_ms),
                    cell(eigen_ms / fused_ms, "%.2f×").c_str(),
                    eigen_fits ? mib(eigen_bytes).c_str() : ("needs " + mib(n2 * 4 * h)).c_str(),
                    tiled_fits ? mib(tiled_bytes).c_str() : "skipped",
                    mib(fused_bytes).c_str());
        std::fflush(stdout);
        csv << '"' << rt.deviceName() << "\"," << n << ',' << h << ','
            << (causal ? "causal" : "none") << ',' << eigen_ms << ',' << gflops(eigen_ms) << ','
            << tiled_ms << ',' << gflops(tiled_ms) << ',' << eigen_ms / tiled_ms << ','
            << fused_ms << ',' << gflops(fused_ms) << ',' << eigen_ms / fused_ms << ','
            << eigen_bytes << ',' << tiled_bytes << ',' << fused_bytes << '\n';
      }
    }
  }
  std::printf("\nGFLOP/s count 4·n²·d_k per head (causal too, so skipped blocks show as speed). "
              "CSV: %s\n", options.csv_path.c_str());
  return 0;
}

}  // namespace attnlab::bench
