/// \file cli.cpp
/// attention-lab-cli's commands on top of the option table (options.hpp).

#include "cli/cli.hpp"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <qcustomplot.h>

#include "attnlab/backend.hpp"
#include "attnlab/cpu_path.hpp"
#include "attnlab/error.hpp"
#include "attnlab/io.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/saturation.hpp"
#include "attnlab/summary.hpp"
#include "attnlab/synthetic.hpp"
#include "cli/cli_json.hpp"
#include "cli/commands.hpp"
#include "cli/runs.hpp"
#include "options/options.hpp"
#include "views/views.hpp"

namespace attnlab::cli {
namespace {

using options::Options;

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

std::optional<std::string> sourceOf(const options::LabSettings& lab) {
  if (!lab.cross()) return std::nullopt;
  return utf8(lab.source);
}

void noteFallback(const Options& o, const AttentionResult& r, std::ostream& err) {
  if (!r.fallback_reason.empty() && o.lab.backend == QLatin1String("opencl"))
    err << "attention-lab-cli: note: computed on the CPU: " << r.fallback_reason << "\n";
}

/// The synthetic lab's run: every check first (options), then one computation.
LabRun computeSynthetic(const Options& o, std::ostream& err) {
  const AttentionSpec spec = o.lab.toSpec();
  options::checkTokens(o.lab);
  // The CLI makes one picture: waiting for the OpenCL programs costs less than computing twice.
  BackendChoice choice = selectBackend(utf8(o.lab.backend), o.lab.device, BuildMode::kWait);
  const SyntheticModel model(spec, o.lab.seed);
  LabRun run = runSynthetic(model, spec, utf8(o.lab.text), sourceOf(o.lab), *choice.backend,
                            o.lab.padding());
  noteFallback(o, run.attention, err);
  return run;
}

struct ModelComputed {
  std::unique_ptr<PretrainedModel> model;
  ModelRun run;
};

ModelComputed computeModel(const Options& o, std::ostream& err) {
  ModelComputed c;
  BackendChoice choice = selectBackend(utf8(o.lab.backend), o.lab.device, BuildMode::kWait);
  c.model = PretrainedModel::load(utf8(o.lab.model_dir));
  options::checkLayer(o.lab, QString::fromStdString(c.model->name()), c.model->config().layers);
  std::optional<std::string> pair;
  if (o.isGiven("pair")) pair = utf8(o.lab.pair);
  std::optional<std::string_view> pair_view;
  if (pair) pair_view = *pair;
  const std::string text = utf8(o.lab.text);
  options::checkModelText(*c.model, text, pair_view, o.lab);
  ModelRunOptions run_options = o.lab.toModelOptions();
  run_options.progress = terminalProgress();
  c.run = c.model->run(text, pair_view, run_options, *choice.backend);
  noteFallback(o, c.run.attention.front(), err);
  return c;
}

/// The run's layers and labels after the --hide-special display filter.
struct ModelPicture {
  std::vector<AttentionResult> layers;
  QStringList labels;
  bool filtered = false;
};

ModelPicture modelPicture(const ModelComputed& c, bool hide_special) {
  ModelPicture p;
  const Encoding& e = c.run.encoding;
  const std::vector<bool> keep = views::specialTokenFilter(e, hide_special);
  p.filtered = std::find(keep.begin(), keep.end(), false) != keep.end();
  for (std::size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) p.labels << QString::fromStdString(e.labels[i]);
  for (const AttentionResult& r : c.run.attention) p.layers.push_back(p.filtered ? views::keepTokens(r, keep) : r);
  return p;
}

QStringList labels(const std::vector<Token>& tokens) {
  QStringList out;
  for (const Token& t : tokens) out << QString::fromStdString(t.text);
  return out;
}

/// The image size: --width / --height / --scale over the picture's default.
views::ImageSize imageSize(const Options& o, views::ImageSize size) {
  if (o.output.width) size.width = *o.output.width;
  if (o.output.height) size.height = *o.output.height;
  size.scale = o.output.scale;
  options::checkImageSize(size.width, size.height, size.scale);
  return size;
}

/// Prepares an offscreen plot to be drawn and exported at size.
void prepare(QCustomPlot& plot, const views::ImageSize& size) {
  plot.setViewport(QRect(0, 0, size.width, size.height));
  views::setCanvasSize(plot, QSize(size.width, size.height));
}

/// Exports plot, then writes --layout-json (what was drawn, measured after the export's layout).
void exportPicture(QCustomPlot& plot, const Options& o, const views::ImageSize& size) {
  views::exportPlot(plot, o.output.out, size);
  if (o.output.layout_json.isEmpty()) return;
  plot.replot(QCustomPlot::rpImmediateRefresh);
  QJsonObject layout = views::layoutJson(plot);
  layout["image"] = o.output.out;
  layout["scale"] = size.scale;
  QFile file(o.output.layout_json);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
      file.write(QJsonDocument(layout).toJson(QJsonDocument::Indented)) < 0) {
    throw Error(ErrorCode::kIo, "cannot write " + utf8(o.output.layout_json) + ": " + utf8(file.errorString()));
  }
}

QString suffixOf(const QString& path) { return QFileInfo(path).suffix().toLower(); }

/// render --plot entropy|histogram|head-similarity: the analysis plots of one result (the window's side panels).
void exportAnalysis(const Options& o, const AttentionResult& r, const QStringList& query_tokens,
                    const QString& what) {
  QCustomPlot plot;
  if (o.output.plot == QLatin1String("head-similarity")) {
    const views::ImageSize size = imageSize(o, {720, 640, 1.0});
    prepare(plot, size);
    views::drawHeadSimilarity(plot, headSimilarity(r),
                              views::viewText("Head similarity: mean Jensen–Shannon divergence between heads") + what);
    views::exportPlot(plot, o.output.out, size);
    return;
  }
  const AttentionSummary summary = summarizeAttention(r);
  const views::ImageSize size = imageSize(o, {900, 500, 1.0});
  prepare(plot, size);
  if (o.output.plot == QLatin1String("entropy")) {
    views::drawRowEntropy(plot, summary, query_tokens,
                          views::viewText("Entropy of each query row (mean over heads)") + what);
  } else {
    views::drawScoreHistogram(plot, summary.histogram,
                              views::viewText("Histogram of the scores (all heads)") + what);
  }
  views::exportPlot(plot, o.output.out, size);
}

void writeHeadsNpy(const std::string& path, const std::vector<const AttentionResult*>& results,
                   int head, bool scores) {
  const AttentionResult& first = *results.front();
  const long long per_head = static_cast<long long>(first.nQ()) * first.nK();
  std::vector<float> data;
  for (const AttentionResult* r : results) {
    const Tensor3& t = scores ? r->scores : r->weights;
    const auto begin = t.data.begin() + (head < 0 ? 0 : static_cast<std::ptrdiff_t>(head * per_head));
    data.insert(data.end(), begin, head < 0 ? t.data.end() : begin + per_head);
  }
  std::vector<long long> shape;
  if (results.size() > 1) shape.push_back(static_cast<long long>(results.size()));
  if (head < 0) shape.push_back(first.heads());
  shape.insert(shape.end(), {first.nQ(), first.nK()});
  writeNpy(path, shape, data);
}

int commandCompute(const Options& o, std::ostream& out, std::ostream& err) {
  if (o.lab.rollout) return computeRollout(o, out, err);
  if (o.lab.pretrained()) {
    const ModelComputed c = computeModel(o, err);
    out << modelJson(o, c.run, c.model->name(), c.model->config(), c.model->loadMs()).dump() << "\n";
    return kExitOk;
  }
  out << syntheticJson(o, computeSynthetic(o, err)).dump() << "\n";
  return kExitOk;
}

/// render --model: one layer → a head grid (or one head); every layer → the model view.
int renderModel(const Options& o, std::ostream& out, std::ostream& err) {
  const ModelComputed c = computeModel(o, err);
  const ModelPicture picture = modelPicture(c, o.lab.hide_special);
  const AttentionResult& first = picture.layers.front();
  const int head = o.head.value_or(-1);
  if (head >= first.heads()) {
    throw options::OptionError(options::Message(ATTNLAB_MSG("--head must be between 0 and %1 (got %2)"),
                                                {QString::number(first.heads() - 1), QString::number(head)}));
  }
  const QString format = suffixOf(o.output.out);
  const std::string path = utf8(o.output.out);
  if (o.output.plot != QLatin1String("heatmap")) {
    exportAnalysis(o, first, picture.labels,
                   QStringLiteral(" · %1 · ").arg(QString::fromStdString(c.model->name())) +
                       views::viewText("layer %1").arg(c.run.layers.front()));
  } else if (format == QLatin1String("csv")) {
    std::vector<Token> tokens;
    for (const QString& label : picture.labels) tokens.push_back(Token{label.toStdString()});
    writeLayersCsv(path, picture.layers, c.run.layers, tokens, head);
  } else if (format == QLatin1String("npy")) {
    std::vector<const AttentionResult*> results;
    for (const AttentionResult& r : picture.layers) results.push_back(&r);
    writeHeadsNpy(path, results, head, o.output.values == QLatin1String("scores"));
  } else {
    QCustomPlot plot;
    AttentionSpec spec;
    spec.mechanism = first.mechanism;
    spec.mask = c.model->config().mask();
    spec.heads = c.model->config().heads;
    spec.d_model = c.model->config().d_model;
    spec.temperature = o.lab.temperature;
    views::RunLabel label{spec, false, QString::fromStdString(c.model->name()), std::nullopt, {},
                          views::modelFacts(c.run, c.model->config())};
    if (picture.filtered) label.note = views::viewText("special tokens hidden (weights not renormalised)");
    const int n = static_cast<int>(picture.labels.size());
    if (picture.layers.size() > 1 && head < 0) {
      const views::ImageSize size = imageSize(o, views::defaultModelGridSize(n, static_cast<int>(picture.layers.size()), first.heads()));
      prepare(plot, size);
      views::drawModelGrid(plot, picture.layers, c.run.layers, picture.labels, label, o.picture);
      exportPicture(plot, o, size);
    } else {
      label.layer = c.run.layers.front();
      const views::ImageSize size = imageSize(o, views::defaultHeatmapSize(n, n, head < 0 ? first.heads() : 1));
      prepare(plot, size);
      if (head < 0) {
        views::drawHeadGrid(plot, first, picture.labels, picture.labels, label, o.picture);
      } else {
        views::drawHeatmap(plot, first, head, picture.labels, picture.labels, label, o.picture);
      }
      exportPicture(plot, o, size);
    }
  }
  out << path << "\n";
  return kExitOk;
}

int commandRender(const Options& o, std::ostream& out, std::ostream& err) {
  if (!o.diff.isEmpty() || o.lab.rollout) return renderCompared(o, out, err);
  if (o.lab.pretrained()) return renderModel(o, out, err);
  const LabRun run = computeSynthetic(o, err);
  const AttentionResult& r = run.attention;
  const int head = o.head.value_or(-1);
  const QString format = suffixOf(o.output.out);
  const std::string path = utf8(o.output.out);
  if (o.output.plot != QLatin1String("heatmap")) {
    exportAnalysis(o, r, labels(run.query_tokens), QString());
  } else if (format == QLatin1String("csv")) {
    writeAttentionCsv(path, r, run.query_tokens, run.key_tokens, head);
  } else if (format == QLatin1String("npy")) {
    writeHeadsNpy(path, {&r}, head, o.output.values == QLatin1String("scores"));
  } else {
    QCustomPlot plot;
    views::RunLabel label{o.lab.toSpec(), run.cross, {}, std::nullopt, {}, {}};
    label.facts = views::syntheticFacts(label.spec);
    label.pad_tokens = run.pad_tokens;
    const QStringList q = labels(run.query_tokens), k = labels(run.key_tokens);
    const views::ImageSize size = imageSize(o, views::defaultHeatmapSize(r.nQ(), r.nK(), head < 0 ? r.heads() : 1));
    prepare(plot, size);
    if (head < 0) {
      views::drawHeadGrid(plot, r, q, k, label, o.picture);
    } else {
      views::drawHeatmap(plot, r, head, q, k, label, o.picture);
    }
    exportPicture(plot, o, size);
  }
  out << path << "\n";
  return kExitOk;
}

void writeSaturationCsv(const std::string& path, const SaturationAnalysis& model,
                        const std::optional<SaturationAnalysis>& sentence) {
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw Error(ErrorCode::kIo, "cannot write " + path);
  f << "source,scaling,n_k,d_k,score_variance,mean_max_weight,mean_norm_entropy,"
       "mean_jacobian_norm\n";
  auto rows = [&f](const char* source, const SaturationAnalysis& an) {
    for (const auto* curve : {&an.scaled, &an.unscaled}) {
      for (const SaturationPoint& p : *curve) {
        f << source << ',' << (curve == &an.scaled ? "scaled" : "unscaled") << ',' << an.n_k << ','
          << p.d_k << ',' << p.score_variance << ',' << p.mean_max_weight << ','
          << p.mean_norm_entropy << ',' << p.mean_jacobian_norm << '\n';
      }
    }
  };
  f.precision(9);
  rows("monte_carlo", model);
  if (sentence) rows("sentence", *sentence);
  f.close();
  if (!f) throw Error(ErrorCode::kIo, "cannot write " + path);
}

int commandSaturation(const Options& o, std::ostream& out, std::ostream& /*err*/) {
  SaturationConfig config;
  if (!o.saturation.d_k.empty()) config.d_k = o.saturation.d_k;
  config.n_k = o.saturation.keys;
  config.samples = o.saturation.samples;
  config.seed = o.lab.seed;
  // The sentence's settings without a d_k of their own: --d-k is the curves' list here.
  options::LabSettings lab = o.lab;
  lab.d_k = 0;
  const AttentionSpec spec = lab.toSpec();
  // The marked d_k: --mark, else the list's single value, else the one render would use.
  int mark = config.d_k.size() == 1 ? config.d_k.front() : spec.resolvedDk();
  if (o.saturation.mark) mark = *o.saturation.mark;
  std::optional<SaturationAnalysis> sentence;
  if (o.isGiven("text")) {
    options::checkTokens(lab);
    sentence = saturationOfSentence(spec, lab.seed, true, utf8(lab.text), sourceOf(lab), config.d_k);
    config.n_k = sentence->n_k;  // compare like with like: as many keys as the sentence has
  }
  const SaturationAnalysis model = saturationMonteCarlo(config);
  if (suffixOf(o.output.out) == QLatin1String("csv")) {
    writeSaturationCsv(utf8(o.output.out), model, sentence);
  } else {
    QCustomPlot plot;
    const views::ImageSize size = imageSize(o, {900, 600, 1.0});
    prepare(plot, size);
    views::drawSaturation(plot, model, sentence, mark, o.lab.mechanism != Mechanism::kDot);
    views::exportPlot(plot, o.output.out, size);
  }
  out << utf8(o.output.out) << "\n";
  return kExitOk;
}

int commandInfo(std::ostream& out) {
  const std::string cpu_path = describeCpuPath();  // an unusable ATTNLAB_CPU_PATH: nothing printed
  out << "Attention Lab " << ATTNLAB_VERSION_STRING << "\n";
  out << "backends:\n  cpu     Eigen reference on " << cpuDeviceName() << "\n";
  std::string why;
  const auto devices = listOpenClDevices(&why);
  if (devices.empty()) {
    out << "  opencl  unavailable: " << why << "\n";
  } else {
    out << "  opencl  " << devices.size() << " device(s); choose with --backend opencl --device N\n";
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const DeviceInfo& d = devices[i];
      out << "    --device " << i << "  " << d.name << " [" << d.type << ", " << d.compute_units
          << " compute units, " << d.global_memory_bytes / (1024 * 1024) << " MiB] on "
          << d.platform << " (" << d.version << ")\n";
    }
  }
  out << "auto uses OpenCL device 0 when its kernels build, else the CPU\n";
  std::string paths;
  for (const CpuPath p : supportedCpuPaths()) paths += (paths.empty() ? "" : ", ") + toString(p);
  out << "cpu path (the model passes' dense products): " << cpu_path
      << "\n  supported here: " << paths << " (force one with ATTNLAB_CPU_PATH=NAME)\n";
  return kExitOk;
}

}  // namespace

