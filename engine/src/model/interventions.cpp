// Interventions on a pretrained model's pass and readings of its residual stream
// (interventions.hpp): the hook every layer's attention consults (intervention_hook.hpp), the
// checks of a pass's interventions, head ablation, patching, the logit lens, direct logit
// attribution, the next tokens' losses and value-weighted attention.

#include "attnlab/interventions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "attnlab/error.hpp"
#include "attnlab/pretrained.hpp"
#include "model/intervention_hook.hpp"

namespace attnlab {
namespace {

thread_local const interventions::PassHook* t_hook = nullptr;

[[noreturn]] void refuse(const std::string& message) {
  throw Error(ErrorCode::kInvalidArgument, message);
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

/// A whole non-negative decimal number, or nullopt.
std::optional<int> wholeNumber(const std::string& s) {
  if (s.empty() || s.size() > 6) return std::nullopt;
  int v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return std::nullopt;
    v = v * 10 + (ch - '0');
  }
  return v;
}

void checkHead(const HeadRef& h, const ModelConfig& c, const std::string& model_name,
               const std::string& option) {
  if (h.layer >= c.layers) {
    refuse(option + ": layer " + std::to_string(h.layer) + " does not exist: " + model_name +
           " has layers 0–" + std::to_string(c.layers - 1));
  }
  if (h.head >= c.heads) {
    refuse(option + ": head " + std::to_string(h.head) + " does not exist: " + model_name +
           " has heads 0–" + std::to_string(c.heads - 1));
  }
}

/// ln Σ exp(z) of a row of logits, in double.
double logSumExp(const float* z, Eigen::Index n) {
  float m = -std::numeric_limits<float>::infinity();
  for (Eigen::Index j = 0; j < n; ++j) m = std::max(m, z[j]);
  double sum = 0;
  for (Eigen::Index j = 0; j < n; ++j) sum += std::exp(static_cast<double>(z[j]) - m);
  return static_cast<double>(m) + std::log(sum);
}

/// Rows of final hidden states are decoded this many at a time ([rows, vocab] floats at once).
constexpr Eigen::Index kDecodeRows = 32;

/// Layer l's head outputs at one position as h rows [h, h·d_k], row i holding head i's d_k
/// columns and zeros elsewhere: through W_O each row is that head's part of the output.
Matrix perHeadRows(const Eigen::Ref<const Eigen::RowVectorXf>& context_row, int heads, int d) {
  Matrix m = Matrix::Zero(heads, static_cast<Eigen::Index>(heads) * d);
  for (int i = 0; i < heads; ++i) {
    const Eigen::Index c0 = static_cast<Eigen::Index>(i) * d;
    m.block(i, c0, 1, d) = context_row.segment(c0, d);
  }
  return m;
}

/// The logit difference (or logit) a patching run is measured by.
double logitMetric(const ModelRun& run, int target, std::optional<int> versus) {
  const double t = run.logits[target];
  return versus ? t - run.logits[*versus] : t;
}

}  // namespace

// --- Names and parsing ----------------------------------------------------------------------

std::string toString(const HeadRef& head) {
  return std::to_string(head.layer) + "." + std::to_string(head.head);
}

std::vector<HeadRef> parseHeads(std::string_view text, const std::string& option) {
  std::vector<HeadRef> heads;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item =
        trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                 : comma - start));
    const std::size_t dot = item.find('.');
    const auto layer = dot == std::string::npos ? std::nullopt : wholeNumber(item.substr(0, dot));
    const auto head = dot == std::string::npos ? std::nullopt : wholeNumber(item.substr(dot + 1));
    if (!layer || !head) refuse(option + ": \"" + item + "\" is not LAYER.HEAD (e.g. 3.7)");
    const HeadRef ref{*layer, *head};
    if (std::find(heads.begin(), heads.end(), ref) == heads.end()) heads.push_back(ref);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return heads;
}

std::vector<HeadRef> parseHeads(std::string_view text, const ModelConfig& config,
                                const std::string& model_name, const std::string& option) {
  std::vector<HeadRef> heads = parseHeads(text, option);
  for (const HeadRef& h : heads) checkHead(h, config, model_name, option);
  return heads;
}

