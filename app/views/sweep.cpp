/// \file sweep.cpp
/// A sweep's frames, one per value of an option, as an animated GIF, numbered PNG frames or an
/// MP4 (when ffmpeg is installed): attention-lab-cli sweep and the window's Export sweep.

#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <memory>

#include "attnlab/error.hpp"
#include "views/run_maps.hpp"
#include "views/sweep.hpp"
#include "options/variants.hpp"
#include "views/animation.hpp"

namespace attnlab::views {
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

ImageSize outputSize(const options::Options& o, ImageSize size) {
  if (o.output.width) size.width = *o.output.width;
  if (o.output.height) size.height = *o.output.height;
  size.scale = o.output.scale;
  options::checkImageSize(size.width, size.height, size.scale);
  return size;
}

QString sweepLead(const options::OptionSpec& spec, const QString& value,
                  const AttentionSpec& shown) {
  // The parameters the title says anyway, in the title's own words (withPictureTitle then says
  // them once, first).
  if (spec.name == "temperature" && shown.temperature) return scalingText(shown);
  if (spec.name == "d-k") return QStringLiteral("d_k = %1").arg(shown.resolvedDk());
  if (spec.name == "mechanism") return mechanismTitle(shown);
  if (spec.name == "heads")
    return shown.heads == 1 ? viewText("1 head") : viewText("%1 heads").arg(shown.heads);
  if (spec.name == "temperature") return QStringLiteral("T = %1").arg(value);
  if (spec.name == "layer") return viewText("layer %1").arg(value);
  if (spec.name == "head") return viewText("head %1").arg(value);
  if (spec.name == "mechanism") return value;
  QString name = QString::fromUtf8(spec.name.data(), static_cast<qsizetype>(spec.name.size()));
  name.replace(QLatin1Char('-'), QLatin1Char('_'));
  return QStringLiteral("%1 = %2").arg(name, value);
}

SweepWritten writeSweep(const options::Options& o, run::Session& session, std::ostream& err,
                        const SweepProgress& progress) {
  if (!o.sweep.param) throw OptionError(Message(ATTNLAB_MSG("--param NAME is required (e.g. --param d_k)")));
  const options::OptionSpec& spec = *o.sweep.param;
  const Target target = targetOf(o.output.out);
  if (target == Target::kMp4 && ffmpegProgram().isEmpty()) {
    throw OptionError(
        Message(ATTNLAB_MSG("--out %1: an MP4 needs ffmpeg, which is not installed (use .gif "
                            "or a folder/ for numbered PNG frames)"),
                {o.output.out}));
  }
  std::vector<options::SweepFrame> frames = options::sweepFrames(o, 0);
  if (frames.empty()) {
    // Every layer or every head of a model: known once the model is loaded.
    options::validate(o.lab);
    const ModelConfig& config = session.model(o.lab.model_dir)->config;
    frames = options::sweepFrames(o, spec.name == "layer" ? config.layers : config.heads);
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
  if (target == Target::kGif)
    gif = std::make_unique<GifWriter>(o.output.out, o.sweep.delay_ms);

  ImageSize size;
  std::string last_note;
  for (int f = 0; f < total; ++f) {
    if (progress && !progress(f, total)) {
      gif.reset();
      if (target == Target::kGif) QFile::remove(o.output.out);
      throw OptionError(Message(ATTNLAB_MSG("the sweep was cancelled")));
    }
    const options::SweepFrame& frame = frames[static_cast<std::size_t>(f)];
    const RunMaps maps = mapsOf(session.run(frame.options.lab), frame.options.head);
    if (const std::string note = std::static_pointer_cast<const run::Run>(maps.keep)->fallbackNote();
        !note.empty() && note != last_note) {
      err << "attention-lab-cli: note: computed on the CPU: " << note << "\n";
      last_note = note;
    }
    if (f == 0) size = outputSize(o, defaultSize(maps));  // one size for every frame
    QCustomPlot plot;
    plot.setViewport(QRect(0, 0, size.width, size.height));
    setCanvasSize(plot, QSize(size.width, size.height));
    drawMaps(plot, maps, frame.options.picture,
             {sweepLead(spec, frame.value, maps.label.spec),
              QStringLiteral("%1/%2").arg(f + 1).arg(total)});
    const QImage image = renderImage(plot, size);
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

}  // namespace attnlab::views
