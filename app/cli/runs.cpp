/// \file runs.cpp
/// The maps of a setting, differences of two, their drawing and files (runs.hpp).

#include "cli/runs.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <qcustomplot.h>

#include <algorithm>
#include <fstream>
#include <numeric>

#include "attnlab/error.hpp"
#include "attnlab/io.hpp"
#include "attnlab/rollout.hpp"

namespace attnlab::cli {
namespace {

using options::Message;
using options::OptionError;

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

QStringList toStrings(const std::vector<Token>& tokens) {
  QStringList out;
  for (const Token& t : tokens) out << QString::fromStdString(t.text);
  return out;
}

/// A model run and what is shown of it, owned by the RunMaps that points into it.
struct ModelMaps {
  ModelRun run;
  std::vector<AttentionResult> shown;  ///< Filtered layers, or the rollout.
};

std::vector<int> allHeads(int h) {
  std::vector<int> heads(static_cast<std::size_t>(h));
  std::iota(heads.begin(), heads.end(), 0);
  return heads;
}

}  // namespace

Runner::Runner(std::ostream& err) : err_(err) {}
Runner::~Runner() = default;

Backend& Runner::backend(const options::LabSettings& lab) {
  const QString key = lab.backend + QLatin1Char(':') + QString::number(lab.device);
  if (!backend_ || key != backend_key_) {
    backend_ = selectBackend(utf8(lab.backend), lab.device, BuildMode::kWait).backend;
    backend_key_ = key;
  }
  return *backend_;
}

PretrainedModel& Runner::model(const options::LabSettings& lab) {
  auto it = models_.find(lab.model_dir);
  if (it == models_.end())
    it = models_.emplace(lab.model_dir, PretrainedModel::load(utf8(lab.model_dir))).first;
  return *it->second;
}

int Runner::modelLayers(const options::Options& o) {
  return o.lab.pretrained() ? model(o.lab).config().layers : 0;
}

int Runner::modelHeads(const options::Options& o) {
  return o.lab.pretrained() ? model(o.lab).config().heads : 0;
}

RunMaps Runner::maps(const options::Options& o) {
  RunMaps m;
  m.head = o.head;
  if (!o.lab.pretrained()) {
    const AttentionSpec spec = o.lab.toSpec();
    options::checkTokens(o.lab);
    if (!synthetic_ || !synthetic_->sameWeights(spec, o.lab.seed)) {
      synthetic_.reset();
      synthetic_ = std::make_unique<SyntheticModel>(spec, o.lab.seed);
    }
    std::optional<std::string> source;
    if (o.lab.cross()) source = utf8(o.lab.source);
    auto run = std::make_shared<LabRun>(
        runSynthetic(*synthetic_, spec, utf8(o.lab.text), source, backend(o.lab), o.lab.padding()));
    if (!run->attention.fallback_reason.empty() && o.lab.backend == QLatin1String("opencl"))
      err_ << "attention-lab-cli: note: computed on the CPU: " << run->attention.fallback_reason
           << "\n";
    m.layers = {&run->attention};
    m.query_tokens = toStrings(run->query_tokens);
    m.key_tokens = toStrings(run->key_tokens);
    m.label = views::RunLabel{spec, run->cross, {}, std::nullopt, {}, {}, 0};
    m.label.facts = views::syntheticFacts(spec);
    m.label.pad_tokens = run->pad_tokens;
    m.model_heads = spec.heads;
    m.keep = run;
    return m;
  }
  PretrainedModel& model = this->model(o.lab);
  const ModelConfig& config = model.config();
  const QString name = QString::fromStdString(model.name());
  options::checkLayer(o.lab, name, config.layers);
  std::optional<std::string> pair;
  if (o.isGiven("pair") || !o.lab.pair.isEmpty()) pair = utf8(o.lab.pair);
  std::optional<std::string_view> pair_view;
  if (pair && !pair->empty()) pair_view = *pair;
  auto owned = std::make_shared<ModelMaps>();
  ModelRunOptions run_options = o.lab.toModelOptions();
  run_options.progress = terminalProgress();
  owned->run = model.run(utf8(o.lab.text), pair_view, run_options, backend(o.lab));
  options::checkModelTokens(static_cast<int>(owned->run.encoding.ids.size()));
  const AttentionResult& first = owned->run.attention.front();
  if (!first.fallback_reason.empty() && o.lab.backend == QLatin1String("opencl"))
    err_ << "attention-lab-cli: note: computed on the CPU: " << first.fallback_reason << "\n";
  const Encoding& e = owned->run.encoding;
  const std::vector<bool> keep = views::specialTokenFilter(e, o.lab.hide_special);
  m.special_hidden = std::find(keep.begin(), keep.end(), false) != keep.end();
  for (std::size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) m.query_tokens << QString::fromStdString(e.labels[i]);
  m.key_tokens = m.query_tokens;
  AttentionSpec spec;
  spec.mechanism = first.mechanism;
  spec.mask = config.mask();
  spec.heads = config.heads;
  spec.d_model = config.d_model;
  spec.d_k = config.dK();
  spec.temperature = o.lab.temperature;
  m.label = views::RunLabel{spec, false, name, std::nullopt, {}, {}, 0};
  if (m.special_hidden)
    m.label.note = views::viewText("special tokens hidden (weights not renormalised)");
  m.layers_total = config.layers;
  m.model_heads = config.heads;
  if (o.lab.rollout) {
    // The rollout through the chosen layer (every layer by default), on every token; the display
    // filter comes after (a hidden token still carried attention between the layers).
    const int last = o.lab.layer.value_or(config.layers - 1);
    owned->run.attention.resize(static_cast<std::size_t>(last) + 1);
    const AttentionResult rollout =
        views::rolloutResult(attentionRollout(owned->run.attention), config.mask());
    owned->shown.push_back(m.special_hidden ? views::keepTokens(rollout, keep) : rollout);
    m.rollout = true;
    m.rollout_first = 0;
    m.rollout_last = last;
    m.layer_indices = {last};
  } else {
    for (const AttentionResult& r : owned->run.attention)
      if (m.special_hidden) owned->shown.push_back(views::keepTokens(r, keep));
    m.layer_indices = owned->run.layers;
    if (o.lab.layer) m.label.layer = *o.lab.layer;
  }
  const std::vector<AttentionResult>& shown =
      owned->shown.empty() ? owned->run.attention : owned->shown;
  for (const AttentionResult& r : shown) m.layers.push_back(&r);
  m.keep = owned;
  return m;
}

views::ImageSize defaultSize(const RunMaps& m) {
  const AttentionResult& first = *m.layers.front();
  if (m.layers.size() > 1 && !m.head) {
    return views::defaultModelGridSize(first.nQ(), static_cast<int>(m.layers.size()),
                                       first.heads());
  }
  return views::defaultHeatmapSize(first.nQ(), first.nK(),
                                   m.head || first.heads() == 1 ? 1 : first.heads());
}

void drawMaps(QCustomPlot& plot, const RunMaps& m, const views::PictureOptions& picture,
              const QStringList& lead) {
  views::PictureTitle title;
  title.lead = lead;
  if (m.rollout) {
    title.replace = views::rolloutTitle(m.label.model, m.rollout_first, m.rollout_last);
    if (!m.label.note.isEmpty()) title.replace << m.label.note;
    title.bar_title = views::viewText("rollout weight");
  }
  views::setPictureTitle(plot, title);
  const AttentionResult& first = *m.layers.front();
  if (m.layers.size() > 1 && !m.head) {
    std::vector<AttentionResult> copies;
    for (const AttentionResult* r : m.layers) copies.push_back(*r);
    views::drawModelGrid(plot, copies, m.layer_indices, m.query_tokens, m.label, picture);
  } else if (m.head) {
    if (*m.head >= first.heads()) {
      throw OptionError(Message(ATTNLAB_MSG("--head must be between 0 and %1 (got %2)"),
                                {QString::number(first.heads() - 1), QString::number(*m.head)}));
    }
    views::drawHeatmap(plot, first, *m.head, m.query_tokens, m.key_tokens, m.label, picture);
  } else if (first.heads() == 1 && m.rollout) {
    views::drawHeatmap(plot, first, 0, m.query_tokens, m.key_tokens, m.label, picture);
  } else {
    views::drawHeadGrid(plot, first, m.query_tokens, m.key_tokens, m.label, picture);
  }
  views::setPictureTitle(plot, {});
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
    d.results.push_back(views::differenceResult(d.layers.back()));
    if (d.layers.back().max_abs > d.layers[static_cast<std::size_t>(d.max_layer)].max_abs)
      d.max_layer = static_cast<int>(l);
  }
  d.layer_indices = a.layer_indices;
  d.query_tokens = a.query_tokens;
  d.key_tokens = a.key_tokens;
  d.special_hidden = a.special_hidden;
  d.a = &a;
  d.b = &b;
  const auto side = [](const RunMaps& m) {
    views::DifferenceSide s{m.label, m.head, {}};
    if (m.rollout) {
      s.extra = m.rollout_first == m.rollout_last
                    ? views::viewText("attention rollout of layer %1").arg(m.rollout_last)
                    : views::viewText("attention rollout through layers %1–%2")
                          .arg(m.rollout_first)
                          .arg(m.rollout_last);
      s.label.layer.reset();
    }
    return s;
  };
  std::optional<int> layer_of_max;
  if (d.layers.size() > 1) layer_of_max = d.layer_indices.at(static_cast<std::size_t>(d.max_layer));
  d.title =
      views::differenceTitle(side(a), side(b), d.layers[static_cast<std::size_t>(d.max_layer)],
                             layer_of_max, d.heads_a.size() > 1, d.query_tokens, d.key_tokens);
  if (d.special_hidden)
    d.title << views::viewText("special tokens hidden (weights not renormalised)");
  return d;
}

