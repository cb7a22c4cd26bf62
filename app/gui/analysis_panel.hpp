#pragma once
/// \file analysis_panel.hpp
/// The side panel: the softmax-saturation curves with the current d_k marked (Monte-Carlo, cached
/// per number of keys and seed on a worker thread), the entropy of each query row and the
/// histogram of the scores of the layer in focus, a model's top heads per role when it has head
/// roles (HeadRolesPanel), and — only for a lesson step about it — the heads' similarity matrix.
/// Drawn by app/views, as the CLI would.

#include <QWidget>

#include "compute_worker.hpp"
#include "head_roles_panel.hpp"

class QCustomPlot;

namespace attnlab::gui {

class RenderScheduler;

/// One of the analysis panel's plots, brought forward alone by a lesson step about it.
/// kHeadSimilarity is never among "every plot": it is shown only as a step's plot.
enum class AnalysisPlot { kNone, kSaturation, kEntropy, kHistogram, kHeadRoles, kHeadSimilarity };

/// Saturation, row entropy and score histogram.
class AnalysisPanel : public QWidget {
  Q_OBJECT
 public:
  AnalysisPanel(RenderScheduler& scheduler, QWidget* parent = nullptr);

  /// Draws the panels for entry `entry` of result (the entropy and the histogram only when the
  /// result or the entry changed) with d_k marked on the curves. Cheap when only the marker moved.
  void show(const ResultPtr& result, int entry, int marker_dk, bool scaled);
  /// True once the saturation curves of the last show() are drawn (not "computing…").
  bool curvesShown() const { return curves_shown_; }
  /// The curves for n_k keys and seed (null while they are computed; computing starts).
  std::shared_ptr<const SaturationAnalysis> curves(int n_k, std::uint64_t seed);
  /// Draws everything again on the next show() (language).
  void invalidate();
  /// Presentation mode: the saturation plot alone (the one a lesson talks about), so it keeps a
  /// readable size in a narrow column; false: all three plots.
  void setCompact(bool compact);
  /// A lesson step's plot alone, the panel's whole height (compact or not); kNone: every plot
  /// again (as setCompact says).
  void setFocusPlot(AnalysisPlot plot);
  AnalysisPlot focusPlot() const { return focus_; }

  QCustomPlot* saturationPlot() const { return saturation_plot_; }
  QCustomPlot* entropyPlot() const { return entropy_plot_; }
  QCustomPlot* histogramPlot() const { return histogram_plot_; }
  /// The heads' mean Jensen–Shannon divergence matrix [h, h] of the layer in focus (hidden unless
  /// it is the focus plot).
  QCustomPlot* similarityPlot() const { return similarity_plot_; }
  /// The top heads per role of a result with head roles (hidden otherwise).
  HeadRolesPanel* headRolesPanel() const { return roles_; }

 signals:
  /// Curves that were missing are ready: show() again.
  void curvesReady();

 protected:
  /// A new width lays the plots out again (the legend's columns, the d_k labels).
  void resizeEvent(QResizeEvent* event) override;

 private:
  /// Draws the entropy and histogram plots of drawn_result_'s entry drawn_entry_ (and the head
  /// similarity while it is the focus plot).
  void drawSummaries();
  /// Shows the plots that compact_ and focus_ ask for.
  void applyVisibility();

  RenderScheduler& scheduler_;
  SaturationCache cache_;
  bool summaries_pending_ = false;
  bool curves_shown_ = false;
  bool compact_ = false;
  AnalysisPlot focus_ = AnalysisPlot::kNone;
  // What is on screen, to skip work that would draw the same again.
  ResultPtr drawn_result_;
  int drawn_entry_ = -1;
  int drawn_dk_ = -1;
  bool drawn_scaled_ = true;
  int drawn_keys_ = -1;
  QCustomPlot* saturation_plot_ = nullptr;
  QCustomPlot* entropy_plot_ = nullptr;
  QCustomPlot* histogram_plot_ = nullptr;
  QCustomPlot* similarity_plot_ = nullptr;
  HeadRolesPanel* roles_ = nullptr;
};

}  // namespace attnlab::gui
