#pragma once
/// \file interventions_panel.hpp
/// The Interventions dock: what a head does, for a model that predicts tokens — the heads
/// ablated (toggled from the model view: right-click a head, or Ctrl+click), how (zero, mean,
/// uniform), the next token and the text's loss before → after; the logit lens, direct logit
/// attribution and activation patching as pictures (views/intervention_plots.hpp);
/// value-weighted attention for the heatmaps. Its choices are LabSettings' (--ablate,
/// --ablation, --logit-lens, --dla, --target, --versus, --patch-from, --value-weighted): the
/// window and the CLI run the same requests through the run library.

#include <QWidget>
#include <memory>
#include <vector>

#include "options/lab_settings.hpp"
#include "results/attention.hpp"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;

namespace attnlab::gui {

class InterventionsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit InterventionsPanel(QWidget* parent = nullptr);

  /// Writes the panel's choices into `settings` (only for a model that is not a translator).
  void apply(options::LabSettings& settings) const;
  /// Shows `settings`' choices, without signals.
  void setSettings(const options::LabSettings& settings);
  /// Ablates head (layer, head), or restores it when it is ablated; emits changed().
  void toggle(int layer, int head);
  /// The heads ablated now.
  const std::vector<HeadRef>& ablated() const { return ablate_; }
  /// The run shown: its next token before → after and the reading's picture.
  void setResult(std::shared_ptr<const results::Run> run);
  void retranslate();

 protected:
  /// Draws the reading again when its plot is resized (the picture is laid out for its size).
  bool eventFilter(QObject* watched, QEvent* event) override;

 signals:
  /// A choice changed: the window runs again (the kept pass is reused, the ablated layers rerun).
  void changed();

 private:
  void refresh();
  void drawReading();

  std::vector<HeadRef> ablate_;
  std::shared_ptr<const results::Run> run_;
  QLabel* hint_ = nullptr;
  QLabel* heads_ = nullptr;
  QLabel* mode_label_ = nullptr;
  QComboBox* mode_ = nullptr;
  QPushButton* clear_ = nullptr;
  QLabel* next_ = nullptr;
  QCheckBox* value_weighted_ = nullptr;
  QCheckBox* lens_ = nullptr;
  QCheckBox* dla_ = nullptr;
  QLabel* target_label_ = nullptr;
  QLineEdit* target_ = nullptr;
  QLabel* versus_label_ = nullptr;
  QLineEdit* versus_ = nullptr;
  QLabel* patch_label_ = nullptr;
  QLineEdit* patch_from_ = nullptr;
  QComboBox* reading_ = nullptr;  ///< Which picture: logit lens, attribution, patching.
  QCustomPlot* plot_ = nullptr;
  QLabel* empty_ = nullptr;  ///< Said instead of the picture when the run holds no reading.
};

}  // namespace attnlab::gui
