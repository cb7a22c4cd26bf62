// Generation and token-by-token scoring through a real model's KV cache (generate.hpp): the
// model's own layers (PretrainedModel::layerAt) with their attention over kvcache::KvCache.

#include "attnlab/generate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>

#include "attnlab/error.hpp"
#include "attnlab/memory.hpp"
#include "model/weight_matrix.hpp"
#include "model/kv_cache.hpp"

namespace attnlab {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// The checks generate() and scoreText() share; returns the attention settings.
AttentionSpec checkRun(const PretrainedModel& model, const Encoding& tokens,
                       const CachePolicy& cache, const ModelRunOptions& run, const char* what) {
  const ModelConfig& c = model.config();
  if (!model.isDecoder()) {
    throw Error(ErrorCode::kInvalidArgument,
                model.name() + " is " + c.model_type + ", an encoder: it does not generate");
  }
  if (cache.window < 0) throw Error(ErrorCode::kInvalidArgument, "the cache window must be ≥ 0");
  if (cache.sinks < 0) throw Error(ErrorCode::kInvalidArgument, "the sink tokens must be ≥ 0");
  if (cache.sinks > 0 && cache.window == 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "sink tokens need a cache window (--cache-window): the full cache keeps every "
                "token anyway");
  }
  const auto n = static_cast<int>(tokens.ids.size());
  if (n == 0) throw Error(ErrorCode::kInvalidInput, std::string(what) + " gives no tokens");
  const int limit = c.agreed_positions > 0 ? std::min(c.agreed_positions, c.max_positions)
                                           : c.max_positions;
  if (n > limit) {
    throw Error(ErrorCode::kInvalidInput, std::string(what) + " is " + std::to_string(n) +
                                              " tokens; " + model.name() + " reads at most " +
                                              std::to_string(limit));
  }
  for (int id : tokens.ids) {
    if (id < 0 || id >= c.vocab_size) {
      throw Error(ErrorCode::kInvalidInput, "token id " + std::to_string(id) +
                                                " is outside the vocabulary of " +
                                                std::to_string(c.vocab_size));
    }
  }
  if (run.mechanism == Mechanism::kLinear) {
    throw Error(ErrorCode::kInvalidArgument,
                "generation runs the model's softmax attention (scaled or dot), not linear");
  }
  return model.attentionSpec(run);
}

/// The positions a run may reach: the context, or the agreed length of a Qwen2 config.json.
int contextOf(const ModelConfig& c) {
  return c.agreed_positions > 0 ? std::min(c.agreed_positions, c.max_positions) : c.max_positions;
}

/// A generation's head ablation (interventions.hpp) step by step: zero sets the heads' outputs
/// to 0; mean puts in each head's output averaged over the prompt's positions (kept from the
/// prompt's step); uniform is the cache's (KvCache::setUniform).
struct StepAblation {
  Ablation ablation;
  std::map<std::pair<int, int>, Eigen::RowVectorXf> means;  ///< (layer, head) → [d_k]
  /// Applies the ablation to layer l's head outputs [m, h·d_k] of the tokens just read.
  void apply(int l, Matrix& context, int d, bool prompt) {
    for (const HeadRef& a : ablation.heads) {
      if (a.layer != l) continue;
      auto cols = context.middleCols(static_cast<Eigen::Index>(a.head) * d, d);
      if (ablation.mode == AblationMode::kZero) cols.setZero();
      if (ablation.mode == AblationMode::kMean) {
        if (prompt) means[{a.layer, a.head}] = cols.colwise().mean();
        cols.rowwise() = means[{a.layer, a.head}];
      }
    }
  }
};

/// Runs tokens `ids` at positions first … through every layer over the cache; with `rows`, the
/// weights of every layer (or of `layer` alone) land there, one Tensor3 [h, m, cache] each.
Matrix forward(const PretrainedModel& model, kvcache::KvCache& cache, const std::vector<int>& ids,
               int first, std::optional<int> layer, std::vector<Tensor3>* rows,
               StepAblation* ablation = nullptr) {
  cache.begin(first, static_cast<int>(ids.size()));
  Matrix x = model.embedAt(ids, first);
  const int layers = model.config().layers;
  if (rows != nullptr) rows->clear();
  for (int l = 0; l < layers; ++l) {
    const bool kept = rows != nullptr && (!layer || *layer == l);
    x = model.layerAt(l, x, first, [&](int ll, const Matrix& qkv) {
      Tensor3 w;
      Matrix context = cache.attend(ll, qkv, kept ? &w : nullptr);
      if (ablation != nullptr) ablation->apply(ll, context, model.config().dK(), first == 0);
      if (kept) rows->push_back(std::move(w));
      return context;
    });
  }
  return x;
}

