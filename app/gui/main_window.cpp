#include "main_window.hpp"

#include <qcustomplot.h>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolTip>
#include <QTranslator>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "attnlab/error.hpp"
#include "attnlab/io.hpp"

static void initAttentionLabResources() {
  Q_INIT_RESOURCE(attention_lab);
  Q_INIT_RESOURCE(attention_lab_translations);
}

namespace attnlab::gui {

void initResources() { initAttentionLabResources(); }

namespace {

/// The plot's font at `points` times the views' font scale (presentation mode enlarges it).
QFont panelFont(const QCustomPlot& plot, double points, bool bold = false) {
  QFont f = plot.font();
  f.setPointSizeF(points * views::fontScale(plot));
  f.setBold(bold);
  return f;
}

/// Clears plot and lays out a bold title over one fixed (no drag, no zoom) axis rect.
QCPAxisRect* titledPanel(QCustomPlot& plot, const QString& title) {
  views::clearPlot(plot);
  plot.plotLayout()->addElement(0, 0, new QCPTextElement(&plot, title, panelFont(plot, 11, true)));
  auto* rect = new QCPAxisRect(&plot);
  plot.plotLayout()->addElement(1, 0, rect);
  rect->setRangeDrag(Qt::Orientations());
  rect->setRangeZoom(Qt::Orientations());
  return rect;
}

/// Beyond this many tokens per side the grid is an overview (labels thinned, a note says so).
constexpr int kOverviewTokens = 40;
/// Milliseconds of quiet typing before the text is recomputed.
constexpr int kTypingDebounceMs = 150;
/// Font factor of the pictures in presentation mode.
constexpr double kPresentationFontScale = 1.7;

QString quoted(const QString& token) { return QStringLiteral("'%1'").arg(token); }

/// The application-wide translator of the window's own strings.
QTranslator& translator() {
  static QTranslator instance;
  return instance;
}

QCustomPlot* newPlot(QWidget* parent) {
  auto* plot = new QCustomPlot(parent);
  plot->setMouseTracking(true);
  plot->setMinimumSize(160, 120);
  // Every draw replaces the plot's contents; no antialiasing on the colour maps keeps cells crisp.
  plot->setNotAntialiasedElements(QCP::aePlottables);
  plot->setAntialiasedElement(QCP::aeItems, true);
  return plot;
}

/// Index of the colour map (plottable) whose axis rect contains pos, with the cell under pos.
struct Hit {
  int map = -1;
  int row = -1;
  int column = -1;
};

Hit hitTest(QCustomPlot* plot, const QPointF& pos, int n_q, int n_k) {
  Hit hit;
  QCPAxisRect* rect = plot->axisRectAt(pos);
  if (!rect || !rect->rect().contains(pos.toPoint())) return hit;
  for (int k = 0; k < plot->plottableCount(); ++k) {
    auto* map = qobject_cast<QCPColorMap*>(plot->plottable(k));
    if (!map || !map->keyAxis() || map->keyAxis()->axisRect() != rect) continue;
    hit.map = k;
    hit.column = static_cast<int>(std::lround(map->keyAxis()->pixelToCoord(pos.x())));
    hit.row = static_cast<int>(std::lround(map->valueAxis()->pixelToCoord(pos.y())));
    if (hit.row < 0 || hit.row >= n_q || hit.column < 0 || hit.column >= n_k) {
      hit.row = hit.column = -1;
    }
    return hit;
  }
  return hit;
}

/// A dialog for an image export: file, width, height, scale (PNG pixel ratio).
class ImageExportDialog : public QDialog {
 public:
  ImageExportDialog(QWidget* parent, const QString& folder, const QString& name,
                    const views::ImageSize& size)
      : QDialog(parent) {
    setWindowTitle(MainWindow::tr("Export image"));
    auto* form = new QFormLayout(this);
    auto* row = new QHBoxLayout;
    path_ = new QLineEdit(QDir(folder).filePath(name), this);
    auto* browse = new QPushButton(MainWindow::tr("Browse…"), this);
    row->addWidget(path_, 1);
    row->addWidget(browse);
    form->addRow(MainWindow::tr("File (.png, .svg, .pdf)"), row);
    width_ = new QSpinBox(this);
    width_->setRange(100, 8000);
    width_->setValue(size.width);
    height_ = new QSpinBox(this);
    height_->setRange(100, 8000);
    height_->setValue(size.height);
    scale_ = new QDoubleSpinBox(this);
    scale_->setRange(0.5, 4.0);
    scale_->setSingleStep(0.5);
    scale_->setValue(size.scale);
    form->addRow(MainWindow::tr("Width (px)"), width_);
    form->addRow(MainWindow::tr("Height (px)"), height_);
    form->addRow(MainWindow::tr("Scale (PNG pixel ratio)"), scale_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
      const QString file = QFileDialog::getSaveFileName(
          this, MainWindow::tr("Export image"), path_->text(),
          MainWindow::tr("Images (*.png *.svg *.pdf)"));
      if (!file.isEmpty()) path_->setText(file);
    });
    connect(path_, &QLineEdit::textChanged, this, [this](const QString& text) {
      scale_->setEnabled(views::imageFormatForPath(text) == views::ImageFormat::kPng);
    });
  }
  QString path() const { return path_->text(); }
  views::ImageSize size() const { return {width_->value(), height_->value(), scale_->value()}; }

 private:
  QLineEdit* path_;
  QSpinBox* width_;
  QSpinBox* height_;
  QDoubleSpinBox* scale_;
};

}  // namespace

