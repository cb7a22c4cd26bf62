#pragma once
/// \file mode_plots.hpp
/// The pictures of the decode and generate modes, drawn from their results: the decoded rows of
/// the synthetic lab's KV cache (with a cache bug, their difference from the full causal
/// computation) and the causal matrix of a generation as it grew.

#include <optional>
#include <utility>

#include "results/decode.hpp"
#include "results/generation.hpp"
#include "views/picture_options.hpp"

class QCustomPlot;

namespace attnlab::views {

/// A decode's picture, laid out for the plot's canvas (setCanvasSize): every head (head unset) or
/// one. Without a bug the decoded weights; with one Δ = decoded − full causal on the diverging
/// scale, so the rows before the bug are exactly 0 and the bug's token lights up in every later
/// row. The note says the bug, where rows start to differ (the weights' max |Δ|, what the picture
/// shows) and the cache's bytes at the last step.
void drawDecoded(QCustomPlot& plot, const results::Decoded& d, std::optional<int> head,
                 const PictureOptions& picture);

/// The entry of g.shown->layers() and the head a picture of one map shows by default: the head
/// whose generated rows put the least weight on the first token (its pattern is the one to read;
/// a sink head shows one bright column). Prompt rows count when nothing was generated past step 0.
std::pair<int, int> readableHead(const results::Generated& g);

/// A generation's picture: the grown matrix of one kept layer (`entry`) and head, the prompt's
/// block framed by a line under its rows and one right of its columns, the note saying the
/// prompt's and the generated rows and the cache at the last step.
void drawGeneration(QCustomPlot& plot, const results::Generated& g, int entry, int head,
                    const PictureOptions& picture);

}  // namespace attnlab::views
