#pragma once
/// \file picture_options.hpp
/// How a heatmap shows its weights: the colour scale and, for inputs too long for one pixel per
/// token, the pooling of the overview; the limit on image sizes. Plain values, shared by the
/// option table (app/options), the views that draw and the window's inputs.

#include <QtGlobal>
#include <optional>
#include <string_view>

namespace attnlab::views {

/// Largest image edge in device pixels (--width × --scale, --height × --scale; QPainter's raster
/// engine stops at 32767).
inline constexpr int kMaxImagePixels = 16384;
/// The one message for an image above kMaxImagePixels (the option table, the window's export
/// dialog and exportPlot give it); %1 × %2 the pixels asked for, %3 the limit.
inline constexpr const char* kImageTooLargeMessage = QT_TRANSLATE_NOOP(
    "attnlab::options",
    "the image would be %1 x %2 pixels; at most %3 on a side (--width, --height and --scale "
    "multiply)");

/// What a cell's colour encodes.
enum class ColorScale {
  kAuto,      ///< Linear for short inputs (a full map of at most kAutoLinearTokens keys), else log.
  kLinear,    ///< Weight p on 0 … 1 (viridis).
  kLog,       ///< log10 p from a floor below 1/n_k up to 1 (viridis); 1/n_k marked on the bar.
  kRelative,  ///< p ÷ uniform = n_visible · p, on a log axis diverging around 1 (blue … white … red).
  /// Differences Δ = A − B of weights (difference maps; never chosen by --color-scale): linear,
  /// symmetric around 0 (blue < 0 < red), from −m to m where m is max |Δ| rounded up.
  kDifference,
};

/// How an overview combines a b × b block of cells into one.
enum class Pool {
  kMax,   ///< The block's largest weight: a single strong cell stays visible.
  kMean,  ///< The block's mean weight over its visible cells.
};

/// Maps of at most this many keys (and not pooled) use the linear scale under kAuto.
inline constexpr int kAutoLinearTokens = 32;

/// What `render --plot` draws: the heatmaps, or one of the pictures of the plot table
/// (views/plots.hpp) or the translator's training curves. Parsed once, at the edge (the option
/// table), from its name in kPlotKinds.
enum class PlotKind {
  kHeatmap,         ///< The heatmaps of every head, a model's layers × heads (the default).
  kEntropy,         ///< Entropy of each query row against a uniform row.
  kHistogram,       ///< Histogram of the scores.
  kHeadSimilarity,  ///< The heads' mean Jensen–Shannon divergence matrix.
  kHeadRoles,       ///< A model's head roles, every layer × head.
  kTraining,        ///< dates-transformer's loss curves with and without 1/√d_k.
  kLogitLens,       ///< A model's residual stream decoded after each layer: layers × positions.
  kDla,             ///< Direct logit attribution: each head's part of one logit, layers × heads.
  kPatching,        ///< Activation patching: the logit difference recovered per head and position.
};

/// One kind of picture as --plot names and --help describes it.
struct PlotKindName {
  PlotKind kind;
  std::string_view name;  ///< --plot's word.
  std::string_view help;  ///< What it draws, in --help's words (may be empty).
};
/// The one table of plot kinds, in --help order: --plot's choices, its help line, the man page
/// and the completion are written from it.
inline constexpr PlotKindName kPlotKinds[] = {
    {PlotKind::kHeatmap, "heatmap", ""},
    {PlotKind::kEntropy, "entropy", "of each query row"},
    {PlotKind::kHistogram, "histogram", "of the scores"},
    {PlotKind::kHeadSimilarity, "head-similarity", "mean JSD between heads"},
    {PlotKind::kHeadRoles, "head-roles", "a model's layers × heads role scores"},
    {PlotKind::kTraining, "training", "the loss curves of dates-transformer with and without 1/sqrt(d_k)"},
    {PlotKind::kLogitLens, "logit-lens", "a model's top token after each layer at each position"},
    {PlotKind::kDla, "dla", "each head's part of the predicted token's logit"},
    {PlotKind::kPatching, "patching", "the logit difference each head and position recovers, with --patch-from"},
};
/// The name of `kind` (--plot's word).
constexpr std::string_view plotName(PlotKind kind) {
  for (const PlotKindName& row : kPlotKinds)
    if (row.kind == kind) return row.name;
  return {};
}
/// The kind named `name`, or nullopt.
constexpr std::optional<PlotKind> parsePlotKind(std::string_view name) {
  for (const PlotKindName& row : kPlotKinds)
    if (row.name == name) return row.kind;
  return std::nullopt;
}

/// What an .npy of the heatmaps holds (--values).
enum class MatrixValues {
  kWeights,  ///< The attention weights (softmax), the default.
  kScores,   ///< The scores before the softmax.
};

/// The picture choices of one heatmap (drawHeatmap, drawHeadGrid, drawModelGrid).
struct PictureOptions {
  ColorScale color_scale = ColorScale::kAuto;
  Pool pool = Pool::kMax;
  bool operator==(const PictureOptions&) const = default;
};

}  // namespace attnlab::views