MainWindow::MainWindow(const WindowOptions& options, QWidget* parent)
    : QMainWindow(parent), options_(options), controller_(std::make_unique<ComputeController>()) {
  setObjectName(QStringLiteral("AttentionLabWindow"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/attention-lab.svg")));
  buildUi();
  buildMenus();
  loadExamples();
  resize(1500, 920);

  LabSettings initial = options_.settings;
  QString language = options_.language;
  if (options_.restore_settings) {
    QSettings store;
    initial = loadSettings(store);
    restoreGeometry(store.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(store.value(QStringLiteral("window/state")).toByteArray());
    main_splitter_->restoreState(store.value(QStringLiteral("window/splitter")).toByteArray());
    if (language.isEmpty()) language = store.value(QStringLiteral("ui/language")).toString();
    recent_models_ = store.value(QStringLiteral("models/recent")).toStringList();
  }
  setLanguage(language);

  debounce_.setSingleShot(true);
  debounce_.setInterval(kTypingDebounceMs);
  connect(&debounce_, &QTimer::timeout, this, &MainWindow::requestNow);
  connect(controller_.get(), &ComputeController::resultReady, this, &MainWindow::onResult);
  connect(controller_.get(), &ComputeController::modelLoading, this, [this](const QString& dir) {
    const QString name = QFileInfo(dir).fileName();
    status_time_->setText(tr("Loading %1…").arg(name));
    model_info_label_->setText(tr("Loading %1…").arg(name));
  });
  connect(&saturation_cache_, &SaturationCache::ready, this, [this] {
    panel_dirty_ = true;
    scheduleRender();
  });

  fillBackends();
  setSettings(initial);
  if (options_.head >= 0) {
    selected_head_ = options_.head;
    enlarged_head_ = options_.head;
    heads_stack_->setCurrentIndex(1);
  }
  if (options_.presentation) setPresentationMode(true);
}

MainWindow::~MainWindow() = default;

// ---- building ----------------------------------------------------------------------------------

void MainWindow::buildUi() {
  // Inputs, in a dock on the left.
  auto* inputs = new QWidget;
  auto* inputs_layout = new QVBoxLayout(inputs);
  auto* form = new QFormLayout;
  form_ = form;
  inputs_layout->addLayout(form);
  inputs_layout->addStretch(1);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  // Where the attention comes from: the synthetic lab or a pretrained model folder.
  model_label_ = new QLabel;
  auto* model_row = new QHBoxLayout;
  model_combo_ = new QComboBox;
  model_combo_->setObjectName(QStringLiteral("modelSource"));
  model_combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  model_combo_->setMinimumContentsLength(8);
  open_model_button_ = new QPushButton;
  model_row->addWidget(model_combo_, 1);
  model_row->addWidget(open_model_button_);
  model_info_label_ = new QLabel;
  model_info_label_->setObjectName(QStringLiteral("modelInfo"));
  model_info_label_->setWordWrap(true);
  model_info_label_->setStyleSheet(QStringLiteral("color: #404040;"));
  model_message_ = new QLabel;
  model_message_->setObjectName(QStringLiteral("modelMessage"));
  model_message_->setWordWrap(true);
  model_message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  model_message_->hide();
  form->addRow(model_label_);
  form->addRow(model_row);
  form->addRow(model_info_label_);
  form->addRow(model_message_);
  text_label_ = new QLabel;
  text_edit_ = new QPlainTextEdit;
  text_edit_->setObjectName(QStringLiteral("text"));
  text_edit_->setTabChangesFocus(true);
  text_edit_->setMinimumHeight(70);
  text_edit_->setMaximumHeight(110);
  source_label_ = new QLabel;
  source_edit_ = new QPlainTextEdit;
  source_edit_->setObjectName(QStringLiteral("source"));
  source_edit_->setTabChangesFocus(true);
  source_edit_->setMaximumHeight(70);
  pair_label_ = new QLabel;
  pair_edit_ = new QPlainTextEdit;
  pair_edit_->setObjectName(QStringLiteral("pair"));
  pair_edit_->setTabChangesFocus(true);
  pair_edit_->setMaximumHeight(70);
  message_label_ = new QLabel;
  message_label_->setObjectName(QStringLiteral("inputMessage"));
  message_label_->setWordWrap(true);
  message_label_->setStyleSheet(QStringLiteral(
      "QLabel { color: #a40000; background: #fdecea; border: 1px solid #e0a0a0; "
      "border-radius: 3px; padding: 4px; }"));
  model_message_->setStyleSheet(message_label_->styleSheet());
  message_label_->hide();
  form->addRow(text_label_);
  form->addRow(text_edit_);
  form->addRow(source_label_);
  form->addRow(source_edit_);
  form->addRow(pair_label_);
  form->addRow(pair_edit_);
  form->addRow(message_label_);
  layer_label_ = new QLabel;
  layer_combo_ = new QComboBox;
  layer_combo_->setObjectName(QStringLiteral("layer"));
  form->addRow(layer_label_, layer_combo_);
  hide_special_check_ = new QCheckBox;
  hide_special_check_->setObjectName(QStringLiteral("hideSpecial"));
  form->addRow(hide_special_check_);

  mechanism_label_ = new QLabel;
  mechanism_combo_ = new QComboBox;
  mechanism_combo_->addItem(QString(), static_cast<int>(Mechanism::kAdditive));
  mechanism_combo_->addItem(QString(), static_cast<int>(Mechanism::kDot));
  mechanism_combo_->addItem(QString(), static_cast<int>(Mechanism::kScaled));
  form->addRow(mechanism_label_, mechanism_combo_);
  scaling_check_ = new QCheckBox;
  form->addRow(scaling_check_);
  temperature_check_ = new QCheckBox;
  temperature_spin_ = new QDoubleSpinBox;
  temperature_spin_->setRange(0.01, 1000);
  temperature_spin_->setDecimals(2);
  temperature_spin_->setValue(1.0);
  temperature_spin_->setEnabled(false);
  form->addRow(temperature_check_, temperature_spin_);

  dk_label_ = new QLabel;
  auto* dk_row = new QHBoxLayout;
  dk_slider_ = new QSlider(Qt::Horizontal);
  dk_slider_->setRange(0, 10);  // log2 d_k: 1 … 1024
  dk_slider_->setPageStep(1);
  dk_slider_->setTickPosition(QSlider::TicksBelow);
  dk_spin_ = new QSpinBox;
  dk_spin_->setRange(1, kMaxDk);
  dk_row->addWidget(dk_slider_, 1);
  dk_row->addWidget(dk_spin_);
  form->addRow(dk_label_, dk_row);
  heads_label_ = new QLabel;
  heads_spin_ = new QSpinBox;
  heads_spin_->setRange(1, 64);
  form->addRow(heads_label_, heads_spin_);
  d_model_label_ = new QLabel;
  d_model_spin_ = new QSpinBox;
  d_model_spin_->setRange(1, 1024);
  form->addRow(d_model_label_, d_model_spin_);
  causal_check_ = new QCheckBox;
  form->addRow(causal_check_);
  seed_label_ = new QLabel;
  seed_spin_ = new QSpinBox;
  seed_spin_->setRange(0, 1000000000);
  form->addRow(seed_label_, seed_spin_);
  backend_label_ = new QLabel;
  backend_combo_ = new QComboBox;
  backend_combo_->setObjectName(QStringLiteral("backend"));
  form->addRow(backend_label_, backend_combo_);
  backend_used_label_ = new QLabel;
  backend_used_label_->setWordWrap(true);
  backend_used_label_->setStyleSheet(QStringLiteral("color: #404040;"));
  form->addRow(backend_used_label_);
  shortcuts_label_ = new QLabel;
  shortcuts_label_->setWordWrap(true);
  shortcuts_label_->setStyleSheet(QStringLiteral("color: #606060;"));
  form->addRow(shortcuts_label_);

  auto* scroll = new QScrollArea;
  scroll->setWidget(inputs);
  scroll->setWidgetResizable(true);
  scroll->setMinimumWidth(340);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // the form wraps instead
  controls_dock_ = new QDockWidget(this);
  controls_dock_->setObjectName(QStringLiteral("inputsDock"));
  controls_dock_->setWidget(scroll);
  controls_dock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::LeftDockWidgetArea, controls_dock_);

  // Heads: grid page and enlarged-head page.
  heads_stack_ = new QStackedWidget;
  auto* grid_page = new QWidget;
  grid_page_ = grid_page;
  auto* grid_layout = new QVBoxLayout(grid_page);
  grid_layout->setContentsMargins(0, 0, 0, 0);
  grid_note_ = new QLabel;
  grid_note_->setObjectName(QStringLiteral("gridNote"));
  grid_note_->setWordWrap(true);
  grid_plot_ = newPlot(grid_page);
  grid_plot_->setObjectName(QStringLiteral("gridPlot"));
  grid_layout->addWidget(grid_note_);
  // The plot fills the page unless fitModelGrid caps its size (the model view keeps its
  // thumbnails square); the stretch-0 spacers then take the rest: centred, at the top.
  auto* plot_row = new QHBoxLayout;
  plot_row->addStretch(0);
  plot_row->addWidget(grid_plot_, 1);
  plot_row->addStretch(0);
  grid_layout->addLayout(plot_row, 1);
  grid_layout->addStretch(0);
  connect(grid_plot_, &QCustomPlot::afterLayout, this, &MainWindow::fitModelGrid);
  heads_stack_->addWidget(grid_page);

  auto* head_page = new QWidget;
  auto* head_layout = new QVBoxLayout(head_page);
  head_layout->setContentsMargins(0, 0, 0, 0);
  auto* head_bar = new QHBoxLayout;
  back_button_ = new QPushButton;
  head_note_ = new QLabel;
  head_note_->setWordWrap(true);
  head_bar->addWidget(back_button_);
  head_bar->addWidget(head_note_, 1);
  head_layout->addLayout(head_bar);
  head_splitter_ = new QSplitter(Qt::Horizontal);
  head_plot_ = newPlot(head_splitter_);
  head_plot_->setObjectName(QStringLiteral("headPlot"));
  row_plot_ = newPlot(head_splitter_);
  row_plot_->setObjectName(QStringLiteral("rowPlot"));
  head_splitter_->addWidget(head_plot_);
  head_splitter_->addWidget(row_plot_);
  head_splitter_->setStretchFactor(0, 3);
  head_splitter_->setStretchFactor(1, 1);
  head_layout->addWidget(head_splitter_, 1);
  heads_stack_->addWidget(head_page);

  // Saturation panel.
  saturation_panel_ = new QWidget;
  auto* panel_layout = new QVBoxLayout(saturation_panel_);
  panel_layout->setContentsMargins(0, 0, 0, 0);
  saturation_plot_ = newPlot(saturation_panel_);
  saturation_plot_->setObjectName(QStringLiteral("saturationPlot"));
  entropy_plot_ = newPlot(saturation_panel_);
  histogram_plot_ = newPlot(saturation_panel_);
  panel_layout->addWidget(saturation_plot_, 5);
  panel_layout->addWidget(entropy_plot_, 3);
  panel_layout->addWidget(histogram_plot_, 3);

  main_splitter_ = new QSplitter(Qt::Horizontal);
  main_splitter_->addWidget(heads_stack_);
  main_splitter_->addWidget(saturation_panel_);
  main_splitter_->setStretchFactor(0, 5);
  main_splitter_->setStretchFactor(1, 3);
  main_splitter_->setSizes({700, 520});
  for (QCustomPlot* plot : {saturation_plot_, entropy_plot_, histogram_plot_}) {
    views::setFontScale(*plot, 0.8);  // a side panel: smaller text than an exported image
  }
  setCentralWidget(main_splitter_);

  status_time_ = new QLabel;
  status_backend_ = new QLabel;
  statusBar()->addWidget(status_time_);
  statusBar()->addPermanentWidget(status_backend_);

  // Wiring: every input change recomputes; typing waits for a pause.
  connect(text_edit_, &QPlainTextEdit::textChanged, this, [this] {
    if (!updating_widgets_) debounce_.start();
  });
  connect(source_edit_, &QPlainTextEdit::textChanged, this, [this] {
    if (!updating_widgets_) debounce_.start();
  });
  connect(pair_edit_, &QPlainTextEdit::textChanged, this, [this] {
    if (!updating_widgets_) debounce_.start();
  });
  connect(model_combo_, &QComboBox::activated, this, [this](int index) {
    const QString dir = model_combo_->itemData(index).toString();
    if (dir.isEmpty()) {
      showSyntheticLab();
    } else {
      openModelFolder(dir);
    }
  });
  connect(open_model_button_, &QPushButton::clicked, this, &MainWindow::askOpenModelFolder);
  connect(layer_combo_, &QComboBox::currentIndexChanged, this, [this] {
    if (updating_widgets_) return;
    setLayer(layer_combo_->currentData().toInt());
  });
  connect(hide_special_check_, &QCheckBox::toggled, this, &MainWindow::inputsChanged);
  // Dot and scaled differ only by the 1/√d_k factor: the check box and the combo stay in step.
  connect(mechanism_combo_, &QComboBox::currentIndexChanged, this, [this] {
    const auto mechanism = static_cast<Mechanism>(mechanism_combo_->currentData().toInt());
    const bool was = updating_widgets_;
    updating_widgets_ = true;
    scaling_check_->setEnabled(mechanism != Mechanism::kAdditive);
    if (mechanism != Mechanism::kAdditive) scaling_check_->setChecked(mechanism == Mechanism::kScaled);
    updating_widgets_ = was;
    inputsChanged();
  });
  connect(scaling_check_, &QCheckBox::toggled, this, [this](bool on) {
    if (updating_widgets_) return;
    updating_widgets_ = true;
    mechanism_combo_->setCurrentIndex(on ? 2 : 1);
    updating_widgets_ = false;
    inputsChanged();
  });
  connect(temperature_check_, &QCheckBox::toggled, this, [this](bool on) {
    temperature_spin_->setEnabled(on);
    inputsChanged();
  });
  connect(temperature_spin_, &QDoubleSpinBox::valueChanged, this, &MainWindow::inputsChanged);
  connect(dk_slider_, &QSlider::valueChanged, this, [this](int position) {
    if (updating_widgets_) return;
    setDk(1 << position);
  });
  connect(dk_spin_, &QSpinBox::valueChanged, this, [this](int d_k) {
    if (updating_widgets_) return;
    setDk(d_k);
  });
  connect(heads_spin_, &QSpinBox::valueChanged, this, &MainWindow::inputsChanged);
  connect(d_model_spin_, &QSpinBox::valueChanged, this, &MainWindow::inputsChanged);
  connect(causal_check_, &QCheckBox::toggled, this, &MainWindow::inputsChanged);
  connect(seed_spin_, &QSpinBox::valueChanged, this, &MainWindow::inputsChanged);
  connect(backend_combo_, &QComboBox::currentIndexChanged, this, [this] {
    if (updating_widgets_) return;
    wanted_backend_ = backend_combo_->currentData().toString();
    inputsChanged();
  });
  connect(back_button_, &QPushButton::clicked, this, &MainWindow::showGrid);

  for (QCustomPlot* plot : {grid_plot_, head_plot_}) {
    connect(plot, &QCustomPlot::mousePress, this,
            [this, plot](QMouseEvent* event) { onPlotClick(plot, event); });
    connect(plot, &QCustomPlot::mouseMove, this,
            [this, plot](QMouseEvent* event) { onPlotHover(plot, event); });
  }
}

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
  copy_head_action_ = file_menu_->addAction(QString());
  copy_head_action_->setShortcut(QKeySequence::Copy);
  copy_grid_action_ = file_menu_->addAction(QString());
  file_menu_->addSeparator();
  quit_action_ = file_menu_->addAction(QString());
  quit_action_->setShortcut(QKeySequence::Quit);
  export_head_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  export_grid_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));

  examples_menu_ = menuBar()->addMenu(QString());

  view_menu_ = menuBar()->addMenu(QString());
  scaling_action_ = view_menu_->addAction(QString());
  scaling_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
  dk_up_action_ = view_menu_->addAction(QString());
  dk_up_action_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Up), QKeySequence(Qt::Key_Plus)});
  dk_down_action_ = view_menu_->addAction(QString());
  dk_down_action_->setShortcuts(
      {QKeySequence(Qt::CTRL | Qt::Key_Down), QKeySequence(Qt::Key_Minus)});
  view_menu_->addSeparator();
  grid_action_ = view_menu_->addAction(QString());
  grid_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
  presentation_action_ = view_menu_->addAction(QString());
  presentation_action_->setCheckable(true);
  presentation_action_->setShortcut(QKeySequence(Qt::Key_F5));
  // The window's shortcuts work in presentation mode too, when the menu bar is hidden.
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

  connect(open_model_action_, &QAction::triggered, this, &MainWindow::askOpenModelFolder);
  connect(synthetic_action_, &QAction::triggered, this, &MainWindow::showSyntheticLab);
  connect(export_head_action_, &QAction::triggered, this,
          [this] { askExportImage(ExportTarget::kCurrentHead); });
  connect(export_grid_action_, &QAction::triggered, this,
          [this] { askExportImage(ExportTarget::kAllHeads); });
  connect(export_saturation_action_, &QAction::triggered, this,
          [this] { askExportImage(ExportTarget::kSaturation); });
  connect(export_matrices_action_, &QAction::triggered, this, &MainWindow::askExportMatrices);
  connect(copy_head_action_, &QAction::triggered, this, [this] {
    // Ctrl+C in a text field copies text, as everywhere else.
    if (qobject_cast<QPlainTextEdit*>(QApplication::focusWidget())) {
      static_cast<QPlainTextEdit*>(QApplication::focusWidget())->copy();
      return;
    }
    copyImage(ExportTarget::kCurrentHead);
  });
  connect(copy_grid_action_, &QAction::triggered, this,
          [this] { copyImage(ExportTarget::kAllHeads); });
  connect(quit_action_, &QAction::triggered, this, &QWidget::close);
  connect(scaling_action_, &QAction::triggered, this, [this] {
    if (scaling_check_->isEnabled()) scaling_check_->toggle();
  });
  connect(dk_up_action_, &QAction::triggered, this,
          [this] { setDk(std::min(kMaxDk, dk_spin_->value() * 2)); });
  connect(dk_down_action_, &QAction::triggered, this,
          [this] { setDk(std::max(1, dk_spin_->value() / 2)); });
  connect(grid_action_, &QAction::triggered, this, &MainWindow::showGrid);
  connect(presentation_action_, &QAction::triggered, this, &MainWindow::setPresentationMode);
  connect(language_system_action_, &QAction::triggered, this, [this] { setLanguage(QString()); });
  connect(language_en_action_, &QAction::triggered, this,
          [this] { setLanguage(QStringLiteral("en")); });
  connect(language_zh_action_, &QAction::triggered, this,
          [this] { setLanguage(QStringLiteral("zh_CN")); });
  connect(about_action_, &QAction::triggered, this, [this] {
    QMessageBox::about(
        this, tr("About Attention Lab"),
        tr("Attention Lab: attention heatmaps per head and softmax saturation, "
           "computed by a synthetic transformer layer on this computer.") +
            QStringLiteral("\n\n") +
            tr("File → Open model folder… shows the attention of a real pretrained "
               "model (a HuggingFace folder: BERT family or GPT-2), layer by layer."));
  });
}

