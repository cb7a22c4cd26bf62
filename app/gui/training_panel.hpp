#pragma once
/// \file training_panel.hpp
/// The training curves (View → Training curves; lesson 2's "training" step): the loss per step of
/// dates-transformer (scores q·k/√d_k) beside dates-transformer-unscaled (q·k), the scaling claim
/// of Vaswani et al. (2017, §3.2.1) measured by training (issue 23) — drawn by
/// views::drawTrainingCurves as `attention-lab-cli render --plot training` draws it, from the
/// bundled models' training.json.

#include <QWidget>
#include <optional>
#include <vector>

#include "views/training_plot.hpp"

class QCustomPlot;
class QLabel;

namespace attnlab::gui {

/// The plot and, when the bundled models are missing, the command line's line saying so.
class TrainingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingPanel(QWidget* parent = nullptr);

  /// Draws the curves (again: the language changed) when the panel is shown; a hidden panel draws
  /// when it is shown next (setActive).
  void redraw();
  /// The dock is visible: draw what was missed.
  void setActive(bool active);

  QCustomPlot* plot() const { return plot_; }
  QLabel* messageLabel() const { return message_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;  ///< The title fits the new width.

 private:
  std::optional<std::vector<views::TrainingCurve>> curves_;  ///< Read on the first draw.
  QCustomPlot* plot_ = nullptr;
  QLabel* message_ = nullptr;
  bool active_ = false;
  bool dirty_ = true;
};

}  // namespace attnlab::gui
