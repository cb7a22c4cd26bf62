#include "cli/cli.hpp"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <qcustomplot.h>
#include <set>
#include <sstream>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/io.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/saturation.hpp"
#include "attnlab/synthetic.hpp"
#include "views/views.hpp"

namespace attnlab::cli {

namespace {

/// A bad command line: mapped to exit code 2 with its message.
struct UsageError {
  std::string message;
};

// ---- argument parsing -----------------------------------------------------------------------

// Options that take a value; every other accepted option is a flag.
const std::set<std::string> kValueOptions = {
    "--text",  "--source", "--mechanism", "--heads", "--d-model", "--d-k",    "--d-v",
    "--d-a",   "--seed",   "--temperature", "--backend", "--device", "--model", "--layer",
    "--head",  "--out",    "--width",  "--height", "--scale",  "--keys",   "--samples",
    "--mark",  "--values", "--pair"};
const std::set<std::string> kFlagOptions = {"--causal", "--no-scale", "--no-positions", "--help",
                                            "--hide-special"};

struct Args {
  std::string command;
  std::map<std::string, std::string> values;
  std::set<std::string> flags;

  bool has(const std::string& name) const { return values.count(name) > 0; }
  bool flag(const std::string& name) const { return flags.count(name) > 0; }
  std::optional<std::string> get(const std::string& name) const {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  }
};

Args parseArgs(const std::vector<std::string>& raw) {
  Args a;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    std::string arg = raw[i];
    if (arg.rfind("--", 0) != 0) {
      if (!a.command.empty())
        throw UsageError{"unexpected argument '" + arg + "' (values follow their option)"};
      a.command = arg;
      continue;
    }
    std::optional<std::string> inline_value;
    if (const auto eq = arg.find('='); eq != std::string::npos) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    if (kValueOptions.count(arg)) {
      if (inline_value) {
        a.values[arg] = *inline_value;
      } else if (i + 1 < raw.size()) {
        a.values[arg] = raw[++i];
      } else {
        throw UsageError{arg + " needs a value"};
      }
    } else if (kFlagOptions.count(arg)) {
      if (inline_value) throw UsageError{arg + " takes no value"};
      a.flags.insert(arg);
    } else {
      throw UsageError{"unknown option '" + arg + "' (see --help)"};
    }
  }
  return a;
}

void allowOnly(const Args& a, const std::set<std::string>& allowed) {
  for (const auto& [name, value] : a.values)
    if (!allowed.count(name))
      throw UsageError{name + " does not apply to the " + a.command + " command"};
  for (const auto& name : a.flags)
    if (!allowed.count(name) && name != "--help")
      throw UsageError{name + " does not apply to the " + a.command + " command"};
}

long long parseInteger(const std::string& name, const std::string& text, long long lo,
                       long long hi) {
  long long value = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), value);
  if (res.ec != std::errc() || res.ptr != text.data() + text.size())
    throw UsageError{name + " expects a whole number (got '" + text + "')"};
  if (value < lo || value > hi)
    throw UsageError{name + " must be between " + std::to_string(lo) + " and " +
                     std::to_string(hi) + " (got " + text + ")"};
  return value;
}

double parseNumber(const std::string& name, const std::string& text) {
  double value = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), value);
  if (res.ec != std::errc() || res.ptr != text.data() + text.size() || !std::isfinite(value))
    throw UsageError{name + " expects a number (got '" + text + "')"};
  return value;
}

std::vector<int> parseIntList(const std::string& name, const std::string& text) {
  std::vector<int> list;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) list.push_back(static_cast<int>(parseInteger(name, item, 1, 16384)));
  if (list.empty()) throw UsageError{name + " expects a comma-separated list such as 1,2,4,8"};
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  return list;
}

// ---- the run's settings --------------------------------------------------------------------

struct RunSettings {
  AttentionSpec spec;
  std::uint64_t seed = 0;
  bool positions = true;
  std::string text = kDefaultText;
  std::optional<std::string> source;
  std::string backend = "auto";
  int device = 0;
};

const std::set<std::string> kSpecOptions = {
    "--text", "--source", "--mechanism", "--causal", "--heads", "--d-model", "--d-k", "--d-v",
    "--d-a", "--seed", "--temperature", "--no-scale", "--no-positions", "--backend", "--device",
    "--model", "--layer", "--pair", "--hide-special"};

