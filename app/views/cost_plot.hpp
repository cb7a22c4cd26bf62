#pragma once
/// \file cost_plot.hpp
/// The cost plot: FLOPs, bytes and measured times of attention against n, drawn from the cost
/// mode's table (run::cost).

#include <QString>
#include <utility>
#include <vector>

#include "attnlab/cost.hpp"
#include "results/cost.hpp"

class QCustomPlot;

namespace attnlab::views {

/// Draws the cost plot: FLOPs of the projections and of the attention against n on log–log axes
/// with the crossover marked (n = 2·d_model for multi-head attention, "n = …" for fewer K/V
/// heads), the bytes of P and of the KV cache (MHA, GQA when G ≠ h, MQA) against n, and, when
/// measured, the time of each path against n. Legend under each panel. Throws
/// Error(kInvalidArgument) for an empty table.
void drawCost(QCustomPlot& plot, const results::CostTable& table);

}  // namespace attnlab::views
