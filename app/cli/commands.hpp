#pragma once
/// \file commands.hpp
/// Internal to attention-lab-cli: the commands and render modes added to cli.cpp's — cost,
/// sweep, render --diff and --rollout, compute --rollout — and the sweep writer the window's
/// "Export sweep…" shares with `attention-lab-cli sweep`.

#include <QSize>
#include <QString>
#include <functional>
#include <ostream>

#include "options/options.hpp"
#include "views/views.hpp"

namespace attnlab::cli {

/// attention-lab-cli cost: the table on `out`, and --out FILE (.png .svg .pdf .csv .json).
int commandCost(const options::Options& o, std::ostream& out, std::ostream& err);
/// attention-lab-cli decode: the steps of KV-cache decoding as JSON on `out`; --out FILE draws
/// the decoded rows (.png .svg .pdf).
int commandDecode(const options::Options& o, std::ostream& out, std::ostream& err);
/// attention-lab-cli lesson list (name, title in --lang, steps) | lesson export NAME|all --out DIR
/// (each step's figure as PNG and SVG, and index.html). Throws OptionError for an unknown lesson
/// and Error when a step's figure cannot be drawn.
int commandLesson(const options::Options& o, std::ostream& out, std::ostream& err);
/// attention-lab-cli sweep: writes the animation and prints its path.
int commandSweep(const options::Options& o, std::ostream& out, std::ostream& err);
/// render with --diff or --rollout.
int renderCompared(const options::Options& o, std::ostream& out, std::ostream& err);
/// compute --rollout: the model's JSON with the captured layers up to --layer and "rollout".
int computeRollout(const options::Options& o, std::ostream& out, std::ostream& err);

/// What a sweep wrote.
struct SweepWritten {
  QString path;  ///< The .gif, .mp4 or the folder of frames.
  int frames = 0;
  QSize size;  ///< Of every frame, device pixels.
};
/// Reports progress (frames done, frames in all); returns false to stop (the partial output is
/// removed and nothing is returned: OptionError "the sweep was cancelled").
using SweepProgress = std::function<bool(int done, int total)>;
/// Computes and writes every frame of sweep `o` (command kSweep): a GIF (giflib), numbered PNGs
/// in a folder, or an MP4 (ffmpeg; refused when ffmpeg is not installed). Throws OptionError for
/// bad values (the option's own words) and Error for files and models.
SweepWritten writeSweep(const options::Options& o, std::ostream& err,
                        const SweepProgress& progress = {});

/// The size of an image: --width / --height / --scale over a picture's default (checked).
views::ImageSize outputSize(const options::Options& o, views::ImageSize size);
/// The words a sweep frame's title starts with: "d_k = 64", "T = 0.5", "layer 3", "head 2",
/// "seed = 7" (translated in the window).
QString sweepLead(const options::OptionSpec& spec, const QString& value);

}  // namespace attnlab::cli
