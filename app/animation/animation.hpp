#pragma once
/// \file animation.hpp
/// Animations of pictures (a sweep's frames): an animated GIF written with giflib (each frame
/// quantised to its own palette of at most 256 colours by giflib's median-cut quantiser,
/// GifQuantizeBuffer), numbered PNG frames, and an MP4 made by ffmpeg when it is installed (never
/// required). Frames arrive one at a time, so a long sweep never holds every image in memory.

#include <QImage>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

namespace attnlab::animation {

/// Writes an animated GIF frame by frame: every frame is shown `delay_ms` (GIF stores hundredths
/// of a second: rounded, at least 2) and the animation loops (NETSCAPE2.0 extension).
class GifWriter {
 public:
  /// Opens path for writing. Throws Error(kIo) naming giflib's reason when it cannot.
  GifWriter(const QString& path, int delay_ms);
  ~GifWriter();
  GifWriter(const GifWriter&) = delete;
  GifWriter& operator=(const GifWriter&) = delete;
  /// Appends a frame; the first frame fixes the GIF's size and every later one must have it.
  /// Throws Error(kInvalidArgument) for another size, Error(kIo) when a write fails.
  void add(const QImage& frame);
  /// Finishes the file (also done by the destructor, which swallows errors). Throws Error(kIo).
  void finish();
  int frames() const { return frames_; }

 private:
  struct File;
  std::unique_ptr<File> file_;
  QString path_;
  int delay_cs_ = 50;
  int frames_ = 0;
  QSize size_;
};

/// What a GIF holds, decoded by giflib (tests and checks).
struct GifContents {
  QSize size;                  ///< The logical screen.
  std::vector<QImage> frames;  ///< Every frame as RGB32.
  std::vector<int> delays_ms;  ///< Each frame's delay.
  bool loops = false;          ///< A NETSCAPE2.0 loop extension is present.
};
/// Reads a GIF with giflib. Throws Error(kIo) naming giflib's reason when it is not a readable GIF.
GifContents readGif(const QString& path);

/// The name of frame `index` of a numbered sequence: frame_000.png, frame_001.png, …
QString frameFileName(int index);

/// The ffmpeg executable on PATH, or empty when ffmpeg is not installed.
QString ffmpegProgram();
/// Encodes the PNG frames `folder`/frame_000.png … (count of them) as an H.264 MP4 (yuv420p,
/// sizes padded to even) at 1000/delay_ms frames per second with ffmpeg. Throws Error(kIo) when
/// ffmpeg is missing, fails (its last line of output named) or takes longer than two minutes.
void encodeMp4(const QString& folder, int count, int delay_ms, const QString& path);

}  // namespace attnlab::animation
