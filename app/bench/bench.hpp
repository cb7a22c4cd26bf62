#pragma once
// Pieces of attention-lab-bench.

#include "attnlab/cpu_path.hpp"
#include <string>
#include <vector>

namespace attnlab::bench {

/// Settings of the OpenCL comparison.
struct OpenClBenchOptions {
  int device = 0;
  std::vector<int> sizes = {512, 1024, 2048, 4096, 8192, 16384};
  std::vector<int> heads = {1, 8};
  int runs = 7;        ///< Timed rounds after one warm-up (median reported).
  int runs_large = 5;  ///< Runs at n ≥ 8192.
  double max_materialized_bytes = 6.0 * 1024 * 1024 * 1024;  ///< Skip paths needing more.
  std::string csv_path = "attention-lab-bench.csv";
  /// The sliding-window rows (issue 12): n, heads and W; window_n = 0 leaves them out.
  int window_n = 16384;
  int window_heads = 8;
  int window = 256;
  int window_runs = 3;  ///< Timed rounds of the window table (dense fused at n = 16384: ~4 s).
};

/// Prints the Eigen / tiled / fused table and writes the CSV, then the sliding-window table:
/// dense fused against windowed fused at window_n tokens, with the FMA peak measured in the same
/// run and each kernel's fraction of it. Returns an exit code.
int runOpenClBench(const OpenClBenchOptions& options);

/// Settings of the KV-cache decoding table (decode_bench.cpp).
struct DecodeBenchOptions {
  std::vector<int> sizes = {256, 1024, 4096};
  int heads = 8;
  int kv_heads = 8;     ///< G (8 = multi-head; 2 = GQA; 1 = MQA).
  int d_k = 64;
  int measure_every_up_to = 512;  ///< Up to this n the recompute side times every step.
  int samples = 24;     ///< Beyond it, this many steps evenly spaced (trapezoid rule).
};

/// Prints decoding n tokens with a KV cache against recomputing the causal prefix every step,
/// for each n of options.sizes. Returns an exit code.
int runDecodeBench(const DecodeBenchOptions& options);

/// This machine's float32 FMA peak (fma_peak.cpp).
struct FmaPeak {
  double gflops = 0;  ///< Best of the tries, GFLOP/s (2 flops per FMA and lane).
  int threads = 0;    ///< OpenMP threads that ran the chains (all cores).
  int lanes = 0;      ///< Floats per vector (16 with AVX-512, 8 with AVX2, 4 on the baseline).
  CpuPath path = CpuPath::kBaseline;  ///< The CPU path whose chains ran.
  float sink = 0;     ///< The chains' sum (printed nowhere; keeps the work from being dropped).
};
/// Runs independent FMA chains of `path` on every core for about `seconds` per try; the best of
/// `tries`. Throws Error(kInvalidArgument) when this CPU lacks the path.
FmaPeak measureFmaPeak(CpuPath path, double seconds = 0.3, int tries = 5);
/// The same on the widest path this CPU has (the peak the OpenCL device on the CPU can reach).
FmaPeak measureFmaPeak(double seconds = 0.3, int tries = 5);

/// The dense products of the model passes at the models' shapes (576×576, 576×1536, 1536×576,
/// 384×1536, 1536×384 at 32–512 rows) on the CPU path in use: GFLOP/s beside the FMA peak of that
/// path and beside Eigen's GEMM (compiled for the build's target) in the same run (dense_bench.cpp).
int runDenseBench(const std::vector<int>& rows);

/// Generation through the KV cache with every head's row kept (generate_bench.cpp): for each
/// prompt length, the prefill, the time per generated token (medians of `rounds` after a warm-up)
/// and the output layer's share; json: one line per prompt with the ids generated (prompt
/// first), for tests/reference/bench_models.py --generate. int8_activations: the steps' one-row
/// products with int8 activations (ModelRunOptions::int8_activations). Returns an exit code.
int runGenerateBench(const std::string& path, const std::vector<int>& prompts, int new_tokens,
                     int rounds, bool json, bool int8_activations = false);

/// attention-lab-bench --model M --ablation [--tokens N]: the kept pass, then a head ablated at
/// the last, the middle and the first layer with the pass resumed there (what the window does
/// when a head is toggled), medians of `rounds` in ms as a table. Returns an exit code.
int runAblationBench(const std::string& model_path, int tokens, int rounds);

}  // namespace attnlab::bench
