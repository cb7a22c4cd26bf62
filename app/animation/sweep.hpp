#pragma once
/// \file sweep.hpp
/// A sweep written to a file: one frame per value of an option, each frame's run asked of the
/// caller (run::Session::run in the CLI, the window's worker thread for Export sweep), drawn by
/// views::drawMaps and written as an animated GIF, numbered PNG frames or an MP4 — what
/// attention-lab-cli sweep and the window's Export sweep write.

#include <QSize>
#include <QString>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "options/options.hpp"
#include "options/variants.hpp"
#include "results/attention.hpp"

namespace attnlab::animation {

/// What a sweep wrote.
struct SweepWritten {
  QString path;  ///< The .gif, .mp4 or the folder of frames.
  int frames = 0;
  QSize size;  ///< Of every frame, device pixels.
};
/// Reports progress (frames done, frames in all); returns false to stop (the partial output is
/// removed and nothing is returned: OptionError "the sweep was cancelled").
using SweepProgress = std::function<bool(int done, int total)>;
/// Computes one frame's run from its settings (throws what run::Session::run throws).
using FrameRun = std::function<std::shared_ptr<const results::Run>(const options::LabSettings&)>;
/// Hears a frame's CPU-fallback note (results::Run::fallbackNote) when it differs from the last
/// one heard: the CLI prints it, the window shows it beside the export's message.
using SweepNote = std::function<void(const std::string& note)>;

/// Writes the frames of sweep `o` (command kSweep; `frames` from run::sweepFrames) to
/// o.output.out: a GIF (giflib), numbered PNGs in a folder, or an MP4 (ffmpeg; refused with
/// OptionError when ffmpeg is not installed, before any frame is computed). Every frame has the
/// first frame's size (--width / --height / --scale over its default). Throws what `run`
/// throws, OptionError for a head the frame does not have, Error(kIo) for files.
SweepWritten writeSweep(const options::Options& o, const std::vector<options::SweepFrame>& frames,
                        const FrameRun& run, const SweepNote& note = {},
                        const SweepProgress& progress = {});

}  // namespace attnlab::animation