void MainWindow::retranslateUi() {
  setWindowTitle(tr("Attention Lab"));
  controls_dock_->setWindowTitle(tr("Inputs"));
  model_label_->setText(tr("Attention from"));
  open_model_button_->setText(tr("Open…"));
  open_model_button_->setToolTip(
      tr("Open a pretrained model folder (HuggingFace: config.json, "
         "model.safetensors, tokenizer files)"));
  pair_label_->setText(tr("Second sentence (optional: a BERT sentence pair)"));
  pair_edit_->setPlaceholderText(tr("Empty: one sentence · [CLS] text [SEP] pair [SEP]"));
  layer_label_->setText(tr("Layer"));
  hide_special_check_->setText(tr("Hide special tokens ([CLS], [SEP], <|endoftext|>)"));
  hide_special_check_->setToolTip(
      tr("A display filter: the rows and columns of special tokens are left out; the weights are "
         "not renormalised, so rows may sum to less than 1."));
  text_label_->setText(tr("Text (queries; recomputed as you type)"));
  text_edit_->setPlaceholderText(tr("Type a sentence…"));
  source_label_->setText(tr("Source (optional: keys and values → cross-attention)"));
  source_edit_->setPlaceholderText(tr("Empty: self-attention"));
  mechanism_label_->setText(tr("Mechanism"));
  mechanism_combo_->setItemText(0, tr("additive (Bahdanau)"));
  mechanism_combo_->setItemText(1, tr("dot-product"));
  mechanism_combo_->setItemText(2, tr("scaled dot-product"));
  scaling_check_->setText(tr("Scale scores by 1/√d_k"));
  temperature_check_->setText(tr("Temperature T"));
  dk_label_->setText(tr("d_k"));
  heads_label_->setText(tr("Heads"));
  d_model_label_->setText(tr("d_model"));
  causal_check_->setText(tr("Causal mask (decoder)"));
  seed_label_->setText(tr("Seed"));
  backend_label_->setText(tr("Backend"));
  if (backend_combo_->count() > 0) backend_combo_->setItemText(0, tr("auto"));
  if (backend_combo_->count() > 1) backend_combo_->setItemText(1, tr("CPU"));
  shortcuts_label_->setText(tr("Shortcuts: Ctrl+↑ / Ctrl+↓ d_k ×2 / ÷2 · Ctrl+K scaling · "
                               "F5 presentation · Esc back to all heads"));
  back_button_->setText(tr("← All heads"));

  file_menu_->setTitle(tr("&File"));
  open_model_action_->setText(tr("Open model folder…"));
  synthetic_action_->setText(tr("Synthetic lab"));
  export_menu_->setTitle(tr("&Export"));
  export_head_action_->setText(tr("Current head as image…"));
  export_grid_action_->setText(tr("All heads as image…"));
  export_saturation_action_->setText(tr("Saturation plot as image…"));
  export_matrices_action_->setText(tr("Matrices as CSV or NPY…"));
  copy_head_action_->setText(tr("Copy current head image"));
  copy_grid_action_->setText(tr("Copy all heads image"));
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
  refillModelCombo();
  refillLayerCombo();
  updateModeWidgets();
  updateStatus();
  // Notes and panel titles carry translated words: draw again.
  heads_dirty_ = single_dirty_ = panel_dirty_ = true;
  scheduleRender();
}

void MainWindow::loadExamples() {
  QFile file(QStringLiteral(":/examples/examples.json"));
  if (!file.open(QIODevice::ReadOnly)) return;
  const QJsonArray examples =
      QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("examples")).toArray();
  for (const QJsonValue& value : examples) {
    const QJsonObject example = value.toObject();
    const QString text = example.value(QStringLiteral("text")).toString();
    const QString source = example.value(QStringLiteral("source")).toString();
    QAction* action = examples_menu_->addAction(example.value(QStringLiteral("title")).toString());
    action->setObjectName(example.value(QStringLiteral("id")).toString());
    connect(action, &QAction::triggered, this, [this, text, source] {
      LabSettings s = settings();
      s.text = text;
      s.source = source;
      if (!source.isEmpty()) s.causal = false;
      setSettings(s);
    });
  }
}

void MainWindow::fillBackends() {
  backend_combo_->addItem(tr("auto"), QStringLiteral("auto:0"));
  backend_combo_->addItem(tr("CPU"), QStringLiteral("cpu:0"));
  // Listing OpenCL devices loads the ICDs (slow): the worker thread does it.
  connect(controller_.get(), &ComputeController::devicesListed, this,
          [this](const QStringList& devices) {
            updating_widgets_ = true;
            for (int i = 0; i < devices.size(); ++i) {
              backend_combo_->addItem(QStringLiteral("OpenCL: %1").arg(devices.at(i)),
                                      QStringLiteral("opencl:%1").arg(i));
            }
            devices_listed_ = true;
            const bool changed = selectWantedBackend();
            updating_widgets_ = false;
            if (changed) inputsChanged();
          });
  controller_->listDevices();
}

bool MainWindow::selectWantedBackend() {
  int index = backend_combo_->findData(wanted_backend_);
  if (index < 0 && devices_listed_ && wanted_backend_.startsWith(QLatin1String("opencl:"))) {
    // Asked for (command line, last session) but not on this machine: the request keeps an entry
    // of its own, so the window says why it cannot be used (an error, or the CPU's fallback
    // reason) instead of quietly computing with another backend.
    backend_combo_->addItem(
        tr("OpenCL device %1 (not found)").arg(wanted_backend_.section(QLatin1Char(':'), 1)),
        wanted_backend_);
    index = backend_combo_->count() - 1;
  }
  index = std::max(index, 0);
  const bool changed = index != backend_combo_->currentIndex();
  backend_combo_->setCurrentIndex(index);
  return changed;
}

// ---- inputs ------------------------------------------------------------------------------------

