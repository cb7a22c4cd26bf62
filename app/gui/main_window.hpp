#pragma once
/// \file main_window.hpp
/// The Attention Lab window: inputs on the left, one heatmap per head in the middle (click one to
/// enlarge it, click a row for its softmax as a bar chart), the saturation panel on the right.
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
  kAllHeads,     ///< Every head in one grid.
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
  /// "query i 'token' → key j 'token': weight w, score s" for the current result.
  QString cellText(int head, int query, int key) const;

  /// Enlarges head (shows it alone with the row bar chart). Ignored when out of range.
  void enlargeHead(int head);
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
  /// [n_q, n_k] for one head), by suffix; head < 0 = every head. Throws attnlab::Error.
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
  void drawSaturationPanel();
  void drawEntropy();
  void drawHistogram();
  void updateStatus();
  void applyRowHighlight();
  void onPlotClick(QCustomPlot* plot, QMouseEvent* event);
  void onPlotHover(QCustomPlot* plot, QMouseEvent* event);
  std::optional<std::tuple<int, int, int>> cellAt(QCustomPlot* plot, const QPointF& pos) const;
  void askExportImage(ExportTarget target);
  void askExportMatrices();
  void persistState();
  views::RunLabel runLabel() const;

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
  int selected_head_ = 0;
  int selected_row_ = -1;
  bool presentation_ = false;
  bool updating_widgets_ = false;
  bool saturation_shown_ = false;
  QString language_ = QStringLiteral("en");
  QString last_error_;
  QString wanted_backend_ = QStringLiteral("auto:0");  // "name:device", kept until listed
  QTimer debounce_;

  // inputs
  QDockWidget* controls_dock_ = nullptr;
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
