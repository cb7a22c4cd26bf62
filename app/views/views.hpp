#pragma once
/// \file views.hpp
/// The pictures: heatmaps (one head, every head in a grid, a model's layers × heads), the
/// softmax-saturation plot and the analysis plots (row entropy, score histogram, one row's
/// softmax), drawn into a QCustomPlot so the CLI (offscreen) and the window share one drawing
/// code; plus image export (PNG, SVG, PDF) and the drawn geometry as JSON (--layout-json).
///
/// Heatmaps are laid out by heatmap_layout.hpp for the plot's canvas: square cells as large as
/// fit, measured tick labels (every k-th token when they would overlap), an overview of b × b
/// blocks when a token would get less than kMinCellPx, and a colour bar that names its scale.

#include <QColor>
#include <QCoreApplication>
#include <QJsonObject>
#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/cost.hpp"
#include "attnlab/difference.hpp"
#include "attnlab/head_similarity.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/saturation.hpp"
#include "attnlab/spec.hpp"
#include "attnlab/summary.hpp"
#include "run/run.hpp"
#include "views/picture_options.hpp"

class QCustomPlot;
class QCPColorGradient;
class QImage;

namespace attnlab::views {

/// Text drawn in the pictures (titles, axis names, legends), translated in context
/// "attnlab::views" when the application has installed a translator (the window's Chinese UI);
/// the CLI installs none and draws English.
inline QString viewText(const char* source) {
  return QCoreApplication::translate("attnlab::views", source);
}

/// The perceptually uniform colour map used for attention weights (stops sampled from matplotlib's
/// viridis, van der Walt & Smith 2015). t in [0, 1] → dark purple … yellow.
QColor viridis(double t);
/// viridis as a QCPColorGradient for QCPColorMap; NaN cells (masked) draw in kMaskedColor.
QCPColorGradient viridisGradient();
/// The diverging map of the "relative to uniform" scale: blue (below uniform) … near-white
/// (uniform) … red (above), ColorBrewer RdBu (Harrower & Brewer 2003); NaN in kMaskedDarkColor.
QCPColorGradient divergingGradient();
/// Colour of masked cells: a light grey outside the viridis range, so a masked cell is never
/// mistaken for a weight of 0 (dark purple).
inline const QColor kMaskedColor{0xd4, 0xd4, 0xd4};
/// Masked cells on the diverging scale, whose middle is near-white.
inline const QColor kMaskedDarkColor{0x9c, 0x9c, 0x9c};
/// The hatching over [PAD] query rows (key padding), dark enough to show on every colour.
inline const QColor kPaddingHatchColor{0xff, 0xff, 0xff, 0xc8};

/// Cells whose weight is ±inf or NaN (a reduced-precision or naive softmax overflowed, issue 13):
/// magenta, outside both the viridis and the diverging palettes and never the masked grey.
inline const QColor kNonfiniteColor{0xe6, 0x00, 0x7e};
/// The × drawn over a cell that dropout zeroed (issue 13): black under white, seen on any colour.
inline const QColor kDroppedMarkColor{0xff, 0xff, 0xff};

/// One next-token prediction as a picture shows it.
struct ShownPrediction {
  QString label;            ///< The token as the model's labels show it ("␣because").
  double probability = 0;   ///< In [0, 1].
};

/// What a picture of a pretrained model says besides its weights: which query heads share a K/V
/// head (grouped-query attention, Ainslie et al. 2023, §2), the float32 KV cache per token that
/// saves, and the model's most probable next tokens after the last position.
struct ModelFacts {
  /// For each query head, the K/V head it reads (ModelRun::kv_head, ⌊i·G/h⌋). The groups are
  /// marked (frame colours, and in the model view one labelled box per group) only when there are
  /// fewer K/V heads than query heads; empty = nothing marked.
  std::vector<int> kv_head;
  long long kv_cache_bytes = 0;      ///< Bytes per token of this model's KV cache; 0 = not said.
  long long mha_kv_cache_bytes = 0;  ///< The same with one K/V head per query head.
  std::vector<ShownPrediction> next_tokens;  ///< Most probable first; empty = none drawn.

