#pragma once
/// \file compare.hpp
/// Difference maps (A − B) and attention rollout pictures: the results they draw and their titles.

#include <QStringList>
#include <optional>

#include "attnlab/difference.hpp"
#include "views/picture.hpp"

namespace attnlab::views {

/// A difference Δ = A − B (weightDifference) as a result the heatmaps draw: weights and scores Δ,
/// one "head" per map, the difference's mask. Draw it with PictureOptions::color_scale =
/// kDifference and a PictureTitle whose replace is differenceTitle(…).
AttentionResult differenceResult(const WeightDifference& difference);

/// One side of a difference map, as its title describes it.
struct DifferenceSide {
  RunLabel label;           ///< Model, layer (one layer shown), spec (mechanism, d_k, T, mask).
  std::optional<int> head;  ///< The head compared, or every head.
  QString extra;            ///< Words only this side has ("attention rollout"), may be empty.
};
/// The title parts of a difference map: "difference A − B", what differs ("A: head 0",
/// "B: head 3"), what both share, and "max |Δ| = 0.734 at [layer l, ][head k, ]query i 'it' →
/// key j 'cat' (A 0.801, B 0.067)". layer_of_max names the layer of the largest |Δ| (model
/// view), head_in_location its map as a head (grids).
QStringList differenceTitle(const DifferenceSide& a, const DifferenceSide& b,
                            const WeightDifference& difference, std::optional<int> layer_of_max,
                            bool head_in_location, const QStringList& query_tokens,
                            const QStringList& key_tokens);

/// The title parts of a rollout picture: model, "attention rollout through layers 0–5",
/// "Abnar & Zuidema 2020", that the heads are averaged and that averaging is a choice, the
/// residual ½·A + ½·I.
QStringList rolloutTitle(const QString& model, int first_layer, int last_layer);

}  // namespace attnlab::views
