#pragma once
/// \file views.hpp
/// The pictures: heatmaps (one head, or every head in a grid) and the softmax-saturation plot,
/// drawn into a QCustomPlot so the CLI (offscreen) and the window share one drawing code; plus
/// image export (PNG, SVG, PDF).

#include <QColor>
#include <QCoreApplication>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "attnlab/saturation.hpp"
#include "attnlab/spec.hpp"

class QCustomPlot;
class QCPColorGradient;

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
/// viridis as a QCPColorGradient for QCPColorMap / QCPColorScale; NaN cells (masked) draw in
/// kMaskedColor.
QCPColorGradient viridisGradient();
/// Colour of masked cells: a light grey outside the viridis range, so a masked cell is never
/// mistaken for a weight of 0 (dark purple).
inline const QColor kMaskedColor{0xd4, 0xd4, 0xd4};

/// What the heatmap title says about the run.
struct RunLabel {
  AttentionSpec spec;  ///< mechanism, d_k (resolved), temperature.
  bool cross = false;  ///< cross-attention (queries from target, keys from source).
  QString extra;       ///< Appended to the title when not empty (e.g. a layer name).
};

/// A one-line description of the scaling: "scaled 1/√d_k", "unscaled", "T = 2", "additive".
QString scalingText(const AttentionSpec& spec);

/// The name a title uses for a mechanism: "additive", "dot-product", "scaled dot-product".
QString mechanismTitle(Mechanism mechanism);

/// Empties plot: removes every plottable, item and layout element drawn before, including the
/// default axis rect and legend (plot.xAxis … plot.yAxis2 and plot.legend are null afterwards
/// until a draw* call sets them again). Every draw* function starts with this.
void clearPlot(QCustomPlot& plot);

/// Draws head `head` (0-based, as in `--head` and the JSON) of result as a heatmap into plot
/// (clearing it): rows are queries top to bottom labelled by query_tokens, columns are keys
/// labelled by key_tokens on the top axis, crisp cells (no interpolation), colour scale 0–1 titled
/// "attention weight", masked cells in kMaskedColor with a "grey = masked" note, and the title
/// "scaled dot-product · head 3 · d_k = 8 · scaled 1/√d_k[ · causal mask][ · cross-attention]
/// [ · extra]" (shrunk, then wrapped after the head, when it does not fit the default width).
/// Small maps (≤ 10 × 10) print each weight in its cell.
/// The plot then holds one QCPColorMap (plottable 0) whose key axis is the top axis
/// (plot.xAxis2, keys, range −0.5 … n_k − 0.5) and value axis the left one (plot.yAxis, queries,
/// reversed); weight (query i, key j) is data()->cell(j, i), NaN where masked. A dimension of
/// size 1 is stored as two identical half cells (QCustomPlot cannot draw a 1-wide map).
/// Token lists must have n_q and n_k entries, or be empty (labels are then the indices).
/// Long tokens are elided; with many tokens only every k-th is labelled so labels never overlap
/// at defaultHeatmapSize (thinned labels read "#13 token"). In SVG and PDF the cells are vector
/// rectangles (maps up to 160 × 160; larger ones are embedded images). Fonts are the application
/// font, so CJK and emoji tokens render through fontconfig's fallbacks.
/// Throws Error(kInvalidArgument) for a bad head, an empty result or token lists of the wrong
/// length.
void drawHeatmap(QCustomPlot& plot, const AttentionResult& result, int head,
                 const QStringList& query_tokens, const QStringList& key_tokens,
                 const RunLabel& label);

/// Draws every head of result in one grid (columns = ⌈√h⌉ in images; on screen the count that
/// gives the largest cells in the widget's shape) sharing one colour scale, each panel
/// titled "head k" (0-based); the overall title as in drawHeatmap with "h heads" for the head.
/// Plottable k is head k's QCPColorMap (same layout as in drawHeatmap). Every panel carries token
/// labels while they fit (up to about 24 tokens), then every k-th. Throws like drawHeatmap.
void drawHeadGrid(QCustomPlot& plot, const AttentionResult& result, const QStringList& query_tokens,
                  const QStringList& key_tokens, const RunLabel& label);

