#pragma once
/// \file export.hpp
/// Image export (PNG, SVG, PDF) and rendering of a plot, and the quiet message handler.

#include <QString>
#include <optional>

#include "options/options.hpp"

class QCustomPlot;
class QImage;

namespace attnlab::views {

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

/// The size of a CLI image: --width / --height / --scale of `o` over a picture's default `size`,
/// checked against kMaxImagePixels (OptionError in the option table's words).
ImageSize outputSize(const options::Options& o, ImageSize size);

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

}  // namespace attnlab::views