std::string toString(AblationMode mode) {
  switch (mode) {
    case AblationMode::kZero:
      return "zero";
    case AblationMode::kMean:
      return "mean";
    case AblationMode::kUniform:
      return "uniform";
  }
  return "zero";
}

AblationMode parseAblationMode(std::string_view text) {
  if (text == "zero") return AblationMode::kZero;
  if (text == "mean") return AblationMode::kMean;
  if (text == "uniform") return AblationMode::kUniform;
  refuse("--ablation: \"" + std::string(text) + "\" is not one of zero, mean, uniform");
}

int singleToken(const PretrainedModel& model, std::string_view text, const std::string& option) {
  if (text.empty()) refuse(option + ": give a token (e.g. \" Paris\", with its leading space)");
  const Encoding e = model.tokenizer().encode(text);
  std::vector<int> ids;
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < e.ids.size(); ++i) {
    if (e.special[i]) continue;
    ids.push_back(e.ids[i]);
    labels.push_back(model.tokenizer().tokenLabel(e.ids[i]));
  }
  if (ids.size() != 1) {
    std::string pieces;
    for (const std::string& l : labels) pieces += (pieces.empty() ? "" : " · ") + l;
    refuse(option + ": \"" + std::string(text) + "\" is " + std::to_string(ids.size()) +
           " tokens for " + model.name() + (pieces.empty() ? "" : " (" + pieces + ")") +
           "; give one token");
  }
  return ids.front();
}

// --- The pass's hook ------------------------------------------------------------------------

namespace interventions {

const PassHook* activeHook() { return t_hook; }

HookScope::HookScope(const PassHook* hook) : previous_(t_hook) { t_hook = hook; }
HookScope::~HookScope() { t_hook = previous_; }

bool PassHook::active() const {
  const ModelRunOptions& o = *options;
  return !o.ablation.empty() || !o.patch.heads.empty() || o.keep_context || o.keep_value_norms;
}

void PassHook::apply(Matrix& context, const AttentionInputs& inputs, const AttentionSpec& spec,
                     AttentionResult* attention) const {
  (void)spec;
  const ModelRunOptions& o = *options;
  const int d = attention->head_outputs.cols;
  const auto n = static_cast<int>(context.rows());
  const int heads = attention->head_outputs.h;
  // Writes head `i`'s new output (context columns) back into the result's head outputs too.
  const auto sync = [&](int i) {
    attention->head_outputs.head(i) = context.middleCols(static_cast<Eigen::Index>(i) * d, d);
  };
  for (const HeadRef& a : o.ablation.heads) {
    if (a.layer != layer) continue;
    auto cols = context.middleCols(static_cast<Eigen::Index>(a.head) * d, d);
    switch (o.ablation.mode) {
      case AblationMode::kZero:
        cols.setZero();
        break;
      case AblationMode::kMean: {
        const Eigen::RowVectorXf mean = cols.colwise().mean();
        cols.rowwise() = mean;
        break;
      }
      case AblationMode::kUniform: {
        // Uniform weights over the keys the head may see; its output the mean of their values.
        const MaskPattern pattern = attention->pattern();
        const int g = kvHeadOf(a.head, heads, inputs.v.h);
        const auto values = inputs.v.head(g);
        const int n_k = attention->weights.cols;
        HeadStats& stats = attention->stats[static_cast<std::size_t>(a.head)];
        for (int q = 0; q < n; ++q) {
          float* w = attention->weights.row(a.head, q);
          const int visible = pattern.visibleCount(q, n_k);
          Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(d);
          for (int j = 0; j < n_k; ++j) {
            const bool seen = pattern.visible(q, j);
            w[j] = seen ? 1.0f / static_cast<float>(visible) : 0.0f;
            if (seen) sum += values.row(j).cast<double>();
          }
          if (visible > 0) sum /= visible;
          cols.row(q) = sum.cast<float>();
          const RowStats r = rowStats(w, n_k, visible);
          const auto qi = static_cast<std::size_t>(q);
          stats.max_weight[qi] = static_cast<float>(r.max_weight);
          stats.entropy[qi] = static_cast<float>(r.entropy);
          stats.normalized_entropy[qi] = static_cast<float>(r.normalized_entropy);
          stats.effective_keys[qi] = static_cast<float>(r.effective_keys);
          stats.jacobian_norm[qi] = static_cast<float>(r.jacobian_norm);
        }
        break;
      }
    }
    sync(a.head);
  }
  for (const HeadRef& p : o.patch.heads) {
    if (p.layer != layer) continue;
    const Eigen::Index c0 = static_cast<Eigen::Index>(p.head) * d;
    context.middleCols(c0, d) = (*o.patch.context)[static_cast<std::size_t>(layer)].middleCols(c0, d);
    sync(p.head);
  }
  if (o.keep_context) run->context[static_cast<std::size_t>(layer)] = context;
  if (o.keep_value_norms) {
    // ‖v_j W_O^h‖: every head's value rows placed in its own columns, through W_O at once.
    Matrix rows = Matrix::Zero(static_cast<Eigen::Index>(heads) * inputs.v.rows, context.cols());
    for (int i = 0; i < heads; ++i) {
      const int g = kvHeadOf(i, heads, inputs.v.h);
      rows.block(static_cast<Eigen::Index>(i) * inputs.v.rows, static_cast<Eigen::Index>(i) * d,
                 inputs.v.rows, d) = inputs.v.head(g);
    }
    const Matrix out = model->outputProjection(layer, rows);
    Matrix norms(heads, inputs.v.rows);
    for (int i = 0; i < heads; ++i)
      for (int j = 0; j < inputs.v.rows; ++j)
        norms(i, j) = out.row(static_cast<Eigen::Index>(i) * inputs.v.rows + j).norm();
    run->value_norms[static_cast<std::size_t>(layer)] = std::move(norms);
  }
}

}  // namespace interventions

