/// \file main_window.cpp
/// The window's shell: panels, menus, language, presentation mode, results to panels.

#include "main_window.hpp"

#include <qcustomplot.h>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTranslator>
#include <QVBoxLayout>
#include <algorithm>

#include "lesson_controller.hpp"
#include "sweep_export.hpp"

static void initAttentionLabResources() {
  Q_INIT_RESOURCE(attention_lab);
  Q_INIT_RESOURCE(attention_lab_translations);
}

namespace attnlab::gui {

void initResources() { initAttentionLabResources(); }

namespace {

/// Milliseconds of quiet typing before the text is recomputed.
constexpr int kTypingDebounceMs = 150;
/// Font factor of the pictures in presentation mode.
constexpr double kPresentationFontScale = 1.7;

QTranslator& translator() {
  static QTranslator instance;
  return instance;
}

/// Moves every rectangle of a views::layoutJson object by offset (plot → window pixels).
QJsonObject moved(QJsonObject layout, const QPoint& offset) {
  const auto shift = [&offset](QJsonObject o) {
    o["x"] = o["x"].toDouble() + offset.x();
    o["y"] = o["y"].toDouble() + offset.y();
    if (o.contains(QStringLiteral("drawn"))) {
      QJsonObject drawn = o["drawn"].toObject();
      drawn["x"] = drawn["x"].toDouble() + offset.x();
      drawn["y"] = drawn["y"].toDouble() + offset.y();
      o["drawn"] = drawn;
    }
    return o;
  };
  for (const char* key : {"maps", "texts"}) {
    QJsonArray list;
    for (const QJsonValue& v : layout[QLatin1String(key)].toArray()) list.append(shift(v.toObject()));
    layout[QLatin1String(key)] = list;
  }
  if (layout.contains(QStringLiteral("color_bar"))) layout["color_bar"] = shift(layout["color_bar"].toObject());
  return layout;
}

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
  inputs_ = new InputsPanel;
  inputs_layout->addWidget(model_source_);
  inputs_layout->addWidget(inputs_, 1);
  auto* scroll = new QScrollArea;
  scroll->setWidget(inputs_page);
  scroll->setWidgetResizable(true);
  scroll->setMinimumWidth(340);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // the form wraps instead
  inputs_dock_ = new QDockWidget(this);
  inputs_dock_->setObjectName(QStringLiteral("inputsDock"));
  inputs_dock_->setWidget(scroll);
  inputs_dock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::LeftDockWidgetArea, inputs_dock_);

  heads_ = new HeadsView(scheduler_);
  analysis_ = new AnalysisPanel(scheduler_);
  main_splitter_ = new QSplitter(Qt::Horizontal);
  main_splitter_->addWidget(heads_);
  main_splitter_->addWidget(analysis_);
  main_splitter_->setStretchFactor(0, 5);
  main_splitter_->setStretchFactor(1, 3);
  main_splitter_->setSizes({700, 520});
  setCentralWidget(main_splitter_);
  exports_ = new ExportController(
      this, *heads_, *analysis_,
      [this] {
        const int d_k = shown_ && shown_->model && !modelDir().isEmpty() ? shown_->model->config.dK()
                                                                         : inputs_->dk();
        return std::make_pair(d_k, settings().scaled());
      },
      options_.persist);

  compare_ = new CompareController(this);
  heads_->setComparison(compare_);
  cost_ = new CostPanel;
  cost_dock_ = new QDockWidget(this);
  cost_dock_->setObjectName(QStringLiteral("costDock"));
  cost_dock_->setWidget(cost_);
  addDockWidget(Qt::RightDockWidgetArea, cost_dock_);
  cost_dock_->hide();
  decode_ = new DecodePanel;
  decode_dock_ = new QDockWidget(this);
  decode_dock_->setObjectName(QStringLiteral("decodeDock"));
  decode_dock_->setWidget(decode_);
  addDockWidget(Qt::RightDockWidgetArea, decode_dock_);
  decode_dock_->hide();
  connect(decode_dock_, &QDockWidget::visibilityChanged, decode_, &DecodePanel::setActive);
  // heads_ as the receiver: the connection ends with it (the dock reports "hidden" while the window
  // is destroyed, after the central widget).
  connect(decode_, &DecodePanel::rowsChanged, heads_, &HeadsView::setRevealedRows);
  connect(decode_, &DecodePanel::decodedChanged, heads_, [this](const ResultPtr& decoded) {
    if (!shown_) return;
    heads_->setResult(decoded ? decoded : shown_);  // a cache bug's decoded rows, or the run
    heads_->redraw();
  });

