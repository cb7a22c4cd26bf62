/// \file export.cpp
/// Writes a drawn plot to PNG (raster), SVG or PDF (vector).

#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSvgGenerator>
#include <cmath>
#include <string>

#include "attnlab/error.hpp"
#include "views/heatmap_paint.hpp"
#include "views/export.hpp"
#include "views/picture.hpp"

namespace attnlab::views {
namespace {

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

[[noreturn]] void failIo(const QString& path, const QString& reason) {
  throw Error(ErrorCode::kIo, "cannot write " + utf8(path) + ": " + utf8(reason));
}

/// Throws kIo when path cannot be created or overwritten; the message carries the OS's reason.
void checkWritable(const QString& path) {
  const QFileInfo info(path);
  if (info.isDir()) failIo(path, QStringLiteral("it is a folder"));
  const QDir folder = info.absoluteDir();
  if (!folder.exists()) {
    failIo(path, QStringLiteral("folder %1 does not exist")
                     .arg(QDir::toNativeSeparators(folder.absolutePath())));
  }
  const bool existed = info.exists();
  QFile probe(path);
  if (!probe.open(QIODevice::WriteOnly | QIODevice::Append)) failIo(path, probe.errorString());
  probe.close();
  if (!existed) probe.remove();
}

/// After a writer reported success: the file must exist and be non-empty.
void checkWritten(const QString& path, const char* what) {
  const QFileInfo info(path);
  if (!info.exists() || info.size() == 0) {
    QFile::remove(path);
    failIo(path, QStringLiteral("the %1 writer produced no output").arg(QLatin1String(what)));
  }
}

void writeSvg(QCustomPlot& plot, const QString& path, const ImageSize& size) {
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(QSize(size.width, size.height));
  generator.setViewBox(QRect(0, 0, size.width, size.height));
  // Same resolution as the screen the layout is measured on, so text keeps its size.
  generator.setResolution(plot.logicalDpiX());
  generator.setTitle(QStringLiteral("Attention Lab"));
  generator.setDescription(
      QStringLiteral("Attention Lab plot, %1 × %2 px").arg(size.width).arg(size.height));
  QCPPainter painter;
  if (!painter.begin(&generator)) failIo(path, QStringLiteral("the SVG writer could not open it"));
  painter.setMode(QCPPainter::pmVectorized);  // no pixmap caches: text and lines stay vector
  painter.setMode(QCPPainter::pmNoCaching);
  plot.toPainter(&painter, size.width, size.height);
  if (!painter.end()) failIo(path, QStringLiteral("the SVG writer failed"));
}

}  // namespace

std::optional<ImageFormat> imageFormatForPath(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("png")) return ImageFormat::kPng;
  if (suffix == QLatin1String("svg")) return ImageFormat::kSvg;
  if (suffix == QLatin1String("pdf")) return ImageFormat::kPdf;
  return std::nullopt;
}

void exportPlot(QCustomPlot& plot, const QString& path, const ImageSize& size) {
  if (size.width <= 0 || size.height <= 0 || !(size.scale > 0) || !std::isfinite(size.scale)) {
    throw Error(ErrorCode::kInvalidArgument,
                "image size must be positive, got " + std::to_string(size.width) + " x " +
                    std::to_string(size.height) + " at scale " + std::to_string(size.scale));
  }
  if (size.width * size.scale > kMaxImagePixels || size.height * size.scale > kMaxImagePixels) {
    const QString message =
        QString::fromUtf8(kImageTooLargeMessage)
            .arg(std::lround(size.width * size.scale))
            .arg(std::lround(size.height * size.scale))
            .arg(kMaxImagePixels);
    throw Error(ErrorCode::kInvalidArgument, utf8(message));
  }
  if (const HeatmapDecor* decor = decorOf(plot);
      decor && decor->layout().canvas != QSize(size.width, size.height)) {
    throw Error(ErrorCode::kInvalidArgument,
                "the heatmap was laid out for " + std::to_string(decor->layout().canvas.width()) +
                    " x " + std::to_string(decor->layout().canvas.height()) +
                    " px; draw it again for " + std::to_string(size.width) + " x " +
                    std::to_string(size.height) + " (setCanvasSize) before exporting");
  }
  const std::optional<ImageFormat> format = imageFormatForPath(path);
  if (!format) {
    throw Error(ErrorCode::kInvalidArgument,
                "unknown image format for " + utf8(path) + ": use .png, .svg or .pdf");
  }
  checkWritable(path);

  switch (*format) {
    case ImageFormat::kPng: {
      // Resolution scales with `scale` so a 2× image keeps its physical size in documents.
      const int dpi = static_cast<int>(std::lround(96 * size.scale));
      if (!plot.savePng(path, size.width, size.height, size.scale, -1, dpi)) {
        QFile::remove(path);
        failIo(path, QStringLiteral("the PNG writer failed"));
      }
      checkWritten(path, "PNG");
      break;
    }
    case ImageFormat::kSvg:
      writeSvg(plot, path, size);
      checkWritten(path, "SVG");
      break;
    case ImageFormat::kPdf:
      if (!plot.savePdf(path, size.width, size.height, QCP::epNoCosmetic,
                        QStringLiteral("Attention Lab"), QStringLiteral("Attention Lab plot"))) {
        QFile::remove(path);
        failIo(path, QStringLiteral("the PDF writer failed"));
      }
      checkWritten(path, "PDF");
      break;
  }
}

QImage renderImage(QCustomPlot& plot, const ImageSize& size) {
  if (size.width <= 0 || size.height <= 0 || !(size.scale > 0) || !std::isfinite(size.scale) ||
      size.width * size.scale > kMaxImagePixels || size.height * size.scale > kMaxImagePixels) {
    throw Error(ErrorCode::kInvalidArgument, "image size out of range: " + std::to_string(size.width) +
                                                 " x " + std::to_string(size.height));
  }
  if (const HeatmapDecor* decor = decorOf(plot);
      decor && decor->layout().canvas != QSize(size.width, size.height)) {
    throw Error(ErrorCode::kInvalidArgument, "the heatmap was laid out for another size");
  }
  return plot.toPixmap(size.width, size.height, size.scale).toImage();
}

namespace {
QtMessageHandler g_default_handler = nullptr;

void quietMessageHandler(QtMsgType type, const QMessageLogContext& context,
                         const QString& message) {
  if (message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set"))) return;
  // The offscreen platform (screenshots, CI) says this of every top-level window.
  if (message == QLatin1String("This plugin does not support propagateSizeHints()")) return;
  if (g_default_handler) g_default_handler(type, context, message);
}
}  // namespace

void installQuietMessageHandler() {
  if (!g_default_handler) g_default_handler = qInstallMessageHandler(quietMessageHandler);
}

ImageSize outputSize(const options::Options& o, ImageSize size) {
  if (o.output.width) size.width = *o.output.width;
  if (o.output.height) size.height = *o.output.height;
  size.scale = o.output.scale;
  options::checkImageSize(size.width, size.height, size.scale);
  return size;
}

}  // namespace attnlab::views