std::string usage() { return utf8(options::usage(0)); }

int run(const std::vector<std::string>& raw, std::ostream& out, std::ostream& err) {
  try {
    const Options o = options::parse(raw, 0);
    (void)activeCpuPath();  // an unusable ATTNLAB_CPU_PATH is refused by every command alike
    if (o.help) {
      out << usage();
      return kExitOk;
    }
    switch (o.command) {
      case options::kCompute: return commandCompute(o, out, err);
      case options::kRender: return commandRender(o, out, err);
      case options::kSaturation: return commandSaturation(o, out, err);
      case options::kCost: return commandCost(o, out, err);
      case options::kSweep: return commandSweep(o, out, err);
      case options::kDecode: return commandDecode(o, out, err);
      case options::kLesson: return commandLesson(o, out, err);
      default: return commandInfo(out);
    }
  } catch (const options::OptionError& e) {
    err << "attention-lab-cli: " << utf8(e.message().english()) << "\n";
    return kExitUsage;
  } catch (const Error& e) {
    err << "attention-lab-cli: " << e.what() << "\n";
    switch (e.code()) {
      case ErrorCode::kInvalidArgument:
      case ErrorCode::kInvalidInput:
      case ErrorCode::kIo:
        return kExitUsage;
      case ErrorCode::kBackend:
      case ErrorCode::kInternal:
      case ErrorCode::kCancelled:
        return kExitInternal;
    }
    return kExitInternal;
  } catch (const std::exception& e) {
    err << "attention-lab-cli: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace attnlab::cli
