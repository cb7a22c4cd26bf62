/// \file lesson_panel.cpp
/// The lesson side panel's widgets (lesson_panel.hpp).

#include "lesson_panel.hpp"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <algorithm>
#include <QVBoxLayout>

namespace attnlab::gui {
namespace {

/// Point sizes relative to the panel's font (which follows the window's: ×1.5 in presentation
/// mode), normal and large.
constexpr double kTitleScale = 1.3;
constexpr double kCaptionScale = 1.1;
constexpr double kLargeScale = 1.1;  ///< On top of the window's presentation font.

QLabel* wrapping(const char* name) {
  auto* label = new QLabel;
  label->setObjectName(QLatin1String(name));
  label->setWordWrap(true);
  label->setTextFormat(Qt::PlainText);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // Height for width: the label grows downwards as it wraps, never sideways (a new size policy
  // would drop the height-for-width flag setWordWrap set).
  QSizePolicy policy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  policy.setHeightForWidth(true);
  label->setSizePolicy(policy);
  return label;
}

}  // namespace

LessonPanel::LessonPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("lessonPanel"));
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);

  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  title_ = wrapping("lessonTitle");
  step_label_ = wrapping("lessonStep");
  step_label_->setStyleSheet(QStringLiteral("color: #505050;"));
  caption_ = wrapping("lessonCaption");
  try_heading_ = wrapping("lessonTryHeading");
  try_ = wrapping("lessonTry");
  try_->setStyleSheet(QStringLiteral(
      "QLabel { background: #eef4fb; border-left: 4px solid #3465a4; padding: 6px; }"));
  message_ = wrapping("lessonMessage");
  message_->setStyleSheet(QStringLiteral(
      "QLabel { color: #5c4300; background: #fff4d6; border: 1px solid #e0c27a; "
      "border-radius: 3px; padding: 4px; }"));
  message_->hide();
  fetch_ = new QPushButton;
  fetch_->setObjectName(QStringLiteral("lessonFetchModel"));
  fetch_->hide();
  layout->addWidget(title_);
  layout->addWidget(step_label_);
  layout->addSpacing(6);
  layout->addWidget(caption_);
  layout->addWidget(message_);
  layout->addWidget(fetch_, 0, Qt::AlignLeft);
  layout->addSpacing(6);
  layout->addWidget(try_heading_);
  layout->addWidget(try_);
  layout->addStretch(1);

  scroll_ = new QScrollArea;
  scroll_->setWidget(page);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // text wraps instead
  outer->addWidget(scroll_, 1);

  // The buttons stay in view below the scrolling text.
  auto* buttons = new QHBoxLayout;
  buttons->setContentsMargins(6, 0, 6, 6);
  previous_ = new QPushButton;
  previous_->setObjectName(QStringLiteral("lessonPrevious"));
  next_ = new QPushButton;
  next_->setObjectName(QStringLiteral("lessonNext"));
  leave_ = new QPushButton;
  leave_->setObjectName(QStringLiteral("lessonLeave"));
  for (QPushButton* b : {previous_, next_, leave_}) b->setFocusPolicy(Qt::TabFocus);
  buttons->addWidget(previous_);
  buttons->addWidget(next_);
  buttons->addStretch(1);
  buttons->addWidget(leave_);
  outer->addLayout(buttons);

  connect(previous_, &QPushButton::clicked, this, &LessonPanel::previousRequested);
  connect(next_, &QPushButton::clicked, this, &LessonPanel::nextRequested);
  connect(leave_, &QPushButton::clicked, this, &LessonPanel::leaveRequested);
  connect(fetch_, &QPushButton::clicked, this, [this] { emit fetchRequested(text_.fetch_model); });
  applyFonts();
  retranslate();
}

void LessonPanel::setText(const LessonPanelText& text) {
  text_ = text;
  title_->setText(text.title);
  caption_->setText(text.caption);
  try_->setText(text.try_this);
  try_->setVisible(!text.try_this.isEmpty());
  try_heading_->setVisible(!text.try_this.isEmpty());
  message_->setText(text.message);
  message_->setVisible(!text.message.isEmpty());
  fetch_->setVisible(!text.fetch_model.isEmpty());
  previous_->setEnabled(text.step > 0);
  next_->setEnabled(text.step + 1 < text.steps);
  retranslate();
}

void LessonPanel::setLarge(bool large) {
  large_ = large;
  applyFonts();
}

int LessonPanel::textHeight() const {
  // Wrapped as narrow as it can be: beside a vertical scroll bar.
  const QWidget* page = scroll_->widget();
  const int width = std::max(100, scroll_->width() - 2 * scroll_->frameWidth() - scroll_->verticalScrollBar()->sizeHint().width());
  return page->hasHeightForWidth() ? page->heightForWidth(width) : page->sizeHint().height();
}

void LessonPanel::applyFonts() {
  // Relative to the inherited font, so the window's presentation font carries through.
  const QFont base = font();
  const double size = base.pointSizeF() > 0 ? base.pointSizeF() : 10.0;
  const double scale = large_ ? kLargeScale : 1.0;
  QFont title = base;
  title.setBold(true);
  title.setPointSizeF(size * kTitleScale * scale);
  title_->setFont(title);
  QFont caption = base;
  caption.setPointSizeF(size * kCaptionScale * scale);
  caption_->setFont(caption);
  QFont body = base;
  body.setPointSizeF(size * scale);
  for (QLabel* label : {step_label_, try_, message_}) label->setFont(body);
  QFont heading = body;
  heading.setBold(true);
  try_heading_->setFont(heading);
  for (QPushButton* b : {previous_, next_, leave_, fetch_}) b->setFont(body);
}

void LessonPanel::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange) applyFonts();
}

void LessonPanel::retranslate() {
  step_label_->setText(text_.steps > 0 ? tr("Step %1 of %2").arg(text_.step + 1).arg(text_.steps) : QString());
  try_heading_->setText(tr("Try this"));
  previous_->setText(tr("← Previous"));
  next_->setText(tr("Next →"));
  leave_->setText(tr("Leave lesson"));
  fetch_->setText(tr("Get %1…").arg(text_.fetch_model));
  previous_->setToolTip(tr("Previous step (Page Up)"));
  next_->setToolTip(tr("Next step (Page Down)"));
}

}  // namespace attnlab::gui
