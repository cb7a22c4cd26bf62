#pragma once
/// \file sinks_plot.hpp
/// The attention-sink experiment (Xiao et al. 2023, StreamingLLM, Figure 3's question): the
/// perplexity of one text under a sliding-window KV cache of W tokens, with and without the first
/// S tokens kept, against the full cache; beside it the heads' sink mass (mean weight on
/// position 0) as a layers × heads matrix.

#include <QString>
#include <utility>
#include <vector>

#include "attnlab/tensor.hpp"
#include "results/score.hpp"

class QCustomPlot;

namespace attnlab::views {

/// What the sink plot shows.
struct SinkPlotData {
  QString model;                 ///< The model's name.
  int tokens = 0;                ///< The text's length in tokens.
  double full_perplexity = 0;    ///< Under the full cache (a dashed line).
  std::vector<int> windows;      ///< W, the x axis (ascending).
  /// One curve per S: (S, perplexity at each window; NaN where not measured).
  std::vector<std::pair<int, std::vector<double>>> curves;
  Matrix sink_mass;              ///< [layers, heads], under the full cache; empty: no panel.
};

/// The sink plot of a scored text: its windows, one curve per sink count, the full cache and the
/// heads' sink mass under it.
SinkPlotData sinkPlotData(const results::Scored& scored);

/// Draws perplexity against W (log₂ axis; the perplexity axis logarithmic), one curve per S and
/// the full cache dashed, legend under the panel; and, when given, the sink-mass matrix (layers as
/// rows, heads as columns, viridis 0 … 1). Clears plot first.
void drawSinks(QCustomPlot& plot, const SinkPlotData& data);

}  // namespace attnlab::views
