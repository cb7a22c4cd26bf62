#pragma once
/// \file summary.hpp
/// Per-row summaries of one attention result across its heads, for the analysis plots of the
/// window and the CLI: the entropy of each query row against a uniform row's, the histogram of the
/// scores, the largest weight.

#include <vector>

#include "attnlab/attention.hpp"

namespace attnlab {

/// Bins of a histogram of scores (every head, every visible cell).
struct ScoreHistogram {
  double lo = 0;              ///< Left edge of bin 0, in score units (logits after the scale).
  double hi = 0;              ///< Right edge of the last bin.
  std::vector<double> count;  ///< Cells per bin; empty when no cell is visible.
  long long nonfinite = 0;    ///< Visible cells whose score is ±inf or NaN (in no bin).
};

/// One attention result summarised over its heads.
struct AttentionSummary {
  std::vector<double> row_entropy;      ///< [n_q] entropy H of each query row, nats, mean over heads.
  std::vector<double> row_max_entropy;  ///< [n_q] ln(visible keys): the entropy of a uniform row.
  /// [n_q] heads whose weights in this row are not all finite (a reduced-precision softmax that
  /// overflowed); the row's entropy is then NaN.
  std::vector<int> row_nonfinite_heads;
  ScoreHistogram histogram;             ///< Scores of every head and visible cell.
  double max_weight = 0;                ///< Largest weight of any head and cell.
};

/// Summarises result: row entropies (from result.stats, so every backend's statistics count),
/// ln(visible keys) per row from the mask, and a histogram of the visible scores in `bins` equal
/// bins spanning [min, max] (widened to ±0.5 around a single value). Masked cells never count;
/// a row without visible keys has entropy 0 and maximum entropy 0.
/// Throws Error(kInvalidArgument) when bins < 1 or result.stats does not have one entry per head
/// with n_q rows.
AttentionSummary summarizeAttention(const AttentionResult& result, int bins = 40);

}  // namespace attnlab
