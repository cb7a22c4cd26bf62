/// \file plots.cpp
/// The plot table (plots.hpp). A picture drawn only through the table declares its drawing here
/// and defines it in a file of its own (views/<name>_plot.cpp).

#include "views/plots.hpp"

#include <QCoreApplication>

#include "views/analysis_plots.hpp"
#include "views/head_roles_plot.hpp"
#include "views/head_similarity_plot.hpp"
#include "views/intervention_plots.hpp"
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
constexpr const char* kLensTitle = QT_TRANSLATE_NOOP("attnlab::views", "Logit lens");
constexpr const char* kDlaTitle = QT_TRANSLATE_NOOP("attnlab::views", "Direct logit attribution");
constexpr const char* kPatchingTitle = QT_TRANSLATE_NOOP("attnlab::views", "Activation patching");

/// " · NAME" for the pictures of a model run's interventions.
QString modelSubject(const PlotInput& in) { return QStringLiteral(" · %1").arg(in.run.model->name); }
const results::Interventions& interventionsOf(const PlotInput& in) { return *in.run.interventions; }

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
  {PlotKind::kLogitLens, kLensTitle,
   [](const PlotInput& in) {
     const LogitLens& lens = *interventionsOf(in).lens;
     const QSize fit = defaultLogitLensSize(static_cast<int>(lens.cells.size()),
                                            lens.cells.empty() ? 0 : static_cast<int>(lens.cells.front().size()));
     return ImageSize{fit.width(), fit.height(), 1.0};
   },
   [](QCustomPlot& plot, const PlotInput& in) {
     drawLogitLens(plot, *interventionsOf(in).lens, in.run.query_tokens, viewText(kLensTitle) + modelSubject(in));
   },
   [](const results::Run& run) { return run.model && run.interventions && run.interventions->lens; }},
  {PlotKind::kDla, kDlaTitle,
   [](const PlotInput& in) {
     const LogitAttribution& d = *interventionsOf(in).dla;
     const QSize fit = defaultAttributionSize(static_cast<int>(d.heads.rows()), static_cast<int>(d.heads.cols()));
     return ImageSize{fit.width(), fit.height(), 1.0};
   },
   [](QCustomPlot& plot, const PlotInput& in) {
     const LogitAttribution& d = *interventionsOf(in).dla;
     QString what = viewText("of %1").arg(QString::fromStdString(d.target_label));
     if (d.versus) what += QStringLiteral(" − ") + QString::fromStdString(d.versus_label);
     drawLogitAttribution(plot, d, viewText(kDlaTitle) + QStringLiteral(" ") + what + modelSubject(in));
   },
   [](const results::Run& run) { return run.model && run.interventions && run.interventions->dla; }},
  {PlotKind::kPatching, kPatchingTitle,
   [](const PlotInput& in) {
     const PatchingResult& p = *interventionsOf(in).patching;
     const QSize fit = defaultPatchingSize(static_cast<int>(p.heads.rows()), static_cast<int>(p.heads.cols()),
                                           static_cast<int>(p.residual.cols()));
     return ImageSize{fit.width(), fit.height(), 1.0};
   },
   [](QCustomPlot& plot, const PlotInput& in) {
     QStringList labels;
     const Encoding& e = in.run.model_run->encoding;
     for (const TokenDisplay& d : displayTokens(e)) labels << QString::fromStdString(d.label);
     drawPatching(plot, *interventionsOf(in).patching, labels,
                  viewText(kPatchingTitle) + modelSubject(in));
   },
   [](const results::Run& run) { return run.model && run.interventions && run.interventions->patching; }},
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
