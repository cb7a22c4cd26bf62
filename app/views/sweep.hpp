#pragma once
/// \file sweep.hpp
/// A sweep: one frame per value of an option, the rest of the settings as given, each frame run
/// through run::Session and drawn by drawMaps — attention-lab-cli sweep and the window's
/// Export sweep. Also the image size rule of every CLI picture (--width, --height, --scale).

#include <QSize>
#include <QString>
#include <functional>
#include <ostream>

#include "options/options.hpp"
#include "run/run.hpp"
#include "views/export.hpp"
#include "views/picture_options.hpp"

namespace attnlab::views {

/// What a sweep wrote.
struct SweepWritten {
  QString path;  ///< The .gif, .mp4 or the folder of frames.
  int frames = 0;
  QSize size;  ///< Of every frame, device pixels.
};
/// Reports progress (frames done, frames in all); returns false to stop (the partial output is
/// removed and nothing is returned: OptionError "the sweep was cancelled").
using SweepProgress = std::function<bool(int done, int total)>;
/// Computes (through `session`) and writes every frame of sweep `o` (command kSweep): a GIF
/// (giflib), numbered PNGs in a folder, or an MP4 (ffmpeg; refused when ffmpeg is not installed).
/// The CPU-fallback note of --backend opencl goes to `err`, once. Throws OptionError for bad
/// values (the option's own words), LoadFailure for a model that does not load, Error for files.
SweepWritten writeSweep(const options::Options& o, run::Session& session, std::ostream& err,
                        const SweepProgress& progress = {});

/// The size of an image: --width / --height / --scale over a picture's default (checked).
ImageSize outputSize(const options::Options& o, ImageSize size);
/// The words a sweep frame's title starts with: "d_k = 64", "T = 0.5", "8 heads", "layer 3",
/// "head 2", "seed = 7" (translated in the window). A parameter the title states anyway (d_k, T,
/// heads, mechanism) is written as the title writes it, from `shown` (the frame's resolved spec),
/// so the title says it once.
QString sweepLead(const options::OptionSpec& spec, const QString& value,
                  const AttentionSpec& shown);

}  // namespace attnlab::views
