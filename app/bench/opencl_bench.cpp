// attention-lab-bench, OpenCL part: Eigen materialised (the reference) vs OpenCL tiled
// materialised vs OpenCL fused, as a table on stdout and a CSV; then the sliding-window table
// (dense fused vs windowed fused, GFLOP/s on the key blocks each visits, fractions of the FMA
// peak measured in the same run).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "attnlab/cost.hpp"
#include "attnlab/error.hpp"
#include "attnlab/spec.hpp"
#include "attnlab/timing.hpp"
#include "bench/bench.hpp"

namespace attnlab::bench {

namespace {

std::string mib(double bytes) {
  char buf[32];
  if (bytes >= 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
  return buf;
}

// (query, key) pairs the fused kernel computes: per block of `rows` queries (16 lanes of a
// work-item in the CPU-shaped kernel, BQ ≤ 64 work-items in the GPU-shaped one) every key from
// the first row's visible span start to the last row's end (MaskPattern::span), for every row
// of the block. Dense causal visits the blocks up to the diagonal; a window of W about n·(W + 16)
// (causal) or n·(2W + 15) (not).
double visitedPairs(int n, int rows, bool causal, int window) {
  MaskPattern pattern;
  pattern.causal = causal;
  pattern.window = window;
  double pairs = 0;
  for (int i0 = 0; i0 < n; i0 += rows) {
    const int last = std::min(n, i0 + rows) - 1;
    pairs += double(last - i0 + 1) * (pattern.span(last, n).second - pattern.span(i0, n).first);
  }
  return pairs;
}

// The sliding-window table (issue 12): dense fused and windowed fused, causal and not.
void runWindowBench(AttentionTimer& timer, const OpenClBenchOptions& options) {
  const int n = options.window_n, h = options.window_heads, w = options.window, d = 64;
  const int rows = timer.cpuShapedKernels() ? 16 : 64;
  const int dense_runs = options.window_runs, windowed_runs = 5 * options.window_runs;
  std::printf(
      "\nSliding window: n = %d, h = %d, d_k = 64, W = %d, the fused kernel dense and windowed, "
      "medians of %d (dense) and %d (windowed) after a warm-up.\n\n",
      n, h, w, dense_runs, windowed_runs);
  // The FMA peak is measured before and after the kernels (a shared machine's load moves it);
  // the larger of the two is the reference.
  const FmaPeak before = measureFmaPeak();
  struct Row {
    bool causal;
    int window;
    double ms, pairs, gflops, dense_gflops, dense_ms;
  };
  std::vector<Row> table;
  for (const bool causal : {false, true}) {
    double dense_ms = 0, dense_gflops = 0;
    for (const int window : {0, w}) {
      TimingCase c;
      c.n = n;
      c.heads = h;
      c.d_k = d;
      c.causal = causal;
      c.window = window;
      const std::vector<PathTime> t = timer.time(c, {TimedPath::kOpenClFused},
                                                 window ? windowed_runs : dense_runs, INFINITY);
      const double ms = t.front().median_ms;
      const double pairs = visitedPairs(n, rows, causal, window);
      const double gflops = 4.0 * d * h * pairs / (ms * 1e6);  // Q Kᵀ and P V, 2 per FMA
      if (window == 0) dense_ms = ms, dense_gflops = gflops;
      table.push_back({causal, window, ms, pairs, gflops, dense_gflops, dense_ms});
    }
  }
  const FmaPeak after = measureFmaPeak();
  const double peak = std::max(before.gflops, after.gflops);
  std::printf(
      "| mask | window | fused ms | visited pairs | GFLOP/s on visited blocks | of FMA peak | "
      "GFLOP/s vs dense | dense ms / windowed ms |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& r : table)
    std::printf("| %s | %s | %.1f | %.3g | %.1f | %.0f %% | %.0f %% | %.1f× |\n",
                r.causal ? "causal" : "none", r.window ? std::to_string(r.window).c_str() : "dense",
                r.ms, r.pairs, r.gflops, 100 * r.gflops / peak, 100 * r.gflops / r.dense_gflops,
                r.dense_ms / r.ms);
  std::printf(
      "\nFMA peak measured in this run: %.1f GFLOP/s before the kernels, %.1f after (%d threads, "
      "%d-float FMA chains, best of 5 tries each; the larger is the reference). Visited pairs: "
      "per block of %d queries, every key of the block's span (the kernel's work; masked keys "
      "within a visited block count).\n",
      before.gflops, after.gflops, before.threads, before.lanes, rows);
}

}  // namespace

int runOpenClBench(const OpenClBenchOptions& options) {
  // The engine's timer (attnlab/timing.hpp) runs the paths: the same code and schedule as
  // attention-lab-cli cost --measure, so both report the same figures for the same case.
  AttentionTimer timer(true, options.device);
  if (!timer.hasOpenCl()) throw Error(ErrorCode::kBackend, timer.openClUnavailable());
  const int d = 64;
  const double first_build = timer.prepare(d);
  std::printf("\nOpenCL device: %s (%s-shaped kernels)\n", timer.openClDevice().c_str(),
              timer.cpuShapedKernels() ? "CPU" : "GPU");
  std::printf(
      "program build for d_k = 64 (4 programs): %.0f ms this run "
      "(cold without PoCL's kernel cache, warm with it: run with POCL_KERNEL_CACHE=0 "
      "to see the cold figure)\n\n",
      first_build);
  std::printf(
      "| n | h | mask | Eigen ms | Eigen GFLOP/s | tiled ms | tiled GFLOP/s | tiled / Eigen "
      "| fused ms | fused GFLOP/s | fused / Eigen | extra memory Eigen / tiled / fused |\n");
  std::printf("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  std::ofstream csv(options.csv_path);
  csv << "device,n,h,mask,eigen_ms,eigen_gflops,tiled_ms,tiled_gflops,tiled_ratio,fused_ms,"
         "fused_gflops,fused_ratio,eigen_extra_bytes,tiled_extra_bytes,fused_extra_bytes\n";
  for (int n : options.sizes) {
    for (int h : options.heads) {
      for (bool causal : {false, true}) {
        if (causal && h != 1) continue;  // the causal comparison is made at one head
        TimingCase c;
        c.n = n;
        c.heads = h;
        c.d_k = d;
        c.causal = causal;
        // GFLOP/s count Q Kᵀ and P V: 4·n²·d_k per head (attnlab/cost.hpp).
        CostShape shape;
        shape.n = n;
        shape.heads = h;
        shape.d_k = d;
        shape.d_model = h * d;
        const double flop = attentionCost(shape).attentionFlops();
        const double n2 = static_cast<double>(n) * n;
        // Extra memory beyond Q, K, V and O: Eigen holds one head's P (n² floats, reused per
        // head); the tiled path holds S and P for all heads (on CPU devices only in host memory,
        // which the kernel writes in place; GPUs hold a device copy too); the fused path holds Q
        // transposed and L (O(n·d)). Eigen is run while P for every head would fit.
        const double eigen_bytes = timer.extraBytes(TimedPath::kEigenBaseline, c);
        const double tiled_bytes = timer.extraBytes(TimedPath::kOpenClTiled, c);
        const double fused_bytes = timer.extraBytes(TimedPath::kOpenClFused, c);
        const bool eigen_fits = n2 * 4 * h <= options.max_materialized_bytes;
        const bool tiled_fits = tiled_bytes <= options.max_materialized_bytes;
        const int runs = n >= 8192 ? options.runs_large : options.runs;
        std::vector<TimedPath> paths;
        if (eigen_fits) paths.push_back(TimedPath::kEigenBaseline);
        if (tiled_fits) paths.push_back(TimedPath::kOpenClTiled);
        paths.push_back(TimedPath::kOpenClFused);
        const std::vector<PathTime> times = timer.time(c, paths, runs, INFINITY);
        auto msOf = [&times](TimedPath path) {
          for (const PathTime& t : times)
            if (t.path == path && t.ran) return t.median_ms;
          return static_cast<double>(NAN);
        };
        const double eigen_ms = msOf(TimedPath::kEigenBaseline),
                     tiled_ms = msOf(TimedPath::kOpenClTiled),
                     fused_ms = msOf(TimedPath::kOpenClFused);
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
                    tiled_fits ? mib(tiled_bytes).c_str() : "skipped", mib(fused_bytes).c_str());
        std::fflush(stdout);
        csv << '"' << timer.openClDevice() << "\"," << n << ',' << h << ','
            << (causal ? "causal" : "none") << ',' << eigen_ms << ',' << gflops(eigen_ms) << ','
            << tiled_ms << ',' << gflops(tiled_ms) << ',' << eigen_ms / tiled_ms << ',' << fused_ms
            << ',' << gflops(fused_ms) << ',' << eigen_ms / fused_ms << ',' << eigen_bytes << ','
            << tiled_bytes << ',' << fused_bytes << '\n';
      }
    }
  }
  if (!options.sizes.empty())
    std::printf(
        "\nGFLOP/s count 4·n²·d_k per head (causal too, so skipped blocks show as speed). "
        "CSV: %s\n",
        options.csv_path.c_str());
  if (options.window_n > 0) runWindowBench(timer, options);
  return 0;
}

}  // namespace attnlab::bench