LabSettings MainWindow::settings() const {
  LabSettings s;
  s.text = text_edit_->toPlainText();
  s.source = source_edit_->toPlainText();
  s.mechanism = static_cast<Mechanism>(mechanism_combo_->currentData().toInt());
  s.scaled = scaling_check_->isChecked();
  if (s.mechanism == Mechanism::kDot) {
    s.mechanism = Mechanism::kScaled;  // LabSettings keeps dot as scaled without the factor
    s.scaled = false;
  }
  s.use_temperature = temperature_check_->isChecked();
  s.temperature = temperature_spin_->value();
  s.d_k = dk_spin_->value();
  s.heads = heads_spin_->value();
  s.d_model = d_model_spin_->value();
  s.causal = causal_check_->isChecked();
  s.seed = static_cast<std::uint64_t>(seed_spin_->value());
  const QStringList backend = backend_combo_->currentData().toString().split(QLatin1Char(':'));
  if (backend.size() == 2) {
    s.backend = backend.at(0);
    s.device = backend.at(1).toInt();
  } else {
    s.backend = QStringLiteral("auto");
  }
  s.model_dir = model_dir_;
  s.layer = layer_;
  s.pair = pair_edit_->toPlainText();
  s.hide_special = hide_special_check_->isChecked();
  if (s.pretrained()) {
    // The widgets show the model's shapes; the synthetic lab's own inputs wait in synthetic_.
    s.mechanism = synthetic_.additive ? Mechanism::kAdditive : Mechanism::kScaled;
    s.scaled = scaling_check_->isChecked();
    s.d_k = synthetic_.d_k;
    s.heads = synthetic_.heads;
    s.d_model = synthetic_.d_model;
    s.causal = synthetic_.causal;
    s.seed = static_cast<std::uint64_t>(synthetic_.seed);
  }
  return s;
}

void MainWindow::setSettings(const LabSettings& s) {
  updating_widgets_ = true;
  switchSource(QString());  // the synthetic widgets take s's values first
  if (text_edit_->toPlainText() != s.text) text_edit_->setPlainText(s.text);
  if (source_edit_->toPlainText() != s.source) source_edit_->setPlainText(s.source);
  mechanism_combo_->setCurrentIndex(s.mechanism == Mechanism::kAdditive ? 0 : s.scaled ? 2 : 1);
  scaling_check_->setEnabled(s.mechanism != Mechanism::kAdditive);
  scaling_check_->setChecked(s.scaled);
  temperature_check_->setChecked(s.use_temperature);
  temperature_spin_->setEnabled(s.use_temperature);
  temperature_spin_->setValue(s.temperature);
  dk_spin_->setValue(s.d_k);
  dk_slider_->setValue(static_cast<int>(std::lround(std::log2(std::max(1, s.d_k)))));
  heads_spin_->setValue(s.heads);
  d_model_spin_->setValue(s.d_model);
  causal_check_->setChecked(s.causal);
  seed_spin_->setValue(static_cast<int>(std::min<std::uint64_t>(s.seed, 1000000000)));
  wanted_backend_ = QStringLiteral("%1:%2").arg(s.backend).arg(s.device);
  selectWantedBackend();
  if (pair_edit_->toPlainText() != s.pair) pair_edit_->setPlainText(s.pair);
  hide_special_check_->setChecked(s.hide_special);
  layer_ = s.layer;
  if (s.pretrained()) rememberModel(s.model_dir);
  switchSource(s.model_dir);
  updating_widgets_ = false;
  requestNow();
}

void MainWindow::switchSource(const QString& dir) {
  const bool was_updating = updating_widgets_;
  updating_widgets_ = true;
  if (model_dir_.isEmpty() && !dir.isEmpty()) {
    // Into model mode: keep the synthetic lab's inputs for the way back.
    synthetic_.additive =
        static_cast<Mechanism>(mechanism_combo_->currentData().toInt()) == Mechanism::kAdditive;
    synthetic_.d_k = dk_spin_->value();
    synthetic_.heads = heads_spin_->value();
    synthetic_.d_model = d_model_spin_->value();
    synthetic_.causal = causal_check_->isChecked();
    synthetic_.seed = seed_spin_->value();
  } else if (!model_dir_.isEmpty() && dir.isEmpty()) {
    // Back to the synthetic lab: its inputs as they were.
    mechanism_combo_->setCurrentIndex(synthetic_.additive           ? 0
                                      : scaling_check_->isChecked() ? 2
                                                                    : 1);
    dk_spin_->setValue(synthetic_.d_k);
    dk_slider_->setValue(static_cast<int>(std::lround(std::log2(std::max(1, synthetic_.d_k)))));
    heads_spin_->setValue(synthetic_.heads);
    d_model_spin_->setValue(synthetic_.d_model);
    causal_check_->setChecked(synthetic_.causal);
    seed_spin_->setValue(synthetic_.seed);
  }
  model_dir_ = dir;
  updating_widgets_ = was_updating;
  refillModelCombo();
  refillLayerCombo();
  updateModeWidgets();
}

void MainWindow::updateModeWidgets() {
  const bool model = !model_dir_.isEmpty();
  const ModelInfo* info =
      shown_ && shown_->model && shown_->model->dir == model_dir_ ? shown_->model.get() : nullptr;
  const bool was_updating = updating_widgets_;
  updating_widgets_ = true;
  const QString decided =
      !model ? QString()
      : info ? tr("Decided by the model: %1 has %2 layers × %3 heads, d_model = %4, d_k = %5, %6.")
                   .arg(info->name)
                   .arg(info->config.layers)
                   .arg(info->config.heads)
                   .arg(info->config.d_model)
                   .arg(info->config.dK())
                   .arg(info->config.mask() == Mask::kCausal ? tr("causal mask") : tr("no mask"))
             : tr("Decided by the model.");
  for (QWidget* w : std::initializer_list<QWidget*>{
           mechanism_combo_, dk_slider_, dk_spin_, heads_spin_, d_model_spin_, causal_check_,
           seed_spin_, mechanism_label_, dk_label_, heads_label_, d_model_label_, seed_label_}) {
    w->setEnabled(!model);
    w->setToolTip(decided);
  }
  // Whole form rows, so hidden rows leave no gap (and no stale geometry).
  form_->setRowVisible(source_label_, !model);
  form_->setRowVisible(source_edit_, !model);
  form_->setRowVisible(pair_label_, model);
  form_->setRowVisible(pair_edit_, model);
  const bool pairs = !info || info->config.architecture == Architecture::kBert;
  pair_edit_->setEnabled(pairs);
  pair_label_->setEnabled(pairs);
  pair_edit_->setToolTip(pairs ? QString()
                               : tr("%1 is a GPT-2: it reads one text, no sentence pairs.")
                                     .arg(info ? info->name : QString()));
  form_->setRowVisible(layer_combo_, model);
  form_->setRowVisible(hide_special_check_, model);
  synthetic_action_->setEnabled(model);
  if (model) {
    // The model's own values, shown (disabled) where the synthetic lab's inputs are.
    mechanism_combo_->setCurrentIndex(scaling_check_->isChecked() ? 2 : 1);
    scaling_check_->setEnabled(true);
    if (info) {
      dk_spin_->setValue(std::min(kMaxDk, info->config.dK()));
      dk_slider_->setValue(
          static_cast<int>(std::lround(std::log2(std::max(1, info->config.dK())))));
      heads_spin_->setValue(std::min(heads_spin_->maximum(), info->config.heads));
      d_model_spin_->setValue(std::min(d_model_spin_->maximum(), info->config.d_model));
      causal_check_->setChecked(info->config.mask() == Mask::kCausal);
    }
  } else {
    scaling_check_->setEnabled(static_cast<Mechanism>(mechanism_combo_->currentData().toInt()) !=
                               Mechanism::kAdditive);
  }
  if (model) {
    model_info_label_->setText(
        info ? tr("%1 · %2 · %3 layers × %4 heads · d_model = %5 · loaded in %6 ms")
                   .arg(info->name, QString::fromStdString(info->config.model_type))
                   .arg(info->config.layers)
                   .arg(info->config.heads)
                   .arg(info->config.d_model)
                   .arg(info->load_ms, 0, 'f', 0)
             : tr("Loading %1…").arg(QFileInfo(model_dir_).fileName()));
    model_info_label_->setToolTip(model_dir_);
  }
  form_->setRowVisible(model_info_label_, model);
  export_grid_action_->setText(model && layer_ < 0 ? tr("All layers × heads as image…")
                                                   : tr("All heads as image…"));
  copy_grid_action_->setText(model && layer_ < 0 ? tr("Copy all layers × heads image")
                                                 : tr("Copy all heads image"));
  updating_widgets_ = was_updating;
}

void MainWindow::refillModelCombo() {
  const bool was_updating = updating_widgets_;
  updating_widgets_ = true;
  model_combo_->clear();
  model_combo_->addItem(tr("Synthetic lab (random weights)"), QString());
  for (const QString& dir : recent_models_) {
    model_combo_->addItem(QFileInfo(dir).fileName(), dir);
    model_combo_->setItemData(model_combo_->count() - 1, dir, Qt::ToolTipRole);
  }
  const int index = model_combo_->findData(model_dir_);
  model_combo_->setCurrentIndex(std::max(0, index));
  model_combo_->setToolTip(model_dir_);
  updating_widgets_ = was_updating;
}

void MainWindow::refillLayerCombo() {
  const bool was_updating = updating_widgets_;
  updating_widgets_ = true;
  const ModelInfo* info =
      shown_ && shown_->model && shown_->model->dir == model_dir_ ? shown_->model.get() : nullptr;
  // Until the model has loaded, offer what is asked for.
  const int layers = info ? info->config.layers : layer_ + 1;
  layer_combo_->clear();
  layer_combo_->addItem(tr("All layers (model view)"), -1);
  for (int l = 0; l < layers; ++l) layer_combo_->addItem(tr("Layer %1").arg(l), l);
  layer_combo_->setCurrentIndex(std::max(0, layer_combo_->findData(layer_)));
  updating_widgets_ = was_updating;
}

void MainWindow::rememberModel(const QString& dir) {
  recent_models_.removeAll(dir);
  recent_models_.prepend(dir);
  while (recent_models_.size() > 8) recent_models_.removeLast();
  if (options_.persist) QSettings().setValue(QStringLiteral("models/recent"), recent_models_);
}

void MainWindow::askOpenModelFolder() {
  QSettings store;
  QString start = model_dir_;
  if (start.isEmpty() && !recent_models_.isEmpty()) start = recent_models_.first();
  if (start.isEmpty())
    start = store.value(QStringLiteral("models/folder"), QDir::homePath()).toString();
  const QString dir = QFileDialog::getExistingDirectory(
      this, tr("Open model folder (config.json, model.safetensors, tokenizer)"), start,
      QFileDialog::ShowDirsOnly);
  if (dir.isEmpty()) return;
  if (options_.persist)
    store.setValue(QStringLiteral("models/folder"), QFileInfo(dir).absolutePath());
  openModelFolder(dir);
}

void MainWindow::openModelFolder(const QString& dir) {
  const QString clean = QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
  model_message_->hide();
  model_message_->clear();
  if (clean == model_dir_) return;
  layer_ = -1;  // a new model opens on its model view
  enlarged_head_ = -1;
  heads_stack_->setCurrentIndex(0);
  rememberModel(clean);
  switchSource(clean);
  status_time_->setText(tr("Loading %1…").arg(QFileInfo(clean).fileName()));
  requestNow();
}