  status_time_ = new QLabel;
  status_time_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // never overlaps
  status_backend_ = new QLabel;
  status_backend_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  statusBar()->addWidget(status_time_, 3);
  statusBar()->addWidget(status_backend_, 2);
  cancel_button_ = new QPushButton(tr("Cancel"));
  cancel_button_->setObjectName(QStringLiteral("cancelComputation"));
  cancel_button_->setToolTip(tr("Stop the forward pass after its current layer (Esc); the last picture stays"));
  cancel_button_->hide();
  statusBar()->addPermanentWidget(cancel_button_);
  connect(cancel_button_, &QPushButton::clicked, this, [this] {
    controller_->cancel();
    cancel_button_->hide();
    status_time_->setText(tr("Cancelling…"));
  });

  lessons_ = new LessonController(*this, options_.persist);
  buildMenus();
  loadExamples();
  resize(1500, 920);

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
    if (options_.persist) {
      QSettings().setValue(QStringLiteral("picture/color_scale"), static_cast<int>(inputs_->picture().color_scale));
      QSettings().setValue(QStringLiteral("picture/pool"), static_cast<int>(inputs_->picture().pool));
    }
  });
  connect(model_source_, &ModelSource::sourceChanged, this, [this](const QString& dir) {
    inputs_->setModelMode(!dir.isEmpty(), nullptr);
    heads_->showGrid();
    if (!dir.isEmpty()) status_time_->setText(tr("Loading %1…").arg(QFileInfo(dir).fileName()));
    fitSplitterToModel();
    requestNow();
  });
  connect(model_source_, &ModelSource::layerChanged, this, &MainWindow::requestNow);
  connect(model_source_, &ModelSource::filterChanged, this, &MainWindow::requestNow);
  connect(controller_.get(), &ComputeController::resultReady, this, &MainWindow::onResult);
  connect(controller_.get(), &ComputeController::modelLoading, this, [this](const QString& dir) {
    status_time_->setText(tr("Loading %1…").arg(QFileInfo(dir).fileName()));
    model_source_->showLoading(dir);
  });
  connect(controller_.get(), &ComputeController::progress, this, [this](int done, int total) {
    if (done >= total) return;
    status_time_->setText(tr("Computing layer %1 of %2…").arg(done + 1).arg(total));
    cancel_button_->show();
  });
  connect(controller_.get(), &ComputeController::devicesListed, this, [this](const QStringList& devices) {
    if (inputs_->setDevices(devices)) requestNow();
  });
  connect(heads_, &HeadsView::focusChanged, &scheduler_, &RenderScheduler::requestRender);
  connect(compare_, &CompareController::changed, heads_, &HeadsView::invalidate);
  connect(analysis_, &AnalysisPanel::curvesReady, &scheduler_, &RenderScheduler::requestRender);
  connect(exports_, &ExportController::status, statusBar(), &QStatusBar::showMessage);
  connect(&scheduler_, &RenderScheduler::idle, this, &MainWindow::checkReady);

  options::LabSettings initial = options_.settings;
  views::PictureOptions picture = options_.picture;
  QString language = options_.language;
  if (options_.restore_settings) {
    QSettings store;
    initial = options::loadSettings(store);
    picture.color_scale = static_cast<views::ColorScale>(
        std::clamp(store.value(QStringLiteral("picture/color_scale"), 0).toInt(), 0, 3));
    picture.pool = static_cast<views::Pool>(std::clamp(store.value(QStringLiteral("picture/pool"), 0).toInt(), 0, 1));
    restoreGeometry(store.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(store.value(QStringLiteral("window/state")).toByteArray());
    main_splitter_->restoreState(store.value(QStringLiteral("window/splitter")).toByteArray());
    if (language.isEmpty()) language = store.value(QStringLiteral("ui/language")).toString();
    model_source_->setRecent(store.value(QStringLiteral("models/recent")).toStringList());
  }
  inputs_->setPicture(picture);
  heads_->setPicture(picture);
  setLanguage(language);
  controller_->listDevices();
  setSettings(initial);
  // --head N and presentation mode enlarge a head once the first result is there.
  enlarge_on_result_ = options_.head >= 0 ? options_.head : options_.presentation ? 0 : -1;
  if (options_.presentation) setPresentationMode(true);
  decode_on_result_ = options_.decode_step;
  // The dock is laid out before the first result arrives; the step is set with it.
  if (decode_on_result_ >= 0) decode_dock_->show();
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
  // signals first.
  QObject::disconnect(decode_dock_, nullptr, nullptr, nullptr);
  QObject::disconnect(decode_, nullptr, nullptr, nullptr);
}