// Options of the synthetic lab that a pretrained model decides for itself.
const char* const kSyntheticOnly[] = {"--source", "--heads", "--d-model", "--d-k", "--d-v",
                                      "--d-a", "--seed", "--no-positions", "--causal"};

RunSettings parseSettings(const Args& a) {
  for (const char* name : {"--layer", "--pair", "--hide-special"}) {
    if (a.has(name) || a.flag(name))
      throw UsageError{std::string(name) + " applies to a pretrained model; add --model DIR"};
  }
  RunSettings s;
  if (auto v = a.get("--text")) s.text = *v;
  s.source = a.get("--source");
  if (auto v = a.get("--mechanism")) s.spec.mechanism = parseMechanism(*v);
  if (a.flag("--no-scale")) {
    if (s.spec.mechanism != Mechanism::kScaled)
      throw UsageError{"--no-scale applies to the scaled mechanism only"};
    s.spec.mechanism = Mechanism::kDot;
  }
  if (a.flag("--causal")) {
    if (s.source)
      throw UsageError{"--causal applies to self-attention only; drop --causal or --source"};
    s.spec.mask = Mask::kCausal;
  }
  if (auto v = a.get("--heads")) s.spec.heads = static_cast<int>(parseInteger("--heads", *v, 1, 256));
  if (auto v = a.get("--d-model")) s.spec.d_model = static_cast<int>(parseInteger("--d-model", *v, 1, 16384));
  if (auto v = a.get("--d-k")) s.spec.d_k = static_cast<int>(parseInteger("--d-k", *v, 1, 16384));
  if (auto v = a.get("--d-v")) s.spec.d_v = static_cast<int>(parseInteger("--d-v", *v, 1, 16384));
  if (auto v = a.get("--d-a")) s.spec.d_a = static_cast<int>(parseInteger("--d-a", *v, 1, 16384));
  if (auto v = a.get("--seed")) s.seed = static_cast<std::uint64_t>(parseInteger("--seed", *v, 0, (1LL << 53)));
  if (auto v = a.get("--temperature")) {
    const double t = parseNumber("--temperature", *v);
    if (t <= 0) throw UsageError{"--temperature must be > 0 (got " + *v + ")"};
    s.spec.temperature = t;
  }
  s.positions = !a.flag("--no-positions");
  if (auto v = a.get("--backend")) s.backend = *v;
  if (auto v = a.get("--device")) s.device = static_cast<int>(parseInteger("--device", *v, 0, 1023));
  s.spec.validate();
  return s;
}

struct Computed {
  RunSettings settings;
  LabRun run;  ///< run.attention.fallback_reason says why OpenCL was not used, if it was not.
};

Computed compute(const Args& a, std::ostream& err) {
  Computed c{parseSettings(a), {}};
  // The CLI makes one picture: waiting for the OpenCL programs costs less than computing twice.
  BackendChoice choice = selectBackend(c.settings.backend, c.settings.device, BuildMode::kWait);
  const SyntheticModel model(c.settings.spec, c.settings.seed, c.settings.positions);
  c.run = runSynthetic(model, c.settings.spec, c.settings.text, c.settings.source,
                       *choice.backend);
  const std::string& reason = c.run.attention.fallback_reason;
  if (!reason.empty() && c.settings.backend == "opencl")
    err << "attention-lab-cli: note: computed on the CPU: " << reason << "\n";
  return c;
}

// ---- pretrained models (--model DIR) --------------------------------------------------------

struct ModelSettings {
  std::string dir;
  std::string text = kDefaultText;
  std::optional<std::string> pair;
  ModelRunOptions options;  ///< options.layer unset = every layer
  bool hide_special = false;
  std::string backend = "auto";
  int device = 0;
};

struct ModelComputed {
  ModelSettings settings;
  std::unique_ptr<PretrainedModel> model;
  ModelRun run;
};

