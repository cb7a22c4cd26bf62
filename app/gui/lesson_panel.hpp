#pragma once
/// \file lesson_panel.hpp
/// The lesson side panel (Lessons menu, issue 16): the lesson's title, "Step n of m", the step's
/// caption with its live numbers, the "try this" prompt, an inline message (a model that is not
/// fetched, a setting refused) and the Previous / Next / Leave buttons. A widget only:
/// LessonController (lesson_controller.hpp) fills it from the lesson files and applies the steps
/// to the window.

#include <QWidget>

class QLabel;
class QPushButton;
class QScrollArea;

namespace attnlab::gui {

/// What the panel shows; every text is already in the interface language.
struct LessonPanelText {
  QString title;    ///< The lesson's title.
  int step = 0;     ///< 0-based step on screen.
  int steps = 0;    ///< Steps in the lesson.
  QString caption;  ///< The caption with its live numbers filled in (plain text).
  QString try_this; ///< The "try this" prompt (plain text).
  QString message;  ///< Inline note under the caption (empty: none).
  /// A model the step reads that is not fetched (a manifest name, "minilm"): the panel offers a
  /// button that fetches it (fetchRequested). Empty: no button.
  QString fetch_model;
};

/// The lesson panel's widgets. Text wraps at the panel's width (CJK included) and the panel scrolls
/// vertically when a caption is longer than the screen: nothing is ever clipped.
class LessonPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LessonPanel(QWidget* parent = nullptr);

  void setText(const LessonPanelText& text);
  /// Large type for a projector (presentation mode): every text × kPresentationScale.
  void setLarge(bool large);
  bool large() const { return large_; }
  /// The height, px, of the scrolling text at the panel's width (wrapped), to show all of it.
  int textHeight() const;
  /// Button texts and "Step n of m" (interface language).
  void retranslate();

  QLabel* titleLabel() const { return title_; }
  QLabel* stepLabel() const { return step_label_; }
  QLabel* captionLabel() const { return caption_; }
  QLabel* tryLabel() const { return try_; }
  QLabel* messageLabel() const { return message_; }
  QPushButton* previousButton() const { return previous_; }
  QPushButton* nextButton() const { return next_; }
  QPushButton* leaveButton() const { return leave_; }
  QPushButton* fetchButton() const { return fetch_; }
  QScrollArea* scrollArea() const { return scroll_; }

 signals:
  void previousRequested();
  void nextRequested();
  void leaveRequested();
  /// The user asked to fetch the step's model `name` (LessonPanelText::fetch_model).
  void fetchRequested(const QString& name);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void applyFonts();

  LessonPanelText text_;
  bool large_ = false;
  QScrollArea* scroll_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* step_label_ = nullptr;
  QLabel* caption_ = nullptr;
  QLabel* try_heading_ = nullptr;
  QLabel* try_ = nullptr;
  QLabel* message_ = nullptr;
  QPushButton* previous_ = nullptr;
  QPushButton* next_ = nullptr;
  QPushButton* leave_ = nullptr;
  QPushButton* fetch_ = nullptr;  ///< "Get the model…" under the message.
};

}  // namespace attnlab::gui
