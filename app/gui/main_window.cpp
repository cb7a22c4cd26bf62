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
  }
  setLanguage(language);

  debounce_.setSingleShot(true);
  debounce_.setInterval(kTypingDebounceMs);
  connect(&debounce_, &QTimer::timeout, this, &MainWindow::requestNow);
  connect(controller_.get(), &ComputeController::resultReady, this, &MainWindow::onResult);
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
  inputs_layout->addLayout(form);
  inputs_layout->addStretch(1);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
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
  message_label_ = new QLabel;
  message_label_->setObjectName(QStringLiteral("inputMessage"));
  message_label_->setWordWrap(true);
  message_label_->setStyleSheet(QStringLiteral(
      "QLabel { color: #a40000; background: #fdecea; border: 1px solid #e0a0a0; "
      "border-radius: 3px; padding: 4px; }"));
  message_label_->hide();
  form->addRow(text_label_);
  form->addRow(text_edit_);
  form->addRow(source_label_);
  form->addRow(source_edit_);
  form->addRow(message_label_);

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
  auto* grid_layout = new QVBoxLayout(grid_page);
  grid_layout->setContentsMargins(0, 0, 0, 0);
  grid_note_ = new QLabel;
  grid_note_->setObjectName(QStringLiteral("gridNote"));
  grid_note_->setWordWrap(true);
  grid_plot_ = newPlot(grid_page);
  grid_plot_->setObjectName(QStringLiteral("gridPlot"));
  grid_layout->addWidget(grid_note_);
  grid_layout->addWidget(grid_plot_, 1);
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
    QMessageBox::about(this, tr("About Attention Lab"),
                       tr("Attention Lab: attention heatmaps per head and softmax saturation, "
                          "computed by a synthetic transformer layer on this computer."));
  });
}

void MainWindow::retranslateUi() {
  setWindowTitle(tr("Attention Lab"));
  controls_dock_->setWindowTitle(tr("Inputs"));
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
            const int index = backend_combo_->findData(wanted_backend_);
            const bool changed = index >= 0 && index != backend_combo_->currentIndex();
            if (changed) backend_combo_->setCurrentIndex(index);
            updating_widgets_ = false;
            if (changed) inputsChanged();
          });
  controller_->listDevices();
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
  return s;
}

void MainWindow::setSettings(const LabSettings& s) {
  updating_widgets_ = true;
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
  const int index = backend_combo_->findData(wanted_backend_);
  backend_combo_->setCurrentIndex(index >= 0 ? index : 0);
  updating_widgets_ = false;
  requestNow();
}

void MainWindow::setDk(int d_k) {
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
    const bool shape_changed = !shown_ || shown_->run.attention.heads() !=
                                              pending_->run.attention.heads();
    shown_ = std::move(pending_);
    pending_.reset();
    ++results_shown_;
    new_result = true;
    heads_dirty_ = single_dirty_ = panel_dirty_ = true;
    const int h = shown_->run.attention.heads();
    if (selected_head_ >= h) selected_head_ = 0;
    if (enlarged_head_ >= h) enlarged_head_ = 0;
    if (selected_row_ >= shown_->run.attention.nQ()) selected_row_ = -1;
    (void)shape_changed;
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
    saturation_shown_ = saturation_cache_.get(shown_->run.attention.nK(), shown_->settings.seed) !=
                        nullptr;
  }
  if (new_result) updateStatus();
  if (saturation_shown_) emit pictureReady();
}

views::RunLabel MainWindow::runLabel() const {
  return {shown_->spec, shown_->run.cross, {}};
}

void MainWindow::drawHeads(bool force) {
  heads_dirty_ = false;
  const AttentionResult& r = shown_->run.attention;
  const bool overview = std::max(r.nQ(), r.nK()) > kOverviewTokens;
  grid_note_->setText(
      overview ? tr("Overview: %1 query tokens × %2 key tokens — labels thinned out; hover a cell "
                    "to read its tokens, click a head to enlarge it.")
                     .arg(r.nQ())
                     .arg(r.nK())
               : tr("%1 query tokens × %2 key tokens · rows are queries, columns are keys · hover "
                    "a cell for its weight, click a head to enlarge it")
                     .arg(r.nQ())
                     .arg(r.nK()));
  // Same layout (only d_k, scaling, temperature or seed changed): refill the cells in place.
  if (force || !views::updateWeights(*grid_plot_, r, -1, shown_->query_tokens,
                                     shown_->key_tokens, runLabel())) {
    views::drawHeadGrid(*grid_plot_, r, shown_->query_tokens, shown_->key_tokens, runLabel());
  }
  queueReplot(grid_plot_);
}

void MainWindow::drawSingleHead(bool force) {
  single_dirty_ = false;
  const AttentionResult& r = shown_->run.attention;
  const int head = std::clamp(enlarged_head_, 0, r.heads() - 1);
  head_note_->setText(tr("Head %1 of %2 · click a row (query) to see its softmax over the keys")
                          .arg(head)
                          .arg(r.heads()));
  if (force || !views::updateWeights(*head_plot_, r, head, shown_->query_tokens,
                                     shown_->key_tokens, runLabel())) {
    views::drawHeatmap(*head_plot_, r, head, shown_->query_tokens, shown_->key_tokens,
                       runLabel());
  }
  applyRowHighlight();
  queueReplot(head_plot_);
  drawRow();
}