// --- PretrainedModel's pieces for the interventions ----------------------------------------

void PretrainedModel::checkInterventions(const ModelRunOptions& options, int n) const {
  const ModelConfig& c = config_;
  for (const HeadRef& h : options.ablation.heads) checkHead(h, c, name_, "--ablate");
  const Patch& p = options.patch;
  if (!p.heads.empty()) {
    for (const HeadRef& h : p.heads) checkHead(h, c, name_, "patch");
    if (!p.context || p.context->size() != static_cast<std::size_t>(c.layers)) {
      refuse("patch: the source run kept no head outputs");
    }
    for (const HeadRef& h : p.heads) {
      const Matrix& src = (*p.context)[static_cast<std::size_t>(h.layer)];
      if (src.rows() != n || src.cols() != static_cast<Eigen::Index>(c.heads) * c.dK()) {
        refuse("the two prompts must have the same number of tokens (" + std::to_string(n) +
               " and " + std::to_string(src.rows()) + ")");
      }
    }
  }
  for (const auto& [layer, position] : p.positions) {
    if (layer < 0 || layer >= c.layers || position < 0 || position >= n) {
      refuse("patch: layer " + std::to_string(layer) + ", position " + std::to_string(position) +
             " does not exist");
    }
    if (!p.residual || p.residual->size() <= static_cast<std::size_t>(layer) + 1 ||
        (*p.residual)[static_cast<std::size_t>(layer) + 1].rows() != n) {
      refuse("patch: the source run kept no residual stream of " + std::to_string(n) + " tokens");
    }
  }
  if (options.resume) {
    const Resume& r = *options.resume;
    if (r.layer < 0 || r.layer > c.layers || r.hidden.rows() != n || r.hidden.cols() != c.d_model) {
      refuse("resume: hidden states [" + std::to_string(r.hidden.rows()) + ", " +
             std::to_string(r.hidden.cols()) + "] at layer " + std::to_string(r.layer) +
             " do not fit " + std::to_string(n) + " tokens of " + name_);
    }
  }
}

Matrix PretrainedModel::outputProjection(int /*l*/, const Matrix& /*rows*/) const {
  refuse(name_ + ": the output projection of its heads is not available");
}