void MainWindow::showSyntheticLab() {
  model_message_->hide();
  model_message_->clear();
  if (model_dir_.isEmpty()) return;
  enlarged_head_ = -1;
  heads_stack_->setCurrentIndex(0);
  switchSource(QString());
  requestNow();
}

void MainWindow::setLayer(int layer) {
  layer = std::max(-1, layer);
  if (layer == layer_) return;
  layer_ = layer;
  const bool was_updating = updating_widgets_;
  updating_widgets_ = true;
  layer_combo_->setCurrentIndex(std::max(0, layer_combo_->findData(layer_)));
  updating_widgets_ = was_updating;
  updateModeWidgets();
  if (!updating_widgets_) inputsChanged();
}

QString MainWindow::modelMessage() const {
  return model_message_->isHidden() ? QString() : model_message_->text();
}

void MainWindow::setDk(int d_k) {
  if (!model_dir_.isEmpty()) return;  // the model decides d_k
  d_k = std::clamp(d_k, 1, kMaxDk);
  updating_widgets_ = true;
  dk_spin_->setValue(d_k);
  dk_slider_->setValue(static_cast<int>(std::lround(std::log2(d_k))));
  updating_widgets_ = false;
  inputsChanged();
}

void MainWindow::inputsChanged() {
  if (updating_widgets_) return;
  debounce_.stop();
  requestNow();
  // The marker moves with the slider at once; the maps follow when the worker answers.
  panel_dirty_ = true;
  scheduleRender();
}

void MainWindow::requestNow() {
  debounce_.stop();
  controller_->request(settings());
  if (options_.persist) {
    QSettings store;
    saveSettings(store, settings());
  }
}

// ---- results and drawing -----------------------------------------------------------------------

void MainWindow::onResult(const ResultPtr& result) {
  if (result->model_error) {
    // The folder did not load: say so beside the model choice, go back to what is on screen (or
    // the synthetic lab) and keep the picture.
    const QString dir = result->settings.model_dir;
    const QString fallback =
        shown_ && shown_->settings.model_dir != dir ? shown_->settings.model_dir : QString();
    const QString message =
        fallback.isEmpty() ? tr("Cannot open the model folder %1: %2 — showing the synthetic lab.")
                                 .arg(QDir::toNativeSeparators(dir), result->error)
                           : tr("Cannot open the model folder %1: %2 — still showing %3.")
                                 .arg(QDir::toNativeSeparators(dir), result->error,
                                      QFileInfo(fallback).fileName());
    model_message_->setText(message);
    model_message_->show();
    recent_models_.removeAll(dir);
    if (options_.persist) QSettings().setValue(QStringLiteral("models/recent"), recent_models_);
    if (model_dir_ == dir) {
      if (!fallback.isEmpty()) layer_ = shown_->settings.layer;
      switchSource(fallback);
      requestNow();  // whatever else changed meanwhile (the text) still applies
    }
    emit inputRejected(message);
    return;
  }
  if (!result->error.isEmpty()) {
    // Keep the last good picture; say what is wrong beside the input.
    last_error_ = result->error;
    message_label_->setText(result->error);
    message_label_->show();
    updateStatus();
    emit inputRejected(result->error);
    return;
  }
  last_error_.clear();
  message_label_->hide();
  message_label_->clear();
  pending_ = result;
  scheduleRender();
}

void MainWindow::scheduleRender() {
  if (render_scheduled_) return;
  render_scheduled_ = true;
  // Zero-delay: every result that arrived meanwhile is coalesced into one redraw.
  QTimer::singleShot(0, this, &MainWindow::render);
}

void MainWindow::queueReplot(QCustomPlot* plot) {
  if (!replot_queue_.contains(plot)) replot_queue_.append(plot);
  if (replot_scheduled_) return;
  replot_scheduled_ = true;
  QTimer::singleShot(0, this, &MainWindow::replotNext);
}

void MainWindow::replotNext() {
  replot_scheduled_ = false;
  while (!replot_queue_.isEmpty()) {
    QPointer<QCustomPlot> plot = replot_queue_.takeFirst();
    if (!plot) continue;
    plot->replot();
    break;
  }
  if (!replot_queue_.isEmpty()) {
    replot_scheduled_ = true;
    QTimer::singleShot(0, this, &MainWindow::replotNext);
  }
}

void MainWindow::render() {
  render_scheduled_ = false;
  bool new_result = false;
  if (pending_) {
    // What the grid page shows: synthetic heads, one model layer's heads, or the model view.
    const auto kind = [](const ComputeResult& r) {
      return !r.model ? 0 : r.settings.layer < 0 ? 2 : 1;
    };
    const bool kind_changed = shown_ && kind(*shown_) != kind(*pending_);
    const bool model_changed = !shown_ || shown_->model != pending_->model;
    shown_ = std::move(pending_);
    pending_.reset();
    ++results_shown_;
    new_result = true;
    heads_dirty_ = single_dirty_ = panel_dirty_ = true;
    const int h = shown_->attention(0).heads();
    if (selected_head_ >= h) selected_head_ = 0;
    if (enlarged_head_ >= h) enlarged_head_ = 0;
    if (enlarged_entry_ >= shown_->entries()) enlarged_entry_ = 0;
    if (selected_row_ >= shown_->attention(0).nQ()) selected_row_ = -1;
    if (kind_changed && heads_stack_->currentIndex() == 1 && !presentation_) {
      // Another kind of grid (e.g. one layer → every layer): start from its overview.
      enlarged_head_ = -1;
      heads_stack_->setCurrentIndex(0);
    }
    if (model_changed) {
      refillLayerCombo();
      updateModeWidgets();
    }
    if (kind_changed || results_shown_ == 1) fitSplitterToModelView();
  }
  if (!shown_) return;
  if (heads_stack_->currentIndex() == 0) {
    if (heads_dirty_) drawHeads(false);
  } else if (single_dirty_) {
    drawSingleHead(false);
  }
  if (panel_dirty_ && saturation_panel_->isVisible()) drawSaturationPanel();
  if (panel_dirty_ && !saturation_panel_->isVisible()) {
    // Hidden (presentation mode): drawn when shown again; the screenshot still waits for it.
    saturation_shown_ =
        saturation_cache_.get(focusAttention().nK(), shown_->settings.seed) != nullptr;
  }
  if (new_result) updateStatus();
  if (saturation_shown_) emit pictureReady();
}

views::RunLabel MainWindow::runLabel(int entry) const {
  views::RunLabel label{shown_->spec, shown_->run.cross, {}};
  if (!shown_->model) return label;
  QStringList parts;
  if (entry >= 0) {
    parts << views::viewText("layer %1")
                 .arg(shown_->layerIndices().at(static_cast<std::size_t>(entry)));
  }
  parts << shown_->model->name;
  label.extra = parts.join(QStringLiteral(" · "));
  if (shown_->special_hidden) {
    label.extra += views::viewText(" · special tokens hidden (weights not renormalised)");
  }
  return label;
}

bool MainWindow::modelView() const { return shown_ && shown_->model && shown_->settings.layer < 0; }

int MainWindow::focusEntry() const {
  if (!shown_) return 0;
  if (modelView() && heads_stack_->currentIndex() == 1) {
    return std::clamp(enlarged_entry_, 0, shown_->entries() - 1);
  }
  return 0;
}

int MainWindow::focusLayer() const {
  if (!shown_ || !shown_->model) return -1;
  return shown_->layerIndices().at(static_cast<std::size_t>(focusEntry()));
}

int MainWindow::enlargedLayer() const {
  if (!shown_ || !shown_->model || heads_stack_->currentIndex() != 1 || enlarged_head_ < 0) {
    return -1;
  }
  return focusLayer();
}

int MainWindow::markerDk() const {
  if (!model_dir_.isEmpty() && shown_ && shown_->model) return shown_->model->config.dK();
  return settings().d_k;
}

QString MainWindow::hiddenNote() const {
  return shown_ && shown_->special_hidden
             ? tr("special tokens hidden — weights not renormalised (rows may sum to less than 1)")
             : QString();
}

void MainWindow::drawHeads(bool force) {
  heads_dirty_ = false;
  fit_passes_ = 0;
  const QString hidden = hiddenNote();
  if (modelView()) {
    const AttentionResult& first = shown_->attention(0);
    QString note = tr("%1 · %2 layers × %3 heads · %4 tokens · each thumbnail: rows are queries, "
                      "columns are keys · click one to enlarge it")
                       .arg(shown_->model->name)
                       .arg(shown_->entries())
                       .arg(first.heads())
                       .arg(first.nQ());
    if (!hidden.isEmpty()) note += QStringLiteral(" · ") + hidden;
    grid_note_->setText(note);
    views::setFontScale(*grid_plot_, modelViewFontScale());
    views::drawModelGrid(*grid_plot_, shown_->layers(), shown_->layerIndices(),
                         shown_->query_tokens, runLabel(-1));
    queueReplot(grid_plot_);
    return;
  }
  const AttentionResult& r = shown_->attention(0);
  const bool overview = std::max(r.nQ(), r.nK()) > kOverviewTokens;
  QString note =
      overview ? tr("Overview: %1 query tokens × %2 key tokens — labels thinned out; hover a cell "
                    "to read its tokens, click a head to enlarge it.")
                     .arg(r.nQ())
                     .arg(r.nK())
               : tr("%1 query tokens × %2 key tokens · rows are queries, columns are keys · hover "
                    "a cell for its weight, click a head to enlarge it")
                     .arg(r.nQ())
                     .arg(r.nK());
  if (!hidden.isEmpty()) note += QStringLiteral(" · ") + hidden;
  grid_note_->setText(note);
  const double scale = presentation_ ? kPresentationFontScale : 1.0;
  if (views::fontScale(*grid_plot_) != scale) {
    views::setFontScale(*grid_plot_, scale);
    force = true;
  }
  // Same layout (only d_k, scaling, temperature or seed changed): refill the cells in place.
  if (force || !views::updateWeights(*grid_plot_, r, -1, shown_->query_tokens,
                                     shown_->key_tokens, runLabel())) {
    views::drawHeadGrid(*grid_plot_, r, shown_->query_tokens, shown_->key_tokens, runLabel());
  }
  queueReplot(grid_plot_);
}

