#pragma once
/// \file eliding_label.hpp
/// Texts that fit a narrow panel instead of being cut: ElidingLabel (one line ending in "…", the
/// whole text as its tooltip: the status bar's two fields), elided combo boxes and word-wrapped
/// labels at the height their text needs (the inputs column on a projector).

#include <QLabel>

namespace attnlab::gui {

class ElidingLabel : public QLabel {
  Q_OBJECT
 public:
  explicit ElidingLabel(QWidget* parent = nullptr);
  /// The text to show (elided to the width) and its tooltip.
  void setFullText(const QString& text);
  QString fullText() const { return full_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void elide();
  QString full_;
};

}  // namespace attnlab::gui

class QComboBox;

namespace attnlab::gui {

/// Makes every combo box under `root` as wide as its panel gives it (not its longest item's) and
/// draw its current item elided ("…") to that width instead of cutting it, with the whole item as the box's tooltip; the list still shows every
/// item in full. For a narrow side panel (the inputs), whose boxes are as wide as it allows.
void elideComboBoxes(QWidget* root);

/// True when `box` draws its current item elided (it does not fit).
bool comboElided(const QComboBox& box);

}  // namespace attnlab::gui

namespace attnlab::gui {

/// Gives a word-wrapped label the height its text needs at its width (its minimum height).
void fitHeightToText(QLabel* label);
/// Gives every word-wrapped label under `root` the height its text needs at its width (a scroll
/// area sizes its page without asking for heights per width, so long wrapped lines would be cut).
/// Call after texts change; a resize of `root` calls it again by itself once installed with
/// fitWrappedLabelsOnResize.
void fitWrappedLabels(QWidget* root);
/// Calls fitWrappedLabels(root) whenever `watched` (e.g. the scroll area's viewport) is resized.
void fitWrappedLabelsOnResize(QWidget* watched, QWidget* root);

}  // namespace attnlab::gui