/// The probability and logit of token id under softmax(z), with its labels.
NextToken tokenOf(const Eigen::VectorXf& z, int id, const ModelTokenizer& tok) {
  const double m = z.maxCoeff();
  double sum = 0;
  for (Eigen::Index i = 0; i < z.size(); ++i) sum += std::exp(static_cast<double>(z[i]) - m);
  NextToken t;
  t.id = id;
  t.label = tok.tokenLabel(id);
  if (t.label.empty()) t.label.append("#").append(std::to_string(id));
  t.bytes = tok.tokenBytes(id);
  t.logit = z[id];
  t.probability = std::exp(t.logit - m) / sum;
  return t;
}

/// Draws from softmax(z/τ) restricted to the k most probable (all when k is 0), with the
/// engine's own uniform draw (53 bits of the generator: the same on every platform).
int sample(const Eigen::VectorXf& z, double tau, int k, std::mt19937_64& rng) {
  std::vector<int> order(static_cast<std::size_t>(z.size()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  const int top = k > 0 ? std::min<int>(k, static_cast<int>(z.size())) : static_cast<int>(z.size());
  std::partial_sort(order.begin(), order.begin() + top, order.end(),
                    [&](int a, int b) { return z[a] != z[b] ? z[a] > z[b] : a < b; });
  const double m = z[order[0]];
  std::vector<double> cum(static_cast<std::size_t>(top));
  double sum = 0;
  for (int r = 0; r < top; ++r) {
    sum += std::exp((static_cast<double>(z[order[static_cast<std::size_t>(r)]]) - m) / tau);
    cum[static_cast<std::size_t>(r)] = sum;
  }
  const double u = static_cast<double>(rng() >> 11) * 0x1p-53 * sum;
  const auto it = std::upper_bound(cum.begin(), cum.end(), u);
  return order[static_cast<std::size_t>(std::min<std::ptrdiff_t>(it - cum.begin(), top - 1))];
}

}  // namespace

std::string CachePolicy::describe() const {
  if (window <= 0) return "full";
  std::string s = "window " + std::to_string(window);
  if (sinks > 0) s += " + " + std::to_string(sinks) + (sinks == 1 ? " sink" : " sinks");
  return s;
}

Generation generate(const PretrainedModel& model, const Encoding& prompt,
                    const GenerateOptions& options) {
  const auto t0 = Clock::now();
  const linear::Int8ActivationsScope int8(options.run.int8_activations);
  const ModelConfig& c = model.config();
  if (options.max_tokens < 1)
    throw Error(ErrorCode::kInvalidArgument, "the number of tokens to generate must be ≥ 1");
  if (!(options.sample_temperature >= 0) || !std::isfinite(options.sample_temperature))
    throw Error(ErrorCode::kInvalidArgument, "the sampling temperature must be a number ≥ 0");
  if (options.top_k < 0) throw Error(ErrorCode::kInvalidArgument, "top-k must be ≥ 0");
  const AttentionSpec spec = checkRun(model, prompt, options.cache, options.run, "the prompt");
  if (options.run.layer && (*options.run.layer < 0 || *options.run.layer >= c.layers)) {
    throw Error(ErrorCode::kInvalidArgument, "layer " + std::to_string(*options.run.layer) +
                                                 " does not exist: " + model.name() +
                                                 " has layers 0–" + std::to_string(c.layers - 1));
  }
  const auto n_p = static_cast<int>(prompt.ids.size());
  const int context = contextOf(c);
  const int steps_max = std::min(options.max_tokens, context - n_p + 1);
  // The rows kept: the prompt's square and one row per step, per kept layer; the cache holds
  // every position of the prompt and the steps (or the window, the sinks and the step).
  const long long kept = options.run.layer ? 1 : c.layers;
  const long long row_floats =
      static_cast<long long>(n_p) * n_p + static_cast<long long>(steps_max) * (n_p + steps_max);
  const int capacity =
      options.cache.window > 0 ? std::max(n_p, options.cache.window + options.cache.sinks) + 1
                               : n_p + steps_max;
  MemoryNeeds needs;
  needs.weights = model.weightBytes().total;
  needs.activations = activationBytes(c, n_p);
  needs.attention = kept * c.heads * row_floats * 4;
  needs.kv_cache = static_cast<long long>(capacity) * c.kvCacheBytesPerToken();
  const long long budget = model.memoryBudget(options.run);
  if (needs.total() > budget) {
    throw Error(ErrorCode::kInvalidInput,
                "this generation would keep " + formatBytes(needs.total()) +
                    " in memory (weights " + formatBytes(needs.weights) + ", attention " +
                    formatBytes(needs.attention) + ", KV cache " + formatBytes(needs.kv_cache) +
                    ", activations " + formatBytes(needs.activations) +
                    "), more than the memory budget of " + formatBytes(budget) +
                    ": choose one layer (--layer), fewer tokens, or a larger --memory-budget");
  }
  model.checkInterventions(options.run, n_p);
  if (!options.run.patch.empty() || options.run.resume) {
    throw Error(ErrorCode::kInvalidArgument, "a generation takes head ablation, not patching");
  }
  kvcache::KvCache cache(c, spec, options.cache, capacity);
  std::mt19937_64 rng(options.seed);
  StepAblation ablation{options.run.ablation, {}};
  if (options.run.ablation.mode == AblationMode::kUniform) {
    for (const HeadRef& a : options.run.ablation.heads) cache.setUniform(a.layer, a.head);
  }

  Generation g;
  g.prompt = prompt;
  g.ids = prompt.ids;
  g.cache = options.cache;
  for (int l = 0; l < c.layers; ++l)
    if (!options.run.layer || *options.run.layer == l) g.layers.push_back(l);

  std::vector<int> input(prompt.ids);
  int first = 0;
  for (int k = 0;; ++k) {
    const auto ts = Clock::now();
    GenerationStep step;
    std::vector<Tensor3> rows;
    const Matrix x = forward(model, cache, input, first, options.run.layer, &rows,
                             options.run.ablation.empty() ? nullptr : &ablation);
    step.position = first + static_cast<int>(input.size()) - 1;
    step.input_id = input.back();
    step.cache_positions = cache.positions();
    step.cache_length = cache.length();
    step.cache_bytes = cache.bytes();
    // The new row of each kept layer: the last query's.
    for (Tensor3& w : rows) {
      Tensor3 row(w.h, 1, w.cols);
      for (int hh = 0; hh < w.h; ++hh)
        std::copy(w.row(hh, w.rows - 1), w.row(hh, w.rows - 1) + w.cols, row.row(hh, 0));
      step.rows.push_back(std::move(row));
    }
    if (k == 0) {
      g.prompt_attention = std::move(rows);
      g.prefill_ms = msSince(ts);
    }
    const Eigen::VectorXf z = model.nextLogits(x);
    step.top = topNextTokens(z, options.top, model.tokenizer());
    // Greedy: the most probable token, the first of the top ones when they are kept.
    const int chosen = options.sample_temperature > 0 ? sample(z, options.sample_temperature, options.top_k, rng)
                       : !step.top.empty()           ? step.top.front().id
                                                     : topNextTokens(z, 1, model.tokenizer()).front().id;
    step.token = tokenOf(z, chosen, model.tokenizer());
    cache.evict(step.position + 1);
    step.ms = msSince(ts);
    g.ids.push_back(chosen);
    g.steps.push_back(std::move(step));
    bool cancelled = options.on_step && !options.on_step(g.steps.back());
    if (!cancelled && options.on_progress) cancelled = !options.on_progress(g);
    const std::vector<int>& eos = options.stop_tokens ? *options.stop_tokens : c.eos_token_ids;
    if (cancelled) {
      g.stop = "cancelled";
    } else if (options.stop_at_eos && std::find(eos.begin(), eos.end(), chosen) != eos.end()) {
      g.stop = "eos";
    } else if (static_cast<int>(g.steps.size()) >= options.max_tokens) {
      g.stop = "max_tokens";
    } else if (static_cast<int>(g.ids.size()) >= context) {
      g.stop = "context";
    }
    if (!g.stop.empty()) break;
    first = step.position + 1;
    input.assign(1, chosen);
  }
  g.total_ms = msSince(t0);
  return g;
}

Encoding labelIds(const ModelTokenizer& tokenizer, const std::vector<int>& ids) {
  Encoding e;
  e.ids = ids;
  for (int id : ids) {
    std::string label = tokenizer.tokenLabel(id);
    if (label.empty()) label.append("#").append(std::to_string(id));
    e.labels.push_back(std::move(label));
    e.bytes.push_back(tokenizer.tokenBytes(id));
    e.special.push_back(tokenizer.isSpecial(id));
  }
  e.type_ids.assign(ids.size(), 0);
  return e;
}

std::vector<AttentionResult> grownAttention(const Generation& g, int steps) {
  const auto total = static_cast<int>(g.steps.size());
  const int shown = steps < 0 ? total : std::clamp(steps, 1, std::max(total, 1));
  const auto n_p = static_cast<int>(g.prompt.ids.size());
  const int n = n_p + std::max(shown - 1, 0);
  std::vector<AttentionResult> out;
  for (std::size_t li = 0; li < g.layers.size(); ++li) {
    const Tensor3& p = g.prompt_attention[li];
    AttentionResult r;
    r.mechanism = Mechanism::kScaled;
    r.mask = Mask::kCausal;
    if (g.cache.window > 0) {
      // The evicted keys as a pattern: visible(i, j) = j ≤ i and (i − j < W or j < S), which is
      // CachePolicy::keeps (a query i < S sees only keys j ≤ i < S, all kept).
      r.mask_pattern.window = g.cache.window;
      r.mask_pattern.global = g.cache.sinks;
    }
    r.weights = Tensor3(p.h, n, n);
    for (int h = 0; h < p.h; ++h)
      for (int i = 0; i < n_p; ++i) std::copy(p.row(h, i), p.row(h, i) + n_p, r.weights.row(h, i));
    for (int k = 1; k < shown; ++k) {
      const GenerationStep& s = g.steps[static_cast<std::size_t>(k)];
      for (int h = 0; h < p.h; ++h)
        for (int c = 0; c < s.cache_length; ++c)
          r.weights(h, s.position, s.cache_positions[static_cast<std::size_t>(c)]) =
              s.rows[li](h, 0, c);
    }
    r.scores = r.weights;
    // Per-row statistics over the row's visible keys (the entropy plots read them).
    r.stats.resize(static_cast<std::size_t>(p.h));
    const MaskPattern visible = r.pattern();
    for (int h = 0; h < p.h; ++h) {
      HeadStats& st = r.stats[static_cast<std::size_t>(h)];
      for (int i = 0; i < n; ++i) {
        const RowStats rs = rowStats(r.weights.row(h, i), n, visible.visibleCount(i, n));
        st.max_weight.push_back(static_cast<float>(rs.max_weight));
        st.entropy.push_back(static_cast<float>(rs.entropy));
        st.normalized_entropy.push_back(static_cast<float>(rs.normalized_entropy));
        st.effective_keys.push_back(static_cast<float>(rs.effective_keys));
        st.jacobian_norm.push_back(static_cast<float>(rs.jacobian_norm));
      }
    }
    r.backend = "cpu";
    out.push_back(std::move(r));
  }
  return out;
}

TextScore scoreText(const PretrainedModel& model, const Encoding& text, const CachePolicy& cache,
                    const ModelRunOptions& run, const std::function<bool(int, int)>& progress) {
  const auto t0 = Clock::now();
  const ModelConfig& c = model.config();
  const AttentionSpec spec = checkRun(model, text, cache, run, "the text");
  const auto n = static_cast<int>(text.ids.size());
  if (n < 2) throw Error(ErrorCode::kInvalidInput, "scoring needs a text of at least 2 tokens");
  const int capacity = cache.window > 0 ? std::min(n, cache.window + cache.sinks) + 1 : n;
  kvcache::KvCache kv(c, spec, cache, capacity);
  TextScore s;
  s.ids = text.ids;
  s.cache = cache;
  s.sink_mass = Matrix::Zero(c.layers, c.heads);
  for (int i = 0; i < n - 1; ++i) {
    std::vector<Tensor3> rows;
    const Matrix x = forward(model, kv, {text.ids[static_cast<std::size_t>(i)]}, i,
                             std::nullopt, i > 0 ? &rows : nullptr);
    if (i > 0 && kv.positions().front() == 0) {  // the weight on position 0, still cached
      for (int l = 0; l < c.layers; ++l)
        for (int hh = 0; hh < c.heads; ++hh)
          s.sink_mass(l, hh) += rows[static_cast<std::size_t>(l)](hh, 0, 0);
    }
    const Eigen::VectorXf z = model.nextLogits(x);
    const double m = z.maxCoeff();
    double sum = 0;
    for (Eigen::Index t = 0; t < z.size(); ++t) sum += std::exp(static_cast<double>(z[t]) - m);
    const int next = text.ids[static_cast<std::size_t>(i) + 1];
    const double lp = static_cast<double>(z[next]) - m - std::log(sum);
    s.log_probs.push_back(lp);
    s.log_likelihood += lp;
    kv.evict(i + 1);
    if (progress && !progress(i + 1, n - 1))
      throw Error(ErrorCode::kCancelled, "the scoring was cancelled");
  }
  // Position 0 read by itself gives no sink row; the mean is over the queries 1 … n − 2 read
  // through the cache (query n − 1 predicts nothing and is not read).
  if (n > 2) s.sink_mass /= static_cast<float>(n - 2);
  s.perplexity = std::exp(-s.log_likelihood / (n - 1));
  s.ms = msSince(t0);
  return s;
}

}  // namespace attnlab
