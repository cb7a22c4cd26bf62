#pragma once
/// \file cost_plot.hpp
/// The cost plot: FLOPs, bytes and measured times of attention against n.

#include <QString>
#include <utility>
#include <vector>

#include "attnlab/cost.hpp"

class QCustomPlot;

namespace attnlab::views {

/// What the cost plot shows: one layer's shape, the n of the table, and measured times.
struct CostPlotData {
  CostShape shape;                ///< d_model, h, G, d_k, d_v, layers (n is ignored).
  std::vector<int> n;             ///< The table's n (marked points); the curves span them.
  int current_n = 0;              ///< > 0: a dotted line at the current text's n.
  /// Measured milliseconds per path name ("cpu reference", "opencl tiled", "opencl fused") at
  /// the table's n (NaN: not measured); empty: nothing measured.
  std::vector<std::pair<QString, std::vector<double>>> measured;
  QString device;                 ///< Where the times were measured.
  QString model;                  ///< The model's name when the shape is a model's.
};
/// Draws the cost plot: FLOPs of the projections and of the attention against n on log–log axes
/// with the crossover marked (n = 2·d_model for multi-head attention, "n = …" for fewer K/V
/// heads), the bytes of P and of the KV cache (MHA, GQA when G ≠ h, MQA) against n, and, when
/// measured, the time of each path against n. Legend under each panel. Throws
/// Error(kInvalidArgument) for a bad shape or an empty n.
void drawCost(QCustomPlot& plot, const CostPlotData& data);

}  // namespace attnlab::views
