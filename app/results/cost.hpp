#pragma once
/// \file cost.hpp
/// The result of the cost mode (run::cost): what one attention layer of a shape costs as n grows
/// (attnlab/cost.hpp), the curves a picture draws, and, when asked, this machine's measured times
/// (attnlab/timing.hpp). What `attention-lab-cli cost`, the window's cost panel and the lessons'
/// cost numbers read.

#include <QString>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/cost.hpp"
#include "attnlab/timing.hpp"

namespace attnlab::results {

/// The measured times of this machine's paths (CPU reference; OpenCL tiled and fused when a
/// device is there), per n of the table.
struct CostTimes {
  std::vector<TimedPath> paths;
  std::vector<std::vector<PathTime>> rows;  ///< Per n, per path.
  std::string device;                       ///< "CPU; OpenCL: <device>".
  std::string opencl_note;                  ///< Why OpenCL was not measured (empty when it was).
};

/// The counts of one shape sampled over n for a log–log picture: the formulas are polynomials in
/// n, so every point is exact.
struct CostCurves {
  std::vector<double> n;
  std::vector<double> projection_flops, attention_flops, score_matrix_bytes;
  std::vector<double> kv_cache_bytes, kv_cache_bytes_mha, kv_cache_bytes_mqa;
};

struct CostTable {
  CostShape shape;     ///< d_model, h, K/V heads, d_k, d_v, layers (n of each row below).
  QString model;       ///< The model's name (empty in the synthetic lab).
  std::vector<int> n;  ///< The table's token counts.
  std::vector<AttentionCost> rows;  ///< One per n.
  AttentionCost per_token;          ///< The counts at n = 1 (parameters, the seed's counts).
  double crossover = 0;             ///< n where attention's FLOPs pass the projections'.
  int current_n = 0;                ///< The text's tokens marked on the picture (0: none).
  AttentionCost current;            ///< The counts at current_n (zero when it is 0).
  CostCurves curves;                ///< Over the table's range, the crossover and current_n.
  std::optional<CostTimes> measured;
};

}  // namespace attnlab::results
