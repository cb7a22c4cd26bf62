/// \file main_window.cpp
/// The window's shell: the panels built and wired, results to panels, the status bar, and what
/// a lesson may do (LessonHost). Menus and language: main_window_menus.cpp; presentation mode,
/// keys and --layout-json: main_window_presentation.cpp; QSettings: main_window_state.cpp.

#include "main_window.hpp"

#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QVBoxLayout>
#include <algorithm>

#include "attnlab/memory.hpp"
#include "eliding_label.hpp"
#include "interventions_panel.hpp"
#include "lesson_controller.hpp"

static void initAttentionLabResources() {
  Q_INIT_RESOURCE(attention_lab);
  Q_INIT_RESOURCE(attention_lab_translations);
}

namespace attnlab::gui {

void initResources() { initAttentionLabResources(); }

namespace {

/// Milliseconds of quiet typing before the text is recomputed.
constexpr int kTypingDebounceMs = 150;

}  // namespace

MainWindow::MainWindow(const WindowOptions& options, QWidget* parent)
    : QMainWindow(parent),
      options_(options),
      controller_(std::make_unique<ComputeController>()),
      scheduler_([this] { render(); }) {
  setObjectName(QStringLiteral("AttentionLabWindow"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/attention-lab.svg")));

  // Inputs dock: the source of attention over the inputs form.
  auto* inputs_page = new QWidget;
  auto* inputs_layout = new QVBoxLayout(inputs_page);
  inputs_layout->setContentsMargins(0, 0, 0, 0);
  model_source_ = new ModelSource(options_.persist);
  model_source_->setObjectName(QStringLiteral("modelSourceBox"));
  inputs_ = new InputsPanel;
  inputs_->setObjectName(QStringLiteral("inputsPanel"));
  generate_ = new GenerateBox(&scheduler_);
  generate_->setObjectName(QStringLiteral("generateBox"));
  generate_->setAvailable(false);
  inputs_layout->addWidget(model_source_);
  inputs_layout->addWidget(generate_);
  inputs_layout->addWidget(inputs_, 1);
  auto* scroll = new QScrollArea;
  scroll->setWidget(inputs_page);
  scroll->setWidgetResizable(true);
  scroll->setMinimumWidth(340);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // the form wraps instead
  // The column never scrolls sideways nor cuts its controls: lists are as wide as the column
  // gives them (their items elided, the full text in the list), texts wrap.
  elideComboBoxes(inputs_page);
  for (QLabel* label : inputs_page->findChildren<QLabel*>()) label->setWordWrap(true);
  fitWrappedLabelsOnResize(scroll->viewport(), inputs_page);
  inputs_dock_ = new QDockWidget(this);
  inputs_dock_->setObjectName(QStringLiteral("inputsDock"));
  inputs_dock_->setWidget(scroll);
  addDockWidget(Qt::LeftDockWidgetArea, inputs_dock_);

  heads_ = new HeadsView(scheduler_);
  heads_->setObjectName(QStringLiteral("headsView"));
  analysis_ = new AnalysisPanel(scheduler_);
  analysis_->setObjectName(QStringLiteral("analysisPanel"));
  setCentralWidget(heads_);  // the heatmaps own the window; every other panel is a dock
  analysis_dock_ = new QDockWidget(this);
  analysis_dock_->setObjectName(QStringLiteral("analysisDock"));
  analysis_dock_->setWidget(analysis_);
  addDockWidget(Qt::RightDockWidgetArea, analysis_dock_);
  for (QDockWidget* dock : {inputs_dock_, analysis_dock_}) {
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    // A panel brought back (its tab chosen, shown again) draws what it missed.
    connect(dock, &QDockWidget::visibilityChanged, this, [this] { scheduler_.requestRender(); });
  }
  setTabPosition(Qt::AllDockWidgetAreas, QTabWidget::North);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
  exports_ = new ExportController(
      this, *heads_, *analysis_,
      [this] {
        const int d_k = shown_ && shown_->model && !modelDir().isEmpty() ? shown_->model->config.dK()
                                                                         : inputs_->dk();
        return std::make_pair(d_k, settings().scaled());
      },
      options_.persist);
  exports_->setObjectName(QStringLiteral("exportController"));

  compare_ = new CompareController(this);
  compare_->setObjectName(QStringLiteral("compareController"));
  heads_->setComparison(compare_);
  cost_ = new CostPanel;
  cost_dock_ = new QDockWidget(this);
  cost_dock_->setObjectName(QStringLiteral("costDock"));
  cost_dock_->setWidget(cost_);
  addDockWidget(Qt::RightDockWidgetArea, cost_dock_);
  cost_dock_->hide();
  decode_ = new DecodePanel;
  decode_->setObjectName(QStringLiteral("decodePanel"));
  decode_dock_ = new QDockWidget(this);
  decode_dock_->setObjectName(QStringLiteral("decodeDock"));
  decode_dock_->setWidget(decode_);
  addDockWidget(Qt::RightDockWidgetArea, decode_dock_);
  decode_dock_->hide();
  connect(decode_dock_, &QDockWidget::visibilityChanged, decode_, &DecodePanel::setActive);
  training_ = new TrainingPanel;
  training_->setObjectName(QStringLiteral("trainingPanel"));
  training_dock_ = new QDockWidget(this);
  training_dock_->setObjectName(QStringLiteral("trainingDock"));
  training_dock_->setWidget(training_);
  addDockWidget(Qt::RightDockWidgetArea, training_dock_);
  training_dock_->hide();
  setUpInterventions();  // the Interventions dock (main_window_interventions.cpp)
  connect(training_dock_, &QDockWidget::visibilityChanged, training_, &TrainingPanel::setActive);
  // heads_ as the receiver: the connection ends with it (the dock reports "hidden" while the window
  // is destroyed, after the central widget).
  connect(decode_, &DecodePanel::rowsChanged, heads_, &HeadsView::setRevealedRows);
  connect(decode_, &DecodePanel::decodedChanged, heads_, [this](const ResultPtr& decoded) {
    if (!shown_) return;
    heads_->setResult(decoded ? decoded : shown_);  // a cache bug's decoded rows, or the run
    heads_->redraw();
  });

  status_time_ = new ElidingLabel;  // both share the width, never overlap, never cut a word
  status_backend_ = new ElidingLabel;
  status_time_->setObjectName(QStringLiteral("statusTime"));
  status_backend_->setObjectName(QStringLiteral("statusBackend"));
  statusBar()->addWidget(status_time_, 3);
  statusBar()->addWidget(status_backend_, 2);
  cancel_button_ = new QPushButton(tr("Cancel"));
  cancel_button_->setObjectName(QStringLiteral("cancelComputation"));
  cancel_button_->setToolTip(tr("Stop the work in progress — reading a model's weights, or the forward pass after "
                                "its current layer (Esc); the last picture stays"));
  cancel_button_->hide();
  progress_bar_ = new QProgressBar;
  progress_bar_->setObjectName(QStringLiteral("computeProgress"));
  progress_bar_->setTextVisible(false);
  progress_bar_->setMaximumWidth(160);
  progress_bar_->hide();
  statusBar()->addPermanentWidget(progress_bar_);
  statusBar()->addPermanentWidget(cancel_button_);
  connect(cancel_button_, &QPushButton::clicked, this, [this] {
    controller_->cancel();
    cancel_button_->hide();
    progress_bar_->hide();
    status_time_->setFullText(tr("Cancelling…"));
  });

  lessons_ = new LessonController(*this, options_.persist);
  buildMenus();
  loadExamples();
  fitToScreen();

  debounce_.setSingleShot(true);
  debounce_.setInterval(kTypingDebounceMs);
  connect(&debounce_, &QTimer::timeout, this, &MainWindow::requestNow);
  connect(inputs_, &InputsPanel::typed, &debounce_, qOverload<>(&QTimer::start));
  connect(inputs_, &InputsPanel::changed, this, [this] {
    requestNow();
    scheduler_.requestRender();  // the saturation marker moves with the slider at once
  });
  connect(inputs_, &InputsPanel::retryRequested, this, [this] {
    debounce_.stop();
    controller_->retryOpenCl(settings());
    updateActions();
  });
  connect(inputs_, &InputsPanel::pictureChanged, this, [this] {
    heads_->setPicture(inputs_->picture());
    persistPicture();
  });
  connect(model_source_, &ModelSource::sourceChanged, this, [this](const QString& dir) {
    // Into a translator, its date goes in the source; out of one, the lab's texts come back.
    const bool translator = model_source_->translator();
    if (!translator) inputs_->setTranslator(nullptr, QString(), true);
    inputs_->setModelMode(!dir.isEmpty(), nullptr);
    if (translator) {
      showTranslatorInputs(true);
      // The output appears one character at a time with its attention row (the decoding dock).
      play_translation_ = true;
      decode_dock_->show();
      decode_dock_->raise();
    }
    heads_->showGrid();
    if (!dir.isEmpty()) status_time_->setFullText(tr("Loading %1…").arg(QFileInfo(dir).fileName()));
    requestNow();
  });
  connect(generate_->button(), &QPushButton::clicked, this, [this] {
    debounce_.stop();
    generate_->toggle(settings());
  });
  // Each step's grown rows are drawn like a forward pass's result (one path: run::showPass).
  connect(generate_, &GenerateBox::stepped, this, [this](const ResultPtr& result) {
    if (settings() != result->settings) return;  // the inputs changed meanwhile
    inputs_->showMessage(QString());
    pending_ = result;
    scheduler_.requestRender();
  });
  connect(model_source_, &ModelSource::layerChanged, this, &MainWindow::requestNow);
  connect(model_source_, &ModelSource::filterChanged, this, &MainWindow::requestNow);
  connect(model_source_, &ModelSource::headRoleChanged, this, [this] {
    const std::optional<HeadRole> role = model_source_->headRole();
    heads_->setHeadRole(role);
    raise_roles_ = role.has_value();
    if (options_.persist) {  // restored at the next start (main_window_state.cpp)
      const std::string_view name = role ? headRoleName(*role) : std::string_view("none");
      QSettings().setValue(QStringLiteral("ui/head_role"),
                           QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())));
    }
    requestNow();  // the first role of a model computes them (off this thread); later ones reuse them
  });
  connect(analysis_->headRolesPanel(), &HeadRolesPanel::headChosen, heads_, &HeadsView::enlargeLayerHead);
  connect(controller_.get(), &ComputeController::resultReady, this, &MainWindow::onResult);
  connect(controller_.get(), &ComputeController::modelLoading, this, [this](const QString& dir) {
    status_time_->setFullText(tr("Loading %1…").arg(QFileInfo(dir).fileName()));
    model_source_->showLoading(dir);
  });
  connect(controller_.get(), &ComputeController::progress, this, [this](int done, int total) {
    if (done < total) showWork(tr("Computing layer %1 of %2…").arg(done + 1).arg(total), done, total);
  });
  connect(controller_.get(), &ComputeController::reading, this, [this](qint64 done, qint64 total) {
    // A large model's weights read from disk the first time (seconds): how far, and Cancel.
    if (done < total)
      showWork(tr("Reading the weights: %1 of %2…")
                   .arg(QString::fromStdString(formatBytes(done)), QString::fromStdString(formatBytes(total))),
               static_cast<int>(1000 * done / std::max<qint64>(total, 1)), 1000);
  });
  connect(controller_.get(), &ComputeController::devicesListed, this, [this](const QStringList& devices) {
    if (inputs_->setDevices(devices)) requestNow();
  });
  connect(heads_, &HeadsView::focusChanged, &scheduler_, &RenderScheduler::requestRender);
  connect(heads_, &HeadsView::layerRequested, this, [this](int layer) {
    options::LabSettings s = settings();
    s.layer = layer;  // as if chosen in the inputs' layer box: a run of that layer in full
    setSettings(s);
  });
  connect(heads_, &HeadsView::mapPlanChanged, controller_.get(), &ComputeController::setMapPlan);
  connect(compare_, &CompareController::changed, heads_, &HeadsView::invalidate);
  connect(analysis_, &AnalysisPanel::curvesReady, &scheduler_, &RenderScheduler::requestRender);
  connect(exports_, &ExportController::status, statusBar(), &QStatusBar::showMessage);
  connect(&scheduler_, &RenderScheduler::idle, this, &MainWindow::checkReady);
  connect(lessons_, &LessonController::captionUpdated, this, &MainWindow::extrasChanged);
  connect(decode_, &DecodePanel::decodedChanged, this, &MainWindow::extrasChanged);

  options::LabSettings initial = options_.settings;
  views::PictureOptions picture = options_.picture;
  const QString language = options_.restore_settings ? restoreStoredState(initial, picture) : options_.language;
  if (!panels_restored_) arrangePanels();
  inputs_->setPicture(picture);
  heads_->setPicture(picture);
  setLanguage(language);
  controller_->listDevices();
  model_source_->setHeadRole(options_.head_role);
  heads_->setHeadRole(options_.head_role);
  setSettings(initial);
  // --head N and presentation mode enlarge a head once the first result is there.
  enlarge_on_result_ = options_.head >= 0 ? options_.head : options_.presentation ? 0 : -1;
  if (options_.presentation) setPresentationMode(true);
  decode_on_result_ = options_.decode_step;
  // Laid out before the first result (the step set with it); a translator's steps from the start.
  if (decode_on_result_ >= 0 || model_source_->translator()) decode_dock_->show();
  if (!options_.compare.isEmpty()) compareWith(options_.compare);
  if (!options_.lesson.isEmpty()) {
    try {
      lessons_->openSpec(options_.lesson);  // attention-lab's main() refused a bad one already
    } catch (const std::exception& e) {
      statusBar()->showMessage(QString::fromUtf8(e.what()));
    }
  } else if (options_.restore_settings) {
    lessons_->restore();
  }
}

MainWindow::~MainWindow() {
  // The docks report "hidden" while QWidget deletes the children, after this window's members
  // (the render scheduler the heads view replots through) are gone: cut the decoding dock's
  // signals first, and the side panels' (they ask the scheduler for a render).
  QObject::disconnect(decode_dock_, nullptr, nullptr, nullptr);
  QObject::disconnect(inputs_dock_, nullptr, this, nullptr);
  QObject::disconnect(analysis_dock_, nullptr, this, nullptr);
  QObject::disconnect(decode_, nullptr, nullptr, nullptr);
}

// ---- inputs and results -----------------------------------------------------------------------

options::LabSettings MainWindow::settings() const {
  options::LabSettings base;
  base.model_dir = model_source_->dir();
  base.layer = model_source_->layer();
  base.hide_special = model_source_->hideSpecial();
  base.rollout = model_source_->rollout();
  base.head_roles = model_source_->headRole().has_value();
  base.translator = model_source_->translator();
  base.translator_attention = model_source_->translatorAttention();
  base.int8_activations = generate_->int8Activations();
  options::LabSettings s = inputs_->settings(base);
  interventions_->apply(s);  // --ablate, --logit-lens, --dla, … (the Interventions dock)
  return s;
}

void MainWindow::setSettings(const options::LabSettings& s) {
  inputs_->setModelMode(false, nullptr);
  inputs_->setSettings(s);
  model_source_->setSource(s.model_dir, s.layer, s.hide_special);
  model_source_->setRollout(s.rollout);
  model_source_->setTranslatorAttention(s.translator_attention);
  generate_->setInt8Activations(s.int8_activations);
  interventions_->setSettings(s);
  if (s.logit_lens || s.dla || !s.patch_from.isEmpty()) interventions_dock_->show();  // a reading
  if (!s.head_roles) setHeadRole(std::nullopt);  // settings without head roles: no badges
  const std::shared_ptr<const ModelInfo> info =
      shown_ && shown_->model && shown_->model->dir == s.model_dir ? shown_->model : nullptr;
  if (s.pretrained()) inputs_->setModelMode(true, info.get());
  showTranslatorInputs();
  model_source_->setModelInfo(info);
  requestNow();
}

QString MainWindow::decodeTitle() const {
  return shown_ && shown_->translator ? tr("Translation step by step") : tr("KV-cache decoding");
}

void MainWindow::showTranslatorInputs(bool swap_texts) {
  const std::optional<TranslatorConfig>& config = model_source_->translatorConfig();
  inputs_->setTranslator(config ? &*config : nullptr, QFileInfo(model_source_->dir()).fileName(), swap_texts);
}

void MainWindow::requestNow() {
  debounce_.stop();
  const options::LabSettings s = settings();
  controller_->request(s);
  compare_->request(s);
  if (options_.persist) {
    QSettings store;
    options::saveSettings(store, s);
  }
  updateActions();
}

void MainWindow::compareWith(const QString& options) {
  compare_->setOptions(options);
  compare_->request(settings());
  updateActions();
  heads_->invalidate();
}

options::Options MainWindow::commandLine(unsigned command) const {
  options::Options o;
  o.command = command;
  o.lab = settings();
  o.picture = heads_->picture();
  const int head = heads_->enlargedHead();
  if (head >= 0 && (o.lab.model_dir.isEmpty() || o.lab.layer) && !o.lab.rollout) o.head = head;
  return o;
}

void MainWindow::checkReady() {
  if (!shown_ || scheduler_.busy() || controller_->busy()) return;
  // Comparing: ready once A − B is drawn (or B cannot be computed, which the note says).
  if (compare_->active() && compare_->error().empty() && !heads_->showsDifference() && !heads_->comparisonFailed())
    return;
  const bool curves = analysis_->isVisible()
                          ? analysis_->curvesShown()
                          : analysis_->curves(shown_->attention(heads_->focusEntry()).nK(), shown_->settings.seed) != nullptr;
  if (curves) emit pictureReady();
}

void MainWindow::showWork(const QString& what, int done, int total) {
  status_time_->setFullText(what);
  progress_bar_->setRange(0, total);
  progress_bar_->setValue(done);
  progress_bar_->show();
  cancel_button_->show();
}

void MainWindow::onResult(const ResultPtr& result) {
  cancel_button_->hide();
  progress_bar_->hide();
  if (result->model_error) {
    // The model did not load: say so beside the model choice (the loader's line in a translated
    // sentence), go back to what is on screen (or the synthetic lab) and keep the picture.
    const QString dir = result->settings.model_dir;
    const QString fallback = shown_ && shown_->settings.model_dir != dir ? shown_->settings.model_dir : QString();
    const QString detail = result->error.translated();
    const char* source = fallback.isEmpty()
                             ? QT_TR_NOOP("Cannot open the model %1: %2 — showing the synthetic lab.")
                             : QT_TR_NOOP("Cannot open the model %1: %2 — still showing %3.");
    const QString native = QDir::toNativeSeparators(dir);
    model_source_->forget(dir);
    const bool back = model_source_->dir() == dir;
    if (back) {
      const std::optional<int> layer = fallback.isEmpty() ? std::nullopt : shown_->settings.layer;
      model_source_->setSource(fallback, layer, model_source_->hideSpecial());
      inputs_->setModelMode(!fallback.isEmpty(),
                            fallback.isEmpty() ? nullptr : shown_->model.get());
      showTranslatorInputs();
    }
    // After going back (which clears a model's message): it stays until the source changes.
    model_source_->showMessage(
        fallback.isEmpty() ? tr(source).arg(native, detail)
                           : tr(source).arg(native, detail, QFileInfo(fallback).fileName()));
    if (back) requestNow();  // whatever else changed meanwhile (the text) still applies
    emit inputRejected(result->error.english());  // the command line's line
    return;
  }
  if (result->failed()) {
    if (result->model && model_source_->dir() == result->model->dir &&
        (!shown_ || shown_->model != result->model)) {
      // A refused run still loaded its model: the inputs learn what it takes (a GPT-2 or Llama
      // takes no second sentence), and settings that changed by it are computed again.
      model_source_->setModelInfo(result->model);
      inputs_->setModelMode(true, result->model.get());
      if (settings() != result->settings) {
        requestNow();
        return;
      }
    }
    // Keep the last good picture; say what is wrong beside the input. Comparing, B goes back to
    // the picture's settings too: B of the refused settings never matches the A on screen.
    last_error_ = result->error;
    inputs_->showMessage(result->error.translated());
    if (shown_ && compare_->active()) compare_->request(shown_->settings);
    updateStatus();
    emit inputRejected(result->error.english());
    return;
  }
  last_error_ = {};
  inputs_->showMessage(QString());
  pending_ = result;
  scheduler_.requestRender();
}

void MainWindow::render() {
  if (pending_) {
    const bool model_changed = !shown_ || shown_->model != pending_->model;
    shown_ = std::exchange(pending_, nullptr);
    ++results_shown_;
    heads_->setResult(shown_);
    interventions_->setResult(shown_);
    if (model_changed && shown_->model) {
      model_source_->setModelInfo(shown_->model);
      inputs_->setModelMode(true, shown_->model.get());
    }
    updateStatus();
    if (enlarge_on_result_ >= 0) heads_->enlargeHead(std::exchange(enlarge_on_result_, -1));
    const AttentionResult& a = shown_->attention(0);
    try {
      const auto [layer, name] = run::costShape(*shown_);  // the CLI's cost of these settings
      cost_->setShape(layer, name);
    } catch (const std::exception&) {
      // A translator that no longer loads: the panel keeps its last shape.
    }
    decode_->setRun(shown_->query_tokens, shown_->spec,
                    !shown_->model && !shown_->run.cross && a.pattern().causal, shown_);
    generate_->setAvailable(shown_->model != nullptr);
    decode_dock_->setWindowTitle(decodeTitle());
    if (shown_->translator && std::exchange(play_translation_, false)) {
      decode_->slider()->setValue(decode_->slider()->minimum());
      decode_->togglePlay();
    }
    if (const int step = std::exchange(decode_on_result_, -1); step >= 0)
      decode_->slider()->setValue(step);  // clamped to the last token
    lessons_->resultShown();
    if (raise_roles_ && shown_->head_roles) {
      raise_roles_ = false;
      if (!presentation_) {
        analysis_dock_->show();
        analysis_dock_->raise();
      }
    }
  }
  if (!shown_) return;
  heads_->redraw();
  if (analysis_->isVisible()) {
    const auto [d_k, scaled] = std::make_pair(
        shown_->model && !modelDir().isEmpty() ? shown_->model->config.dK() : inputs_->dk(), settings().scaled());
    analysis_->show(shown_, heads_->focusEntry(), d_k, scaled);
  } else {
    analysis_->curves(shown_->attention(heads_->focusEntry()).nK(), shown_->settings.seed);
  }
  checkReady();
}

void MainWindow::updateStatus() {
  if (!shown_) {
    status_time_->setFullText(tr("Computing…"));
    return;
  }
  const ComputeResult& r = *shown_;
  const AttentionResult& a = r.attention(0);
  QString time;
  if (r.translator) {
    time = tr("computed in %1 ms (translation %2 ms)").arg(r.total_ms, 0, 'f', 1).arg(r.run.compute_ms, 0, 'f', 1);
    if (r.model_ms > 0) time += tr(" · model loaded in %1 ms").arg(r.model_ms, 0, 'f', 0);
    time += tr(" · %1 output × %2 source characters").arg(a.nQ()).arg(a.nK());
  } else if (r.model) {
    time = tr("computed in %1 ms (forward pass %2 ms)").arg(r.total_ms, 0, 'f', 0).arg(r.run.compute_ms, 0, 'f', 0);
    if (r.model_ms > 0) time += tr(" · model loaded in %1 ms").arg(r.model_ms, 0, 'f', 0);
    time += r.settings.layer ? tr(" · %1 tokens · layer %2 of %3 · %4 heads")
                                   .arg(a.nQ())
                                   .arg(*r.settings.layer)
                                   .arg(r.model->config.layers)
                                   .arg(a.heads())
                             : tr(" · %1 tokens · %2 layers × %3 heads")
                                   .arg(a.nQ())
                                   .arg(views::modelViewLayers(r).size())
                                   .arg(a.heads());
  } else {
    time = tr("computed in %1 ms (attention run %2 ms)").arg(r.total_ms, 0, 'f', 1).arg(r.run.compute_ms, 0, 'f', 1);
    if (r.model_ms > 0) time += tr(" · new weights drawn in %1 ms").arg(r.model_ms, 0, 'f', 1);
    time += tr(" · %1 × %2 tokens, %3 heads").arg(a.nQ()).arg(a.nK()).arg(a.heads());
  }
  if (!last_error_.empty()) time = tr("Not recomputed: %1").arg(last_error_.translated());
  status_time_->setFullText(time);
  // A device in brackets where the run names one (a translator's run names none).
  QString backend = a.device.empty() ? tr("backend: %1").arg(QString::fromStdString(a.backend))
                                     : tr("backend: %1 (%2)").arg(QString::fromStdString(a.backend),
                                                                   QString::fromStdString(a.device));
  const QString fallback = fallbackText(a);
  const bool cpu = r.settings.backend == options::BackendKind::kCpu;
  if (!fallback.isEmpty() && !cpu) {
    backend += tr(" · %1 requested, fell back: %2").arg(QString::fromStdString(attnlab::toString(r.settings.backend)), fallback);
  }
  status_backend_->setFullText(backend);
  inputs_->setBackendInUse(tr("In use: %1").arg(backend), fallback,
                           a.fallback_code == FallbackCode::kDeviceError && !cpu);
  fitWrappedLabels(inputs_dock_);  // the texts of this result (backend, model) at their heights
}

// ---- what a lesson may do (LessonHost) ---------------------------------------------------------

void MainWindow::setPicture(const views::PictureOptions& picture) {
  inputs_->setPicture(picture);
  heads_->setPicture(picture);
}

int MainWindow::focusEntry() const { return heads_->focusEntry(); }

void MainWindow::showHead(int head) {
  if (head >= 0) {
    heads_->enlargeHead(head);
  } else {
    heads_->showGrid();
  }
}

QDockWidget* MainWindow::toolDock(ToolDock dock) {
  switch (dock) {
    case ToolDock::kCost: return cost_dock_;
    case ToolDock::kDecode: return decode_dock_;
    case ToolDock::kTraining: return training_dock_;
    case ToolDock::kInterventions: return interventions_dock_;
  }
  return nullptr;
}

void MainWindow::setCacheBug(CacheBug bug, std::optional<int> step) { decode_->setCacheBug(bug, step); }

void MainWindow::setHeadRole(std::optional<HeadRole> role) {
  model_source_->setHeadRole(role);
  heads_->setHeadRole(role);
}

bool MainWindow::analysisVisible() const { return analysis_->isVisible(); }

void MainWindow::setAnalysisVisible(bool visible) {
  analysis_dock_->setVisible(visible);
  if (visible) analysis_dock_->raise();  // its tab in front when it shares a column
  analysis_->invalidate();
}

bool MainWindow::extrasPending() const { return lessons_->numbersPending() || decode_->decoding(); }

QString MainWindow::modelDir() const { return model_source_->dir(); }
int MainWindow::layer() const { return model_source_->layer().value_or(-1); }
void MainWindow::showSyntheticLab() { model_source_->showSynthetic(); }

}  // namespace attnlab::gui
