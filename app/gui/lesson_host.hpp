#pragma once
/// \file lesson_host.hpp
/// What a guided lesson (lesson_controller.hpp) may do to the window it runs in, and nothing more:
/// read and apply settings, read the result on screen, show a head, a comparison or a tool dock,
/// and ask for the language and presentation mode. MainWindow implements it; the lesson never sees
/// the window's panels (as a Tiled editor plug-in sees only its Editor interface).

#include <QString>
#include <optional>

#include "attnlab/decode.hpp"
#include "analysis_panel.hpp"
#include "attnlab/head_roles.hpp"
#include "compute_worker.hpp"
#include "options/lab_settings.hpp"
#include "views/picture_options.hpp"

class QDockWidget;
class QMainWindow;

namespace attnlab::gui {

/// The window's docks that a lesson step opens and closes.
enum class ToolDock {
  kCost,    ///< View → Cost of attention (a step's view "cost").
  kDecode,  ///< View → KV-cache decoding (a step's view "decode").
  kTraining,  ///< View → Training curves (a step's view "training").
  kInterventions,  ///< View → Interventions (a step's view "logit-lens" or "dla").
};

/// The window as a lesson sees it.
class LessonHost {
 public:
  virtual ~LessonHost() = default;

  /// The main window the lesson's dock, menu and keys are added to (and its docks resized in).
  virtual QMainWindow& hostWindow() = 0;

  /// The inputs as the panels show them.
  virtual options::LabSettings settings() const = 0;
  /// Shows settings in the panels and recomputes.
  virtual void setSettings(const options::LabSettings& settings) = 0;
  /// The colour scale and pooling of the heatmaps (and of the inputs that choose them).
  virtual void setPicture(const views::PictureOptions& picture) = 0;
  /// The result on screen (null before the first).
  virtual ResultPtr currentResult() const = 0;
  /// The entry of currentResult() in focus: its index for ComputeResult::attention.
  virtual int focusEntry() const = 0;

  /// head ≥ 0: enlarges that head (of the layer in focus); −1: the grid of heads (presentation
  /// mode stays on).
  virtual void showHead(int head) = 0;
  /// Shows A − B with B = the current settings with OPTIONS; "" stops comparing.
  virtual void compareWith(const QString& options) = 0;
  /// The dock of a tool a step opens (shown and hidden by the lesson, never deleted).
  virtual QDockWidget* toolDock(ToolDock dock) = 0;
  /// The decoding dock's simulated cache bug (CacheBug::kNone: the correct cache) from `step`.
  virtual void setCacheBug(CacheBug bug, std::optional<int> step = std::nullopt) = 0;
  /// The model view's head-role badges (the "Head roles" combo box); none takes them off. The
  /// roles are computed when the next settings ask for them (LabSettings::head_roles).
  virtual void setHeadRole(std::optional<HeadRole> role) = 0;
  /// The analysis plots (saturation, entropy, histogram) beside the heads; shown again they are
  /// redrawn.
  virtual bool analysisVisible() const = 0;
  virtual void setAnalysisVisible(bool visible) = 0;
  /// A step about one analysis plot: that plot alone in the analysis dock, the dock beside the
  /// heads (out of a tab it shared) and wide enough that the plot takes a third of the window;
  /// kNone: every plot, the dock back where it was.
  virtual void showAnalysisPlot(AnalysisPlot plot) = 0;

  /// Large fonts, one enlarged head full screen, inputs and side panels hidden.
  virtual bool presentationMode() const = 0;
  /// The interface language: "en" or "zh_CN".
  virtual QString language() const = 0;

 protected:
  LessonHost() = default;
  LessonHost(const LessonHost&) = default;
  LessonHost& operator=(const LessonHost&) = default;
};

}  // namespace attnlab::gui
