#pragma once
/// \file intervention_plots.hpp
/// The pictures of a model run's interventions (results::Interventions): the logit lens
/// (layers × positions, the top token written in each cell, coloured by its probability), direct
/// logit attribution (layers × heads and the MLPs, on a diverging scale in logit units) and
/// activation patching (layers × heads and layers × positions, the fraction of the logit
/// difference recovered). Rows are layers, layer 0 at the top, as the model view reads.

#include <QSize>
#include <QString>
#include <QStringList>

#include "results/attention.hpp"

class QCustomPlot;

namespace attnlab::views {

/// The canvas drawLogitLens lays out best for L layers and n positions (px).
QSize defaultLogitLensSize(int layers, int positions);
/// The logit lens of `lens`: cells [L, n] coloured by the top token's probability (viridis, 0–1),
/// the top token written in the cell when it fits; columns labelled by the input tokens `labels`
/// (the prediction is for the token after each), the last row the model's own prediction.
void drawLogitLens(QCustomPlot& plot, const LogitLens& lens, const QStringList& labels,
                   const QString& title);

/// The canvas drawLogitAttribution lays out best for L layers × h heads (px).
QSize defaultAttributionSize(int layers, int heads);
/// Direct logit attribution: each head's part [L, h] and each MLP's [L, 1], one diverging scale
/// symmetric about 0 (red adds to the logit, blue takes away), the largest heads named; a note
/// gives the embedding's part and that the parts sum to the logit.
void drawLogitAttribution(QCustomPlot& plot, const LogitAttribution& dla, const QString& title);

/// The canvas drawPatching lays out best (px).
QSize defaultPatchingSize(int layers, int heads, int positions);
/// Activation patching: the fraction of the logit difference recovered with each head's output
/// [L, h] and with the residual stream at each layer and position [L, n] copied from the clean
/// prompt into the corrupted one; diverging scale over [−1, 1]; columns of the second panel the
/// clean prompt's tokens `labels`.
void drawPatching(QCustomPlot& plot, const PatchingResult& patching, const QStringList& labels,
                  const QString& title);

/// Marks the ablated heads on the model view last drawn on `plot` (drawModelGrid, map r·h + k =
/// shown layer r, head k): a dark frame and a cross over each ablated head's thumbnail.
void markAblatedHeads(QCustomPlot& plot, const std::vector<HeadRef>& heads, int heads_per_layer,
                      const std::vector<int>& layer_indices);

/// `note` with a model run's interventions appended, as the pictures' titles say them: the
/// ablation's line and the value-weighted note (" · " between parts).
QString withInterventionNotes(const results::Run& run, const QString& note);

/// The note of a value-weighted picture ("value-weighted: α_ij·‖v_j W_O^h‖ per row …").
QString valueWeightedNote();

/// The line under a model view with an ablation: "ablated (zero): 3.2, 10.5 · next token
/// ␣Berlin 96.4 % → ␣Berlin 96.1 % (−0.3 points) · mean loss 1.999 → 1.989 nats".
QString ablationLine(const results::Interventions& interventions);

}  // namespace attnlab::views