PretrainedModel::FrozenNorm PretrainedModel::frozenFinalNorm(const Matrix& /*row*/) const {
  refuse(name_ + " is " + config_.model_type + ", an encoder: it has no output layer");
}

Vector PretrainedModel::unembedding(int /*token*/) const {
  refuse(name_ + " is " + config_.model_type + ", an encoder: it has no output layer");
}

Matrix PretrainedModel::logitsOfRows(const Matrix& /*hidden*/) const {
  refuse(name_ + " is " + config_.model_type + ", an encoder: it has no output layer");
}

// --- Readings -------------------------------------------------------------------------------

std::vector<double> tokenLosses(const PretrainedModel& model, const Matrix& hidden,
                                const std::vector<int>& ids) {
  std::vector<double> loss;
  if (!model.predictsTokens() || hidden.rows() < 2) return loss;
  const Eigen::Index n = hidden.rows() - 1;  // the last position has no next token here
  for (Eigen::Index r0 = 0; r0 < n; r0 += kDecodeRows) {
    const Eigen::Index m = std::min(kDecodeRows, n - r0);
    const Matrix z = model.logitsOfRows(hidden.middleRows(r0, m));
    for (Eigen::Index i = 0; i < m; ++i) {
      const int next = ids[static_cast<std::size_t>(r0 + i + 1)];
      loss.push_back(logSumExp(z.row(i).data(), z.cols()) - static_cast<double>(z(i, next)));
    }
  }
  return loss;
}

LogitLens logitLens(const PretrainedModel& model, const ModelRun& run) {
  const ModelConfig& c = model.config();
  if (!model.predictsTokens()) model.frozenFinalNorm(Matrix());  // throws: no output layer
  if (run.residual.size() != static_cast<std::size_t>(c.layers) + 1 || run.residual[0].size() == 0) {
    refuse("the logit lens needs every layer's residual stream (a whole pass)");
  }
  const Eigen::Index n = run.residual.back().rows();
  LogitLens lens;
  lens.cells.assign(static_cast<std::size_t>(c.layers), std::vector<LensCell>(n));
  // The model's own prediction at each position: the last layer's top token.
  std::vector<std::vector<float>> final_logit(static_cast<std::size_t>(n));
  for (int l = c.layers - 1; l >= 0; --l) {
    const Matrix& hidden = run.residual[static_cast<std::size_t>(l) + 1];
    for (Eigen::Index r0 = 0; r0 < n; r0 += kDecodeRows) {
      const Eigen::Index m = std::min(kDecodeRows, n - r0);
      const Matrix z = model.logitsOfRows(hidden.middleRows(r0, m));
      for (Eigen::Index i = 0; i < m; ++i) {
        const auto p = static_cast<std::size_t>(r0 + i);
        const float* row = z.row(i).data();
        const Eigen::Index vocab = z.cols();
        const double lse = logSumExp(row, vocab);
        Eigen::Index top = 0;
        for (Eigen::Index j = 1; j < vocab; ++j)
          if (row[j] > row[top]) top = j;
        if (l == c.layers - 1) {
          lens.final_ids.resize(static_cast<std::size_t>(n));
          lens.final_labels.resize(static_cast<std::size_t>(n));
          lens.final_ids[p] = static_cast<int>(top);
          lens.final_labels[p] = model.tokenizer().tokenLabel(static_cast<int>(top));
        }
        const int fin = lens.final_ids[p];
        int rank = 0;
        for (Eigen::Index j = 0; j < vocab; ++j)
          if (row[j] > row[fin] || (row[j] == row[fin] && j < fin)) ++rank;
        LensCell& cell = lens.cells[static_cast<std::size_t>(l)][p];
        cell.top_id = static_cast<int>(top);
        cell.top_label = model.tokenizer().tokenLabel(cell.top_id);
        cell.top_probability = std::exp(static_cast<double>(row[top]) - lse);
        cell.final_rank = rank;
        cell.final_probability = std::exp(static_cast<double>(row[fin]) - lse);
      }
    }
  }
  return lens;
}

