#pragma once
/// \file training_plot.hpp
/// The training curves of the trained translators (issue 23): the loss per logged step of
/// dates-transformer (scores q·k/√d_k) beside dates-transformer-unscaled (q·k), the scaling claim
/// of Vaswani et al. (2017, §3.2.1) measured by training.

#include <QString>
#include <QStringList>
#include <vector>

class QCustomPlot;

namespace attnlab::views {

/// One training run, as its training.json says.
struct TrainingCurve {
  QString model;               ///< "dates-transformer".
  std::vector<double> steps;   ///< Optimiser steps of the logged losses.
  std::vector<double> loss;    ///< Training cross-entropy, nats per target token.
  double test_accuracy = 0;    ///< Exact match on the held-out test set, [0, 1].
  double seconds = 0;          ///< Wall time of the training, s.
  double cross_entropy = -1;   ///< Mean normalised entropy of the cross-attention (−1: not given).
};

/// Reads `dir`/training.json of each folder. Throws Error(kIo) naming a missing file and
/// Error(kInvalidInput) naming a malformed one (steps and loss of different lengths, a loss ≤ 0).
std::vector<TrainingCurve> readTrainingCurves(const QStringList& dirs);

/// Draws the curves: x = step, y = loss (nats per token) on a log axis, one colour per run, the
/// legend naming each run with its test accuracy, training time and cross-attention entropy.
/// plot.xAxis / plot.yAxis / plot.legend point at the new axes and legend.
void drawTrainingCurves(QCustomPlot& plot, const std::vector<TrainingCurve>& curves);

}  // namespace attnlab::views
