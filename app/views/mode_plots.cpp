/// \file mode_plots.cpp
/// The decode and generate pictures (mode_plots.hpp).

#include "views/mode_plots.hpp"

#include <qcustomplot.h>

#include <array>

#include "views/compare.hpp"
#include "views/heatmap.hpp"
#include "views/picture.hpp"

namespace attnlab::views {
namespace {

/// The note under the decoded picture: the bug and where the rows go wrong, the cache's bytes at
/// the last step.
QString decodeNote(const results::Decoded& d) {
  const DecodeResult& r = d.decode;
  QStringList parts;
  parts << viewText("KV-cache decode");
  if (r.bug != CacheBug::kNone) {
    const QString token = d.labels.value(r.bug_step);
    parts << (r.bug == CacheBug::kSkip
                  ? viewText("cache bug: token %1 “%2” never cached").arg(r.bug_step).arg(token)
                  : viewText("cache bug: token %1 “%2” cached twice").arg(r.bug_step).arg(token));
  }
  // The weights' difference alone: it is what the picture shows (the Δ map and its colour bar
  // with a bug); the outputs' is in the JSON.
  parts << (r.first_diff_step < 0
                ? viewText("equals the full causal computation (weights: max |Δ| %1)")
                      .arg(r.max_weight_diff, 0, 'g', 2)
                : viewText("rows differ from the full causal computation from row %1 on "
                           "(weights: max |Δ| %2)")
                      .arg(r.first_diff_step)
                      .arg(r.max_weight_diff, 0, 'g', 3));
  const DecodeStep& last = r.steps.back();
  parts << viewText("KV cache %1 entries · %2 bytes")
               .arg(last.cache_length)
               .arg(bytesText(last.cache_bytes));
  if (d.spec.resolvedKvHeads() < d.spec.heads)
    parts << viewText("%1 bytes with one K/V head per query head")
                 .arg(bytesText(last.mha_cache_bytes));
  return parts.join(QStringLiteral(" · "));
}

}  // namespace

void drawDecoded(QCustomPlot& plot, const results::Decoded& d, std::optional<int> head,
                 const PictureOptions& picture) {
  RunLabel label{d.spec, false, {}, std::nullopt, {}, {}};
  label.facts = syntheticFacts(d.spec);
  label.note = decodeNote(d);
  AttentionResult shown = d.decode.attention;
  PictureOptions options = picture;
  if (d.delta) {
    shown = differenceResult(*d.delta);
    options.color_scale = ColorScale::kDifference;
    PictureTitle title;
    title.replace << viewText("KV-cache decode − full causal computation (Δ weight)");
    title.bar_title = viewText("Δ weight (decoded − full)");
    setPictureTitle(plot, title);
  }
  if (head) {
    drawHeatmap(plot, shown, *head, d.labels, d.labels, label, options);
  } else {
    drawHeadGrid(plot, shown, d.labels, d.labels, label, options);
  }
  setPictureTitle(plot, {});
}

std::pair<int, int> readableHead(const results::Generated& g) {
  std::pair<int, int> best{0, 0};
  if (!g.shown || !g.generation) return best;
  const auto n_p = static_cast<int>(g.generation->prompt.ids.size());
  double least = 2;
  const std::vector<AttentionResult>& grown = g.shown->layers();
  for (std::size_t li = 0; li < grown.size(); ++li) {
    const Tensor3& w = grown[li].weights;
    const int from = w.rows > n_p ? n_p : 1;
    for (int h = 0; h < w.h; ++h) {
      double mass = 0;
      for (int i = from; i < w.rows; ++i) mass += w(h, i, 0);
      mass /= std::max(w.rows - from, 1);
      if (mass < least) {
        least = mass;
        best = {static_cast<int>(li), h};
      }
    }
  }
  return best;
}

void drawGeneration(QCustomPlot& plot, const results::Generated& g, int entry, int head,
                    const PictureOptions& picture) {
  const results::Run& shown = *g.shown;
  const Generation& gen = *g.generation;
  const auto n_p = static_cast<int>(gen.prompt.ids.size());
  const AttentionResult& grown = shown.attention(entry);
  const int n = grown.nQ();
  const GenerationStep& last = gen.steps.back();
  RunLabel label{
      g.spec, false, g.model->name, shown.layerIndices().at(static_cast<std::size_t>(entry)),
      {},     {}};
  label.note = viewText("prompt rows 0–%1, generated rows %2–%3 · KV cache %4 tokens · %5 bytes")
                   .arg(n_p - 1)
                   .arg(n_p)
                   .arg(n - 1)
                   .arg(last.cache_length)
                   .arg(bytesText(last.cache_bytes));
  if (g.options.run.int8_activations) label.note = withInt8Note(label.note);
  if (!g.options.run.ablation.empty()) {
    QStringList heads;
    for (const HeadRef& h : g.options.run.ablation.heads) heads << QString::fromStdString(toString(h));
    label.note += QStringLiteral(" · ") + viewText("ablated (%1): %2")
                                              .arg(QString::fromStdString(toString(g.options.run.ablation.mode)),
                                                   heads.join(QStringLiteral(", ")));
  }
  drawHeatmap(plot, grown, head, shown.query_tokens, shown.key_tokens, label, picture);
  if (n <= n_p) return;
  // Map coordinates are cells (blocks in an overview): the boundary after the prompt's rows.
  const double block = std::max(heatmapBlock(plot), 1);
  const double edge = n_p / block - 0.5;
  const double far = n / block - 0.5;
  const QPen pen(QColor(0xd5, 0x5e, 0x00), 2.0);
  for (const auto& [x0, y0, x1, y1] : {std::array<double, 4>{-0.5, edge, far, edge},
                                       std::array<double, 4>{edge, -0.5, edge, edge}}) {
    auto* line = new QCPItemLine(&plot);
    line->setClipAxisRect(plot.axisRect());
    line->start->setAxes(plot.xAxis2, plot.yAxis);
    line->end->setAxes(plot.xAxis2, plot.yAxis);
    line->start->setCoords(x0, y0);
    line->end->setCoords(x1, y1);
    line->setPen(pen);
  }
}

}  // namespace attnlab::views