void MainWindow::drawSingleHead(bool force) {
  single_dirty_ = false;
  const int entry = focusEntry();
  const AttentionResult& r = shown_->attention(entry);
  const int head = std::clamp(enlarged_head_, 0, r.heads() - 1);
  QString note =
      shown_->model
          ? tr("Layer %1 · head %2 of %3 · click a row (query) to see its softmax over the keys")
                .arg(focusLayer())
                .arg(head)
                .arg(r.heads())
          : tr("Head %1 of %2 · click a row (query) to see its softmax over the keys")
                .arg(head)
                .arg(r.heads());
  if (const QString hidden = hiddenNote(); !hidden.isEmpty())
    note += QStringLiteral(" · ") + hidden;
  head_note_->setText(note);
  back_button_->setText(modelView() ? tr("← All layers") : tr("← All heads"));
  if (force || !views::updateWeights(*head_plot_, r, head, shown_->query_tokens, shown_->key_tokens,
                                     runLabel(entry))) {
    views::drawHeatmap(*head_plot_, r, head, shown_->query_tokens, shown_->key_tokens,
                       runLabel(entry));
  }
  applyRowHighlight();
  queueReplot(head_plot_);
  drawRow();
}

void MainWindow::fitSplitterToModelView() {
  const QList<int> sizes = main_splitter_->sizes();
  if (sizes.size() != 2) return;
  const int total = sizes[0] + sizes[1];
  if (shown_ && shown_->model) {
    // The model view's h columns with a "head k" header at 0.8 of the export font, plus the layer
    // headers and the colour scale: the grid takes up to that much (one layer's head grid as
    // well, so switching layers keeps the layout), the side panels keep at least 440 px.
    const int h = shown_->attention(0).heads();
    const int wanted = std::min(total - 440, h * 54 + 150);
    if (sizes[0] >= wanted || total <= 0) return;
    if (splitter_before_model_view_.isEmpty()) splitter_before_model_view_ = sizes;
    main_splitter_->setSizes({wanted, total - wanted});
  } else if (!splitter_before_model_view_.isEmpty()) {
    main_splitter_->setSizes(splitter_before_model_view_);
    splitter_before_model_view_.clear();
  }
}

double MainWindow::modelViewFontScale() const {
  // The model view's text (layer and head headers, colour scale, title) is sized for an exported
  // image; on screen its h columns share the page's width, so the text shrinks until a "head 11"
  // header fits its column, but not below 0.65 (about 7 pt).
  const int h = shown_->attention(0).heads();
  QFont header = grid_plot_->font();
  header.setPointSizeF(11);
  header.setBold(true);
  const QFontMetricsF metrics(header);
  const double column = metrics.horizontalAdvance(views::viewText("head %1").arg(h - 1)) + 6;
  const double row_header =
      metrics.horizontalAdvance(views::viewText("layer %1").arg(shown_->layerIndices().back())) +
      12;
  constexpr double kColourScale = 80;  // bar, tick labels and the rotated axis title, at scale 1
  constexpr double kSpacing = 6;       // between thumbnails, not scaled
  const double width = std::max(1, grid_page_->contentsRect().width());
  const double fit = (width - kSpacing * h) / (h * column + row_header + kColourScale);
  return std::clamp(fit, 0.65, 1.0);
}

void MainWindow::fitModelGrid() {
  constexpr int kMax = QWIDGETSIZE_MAX;
  if (!modelView() || grid_plot_->plottableCount() == 0) {
    if (grid_plot_->maximumSize() != QSize(kMax, kMax)) grid_plot_->setMaximumSize(kMax, kMax);
    return;
  }
  // The page's width decides the model view's text size: redraw when it changed since.
  if (std::abs(modelViewFontScale() - views::fontScale(*grid_plot_)) > 0.02) {
    heads_dirty_ = true;
    scheduleRender();
    return;
  }
  const int avail_w = grid_page_->contentsRect().width();
  const int avail_h =
      grid_page_->contentsRect().height() - grid_note_->height() - grid_page_->layout()->spacing();
  if (QSize(avail_w, avail_h) != fit_avail_) {
    fit_avail_ = QSize(avail_w, avail_h);
    fit_passes_ = 0;
  }
  // The title may wrap differently at another width, which changes the fixed parts a little: a
  // few passes at most per draw and page size.
  if (fit_passes_ >= 4) return;
  // Thumbnails in rows (layers) × columns (heads).
  const int columns = shown_->attention(0).heads();
  const int rows = shown_->entries();
  auto* map = qobject_cast<QCPColorMap*>(grid_plot_->plottable(0));
  if (!map || !map->keyAxis()) return;
  const QRect panel = map->keyAxis()->axisRect()->rect();
  if (panel.width() <= 0 || panel.height() <= 0) return;
  // Everything but the thumbnails (headers, colour scale, title, token line) keeps its size when
  // the plot is resized; so the largest square thumbnail that fits the page gives the plot size.
  const QSize now = grid_plot_->size();
  const int fixed_w = now.width() - columns * panel.width();
  const int fixed_h = now.height() - rows * panel.height();
  const int side = std::max(8, std::min((avail_w - fixed_w) / columns, (avail_h - fixed_h) / rows));
  const QSize target(std::min(avail_w, fixed_w + columns * side),
                     std::min(avail_h, fixed_h + rows * side));
  // Within a couple of pixels is square enough (and stops the resize ↔ layout loop).
  if (std::abs(target.width() - now.width()) <= 2 &&
      std::abs(target.height() - now.height()) <= 2) {
    return;
  }
  ++fit_passes_;
  grid_plot_->setMaximumSize(target);
}

void MainWindow::applyRowHighlight() {
  if (row_highlight_) head_plot_->removeItem(row_highlight_.data());
  row_highlight_.clear();
  if (!shown_ || selected_row_ < 0 || !head_plot_->xAxis2 || !head_plot_->yAxis) return;
  const int n_k = focusAttention().nK();
  auto* rect = new QCPItemRect(head_plot_);
  rect->setClipAxisRect(head_plot_->yAxis->axisRect());
  rect->topLeft->setAxes(head_plot_->xAxis2, head_plot_->yAxis);
  rect->bottomRight->setAxes(head_plot_->xAxis2, head_plot_->yAxis);
  rect->topLeft->setCoords(-0.5, selected_row_ - 0.5);
  rect->bottomRight->setCoords(n_k - 0.5, selected_row_ + 0.5);
  rect->setPen(QPen(QColor(0xe6, 0x00, 0x4c), 3.0));
  rect->setBrush(Qt::NoBrush);
  rect->setSelectable(false);
  row_highlight_ = rect;
}

void MainWindow::drawRow() {
  const auto font = [this](double points, bool bold = false) {
    return panelFont(*row_plot_, points, bold);
  };
  const AttentionResult& r = focusAttention();
  const int head = std::clamp(enlarged_head_, 0, r.heads() - 1);
  QCPAxisRect* rect = titledPanel(*row_plot_, QString());
  auto* title = static_cast<QCPTextElement*>(row_plot_->plotLayout()->element(0, 0));
  title->setFont(font(10, true));
  QCPAxis* keys = rect->axis(QCPAxis::atLeft);
  QCPAxis* weights = rect->axis(QCPAxis::atBottom);
  keys->setRangeReversed(true);  // key 0 at the top
  keys->setRange(-0.5, r.nK() - 0.5);
  weights->setRange(0, 1.0);
  // 0, 0.5, 1 only: a narrow panel has no room for more.
  auto weight_ticks = QSharedPointer<QCPAxisTickerText>::create();
  weight_ticks->addTicks({{0.0, QStringLiteral("0")}, {0.5, QStringLiteral("0.5")},
                          {1.0, QStringLiteral("1")}});
  weights->setTicker(weight_ticks);
  weights->setLabel(tr("attention weight"));
  weights->setLabelFont(font(10));
  weights->setTickLabelFont(font(9));
  keys->setTickLabelFont(font(9));
  keys->grid()->setVisible(false);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const int step = std::max(1, static_cast<int>(std::ceil(r.nK() / 30.0)));
  for (int j = 0; j < r.nK(); j += step) {
    QString token = shown_->key_tokens.value(j);
    if (token.size() > 12) token = token.left(11) + QStringLiteral("…");
    ticker->addTick(j, step == 1 ? token : QStringLiteral("#%1 %2").arg(j).arg(token));
  }
  keys->setTicker(ticker);
  keys->setSubTicks(false);
  if (selected_row_ < 0 || selected_row_ >= r.nQ()) {
    title->setText(tr("Click a row\nto see its softmax"));
    queueReplot(row_plot_);
    return;
  }
  title->setText(tr("query %1 %2:\nsoftmax over keys")
                     .arg(selected_row_)
                     .arg(quoted(shown_->query_tokens.value(selected_row_))));
  auto* bars = new QCPBars(keys, weights);
  QVector<double> k, v;
  for (int j = 0; j < r.nK(); ++j) {
    k << j;
    v << r.weights(head, selected_row_, j);
  }
  bars->setData(k, v, true);
  bars->setWidth(0.8);
  bars->setPen(Qt::NoPen);
  bars->setBrush(views::viridis(0.35));
  queueReplot(row_plot_);
}

void MainWindow::drawSaturationPanel() {
  const AttentionResult& r = focusAttention();
  const LabSettings current = settings();
  const std::shared_ptr<const SaturationAnalysis> model =
      saturation_cache_.get(r.nK(), shown_->settings.seed);
  if (model && !model->scaled.empty()) {
    views::drawSaturation(*saturation_plot_, *model, std::nullopt, markerDk(), current.scaled);
    saturation_shown_ = true;
    panel_dirty_ = false;
  } else {
    views::clearPlot(*saturation_plot_);
    auto* note = new QCPTextElement(saturation_plot_,
                                    tr("Computing the saturation curves for %1 keys…").arg(r.nK()));
    saturation_plot_->plotLayout()->addElement(0, 0, note);
    saturation_shown_ = false;
  }
  queueReplot(saturation_plot_);
  drawEntropy();
  drawHistogram();
}

