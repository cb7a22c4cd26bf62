/// \file run_maps.cpp
/// The maps of a run, differences of two, their drawing and files (run_maps.hpp).

#include "views/run_maps.hpp"

#include "views/intervention_plots.hpp"

#include <qcustomplot.h>

#include <algorithm>
#include <fstream>
#include <numeric>

#include "attnlab/error.hpp"
#include "attnlab/io.hpp"
#include "attnlab/rollout.hpp"

namespace attnlab::views {
namespace {

using options::Message;
using options::OptionError;

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

std::vector<int> allHeads(int h) {
  std::vector<int> heads(static_cast<std::size_t>(h));
  std::iota(heads.begin(), heads.end(), 0);
  return heads;
}

/// A translator's maps (mapsOf's part for results::Run::translator): its name, what it wrote, the
/// attention shown; every layer in the model view, or one.
RunMaps translatorMaps(RunMaps m, const results::Run& r, std::optional<int> entry) {
  m.label.model = r.translator->info->name;
  m.label.facts = {};
  const Translation& t = *r.translator->translation;
  const QString output = QString::fromStdString(t.output);
  QStringList note;
  note << (t.forced ? viewText("forced target “%1”").arg(output)
                    : viewText("output “%1”").arg(output) + (t.finished ? QString() : viewText(" (no </s>: cut at %1 tokens)").arg(t.target_ids.size())));
  switch (r.settings.translator_attention) {
    case options::TranslatorAttention::kCross: break;  // the title says cross-attention
    case options::TranslatorAttention::kEncoderSelf: note << viewText("encoder self-attention"); break;
    case options::TranslatorAttention::kDecoderSelf: note << viewText("decoder self-attention (columns = decoder inputs)"); break;
  }
  // A model that is often wrong says so beside its output (dates-transformer-unscaled: 25 %).
  const double accuracy = r.translator->info->config.test_accuracy;
  if (!t.forced && accuracy > 0 && accuracy < 0.95)
    note << viewText("it writes %1 % of held-out dates right").arg(100 * accuracy, 0, 'f', 0);
  m.label.note = note.join(QStringLiteral(" · "));
  m.layers_total = r.translator->info->config.kind == TranslatorKind::kAdditiveGru
                       ? 1
                       : static_cast<int>(t.cross.size());
  if (r.entries() > 1 && !r.settings.layer && !entry) {
    for (int e = 0; e < r.entries(); ++e) m.layers.push_back(&r.attention(e));
    m.layer_indices = r.layerIndices();
    return m;
  }
  const int e = entry.value_or(0);
  m.layers = {&r.attention(e)};
  m.layer_indices = {r.layerIndices().at(static_cast<std::size_t>(e))};
  if (m.layers_total > 1) m.label.layer = m.layer_indices.front();
  return m;
}

}  // namespace

RunMaps mapsOf(const std::shared_ptr<const results::Run>& r, std::optional<int> head,
               std::optional<int> entry) {
  RunMaps m;
  m.keep = r;
  m.query_tokens = r->query_tokens;
  m.key_tokens = r->key_tokens;
  for (const Token& t : r->run.query_tokens) m.query_raw << QString::fromStdString(t.text);
  for (const Token& t : r->run.key_tokens) m.key_raw << QString::fromStdString(t.text);
  m.head = head;
  m.special_hidden = r->special_hidden;
  m.label = RunLabel{r->spec, r->run.cross, {}, std::nullopt, {}, {}, 0};
  if (r->model) {
    m.label.model = r->model->name;
    m.label.facts = modelFacts(*r->model_run, r->model->config);
    m.layers_total = r->model->config.layers;
    if (m.special_hidden) m.label.note = viewText("special tokens hidden (weights not renormalised)");
    if (r->settings.int8_activations) m.label.note = withInt8Note(m.label.note);
    m.label.note = withInterventionNotes(*r, m.label.note);
    if (r->interventions) m.ablated = r->interventions->ablated;
  } else {
    m.label.facts = syntheticFacts(r->spec);
    m.label.pad_tokens = r->run.pad_tokens;
  }
  m.model_heads = r->model ? r->model->config.heads : r->spec.heads;
  if (r->translator) return translatorMaps(std::move(m), *r, entry);
  if (r->rollout) {
    m.layers = {&r->rollout->result};
    m.rollout = true;
    m.rollout_last = r->rollout->last;
    m.layer_indices = {r->rollout->last};
    return m;
  }
  if (!r->model) {
    m.layers = {&r->attention(0)};
    return m;
  }
  if (!r->settings.layer && !entry) {
    for (int e = 0; e < r->entries(); ++e) m.layers.push_back(&r->attention(e));
    m.layer_indices = r->layerIndices();
    return m;
  }
  const int e = entry.value_or(0);
  m.layers = {&r->attention(e)};
  m.layer_indices = {r->layerIndices().at(static_cast<std::size_t>(e))};
  m.label.layer = m.layer_indices.front();
  return m;
}

QString sweepLead(const options::OptionSpec& spec, const QString& value, const AttentionSpec& shown) {
  // The parameters the title says anyway, in the title's own words (withPictureTitle then says
  // them once, first).
  if (spec.name == "temperature" && shown.temperature) return scalingText(shown);
  if (spec.name == "d-k") return QStringLiteral("d_k = %1").arg(shown.resolvedDk());
  if (spec.name == "mechanism") return mechanismTitle(shown);
  if (spec.name == "heads")
    return shown.heads == 1 ? viewText("1 head") : viewText("%1 heads").arg(shown.heads);
  if (spec.name == "temperature") return QStringLiteral("T = %1").arg(value);
  if (spec.name == "layer") return viewText("layer %1").arg(value);
  if (spec.name == "head") return viewText("head %1").arg(value);
  QString name = QString::fromUtf8(spec.name.data(), static_cast<qsizetype>(spec.name.size()));
  name.replace(QLatin1Char('-'), QLatin1Char('_'));
  return QStringLiteral("%1 = %2").arg(name, value);
}

ImageSize defaultSize(const RunMaps& m) {
  const AttentionResult& first = *m.layers.front();
  if (m.layers.size() > 1 && !m.head) {
    return fitModelGridHeight(
        defaultModelGridSize(first.nQ(), static_cast<int>(m.layers.size()), first.heads()),
        [&](QCustomPlot& plot) { drawMaps(plot, m, PictureOptions{}); });
  }
  return defaultHeatmapSize(first.nQ(), first.nK(),
                                   m.head || first.heads() == 1 ? 1 : first.heads());
}

void drawMaps(QCustomPlot& plot, const RunMaps& m, const PictureOptions& picture,
              const QStringList& lead) {
  PictureTitle title;
  title.lead = lead;
  if (m.rollout) {
    title.replace = rolloutTitle(m.label.model, m.rollout_first, m.rollout_last);
    if (!m.label.note.isEmpty()) title.replace << m.label.note;
    title.bar_title = viewText("rollout weight");
  }
  setPictureTitle(plot, title);
  const AttentionResult& first = *m.layers.front();
  if (m.layers.size() > 1 && !m.head) {
    std::vector<AttentionResult> copies;
    for (const AttentionResult* r : m.layers) copies.push_back(*r);
    drawModelGrid(plot, copies, m.layer_indices, m.query_tokens, m.label, picture, m.key_tokens);
    if (m.ablated.size() > 0) markAblatedHeads(plot, m.ablated, first.heads(), m.layer_indices);
  } else if (m.head) {
    if (*m.head >= first.heads()) {
      throw OptionError(Message(ATTNLAB_MSG("--head must be between 0 and %1 (got %2)"),
                                {QString::number(first.heads() - 1), QString::number(*m.head)}));
    }
    drawHeatmap(plot, first, *m.head, m.query_tokens, m.key_tokens, m.label, picture);
  } else if (first.heads() == 1 && m.rollout) {
    drawHeatmap(plot, first, 0, m.query_tokens, m.key_tokens, m.label, picture);
  } else {
    drawHeadGrid(plot, first, m.query_tokens, m.key_tokens, m.label, picture);
  }
  setPictureTitle(plot, {});
}

DifferenceMaps difference(const RunMaps& a, const RunMaps& b) {
  if (a.query_tokens != b.query_tokens || a.key_tokens != b.key_tokens) {
    throw OptionError(
        Message(ATTNLAB_MSG("--diff: the two settings give different tokens (%1 and %2): a "
                            "difference needs the same tokens"),
                {QString::number(a.query_tokens.size()), QString::number(b.query_tokens.size())}));
  }
  if (a.layers.size() != b.layers.size()) {
    throw OptionError(
        Message(ATTNLAB_MSG("--diff: A shows %1 layers and B %2; compare one layer with one "
                            "layer (--layer L and --diff \"--layer M\")"),
                {QString::number(a.layers.size()), QString::number(b.layers.size())}));
  }
  const int h_a = a.layers.front()->heads(), h_b = b.layers.front()->heads();
  DifferenceMaps d;
  d.heads_a = a.head ? std::vector<int>{*a.head} : allHeads(h_a);
  d.heads_b = b.head ? std::vector<int>{*b.head} : allHeads(h_b);
  if (d.heads_a.size() != d.heads_b.size()) {
    throw OptionError(
        Message(ATTNLAB_MSG("--diff: A shows %1 heads and B %2; compare one head with one head "
                            "(--head N and --diff \"--head M\")"),
                {QString::number(d.heads_a.size()), QString::number(d.heads_b.size())}));
  }
  for (int k : d.heads_a) {
    if (k >= h_a)
      throw OptionError(Message(ATTNLAB_MSG("--head must be between 0 and %1 (got %2)"),
                                {QString::number(h_a - 1), QString::number(k)}));
  }
  for (int k : d.heads_b) {
    if (k >= h_b)
      throw OptionError(Message(ATTNLAB_MSG("--head must be between 0 and %1 (got %2)"),
                                {QString::number(h_b - 1), QString::number(k)}));
  }
  for (std::size_t l = 0; l < a.layers.size(); ++l) {
    d.layers.push_back(weightDifference(*a.layers[l], d.heads_a, *b.layers[l], d.heads_b));
    d.results.push_back(differenceResult(d.layers.back()));
    if (d.layers.back().max_abs > d.layers[static_cast<std::size_t>(d.max_layer)].max_abs)
      d.max_layer = static_cast<int>(l);
  }
  d.layer_indices = a.layer_indices;
  d.query_tokens = a.query_tokens;
  d.key_tokens = a.key_tokens;
  d.query_raw = a.query_raw;
  d.key_raw = a.key_raw;
  d.special_hidden = a.special_hidden;
  d.a = &a;
  d.b = &b;
  const auto side = [](const RunMaps& m) {
    DifferenceSide s{m.label, m.head, {}};
    if (m.rollout) {
      s.extra = m.rollout_first == m.rollout_last
                    ? viewText("attention rollout of layer %1").arg(m.rollout_last)
                    : viewText("attention rollout through layers %1–%2")
                          .arg(m.rollout_first)
                          .arg(m.rollout_last);
      s.label.layer.reset();
    }
    return s;
  };
  std::optional<int> layer_of_max;
  if (d.layers.size() > 1) layer_of_max = d.layer_indices.at(static_cast<std::size_t>(d.max_layer));
  d.title =
      differenceTitle(side(a), side(b), d.layers[static_cast<std::size_t>(d.max_layer)],
                             layer_of_max, d.heads_a.size() > 1, d.query_tokens, d.key_tokens);
  if (d.special_hidden)
    d.title << viewText("special tokens hidden (weights not renormalised)");
  return d;
}

ImageSize defaultSize(const DifferenceMaps& d) {
  const AttentionResult& first = d.results.front();
  if (d.results.size() > 1) {
    return fitModelGridHeight(
        defaultModelGridSize(first.nQ(), static_cast<int>(d.results.size()), first.heads()),
        [&](QCustomPlot& plot) { drawDifference(plot, d, Pool::kMax); });
  }
  return defaultHeatmapSize(first.nQ(), first.nK(), first.heads());
}

void drawDifference(QCustomPlot& plot, const DifferenceMaps& d, Pool pool) {
  PictureTitle title;
  title.replace = d.title;
  setPictureTitle(plot, title);
  PictureOptions picture;
  picture.color_scale = ColorScale::kDifference;
  picture.pool = pool;
  RunLabel label;
  label.spec.mask = d.results.front().mask;
  label.cross = d.a && d.a->label.cross;
  const AttentionResult& first = d.results.front();
  if (d.results.size() > 1) {
    drawModelGrid(plot, d.results, d.layer_indices, d.query_tokens, label, picture);
  } else if (first.heads() == 1) {
    drawHeatmap(plot, first, 0, d.query_tokens, d.key_tokens, label, picture);
  } else {
    drawHeadGrid(plot, first, d.query_tokens, d.key_tokens, label, picture);
  }
  setPictureTitle(plot, {});
}

void writeDifferenceNpy(const std::string& path, const DifferenceMaps& d) {
  std::vector<float> data;
  for (const WeightDifference& w : d.layers)
    data.insert(data.end(), w.delta.data.begin(), w.delta.data.end());
  const Tensor3& first = d.layers.front().delta;
  std::vector<long long> shape;
  if (d.layers.size() > 1) shape.push_back(static_cast<long long>(d.layers.size()));
  if (first.h > 1 || d.layers.size() > 1) shape.push_back(first.h);
  shape.insert(shape.end(), {first.rows, first.cols});
  writeNpy(path, shape, data);
}

void writeDifferenceCsv(const std::string& path, const DifferenceMaps& d) {
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw Error(ErrorCode::kIo, "cannot write " + path);
  const bool layers = !d.layer_indices.empty();
  const auto csvText = [](const QString& token) {
    QString t = token;
    t.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return utf8(QLatin1Char('"') + t + QLatin1Char('"'));
  };
  const bool labels = d.a && d.a->layers_total > 0;  // a model's tokens: display labels too
  if (layers) f << "layer,";
  f << "head_a,head_b,query,query_token,key,key_token,weight_a,weight_b,difference,masked"
    << (labels ? ",query_label,key_label\n" : "\n");
  f.precision(9);
  for (std::size_t l = 0; l < d.layers.size(); ++l) {
    const WeightDifference& w = d.layers[l];
    const AttentionResult& a = *d.a->layers[l];
    const AttentionResult& b = *d.b->layers[l];
    for (int map = 0; map < w.delta.h; ++map) {
      const int ha = d.heads_a[static_cast<std::size_t>(map)],
                hb = d.heads_b[static_cast<std::size_t>(map)];
      for (int i = 0; i < w.delta.rows; ++i) {
        for (int j = 0; j < w.delta.cols; ++j) {
          if (layers) f << d.layer_indices[l] << ',';
          f << ha << ',' << hb << ',' << i << ',' << csvText(d.query_raw.value(i)) << ',' << j
            << ',' << csvText(d.key_raw.value(j)) << ',' << a.weights(ha, i, j) << ','
            << b.weights(hb, i, j) << ',' << w.delta(map, i, j) << ','
            << (w.mask_pattern.visible(i, j) ? 0 : 1);
          if (labels)
            f << ',' << csvText(d.query_tokens.value(i)) << ',' << csvText(d.key_tokens.value(j));
          f << '\n';
        }
      }
    }
  }
  f.close();
  if (!f) throw Error(ErrorCode::kIo, "cannot write " + path);
}


}  // namespace attnlab::views
