#pragma once
/// \file lesson_controller.hpp
/// Guided lessons in the window (issue 16): the Lessons menu, the lesson dock (lesson_panel.hpp),
/// the steps applied to the window and where the user stopped.
///
/// Choosing a step applies it through the one option table: lessons::stepOptions(step) gives the
/// options of `attention-lab-cli render`; their LabSettings go to LessonHost::setSettings, --head
/// enlarges that head, and the step's `view` opens what it names (the saturation, entropy and
/// histogram plots and the head-similarity matrix of the analysis panel — shown in presentation
/// mode too —, the A − B difference via LessonHost::compareWith, the cost and KV-cache decoding
/// docks). Nothing is hidden or locked: the user can change any control; going to a step again
/// re-applies it. After each new result the caption's live numbers are recomputed from the
/// settings on screen (lessons::quantities, on a worker thread: the GUI never waits for them).
/// The lesson and step are kept in QSettings ("lesson/name", "lesson/step" 1-based, "lesson/open")
/// when the window persists its state.

#include <QFutureWatcher>
#include <QObject>
#include <map>
#include <memory>
#include <utility>

#include "lessons/lesson.hpp"
#include "options/lab_settings.hpp"
#include "options/message.hpp"
#include "run/run.hpp"

class QAction;
class QActionGroup;
class QDockWidget;
class QMenu;

namespace attnlab::gui {

class LessonHost;
class LessonPanel;

/// The Lessons menu, the lesson dock and the lesson on screen.
class LessonController : public QObject {
  Q_OBJECT
 public:
  /// Builds the menu and the (hidden) dock in `host`'s window; `persist`: keep the position in
  /// QSettings. The lesson reaches the window only through `host` (lesson_host.hpp).
  LessonController(LessonHost& host, bool persist);
  ~LessonController() override;

  /// "NAME[:STEP]" as `attention-lab --lesson` takes it: the lesson and its 0-based step. STEP is
  /// 1 … m or a step id (default 1). Throws attnlab::Error for an unknown lesson (the lesson
  /// library's words, as attention-lab-cli lesson prints them) and options::OptionError for an
  /// unknown step.
  static std::pair<const lessons::Lesson*, int> resolve(const QString& spec);

  /// Opens lesson `name` at 0-based `step` and applies the step (throws as resolve does).
  void open(const QString& name, int step = 0);
  /// open() with resolve(spec).
  void openSpec(const QString& spec);
  /// Goes to 0-based step `step` of the open lesson (clamped) and applies it.
  void goTo(int step);
  void next();
  void previous();
  /// Closes the panel; settings stay as they are, the docks and the comparison the lesson opened
  /// close. The position is kept for "Continue lesson".
  void leave();
  /// Start-up: reopens the lesson that was open when the window last closed (QSettings), at its
  /// step, showing its view but keeping the restored settings (the user's last changes).
  void restore();

  /// The lesson on screen (null when none) and its 0-based step.
  const lessons::Lesson* lesson() const { return lesson_; }
  int step() const { return step_; }
  bool active() const { return lesson_ != nullptr; }
  /// True while the caption's live numbers for the picture on screen are still being computed.
  bool numbersPending() const;

  /// Call after every new result on screen: recomputes the live numbers.
  void resultShown();
  /// The menu, the panel and the caption in the interface language.
  void retranslate();
  /// Presentation mode: large type, and the analysis plots stay visible for the steps that show them.
  void setPresentation(bool on);

  /// Model `name` was fetched: when the step on screen waits for it, applies the step again.
  void modelFetched(const QString& name);

  QMenu* menu() const { return menu_; }
  QDockWidget* dock() const { return dock_; }
  LessonPanel* panel() const { return panel_; }
  QAction* nextAction() const { return next_action_; }
  QAction* previousAction() const { return previous_action_; }
  QAction* leaveAction() const { return leave_action_; }
  QAction* continueAction() const { return continue_action_; }

 signals:
  /// The caption on the panel changed (a step, the language, new live numbers).
  void captionUpdated();
  /// The user asked, from the panel, to fetch `name`, a model the step reads (File → Get models…
  /// does it; modelFetched() then applies the step again).
  void fetchRequested(const QString& name);

 private:
  struct Numbers {
    const lessons::Step* step = nullptr;
    std::map<QString, QString> values;
    QString error;  ///< Not empty: the quantities could not be computed (English, the library's).
  };

  void show(const lessons::Lesson& lesson, int step, bool apply_settings);
  /// Applies the step's settings; sets message_ when a model is missing or a setting is refused.
  void applySettings(const lessons::Step& step);
  /// Opens what the step's view names and closes what an earlier step of the lesson opened.
  void applyView(const lessons::Step& step);
  void applyAnalysisVisibility();
  /// Shows `dock` when the step wants it (remembering that the lesson opened it), and hides it
  /// again when a later step does not, if the lesson was the one that opened it.
  void showDock(QDockWidget* dock, bool wanted, bool& opened_by_lesson);
  /// Above the inputs: the lesson's text gets the height it needs.
  void arrangeColumn();
  /// Presentation mode: the column's width, a share of the screen (restored afterwards).
  void fitDock();
  void startNumbers();
  void numbersDone();
  void refreshPanel();
  void refreshMenu();
  void store() const;

  LessonHost& host_;
  bool persist_ = true;
  const lessons::Lesson* lesson_ = nullptr;
  int step_ = 0;
  QString last_name_;                 ///< The lesson last open ("Continue lesson"), or "".
  int last_step_ = 0;                 ///< Its 0-based step.
  options::Message message_;          ///< Inline under the caption (translated when shown).
  QString model_missing_;             ///< The step's "@minilm" that is not fetched ("" if none).
  bool set_cache_bug_ = false;        ///< A step set the decoding dock's cache bug.
  options::LabSettings applied_;      ///< The settings the step set (to place --head on its result).
  int pending_head_ = -2;
  int normal_width_ = -1;
  bool arrange_pending_ = false;      ///< Measure the panel again with the step's first result.             ///< The lesson column's width before presentation mode.             ///< −2: nothing; −1: the grid; ≥ 0: enlarge that head.
  bool opened_compare_ = false, opened_cost_ = false, opened_decode_ = false, opened_training_ = false;
  bool opened_interventions_ = false;  ///< The step's view opened the Interventions dock.
  Numbers numbers_;
  bool numbers_dirty_ = false;
  QFutureWatcher<Numbers> watcher_;
  /// The numbers' run session, used by one computation at a time (startNumbers waits for the
  /// running one); shared with it so it outlives the controller.
  std::shared_ptr<run::Session> numbers_session_ = std::make_shared<run::Session>();
  QString load_error_;                ///< The lesson files did not load (shown in the menu).

  LessonPanel* panel_ = nullptr;
  QDockWidget* dock_ = nullptr;
  QMenu* menu_ = nullptr;
  QActionGroup* group_ = nullptr;
  QAction* continue_action_ = nullptr;
  QAction* previous_action_ = nullptr;
  QAction* next_action_ = nullptr;
  QAction* leave_action_ = nullptr;
  QAction* error_action_ = nullptr;
};

}  // namespace attnlab::gui