LogitAttribution directLogitAttribution(const PretrainedModel& model, const ModelRun& run,
                                        int target, std::optional<int> versus) {
  const ModelConfig& c = model.config();
  if (!model.predictsTokens()) model.frozenFinalNorm(Matrix());  // throws: no output layer
  const auto layers = static_cast<std::size_t>(c.layers);
  if (run.residual.size() != layers + 1 || run.residual[0].size() == 0 ||
      run.context.size() != layers) {
    refuse("direct logit attribution needs every layer's residual stream and head outputs");
  }
  for (int t : {target, versus.value_or(target)}) {
    if (t < 0 || t >= c.vocab_size) refuse("token id " + std::to_string(t) + " is not in the vocabulary");
  }
  const Eigen::Index last = run.residual.back().rows() - 1;
  const int h = c.heads, d = c.dK();
  LogitAttribution out;
  out.target = target;
  out.versus = versus;
  out.target_label = model.tokenizer().tokenLabel(target);
  if (versus) out.versus_label = model.tokenizer().tokenLabel(*versus);
  Vector direction = model.unembedding(target);
  if (versus) direction -= model.unembedding(*versus);
  const Matrix final_row = run.residual.back().row(last);
  const PretrainedModel::FrozenNorm norm = model.frozenFinalNorm(final_row);
  // A residual-stream part p [d_model] through the frozen final norm onto the direction.
  const auto project = [&](const Eigen::RowVectorXf& p) {
    double s = 0;
    const double mean = norm.centre ? p.cast<double>().mean() : 0.0;
    for (Eigen::Index k = 0; k < p.size(); ++k)
      s += (static_cast<double>(p[k]) - mean) * norm.scale[k] * direction[k];
    return s;
  };
  out.heads = Matrix::Zero(c.layers, h);
  out.mlp.assign(layers, 0.0);
  out.attention_bias.assign(layers, 0.0);
  out.embedding = project(run.residual[0].row(last));
  double total = out.embedding;
  for (int l = 0; l < c.layers; ++l) {
    const auto li = static_cast<std::size_t>(l);
    Matrix parts = model.outputProjection(l, perHeadRows(run.context[li].row(last), h, d));
    Eigen::RowVectorXf attention_total = parts.colwise().sum();
    const Vector bias = model.outputBias(l);
    Eigen::RowVectorXf bias_row = Eigen::RowVectorXf::Zero(c.d_model);
    if (bias.size() == c.d_model) bias_row = bias.transpose();
    const Vector scale = model.attentionOutputScale(l, Matrix(attention_total + bias_row));
    if (scale.size() == c.d_model) {
      for (Eigen::Index r = 0; r < parts.rows(); ++r) parts.row(r).array() *= scale.transpose().array();
      bias_row.array() *= scale.transpose().array();
    }
    Eigen::RowVectorXf attention_sum = bias_row;
    for (int i = 0; i < h; ++i) {
      out.heads(l, i) = static_cast<float>(project(parts.row(i)));
      total += out.heads(l, i);
      attention_sum += parts.row(i);
    }
    out.attention_bias[li] = project(bias_row);
    total += out.attention_bias[li];
    // The feed-forward block's part: what the layer added that its attention did not.
    const Eigen::RowVectorXf mlp = run.residual[li + 1].row(last) - run.residual[li].row(last) - attention_sum;
    out.mlp[li] = project(mlp);
    total += out.mlp[li];
  }
  for (Eigen::Index k = 0; k < norm.bias.size(); ++k)
    out.norm_bias += static_cast<double>(norm.bias[k]) * direction[k];
  out.total = total + out.norm_bias;
  // The model's own logit (difference): the final norm at its own scale, then the direction.
  double logit = out.norm_bias;
  const double mean = norm.centre ? final_row.cast<double>().mean() : 0.0;
  for (Eigen::Index k = 0; k < final_row.cols(); ++k)
    logit += (static_cast<double>(final_row(0, k)) - mean) * norm.scale[k] * direction[k];
  out.logit = logit;
  return out;
}