ModelSettings parseModelSettings(const Args& a) {
  for (const char* name : kSyntheticOnly) {
    if (a.has(name) || a.flag(name))
      throw UsageError{std::string(name) + " does not apply with --model (the model decides it" +
                       (std::string(name) == "--source" ? "; for a BERT sentence pair use --pair)" : ")")};
  }
  ModelSettings s;
  s.dir = *a.get("--model");
  if (auto v = a.get("--text")) s.text = *v;
  s.pair = a.get("--pair");
  if (auto v = a.get("--mechanism")) {
    const Mechanism m = parseMechanism(*v);
    if (m == Mechanism::kAdditive)
      throw UsageError{"--mechanism additive does not apply with --model (its heads are dot-product "
                       "attention); use scaled or dot"};
    s.options.mechanism = m;
  }
  if (a.flag("--no-scale")) {
    if (s.options.mechanism && *s.options.mechanism != Mechanism::kScaled)
      throw UsageError{"--no-scale applies to the scaled mechanism only"};
    s.options.mechanism = Mechanism::kDot;
  }
  if (auto v = a.get("--temperature")) {
    const double t = parseNumber("--temperature", *v);
    if (t <= 0) throw UsageError{"--temperature must be > 0 (got " + *v + ")"};
    s.options.temperature = t;
  }
  if (auto v = a.get("--layer"); v && *v != "all")
    s.options.layer = static_cast<int>(parseInteger("--layer", *v, 0, 1023));
  s.hide_special = a.flag("--hide-special");
  if (auto v = a.get("--backend")) s.backend = *v;
  if (auto v = a.get("--device")) s.device = static_cast<int>(parseInteger("--device", *v, 0, 1023));
  return s;
}

ModelComputed computeModel(const Args& a, std::ostream& err) {
  ModelComputed c;
  c.settings = parseModelSettings(a);
  BackendChoice choice = selectBackend(c.settings.backend, c.settings.device, BuildMode::kWait);
  c.model = PretrainedModel::load(c.settings.dir);
  if (c.settings.options.layer && *c.settings.options.layer >= c.model->config().layers)
    throw UsageError{"--layer " + std::to_string(*c.settings.options.layer) + " does not exist: " +
                     c.model->name() + " has layers 0–" + std::to_string(c.model->config().layers - 1) +
                     " (or use all)"};
  std::optional<std::string_view> pair;
  if (c.settings.pair) pair = *c.settings.pair;
  c.run = c.model->run(c.settings.text, pair, c.settings.options, *choice.backend);
  const std::string& reason = c.run.attention.front().fallback_reason;
  if (!reason.empty() && c.settings.backend == "opencl")
    err << "attention-lab-cli: note: computed on the CPU: " << reason << "\n";
  return c;
}

/// The spec a model run used, for titles and JSON.
AttentionSpec modelSpec(const ModelComputed& c) {
  AttentionSpec spec;
  spec.mechanism = c.run.attention.front().mechanism;
  spec.mask = c.model->config().mask();
  spec.heads = c.model->config().heads;
  spec.d_model = c.model->config().d_model;
  spec.temperature = c.settings.options.temperature;
  return spec;
}

/// The run's layers and labels after the --hide-special display filter.
struct ModelPicture {
  std::vector<AttentionResult> layers;
  QStringList labels;
  bool filtered = false;
};

ModelPicture modelPicture(const ModelComputed& c) {
  ModelPicture p;
  const Encoding& e = c.run.encoding;
  const std::vector<bool> keep = views::specialTokenFilter(e, c.settings.hide_special);
  p.filtered = std::find(keep.begin(), keep.end(), false) != keep.end();
  for (std::size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) p.labels << QString::fromStdString(e.labels[i]);
  for (const AttentionResult& r : c.run.attention)
    p.layers.push_back(p.filtered ? views::keepTokens(r, keep) : r);
  return p;
}

QStringList labels(const std::vector<Token>& tokens) {
  QStringList out;
  for (const Token& t : tokens) out << QString::fromStdString(t.text);
  return out;
}

// ---- output files ----------------------------------------------------------------------------

std::string lowerSuffix(const std::string& path) {
  return QFileInfo(QString::fromStdString(path)).suffix().toLower().toStdString();
}

// Checks the output path before any work: a known suffix and an existing folder.
std::string checkOutput(const Args& a, const std::set<std::string>& formats) {
  const auto out = a.get("--out");
  if (!out) throw UsageError{"--out FILE is required"};
  const std::string suffix = lowerSuffix(*out);
  if (!formats.count(suffix)) {
    std::string list;
    for (const auto& f : formats) list += (list.empty() ? "." : ", .") + f;
    throw UsageError{"--out: unknown format '" + (suffix.empty() ? *out : "." + suffix) +
                     "' (use " + list + ")"};
  }
  const QFileInfo info(QString::fromStdString(*out));
  if (!info.absoluteDir().exists())
    throw UsageError{"--out: the folder " + info.absolutePath().toStdString() +
                     " does not exist"};
  return suffix;
}