/// Draws a model view: one thumbnail heatmap per (layer, head) — rows are the entries of `layers`
/// (top = first), columns are heads — sharing one 0–1 colour scale, with "layer l" row headers
/// (l from layer_indices) and "head k" column headers. Each thumbnail has rows = queries and
/// columns = keys like drawHeatmap but no token labels (the tokens are listed under the grid,
/// elided when long). Title: "<extra> · L layers × h heads · d_k = … · <scaling>[ · causal mask]".
/// Plottable r·h + k is layer entry r, head k's QCPColorMap (same layout as drawHeatmap's);
/// plot.axisRects() are in the same order; thumbnails may shrink to 12 px in a small widget, and the
/// token line is elided to the widget's width on screen (the export width otherwise). Throws Error(kInvalidArgument) when layers is empty,
/// the sizes disagree, or a result is empty.
void drawModelGrid(QCustomPlot& plot, const std::vector<AttentionResult>& layers,
                   const std::vector<int>& layer_indices, const QStringList& tokens,
                   const RunLabel& label);

/// A display filter: result restricted to the tokens with keep[i] true (rows and columns of a
/// self-attention result, in order; statistics rows likewise). Weights are NOT renormalised, so
/// rows may sum to less than 1 — callers say so on screen. keep must have n_q == n_k entries.
/// Throws Error(kInvalidArgument) for a non-square result, a wrong-sized keep or keeping nothing.
AttentionResult keepTokens(const AttentionResult& result, const std::vector<bool>& keep);

/// The keep flags of the "hide special tokens" filter for a model's encoding: false for each
/// special token ([CLS], [SEP], <|endoftext|> …), true otherwise; all true when `hide` is false.
/// Throws Error(kInvalidInput) when hiding would leave no token.
std::vector<bool> specialTokenFilter(const Encoding& encoding, bool hide);

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

/// Multiplies every font size the draw* functions use for `plot` by `factor` (1, the default, is
/// what the CLI draws; the window's presentation mode uses about 1.6). Stored on the plot, so it
/// applies to the next draw* call. Non-positive or non-finite factors reset it to 1.
void setFontScale(QCustomPlot& plot, double factor);
/// The factor set by setFontScale (1 when none was set).
double fontScale(const QCustomPlot& plot);

/// Replaces the weights shown by the last drawHeatmap (head ≥ 0) or drawHeadGrid (head = −1)
/// call on plot with result's, and updates the title (d_k, scaling), without rebuilding axes,
/// labels or colour scale: the cheap path while only d_k, the scaling, the temperature or the seed
/// change. Returns false, changing nothing, when result does not fit the existing layout (other
/// head count, n_q, n_k, mask, tokens or cross flag, or a map with weights printed in its cells);
/// then call the draw function. Does not replot.
bool updateWeights(QCustomPlot& plot, const AttentionResult& result, int head,
                   const QStringList& query_tokens, const QStringList& key_tokens,
                   const RunLabel& label);

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
/// file cannot be opened or a writer fails, and Error(kInvalidArgument) for an unknown suffix, a
/// non-positive size or scale, or more than 16384 pixels on a side.
void exportPlot(QCustomPlot& plot, const QString& path, const ImageSize& size);

/// Drops Qt's "QStandardPaths: XDG_RUNTIME_DIR not set" notice (usual for root and in CI; Qt then
/// uses a private folder anyway) and passes every other message on. Call before QApplication:
/// the CLI's and the window's stderr is for one-line problems.
void installQuietMessageHandler();

/// A good default image size for a heatmap of n_q × n_k cells (heads_in_image = 1: cells up to
/// 48 px, roughly square, each side clamped to [500, 1600] px) or a grid of that many heads
/// (panels of up to 32 px cells, ⌈√h⌉ columns, each side clamped to [400, 2600] px). Scale 1.
ImageSize defaultHeatmapSize(int n_q, int n_k, int heads_in_image);

/// A good default image size for drawModelGrid: thumbnails of 60–150 px.
ImageSize defaultModelGridSize(int n_tokens, int layers, int heads);

}  // namespace attnlab::views