void MainWindow::applyRowHighlight() {
  if (row_highlight_) head_plot_->removeItem(row_highlight_.data());
  row_highlight_.clear();
  if (!shown_ || selected_row_ < 0 || !head_plot_->xAxis2 || !head_plot_->yAxis) return;
  const int n_k = shown_->run.attention.nK();
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
  const AttentionResult& r = shown_->run.attention;
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
  const AttentionResult& r = shown_->run.attention;
  const LabSettings current = settings();
  const std::shared_ptr<const SaturationAnalysis> model =
      saturation_cache_.get(r.nK(), shown_->settings.seed);
  if (model && !model->scaled.empty()) {
    views::drawSaturation(*saturation_plot_, *model, std::nullopt, current.d_k,
                          current.scaled);
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
  const int n_q = shown_->run.attention.nQ();
  QCPAxisRect* rect = titledPanel(plot, tr("Entropy of each query row (mean over heads)"));
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
  for (double e : shown_->row_max_entropy) top = std::max(top, e);
  y->setRange(0, top * 1.1);

  auto* bars = new QCPBars(x, y);
  QVector<double> keys, values, uniform;
  for (int i = 0; i < n_q; ++i) {
    keys << i;
    values << shown_->row_entropy[i];
    uniform << shown_->row_max_entropy[i];
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
  const ScoreHistogram& hist = shown_->histogram;
  QCPAxisRect* rect = titledPanel(plot, tr("Histogram of this sentence's scores (all heads)"));
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
  QString time = tr("computed in %1 ms (attention run %2 ms)")
                     .arg(r.total_ms, 0, 'f', 1)
                     .arg(r.run.compute_ms, 0, 'f', 1);
  if (r.model_ms > 0) time += tr(" · new weights drawn in %1 ms").arg(r.model_ms, 0, 'f', 1);
  time += tr(" · %1 × %2 tokens, %3 heads")
              .arg(r.run.attention.nQ())
              .arg(r.run.attention.nK())
              .arg(r.run.attention.heads());
  if (!last_error_.isEmpty()) time = tr("Not recomputed: %1").arg(last_error_);
  status_time_->setText(time);
  QString backend = tr("backend: %1 (%2)")
                        .arg(QString::fromStdString(r.run.attention.backend),
                             QString::fromStdString(r.run.attention.device));
  const QString fallback = QString::fromStdString(r.run.attention.fallback_reason);
  if (!fallback.isEmpty() && r.settings.backend != QLatin1String("cpu")) {
    backend += tr(" · %1 requested, fell back: %2").arg(r.settings.backend, fallback);
  }
  status_backend_->setText(backend);
  status_backend_->setToolTip(fallback);
  backend_used_label_->setText(tr("In use: %1").arg(backend));
}

// ---- interaction -------------------------------------------------------------------------------

std::optional<std::tuple<int, int, int>> MainWindow::cellAt(QCustomPlot* plot,
                                                            const QPointF& pos) const {
  if (!shown_) return std::nullopt;
  const AttentionResult& r = shown_->run.attention;
  const Hit hit = hitTest(plot, pos, r.nQ(), r.nK());
  if (hit.map < 0) return std::nullopt;
  const int head = plot == grid_plot_ ? hit.map : std::clamp(enlarged_head_, 0, r.heads() - 1);
  return std::make_tuple(head, hit.row, hit.column);
}

void MainWindow::onPlotClick(QCustomPlot* plot, QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const auto cell = cellAt(plot, event->position());
  if (!cell) return;
  const auto [head, row, column] = *cell;
  (void)column;
  if (plot == grid_plot_) {
    selected_row_ = row;
    enlargeHead(head);
  } else if (row >= 0) {
    selectRow(row);
  }
}

void MainWindow::onPlotHover(QCustomPlot* plot, QMouseEvent* event) {
  const auto cell = cellAt(plot, event->position());
  if (!cell || std::get<1>(*cell) < 0) {
    QToolTip::hideText();
    return;
  }
  const auto [head, row, column] = *cell;
  QToolTip::showText(event->globalPosition().toPoint(), cellText(head, row, column), plot);
}

QString MainWindow::cellText(int head, int query, int key) const {
  if (!shown_) return {};
  const AttentionResult& r = shown_->run.attention;
  if (head < 0 || head >= r.heads() || query < 0 || query >= r.nQ() || key < 0 || key >= r.nK()) {
    return {};
  }
  const QString where = tr("head %1 · query %2 %3 → key %4 %5")
                            .arg(head)
                            .arg(query)
                            .arg(quoted(shown_->query_tokens.value(query)))
                            .arg(key)
                            .arg(quoted(shown_->key_tokens.value(key)));
  if (isMasked(r.mask, query, key, r.nK())) return tr("%1: masked").arg(where);
  return tr("%1: weight %2, score %3")
      .arg(where)
      .arg(r.weights(head, query, key), 0, 'f', 4)
      .arg(r.scores(head, query, key), 0, 'g', 4);
}

void MainWindow::enlargeHead(int head) {
  if (!shown_ || head < 0 || head >= shown_->run.attention.heads()) return;
  enlarged_head_ = head;
  selected_head_ = head;
  heads_stack_->setCurrentIndex(1);
  drawSingleHead(true);
}

void MainWindow::showGrid() {
  if (presentation_) setPresentationMode(false);
  enlarged_head_ = -1;
  heads_stack_->setCurrentIndex(0);
  if (shown_) drawHeads(false);
}

void MainWindow::selectRow(int row) {
  if (!shown_ || row < 0 || row >= shown_->run.attention.nQ()) return;
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
  const AttentionResult& r = shown_->run.attention;
  return views::defaultHeatmapSize(r.nQ(), r.nK(),
                                   target == ExportTarget::kAllHeads ? r.heads() : 1);
}

void MainWindow::exportImage(ExportTarget target, const QString& path,
                             const views::ImageSize& size) {
  if (!shown_) throw Error(ErrorCode::kInvalidArgument, "nothing to export yet");
  QCustomPlot plot;  // offscreen, default fonts: the same picture the CLI writes
  const AttentionResult& r = shown_->run.attention;
  switch (target) {
    case ExportTarget::kCurrentHead:
      views::drawHeatmap(plot, r, std::clamp(selected_head_, 0, r.heads() - 1),
                         shown_->query_tokens, shown_->key_tokens, runLabel());
      break;
    case ExportTarget::kAllHeads:
      views::drawHeadGrid(plot, r, shown_->query_tokens, shown_->key_tokens, runLabel());
      break;
    case ExportTarget::kSaturation: {
      SaturationConfig config;
      config.n_k = r.nK();
      config.seed = shown_->settings.seed;
      config.samples = SaturationCache::samplesFor(r.nK());
      std::shared_ptr<const SaturationAnalysis> model =
          saturation_cache_.get(r.nK(), shown_->settings.seed);
      const SaturationAnalysis analysis = model ? *model : saturationMonteCarlo(config);
      const LabSettings current = settings();
      views::drawSaturation(plot, analysis, std::nullopt, current.d_k, current.scaled);
      break;
    }
  }
  views::exportPlot(plot, path, size);
}

void MainWindow::exportMatrices(const QString& path, int head) {
  if (!shown_) throw Error(ErrorCode::kInvalidArgument, "nothing to export yet");
  const AttentionResult& r = shown_->run.attention;
  if (head >= r.heads()) throw Error(ErrorCode::kInvalidArgument, "no such head");
  const QString suffix = QFileInfo(path).suffix().toLower();
  const std::string file = path.toStdString();
  if (suffix == QLatin1String("csv")) {
    writeAttentionCsv(file, r, shown_->run.query_tokens, shown_->run.key_tokens, head);
  } else if (suffix == QLatin1String("npy")) {
    const Tensor3& t = r.weights;
    if (head < 0) {
      writeNpy(file, {t.h, t.rows, t.cols}, t.data);
    } else {
      const auto begin = t.data.begin() + static_cast<std::ptrdiff_t>(head) * t.rows * t.cols;
      writeNpy(file, {t.rows, t.cols},
               std::vector<float>(begin, begin + static_cast<std::ptrdiff_t>(t.rows) * t.cols));
    }
  } else {
    throw Error(ErrorCode::kInvalidArgument,
                "unknown matrix format for " + file + ": use .csv or .npy");
  }
}

void MainWindow::copyImage(ExportTarget target) {
  if (!shown_) return;
  QCustomPlot plot;
  const AttentionResult& r = shown_->run.attention;
  if (target == ExportTarget::kAllHeads) {
    views::drawHeadGrid(plot, r, shown_->query_tokens, shown_->key_tokens, runLabel());
  } else {
    views::drawHeatmap(plot, r, std::clamp(selected_head_, 0, r.heads() - 1),
                       shown_->query_tokens, shown_->key_tokens, runLabel());
  }
  const views::ImageSize size = defaultExportSize(target);
  QGuiApplication::clipboard()->setImage(plot.toPixmap(size.width, size.height).toImage());
  statusBar()->showMessage(tr("Image copied to the clipboard"), 4000);
}

void MainWindow::askExportImage(ExportTarget target) {
  if (!shown_) return;
  QSettings store;
  const QString folder = store.value(QStringLiteral("export/folder"), QDir::homePath()).toString();
  const QString name = target == ExportTarget::kSaturation ? QStringLiteral("saturation.png")
                       : target == ExportTarget::kAllHeads
                           ? QStringLiteral("attention-heads.png")
                           : QStringLiteral("attention-head%1.png").arg(selected_head_);
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
      tr("CSV, every head (*.csv);;NumPy weights [h, n_q, n_k] (*.npy)"));
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
