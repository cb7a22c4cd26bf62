/// \file analysis_panel.cpp
/// The saturation, entropy, histogram and head-similarity plots.

#include "analysis_panel.hpp"

#include <qcustomplot.h>

#include <QTimer>
#include <QVBoxLayout>

#include "attnlab/head_similarity.hpp"
#include "render_scheduler.hpp"
#include "views/analysis_plots.hpp"
#include "views/export.hpp"
#include "views/head_similarity_plot.hpp"
#include "views/picture.hpp"
#include "views/saturation_plot.hpp"

namespace attnlab::gui {
namespace {
constexpr double kSideFontScale = 0.8;  ///< A side panel: smaller text than an exported image.
}  // namespace

AnalysisPanel::AnalysisPanel(RenderScheduler& scheduler, QWidget* parent)
    : QWidget(parent), scheduler_(scheduler) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto make = [this](const char* name) {
    auto* plot = new QCustomPlot(this);
    plot->setObjectName(QLatin1String(name));
    // Low, so that a lesson's long text above the tabbed panels gets its height at 1024 × 768
    // (the tab group is as tall as its tallest minimum; issue 50).
    plot->setMinimumSize(160, 40);
    views::setFontScale(*plot, kSideFontScale);
    return plot;
  };
  saturation_plot_ = make("saturationPlot");
  entropy_plot_ = make("entropyPlot");
  histogram_plot_ = make("histogramPlot");
  similarity_plot_ = make("headSimilarityPlot");
  similarity_plot_->hide();
  for (QCustomPlot* bars : {entropy_plot_, histogram_plot_}) {
    bars->setNotAntialiasedElements(QCP::aePlottables);  // crisp bars, faster replots
  }
  layout->addWidget(saturation_plot_, 5);
  layout->addWidget(entropy_plot_, 3);
  layout->addWidget(histogram_plot_, 3);
  layout->addWidget(similarity_plot_, 5);
  roles_ = new HeadRolesPanel(this);
  roles_->setObjectName(QStringLiteral("headRolesPanel"));
  layout->addWidget(roles_, 3);
  connect(&cache_, &SaturationCache::ready, this, &AnalysisPanel::curvesReady);
}

std::shared_ptr<const SaturationAnalysis> AnalysisPanel::curves(int n_k, std::uint64_t seed) {
  return cache_.get(n_k, seed);
}

void AnalysisPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (drawn_keys_ >= 0) {
    drawn_dk_ = -1;  // the saturation plot is drawn again at its new width
    drawn_keys_ = -1;
    // The similarity matrix is laid out for the plot's size: drawn again.
    if (focus_ == AnalysisPlot::kHeadSimilarity) drawn_result_.reset();
    scheduler_.requestRender();
  }
}

void AnalysisPanel::setCompact(bool compact) {
  compact_ = compact;
  applyVisibility();
  invalidate();
}

void AnalysisPanel::setFocusPlot(AnalysisPlot plot) {
  if (plot == focus_) return;
  focus_ = plot;
  applyVisibility();
  invalidate();
  scheduler_.requestRender();
}

void AnalysisPanel::applyVisibility() {
  const bool all = focus_ == AnalysisPlot::kNone;
  // A step's plot alone is read from afar: the exported picture's type (larger in presentation
  // mode), not the side panel's smaller one.
  const std::pair<QCustomPlot*, AnalysisPlot> plots[] = {{saturation_plot_, AnalysisPlot::kSaturation},
                                                         {entropy_plot_, AnalysisPlot::kEntropy},
                                                         {histogram_plot_, AnalysisPlot::kHistogram},
                                                         {similarity_plot_, AnalysisPlot::kHeadSimilarity}};
  for (const auto& [plot, kind] : plots)
    views::setFontScale(*plot, kind != focus_ ? kSideFontScale : compact_ ? 1.4 : 1.0);
  saturation_plot_->setVisible(all || focus_ == AnalysisPlot::kSaturation);
  entropy_plot_->setVisible(all ? !compact_ : focus_ == AnalysisPlot::kEntropy);
  histogram_plot_->setVisible(all ? !compact_ : focus_ == AnalysisPlot::kHistogram);
  similarity_plot_->setVisible(focus_ == AnalysisPlot::kHeadSimilarity);
  roles_->setVisible(roles_->hasRoles() && (all || focus_ == AnalysisPlot::kHeadRoles));
}

