#pragma once
/// \file translator_figures.hpp
/// The lessons' numbers about the trained translators (issue 23): what the step's translator
/// wrote, and the figures its training recorded (config.json, training.json of the model folders,
/// written by scripts/train-translators; docs/models.md "Trained translators").

#include <QString>
#include <QStringList>

namespace attnlab::results {
struct Run;
}

namespace attnlab::lessons {

/// The quantity names this file computes: "translation" (the output the step's translator wrote,
/// "2021-03-03"), "test_accuracy" (its exact match on the held-out test set, a percentage),
/// "test_examples", "alignment_in_span" (dates-additive: the fraction of output year, month and
/// day characters whose largest weight lies in the matching source field, a percentage); and,
/// whatever the step's model, the scaling experiment of the two bundled Transformers:
/// "training_steps", "loss_scaled" / "loss_unscaled" (training cross-entropy in nats per target
/// character, the mean of the last 20 logged steps), "accuracy_scaled" / "accuracy_unscaled",
/// "cross_entropy_scaled" / "cross_entropy_unscaled" (mean normalised entropy of the
/// cross-attention on the test set, two decimals).
QStringList translatorQuantityNames();

/// Quantity `name` (one of translatorQuantityNames()). `run`: the step's run when its model is a
/// translator, else null. "—" when the quantity does not apply (no translator for the first four;
/// a figure missing from the files). Throws nothing.
QString translatorQuantity(const QString& name, const results::Run* run);

}  // namespace attnlab::lessons