  /// Distinct K/V heads G (0 when kv_head is empty).
  int kvHeads() const;
  /// True when the groups are marked: G < h query heads.
  bool grouped() const;
};

/// The facts of a model's run: run.kv_head, the config's KV-cache bytes per token (with and
/// without GQA) and run.next_tokens.
ModelFacts modelFacts(const ModelRun& run, const ModelConfig& config);
/// The facts of a synthetic-lab spec: each query head's K/V head (kvHeadOf) and the float32 KV
/// cache of its one layer per token, G·(d_k + d_v)·4 bytes beside h·(d_k + d_v)·4.
ModelFacts syntheticFacts(const AttentionSpec& spec);

/// The colour that marks K/V head `group` (Okabe & Ito's colour-blind-safe palette, yellow left
/// out: vermillion, blue, bluish green, reddish purple, orange, sky blue, black, grey; repeats
/// after 8). Neighbouring groups never share a colour.
QColor kvGroupColor(int group);
/// kvGroupColor darkened for text on white (a group's title).
QColor kvGroupTextColor(int group);

/// "next token (top 5): “␣because” 41.2% · “.” 12.0% · …" (empty for no predictions).
QString nextTokensText(const std::vector<ShownPrediction>& predictions);

/// The grouped-query-attention note of a picture: "grouped-query attention: 9 query heads share
/// 3 K/V heads (one frame colour per K/V head) · KV cache 46 080 bytes per token (138 240 with
/// one K/V head per query head)"; empty unless facts.grouped().
QString kvGroupsNote(const ModelFacts& facts);

/// A byte count with its thousands apart: "46 080".
QString bytesText(long long bytes);

/// What the heatmap title says about the run.
struct RunLabel {
  AttentionSpec spec;        ///< mechanism, d_k (resolved), temperature.
  bool cross = false;        ///< cross-attention (queries from target, keys from source).
  QString model;             ///< A pretrained model's name; empty for the synthetic lab.
  std::optional<int> layer;  ///< The model layer a one-layer picture shows.
  QString note;              ///< Appended to the title when not empty.
  ModelFacts facts;          ///< K/V groups (syntheticFacts or modelFacts) and a model's
                             ///< predictions (drawn under the maps).
  int pad_tokens = 0;        ///< The last pad_tokens query rows are [PAD] padding (hatched).
};

/// The variant parts of a synthetic run's title: "GQA 8 q / 2 kv" (or "MQA …"), the position
/// scheme when not sinusoidal ("RoPE", "ALiBi", "no positions"), "window 4", "2 global",
/// "stride 3", "padded to 20" with "[PAD] keys unmasked" when the padding mask is off.
/// `pattern` is the result's (its valid_keys says whether [PAD] keys are masked).
QStringList variantTitleParts(const AttentionSpec& spec, const MaskPattern& pattern, int pad_tokens,
                              int n_q);

/// Words a picture's title and colour bar take besides (or instead of) the run's own, stored on
/// the plot (like setFontScale) and used by every following drawHeatmap, drawHeadGrid,
/// drawModelGrid and updateWeights until set again (an empty PictureTitle clears them).
struct PictureTitle {
  QStringList lead;     ///< Parts put first: a sweep frame's "d_k = 64".
  /// Not empty: replaces the run's parts (model · layer · heads · mechanism · d_k) — a
  /// difference's "Δ = A − B · A: … · B: …", a rollout's description. Tokens, overview, mask,
  /// cross-attention and the note follow as usual.
  QStringList replace;
  QString bar_title;    ///< Not empty: the colour bar's title ("rollout weight").
};
void setPictureTitle(QCustomPlot& plot, const PictureTitle& title);
PictureTitle pictureTitle(const QCustomPlot& plot);

/// The mechanism as a title names it, its scaling included: "scaled dot-product", "dot-product,
/// unscaled", "additive"; with a temperature "dot-product · T = 2" (T replaces the scale).
QString mechanismTitle(const AttentionSpec& spec);

/// The scaling alone, as the saturation plot's legend says it: "scaled 1/√d_k", "unscaled",
/// "T = 2", "additive".
QString scalingText(const AttentionSpec& spec);

/// Empties plot: removes every plottable, item and layout element drawn before, including the
/// default axis rect and legend (plot.xAxis … plot.yAxis2 and plot.legend are null afterwards
/// until a draw* call sets them again). Every draw* function starts with this.
void clearPlot(QCustomPlot& plot);

/// The size the next heatmap draw lays out for. Exports set it to the image size before drawing
/// (exportPlot refuses to write a heatmap drawn for another size); a plot on screen without one
/// uses its widget size. An invalid size clears it.
void setCanvasSize(QCustomPlot& plot, const QSize& size);
/// The size draw functions lay out for: setCanvasSize's, else the visible widget's, else fallback.
QSize canvasSize(const QCustomPlot& plot, const QSize& fallback);

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
/// r, head k's QCPColorMap in either orientation. Throws Error(kInvalidArgument) when layers is
/// empty, the sizes disagree, or a result is empty.
void drawModelGrid(QCustomPlot& plot, const std::vector<AttentionResult>& layers,
                   const std::vector<int>& layer_indices, const QStringList& tokens,
                   const RunLabel& label, const PictureOptions& picture = {});

/// Replaces the weights shown by the last drawHeatmap (head ≥ 0) or drawHeadGrid (head = −1)
/// call on plot with result's, and updates the title and the weights printed in cells, without a
/// new layout: the cheap path while only d_k, the scaling, the temperature or the seed change.
/// Returns false, changing nothing, when result does not fit the existing layout (other shape,
/// mask, tokens, canvas, options); then call the draw function. Does not replot.
bool updateWeights(QCustomPlot& plot, const AttentionResult& result, int head,
                   const QStringList& query_tokens, const QStringList& key_tokens,
                   const RunLabel& label, const PictureOptions& picture = {});

/// A difference Δ = A − B (weightDifference) as a result the heatmaps draw: weights and scores Δ,
/// one "head" per map, the difference's mask. Draw it with PictureOptions::color_scale =
/// kDifference and a PictureTitle whose replace is differenceTitle(…).
AttentionResult differenceResult(const WeightDifference& difference);

/// One side of a difference map, as its title describes it.
struct DifferenceSide {
  RunLabel label;           ///< Model, layer (one layer shown), spec (mechanism, d_k, T, mask).
  std::optional<int> head;  ///< The head compared, or every head.
  QString extra;            ///< Words only this side has ("attention rollout"), may be empty.
};
/// The title parts of a difference map: "difference A − B", what differs ("A: head 0",
/// "B: head 3"), what both share, and "max |Δ| = 0.734 at [layer l, ][head k, ]query i 'it' →
/// key j 'cat' (A 0.801, B 0.067)". layer_of_max names the layer of the largest |Δ| (model
/// view), head_in_location its map as a head (grids).
QStringList differenceTitle(const DifferenceSide& a, const DifferenceSide& b,
                            const WeightDifference& difference, std::optional<int> layer_of_max,
                            bool head_in_location, const QStringList& query_tokens,
                            const QStringList& key_tokens);

/// The rollout as a one-head result (run.hpp).
using run::rolloutResult;
/// The title parts of a rollout picture: model, "attention rollout through layers 0–5",
/// "Abnar & Zuidema 2020", that the heads are averaged and that averaging is a choice, the
/// residual ½·A + ½·I.
QStringList rolloutTitle(const QString& model, int first_layer, int last_layer);

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

/// The colour scale a picture uses: `wanted`, or for kAuto linear when every token has its cell
/// and n_k ≤ kAutoLinearTokens, else log.
ColorScale resolvedScale(ColorScale wanted, int n_k, int block);

/// The display filter of a model's special tokens (run.hpp).
using run::keepTokens;
using run::specialTokenFilter;

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

/// Replots only the cells of a heatmap picture (its colour maps lie on a buffered layer of their
/// own): after updateWeights, the texts, frames and colour bar need no new painting.
void replotCells(QCustomPlot& plot);

/// Draws the entropy of each query row (bars, nats, mean over heads) against a uniform row's
/// ln(visible keys) (dashed steps), x labelled with the tokens (every k-th when they do not fit),
/// titled `title`; legend below. Graph 0 is the uniform line, plottable 0 the bars.
void drawRowEntropy(QCustomPlot& plot, const AttentionSummary& summary,
                    const QStringList& query_tokens, const QString& title);

/// Draws the histogram of the scores (bars) with x = score after scaling, y = cells, titled
/// `title`; the x label gives the spread. Plottable 0 is the bars (absent without scores).
void drawScoreHistogram(QCustomPlot& plot, const ScoreHistogram& histogram, const QString& title);

/// Draws the head-similarity matrix [h, h] (headSimilarity: mean Jensen–Shannon divergence over
/// query rows, nats) as square cells on viridis from 0 to the largest pair (dark = alike), rows and
/// columns the heads (head 0 top-left), the value in every cell while cells are ≥ 34 px, each
/// near-duplicate pair framed in orange on both sides of the diagonal, a colour bar and a note under
/// the matrix naming the threshold. Default canvas 720 × 640.
void drawHeadSimilarity(QCustomPlot& plot, const HeadSimilarity& similarity, const QString& title);

/// Draws one query row's softmax over the keys as horizontal bars (key 0 at the top, weight
/// 0 … 1), keys labelled (every k-th when they do not fit), titled `title`. row < 0 draws the
/// empty panel with the title only (e.g. "Click a row to see its softmax").
void drawRowSoftmax(QCustomPlot& plot, const AttentionResult& result, int head, int row,
                    const QStringList& key_tokens, const QString& title);

/// Multiplies every font size the draw* functions use for `plot` by `factor` (1, the default, is
/// what the CLI draws; the window's presentation mode uses about 1.6). Stored on the plot, so it
/// applies to the next draw* call. Non-positive or non-finite factors reset it to 1.
void setFontScale(QCustomPlot& plot, double factor);
/// The factor set by setFontScale (1 when none was set).
double fontScale(const QCustomPlot& plot);

/// Image formats the views can write.
enum class ImageFormat { kPng, kSvg, kPdf };

/// The image format for a file name's suffix (.png, .svg, .pdf, case-insensitive), or nullopt.
std::optional<ImageFormat> imageFormatForPath(const QString& path);

/// Output size: width × height in logical pixels (points for PDF), scale = device-pixel ratio for
/// PNG (a 800×600 image at scale 2 is 1600×1200 pixels).
struct ImageSize {
  int width = 800;
  int height = 600;
  double scale = 1.0;
};

/// Writes plot to path as PNG (width·scale × height·scale pixels, tagged 96·scale dpi so it keeps
/// its physical size), SVG (vector text and lines, QSvgGenerator, viewBox 0 0 width height) or PDF
/// (vector, a width × height pt page). The plot's on-screen size is untouched.
/// Throws attnlab::Error(kIo, "cannot write <path>: <reason>") when the folder does not exist, the
/// file cannot be opened or a writer fails; Error(kInvalidArgument) for an unknown suffix, a
/// non-positive size, more than 16384 pixels on a side (the option table's message), or a heatmap
/// laid out for another size (call setCanvasSize and draw again).
void exportPlot(QCustomPlot& plot, const QString& path, const ImageSize& size);

/// The plot rendered as an image of size.width × size.height logical pixels at size.scale (what a
/// PNG export would hold), e.g. a frame of an animation. Throws like exportPlot for a heatmap laid
/// out for another size.
QImage renderImage(QCustomPlot& plot, const ImageSize& size);

/// Drops Qt's "QStandardPaths: XDG_RUNTIME_DIR not set" notice (usual for root and in CI; Qt then
/// uses a private folder anyway) and the offscreen platform's "This plugin does not support
/// propagateSizeHints()", and passes every other message on. Call before QApplication:
/// the CLI's and the window's stderr is for one-line problems.
void installQuietMessageHandler();

/// A good default image size for a heatmap of n_q × n_k tokens (heads_in_image = 1: cells up to
/// 48 px, each side clamped to [560, 1600] px) or a grid of that many heads (⌈√h⌉ columns,
/// cells up to 32 px, each side clamped to [520, 2600] px). Scale 1.
ImageSize defaultHeatmapSize(int n_q, int n_k, int heads_in_image);

/// A good default image size for drawModelGrid: thumbnails of 60–150 px.
ImageSize defaultModelGridSize(int n_tokens, int layers, int heads);

}  // namespace attnlab::views
