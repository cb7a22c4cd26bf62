#pragma once
/// \file analysis_plots.hpp
/// The analysis plots of one result (the window's side panels, render --plot): row entropy, the
/// score histogram, one query row's softmax.

#include <QString>
#include <QStringList>

#include "attnlab/attention.hpp"
#include "attnlab/spec.hpp"
#include "attnlab/summary.hpp"

class QCustomPlot;

namespace attnlab::views {

/// Draws the entropy of each query row (bars, nats, mean over heads) against a uniform row's
/// ln(visible keys) (dashed steps), x labelled with the tokens (every k-th when they do not fit),
/// titled `title`; legend below. Graph 0 is the uniform line, plottable 0 the bars.
void drawRowEntropy(QCustomPlot& plot, const AttentionSummary& summary,
                    const QStringList& query_tokens, const QString& title);

/// Draws the histogram of the scores (bars) with x = score as the softmax reads it, y = cells,
/// titled `title`; the x label names the scores' scaling as `spec` has it (scalingText: "scaled
/// 1/√d_k", "unscaled", "T = 0.5") and gives the spread. Plottable 0 is the bars (absent without
/// scores).
void drawScoreHistogram(QCustomPlot& plot, const ScoreHistogram& histogram, const QString& title,
                        const AttentionSpec& spec);

/// Draws one query row's softmax over the keys as horizontal bars (key 0 at the top, weight
/// 0 … 1), keys labelled (every k-th when they do not fit), titled `title`. row < 0 draws the
/// empty panel with the title only (e.g. "Click a row to see its softmax").
void drawRowSoftmax(QCustomPlot& plot, const AttentionResult& result, int head, int row,
                    const QStringList& key_tokens, const QString& title);

}  // namespace attnlab::views
