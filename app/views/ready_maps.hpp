#pragma once
/// \file ready_maps.hpp
/// A heatmap's cells filled off the GUI thread (issue 26: the window's worst GUI-thread gap
/// while d_k is dragged). The window takes the plan of what it drew last (mapPlan: each map's
/// geometry and the colour scale); its compute worker fills every map of the next result for that
/// plan (fillReadyMaps: the pooling of the weights into cells and the value → colour lookup of
/// every cell, into the image QCPColorMap would make of them); updateWeights then copies the
/// cells in and the GUI thread only draws the ready image. Pictures are pixel-identical to
/// those filled on the GUI thread (tests/app/test_ready_maps.cpp).

#include <QImage>
#include <memory>
#include <vector>

#include "attnlab/attention.hpp"
#include "views/heatmap.hpp"
#include "views/heatmap_paint.hpp"

class QCustomPlot;

namespace attnlab::views {

/// What the maps of a drawn heatmap picture need for their cells to be filled elsewhere:
/// immutable once made, safe to read on any thread.
struct MapPlan {
  /// −1: map k shows head k (drawHeadGrid); h ≥ 0: the one map shows head h (drawHeatmap).
  int head = -1;
  std::vector<MapGeometry> maps;  ///< In plottable order.
  ScaleSpec scale;                ///< The picture's resolved colour scale.
};

/// True when plans a and b fill the same cells with the same colours (heads, geometry of every
/// map, scale and gradient).
bool sameCells(const MapPlan& a, const MapPlan& b);

/// The plan of the heatmap that drawHeatmap (head ≥ 0) or drawHeadGrid (head = −1) last drew on
/// plot; null when plot holds none (or one of another kind, a difference's range follows its data).
std::shared_ptr<const MapPlan> mapPlan(const QCustomPlot& plot, int head);

/// One map's cells, filled for a plan: QCPColorMap's data, the marks drawn over it, and the image
/// QCPColorMap::updateMapImage (QCustomPlot 2.1) makes of them for a heatmap's axes (key axis
/// horizontal, no interpolation, a linear data range): ARGB32 premultiplied, each row coloured
/// by the scale's gradient, scaled up with FastTransformation to at least 100 px per side.
struct ReadyCells {
  std::unique_ptr<QCPColorMapData> data;
  QImage image;
  std::vector<QPoint> nonfinite, dropped;
};

/// A result's maps filled for `plan` (the plan kept beside them).
struct ReadyMaps {
  std::shared_ptr<const MapPlan> plan;
  std::vector<ReadyCells> maps;  ///< In plottable order.
};

/// Fills every map of plan with result's weights (mapValues and the image; any thread, reads only
/// its arguments). Null when result does not fit the plan (heads, tokens).
std::shared_ptr<const ReadyMaps> fillReadyMaps(const AttentionResult& result,
                                               std::shared_ptr<const MapPlan> plan);

/// updateWeights (heatmap.hpp) with `ready`: the maps already filled from result for this
/// picture's plan (the window's worker), copied in instead of filled here when their plan is the
/// picture's (else ignored, as when ready is null). Returns and changes what updateWeights does.
bool updateWeights(QCustomPlot& plot, const AttentionResult& result, int head,
                   const QStringList& query_tokens, const QStringList& key_tokens,
                   const RunLabel& label, const PictureOptions& picture, const ReadyMaps* ready);

}  // namespace attnlab::views