void MainWindow::drawEntropy() {
  QCustomPlot& plot = *entropy_plot_;
  const auto font = [&plot](double points, bool bold = false) {
    return panelFont(plot, points, bold);
  };
  const PanelSummary& summary = shown_->summaries.at(static_cast<std::size_t>(focusEntry()));
  const int n_q = focusAttention().nQ();
  QCPAxisRect* rect = titledPanel(
      plot, shown_->model
                ? tr("Entropy of each query row, layer %1 (mean over heads)").arg(focusLayer())
                : tr("Entropy of each query row (mean over heads)"));
  QCPAxis* x = rect->axis(QCPAxis::atBottom);
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const int step = std::max(1, static_cast<int>(std::ceil(n_q / 14.0)));
  for (int i = 0; i < n_q; i += step) {
    QString token = shown_->query_tokens.value(i);
    if (token.size() > 8) token = token.left(7) + QStringLiteral("…");
    ticker->addTick(i, step == 1 ? token : QString::number(i));
  }
  x->setTicker(ticker);
  x->setSubTicks(false);
  x->setTickLabelRotation(n_q > 8 ? -45 : 0);
  x->setTickLabelFont(font(8.5));
  x->setRange(-0.6, n_q - 0.4);
  x->grid()->setVisible(false);
  y->setLabel(tr("nats"));
  y->setLabelFont(font(9));
  y->setTickLabelFont(font(8.5));
  double top = 0.1;
  for (double e : summary.row_max_entropy) top = std::max(top, e);
  y->setRange(0, top * 1.1);

  auto* bars = new QCPBars(x, y);
  QVector<double> keys, values, uniform;
  for (int i = 0; i < n_q; ++i) {
    keys << i;
    values << summary.row_entropy[i];
    uniform << summary.row_max_entropy[i];
  }
  bars->setData(keys, values, true);
  bars->setWidth(0.75);
  bars->setPen(Qt::NoPen);
  bars->setBrush(QColor(0xd5, 0x5e, 0x00));
  bars->setName(tr("entropy H"));
  QCPGraph* line = plot.addGraph(x, y);
  line->setData(keys, uniform, true);
  line->setPen(QPen(Qt::darkGray, 1.5, Qt::DashLine));
  line->setLineStyle(QCPGraph::lsStepCenter);
  line->setName(tr("uniform row: ln(visible keys)"));
  auto* legend = new QCPLegend;
  plot.plotLayout()->addElement(2, 0, legend);
  plot.plotLayout()->setRowStretchFactor(2, 0.001);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(2);
  legend->setBorderPen(Qt::NoPen);
  legend->setFont(font(8.5));
  legend->addItem(new QCPPlottableLegendItem(legend, bars));
  legend->addItem(new QCPPlottableLegendItem(legend, line));
  legend->setLayer(QStringLiteral("legend"));
  plot.legend = legend;
  queueReplot(&plot);
}

void MainWindow::drawHistogram() {
  QCustomPlot& plot = *histogram_plot_;
  const auto font = [&plot](double points, bool bold = false) {
    return panelFont(plot, points, bold);
  };
  const ScoreHistogram& hist =
      shown_->summaries.at(static_cast<std::size_t>(focusEntry())).histogram;
  QCPAxisRect* rect = titledPanel(
      plot, shown_->model
                ? tr("Histogram of this sentence's scores (layer %1, all heads)").arg(focusLayer())
                : tr("Histogram of this sentence's scores (all heads)"));
  QCPAxis* x = rect->axis(QCPAxis::atBottom);
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  x->setLabel(tr("score (logit after scaling); spread %1 … %2")
                  .arg(hist.lo, 0, 'g', 3)
                  .arg(hist.hi, 0, 'g', 3));
  x->setLabelFont(font(9));
  x->setTickLabelFont(font(8.5));
  y->setLabel(tr("cells"));
  y->setLabelFont(font(9));
  y->setTickLabelFont(font(8.5));
  if (hist.count.empty()) {
    queueReplot(&plot);
    return;
  }
  const double width = (hist.hi - hist.lo) / static_cast<double>(hist.count.size());
  auto* bars = new QCPBars(x, y);
  QVector<double> keys, values;
  double top = 1;
  for (std::size_t b = 0; b < hist.count.size(); ++b) {
    keys << hist.lo + (static_cast<double>(b) + 0.5) * width;
    values << hist.count[b];
    top = std::max(top, hist.count[b]);
  }
  bars->setData(keys, values, true);
  bars->setWidth(width);
  bars->setPen(QPen(Qt::white, 0.5));
  bars->setBrush(QColor(0x00, 0x72, 0xb2));
  x->setRange(hist.lo - width, hist.hi + width);
  y->setRange(0, top * 1.08);
  queueReplot(&plot);
}

void MainWindow::updateStatus() {
  if (!status_time_) return;
  if (!shown_) {
    status_time_->setText(tr("Computing…"));
    return;
  }
  const ComputeResult& r = *shown_;
  const AttentionResult& a = r.attention(0);
  QString time;
  if (r.model) {
    time = tr("computed in %1 ms (forward pass %2 ms)")
               .arg(r.total_ms, 0, 'f', 0)
               .arg(r.run.compute_ms, 0, 'f', 0);
    if (r.model_ms > 0) time += tr(" · model loaded in %1 ms").arg(r.model_ms, 0, 'f', 0);
    time +=
        r.settings.layer < 0
            ? tr(" · %1 tokens · %2 layers × %3 heads").arg(a.nQ()).arg(r.entries()).arg(a.heads())
            : tr(" · %1 tokens · layer %2 of %3 · %4 heads")
                  .arg(a.nQ())
                  .arg(r.settings.layer)
                  .arg(r.model->config.layers)
                  .arg(a.heads());
  } else {
    time = tr("computed in %1 ms (attention run %2 ms)")
               .arg(r.total_ms, 0, 'f', 1)
               .arg(r.run.compute_ms, 0, 'f', 1);
    if (r.model_ms > 0) time += tr(" · new weights drawn in %1 ms").arg(r.model_ms, 0, 'f', 1);
    time += tr(" · %1 × %2 tokens, %3 heads").arg(a.nQ()).arg(a.nK()).arg(a.heads());
  }
  if (!last_error_.isEmpty()) time = tr("Not recomputed: %1").arg(last_error_);
  status_time_->setText(time);
  QString backend = tr("backend: %1 (%2)")
                        .arg(QString::fromStdString(a.backend), QString::fromStdString(a.device));
  const QString fallback = QString::fromStdString(a.fallback_reason);
  if (!fallback.isEmpty() && r.settings.backend != QLatin1String("cpu")) {
    backend += tr(" · %1 requested, fell back: %2").arg(r.settings.backend, fallback);
  }
  status_backend_->setText(backend);
  status_backend_->setToolTip(fallback);
  backend_used_label_->setText(tr("In use: %1").arg(backend));
}

// ---- interaction -------------------------------------------------------------------------------

std::optional<std::tuple<int, int, int, int>> MainWindow::cellAt(QCustomPlot* plot,
                                                                 const QPointF& pos) const {
  if (!shown_) return std::nullopt;
  const AttentionResult& first = shown_->attention(0);
  const Hit hit = hitTest(plot, pos, first.nQ(), first.nK());
  if (hit.map < 0) return std::nullopt;
  if (plot == grid_plot_) {
    // The model view's plottable r·h + k is entry r, head k; a head grid's k is head k.
    const int h = first.heads();
    if (modelView()) return std::make_tuple(hit.map / h, hit.map % h, hit.row, hit.column);
    return std::make_tuple(0, hit.map, hit.row, hit.column);
  }
  const int entry = focusEntry();
  return std::make_tuple(entry, std::clamp(enlarged_head_, 0, first.heads() - 1), hit.row,
                         hit.column);
}

void MainWindow::onPlotClick(QCustomPlot* plot, QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const auto cell = cellAt(plot, event->position());
  if (!cell) return;
  const auto [entry, head, row, column] = *cell;
  (void)column;
  if (plot == grid_plot_) {
    selected_row_ = row;
    if (modelView()) {
      enlargeLayerHead(shown_->layerIndices().at(static_cast<std::size_t>(entry)), head);
    } else {
      enlargeHead(head);
    }
  } else if (row >= 0) {
    selectRow(row);
  }
}

void MainWindow::onPlotHover(QCustomPlot* plot, QMouseEvent* event) {
  const auto cell = cellAt(plot, event->position());
  if (!cell || std::get<2>(*cell) < 0) {
    QToolTip::hideText();
    return;
  }
  const auto [entry, head, row, column] = *cell;
  QToolTip::showText(event->globalPosition().toPoint(), cellTextOf(entry, head, row, column), plot);
}

QString MainWindow::cellText(int head, int query, int key) const {
  return shown_ ? cellTextOf(focusEntry(), head, query, key) : QString();
}

QString MainWindow::cellTextOf(int entry, int head, int query, int key) const {
  if (!shown_ || entry < 0 || entry >= shown_->entries()) return {};
  const AttentionResult& r = shown_->attention(entry);
  if (head < 0 || head >= r.heads() || query < 0 || query >= r.nQ() || key < 0 || key >= r.nK()) {
    return {};
  }
  QString where = tr("head %1 · query %2 %3 → key %4 %5")
                      .arg(head)
                      .arg(query)
                      .arg(quoted(shown_->query_tokens.value(query)))
                      .arg(key)
                      .arg(quoted(shown_->key_tokens.value(key)));
  if (shown_->model) {
    where = tr("layer %1 · %2")
                .arg(shown_->layerIndices().at(static_cast<std::size_t>(entry)))
                .arg(where);
  }
  if (isMasked(r.mask, query, key, r.nK())) return tr("%1: masked").arg(where);
  return tr("%1: weight %2, score %3")
      .arg(where)
      .arg(r.weights(head, query, key), 0, 'f', 4)
      .arg(r.scores(head, query, key), 0, 'g', 4);
}

void MainWindow::enlargeHead(int head) {
  if (!shown_ || head < 0 || head >= shown_->attention(0).heads()) return;
  enlarged_head_ = head;
  selected_head_ = head;
  heads_stack_->setCurrentIndex(1);
  drawSingleHead(true);
  if (modelView()) {
    // The side panels follow the enlarged layer.
    panel_dirty_ = true;
    scheduleRender();
  }
}

void MainWindow::enlargeLayerHead(int layer, int head) {
  if (!shown_ || !shown_->model) return;
  const std::vector<int>& indices = shown_->layerIndices();
  const auto it = std::find(indices.begin(), indices.end(), layer);
  if (it == indices.end()) return;
  enlarged_entry_ = static_cast<int>(it - indices.begin());
  enlargeHead(head);
}

void MainWindow::showGrid() {
  if (presentation_) setPresentationMode(false);
  const bool panel_follows = modelView() && heads_stack_->currentIndex() == 1;
  enlarged_head_ = -1;
  heads_stack_->setCurrentIndex(0);
  // The model view has no cheap refill: redraw it only when a newer result arrived meanwhile.
  if (shown_ && (heads_dirty_ || !modelView())) drawHeads(false);
  if (panel_follows) {
    panel_dirty_ = true;
    scheduleRender();
  }
}

