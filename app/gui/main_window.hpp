#pragma once
/// \file main_window.hpp
/// The Attention Lab window: a thin shell that wires its panels — the model source and the inputs
/// (a dock on the left), the heads (grid or enlarged head: the central widget, which keeps most of
/// the window), the analysis plots (a dock on the right on wide screens, a tab beside the inputs on
/// narrow ones) — to the compute controller, the render scheduler and the export controller, and
/// owns the menus, the language, presentation mode and what is kept between sessions.
/// Computation runs on ComputeController's worker thread; everything here runs on the GUI thread
/// and redraws at most once per event-loop pass however many results arrive.

#include <QJsonArray>
#include <QJsonObject>
#include <QMainWindow>
#include <QTimer>
#include <memory>
#include <optional>

#include "attnlab/head_roles.hpp"
#include "analysis_panel.hpp"
#include "comparison.hpp"
#include "compute_worker.hpp"
#include "cost_panel.hpp"
#include "decode_panel.hpp"
#include "training_panel.hpp"
#include "generate_box.hpp"
#include "export_controller.hpp"
#include "heads_view.hpp"
#include "inputs_panel.hpp"
#include "lesson_host.hpp"
#include "model_source.hpp"
#include "options/lab_settings.hpp"
#include "options/options.hpp"
#include "render_scheduler.hpp"
#include "views/heatmap.hpp"

class QAction;
class QActionGroup;
class QDockWidget;
class QLabel;
class QProgressBar;
class QPushButton;
class QMenu;

