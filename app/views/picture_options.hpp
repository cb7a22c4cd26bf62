#pragma once
/// \file picture_options.hpp
/// How a heatmap shows its weights: the colour scale and, for inputs too long for one pixel per
/// token, the pooling of the overview; the limit on image sizes. Plain values, shared by the
/// option table (app/options), the views that draw and the window's inputs.

#include <QtGlobal>

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

/// The picture choices of one heatmap (drawHeatmap, drawHeadGrid, drawModelGrid).
struct PictureOptions {
  ColorScale color_scale = ColorScale::kAuto;
  Pool pool = Pool::kMax;
  bool operator==(const PictureOptions&) const = default;
};

}  // namespace attnlab::views