// ---- menus ------------------------------------------------------------------------------------

void MainWindow::buildMenus() {
  file_menu_ = menuBar()->addMenu(QString());
  open_model_action_ = file_menu_->addAction(QString());
  open_model_action_->setShortcut(QKeySequence::Open);
  synthetic_action_ = file_menu_->addAction(QString());
  file_menu_->addSeparator();
  export_menu_ = file_menu_->addMenu(QString());
  export_head_action_ = export_menu_->addAction(QString());
  export_grid_action_ = export_menu_->addAction(QString());
  export_saturation_action_ = export_menu_->addAction(QString());
  export_matrices_action_ = export_menu_->addAction(QString());
  export_sweep_action_ = export_menu_->addAction(QString());
  copy_head_action_ = file_menu_->addAction(QString());
  copy_head_action_->setShortcut(QKeySequence::Copy);
  copy_grid_action_ = file_menu_->addAction(QString());
  file_menu_->addSeparator();
  quit_action_ = file_menu_->addAction(QString());
  quit_action_->setShortcut(QKeySequence::Quit);
  export_head_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  export_grid_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
  examples_menu_ = menuBar()->addMenu(QString());
  menuBar()->addMenu(lessons_->menu());
  view_menu_ = menuBar()->addMenu(QString());
  scaling_action_ = view_menu_->addAction(QString());
  scaling_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
  dk_up_action_ = view_menu_->addAction(QString());
  dk_up_action_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Up), QKeySequence(Qt::Key_Plus)});
  dk_down_action_ = view_menu_->addAction(QString());
  dk_down_action_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Down), QKeySequence(Qt::Key_Minus)});
  view_menu_->addSeparator();
  compare_action_ = view_menu_->addAction(QString());
  compare_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
  stop_compare_action_ = view_menu_->addAction(QString());
  cost_action_ = cost_dock_->toggleViewAction();
  view_menu_->addAction(cost_action_);
  decode_action_ = decode_dock_->toggleViewAction();
  view_menu_->addAction(decode_action_);
  view_menu_->addSeparator();
  grid_action_ = view_menu_->addAction(QString());
  grid_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
  presentation_action_ = view_menu_->addAction(QString());
  presentation_action_->setCheckable(true);
  presentation_action_->setShortcut(QKeySequence(Qt::Key_F5));
  // The shortcuts work in presentation mode too, when the menu bar is hidden.
  for (QAction* action : {scaling_action_, dk_up_action_, dk_down_action_, grid_action_,
                          presentation_action_, copy_head_action_}) {
    addAction(action);
  }
  language_menu_ = menuBar()->addMenu(QString());
  language_group_ = new QActionGroup(this);
  language_system_action_ = language_menu_->addAction(QString());
  language_en_action_ = language_menu_->addAction(QStringLiteral("English"));
  language_zh_action_ = language_menu_->addAction(QStringLiteral("简体中文"));
  for (QAction* action : {language_system_action_, language_en_action_, language_zh_action_}) {
    action->setCheckable(true);
    language_group_->addAction(action);
  }
  help_menu_ = menuBar()->addMenu(QString());
  about_action_ = help_menu_->addAction(QString());

  connect(open_model_action_, &QAction::triggered, model_source_, &ModelSource::askOpenFolder);
  connect(synthetic_action_, &QAction::triggered, this, &MainWindow::showSyntheticLab);
  connect(export_head_action_, &QAction::triggered, this, [this] { exports_->askExportImage(ExportTarget::kCurrentHead); });
  connect(export_grid_action_, &QAction::triggered, this, [this] { exports_->askExportImage(ExportTarget::kAllHeads); });
  connect(export_saturation_action_, &QAction::triggered, this,
          [this] { exports_->askExportImage(ExportTarget::kSaturation); });
  connect(export_matrices_action_, &QAction::triggered, exports_, &ExportController::askExportMatrices);
  connect(export_sweep_action_, &QAction::triggered, this, [this] {
    const int layers = shown_ && shown_->model ? shown_->model->config.layers : 0;
    const int heads = shown_ ? shown_->attention(0).heads() : 0;
    const QString done = exportSweep(this, commandLine(options::kSweep), layers, heads, options_.persist);
    if (!done.isEmpty()) statusBar()->showMessage(done, 8000);
  });
  connect(compare_action_, &QAction::triggered, this, [this] {
    const int layers = shown_ && shown_->model ? shown_->model->config.layers : 0;
    CompareDialog dialog(this, settings(), heads_->enlargedHead(), layers,
                         compare_->active() ? compare_->options() : QStringLiteral("--no-scale"));
    if (dialog.exec() == QDialog::Accepted) compareWith(dialog.options());
  });
  connect(stop_compare_action_, &QAction::triggered, this, [this] { compareWith(QString()); });
  connect(copy_head_action_, &QAction::triggered, this, [this] {
    // Ctrl+C in a text field copies text, as everywhere else.
    if (auto* edit = qobject_cast<QPlainTextEdit*>(QApplication::focusWidget())) {
      edit->copy();
      return;
    }
    exports_->copyImage(ExportTarget::kCurrentHead);
  });
  connect(copy_grid_action_, &QAction::triggered, this, [this] { exports_->copyImage(ExportTarget::kAllHeads); });
  connect(quit_action_, &QAction::triggered, this, &QWidget::close);
  connect(scaling_action_, &QAction::triggered, inputs_, &InputsPanel::toggleScaling);
  connect(dk_up_action_, &QAction::triggered, this, [this] { inputs_->setDk(inputs_->dk() * 2); });
  connect(dk_down_action_, &QAction::triggered, this, [this] { inputs_->setDk(inputs_->dk() / 2); });
  connect(grid_action_, &QAction::triggered, this, &MainWindow::showGrid);
  connect(presentation_action_, &QAction::triggered, this, &MainWindow::setPresentationMode);
  connect(language_system_action_, &QAction::triggered, this, [this] { setLanguage(QString()); });
  connect(language_en_action_, &QAction::triggered, this, [this] { setLanguage(QStringLiteral("en")); });
  connect(language_zh_action_, &QAction::triggered, this, [this] { setLanguage(QStringLiteral("zh_CN")); });
  connect(about_action_, &QAction::triggered, this, [this] {
    QMessageBox::about(this, tr("About Attention Lab"),
                       tr("Attention Lab: attention heatmaps per head and softmax saturation, "
                          "computed by a synthetic transformer layer on this computer.") +
                           QStringLiteral("\n\n") +
                           tr("File → Open model… shows the attention of a real pretrained model "
                              "(a GGUF file of the Llama family, or a HuggingFace folder: BERT "
                              "family, GPT-2, Llama), layer by layer, and what it predicts next."));
  });
}

