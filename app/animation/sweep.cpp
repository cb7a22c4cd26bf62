/// \file sweep.cpp
/// A sweep's frames drawn and written as an animated GIF, numbered PNG frames or an MP4
/// (sweep.hpp).

#include "animation/sweep.hpp"

#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <memory>

#include "animation/animation.hpp"
#include "attnlab/error.hpp"
#include "views/export.hpp"
#include "views/run_maps.hpp"

namespace attnlab::animation {
namespace {

using options::Message;
using options::OptionError;

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

enum class Target { kGif, kMp4, kFolder };

Target targetOf(const QString& path) {
  if (path.endsWith(QLatin1Char('/')) || QFileInfo(path).isDir()) return Target::kFolder;
  return QFileInfo(path).suffix().toLower() == QLatin1String("mp4") ? Target::kMp4 : Target::kGif;
}

}  // namespace

SweepWritten writeSweep(const options::Options& o, const std::vector<options::SweepFrame>& frames,
                        const FrameRun& run, const SweepNote& note, const SweepProgress& progress) {
  const options::OptionSpec& spec = *o.sweep.param;
  const Target target = targetOf(o.output.out);
  if (target == Target::kMp4 && ffmpegProgram().isEmpty()) {
    throw OptionError(
        Message(ATTNLAB_MSG("--out %1: an MP4 needs ffmpeg, which is not installed (use .gif "
                            "or a folder/ for numbered PNG frames)"),
                {o.output.out}));
  }
  const int total = static_cast<int>(frames.size());
  SweepWritten written;
  written.frames = total;
  written.path = o.output.out;

  std::unique_ptr<QTemporaryDir> temporary;
  QString folder;
  if (target == Target::kFolder) {
    folder = QDir::cleanPath(QFileInfo(o.output.out).absoluteFilePath());
    if (!QDir().mkpath(folder))
      throw Error(ErrorCode::kIo, "cannot create the folder " + utf8(folder));
  } else if (target == Target::kMp4) {
    temporary = std::make_unique<QTemporaryDir>();
    if (!temporary->isValid())
      throw Error(ErrorCode::kIo, "cannot create a temporary folder for the frames");
    folder = temporary->path();
  }
  std::unique_ptr<GifWriter> gif;
  if (target == Target::kGif) gif = std::make_unique<GifWriter>(o.output.out, o.sweep.delay_ms);

  views::ImageSize size;
  std::string last_note;
  for (int f = 0; f < total; ++f) {
    if (progress && !progress(f, total)) {
      gif.reset();
      if (target == Target::kGif) QFile::remove(o.output.out);
      throw OptionError(Message(ATTNLAB_MSG("the sweep was cancelled")));
    }
    const options::SweepFrame& frame = frames[static_cast<std::size_t>(f)];
    const std::shared_ptr<const results::Run> r = run(frame.options.lab);
    if (const std::string said = r->fallbackNote(); !said.empty() && said != last_note) {
      if (note) note(said);
      last_note = said;
    }
    const views::RunMaps maps = views::mapsOf(r, frame.options.head);
    if (f == 0) size = views::outputSize(o, views::defaultSize(maps));  // one size for every frame
    QCustomPlot plot;
    plot.setViewport(QRect(0, 0, size.width, size.height));
    views::setCanvasSize(plot, QSize(size.width, size.height));
    views::drawMaps(plot, maps, frame.options.picture,
                    {views::sweepLead(spec, frame.value, maps.label.spec),
                     QStringLiteral("%1/%2").arg(f + 1).arg(total)});
    const QImage image = views::renderImage(plot, size);
    written.size = image.size();
    if (gif) {
      gif->add(image);
    } else {
      const QString file = QDir(folder).filePath(frameFileName(f));
      if (!image.save(file, "PNG")) throw Error(ErrorCode::kIo, "cannot write " + utf8(file));
    }
  }
  if (progress) progress(total, total);
  if (gif) gif->finish();
  if (target == Target::kMp4) encodeMp4(folder, total, o.sweep.delay_ms, o.output.out);
  return written;
}

}  // namespace attnlab::animation
