#pragma once
/// \file saturation_plot.hpp
/// The softmax-saturation plot: max weight and entropy against d_k, scaled and unscaled, and its
/// d_k marker that moves without a redraw.

#include <optional>

#include "attnlab/saturation.hpp"

class QCustomPlot;

namespace attnlab::views {

/// Draws the saturation plot: x = d_k on a log2 axis (ticks 1 2 4 … 1024), y = mean max weight
/// (blue) and mean normalised entropy (orange) in [0, 1], scaled (solid) and unscaled (dashed)
/// curves from `model` (Monte-Carlo; the current scaling's pair drawn thicker), the sentence's own
/// points when `sentence` is given (filled = scaled, hollow = unscaled), and a dotted vertical
/// line at current_d_k (skipped when < 1) with emphasised points and values where it crosses the
/// current scaling's curves, labelled "d_k = 64 (unscaled)". Legend below the axes.
/// Graphs 0–3 are the model curves (max scaled, max unscaled, entropy scaled, entropy unscaled);
/// with a sentence, graphs 4–7 are its points and graph 8 the legend key for them.
/// plot.xAxis / plot.yAxis / plot.legend point at the new axes and legend.
void drawSaturation(QCustomPlot& plot, const SaturationAnalysis& model,
                    const std::optional<SaturationAnalysis>& sentence, int current_d_k,
                    bool current_scaled);

/// Moves the d_k marker of the last drawSaturation on plot to current_d_k (line, points, values,
/// label) without drawing the curves again; the marker lies on a buffered layer of its own, so
/// replotMarker() redraws only it. Returns false, changing nothing, when the curves were drawn
/// for the other scaling (whose pair is drawn thick) or d_k lies outside the axis: then call
/// drawSaturation.
bool moveSaturationMarker(QCustomPlot& plot, int current_d_k, bool current_scaled);
/// Replots only the marker layer of a saturation plot (the whole plot when there is none).
void replotMarker(QCustomPlot& plot);

}  // namespace attnlab::views
