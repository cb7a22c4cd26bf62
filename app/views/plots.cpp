/// \file plots.cpp
/// The plot table (plots.hpp). A picture drawn only through the table declares its drawing here
/// and defines it in a file of its own (views/<name>_plot.cpp).

#include "views/plots.hpp"

#include <QCoreApplication>

#include "views/analysis_plots.hpp"
#include "views/head_roles_plot.hpp"
#include "views/head_similarity_plot.hpp"
#include "views/picture.hpp"

namespace attnlab::views {
namespace {

QString titleOf(const char* source, const PlotInput& input) {
  return viewText(source) + input.what;
}
bool always(const results::Run&) { return true; }

// clang-format off
constexpr const char* kEntropyTitle = QT_TRANSLATE_NOOP("attnlab::views", "Entropy of each query row (mean over heads)");
constexpr const char* kHistogramTitle = QT_TRANSLATE_NOOP("attnlab::views", "Histogram of the scores (all heads)");
constexpr const char* kSimilarityTitle = QT_TRANSLATE_NOOP("attnlab::views", "Head similarity: mean Jensen–Shannon divergence between heads");
constexpr const char* kRolesTitle = QT_TRANSLATE_NOOP("attnlab::views", "Head roles");

constexpr Plot kPlots[] = {
  {PlotKind::kEntropy, kEntropyTitle,
   [](const PlotInput&) { return ImageSize{900, 500, 1.0}; },
   [](QCustomPlot& plot, const PlotInput& in) {
     drawRowEntropy(plot, in.analysis.summary, in.run.query_tokens, titleOf(kEntropyTitle, in));
   },
   always},
  {PlotKind::kHistogram, kHistogramTitle,
   [](const PlotInput&) { return ImageSize{900, 500, 1.0}; },
   [](QCustomPlot& plot, const PlotInput& in) {
     drawScoreHistogram(plot, in.analysis.summary.histogram, titleOf(kHistogramTitle, in), in.run.spec);
   },
   always},
  {PlotKind::kHeadSimilarity, kSimilarityTitle,
   [](const PlotInput&) { return ImageSize{720, 640, 1.0}; },
   [](QCustomPlot& plot, const PlotInput& in) {
     drawHeadSimilarity(plot, in.analysis.similarity, titleOf(kSimilarityTitle, in));
   },
   always},
  {PlotKind::kHeadRoles, kRolesTitle,
   [](const PlotInput& in) {
     const QSize fit = defaultHeadRolesSize(in.run.head_roles->layers, in.run.head_roles->heads);
     return ImageSize{fit.width(), fit.height(), 1.0};
   },
   [](QCustomPlot& plot, const PlotInput& in) {
     const HeadRoles& roles = *in.run.head_roles;
     drawHeadRoles(plot, roles, viewText("Head roles · %1 · %2 layers × %3 heads")
                                    .arg(in.run.model->name).arg(roles.layers).arg(roles.heads));
   },
   [](const results::Run& run) { return run.model && run.head_roles; }},
};
// clang-format on

}  // namespace

std::span<const Plot> plots() { return kPlots; }

const Plot* plotOf(PlotKind kind) {
  for (const Plot& p : kPlots)
    if (p.kind == kind) return &p;
  return nullptr;
}

QString plotSubject(const results::Run& run, int entry) {
  if (run.translator) return QStringLiteral(" · %1").arg(run.translator->info->name);
  if (!run.model) return {};
  return QStringLiteral(" · %1 · ").arg(run.model->name) +
         viewText("layer %1").arg(run.layerIndices().at(static_cast<std::size_t>(entry)));
}

}  // namespace attnlab::views
