/// \file animation.cpp
/// Animated GIF (giflib), numbered frames and MP4 (ffmpeg) for sweeps.

#include "animation/animation.hpp"

#include <fcntl.h>
#include <gif_lib.h>
#include <unistd.h>

#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>

#include "attnlab/error.hpp"

namespace attnlab::animation {
namespace {

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

[[noreturn]] void failIo(const QString& path, const std::string& reason) {
  throw Error(ErrorCode::kIo, "cannot write " + utf8(path) + ": " + reason);
}

std::string gifReason(int code) {
  const char* text = GifErrorString(code);
  return text ? text : "giflib error " + std::to_string(code);
}

}  // namespace

struct GifWriter::File {
  GifFileType* gif = nullptr;
};

GifWriter::GifWriter(const QString& path, int delay_ms)
    : file_(std::make_unique<File>()),
      path_(path),
      delay_cs_(std::max(2, static_cast<int>(std::lround(delay_ms / 10.0)))) {
  // Opened here with the usual permissions (giflib's own open makes the file private, 0600).
  const int fd = ::open(utf8(path).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) failIo(path, std::strerror(errno));
  int error = 0;
  file_->gif = EGifOpenFileHandle(fd, &error);  // closes fd from now on
  if (!file_->gif) {
    ::close(fd);
    failIo(path, gifReason(error));
  }
  EGifSetGifVersion(file_->gif, true);
}

GifWriter::~GifWriter() {
  try {
    finish();
  } catch (...) {
  }
}

void GifWriter::add(const QImage& frame) {
  if (!file_->gif) failIo(path_, "the file is already closed");
  const QImage rgb = frame.convertToFormat(QImage::Format_RGB888);
  if (frames_ == 0) {
    size_ = rgb.size();
    if (EGifPutScreenDesc(file_->gif, size_.width(), size_.height(), 8, 0, nullptr) == GIF_ERROR)
      failIo(path_, gifReason(file_->gif->Error));
    // Loop forever: the application extension NETSCAPE2.0 with a loop count of 0.
    const unsigned char loop[3] = {1, 0, 0};
    if (EGifPutExtensionLeader(file_->gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(file_->gif, 11, "NETSCAPE2.0") == GIF_ERROR ||
        EGifPutExtensionBlock(file_->gif, 3, loop) == GIF_ERROR ||
        EGifPutExtensionTrailer(file_->gif) == GIF_ERROR) {
      failIo(path_, gifReason(file_->gif->Error));
    }
  } else if (rgb.size() != size_) {
    throw Error(ErrorCode::kInvalidArgument, "every frame of a GIF needs the first frame's size");
  }
  const int w = size_.width(), h = size_.height();
  const std::size_t pixels = static_cast<std::size_t>(w) * h;
  std::vector<GifByteType> red(pixels), green(pixels), blue(pixels), index(pixels);
  for (int y = 0; y < h; ++y) {
    const uchar* line = rgb.constScanLine(y);
    for (int x = 0; x < w; ++x) {
      const std::size_t p = static_cast<std::size_t>(y) * w + x;
      red[p] = line[3 * x];
      green[p] = line[3 * x + 1];
      blue[p] = line[3 * x + 2];
    }
  }
  GifColorType colors[256];
  std::memset(colors, 0, sizeof colors);
  int count = 256;
  if (GifQuantizeBuffer(static_cast<unsigned>(w), static_cast<unsigned>(h), &count, red.data(),
                        green.data(), blue.data(), index.data(), colors) == GIF_ERROR) {
    failIo(path_, "giflib could not reduce the frame to 256 colours");
  }
  // The quantiser works on 5 bits per channel; give each palette entry the exact mean colour of
  // its pixels, so white stays 255, 255, 255 and the gradient keeps its hues.
  std::vector<double> sum(static_cast<std::size_t>(256) * 3, 0.0);
  std::vector<std::size_t> used(256, 0);
  for (std::size_t p = 0; p < pixels; ++p) {
    const std::size_t k = index[p];
    sum[3 * k] += red[p];
    sum[3 * k + 1] += green[p];
    sum[3 * k + 2] += blue[p];
    ++used[k];
  }
  for (std::size_t k = 0; k < 256; ++k) {
    if (used[k] == 0) continue;
    colors[k].Red = static_cast<GifByteType>(std::lround(sum[3 * k] / used[k]));
    colors[k].Green = static_cast<GifByteType>(std::lround(sum[3 * k + 1] / used[k]));
    colors[k].Blue = static_cast<GifByteType>(std::lround(sum[3 * k + 2] / used[k]));
  }
  ColorMapObject* map = GifMakeMapObject(256, colors);
  if (!map) failIo(path_, "out of memory");
  GraphicsControlBlock gcb;
  gcb.DisposalMode = DISPOSE_DO_NOT;
  gcb.UserInputFlag = false;
  gcb.DelayTime = delay_cs_;
  gcb.TransparentColor = NO_TRANSPARENT_COLOR;
  GifByteType extension[4];
  const std::size_t length = EGifGCBToExtension(&gcb, extension);
  bool ok = EGifPutExtension(file_->gif, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(length),
                             extension) != GIF_ERROR &&
            EGifPutImageDesc(file_->gif, 0, 0, w, h, false, map) != GIF_ERROR;
  for (int y = 0; ok && y < h; ++y)
    ok = EGifPutLine(file_->gif, index.data() + static_cast<std::size_t>(y) * w, w) != GIF_ERROR;
  GifFreeMapObject(map);
  if (!ok) failIo(path_, gifReason(file_->gif->Error));
  ++frames_;
}

void GifWriter::finish() {
  if (!file_->gif) return;
  int error = 0;
  GifFileType* gif = std::exchange(file_->gif, nullptr);
  if (EGifCloseFile(gif, &error) == GIF_ERROR) failIo(path_, gifReason(error));
}

GifContents readGif(const QString& path) {
  int error = 0;
  GifFileType* gif = DGifOpenFileName(utf8(path).c_str(), &error);
  if (!gif) throw Error(ErrorCode::kIo, "cannot read " + utf8(path) + ": " + gifReason(error));
  if (DGifSlurp(gif) == GIF_ERROR) {
    const std::string reason = gifReason(gif->Error);
    DGifCloseFile(gif, &error);
    throw Error(ErrorCode::kIo, "cannot read " + utf8(path) + ": " + reason);
  }
  GifContents c;
  c.size = QSize(gif->SWidth, gif->SHeight);
  for (int i = 0; i < gif->ImageCount; ++i) {
    const SavedImage& image = gif->SavedImages[i];
    const ColorMapObject* map =
        image.ImageDesc.ColorMap ? image.ImageDesc.ColorMap : gif->SColorMap;
    QImage frame(c.size, QImage::Format_RGB32);
    frame.fill(Qt::white);
    const GifImageDesc& d = image.ImageDesc;
    for (int y = 0; map && y < d.Height; ++y) {
      for (int x = 0; x < d.Width; ++x) {
        const int k = image.RasterBits[static_cast<std::size_t>(y) * d.Width + x];
        const GifColorType& color = map->Colors[std::min(k, map->ColorCount - 1)];
        if (d.Left + x < c.size.width() && d.Top + y < c.size.height())
          frame.setPixel(d.Left + x, d.Top + y, qRgb(color.Red, color.Green, color.Blue));
      }
    }
    c.frames.push_back(frame);
    GraphicsControlBlock gcb;
    c.delays_ms.push_back(DGifSavedExtensionToGCB(gif, i, &gcb) == GIF_OK ? gcb.DelayTime * 10 : 0);
    for (int e = 0; e < image.ExtensionBlockCount; ++e) {
      const ExtensionBlock& block = image.ExtensionBlocks[e];
      if (block.Function == APPLICATION_EXT_FUNC_CODE && block.ByteCount == 11 &&
          std::memcmp(block.Bytes, "NETSCAPE2.0", 11) == 0) {
        c.loops = true;
      }
    }
  }
  for (int e = 0; e < gif->ExtensionBlockCount; ++e) {
    const ExtensionBlock& block = gif->ExtensionBlocks[e];
    if (block.Function == APPLICATION_EXT_FUNC_CODE && block.ByteCount == 11 &&
        std::memcmp(block.Bytes, "NETSCAPE2.0", 11) == 0) {
      c.loops = true;
    }
  }
  DGifCloseFile(gif, &error);
  return c;
}

QString frameFileName(int index) {
  return QStringLiteral("frame_%1.png").arg(index, 3, 10, QLatin1Char('0'));
}

QString ffmpegProgram() { return QStandardPaths::findExecutable(QStringLiteral("ffmpeg")); }

void encodeMp4(const QString& folder, int count, int delay_ms, const QString& path) {
  const QString ffmpeg = ffmpegProgram();
  if (ffmpeg.isEmpty())
    failIo(path, "ffmpeg is not installed (use .gif or a folder for PNG frames)");
  QProcess process;
  process.setProcessChannelMode(QProcess::MergedChannels);
  const QString rate = QString::number(1000.0 / std::max(1, delay_ms), 'g', 6);
  process.start(ffmpeg, {QStringLiteral("-y"), QStringLiteral("-loglevel"), QStringLiteral("error"),
                         QStringLiteral("-framerate"), rate, QStringLiteral("-i"),
                         folder + QStringLiteral("/frame_%03d.png"), QStringLiteral("-frames:v"),
                         QString::number(count), QStringLiteral("-vf"),
                         QStringLiteral("pad=ceil(iw/2)*2:ceil(ih/2)*2:color=white,format=yuv420p"),
                         QStringLiteral("-movflags"), QStringLiteral("+faststart"), path});
  if (!process.waitForStarted(10000)) failIo(path, "ffmpeg did not start");
  if (!process.waitForFinished(120000)) {
    process.kill();
    process.waitForFinished(5000);
    failIo(path, "ffmpeg took longer than two minutes");
  }
  if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0 ||
      !QFileInfo(path).isFile()) {
    const QStringList lines =
        QString::fromLocal8Bit(process.readAll()).trimmed().split(QLatin1Char('\n'));
    failIo(path, "ffmpeg failed: " +
                     utf8(lines.isEmpty() ? QStringLiteral("no output") : lines.last().trimmed()));
  }
}

}  // namespace attnlab::animation
