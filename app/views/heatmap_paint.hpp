#pragma once
/// \file heatmap_paint.hpp
/// Internal to app/views: what the heatmap pictures share — colour scales, the cells of a map
/// (pooled into blocks for an overview), the decoration item that draws every text, frame and the
/// colour bar from a HeatmapLayout, and the plumbing that puts maps at the layout's pixels.

#include <qcustomplot.h>

#include <QPointer>
#include <algorithm>
#include <utility>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/overview.hpp"
#include "views/heatmap_layout.hpp"
#include "views/picture_options.hpp"

namespace attnlab::views {

/// A resolved colour scale: the transform from a weight to the map's value, its range, the
/// gradient and the colour bar's labels.
struct ScaleSpec {
  ColorScale scale = ColorScale::kLinear;  ///< Never kAuto.
  Pool pool = Pool::kMax;
  bool pooled = false;     ///< Cells are blocks.
  double lo = 0, hi = 1;   ///< Range of map values: weights, log10 weights or log2 (n·p).
  int n_k = 1;
  QCPColorGradient gradient;
  BarLabels bar;

  /// The map value of a weight p in a row with `visible` unmasked keys (already pooled: for the
  /// relative scale the caller passes n·p as p and visible = 1).
  double value(double p) const;
  /// The gradient's colour for map value v (NaN: masked).
  QColor color(double v) const;
};

/// The scale for `wanted` (kAuto resolved with resolvedScale) at n_k keys and `block` tokens per
/// cell, its bar labels translated. `extent` is kDifference's largest |Δ| (the range becomes
/// ±extent rounded up to 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten).
ScaleSpec makeScale(ColorScale wanted, Pool pool, int n_k, int block, double extent = 1.0);

/// The largest |weight| of the given heads of result (the extent of a difference map).
double largestMagnitude(const AttentionResult& result);

/// The title parts a picture on plot starts with (PictureTitle::lead) or uses instead of the
/// run's (PictureTitle::replace, when not empty: returns it), followed by `rest`; run_parts are
/// the run's own parts (model … d_k).
QStringList withPictureTitle(const QCustomPlot& plot, const QStringList& run_parts, const QStringList& rest);
/// Sets the colour bar's title of scale from plot's PictureTitle::bar_title, when given.
void applyBarTitle(const QCustomPlot& plot, ScaleSpec& scale);

/// The cells of one map as fillMap computes them, kept apart from any QCustomPlot object so any
/// thread can compute them (ready_maps.hpp): key_cells × query_cells values in the scale's units,
/// cell (c, r) at values[r · key_cells + c] (a dimension of 1 stored as two identical halves), the
/// data ranges, and the cells marked over the colours.
struct MapValues {
  int key_cells = 0, query_cells = 0;
  QCPRange key_range, value_range;
  std::vector<double> values;
  std::vector<QPoint> nonfinite;  ///< Cells (key cell, query cell) with a weight that is not finite.
  std::vector<QPoint> dropped;    ///< Cells (key, query) dropped by dropout (block 1 only).
};

/// Head `head` of result as laid out by `geometry` (blocks pooled with scale.pool: max or mean
/// over the block's visible cells; a block with no visible cell is NaN). Reads only its
/// arguments: safe on any thread.
MapValues mapValues(const AttentionResult& result, int head, const MapGeometry& geometry, const ScaleSpec& scale);

/// Head `head` of pooled overviews as laid out by `geometry`, whose block must be a whole
/// multiple of pooled.block: each cell combines the pooled blocks it covers — the largest of their
/// maxima, or the mean of their means weighted by their visible pairs — so that it equals what
/// mapValues gives for the full weights at the same geometry (linear and log scales; the caller
/// resolves the relative and difference scales, which need every weight, beforehand). Throws
/// Error(kInvalidArgument) for a head out of range or a geometry that does not fit pooled.
MapValues mapValues(const PooledAttention& pooled, int head, const MapGeometry& geometry,
                    const ScaleSpec& scale);

/// Fills map's cells with mapValues(result, head, geometry, scale) (map's data takes the
/// geometry's size and ranges).
void fillMap(QCPColorMap& map, const AttentionResult& result, int head, const MapGeometry& geometry,
             const ScaleSpec& scale);
/// Fills map's cells with values computed elsewhere (mapValues of either kind).
void fillMap(QCPColorMap& map, MapValues values);

struct ReadyCells;
/// Puts cells filled elsewhere (fillReadyMaps) on map, a heatmap's map (addMap): its data
/// becomes a copy of cells.data and it draws cells.image instead of colouring the cells itself,
/// until fillMap fills it again. False (map unchanged) when map is not a heatmap's.
bool setReadyCells(QCPColorMap& map, const ReadyCells& cells);
/// True when map draws an image filled elsewhere (setReadyCells).
bool drawsReadyImage(const QCPColorMap& map);

/// The fonts of a picture on plot (its font and font scale); grid = smaller texts.
LayoutFonts pictureFonts(const QCustomPlot& plot, bool grid, int n_tokens);

/// Draws a HeatmapLayout's texts, map frames and colour bar; one per heatmap picture (item 0).
class HeatmapDecor : public QCPAbstractItem {
  Q_OBJECT
 public:
  HeatmapDecor(QCustomPlot* plot, HeatmapLayout layout, ScaleSpec scale);
  double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }
  const HeatmapLayout& layout() const { return layout_; }
  HeatmapLayout& layout() { return layout_; }
  const ScaleSpec& scale() const { return scale_; }
  void setScale(ScaleSpec scale) { scale_ = std::move(scale); }
  /// The axis rect of each map, in map order (for the drawn cell sizes).
  std::vector<QPointer<QCPAxisRect>> rects;
  /// What the picture's layout depends on besides the weights (see updateWeights).
  QString key;