views::ImageSize imageSize(const Args& a, views::ImageSize defaults) {
  if (auto v = a.get("--width")) defaults.width = static_cast<int>(parseInteger("--width", *v, 16, 20000));
  if (auto v = a.get("--height")) defaults.height = static_cast<int>(parseInteger("--height", *v, 16, 20000));
  if (auto v = a.get("--scale")) {
    defaults.scale = parseNumber("--scale", *v);
    if (defaults.scale <= 0 || defaults.scale > 8) throw UsageError{"--scale must be in (0, 8]"};
  }
  return defaults;
}

// ---- JSON ------------------------------------------------------------------------------------

nlohmann::json matrixJson(const Tensor3& t, int head) {
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < t.rows; ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int j = 0; j < t.cols; ++j) row.push_back(t(head, i, j));
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json tokensJson(const std::vector<Token>& tokens) {
  nlohmann::json list = nlohmann::json::array();
  for (const Token& t : tokens) list.push_back(t.text);
  return list;
}

/// "heads" (scores, weights, output per head) and "stats" of one result.
void headsJson(const AttentionResult& r, nlohmann::json& j) {
  nlohmann::json heads = nlohmann::json::array();
  nlohmann::json stats = {{"max_weight", nlohmann::json::array()},
                          {"entropy", nlohmann::json::array()},
                          {"normalized_entropy", nlohmann::json::array()},
                          {"effective_keys", nlohmann::json::array()},
                          {"jacobian_norm", nlohmann::json::array()}};
  for (int h = 0; h < r.heads(); ++h) {
    heads.push_back({{"head", h},
                     {"scores", matrixJson(r.scores, h)},
                     {"weights", matrixJson(r.weights, h)},
                     {"output", matrixJson(r.head_outputs, h)}});
    const HeadStats& st = r.stats[h];
    stats["max_weight"].push_back(st.max_weight);
    stats["entropy"].push_back(st.entropy);
    stats["normalized_entropy"].push_back(st.normalized_entropy);
    stats["effective_keys"].push_back(st.effective_keys);
    stats["jacobian_norm"].push_back(st.jacobian_norm);
  }
  j["heads"] = std::move(heads);
  j["stats"] = std::move(stats);
}

nlohmann::json modelJson(const ModelComputed& c) {
  const AttentionResult& first = c.run.attention.front();
  const ModelConfig& config = c.model->config();
  const AttentionSpec spec = modelSpec(c);
  const Encoding& e = c.run.encoding;
  nlohmann::json j;
  j["backend"] = first.backend;
  j["device"] = first.device;
  if (!first.fallback_reason.empty()) j["fallback_reason"] = first.fallback_reason;
  j["model"] = c.model->name();
  j["model_type"] = config.model_type;
  j["mechanism"] = toString(spec.mechanism);
  j["mask"] = toString(spec.mask);
  j["attention"] = "self";
  j["layers_total"] = config.layers;
  j["h"] = config.heads;
  j["d_model"] = config.d_model;
  j["d_k"] = config.dK();
  j["d_v"] = config.dK();
  j["scale"] = first.scale;
  if (spec.temperature) j["temperature"] = *spec.temperature;
  if (c.settings.options.layer) {
    j["layer"] = *c.settings.options.layer;
  } else {
    j["layer"] = "all";
  }
  j["load_ms"] = c.model->loadMs();
  j["compute_ms"] = c.run.compute_ms;
  j["tokens"] = e.labels;
  j["query_tokens"] = e.labels;
  j["key_tokens"] = e.labels;
  j["input_ids"] = e.ids;
  j["token_type_ids"] = e.type_ids;
  nlohmann::json special = nlohmann::json::array();
  for (bool b : e.special) special.push_back(b);
  j["special"] = std::move(special);
  if (c.settings.options.layer) {
    headsJson(first, j);  // one layer: "heads" and "stats" as for the synthetic lab
    return j;
  }
  nlohmann::json layers = nlohmann::json::array();
  for (std::size_t l = 0; l < c.run.attention.size(); ++l) {
    nlohmann::json layer;
    layer["layer"] = c.run.layers[l];
    headsJson(c.run.attention[l], layer);
    layers.push_back(std::move(layer));
  }
  j["layers"] = std::move(layers);
  return j;
}