Tensor3 valueWeighted(const Tensor3& weights, const Matrix& value_norms) {
  Tensor3 out(weights.h, weights.rows, weights.cols);
  for (int i = 0; i < weights.h; ++i) {
    for (int q = 0; q < weights.rows; ++q) {
      const float* w = weights.row(i, q);
      float* o = out.row(i, q);
      double sum = 0;
      for (int j = 0; j < weights.cols; ++j) sum += static_cast<double>(w[j]) * value_norms(i, j);
      for (int j = 0; j < weights.cols; ++j)
        o[j] = sum > 0 ? static_cast<float>(static_cast<double>(w[j]) * value_norms(i, j) / sum) : 0.0f;
    }
  }
  return out;
}

PatchingResult patchActivations(const PretrainedModel& model, const Encoding& clean,
                                const Encoding& corrupted, std::optional<int> target,
                                std::optional<int> versus, const ModelRunOptions& options,
                                Backend& backend, const std::function<bool(int, int)>& progress) {
  const ModelConfig& c = model.config();
  if (!model.predictsTokens()) model.frozenFinalNorm(Matrix());  // throws: no output layer
  const auto n = static_cast<int>(clean.ids.size());
  if (corrupted.ids.size() != clean.ids.size()) {
    refuse("the two prompts must have the same number of tokens (" + std::to_string(n) + " and " +
           std::to_string(corrupted.ids.size()) + ")");
  }
  ModelRunOptions base = options;
  base.layer = c.layers - 1;  // keep one layer's attention: the passes are about the logits
  base.overview_block = 0;
  base.next_tokens = std::max(base.next_tokens, 1);
  base.progress = {};
  base.ablation = {};
  base.patch = {};
  base.resume = nullptr;
  base.token_loss = false;
  base.keep_value_norms = false;
  ModelRunOptions keep = base;
  keep.keep_residual = true;
  keep.keep_context = true;
  const ModelRun clean_run = model.runIds(clean, keep, backend);
  const ModelRun corrupt_run = model.runIds(corrupted, keep, backend);
  PatchingResult result;
  result.target = target.value_or(clean_run.next_tokens.front().id);
  if (!versus && corrupt_run.next_tokens.front().id != result.target)
    versus = corrupt_run.next_tokens.front().id;
  result.versus = versus;
  result.target_label = model.tokenizer().tokenLabel(result.target);
  if (versus) result.versus_label = model.tokenizer().tokenLabel(*versus);
  result.clean = logitMetric(clean_run, result.target, versus);
  result.corrupted = logitMetric(corrupt_run, result.target, versus);
  const double span = result.clean - result.corrupted;
  const auto recovered = [&](const ModelRun& r) {
    const double m = logitMetric(r, result.target, versus);
    return static_cast<float>(span != 0 ? (m - result.corrupted) / span
                                        : std::numeric_limits<double>::quiet_NaN());
  };
  const int total = c.layers * c.heads + c.layers * n;
  int done = 0;
  const auto step = [&] {
    ++done;
    if (progress && !progress(done, total)) {
      throw Error(ErrorCode::kCancelled, "activation patching was cancelled");
    }
  };
  auto clean_context = std::make_shared<const std::vector<Matrix>>(clean_run.context);
  result.heads = Matrix::Zero(c.layers, c.heads);
  for (int l = 0; l < c.layers; ++l) {
    ModelRunOptions o = base;
    o.resume = std::make_shared<const Resume>(
        Resume{l, corrupt_run.residual[static_cast<std::size_t>(l)]});
    o.patch.context = clean_context;
    for (int i = 0; i < c.heads; ++i) {
      o.patch.heads = {HeadRef{l, i}};
      result.heads(l, i) = recovered(model.runIds(corrupted, o, backend));
      step();
    }
  }
  result.residual = Matrix::Zero(c.layers, n);
  for (int l = 0; l < c.layers; ++l) {
    for (int p = 0; p < n; ++p) {
      Matrix hidden = corrupt_run.residual[static_cast<std::size_t>(l) + 1];
      hidden.row(p) = clean_run.residual[static_cast<std::size_t>(l) + 1].row(p);
      ModelRunOptions o = base;
      o.resume = std::make_shared<const Resume>(Resume{l + 1, std::move(hidden)});
      result.residual(l, p) = recovered(model.runIds(corrupted, o, backend));
      step();
    }
  }
  return result;
}

}  // namespace attnlab