void MainWindow::retranslateUi() {
  setWindowTitle(tr("Attention Lab"));
  inputs_dock_->setWindowTitle(tr("Inputs"));
  file_menu_->setTitle(tr("&File"));
  open_model_action_->setText(tr("Open model…"));
  synthetic_action_->setText(tr("Synthetic lab"));
  export_menu_->setTitle(tr("&Export"));
  export_head_action_->setText(tr("Current head as image…"));
  updateActions();
  export_saturation_action_->setText(tr("Saturation plot as image…"));
  export_matrices_action_->setText(tr("Matrices as CSV or NPY…"));
  export_sweep_action_->setText(tr("Sweep as GIF, MP4 or PNG frames…"));
  compare_action_->setText(tr("Compare with…"));
  stop_compare_action_->setText(tr("Stop comparing"));
  cost_dock_->setWindowTitle(tr("Cost of attention"));
  cost_->retranslate();
  decode_dock_->setWindowTitle(tr("KV-cache decoding"));
  decode_->retranslate();
  lessons_->retranslate();
  copy_head_action_->setText(tr("Copy current head image"));
  quit_action_->setText(tr("&Quit"));
  examples_menu_->setTitle(tr("E&xamples"));
  view_menu_->setTitle(tr("&View"));
  scaling_action_->setText(tr("Toggle 1/√d_k scaling"));
  dk_up_action_->setText(tr("d_k × 2"));
  dk_down_action_->setText(tr("d_k ÷ 2"));
  grid_action_->setText(tr("All heads"));
  presentation_action_->setText(tr("Presentation mode"));
  language_menu_->setTitle(tr("&Language"));
  language_system_action_->setText(tr("System language"));
  help_menu_->setTitle(tr("&Help"));
  about_action_->setText(tr("About Attention Lab"));
  model_source_->retranslate();
  inputs_->retranslate();
  heads_->retranslate();
  analysis_->invalidate();
  if (!last_error_.empty()) inputs_->showMessage(last_error_.translated());
  updateStatus();
  scheduler_.requestRender();  // notes, titles and labels carry translated words
}

