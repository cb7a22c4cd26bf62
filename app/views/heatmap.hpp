#pragma once
/// \file heatmap.hpp
/// The heatmaps: one head, every head in a grid, a model's layers × heads (the model view), their
/// fast weight update, what is under the mouse, the drawn geometry as JSON (--layout-json) and
/// default image sizes. Laid out by heatmap_layout.hpp for the plot's canvas: square cells as
/// large as fit, measured tick labels (every k-th token when they would overlap), an overview of
/// b × b blocks when a token would get less than kMinCellPx, a colour bar that names its scale.

#include <QJsonObject>
#include <QPointF>
#include <QRectF>
#include <functional>
#include <limits>
#include <optional>

#include "attnlab/attention.hpp"
#include "results/attention.hpp"
#include "views/export.hpp"
#include "views/picture.hpp"
#include "views/picture_options.hpp"

class QCustomPlot;

namespace attnlab::views {

/// Draws head `head` (0-based, as in `--head` and the JSON) of result as one heatmap (clearing
/// plot): rows are queries top to bottom, columns are keys left to right with their labels on
/// top, square cells, a colour bar naming the scale, axis titles "query"/"key" ("query (target)",
/// "key (source)" for cross-attention), masked cells in the mask colour with a note, weights
/// printed in the cells when they are large enough (≥ 30 px, at most 12 × 12 tokens), and the
/// title "[model · layer l ·] head 3 · scaled dot-product · d_k = 8 · 11 tokens[ · overview …]
/// [ · causal mask][ · cross-attention][ · note]". Every token is labelled when the labels fit
/// (the tick font shrinks down to 7 pt first), else every k-th ("#12 the").
/// The plot then holds one QCPColorMap (plottable 0) whose key axis is the top axis (plot.xAxis2,
/// columns, range −0.5 … columns − 0.5) and value axis the left one (plot.yAxis, rows, reversed);
/// cell (column j, row i) is data()->cell(j, i), NaN where masked, in the scale's units (weights
/// for linear). In an overview a cell is a block (see layoutJson for its size). A dimension of 1
/// is stored as two identical half cells (QCustomPlot cannot draw a 1-wide map).
/// Token lists must have n_q and n_k entries, or be empty (labels are then the indices).
/// Throws Error(kInvalidArgument) for a bad head, an empty result or token lists of the wrong
/// length.
void drawHeatmap(QCustomPlot& plot, const AttentionResult& result, int head,
                 const QStringList& query_tokens, const QStringList& key_tokens,
                 const RunLabel& label, const PictureOptions& picture = {});

/// Draws every head of result in one grid sharing one colour scale, each map titled "head k":
/// the column count is the one that gives the largest square cells on the canvas; every map is
/// labelled as in drawHeatmap. Plottable k is head k's QCPColorMap (layout as in drawHeatmap).
/// Throws like drawHeatmap.
void drawHeadGrid(QCustomPlot& plot, const AttentionResult& result, const QStringList& query_tokens,
                  const QStringList& key_tokens, const RunLabel& label,
                  const PictureOptions& picture = {});

/// Draws a model view: one square thumbnail per (layer, head) — layers as rows and heads as
/// columns, or transposed when that gives larger thumbnails — sharing one colour scale, with
/// "layer l" and "head k" headers and the tokens listed under the grid. Title: "<model> · L layers
/// × h heads · mechanism · d_k = … · n tokens[ · causal mask]". Plottable r·h + k is layer entry
/// r, head k's QCPColorMap in either orientation. Cross-attention (n_q ≠ n_k: a translator's
/// target × source) draws rectangular thumbnails with `key_tokens` listed for the columns (empty:
/// the keys are `tokens`). Throws Error(kInvalidArgument) when layers is empty, the sizes
/// disagree, or a result is empty.
void drawModelGrid(QCustomPlot& plot, const std::vector<AttentionResult>& layers,
                   const std::vector<int>& layer_indices, const QStringList& tokens,
                   const RunLabel& label, const PictureOptions& picture = {},
                   const QStringList& key_tokens = {});

/// Draws the model view of a long input from its pooled overviews (results::Overview::layers, one per
/// layer in layer_indices' order, all of one block b, heads and size): as drawModelGrid, each
/// thumbnail's cells a whole multiple of b tokens a side, equal to what drawModelGrid draws from
/// the full weights at the same cells (max of the blocks' maxima, or the visible-weighted mean of
/// their means); a note says the layers were pooled while computing. `mask` is the model's
/// (the grey note). The relative and difference colour scales need every weight: the view is
/// drawn on the log scale then, and a note says so. Throws Error(kInvalidArgument) when
/// overviews is empty or the overviews differ in shape.
void drawModelGrid(QCustomPlot& plot, const std::vector<PooledAttention>& overviews,
                   const std::vector<int>& layer_indices, Mask mask, const QStringList& tokens,
                   const RunLabel& label, const PictureOptions& picture = {});

/// The model view of run r: from its pooled overviews when it has them (results::Run::pooled), else
/// from every layer it holds (drawModelGrid with the run's tokens, and its key tokens for a
/// translator's cross-attention). Throws as drawModelGrid.
void drawModelView(QCustomPlot& plot, const results::Run& r, const RunLabel& label,
                   const PictureOptions& picture = {});
/// The layers the model view of r shows: its overviews', else its layers'.
const std::vector<int>& modelViewLayers(const results::Run& r);

/// One cell of a pooled overview as a map of `cell_block` tokens a side draws it (a whole
/// multiple of PooledAttention::block): the largest weight of the blocks it covers, the mean of
/// their visible weights, and their visible pairs (0: every pair masked; max and mean NaN then).
struct PooledCell {
  double max = std::numeric_limits<double>::quiet_NaN();
  double mean = std::numeric_limits<double>::quiet_NaN();
  long long visible = 0;
  bool nonfinite = false;  ///< A covered block holds a weight that is not finite (left out).
};
/// Cell (row, column) of head `head` of pooled at `cell_block` tokens a side. Throws
/// Error(kInvalidArgument) for a head out of range or a cell_block that is not a multiple of the
/// overview's block.
PooledCell pooledCell(const PooledAttention& pooled, int head, int row, int column, int cell_block);

/// A model view in a scrolling panel (the window): drawModelGrid keeps thumbnails of at least
/// `px` px (and, up to kNoPoolTokens tokens, kMinCellPx per token), growing the picture downward
/// past its canvas — heatmapCanvas then gives the height to make the plot. 0 (the default, every
/// export): the picture fits its canvas.
void setMinThumbnail(QCustomPlot& plot, double px);

/// A head grid in a scrolling panel (the window): drawHeadGrid keeps cells of at least `px` px
/// where the canvas's width allows them, in fewer columns, growing the picture downward past its
/// canvas — heatmapCanvas then gives the height to make the plot. 0 (the default, every export):
/// the picture fits its canvas.
void setMinCell(QCustomPlot& plot, double px);

/// Replaces the weights shown by the last drawHeatmap (head ≥ 0) or drawHeadGrid (head = −1)
/// call on plot with result's, and updates the title and the weights printed in cells, without a
/// new layout: the cheap path while only d_k, the scaling, the temperature or the seed change.
/// Returns false, changing nothing, when result does not fit the existing layout (other shape,
/// mask, tokens, canvas, options); then call the draw function. Does not replot.
bool updateWeights(QCustomPlot& plot, const AttentionResult& result, int head,
                   const QStringList& query_tokens, const QStringList& key_tokens,
                   const RunLabel& label, const PictureOptions& picture = {});

/// A cell under a point of a heatmap picture: the map (plottable index), and the query and key
/// tokens (exact tokens also inside an overview's blocks).
struct CellHit {
  int map = -1;
  int query = -1;
  int key = -1;
};
/// The map and tokens at pos (plot pixels), or nullopt outside every map's cells.
std::optional<CellHit> cellAt(const QCustomPlot& plot, const QPointF& pos);
/// The pixel rectangle of query row `query` across map `map` (its block row in an overview), or
/// an empty rect when there is none.
QRectF rowRect(const QCustomPlot& plot, int map, int query);

/// The canvas the heatmap on plot was laid out for (invalid when plot holds no heatmap).
QSize heatmapCanvas(const QCustomPlot& plot);

/// Tokens per cell side of the heatmap on plot: 1 when every token has its cell, b for an
/// overview of b × b blocks, 0 when plot holds no heatmap.
int heatmapBlock(const QCustomPlot& plot);

/// What the last heatmap draw put on plot, in plot pixels: the canvas; per map its cell area,
/// "cell_width" and "cell_height" (measured from the drawn axis rect once the plot has been laid
/// out), rows, columns, block and token counts; every text with its role, rectangle and
/// orientation (tick labels with the token index); the colour bar's rectangle and scale;
/// "pad_from", the first [PAD] query row, when padding rows are hatched. Empty for a plot without
/// a heatmap.
QJsonObject layoutJson(const QCustomPlot& plot);
/// A rectangle as layoutJson writes one: {"x", "y", "width", "height"}, px.
QJsonObject rectJson(const QRectF& r);

/// The colour scale a picture uses: `wanted`, or for kAuto linear when every token has its cell
/// and n_k ≤ kAutoLinearTokens, else log.
ColorScale resolvedScale(ColorScale wanted, int n_k, int block);

/// Replots only the cells of a heatmap picture (its colour maps lie on a buffered layer of their
/// own): after updateWeights, the texts, frames and colour bar need no new painting.
void replotCells(QCustomPlot& plot);

/// A good default image size for a heatmap of n_q × n_k tokens (heads_in_image = 1: cells up to
/// 48 px, each side clamped to [560, 1600] px) or a grid of that many heads (⌈√h⌉ columns,
/// cells up to 32 px, each side clamped to [520, 2600] px). Scale 1.
ImageSize defaultHeatmapSize(int n_q, int n_k, int heads_in_image);

/// A good default image size for drawModelGrid: thumbnails of 60–150 px.
ImageSize defaultModelGridSize(int n_tokens, int layers, int heads);

/// `size` (a model view's default) with its height cut to what `draw` fills at that width: the
/// view is laid out once on a scratch plot of `size` and the blank bands above and below the
/// grid (the layout centres a grid whose thumbnails the width limits) are taken off. At least
/// 420 px; unchanged when nothing would be gained.
ImageSize fitModelGridHeight(ImageSize size, const std::function<void(QCustomPlot&)>& draw);

}  // namespace attnlab::views
