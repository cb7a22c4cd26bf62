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