namespace attnlab::gui {

class ElidingLabel;
class InterventionsPanel;
class LessonController;
class ModelFetchDialog;

/// How the window starts.
struct WindowOptions {
  options::LabSettings settings;   ///< Initial inputs (after the command line).
  views::PictureOptions picture;   ///< Colour scale and pooling.
  bool restore_settings = true;    ///< Load the inputs and geometry from QSettings first.
  bool persist = true;             ///< Save inputs, geometry and language to QSettings.
  QString language;                ///< "", "en" or "zh_CN"; "" follows the stored choice/system.
  bool presentation = false;       ///< Start in presentation mode.
  int head = -1;                   ///< ≥ 0: start with this head enlarged.
  QString compare;                 ///< Not empty: start comparing with these OPTIONS (--diff).
  int decode_step = -1;            ///< ≥ 0: open the KV-cache decoding dock at this step.
  QString lesson;                  ///< Not empty: open this lesson step, "NAME[:STEP]" (--lesson).
  std::optional<HeadRole> head_role;  ///< The model view's role badges (--head-role).
};

/// The main window. It builds the panels, wires them to the compute controller, the render
/// scheduler and the export controller, and owns the menus; a lesson reaches it through LessonHost
/// only. Tests and scripts find the panels and controls by objectName (docs/DESIGN.md, "Object
/// names"), not through accessors.
class MainWindow : public QMainWindow, public LessonHost {
  Q_OBJECT
 public:
  explicit MainWindow(const WindowOptions& options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  /// The inputs as the panels show them.
  options::LabSettings settings() const override;
  /// Shows settings in the panels and recomputes.
  void setSettings(const options::LabSettings& settings) override;
  /// The result on screen (null before the first).
  ResultPtr currentResult() const override { return shown_; }
  /// How many results have been put on screen so far.
  int resultsShown() const { return results_shown_; }
  /// The worker that computes the results (busy(): a run is in flight).
  ComputeController& controller() { return *controller_; }

  /// Switches the interface language: "en", "zh_CN", or "" for the system's.
  void setLanguage(const QString& code);
  QString language() const override { return language_; }
  /// Large fonts, the enlarged head full screen, inputs and side panels hidden.
  void setPresentationMode(bool on);
  bool presentationMode() const override { return presentation_; }
  /// View → All heads: the grid of heads (leaves presentation mode).
  void showGrid();
  /// "Compare with…": shows A − B with B = the current setting with OPTIONS ("" stops).
  void compareWith(const QString& options) override;

  /// The window's settings as a command line of `command` (its head and picture options too).
  options::Options commandLine(unsigned command) const;
  /// The geometry of the heatmaps on screen (views::layoutJson of each visible heatmap plot) and
  /// of every control that shows a text ("widgets", see widgetTexts),
  /// every rectangle in window pixels, for --layout-json.
  QJsonObject layoutJson() const;
  /// True while something drawn after the picture is still being computed: the open lesson's live
  /// numbers or a cache bug's decoded rows (--screenshot waits for them).
  bool extrasPending() const;

 signals:
  /// A result and the saturation curves are on screen and every queued replot has run.
  void pictureReady();
  /// The lesson's caption or the decoded rows changed (see extrasPending).
  void extrasChanged();
  /// The settings were rejected; `message` is the English line the command line would print.
  void inputRejected(const QString& message);

 protected:
  void changeEvent(QEvent* event) override;
  /// A new window size lays the pictures out again (one coalesced render), and pictureReady
  /// follows: whichever pane the pixels went to, the window says when it is drawn.
  void resizeEvent(QResizeEvent* event) override;
  void closeEvent(QCloseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  // LessonHost: what a lesson may do besides the public operations above (lesson_host.hpp).
  QMainWindow& hostWindow() override { return *this; }
  void setPicture(const views::PictureOptions& picture) override;
  int focusEntry() const override;
  void showHead(int head) override;
  QDockWidget* toolDock(ToolDock dock) override;
  void setCacheBug(CacheBug bug, std::optional<int> step) override;
  void setHeadRole(std::optional<HeadRole> role) override;
  bool analysisVisible() const override;
  void setAnalysisVisible(bool visible) override;
  void showAnalysisPlot(AnalysisPlot plot) override;  // main_window_presentation.cpp

  /// The model folder shown ("" for the synthetic lab) and its layer (−1: every layer).
  QString modelDir() const;
  int layer() const;
  void showSyntheticLab();
  /// Reads the inputs, the picture options, geometry, language and recent models from QSettings
  /// (main_window_state.cpp); returns the language to use.
  QString restoreStoredState(options::LabSettings& initial, views::PictureOptions& picture);
  /// Keeps the picture options for the next session.
  void persistPicture();
  void buildMenus();
  void retranslateUi();
  void loadExamples();
  void requestNow();
  /// The inputs for the source in use: a translator's (its config from the model source) or none;
  /// swap_texts when the user switched source (InputsPanel::setTranslator).
  void showTranslatorInputs(bool swap_texts = false);
  /// The decoding dock's title: a translator's steps or the KV cache's.
  QString decodeTitle() const;
  /// Texts and states of actions that follow the source (model view or not).
  void updateActions();
  /// Emits pictureReady when a result, the curves and every queued replot are on screen.
  void checkReady();
  /// Long work under way: `what` in the status line, the bar at done of total, Cancel shown.
  void showWork(const QString& what, int done, int total);
  void onResult(const ResultPtr& result);
  void render();
  void updateStatus();
  /// The first size: the screen's available area on a small screen (a projector), else
  /// 1500 × 920 or 85 % of it, whichever is larger (main_window_presentation.cpp).
  void fitToScreen();
  /// The docks for the window's width, when no arrangement of the user's is stored for it: the
  /// analysis beside the heads from kSideBySideWidth px on, else a tab beside the inputs, so the
  /// heatmaps keep at least 55 % of the window.
  void arrangePanels();
  /// "window/state-wide" or "window/state-narrow": the user's arrangement of the docks is kept per
  /// kind of screen (a projector does not inherit a desktop monitor's side panels).
  QString panelStateKey() const;
  void persistState();
  /// layoutJson's "widgets": every visible control with a text, its rectangle, the part of it on
  /// screen and the width its text needs (the geometry tests' clipping check).
  QJsonArray widgetTexts() const;
  /// The fallback reason of a result in the interface language.
  QString fallbackText(const AttentionResult& result) const;

  WindowOptions options_;
  std::unique_ptr<ComputeController> controller_;
  RenderScheduler scheduler_;
  ResultPtr shown_;
  ResultPtr pending_;
  int results_shown_ = 0;
  int enlarge_on_result_ = -1;  ///< A head to enlarge when the first result arrives.
  bool presentation_ = false;
  bool analysis_moved_ = false;  ///< showAnalysisPlot took the analysis dock out of its place.
  QString language_ = QStringLiteral("en");
  options::Message last_error_;
  QTimer debounce_;
  bool panels_restored_ = false;
  /// The user switched to a translator: play its steps when its first result is shown.
  bool play_translation_ = false;  ///< A stored dock arrangement for this width was restored.

  QDockWidget* inputs_dock_ = nullptr;
  ModelSource* model_source_ = nullptr;
  InputsPanel* inputs_ = nullptr;
  HeadsView* heads_ = nullptr;
  AnalysisPanel* analysis_ = nullptr;
  ExportController* exports_ = nullptr;
  QDockWidget* analysis_dock_ = nullptr;
  ElidingLabel* status_time_ = nullptr;
  ElidingLabel* status_backend_ = nullptr;
  /// Shown while a long forward pass reports progress: stops it (so does Esc).
  QPushButton* cancel_button_ = nullptr;
  /// Shown with it: the pass's layers, or the bytes of a newly loaded model's weights read.
  QProgressBar* progress_bar_ = nullptr;

  QMenu* file_menu_ = nullptr;
  QMenu* export_menu_ = nullptr;
  QMenu* export_plots_menu_ = nullptr;  ///< File → Export → Picture: the plot table's pictures.
  QMenu* examples_menu_ = nullptr;
  QMenu* view_menu_ = nullptr;
  QMenu* language_menu_ = nullptr;
  QMenu* help_menu_ = nullptr;
  QAction* open_model_action_ = nullptr;
  QAction* synthetic_action_ = nullptr;
  QAction* get_models_action_ = nullptr;       ///< File → Get models…
  QMenu* stored_models_menu_ = nullptr;        ///< File → Models on this computer (stored_models.hpp)
  ModelFetchDialog* models_dialog_ = nullptr;  ///< Its dialog (created with the menus).
  QAction* export_head_action_ = nullptr;
  QAction* export_grid_action_ = nullptr;
  QAction* export_saturation_action_ = nullptr;
  QAction* export_matrices_action_ = nullptr;
  QAction* export_html_action_ = nullptr;
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
  QAction* compare_action_ = nullptr;
  QAction* stop_compare_action_ = nullptr;
  QAction* cost_action_ = nullptr;
  QAction* inputs_action_ = nullptr;    ///< Ctrl+1: the inputs panel to the front, or folded.
  QAction* analysis_action_ = nullptr;  ///< Ctrl+2: the analysis panel to the front, or folded.
  QAction* decode_action_ = nullptr;
  QAction* training_action_ = nullptr;
  QAction* export_sweep_action_ = nullptr;
  CompareController* compare_ = nullptr;
  CostPanel* cost_ = nullptr;
  QDockWidget* cost_dock_ = nullptr;
  DecodePanel* decode_ = nullptr;
  GenerateBox* generate_ = nullptr;  ///< Generate / Stop beside the text (a model's generation).
  int decode_on_result_ = -1;  ///< --decode-step: applied with the first result.
  /// A head role was chosen: the Analysis dock (its top-heads list) comes to the front when the
  /// roles are shown, also where it shares a column with the Inputs (1280 × 720).
  bool raise_roles_ = false;
  QDockWidget* decode_dock_ = nullptr;
  TrainingPanel* training_ = nullptr;
  QDockWidget* training_dock_ = nullptr;
  InterventionsPanel* interventions_ = nullptr;  ///< Ablation, logit lens, attribution, patching.
  QDockWidget* interventions_dock_ = nullptr;
  /// Makes the Interventions dock (hidden until asked for: View menu, a head's context menu)
  /// and connects it to the model view and the runs.
  void setUpInterventions();
  LessonController* lessons_ = nullptr;
  QActionGroup* language_group_ = nullptr;
};

/// Registers the embedded resources (examples, icon, translations) of the static library; call
/// once after creating the QApplication.
void initResources();

}  // namespace attnlab::gui