nlohmann::json resultJson(const Computed& c) {
  const AttentionResult& r = c.run.attention;
  const AttentionSpec& spec = c.settings.spec;
  nlohmann::json j;
  j["backend"] = r.backend;
  j["device"] = r.device;
  if (!r.fallback_reason.empty()) j["fallback_reason"] = r.fallback_reason;
  j["mechanism"] = toString(spec.mechanism);
  j["mask"] = toString(spec.mask);
  j["attention"] = c.run.cross ? "cross" : "self";
  j["h"] = spec.heads;
  j["d_model"] = spec.d_model;
  j["d_k"] = spec.resolvedDk();
  j["d_v"] = spec.resolvedDv();
  if (spec.mechanism == Mechanism::kAdditive) j["d_a"] = spec.resolvedDa();
  j["scale"] = r.scale;
  if (spec.temperature) j["temperature"] = *spec.temperature;
  j["seed"] = c.settings.seed;
  j["positions"] = c.settings.positions;
  j["compute_ms"] = c.run.compute_ms;
  j["query_tokens"] = tokensJson(c.run.query_tokens);
  j["key_tokens"] = tokensJson(c.run.key_tokens);
  headsJson(r, j);
  nlohmann::json output = nlohmann::json::array();
  for (Eigen::Index i = 0; i < c.run.output.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index col = 0; col < c.run.output.cols(); ++col) row.push_back(c.run.output(i, col));
    output.push_back(std::move(row));
  }
  j["output"] = std::move(output);
  return j;
}

// ---- commands ----------------------------------------------------------------------------------

int commandCompute(const Args& a, std::ostream& out, std::ostream& err) {
  allowOnly(a, kSpecOptions);
  if (a.has("--model")) {
    if (a.flag("--hide-special"))
      throw UsageError{"--hide-special is a display filter for render; compute reports every token"};
    out << modelJson(computeModel(a, err)).dump() << "\n";
    return kExitOk;
  }
  const Computed c = compute(a, err);
  out << resultJson(c).dump() << "\n";
  return kExitOk;
}

/// render --model: one layer → a head grid (or one head); every layer → the model view.
int renderModel(const Args& a, const std::string& format, std::ostream& out, std::ostream& err) {
  const std::string head_arg = a.get("--head").value_or("all");
  const std::string values = a.get("--values").value_or("weights");
  const auto layer_arg = a.get("--layer");
  if (head_arg != "all" && (!layer_arg || *layer_arg == "all"))
    throw UsageError{"--head N needs one layer: add --layer L (every layer is --head all)"};
  const ModelComputed c = computeModel(a, err);
  const ModelPicture picture = modelPicture(c);
  const AttentionResult& first = picture.layers.front();
  int head = -1;
  if (head_arg != "all") head = static_cast<int>(parseInteger("--head", head_arg, 0, first.heads() - 1));
  const std::string path = *a.get("--out");
  const auto n = static_cast<int>(picture.labels.size());

  if (format == "csv") {
    std::vector<Token> tokens;
    for (const QString& label : picture.labels) tokens.push_back(Token{label.toStdString()});
    writeLayersCsv(path, picture.layers, c.run.layers, tokens, head);
  } else if (format == "npy") {
    // [layers, h, n, n] (or [layers, n, n] for one head); one layer keeps the synthetic shapes.
    std::vector<float> data;
    for (const AttentionResult& r : picture.layers) {
      const Tensor3& t = values == "scores" ? r.scores : r.weights;
      const auto begin = t.data.begin() + (head < 0 ? 0 : static_cast<std::ptrdiff_t>(head) * n * n);
      data.insert(data.end(), begin, head < 0 ? t.data.end() : begin + n * n);
    }
    std::vector<long long> shape;
    if (picture.layers.size() > 1) shape.push_back(static_cast<long long>(picture.layers.size()));
    if (head < 0) shape.push_back(first.heads());
    shape.insert(shape.end(), {n, n});
    writeNpy(path, shape, data);
  } else {
    QCustomPlot plot;
    QString extra = QString::fromStdString(c.model->name());
    if (picture.filtered) extra += views::viewText(" · special tokens hidden (weights not renormalised)");
    views::ImageSize size;
    if (picture.layers.size() > 1 && head < 0) {
      views::RunLabel label{modelSpec(c), false, extra};
      views::drawModelGrid(plot, picture.layers, c.run.layers, picture.labels, label);
      size = imageSize(a, views::defaultModelGridSize(n, static_cast<int>(picture.layers.size()), first.heads()));
    } else {
      views::RunLabel label{modelSpec(c), false,
                            views::viewText("layer %1").arg(c.run.layers.front()) + QStringLiteral(" · ") + extra};
      if (head < 0) {
        views::drawHeadGrid(plot, first, picture.labels, picture.labels, label);
      } else {
        views::drawHeatmap(plot, first, head, picture.labels, picture.labels, label);
      }
      size = imageSize(a, views::defaultHeatmapSize(n, n, head < 0 ? first.heads() : 1));
    }
    views::exportPlot(plot, QString::fromStdString(path), size);
  }
  out << path << "\n";
  return kExitOk;
}

