#pragma once
/// \file main_window.hpp
/// The Attention Lab window: inputs on the left, one heatmap per head in the middle (click one to
/// enlarge it, click a row for its softmax as a bar chart), the saturation panel on the right.
/// The attention comes from the synthetic lab or from a pretrained model folder (File → Open
/// model folder…): then a layer selector shows one layer's heads, or every layer × head as
/// thumbnails (the model view; click one to enlarge it).
/// Computation runs on ComputeController's worker thread; this class only touches widgets, on the
/// GUI thread, and redraws at most once per event-loop pass however many results arrive.

#include <QMainWindow>
#include <QPointer>
#include <QString>
#include <QTimer>
#include <memory>
#include <optional>

#include "compute_worker.hpp"
#include "lab_settings.hpp"
#include "views/views.hpp"

class QAction;
class QActionGroup;
class QCheckBox;
class QComboBox;
class QCPItemRect;
class QCustomPlot;
class QDoubleSpinBox;
class QDockWidget;
class QFormLayout;
class QLabel;
class QMenu;
class QMouseEvent;
class QPlainTextEdit;
class QPushButton;
class QSlider;
class QSpinBox;
class QSplitter;
class QStackedWidget;

namespace attnlab::gui {

/// Which picture an export or the clipboard gets.
enum class ExportTarget {
  kCurrentHead,  ///< The enlarged (or last selected) head.
  kAllHeads,     ///< Every head in one grid (a model's every layer × head when all are shown).
  kSaturation,   ///< The saturation curves with the current d_k marked.
};

/// How the window starts.
struct WindowOptions {
  LabSettings settings;            ///< Initial inputs (after the command line).
  bool restore_settings = true;    ///< Load the inputs and geometry from QSettings first.
  bool persist = true;             ///< Save inputs, geometry and language to QSettings.
  QString language;                ///< "", "en" or "zh_CN"; "" follows the stored choice/system.
  bool presentation = false;       ///< Start in presentation mode.
  int head = -1;                   ///< ≥ 0: start with this head enlarged.
};

/// The main window. Public accessors exist for the tests and for --screenshot.
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(const WindowOptions& options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  /// The inputs as the widgets show them.
  LabSettings settings() const;
  /// Shows settings in the widgets and recomputes.
  void setSettings(const LabSettings& settings);

  /// The result on screen (null before the first one).
  ResultPtr currentResult() const { return shown_; }
  /// How many results were drawn so far.
  int resultsShown() const { return results_shown_; }
  /// The request/worker side.
  ComputeController& controller() { return *controller_; }
  /// The inline message beside the input (empty when the input is fine).
  QString inputMessage() const;
  /// The line above the grid ("11 tokens", or the overview note for long input).
  QString gridNote() const;
  /// "query i 'token' → key j 'token': weight w, score s" for the current result (a model: the
  /// layer in focus, see focusLayer()).
  QString cellText(int head, int query, int key) const;

  /// Opens a pretrained model folder (what File → Open model folder… does after its dialog): the
  /// model loads on the worker thread, every layer is shown, the folder is remembered. A folder
  /// that does not load is reported by modelMessage() and the previous source stays.
  void openModelFolder(const QString& dir);
  /// Back to the synthetic lab (File → Synthetic lab), with its own d_k, heads, … as they were.
  void showSyntheticLab();
  /// The model folder in use, or empty for the synthetic lab.
  QString modelDir() const { return model_dir_; }
  /// The model layer to show, 0-based, or −1 for every layer (the model view). Recomputes.
  void setLayer(int layer);
  /// The layer setting (−1 = every layer).
  int layer() const { return layer_; }
  /// True when the grid page shows a model's layers × heads thumbnails.
  bool modelView() const;
  /// The inline message about the model folder (load errors), or empty.
  QString modelMessage() const;

  /// Enlarges head (shows it alone with the row bar chart). Ignored when out of range. In the
  /// model view: that head of the layer in focus.
  void enlargeHead(int head);
  /// Model: enlarges head `head` of model layer `layer` (a thumbnail's click). Ignored when that
  /// layer is not shown or the head is out of range.
  void enlargeLayerHead(int layer, int head);
  /// The model layer of the enlarged head, or −1 (grid shown, or the synthetic lab).
  int enlargedLayer() const;
  /// The model layer whose attention the enlarged head, the row chart and the side panels show:
  /// the enlarged one in the model view, else the shown one (first captured); −1 when synthetic.
  int focusLayer() const;
  /// Back to the grid of every head.
  void showGrid();
  /// Highlights query row `row` of the enlarged head and shows its softmax as bars.
  void selectRow(int row);
  /// The enlarged head, or −1 when the grid is shown.
  int enlargedHead() const { return enlarged_head_; }
  /// The selected query row, or −1.
  int selectedRow() const { return selected_row_; }

  /// Writes a picture to path (.png, .svg or .pdf by suffix) at size; draws it offscreen with the
  /// same views code as the CLI. Throws attnlab::Error (kIo, kInvalidArgument) on failure.
  void exportImage(ExportTarget target, const QString& path, const views::ImageSize& size);
  /// The default export size of a picture (fits the tokens, like the CLI).
  views::ImageSize defaultExportSize(ExportTarget target) const;
  /// Writes the weights and scores as CSV (long form) or the weights as NPY ([h, n_q, n_k], or
  /// [n_q, n_k] for one head), by suffix; head < 0 = every head. A model's shown layers: CSV with
  /// a layer column, NPY [L, h, n, n] when every layer is shown ([L, n, n] for one head), the
  /// shown tokens only. Throws attnlab::Error.
  void exportMatrices(const QString& path, int head);
  /// Renders a picture at its default size and puts it on the clipboard.
  void copyImage(ExportTarget target);

  /// Switches the interface language: "en", "zh_CN", or "" for the system's.
  void setLanguage(const QString& code);
  /// The language in use ("en" or "zh_CN").
  QString language() const { return language_; }
  /// Large fonts, the enlarged head full screen, inputs hidden (shortcuts still work).
  void setPresentationMode(bool on);
  bool presentationMode() const { return presentation_; }

  /// The widgets, for tests.
  QPlainTextEdit* textEdit() const { return text_edit_; }
  QPlainTextEdit* sourceEdit() const { return source_edit_; }
  QSlider* dkSlider() const { return dk_slider_; }
  QSpinBox* dkSpin() const { return dk_spin_; }
  QCheckBox* scalingCheck() const { return scaling_check_; }
  QCustomPlot* gridPlot() const { return grid_plot_; }
  QCustomPlot* headPlot() const { return head_plot_; }
  QCustomPlot* rowPlot() const { return row_plot_; }
  QCustomPlot* saturationPlot() const { return saturation_plot_; }
  QCustomPlot* entropyPlot() const { return entropy_plot_; }
  QCustomPlot* histogramPlot() const { return histogram_plot_; }
  QPlainTextEdit* pairEdit() const { return pair_edit_; }
  QComboBox* layerCombo() const { return layer_combo_; }
  QComboBox* modelCombo() const { return model_combo_; }
  QCheckBox* hideSpecialCheck() const { return hide_special_check_; }
  QAction* openModelAction() const { return open_model_action_; }
  QAction* syntheticAction() const { return synthetic_action_; }
  QMenu* fileMenu() const { return file_menu_; }
  QAction* scalingAction() const { return scaling_action_; }
  QAction* dkUpAction() const { return dk_up_action_; }
  QAction* dkDownAction() const { return dk_down_action_; }

 signals:
  /// A result and the saturation curves are on screen (first time and after every change).
  void pictureReady();
  /// The settings were rejected (empty text, invalid settings); `message` is the inline text.
  void inputRejected(const QString& message);

 protected:
  void changeEvent(QEvent* event) override;
  void closeEvent(QCloseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void buildUi();
  void buildMenus();
  void retranslateUi();
  void loadExamples();
  void fillBackends();
  /// Selects wanted_backend_ in the backend box (see the definition). True when that changed it.
  bool selectWantedBackend();
  void askOpenModelFolder();
  /// Switches the source of attention to dir ("" = synthetic) without recomputing: stashes or
  /// restores the synthetic-only inputs and updates which widgets apply.
  void switchSource(const QString& dir);
  /// Enables, hides and fills the inputs for the current source (model values when known).
  void updateModeWidgets();
  void refillLayerCombo();
  void refillModelCombo();
  void rememberModel(const QString& dir);
  void setDk(int d_k);
  void inputsChanged();
  void requestNow();
  void onResult(const ResultPtr& result);
  void scheduleRender();
  /// Replots `plot` in a later event-loop pass, one plot per pass, so no single pass of the event
  /// loop pays for every plot at once (QCustomPlot's queued replots all run in one pass).
  void queueReplot(QCustomPlot* plot);
  void replotNext();
  void render();
  void drawHeads(bool force);
  void drawSingleHead(bool force);
  void drawRow();
  /// Model view: caps the grid plot's size so its thumbnails are square (after each layout of the
  /// plot). Head grids (synthetic, one model layer) fill the page as before.
  void fitModelGrid();
  /// Font factor of the model view on screen: as large as lets every head header fit.
  double modelViewFontScale() const;
  /// A model: widens the grid's side of the splitter so the model view's h thumbnails fit (the
  /// sizes before are restored back in the synthetic lab).
  void fitSplitterToModelView();
  void drawSaturationPanel();
  void drawEntropy();
  void drawHistogram();
  void updateStatus();
  void applyRowHighlight();
  void onPlotClick(QCustomPlot* plot, QMouseEvent* event);
  void onPlotHover(QCustomPlot* plot, QMouseEvent* event);
  /// (entry, head, query, key) under pos; query and key −1 outside the cells.
  std::optional<std::tuple<int, int, int, int>> cellAt(QCustomPlot* plot, const QPointF& pos) const;
  QString cellTextOf(int entry, int head, int query, int key) const;
  /// Index into shown_'s entries of the layer in focus (0 in the synthetic lab).
  int focusEntry() const;
  const AttentionResult& focusAttention() const { return shown_->attention(focusEntry()); }
  /// d_k the saturation marker shows: the model's in model mode, else the input's.
  int markerDk() const;
  /// The note under the pictures about hidden special tokens, or empty.
  QString hiddenNote() const;
  void askExportImage(ExportTarget target);
  void askExportMatrices();
  void persistState();
  /// The title words of a picture of entry (a model layer: "layer l · name"); entry < 0: the
  /// model view's (no layer).
  views::RunLabel runLabel(int entry = 0) const;

  WindowOptions options_;
  std::unique_ptr<ComputeController> controller_;
  SaturationCache saturation_cache_;
  ResultPtr shown_;    // on screen
  ResultPtr pending_;  // arrived, not yet drawn
  bool render_scheduled_ = false;
  QList<QPointer<QCustomPlot>> replot_queue_;
  bool replot_scheduled_ = false;
  bool heads_dirty_ = true, single_dirty_ = true, panel_dirty_ = true;
  int results_shown_ = 0;
  int enlarged_head_ = -1;
  int enlarged_entry_ = 0;  // model view: the entry (layer) of the enlarged thumbnail
  int selected_head_ = 0;
  int selected_row_ = -1;
  bool presentation_ = false;
  bool updating_widgets_ = false;
  bool saturation_shown_ = false;
  QString language_ = QStringLiteral("en");
  QString last_error_;
  QString wanted_backend_ = QStringLiteral("auto:0");  // "name:device", kept until listed
  bool devices_listed_ = false;
  QTimer debounce_;
  QString model_dir_;  // "" = the synthetic lab
  int layer_ = -1;     // model: layer shown, −1 = every layer
  QStringList recent_models_;
  QList<int> splitter_before_model_view_;
  int fit_passes_ = 0;
  QSize fit_avail_;
  /// The synthetic lab's own inputs while a model is shown (the widgets show the model's).
  struct SyntheticInputs {
    bool additive = false;
    int d_k = 8, heads = 8, d_model = 64;
    bool causal = false;
    int seed = 0;
  } synthetic_;

  // inputs
  QDockWidget* controls_dock_ = nullptr;
  QFormLayout* form_ = nullptr;
  QLabel* model_label_ = nullptr;
  QComboBox* model_combo_ = nullptr;
  QPushButton* open_model_button_ = nullptr;
  QLabel* model_info_label_ = nullptr;
  QLabel* model_message_ = nullptr;
  QLabel* layer_label_ = nullptr;
  QComboBox* layer_combo_ = nullptr;
  QCheckBox* hide_special_check_ = nullptr;
  QLabel* pair_label_ = nullptr;
  QPlainTextEdit* pair_edit_ = nullptr;
  QLabel* text_label_ = nullptr;
  QPlainTextEdit* text_edit_ = nullptr;
  QLabel* source_label_ = nullptr;
  QPlainTextEdit* source_edit_ = nullptr;
  QLabel* message_label_ = nullptr;
  QLabel* mechanism_label_ = nullptr;
  QComboBox* mechanism_combo_ = nullptr;
  QCheckBox* scaling_check_ = nullptr;
  QCheckBox* temperature_check_ = nullptr;
  QDoubleSpinBox* temperature_spin_ = nullptr;
  QLabel* dk_label_ = nullptr;
  QSlider* dk_slider_ = nullptr;
  QSpinBox* dk_spin_ = nullptr;
  QLabel* heads_label_ = nullptr;
  QSpinBox* heads_spin_ = nullptr;
  QLabel* d_model_label_ = nullptr;
  QSpinBox* d_model_spin_ = nullptr;
  QCheckBox* causal_check_ = nullptr;
  QLabel* seed_label_ = nullptr;
  QSpinBox* seed_spin_ = nullptr;
  QLabel* backend_label_ = nullptr;
  QComboBox* backend_combo_ = nullptr;
  QLabel* backend_used_label_ = nullptr;
  QLabel* shortcuts_label_ = nullptr;

  // pictures
  QSplitter* main_splitter_ = nullptr;
  QStackedWidget* heads_stack_ = nullptr;
  QWidget* grid_page_ = nullptr;
  QLabel* grid_note_ = nullptr;
  QCustomPlot* grid_plot_ = nullptr;
  QPushButton* back_button_ = nullptr;
  QLabel* head_note_ = nullptr;
  QSplitter* head_splitter_ = nullptr;
  QCustomPlot* head_plot_ = nullptr;
  QCustomPlot* row_plot_ = nullptr;
  QWidget* saturation_panel_ = nullptr;
  QCustomPlot* saturation_plot_ = nullptr;
  QCustomPlot* entropy_plot_ = nullptr;
  QCustomPlot* histogram_plot_ = nullptr;
  QPointer<QCPItemRect> row_highlight_;

  // status bar
  QLabel* status_time_ = nullptr;
  QLabel* status_backend_ = nullptr;

  // menus and actions
  QMenu* file_menu_ = nullptr;
  QMenu* export_menu_ = nullptr;
  QMenu* examples_menu_ = nullptr;
  QMenu* view_menu_ = nullptr;
  QMenu* language_menu_ = nullptr;
  QMenu* help_menu_ = nullptr;
  QAction* open_model_action_ = nullptr;
  QAction* synthetic_action_ = nullptr;
  QAction* export_head_action_ = nullptr;
  QAction* export_grid_action_ = nullptr;
  QAction* export_saturation_action_ = nullptr;
  QAction* export_matrices_action_ = nullptr;
  QAction* copy_head_action_ = nullptr;
  QAction* copy_grid_action_ = nullptr;
  QAction* quit_action_ = nullptr;
  QAction* scaling_action_ = nullptr;
  QAction* dk_up_action_ = nullptr;
  QAction* dk_down_action_ = nullptr;
  QAction* presentation_action_ = nullptr;
  QAction* grid_action_ = nullptr;
  QAction* language_system_action_ = nullptr;
  QAction* language_en_action_ = nullptr;
  QAction* language_zh_action_ = nullptr;
  QAction* about_action_ = nullptr;
  QActionGroup* language_group_ = nullptr;
};

/// Registers the embedded resources (examples, icon, translations) of the static library; call
/// once after creating the QApplication.
void initResources();

}  // namespace attnlab::gui
