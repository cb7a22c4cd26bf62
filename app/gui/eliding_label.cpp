/// \file eliding_label.cpp
/// ElidingLabel (eliding_label.hpp).

#include "eliding_label.hpp"

#include <QFontMetrics>

namespace attnlab::gui {

ElidingLabel::ElidingLabel(QWidget* parent) : QLabel(parent) {
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // shares the width, never pushes
}

void ElidingLabel::setFullText(const QString& text) {
  full_ = text;
  setToolTip(text);
  elide();
}

void ElidingLabel::resizeEvent(QResizeEvent* event) {
  QLabel::resizeEvent(event);
  elide();
}

void ElidingLabel::elide() {
  const int room = contentsRect().width() - 2 * margin();
  setText(room > 0 ? fontMetrics().elidedText(full_, Qt::ElideRight, room) : full_);
}

}  // namespace attnlab::gui

#include <QComboBox>
#include <QEvent>
#include <QStyleOptionComboBox>
#include <QStylePainter>

namespace attnlab::gui {
namespace {

/// The width the current item has inside box's frame, px.
int textRoom(const QComboBox& box, const QStyleOptionComboBox& option) {
  return box.style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, &box).width() - 4;
}

/// Paints a combo box like QComboBox::paintEvent, with the current text elided to its room.
class ComboElider : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    auto* box = qobject_cast<QComboBox*>(watched);
    if (!box || box->isEditable()) return false;
    if (event->type() == QEvent::Paint) {
      QStylePainter painter(box);
      QStyleOptionComboBox option;
      option.initFrom(box);
      option.currentText = box->currentText();
      option.currentIcon = box->itemIcon(box->currentIndex());
      option.iconSize = box->iconSize();
      option.frame = true;
      option.editable = false;
      option.currentText = box->fontMetrics().elidedText(option.currentText, Qt::ElideRight, textRoom(*box, option));
      painter.drawComplexControl(QStyle::CC_ComboBox, option);
      painter.drawControl(QStyle::CE_ComboBoxLabel, option);
      return true;
    }
    if (event->type() == QEvent::Resize || event->type() == QEvent::Show) box->setToolTip(comboElided(*box) ? box->currentText() : QString());
    return false;
  }
};

}  // namespace

bool comboElided(const QComboBox& box) {
  QStyleOptionComboBox option;
  option.initFrom(&box);
  option.frame = true;
  return box.fontMetrics().horizontalAdvance(box.currentText()) > textRoom(box, option);
}

void elideComboBoxes(QWidget* root) {
  auto* elider = new ComboElider(root);
  for (QComboBox* box : root->findChildren<QComboBox*>()) {
    // As wide as the panel gives it, not its longest item's width (which the form would take).
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(8);
    box->setMinimumWidth(96);
    box->installEventFilter(elider);
    QObject::connect(box, &QComboBox::currentTextChanged, box, [box] {
      box->setToolTip(comboElided(*box) ? box->currentText() : QString());
    });
  }
}

}  // namespace attnlab::gui

#include <QPointer>

namespace attnlab::gui {
namespace {

class WrapFitter : public QObject {
 public:
  WrapFitter(QWidget* watched, QWidget* root) : QObject(watched), root_(root) {}
  bool eventFilter(QObject*, QEvent* event) override {
    if (event->type() == QEvent::Resize && root_) fitWrappedLabels(root_);
    return false;
  }

 private:
  QPointer<QWidget> root_;
};

}  // namespace

void fitHeightToText(QLabel* label) {
  if (!label->wordWrap() || label->width() <= 0) return;
  const int height = label->heightForWidth(label->width());
  if (height > 0 && label->minimumHeight() != height) label->setMinimumHeight(height);
}

void fitWrappedLabels(QWidget* root) {
  for (QLabel* label : root->findChildren<QLabel*>()) fitHeightToText(label);
}

void fitWrappedLabelsOnResize(QWidget* watched, QWidget* root) {
  watched->installEventFilter(new WrapFitter(watched, root));
}

}  // namespace attnlab::gui