 protected:
  void draw(QCPPainter* painter) override;

 private:
  HeatmapLayout layout_;
  ScaleSpec scale_;
};

/// Draws the texts of a HeatmapDecor that change with the weights — the title (d_k, scaling), the
/// weights printed in cells and a model's next-token predictions — on the cells' buffered layer,
/// so replotCells() repaints them with the cells; the decor draws everything else.
class ChangingTexts : public QCPAbstractItem {
  Q_OBJECT
 public:
  ChangingTexts(QCustomPlot* plot, HeatmapDecor* decor);
  double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }
  /// True for the roles this item draws ("title", "cell_value", "next_tokens").
  static bool draws(const DrawnText& text);

 protected:
  void draw(QCPPainter* painter) override;

 private:
  QPointer<HeatmapDecor> decor_;
};

/// Clears plot and gives it one inset layout that spans the canvas, for maps placed by pixels.
QCPLayoutInset* startPicture(QCustomPlot& plot);
/// Adds a map at geometry.cells (axes hidden; key axis = top, value axis = left, reversed) with
/// the scale's gradient and range; returns the colour map.
QCPColorMap* addMap(QCustomPlot& plot, QCPLayoutInset* inset, const MapGeometry& geometry,
                    const ScaleSpec& scale, const QString& name);
/// The decoration item of plot's heatmap, or null.
HeatmapDecor* decorOf(const QCustomPlot& plot);

/// The tokens [first, last) that cell `c` of a map holds, `block` tokens per cell out of n.
inline std::pair<int, int> blockRange(int c, int block, int n) {
  return {c * block, std::min(n, (c + 1) * block)};
}

/// "#i token" labels: tokens elided to 14 characters, white space made visible; indices when
/// `tokens` is empty. Throws Error(kInvalidArgument) when tokens has neither 0 nor n entries.
QStringList tickLabels(const QStringList& tokens, int n, const char* what);

/// Checks that result has weights of its shape; throws Error(kInvalidArgument).
void checkResult(const AttentionResult& result);

/// True when any cell of result is masked.
bool anyMasked(const AttentionResult& result);
/// The grey legend line of a model's generation under a KV-cache window (grownAttention's
/// pattern: window W, global S = the sinks): "grey = masked: a later key (causal) or one the KV
/// cache evicted (it keeps the last W tokens and the first S)".
QString kvCacheMaskedNote(const MaskPattern& pattern);

}  // namespace attnlab::views