void MainWindow::loadExamples() {
  QFile file(QStringLiteral(":/examples/examples.json"));
  if (!file.open(QIODevice::ReadOnly)) return;
  const QJsonArray examples = QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("examples")).toArray();
  for (const QJsonValue& value : examples) {
    const QJsonObject example = value.toObject();
    const QString text = example.value(QStringLiteral("text")).toString();
    const QString source = example.value(QStringLiteral("source")).toString();
    QAction* action = examples_menu_->addAction(example.value(QStringLiteral("title")).toString());
    action->setObjectName(example.value(QStringLiteral("id")).toString());
    connect(action, &QAction::triggered, this, [this, text, source] {
      options::LabSettings s = settings();
      s.text = text;
      s.source = source;
      if (!source.isEmpty()) s.causal = false;
      setSettings(s);
    });
  }
}

// ---- inputs and results -----------------------------------------------------------------------

options::LabSettings MainWindow::settings() const {
  options::LabSettings base;
  base.model_dir = model_source_->dir();
  base.layer = model_source_->layer();
  base.hide_special = model_source_->hideSpecial();
  base.rollout = model_source_->rollout();
  return inputs_->settings(base);
}

void MainWindow::setSettings(const options::LabSettings& s) {
  inputs_->setModelMode(false, nullptr);
  inputs_->setSettings(s);
  model_source_->setSource(s.model_dir, s.layer, s.hide_special);
  model_source_->setRollout(s.rollout);
  const std::shared_ptr<const ModelInfo> info =
      shown_ && shown_->model && shown_->model->dir == s.model_dir ? shown_->model : nullptr;
  if (s.pretrained()) inputs_->setModelMode(true, info.get());
  model_source_->setModelInfo(info);
  fitSplitterToModel();
  requestNow();
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

void MainWindow::updateActions() {
  const bool layers = !modelDir().isEmpty() && layer() < 0;
  export_grid_action_->setText(layers ? tr("All layers × heads as image…") : tr("All heads as image…"));
  copy_grid_action_->setText(layers ? tr("Copy all layers × heads image") : tr("Copy all heads image"));
  synthetic_action_->setEnabled(!modelDir().isEmpty());
  stop_compare_action_->setEnabled(compare_->active());
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

void MainWindow::onResult(const ResultPtr& result) {
  cancel_button_->hide();
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
    model_source_->showMessage(fallback.isEmpty() ? tr(source).arg(native, detail)
                                                  : tr(source).arg(native, detail, QFileInfo(fallback).fileName()));
    model_source_->forget(dir);
    if (model_source_->dir() == dir) {
      const std::optional<int> layer = fallback.isEmpty() ? std::nullopt : shown_->settings.layer;
      model_source_->setSource(fallback, layer, model_source_->hideSpecial());
      inputs_->setModelMode(!fallback.isEmpty(), fallback.isEmpty() ? nullptr : shown_->model.get());
      requestNow();  // whatever else changed meanwhile (the text) still applies
    }
    emit inputRejected(result->error.english());  // the command line's line
    return;
  }
  if (result->failed()) {
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
    if (model_changed && shown_->model) {
      model_source_->setModelInfo(shown_->model);
      inputs_->setModelMode(true, shown_->model.get());
      fitSplitterToModel();
    }
    updateStatus();
    if (enlarge_on_result_ >= 0) heads_->enlargeHead(std::exchange(enlarge_on_result_, -1));
    const AttentionResult& a = shown_->attention(0);
    CostShape shape{a.nQ(), shown_->spec.d_model, shown_->spec.heads, 0, shown_->spec.resolvedDk(), 0, 1};
    if (shown_->model) {
      shape.kv_heads = shown_->model->config.kv_heads;
      shape.layers = shown_->model->config.layers;
    }
    cost_->setShape(shape, shown_->model ? shown_->model->name : QString());
    decode_->setRun(shown_->query_tokens, shown_->spec,
                    !shown_->model && !shown_->run.cross && a.pattern().causal, shown_);
    if (const int step = std::exchange(decode_on_result_, -1); step >= 0)
      decode_->slider()->setValue(step);  // clamped to the last token
    lessons_->resultShown();
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

QString MainWindow::fallbackText(const AttentionResult& r) const {
  const QString first = r.fallback_args.empty() ? QString() : QString::fromStdString(r.fallback_args.front());
  switch (r.fallback_code) {
    case FallbackCode::kNone: return {};
    case FallbackCode::kNoOpenClBuild: return tr("this build has no OpenCL support");
    case FallbackCode::kNoPlatform: return tr("no OpenCL platform (%1)").arg(first);
    case FallbackCode::kNoDevice: return tr("no OpenCL device found on any platform");
    case FallbackCode::kKernelsBuilding: return tr("the OpenCL kernels are still building; computed on the CPU");
    case FallbackCode::kKernelsBuildingDk:
      return tr("the OpenCL kernels for d_k = %1 are building; computed on the CPU").arg(first);
    case FallbackCode::kDeviceError: return tr("an OpenCL call failed: %1").arg(first);
    case FallbackCode::kCpuOnlyNumerics:
      return tr("the OpenCL kernels compute softmax attention in float32 without dropout; %1 computed on the CPU reference").arg(first);
  }
  return QString::fromStdString(r.fallback_reason);
}

void MainWindow::updateStatus() {
  if (!shown_) {
    status_time_->setText(tr("Computing…"));
    return;
  }
  const ComputeResult& r = *shown_;
  const AttentionResult& a = r.attention(0);
  QString time;
  if (r.model) {
    time = tr("computed in %1 ms (forward pass %2 ms)").arg(r.total_ms, 0, 'f', 0).arg(r.run.compute_ms, 0, 'f', 0);
    if (r.model_ms > 0) time += tr(" · model loaded in %1 ms").arg(r.model_ms, 0, 'f', 0);
    time += r.settings.layer ? tr(" · %1 tokens · layer %2 of %3 · %4 heads")
                                   .arg(a.nQ())
                                   .arg(*r.settings.layer)
                                   .arg(r.model->config.layers)
                                   .arg(a.heads())
                             : tr(" · %1 tokens · %2 layers × %3 heads").arg(a.nQ()).arg(r.entries()).arg(a.heads());
  } else {
    time = tr("computed in %1 ms (attention run %2 ms)").arg(r.total_ms, 0, 'f', 1).arg(r.run.compute_ms, 0, 'f', 1);
    if (r.model_ms > 0) time += tr(" · new weights drawn in %1 ms").arg(r.model_ms, 0, 'f', 1);
    time += tr(" · %1 × %2 tokens, %3 heads").arg(a.nQ()).arg(a.nK()).arg(a.heads());
  }
  if (!last_error_.empty()) time = tr("Not recomputed: %1").arg(last_error_.translated());
  status_time_->setText(time);
  status_time_->setToolTip(time);
  QString backend = tr("backend: %1 (%2)").arg(QString::fromStdString(a.backend), QString::fromStdString(a.device));
  const QString fallback = fallbackText(a);
  const bool cpu = r.settings.backend == options::BackendKind::kCpu;
  if (!fallback.isEmpty() && !cpu) {
    backend += tr(" · %1 requested, fell back: %2").arg(QString::fromStdString(options::toString(r.settings.backend)), fallback);
  }
  status_backend_->setText(backend);
  status_backend_->setToolTip(backend);
  inputs_->setBackendInUse(tr("In use: %1").arg(backend), fallback,
                           a.fallback_code == FallbackCode::kDeviceError && !cpu);
}

void MainWindow::fitSplitterToModel() {
  const QList<int> sizes = main_splitter_->sizes();
  if (sizes.size() != 2) return;
  const int total = sizes[0] + sizes[1];
  if (!modelDir().isEmpty()) {
    // The model view's h columns of thumbnails get the room they need; the side keeps 440 px.
    const int h = shown_ && shown_->model ? shown_->model->config.heads : 12;
    const int wanted = std::min(total - 440, h * 54 + 150);
    if (sizes[0] >= wanted || total <= 0) return;
    if (splitter_before_model_.isEmpty()) splitter_before_model_ = sizes;
    main_splitter_->setSizes({wanted, total - wanted});
  } else if (!splitter_before_model_.isEmpty()) {
    main_splitter_->setSizes(splitter_before_model_);
    splitter_before_model_.clear();
  }
}

// ---- the panels, for tests and scripts ----------------------------------------------------------

QString MainWindow::inputMessage() const { return inputs_->message(); }
QString MainWindow::gridNote() const { return heads_->gridNote(); }
QString MainWindow::cellText(int head, int query, int key) const {
  return heads_->cellText(heads_->focusEntry(), head, query, key);
}
void MainWindow::openModelFolder(const QString& dir) { model_source_->openFolder(dir); }
void MainWindow::showSyntheticLab() { model_source_->showSynthetic(); }
QString MainWindow::modelDir() const { return model_source_->dir(); }
void MainWindow::setLayer(int layer) { model_source_->setLayer(layer < 0 ? std::nullopt : std::optional<int>(layer)); }
int MainWindow::layer() const { return model_source_->layer().value_or(-1); }
bool MainWindow::modelView() const { return heads_->modelView(); }
QString MainWindow::modelMessage() const { return model_source_->message(); }
void MainWindow::enlargeHead(int head) { heads_->enlargeHead(head); }
void MainWindow::enlargeLayerHead(int layer, int head) { heads_->enlargeLayerHead(layer, head); }
int MainWindow::enlargedLayer() const { return heads_->enlargedLayer(); }
int MainWindow::focusLayer() const { return heads_->focusLayer(); }
void MainWindow::showGrid() {
  if (presentation_) setPresentationMode(false);
  heads_->showGrid();
}
void MainWindow::selectRow(int row) { heads_->selectRow(row); }
int MainWindow::enlargedHead() const { return heads_->enlargedHead(); }
int MainWindow::selectedRow() const { return heads_->selectedRow(); }
void MainWindow::exportImage(ExportTarget target, const QString& path, const views::ImageSize& size) {
  exports_->exportImage(target, path, size);
}
views::ImageSize MainWindow::defaultExportSize(ExportTarget target) const { return exports_->defaultSize(target); }
void MainWindow::exportMatrices(const QString& path, int head) { exports_->exportMatrices(path, head); }
void MainWindow::copyImage(ExportTarget target) { exports_->copyImage(target); }
QPlainTextEdit* MainWindow::textEdit() const { return inputs_->textEdit(); }
QPlainTextEdit* MainWindow::sourceEdit() const { return inputs_->sourceEdit(); }
QPlainTextEdit* MainWindow::pairEdit() const { return inputs_->pairEdit(); }
QSlider* MainWindow::dkSlider() const { return inputs_->dkSlider(); }
QSpinBox* MainWindow::dkSpin() const { return inputs_->dkSpin(); }
QCheckBox* MainWindow::scalingCheck() const { return inputs_->scalingCheck(); }
QComboBox* MainWindow::layerCombo() const { return model_source_->layerCombo(); }
QComboBox* MainWindow::modelCombo() const { return model_source_->sourceCombo(); }
QCheckBox* MainWindow::hideSpecialCheck() const { return model_source_->hideSpecialCheck(); }
QCustomPlot* MainWindow::gridPlot() const { return heads_->gridPlot(); }
QCustomPlot* MainWindow::headPlot() const { return heads_->headPlot(); }
QCustomPlot* MainWindow::rowPlot() const { return heads_->rowPlot(); }
QCustomPlot* MainWindow::saturationPlot() const { return analysis_->saturationPlot(); }
QCustomPlot* MainWindow::entropyPlot() const { return analysis_->entropyPlot(); }
QCustomPlot* MainWindow::histogramPlot() const { return analysis_->histogramPlot(); }

QJsonObject MainWindow::layoutJson() const {
  QJsonArray plots;
  for (QCustomPlot* plot : {gridPlot(), headPlot()}) {
    if (!plot->isVisible()) continue;
    QJsonObject layout = moved(views::layoutJson(*plot), plot->mapTo(this, QPoint(0, 0)));
    layout["plot"] = plot->objectName();
    plots.append(layout);
  }
  return {{"window", QJsonObject{{"width", width()}, {"height", height()}}},
          {"language", language_},
          {"presentation", presentation_},
          {"heatmaps", plots}};
}

// ---- language, presentation, events ------------------------------------------------------------

void MainWindow::setLanguage(const QString& code) {
  QString wanted = code;
  if (wanted.isEmpty()) {
    wanted = QLocale::system().name().startsWith(QLatin1String("zh")) ? QStringLiteral("zh_CN") : QStringLiteral("en");
  }
  QCoreApplication::removeTranslator(&translator());
  if (wanted == QLatin1String("zh_CN") && translator().load(QStringLiteral(":/i18n/attention_lab_zh_CN.qm"))) {
    QCoreApplication::installTranslator(&translator());
  } else {
    wanted = QStringLiteral("en");
  }
  language_ = wanted;
  (code.isEmpty() ? language_system_action_ : wanted == QLatin1String("zh_CN") ? language_zh_action_ : language_en_action_)
      ->setChecked(true);
  if (options_.persist) QSettings().setValue(QStringLiteral("ui/language"), code);
  retranslateUi();
}

void MainWindow::setPresentationMode(bool on) {
  if (on == presentation_) return;
  presentation_ = on;
  presentation_action_->setChecked(on);
  heads_->setFontScale(on ? kPresentationFontScale : 1.0);
  QFont font = QApplication::font();
  if (on) font.setPointSizeF(font.pointSizeF() * 1.5);
  setFont(font);
  inputs_dock_->setVisible(!on);
  analysis_->setVisible(!on);
  menuBar()->setVisible(!on);
  statusBar()->setVisible(!on);
  if (on) {
    showFullScreen();
    heads_->enlargeHead(std::max(0, heads_->selectedHead()));
  } else {
    showNormal();
    analysis_->invalidate();
  }
  lessons_->setPresentation(on);  // the lesson panel stays, in large type
  scheduler_.requestRender();
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange && language_system_action_) retranslateUi();
  QMainWindow::changeEvent(event);
}

void MainWindow::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape) {
    if (cancel_button_->isVisible()) {
      cancel_button_->click();  // a long forward pass first
    } else if (presentation_) {
      setPresentationMode(false);
    } else {
      heads_->showGrid();
    }
    return;
  }
  QMainWindow::keyPressEvent(event);
}

void MainWindow::persistState() {
  if (!options_.persist) return;
  QSettings store;
  options::saveSettings(store, settings());
  store.setValue(QStringLiteral("window/geometry"), saveGeometry());
  store.setValue(QStringLiteral("window/state"), QMainWindow::saveState());
  store.setValue(QStringLiteral("window/splitter"), main_splitter_->saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (presentation_) setPresentationMode(false);
  persistState();
  QMainWindow::closeEvent(event);
}

}  // namespace attnlab::gui
