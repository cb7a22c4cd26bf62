/// \file lesson_controller.cpp
/// The Lessons menu, the lesson dock and the steps applied to the window (lesson_controller.hpp).

#include "lesson_controller.hpp"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <stdexcept>

#include "attnlab/error.hpp"
#include "lesson_panel.hpp"
#include "lesson_host.hpp"
#include "options/options.hpp"
#include "views/export.hpp"
#include "views/picture.hpp"

namespace attnlab::gui {
namespace {

using lessons::View;

/// Width of the lesson column in presentation mode: this fraction of the screen.
constexpr double kPresentationDockFraction = 0.3;
/// Width of a cost or decoding dock a step opens in presentation mode: this fraction of the screen.
constexpr double kPresentationToolFraction = 0.22;
/// Width of a cost or training dock whose plot a step is about: this share of the window.
constexpr double kStepDockShare = 0.36;
/// The largest share of the left column the lesson takes above the inputs (which scroll): at
/// 1024 × 768 a long caption and its Try this need four fifths of it (issue 50).
constexpr double kLessonColumnShare = 0.8;

/// The model a step reads through a fetched placeholder ("@minilm" → "minilm"), or "".
QString modelPlaceholder(const QStringList& args) {
  const auto m = lessons::findModelArgument(args);
  return m && m->value.startsWith(QLatin1Char('@')) ? m->value.mid(1) : QString();
}

/// The step's options without --model and the options that apply only to a model (--layer,
/// --hide-special, --rollout …): the same step in the synthetic lab.
QStringList withoutModel(const QStringList& args) {
  QStringList out;
  for (qsizetype i = 0; i < args.size(); ++i) {
    const QString& arg = args[i];
    if (!arg.startsWith(QLatin1String("--"))) {
      out << arg;
      continue;
    }
    const QString name = arg.mid(2).section(QLatin1Char('='), 0, 0);
    const bool inline_value = arg.contains(QLatin1Char('='));
    bool drop = name == QLatin1String("model");
    bool takes_value = true;
    try {
      const options::OptionSpec& spec = options::option(name.toStdString());
      drop = drop || spec.applies == options::Applies::kModelOnly;
      takes_value = spec.kind != options::Kind::kFlag;
    } catch (const std::out_of_range&) {
      takes_value = false;  // not in the table: stepOptions will name it
    }
    if (!drop) {
      out << arg;
      continue;
    }
    if (takes_value && !inline_value) ++i;  // its value goes too
  }
  return out;
}

bool analysisView(View view) {
  return view == View::kSaturation || view == View::kEntropy || view == View::kHistogram ||
         view == View::kHeadRoles;
}

/// The analysis plot a step's view talks about (kNone for the other views).
AnalysisPlot analysisPlotOf(View view) {
  switch (view) {
    case View::kSaturation: return AnalysisPlot::kSaturation;
    case View::kEntropy: return AnalysisPlot::kEntropy;
    case View::kHistogram: return AnalysisPlot::kHistogram;
    case View::kHeadRoles: return AnalysisPlot::kHeadRoles;
    case View::kHeadSimilarity: return AnalysisPlot::kHeadSimilarity;
    default: return AnalysisPlot::kNone;
  }
}

}  // namespace

LessonController::LessonController(LessonHost& host, bool persist)
    : QObject(&host.hostWindow()), host_(host), persist_(persist) {
  setObjectName(QStringLiteral("lessonController"));
  QMainWindow& window = host.hostWindow();
  panel_ = new LessonPanel;
  dock_ = new QDockWidget(&window);
  dock_->setObjectName(QStringLiteral("lessonDock"));
  dock_->setWidget(panel_);
  // Left with "Leave lesson" (which also closes what the lesson opened), not with a close button.
  dock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  // At the top of the left column, above the inputs whose controls its "try this" names (alone
  // there in presentation mode, like a slide's text beside its picture); the cost and decoding
  // docks keep the right side.
  window.addDockWidget(Qt::LeftDockWidgetArea, dock_);
  if (auto* inputs = window.findChild<QDockWidget*>(QStringLiteral("inputsDock")))
    window.splitDockWidget(dock_, inputs, Qt::Vertical);
  dock_->hide();

  menu_ = new QMenu(&window);
  menu_->setObjectName(QStringLiteral("lessonsMenu"));
  group_ = new QActionGroup(this);
  group_->setExclusionPolicy(QActionGroup::ExclusionPolicy::ExclusiveOptional);
  try {
    for (const lessons::Lesson& lesson : lessons::all()) {
      QAction* action = menu_->addAction(lesson.name);
      action->setObjectName(QStringLiteral("lesson-") + lesson.name);
      action->setCheckable(true);
      action->setData(lesson.name);
      group_->addAction(action);
      connect(action, &QAction::triggered, this, [this, name = lesson.name] { open(name, 0); });
    }
  } catch (const std::exception& e) {
    // A broken lesson file (a build from a bad tree): the rest of the window works.
    load_error_ = QString::fromUtf8(e.what());
    error_action_ = menu_->addAction(load_error_);
    error_action_->setEnabled(false);
  }
  menu_->addSeparator();
  continue_action_ = menu_->addAction(QString());
  continue_action_->setObjectName(QStringLiteral("lessonContinue"));
  previous_action_ = menu_->addAction(QString());
  previous_action_->setShortcut(QKeySequence(Qt::Key_PageUp));
  next_action_ = menu_->addAction(QString());
  next_action_->setShortcut(QKeySequence(Qt::Key_PageDown));
  leave_action_ = menu_->addAction(QString());
  // On the window too: the keys work with the menu bar hidden (presentation mode) and wherever the
  // focus is (the heatmap, a slider). Disabled without a lesson, so they take no keys then.
  for (QAction* action : {previous_action_, next_action_}) window.addAction(action);

  connect(continue_action_, &QAction::triggered, this, [this] {
    try {
      open(last_name_, last_step_);
    } catch (const std::exception&) {
      // A lesson stored by another version that this one does not have: nothing to continue.
      last_name_.clear();
      refreshMenu();
    }
  });
  connect(previous_action_, &QAction::triggered, this, &LessonController::previous);
  connect(next_action_, &QAction::triggered, this, &LessonController::next);
  connect(leave_action_, &QAction::triggered, this, &LessonController::leave);
  connect(panel_, &LessonPanel::previousRequested, this, &LessonController::previous);
  connect(panel_, &LessonPanel::nextRequested, this, &LessonController::next);
  connect(panel_, &LessonPanel::leaveRequested, this, &LessonController::leave);
  connect(panel_, &LessonPanel::fetchRequested, this, &LessonController::fetchRequested);
  connect(&watcher_, &QFutureWatcher<Numbers>::finished, this, &LessonController::numbersDone);

  if (persist_) {
    const QSettings store;
    last_name_ = store.value(QStringLiteral("lesson/name")).toString();
    last_step_ = std::max(0, store.value(QStringLiteral("lesson/step"), 1).toInt() - 1);
  }
}

LessonController::~LessonController() {
  // The live numbers' worker reads the lesson list (static) and its own copy of the settings; wait
  // for it so its result does not arrive at a destroyed object.
  disconnect(&watcher_, nullptr, this, nullptr);
  watcher_.waitForFinished();
}

std::pair<const lessons::Lesson*, int> LessonController::resolve(const QString& spec) {
  const qsizetype colon = spec.indexOf(QLatin1Char(':'));
  const QString name = colon < 0 ? spec : spec.left(colon);
  const lessons::Lesson& lesson = lessons::byName(name);  // throws: "unknown lesson 'x' (use …)"
  if (colon < 0) return {&lesson, 0};
  const QString step = spec.mid(colon + 1);
  bool number = false;
  const int index = step.toInt(&number);
  const int count = static_cast<int>(lesson.steps.size());
  if (number && index >= 1 && index <= count) return {&lesson, index - 1};
  for (int i = 0; i < count; ++i)
    if (lesson.steps[static_cast<std::size_t>(i)].id == step) return {&lesson, i};
  throw options::OptionError(options::Message(
      ATTNLAB_MSG("lesson '%1' has no step '%2' (use 1 to %3 or a step id)"),
      {lesson.name, step, QString::number(count)}));
}

void LessonController::open(const QString& name, int step) {
  const lessons::Lesson& lesson = lessons::byName(name);
  show(lesson, step, true);
}

void LessonController::openSpec(const QString& spec) {
  const auto [lesson, step] = resolve(spec);
  show(*lesson, step, true);
}

void LessonController::goTo(int step) {
  if (lesson_) show(*lesson_, step, true);
}

void LessonController::next() {
  if (lesson_ && step_ + 1 < static_cast<int>(lesson_->steps.size())) goTo(step_ + 1);
}

void LessonController::previous() {
  if (lesson_ && step_ > 0) goTo(step_ - 1);
}

void LessonController::show(const lessons::Lesson& lesson, int step, bool apply_settings) {
  if (lesson.steps.empty()) return;
  lesson_ = &lesson;
  step_ = std::clamp(step, 0, static_cast<int>(lesson.steps.size()) - 1);
  last_name_ = lesson.name;
  last_step_ = step_;
  const lessons::Step& s = lesson.steps[static_cast<std::size_t>(step_)];
  message_ = {};
  model_missing_.clear();
  pending_head_ = -2;
  if (apply_settings) applySettings(s);
  if (!dock_->isVisible()) {
    dock_->show();
    fitDock();
  }
  dock_->raise();
  applyView(s);
  store();
  refreshMenu();
  refreshPanel();
  arrangeColumn();
  arrange_pending_ = true;
  startNumbers();  // from the picture on screen now; again when the step's result arrives
}

void LessonController::applySettings(const lessons::Step& step) {
  std::optional<options::Options> o;
  options::Message failure;
  try {
    o = lessons::stepOptions(step);
  } catch (const options::OptionError& e) {
    failure = e.message();
  } catch (const std::exception& e) {
    failure = options::Message::verbatim(QString::fromUtf8(e.what()));
  }
  // A model the step reads through "@name" that is not fetched: say what to run, and show the same
  // step in the synthetic lab meanwhile.
  const QString placeholder = modelPlaceholder(step.options);
  if (!placeholder.isEmpty() && (!o || !QFileInfo::exists(o->lab.model_dir))) {
    model_missing_ = placeholder;
    message_ = failure;  // the library's "this step needs …: run scripts/fetch-model …"
    lessons::Step synthetic = step;
    synthetic.options = withoutModel(step.options);
    try {
      o = lessons::stepOptions(synthetic);
    } catch (const std::exception&) {
      o.reset();  // the settings on screen stay
    }
  } else if (!o) {
    message_ = failure;  // a lesson file the option table refuses: its words, settings kept
  }
  if (!o) return;
  // A decode step sets the decoding dock's cache bug (none included); a later step that is not a
  // decode step takes back a bug a step set.
  if (o->command == options::kDecode) {
    host_.setCacheBug(o->decode.cache_bug, o->decode.bug_step);
    set_cache_bug_ = o->decode.cache_bug != CacheBug::kNone;
  } else if (std::exchange(set_cache_bug_, false)) {
    host_.setCacheBug(CacheBug::kNone);
  }
  // The model view's role badges: the step's --head-role (setSettings takes them off for a step
  // without head roles).
  if (o->lab.head_roles) host_.setHeadRole(o->window.head_role);
  host_.setSettings(o->lab);
  applied_ = host_.settings();
  if (o->isGiven("color-scale") || o->isGiven("pool")) {
    host_.setPicture(o->picture);
  }
  pending_head_ = o->head.value_or(-1);
}

void LessonController::applyView(const lessons::Step& step) {
  if (step.view == View::kCompare) {
    host_.compareWith(step.compare);
    opened_compare_ = true;
  } else if (opened_compare_) {
    host_.compareWith(QString());
    opened_compare_ = false;
  }
  showDock(host_.toolDock(ToolDock::kCost), step.view == View::kCost, opened_cost_);
  showDock(host_.toolDock(ToolDock::kDecode), step.view == View::kDecode, opened_decode_);
  showDock(host_.toolDock(ToolDock::kTraining), step.view == View::kTraining, opened_training_);
  showDock(host_.toolDock(ToolDock::kInterventions),
           step.view == View::kLogitLens || step.view == View::kDla, opened_interventions_);
  applyAnalysisVisibility();
  host_.showAnalysisPlot(analysisPlotOf(step.view));  // the step's plot in front, large
}

void LessonController::showDock(QDockWidget* dock, bool wanted, bool& opened_by_lesson) {
  if (!wanted) {
    // Closed again only when the lesson was the one that opened it.
    if (opened_by_lesson) dock->hide();
    opened_by_lesson = false;
    return;
  }
  QMainWindow& window = host_.hostWindow();
  if (!dock->isVisible()) {
    dock->show();
    opened_by_lesson = true;
    // Presentation mode: narrow enough that the heatmap between the two columns stays large.
    const QScreen* screen = window.screen();
    if (host_.presentationMode() && screen && !dock->isFloating())
      window.resizeDocks({dock}, {static_cast<int>(screen->geometry().width() * kPresentationToolFraction)}, Qt::Horizontal);
  }
  // The step's own plot (the cost or the training curves; the decoding step's is the heads) as
  // wide as an analysis plot a step brings to the front (issue 50: 280 px at 1024 × 768).
  const int share = static_cast<int>(window.width() * kStepDockShare);
  if (!host_.presentationMode() && !dock->isFloating() &&
      dock != host_.toolDock(ToolDock::kDecode) && dock->width() < share)
    window.resizeDocks({dock}, {share}, Qt::Horizontal);
  dock->raise();
}

void LessonController::arrangeColumn() {
  // Above the inputs: the lesson's whole text without scrolling (a class follows with the keyboard
  // only), up to kLessonColumnShare of the column; the inputs (which scroll) take the rest. In
  // presentation mode the inputs are hidden and the lesson has the column.
  QMainWindow& window = host_.hostWindow();
  // The panel below the lesson: the inputs, or (presentation mode, the inputs hidden) the analysis.
  QDockWidget* inputs = nullptr;
  for (const char* name : {"inputsDock", "analysisDock"}) {
    QDockWidget* dock = window.findChild<QDockWidget*>(QLatin1String(name));
    if (dock && dock->isVisible() && !dock->isFloating() && window.dockWidgetArea(dock) == window.dockWidgetArea(dock_)) {
      inputs = dock;
      break;
    }
  }
  if (!lesson_ || !inputs || dock_->isFloating()) return;
  // The two docks' heights, not the window's (its menu and status bars are not theirs: sizes
  // that add up to more are scaled down together, and the lesson lost its last lines).
  const int column = dock_->height() + inputs->height();
  // The text's height plus what is not text: the dock's title bar, the buttons, the margins.
  const int chrome = dock_->height() - panel_->scrollArea()->viewport()->height();
  const int wanted = panel_->textHeight() + chrome + 2 * dock_->fontMetrics().lineSpacing();
  const int lesson = std::min(wanted, static_cast<int>(column * kLessonColumnShare));
  window.resizeDocks({dock_, inputs}, {lesson, std::max(1, column - lesson)}, Qt::Vertical);
}

void LessonController::applyAnalysisVisibility() {
  // Outside presentation mode the analysis panel is always there; in it, only for a step that
  // shows its plots.
  if (!host_.presentationMode()) return;
  const bool wanted = lesson_ && analysisView(lesson_->steps[static_cast<std::size_t>(step_)].view);
  if (host_.analysisVisible() != wanted) host_.setAnalysisVisible(wanted);
}

void LessonController::leave() {
  if (!lesson_) return;
  if (opened_compare_) host_.compareWith(QString());
  opened_compare_ = false;
  showDock(host_.toolDock(ToolDock::kCost), false, opened_cost_);
  showDock(host_.toolDock(ToolDock::kDecode), false, opened_decode_);
  showDock(host_.toolDock(ToolDock::kTraining), false, opened_training_);
  if (std::exchange(set_cache_bug_, false)) host_.setCacheBug(CacheBug::kNone);
  lesson_ = nullptr;
  pending_head_ = -2;
  message_ = {};
  model_missing_.clear();
  dock_->hide();
  host_.showAnalysisPlot(AnalysisPlot::kNone);
  applyAnalysisVisibility();  // presentation mode: hidden again, at the side panel's size
  store();
  refreshMenu();
}

void LessonController::restore() {
  const QSettings store;
  if (!store.value(QStringLiteral("lesson/open")).toBool()) return;
  try {
    const lessons::Lesson& lesson = lessons::byName(store.value(QStringLiteral("lesson/name")).toString());
    show(lesson, store.value(QStringLiteral("lesson/step"), 1).toInt() - 1, false);
  } catch (const std::exception&) {
    // A lesson of an older version that no longer exists: start without it.
  }
}

void LessonController::store() const {
  if (!persist_) return;
  QSettings store;
  store.setValue(QStringLiteral("lesson/name"), last_name_);
  store.setValue(QStringLiteral("lesson/step"), last_step_ + 1);
  store.setValue(QStringLiteral("lesson/open"), lesson_ != nullptr);
}

bool LessonController::numbersPending() const {
  if (!lesson_) return false;
  return watcher_.isRunning() || numbers_dirty_ || numbers_.step != &lesson_->steps[static_cast<std::size_t>(step_)];
}

void LessonController::resultShown() {
  if (!lesson_) return;
  const ResultPtr shown = host_.currentResult();
  if (pending_head_ != -2 && shown && shown->settings == applied_) {
    const int head = std::exchange(pending_head_, -2);
    if (head >= 0) {
      host_.showHead(head);
    } else if (!host_.presentationMode()) {
      host_.showHead(-1);  // presentation mode keeps its one large head
    }
  }
  startNumbers();
  // The first result of a step: the window is laid out now, measure the text again.
  if (std::exchange(arrange_pending_, false)) arrangeColumn();
}

void LessonController::startNumbers() {
  const ResultPtr shown = host_.currentResult();
  if (!lesson_ || !shown) return;
  if (watcher_.isRunning()) {
    numbers_dirty_ = true;  // computed again from the newest picture when this one is done
    return;
  }
  numbers_dirty_ = false;
  const lessons::Step* step = &lesson_->steps[static_cast<std::size_t>(step_)];
  const options::LabSettings settings = shown->settings;
  std::shared_ptr<run::Session> session = numbers_session_;
  watcher_.setFuture(QtConcurrent::run([step, settings, session] {
    Numbers numbers;
    numbers.step = step;
    try {
      numbers.values = lessons::quantities(*step, settings, *session);
    } catch (const std::exception& e) {
      numbers.error = QString::fromUtf8(e.what());
    }
    return numbers;
  }));
}

void LessonController::numbersDone() {
  const Numbers numbers = watcher_.result();
  if (lesson_ && numbers.step == &lesson_->steps[static_cast<std::size_t>(step_)]) numbers_ = numbers;
  if (numbers_dirty_) startNumbers();
  refreshPanel();
  // The numbers made the caption longer than its room: grow the lesson's share again. Measured
  // from the text (the scroll bar's range follows only after the next layout pass, which a
  // screenshot taken now would not wait for).
  if (panel_->textHeight() > panel_->scrollArea()->viewport()->height() ||
      panel_->scrollArea()->verticalScrollBar()->maximum() > 0)
    arrangeColumn();
}

void LessonController::refreshPanel() {
  if (!lesson_) return;
  const QString language = host_.language();
  const lessons::Step& step = lesson_->steps[static_cast<std::size_t>(step_)];
  // Until the numbers of this step are computed (or when they cannot be), "…" stands in for them.
  std::map<QString, QString> values;
  const bool have = numbers_.step == &step && numbers_.error.isEmpty();
  if (have) values = numbers_.values;
  for (const QString& name : lessons::quantityNames()) values.emplace(name, QStringLiteral("…"));
  QStringList notes;
  if (!model_missing_.isEmpty()) {
    notes << (message_.empty() ? tr("This step reads the model %1, which is not on this computer: fetch it "
                                    "with the button below (or attention-lab-cli fetch-model %1); the step "
                                    "is applied when it arrives.")
                                     .arg(model_missing_)
                               : message_.translated()) +
                 QLatin1Char('\n') + (message_.empty() ? QString() : tr("The button below fetches it.") + QLatin1Char(' ')) +
                 tr("Meanwhile the step shows the synthetic lab; the rest of the lesson works.");
  } else if (!message_.empty()) {
    notes << tr("This step's settings were not applied: %1").arg(message_.translated());
  }
  if (numbers_.step == &step && !numbers_.error.isEmpty())
    notes << tr("The caption's numbers cannot be computed for these settings: %1").arg(numbers_.error);
  LessonPanelText text;
  text.title = lesson_->title.in(language);
  text.step = step_;
  text.steps = static_cast<int>(lesson_->steps.size());
  text.caption = lessons::caption(step, language, values);
  text.try_this = step.try_this.in(language);
  text.message = notes.join(QLatin1Char('\n'));
  text.fetch_model = model_missing_;
  panel_->setText(text);
  previous_action_->setEnabled(step_ > 0);
  next_action_->setEnabled(step_ + 1 < text.steps);
  emit captionUpdated();
}

void LessonController::refreshMenu() {
  const QString language = host_.language();
  for (QAction* action : group_->actions()) {
    try {
      const lessons::Lesson& lesson = lessons::byName(action->data().toString());
      action->setText(QStringLiteral("%1. %2").arg(lesson.order).arg(lesson.title.in(language)));
      action->setChecked(lesson_ == &lesson);
    } catch (const std::exception&) {
    }
  }
  const bool can_continue = !lesson_ && !last_name_.isEmpty();
  QString title = last_name_;
  if (can_continue) {
    try {
      title = lessons::byName(last_name_).title.in(language);
    } catch (const std::exception&) {
    }
  }
  continue_action_->setText(tr("Continue lesson “%1” at step %2").arg(title).arg(last_step_ + 1));
  continue_action_->setVisible(can_continue);
  continue_action_->setEnabled(can_continue);
  const bool open = lesson_ != nullptr;
  const int steps = open ? static_cast<int>(lesson_->steps.size()) : 0;
  previous_action_->setEnabled(open && step_ > 0);
  next_action_->setEnabled(open && step_ + 1 < steps);
  leave_action_->setEnabled(open);
}

void LessonController::modelFetched(const QString& name) {
  if (lesson_ && !model_missing_.isEmpty() && model_missing_ == name) goTo(step_);
}

void LessonController::retranslate() {
  menu_->setTitle(tr("Le&ssons"));
  previous_action_->setText(tr("Previous step"));
  next_action_->setText(tr("Next step"));
  leave_action_->setText(tr("Leave lesson"));
  dock_->setWindowTitle(tr("Lesson"));
  panel_->retranslate();
  refreshMenu();
  refreshPanel();
}

void LessonController::setPresentation(bool on) {
  panel_->setLarge(on);
  applyAnalysisVisibility();  // before the column is shared out: the analysis may join it
  if (lesson_) {
    fitDock();
    arrangeColumn();
  }
}

void LessonController::fitDock() {
  // Presentation mode: a fixed share of the screen, so the large type wraps in lines a class can
  // read and the heatmap keeps the rest; the column's width before is restored after.
  if (dock_->isFloating()) return;
  QMainWindow& window = host_.hostWindow();
  if (host_.presentationMode()) {
    if (normal_width_ < 0) normal_width_ = dock_->width();
    const QScreen* screen = window.screen();
    const int screen_width = screen ? screen->geometry().width() : window.width();
    window.resizeDocks({dock_}, {static_cast<int>(screen_width * kPresentationDockFraction)}, Qt::Horizontal);
  } else if (normal_width_ >= 0) {
    window.resizeDocks({dock_}, {std::exchange(normal_width_, -1)}, Qt::Horizontal);
  }
}

}  // namespace attnlab::gui