void AnalysisPanel::invalidate() {
  roles_->retranslate();
  drawn_result_.reset();
  drawn_dk_ = -1;
  drawn_keys_ = -1;
}

void AnalysisPanel::show(const ResultPtr& result, int entry, int marker_dk, bool scaled) {
  if (!result) return;
  roles_->setRoles(result->head_roles);
  if (focus_ != AnalysisPlot::kNone) applyVisibility();  // setRoles shows the list
  const AttentionResult& r = result->attention(entry);
  // Additive and linear attention have no q·k/√d_k: no d_k marker on the dot product's curves.
  if (r.mechanism == Mechanism::kAdditive || r.mechanism == Mechanism::kLinear) marker_dk = 0;
  const std::shared_ptr<const SaturationAnalysis> model = cache_.get(r.nK(), result->settings.seed);
  const bool have_curves = model && !model->scaled.empty();
  if (!have_curves) {
    if (drawn_keys_ != -2) {
      views::clearPlot(*saturation_plot_);
      auto* note = new QCPTextElement(saturation_plot_,
                                      tr("Computing the saturation curves for %1 keys…").arg(r.nK()));
      saturation_plot_->plotLayout()->addElement(0, 0, note);
      scheduler_.queueReplot(saturation_plot_);
      drawn_keys_ = -2;
    }
    curves_shown_ = false;
  } else if (marker_dk != drawn_dk_ || scaled != drawn_scaled_ || r.nK() != drawn_keys_) {
    // While only d_k moves (a drag), move the marker and repaint its layer alone.
    if (r.nK() == drawn_keys_ && views::moveSaturationMarker(*saturation_plot_, marker_dk, scaled)) {
      scheduler_.queueReplot(saturation_plot_, RenderScheduler::Part::kMarker);
    } else {
      views::drawSaturation(*saturation_plot_, *model, std::nullopt, marker_dk, scaled);
      scheduler_.queueReplot(saturation_plot_);
    }
    drawn_dk_ = marker_dk;
    drawn_scaled_ = scaled;
    drawn_keys_ = r.nK();
    curves_shown_ = true;
  }
  if (result == drawn_result_ && entry == drawn_entry_) return;
  drawn_result_ = result;
  drawn_entry_ = entry;
  // The entropy and histogram plots are rebuilt in a pass of their own, not in the pass that
  // refilled the heatmaps (each stays well under a 60 Hz frame; together they would not).
  if (!summaries_pending_) {
    summaries_pending_ = true;
    QTimer::singleShot(0, this, &AnalysisPanel::drawSummaries);
  }
}

void AnalysisPanel::drawSummaries() {
  summaries_pending_ = false;
  if (!drawn_result_) return;
  const ResultPtr result = drawn_result_;
  const int entry = drawn_entry_;
  const int layer = result->model ? result->layerIndices().at(static_cast<std::size_t>(entry)) : -1;
  const AttentionSummary& summary = result->summaries.at(static_cast<std::size_t>(entry));
  views::drawRowEntropy(*entropy_plot_, summary, result->query_tokens,
                        layer >= 0 ? tr("Entropy of each query row, layer %1 (mean over heads)").arg(layer)
                                   : tr("Entropy of each query row (mean over heads)"));
  scheduler_.queueReplot(entropy_plot_);
  views::drawScoreHistogram(
      *histogram_plot_, summary.histogram,
      layer >= 0 ? tr("Histogram of this sentence's scores (layer %1, all heads)").arg(layer)
                 : tr("Histogram of this sentence's scores (all heads)"),
      result->spec);
  scheduler_.queueReplot(histogram_plot_);
  if (focus_ == AnalysisPlot::kHeadSimilarity) {
    views::drawHeadSimilarity(*similarity_plot_, headSimilarity(result->attention(entry)),
                              views::viewText("Head similarity: mean Jensen–Shannon divergence between heads"));
    scheduler_.queueReplot(similarity_plot_);
  }
}

}  // namespace attnlab::gui