int commandRender(const Args& a, std::ostream& out, std::ostream& err) {
  std::set<std::string> allowed = kSpecOptions;
  allowed.insert({"--head", "--out", "--width", "--height", "--scale", "--values"});
  allowOnly(a, allowed);
  const std::string format = checkOutput(a, {"png", "svg", "pdf", "csv", "npy"});
  const std::string head_arg = a.get("--head").value_or("all");
  const std::string values = a.get("--values").value_or("weights");
  if (values != "weights" && values != "scores")
    throw UsageError{"--values must be weights or scores (got '" + values + "')"};
  if (a.has("--model")) return renderModel(a, format, out, err);
  const Computed c = compute(a, err);
  const AttentionResult& r = c.run.attention;
  int head = -1;  // all
  if (head_arg != "all") head = static_cast<int>(parseInteger("--head", head_arg, 0, r.heads() - 1));
  const std::string path = *a.get("--out");

  if (format == "csv") {
    writeAttentionCsv(path, r, c.run.query_tokens, c.run.key_tokens, head);
  } else if (format == "npy") {
    const Tensor3& t = values == "scores" ? r.scores : r.weights;
    if (head < 0) {
      writeNpy(path, {t.h, t.rows, t.cols}, t.data);
    } else {
      const auto begin = t.data.begin() + static_cast<std::ptrdiff_t>(head) * t.rows * t.cols;
      writeNpy(path, {t.rows, t.cols}, std::vector<float>(begin, begin + t.rows * t.cols));
    }
  } else {
    QCustomPlot plot;
    views::RunLabel label{c.settings.spec, c.run.cross, {}};
    const QStringList q = labels(c.run.query_tokens), k = labels(c.run.key_tokens);
    if (head < 0) {
      views::drawHeadGrid(plot, r, q, k, label);
    } else {
      views::drawHeatmap(plot, r, head, q, k, label);
    }
    const views::ImageSize size =
        imageSize(a, views::defaultHeatmapSize(r.nQ(), r.nK(), head < 0 ? r.heads() : 1));
    views::exportPlot(plot, QString::fromStdString(path), size);
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

int commandSaturation(const Args& a, std::ostream& out, std::ostream& /*err*/) {
  allowOnly(a, {"--d-k", "--no-scale", "--out", "--keys", "--samples", "--seed", "--mark",
                "--text", "--source", "--heads", "--d-model", "--causal", "--no-positions",
                "--width", "--height", "--scale"});
  const std::string format = checkOutput(a, {"png", "svg", "pdf", "csv"});
  SaturationConfig config;
  if (auto v = a.get("--d-k")) config.d_k = parseIntList("--d-k", *v);
  if (auto v = a.get("--keys")) config.n_k = static_cast<int>(parseInteger("--keys", *v, 1, 65536));
  if (auto v = a.get("--samples")) config.samples = static_cast<int>(parseInteger("--samples", *v, 2, 1000000));
  if (auto v = a.get("--seed")) config.seed = static_cast<std::uint64_t>(parseInteger("--seed", *v, 0, (1LL << 53)));
  // The marked d_k defaults to the one render would use (d_model / heads, or --d-k's first value
  // when it names one), so the plot describes the same setting as the heatmaps.
  Args spec_args = a;
  spec_args.values.erase("--d-k");
  const RunSettings settings = parseSettings(spec_args);
  int mark = config.d_k.size() == 1 ? config.d_k.front() : settings.spec.resolvedDk();
  if (auto v = a.get("--mark")) mark = static_cast<int>(parseInteger("--mark", *v, 1, 16384));
  std::optional<SaturationAnalysis> sentence;
  if (a.has("--text")) {
    // --d-k here is the list, so the sentence's own settings were parsed without it.
    const RunSettings& s = settings;
    sentence = saturationOfSentence(s.spec, s.seed, s.positions, s.text, s.source, config.d_k);
    config.n_k = sentence->n_k;  // compare like with like: as many keys as the sentence has
  }
  const SaturationAnalysis model = saturationMonteCarlo(config);
  const std::string path = *a.get("--out");
  if (format == "csv") {
    writeSaturationCsv(path, model, sentence);
  } else {
    QCustomPlot plot;
    views::drawSaturation(plot, model, sentence, mark, !a.flag("--no-scale"));
    views::exportPlot(plot, QString::fromStdString(path), imageSize(a, {900, 600, 1.0}));
  }
  out << path << "\n";
  return kExitOk;
}

int commandInfo(const Args& a, std::ostream& out) {
  allowOnly(a, {});
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
  return kExitOk;
}

}  // namespace

std::string usage() {
  return R"(attention-lab-cli — compute and export attention from the command line

  attention-lab-cli compute [options]                 JSON on stdout
  attention-lab-cli render  [options] --out FILE      .png .svg .pdf .csv .npy
  attention-lab-cli saturation [--d-k LIST] [--no-scale] --out FILE   .png .svg .pdf .csv
  attention-lab-cli info                              backends and devices

options for compute and render:
  --text TEXT            the sentence (default: "The cat sat on the mat because it was tired.")
  --source TEXT          cross-attention: queries from --text, keys and values from TEXT
  --mechanism M          additive | dot | scaled (default scaled)
  --no-scale             scaled without the 1/sqrt(d_k) factor (same as --mechanism dot)
  --temperature T        divide scores by T instead of the mechanism's scale
  --causal               causal mask: query i sees keys j <= i (self-attention only)
  --heads H              number of heads (default 8)
  --d-model D            embedding width (default 64)
  --d-k K                query/key width per head (default d_model / heads)
  --d-v V                value width per head (default d_k)
  --d-a A                additive attention's hidden size (default d_k)
  --seed S               seed of the synthetic embeddings and weights (default 0)
  --no-positions         leave out the sinusoidal position encoding
  --backend B            auto | cpu | opencl (default auto)   --device N   OpenCL device index
pretrained models (HuggingFace folders: BERT family, GPT-2):
  --model DIR            run the model's real forward pass (scripts/fetch-model gets all-MiniLM-L6-v2)
  --layer L|all          the layer to show, 0-based (default all: render draws layers x heads)
  --pair TEXT            BERT sentence pair: [CLS] text [SEP] pair [SEP]
  --hide-special         render: leave out [CLS], [SEP] ... rows and columns (not renormalised)
  (with --model: --mechanism scaled|dot, --no-scale and --temperature still apply; --heads,
   --d-model, --d-k, --seed, --causal and --source do not)
render:
  --head N|all           one head or every head in a grid (default all)
  --out FILE             output file; the suffix picks the format
  --width PX --height PX image size (default fits the tokens)   --scale F   pixel ratio for PNG
  --values weights|scores  what .npy holds (default weights)
saturation:
  --d-k LIST             d_k values, e.g. 1,2,4,...,1024 (default)
  --keys N               keys per softmax row (default 16; the sentence's count with --text)
  --samples N            Monte-Carlo rows per d_k (default 2000)   --seed S
  --mark K               the d_k to mark (default: d_model / heads, as render uses)
  --no-scale             mark the unscaled curves
  --text TEXT            add the sentence's own points (with --heads, --d-model, --causal ...)
exit status: 0 success, 2 bad arguments or input (one line on stderr), 1 internal error
)";
}

int run(const std::vector<std::string>& raw, std::ostream& out, std::ostream& err) {
  try {
    const Args a = parseArgs(raw);
    if (a.flag("--help") || a.command == "help") {
      out << usage();
      return kExitOk;
    }
    if (a.command == "compute") return commandCompute(a, out, err);
    if (a.command == "render") return commandRender(a, out, err);
    if (a.command == "saturation") return commandSaturation(a, out, err);
    if (a.command == "info") return commandInfo(a, out);
    throw UsageError{a.command.empty()
                         ? "no command given (use compute, render, saturation or info; see --help)"
                         : "unknown command '" + a.command +
                               "' (use compute, render, saturation or info)"};
  } catch (const UsageError& e) {
    err << "attention-lab-cli: " << e.message << "\n";
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
        return kExitInternal;
    }
    return kExitInternal;
  } catch (const std::exception& e) {
    err << "attention-lab-cli: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace attnlab::cli