views::ImageSize defaultSize(const DifferenceMaps& d) {
  const AttentionResult& first = d.results.front();
  if (d.results.size() > 1) {
    return views::defaultModelGridSize(first.nQ(), static_cast<int>(d.results.size()),
                                       first.heads());
  }
  return views::defaultHeatmapSize(first.nQ(), first.nK(), first.heads());
}

void drawDifference(QCustomPlot& plot, const DifferenceMaps& d, views::Pool pool) {
  views::PictureTitle title;
  title.replace = d.title;
  views::setPictureTitle(plot, title);
  views::PictureOptions picture;
  picture.color_scale = views::ColorScale::kDifference;
  picture.pool = pool;
  views::RunLabel label;
  label.spec.mask = d.results.front().mask;
  label.cross = d.a && d.a->label.cross;
  const AttentionResult& first = d.results.front();
  if (d.results.size() > 1) {
    views::drawModelGrid(plot, d.results, d.layer_indices, d.query_tokens, label, picture);
  } else if (first.heads() == 1) {
    views::drawHeatmap(plot, first, 0, d.query_tokens, d.key_tokens, label, picture);
  } else {
    views::drawHeadGrid(plot, first, d.query_tokens, d.key_tokens, label, picture);
  }
  views::setPictureTitle(plot, {});
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
  if (layers) f << "layer,";
  f << "head_a,head_b,query,query_token,key,key_token,weight_a,weight_b,difference,masked\n";
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
          f << ha << ',' << hb << ',' << i << ',' << csvText(d.query_tokens.value(i)) << ',' << j
            << ',' << csvText(d.key_tokens.value(j)) << ',' << a.weights(ha, i, j) << ','
            << b.weights(hb, i, j) << ',' << w.delta(map, i, j) << ','
            << (w.mask_pattern.visible(i, j) ? 0 : 1) << '\n';
        }
      }
    }
  }
  f.close();
  if (!f) throw Error(ErrorCode::kIo, "cannot write " + path);
}


std::function<bool(int, int)> terminalProgress() {
  if (isatty(STDERR_FILENO) == 0) return {};
  const auto start = std::chrono::steady_clock::now();
  auto shown = std::make_shared<bool>(false);
  return [start, shown](int done, int total) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (done >= total) {
      if (*shown) std::fprintf(stderr, "\r\033[K");
    } else if (s >= 1.0) {
      std::fprintf(stderr, "\rattention-lab-cli: layer %d of %d, %.1f s\033[K", done, total, s);
      *shown = true;
    }
    std::fflush(stderr);
    return true;
  };
}

}  // namespace attnlab::cli
