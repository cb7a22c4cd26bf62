#pragma once
// Pieces of attention-lab-bench.

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
};

/// Prints the Eigen / tiled / fused table and writes the CSV. Returns an exit code.
int runOpenClBench(const OpenClBenchOptions& options);

}  // namespace attnlab::bench
