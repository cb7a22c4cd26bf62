/// \file main_window_menus.cpp
/// The window's menus and actions, the examples menu, and the interface language
/// (main_window.hpp).

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTranslator>

#include "lesson_controller.hpp"
#include "interventions_panel.hpp"
#include "main_window.hpp"
#include "model_fetch_dialog.hpp"
#include "stored_models.hpp"
#include "sweep_export.hpp"
#include "views/plots.hpp"

namespace attnlab::gui {
namespace {

QTranslator& translator() {
  static QTranslator instance;
  return instance;
}

}  // namespace

void MainWindow::buildMenus() {
  file_menu_ = menuBar()->addMenu(QString());
  file_menu_->setObjectName(QStringLiteral("fileMenu"));
  open_model_action_ = file_menu_->addAction(QString());
  open_model_action_->setObjectName(QStringLiteral("openModelAction"));
  open_model_action_->setShortcut(QKeySequence::Open);
  stored_models_menu_ = file_menu_->addMenu(QString());  // other tools' models, by store
  stored_models_menu_->setObjectName(QStringLiteral("storedModelsMenu"));
  synthetic_action_ = file_menu_->addAction(QString());
  synthetic_action_->setObjectName(QStringLiteral("syntheticAction"));
  get_models_action_ = file_menu_->addAction(QString());
  get_models_action_->setObjectName(QStringLiteral("getModelsAction"));
  models_dialog_ = new ModelFetchDialog(this);
  file_menu_->addSeparator();
  export_menu_ = file_menu_->addMenu(QString());
  export_head_action_ = export_menu_->addAction(QString());
  export_grid_action_ = export_menu_->addAction(QString());
  export_saturation_action_ = export_menu_->addAction(QString());
  // The pictures of the plot table (views/plots.hpp), one entry each.
  export_plots_menu_ = export_menu_->addMenu(QString());
  export_plots_menu_->setObjectName(QStringLiteral("exportPictureMenu"));
  for (const views::Plot& plot : views::plots()) {
    QAction* action = export_plots_menu_->addAction(QString());
    action->setObjectName(QStringLiteral("exportPlot_") + QString::fromUtf8(views::plotName(plot.kind).data()));
    action->setData(static_cast<int>(plot.kind));
    connect(action, &QAction::triggered, this,
            [this, kind = plot.kind] { exports_->askExportPlot(kind); });
  }
  connect(export_plots_menu_, &QMenu::aboutToShow, this, [this] {
    for (QAction* action : export_plots_menu_->actions()) {
      const views::Plot* plot = views::plotOf(static_cast<views::PlotKind>(action->data().toInt()));
      action->setEnabled(shown_ && plot && plot->available(*shown_));
    }
  });
  export_matrices_action_ = export_menu_->addAction(QString());
  export_html_action_ = export_menu_->addAction(QString());
  export_html_action_->setObjectName(QStringLiteral("exportHtmlAction"));
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
  scaling_action_->setObjectName(QStringLiteral("scalingAction"));
  scaling_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
  dk_up_action_ = view_menu_->addAction(QString());
  dk_up_action_->setObjectName(QStringLiteral("dkUpAction"));
  dk_up_action_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Up), QKeySequence(Qt::Key_Plus)});
  dk_down_action_ = view_menu_->addAction(QString());
  dk_down_action_->setObjectName(QStringLiteral("dkDownAction"));
  dk_down_action_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Down), QKeySequence(Qt::Key_Minus)});
  view_menu_->addSeparator();
  compare_action_ = view_menu_->addAction(QString());
  compare_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
  stop_compare_action_ = view_menu_->addAction(QString());
  // Ctrl+1 / Ctrl+2 bring a side panel to the front (its tab chosen when it shares a column), or
  // fold it away when it is in front already; the arrangement is kept with the window's state.
  const auto panelAction = [this](QDockWidget* dock, QKeySequence key) {
    QAction* action = view_menu_->addAction(QString());
    action->setShortcut(key);
    connect(action, &QAction::triggered, this, [this, dock] {
      if (dock->isVisible() && !presentation_) {
        dock->hide();
      } else {
        if (presentation_) setPresentationMode(false);
        dock->show();
        dock->raise();
      }
    });
    return action;
  };
  inputs_action_ = panelAction(inputs_dock_, QKeySequence(Qt::CTRL | Qt::Key_1));
  inputs_action_->setObjectName(QStringLiteral("inputsAction"));
  analysis_action_ = panelAction(analysis_dock_, QKeySequence(Qt::CTRL | Qt::Key_2));
  analysis_action_->setObjectName(QStringLiteral("analysisAction"));
  cost_action_ = cost_dock_->toggleViewAction();
  view_menu_->addAction(cost_action_);
  decode_action_ = decode_dock_->toggleViewAction();
  view_menu_->addAction(decode_action_);
  training_action_ = training_dock_->toggleViewAction();
  training_action_->setObjectName(QStringLiteral("trainingAction"));
  view_menu_->addAction(training_action_);
  QAction* interventions_action = interventions_dock_->toggleViewAction();
  interventions_action->setObjectName(QStringLiteral("interventionsAction"));
  view_menu_->addAction(interventions_action);
  view_menu_->addSeparator();
  grid_action_ = view_menu_->addAction(QString());
  grid_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
  presentation_action_ = view_menu_->addAction(QString());
  presentation_action_->setCheckable(true);
  presentation_action_->setShortcut(QKeySequence(Qt::Key_F5));
  // The shortcuts work in presentation mode too, when the menu bar is hidden.
  for (QAction* action : {scaling_action_, dk_up_action_, dk_down_action_, grid_action_,
                          presentation_action_, copy_head_action_, inputs_action_, analysis_action_}) {
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
  connect(stored_models_menu_, &QMenu::aboutToShow, this, [this] {
    std::vector<StoredPreset> found = findStoredPresets();  // looked for again: a pull meanwhile
    fillStoredModelsMenu(stored_models_menu_, found, [this](const QString& path) { model_source_->openFolder(path); });
    model_source_->setStoredModels(std::move(found));
  });
  connect(synthetic_action_, &QAction::triggered, this, &MainWindow::showSyntheticLab);
  // A model of the manifest, fetched from the dialog, a preset not yet fetched, or a lesson step.
  connect(get_models_action_, &QAction::triggered, models_dialog_, [this] { models_dialog_->showModel({}); });
  connect(model_source_, &ModelSource::fetchRequested, models_dialog_, &ModelFetchDialog::fetch);
  connect(models_dialog_, &ModelFetchDialog::fetched, model_source_, &ModelSource::modelFetched);
  connect(lessons_, &LessonController::fetchRequested, models_dialog_, &ModelFetchDialog::fetch);
  connect(models_dialog_, &ModelFetchDialog::fetched, lessons_, &LessonController::modelFetched);
  connect(export_head_action_, &QAction::triggered, this, [this] { exports_->askExportImage(ExportTarget::kCurrentHead); });
  connect(export_grid_action_, &QAction::triggered, this, [this] { exports_->askExportImage(ExportTarget::kAllHeads); });
  connect(export_saturation_action_, &QAction::triggered, this,
          [this] { exports_->askExportImage(ExportTarget::kSaturation); });
  connect(export_matrices_action_, &QAction::triggered, exports_, &ExportController::askExportMatrices);
  connect(export_html_action_, &QAction::triggered, this, [this] { exports_->askExportHtml(language_); });
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
  analysis_dock_->setWindowTitle(tr("Analysis"));
  inputs_action_->setText(tr("Inputs panel"));
  analysis_action_->setText(tr("Analysis panel (saturation, entropy, histogram)"));
  file_menu_->setTitle(tr("&File"));
  open_model_action_->setText(tr("Open model…"));
  stored_models_menu_->setTitle(tr("Models on this computer"));
  stored_models_menu_->setToolTip(tr("The models Ollama, the HuggingFace cache, LM Studio and llama.cpp keep, "
                                     "by the names attention-lab-cli --model takes (attention-lab-cli models)"));
  synthetic_action_->setText(tr("Synthetic lab"));
  get_models_action_->setText(tr("Get models…"));
  get_models_action_->setToolTip(tr("Download the pretrained models Attention Lab knows by name (all-MiniLM-L6-v2, "
                                    "SmolLM2-135M-Instruct, Gemma 3 270M) into the cache"));
  export_menu_->setTitle(tr("&Export"));
  export_head_action_->setText(tr("Current head as image…"));
  updateActions();
  export_saturation_action_->setText(tr("Saturation plot as image…"));
  export_plots_menu_->setTitle(tr("Picture as image"));
  for (QAction* action : export_plots_menu_->actions()) {
    const views::Plot* plot = views::plotOf(static_cast<views::PlotKind>(action->data().toInt()));
    action->setText(views::viewText(plot->title) + QStringLiteral("…"));
  }
  export_matrices_action_->setText(tr("Matrices as CSV or NPY…"));
  export_html_action_->setText(tr("Interactive page (.html)…"));
  export_sweep_action_->setText(tr("Sweep as GIF, MP4 or PNG frames…"));
  compare_action_->setText(tr("Compare with…"));
  stop_compare_action_->setText(tr("Stop comparing"));
  cost_dock_->setWindowTitle(tr("Cost of attention"));
  cost_->retranslate();
  decode_dock_->setWindowTitle(decodeTitle());
  decode_->retranslate();
  training_dock_->setWindowTitle(tr("Training curves (with and without 1/√d_k)"));
  training_->redraw();
  interventions_dock_->setWindowTitle(tr("Interventions: what a head does"));
  interventions_->retranslate();
  generate_->retranslate();
  lessons_->retranslate();
  copy_head_action_->setText(tr("Copy current head image"));
  quit_action_->setText(tr("&Quit"));
  examples_menu_->setTitle(tr("E&xamples"));
  for (QAction* example : examples_menu_->actions()) {
    const QVariantMap title = example->data().toMap();
    example->setText(title.value(language_, title.value(QStringLiteral("en"))).toString());
  }
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

void MainWindow::updateActions() {
  const bool layers = !modelDir().isEmpty() && layer() < 0;
  export_grid_action_->setText(layers ? tr("All layers × heads as image…") : tr("All heads as image…"));
  copy_grid_action_->setText(layers ? tr("Copy all layers × heads image") : tr("Copy all heads image"));
  synthetic_action_->setEnabled(!modelDir().isEmpty());
  stop_compare_action_->setEnabled(compare_->active());
}

void MainWindow::loadExamples() {
  QFile file(QStringLiteral(":/examples/examples.json"));
  if (!file.open(QIODevice::ReadOnly)) return;
  const QJsonArray examples = QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("examples")).toArray();
  for (const QJsonValue& value : examples) {
    const QJsonObject example = value.toObject();
    const QString text = example.value(QStringLiteral("text")).toString();
    const QString source = example.value(QStringLiteral("source")).toString();
    // The title in each language ({"en": …, "zh_CN": …}); retranslateUi picks one.
    const QVariantMap title = example.value(QStringLiteral("title")).toObject().toVariantMap();
    QAction* action = examples_menu_->addAction(title.value(QStringLiteral("en")).toString());
    action->setData(title);
    action->setObjectName(example.value(QStringLiteral("id")).toString());
    connect(action, &QAction::triggered, this, [this, text, source] {
      options::LabSettings s = settings();
      s.text = text;
      s.source = source;
      if (!source.isEmpty()) s.setCausal(false);
      setSettings(s);
    });
  }
}

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

}  // namespace attnlab::gui