void MainWindow::selectRow(int row) {
  if (!shown_ || row < 0 || row >= shown_->attention(0).nQ()) return;
  selected_row_ = row;
  if (heads_stack_->currentIndex() != 1) {
    enlargeHead(std::max(0, selected_head_));
    return;
  }
  applyRowHighlight();
  queueReplot(head_plot_);
  drawRow();
}

// ---- export ------------------------------------------------------------------------------------

views::ImageSize MainWindow::defaultExportSize(ExportTarget target) const {
  if (target == ExportTarget::kSaturation || !shown_) return {900, 600, 1.0};
  const AttentionResult& r = focusAttention();
  if (target == ExportTarget::kAllHeads && modelView()) {
    return views::defaultModelGridSize(r.nQ(), shown_->entries(), r.heads());
  }
  return views::defaultHeatmapSize(r.nQ(), r.nK(),
                                   target == ExportTarget::kAllHeads ? r.heads() : 1);
}

namespace {

/// Draws the picture of target into plot: what the window shows, at export fonts.
void drawTarget(QCustomPlot& plot, ExportTarget target, const ComputeResult& shown, int entry,
                int head, const views::RunLabel& label, const views::RunLabel& grid_label,
                bool model_view) {
  const AttentionResult& r = shown.attention(entry);
  if (target == ExportTarget::kAllHeads && model_view) {
    views::drawModelGrid(plot, shown.layers(), shown.layerIndices(), shown.query_tokens,
                         grid_label);
  } else if (target == ExportTarget::kAllHeads) {
    views::drawHeadGrid(plot, r, shown.query_tokens, shown.key_tokens, label);
  } else {
    views::drawHeatmap(plot, r, std::clamp(head, 0, r.heads() - 1), shown.query_tokens,
                       shown.key_tokens, label);
  }
}

}  // namespace

void MainWindow::exportImage(ExportTarget target, const QString& path,
                             const views::ImageSize& size) {
  if (!shown_) throw Error(ErrorCode::kInvalidArgument, "nothing to export yet");
  QCustomPlot plot;  // offscreen, default fonts: the same picture the CLI writes
  const int entry = focusEntry();
  const AttentionResult& r = focusAttention();
  if (target == ExportTarget::kSaturation) {
    SaturationConfig config;
    config.n_k = r.nK();
    config.seed = shown_->settings.seed;
    config.samples = SaturationCache::samplesFor(r.nK());
    std::shared_ptr<const SaturationAnalysis> model =
        saturation_cache_.get(r.nK(), shown_->settings.seed);
    const SaturationAnalysis analysis = model ? *model : saturationMonteCarlo(config);
    views::drawSaturation(plot, analysis, std::nullopt, markerDk(), settings().scaled);
  } else {
    drawTarget(plot, target, *shown_, entry, selected_head_, runLabel(entry), runLabel(-1),
               modelView());
  }
  views::exportPlot(plot, path, size);
}

void MainWindow::exportMatrices(const QString& path, int head) {
  if (!shown_) throw Error(ErrorCode::kInvalidArgument, "nothing to export yet");
  const AttentionResult& first = shown_->attention(0);
  if (head >= first.heads()) throw Error(ErrorCode::kInvalidArgument, "no such head");
  const QString suffix = QFileInfo(path).suffix().toLower();
  const std::string file = path.toStdString();
  // The synthetic run, or the model's shown layers (one, or every one in the model view).
  std::vector<const AttentionResult*> results;
  for (int e = 0; e < shown_->entries(); ++e) results.push_back(&shown_->attention(e));
  if (suffix == QLatin1String("csv")) {
    if (shown_->model) {
      writeLayersCsv(file, shown_->layers(), shown_->layerIndices(), shown_->run.query_tokens,
                     head);
    } else {
      writeAttentionCsv(file, first, shown_->run.query_tokens, shown_->run.key_tokens, head);
    }
  } else if (suffix == QLatin1String("npy")) {
    // [h, n_q, n_k] (or [n_q, n_k] for one head); several layers add a leading [L].
    std::vector<float> data;
    const long long per_head = static_cast<long long>(first.nQ()) * first.nK();
    for (const AttentionResult* r : results) {
      const auto begin = r->weights.data.begin() + (head < 0 ? 0 : head * per_head);
      data.insert(data.end(), begin, head < 0 ? r->weights.data.end() : begin + per_head);
    }
    std::vector<long long> shape;
    if (results.size() > 1) shape.push_back(static_cast<long long>(results.size()));
    if (head < 0) shape.push_back(first.heads());
    shape.insert(shape.end(), {first.nQ(), first.nK()});
    writeNpy(file, shape, data);
  } else {
    throw Error(ErrorCode::kInvalidArgument,
                "unknown matrix format for " + file + ": use .csv or .npy");
  }
}

void MainWindow::copyImage(ExportTarget target) {
  if (!shown_) return;
  QCustomPlot plot;
  const int entry = focusEntry();
  drawTarget(plot, target == ExportTarget::kAllHeads ? target : ExportTarget::kCurrentHead, *shown_,
             entry, selected_head_, runLabel(entry), runLabel(-1), modelView());
  const views::ImageSize size = defaultExportSize(target);
  QGuiApplication::clipboard()->setImage(plot.toPixmap(size.width, size.height).toImage());
  statusBar()->showMessage(tr("Image copied to the clipboard"), 4000);
}

void MainWindow::askExportImage(ExportTarget target) {
  if (!shown_) return;
  QSettings store;
  const QString folder = store.value(QStringLiteral("export/folder"), QDir::homePath()).toString();
  QString name = target == ExportTarget::kSaturation ? QStringLiteral("saturation.png")
                 : target == ExportTarget::kAllHeads
                     ? (modelView() ? QStringLiteral("attention-layers.png")
                                    : QStringLiteral("attention-heads.png"))
                     : QStringLiteral("attention-head%1.png").arg(selected_head_);
  if (shown_->model && target != ExportTarget::kSaturation &&
      !(target == ExportTarget::kAllHeads && modelView())) {
    name.replace(QStringLiteral("attention-"),
                 QStringLiteral("attention-layer%1-").arg(focusLayer()));
  }
  ImageExportDialog dialog(this, folder, name, defaultExportSize(target));
  if (dialog.exec() != QDialog::Accepted) return;
  try {
    exportImage(target, dialog.path(), dialog.size());
    store.setValue(QStringLiteral("export/folder"), QFileInfo(dialog.path()).absolutePath());
    statusBar()->showMessage(tr("Wrote %1").arg(dialog.path()), 6000);
  } catch (const std::exception& e) {
    statusBar()->showMessage(tr("Export failed: %1").arg(QString::fromUtf8(e.what())), 10000);
  }
}

void MainWindow::askExportMatrices() {
  if (!shown_) return;
  QSettings store;
  const QString folder = store.value(QStringLiteral("export/folder"), QDir::homePath()).toString();
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export matrices"), QDir(folder).filePath(QStringLiteral("attention.csv")),
      modelView() ? tr("CSV, every layer and head (*.csv);;NumPy weights [L, h, n, n] (*.npy)")
                  : tr("CSV, every head (*.csv);;NumPy weights [h, n_q, n_k] (*.npy)"));
  if (path.isEmpty()) return;
  try {
    exportMatrices(path, -1);
    store.setValue(QStringLiteral("export/folder"), QFileInfo(path).absolutePath());
    statusBar()->showMessage(tr("Wrote %1").arg(path), 6000);
  } catch (const std::exception& e) {
    statusBar()->showMessage(tr("Export failed: %1").arg(QString::fromUtf8(e.what())), 10000);
  }
}

// ---- language, presentation, events ------------------------------------------------------------

void MainWindow::setLanguage(const QString& code) {
  QString wanted = code;
  if (wanted.isEmpty()) {
    wanted = QLocale::system().name().startsWith(QLatin1String("zh")) ? QStringLiteral("zh_CN")
                                                                      : QStringLiteral("en");
  }
  QCoreApplication::removeTranslator(&translator());
  if (wanted == QLatin1String("zh_CN") &&
      translator().load(QStringLiteral(":/i18n/attention_lab_zh_CN.qm"))) {
    QCoreApplication::installTranslator(&translator());
  } else {
    wanted = QStringLiteral("en");
  }
  language_ = wanted;
  if (language_system_action_) {
    (code.isEmpty() ? language_system_action_
     : wanted == QLatin1String("zh_CN") ? language_zh_action_
                                        : language_en_action_)
        ->setChecked(true);
  }
  if (options_.persist) QSettings().setValue(QStringLiteral("ui/language"), code);
  retranslateUi();
}

void MainWindow::setPresentationMode(bool on) {
  if (on == presentation_) return;
  presentation_ = on;
  presentation_action_->setChecked(on);
  const double scale = on ? kPresentationFontScale : 1.0;
  for (QCustomPlot* plot : {grid_plot_, head_plot_, row_plot_}) views::setFontScale(*plot, scale);
  QFont font = QApplication::font();
  if (on) font.setPointSizeF(font.pointSizeF() * 1.5);
  setFont(font);
  controls_dock_->setVisible(!on);
  saturation_panel_->setVisible(!on);
  menuBar()->setVisible(!on);
  if (on) {
    showFullScreen();
    enlargeHead(std::max(0, selected_head_));
  } else {
    showNormal();
    heads_dirty_ = single_dirty_ = panel_dirty_ = true;
    scheduleRender();
  }
  if (shown_ && heads_stack_->currentIndex() == 1) drawSingleHead(true);
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange && language_system_action_) retranslateUi();
  QMainWindow::changeEvent(event);
}

void MainWindow::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape) {
    if (presentation_) {
      setPresentationMode(false);
    } else {
      showGrid();
    }
    return;
  }
  QMainWindow::keyPressEvent(event);
}

void MainWindow::persistState() {
  if (!options_.persist) return;
  QSettings store;
  saveSettings(store, settings());
  store.setValue(QStringLiteral("window/geometry"), saveGeometry());
  store.setValue(QStringLiteral("window/state"), QMainWindow::saveState());
  store.setValue(QStringLiteral("window/splitter"), main_splitter_->saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (presentation_) setPresentationMode(false);
  persistState();
  QMainWindow::closeEvent(event);
}

QString MainWindow::inputMessage() const {
  return message_label_->isVisible() || !last_error_.isEmpty() ? message_label_->text() : QString();
}

QString MainWindow::gridNote() const { return grid_note_->text(); }

}  // namespace attnlab::gui
