/// \file quantities.cpp
/// The live numbers of the lessons' captions (lesson.hpp: quantities(), quantities.hpp).

#include "lessons/quantities.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <functional>
#include <limits>
#include <memory>
#include <optional>

#include "attnlab/error.hpp"
#include "attnlab/head_roles.hpp"
#include "attnlab/head_similarity.hpp"
#include "attnlab/timing.hpp"
#include "lessons/lesson.hpp"
#include "lessons/translator_figures.hpp"
#include "run/run.hpp"

namespace attnlab::lessons {

namespace {

using options::LabSettings;

std::string utf8(const QString& s) { return s.toUtf8().toStdString(); }
QString bytes(double b) { return QString::fromStdString(humanCount(b, "B")); }
QString flops(double f) { return QString::fromStdString(humanCount(f, "FLOP")); }
QString percent(double fraction) {
  const double p = 100.0 * fraction;
  return (p != 0 && std::abs(p) < 10 ? QString::number(p, 'f', 1) : QString::number(p, 'f', 0)) +
         QStringLiteral(" %");
}
/// Two decimals ("0.94"); "—" for NaN (rows that overflowed have no meaningful mean).
QString fixed2(double v) { return std::isnan(v) ? QStringLiteral("—") : QString::number(v, 'f', 2); }
/// A ratio as a bare number: the captions say "4× smaller" / "只有原来的 1/4" around it.
QString times(double ratio) { return formatNumber(ratio); }
const QString kNotApplicable = QStringLiteral("—");
/// The n of the long-input figures (lessons 7–9): where the materialised matrix hurts.
constexpr int kLongN = 8192;
/// The tokens a lesson's generation adds after the text ({generated_text}).
constexpr int kLessonGenerateTokens = 8;

/// What the quantities of one call share: the settings and, computed once when first needed,
/// the run of the synthetic lab or of the model.
class Context {
 public:
  /// The lesson's numbers come from the CPU reference (the same on every machine), through
  /// `session` (run/run.hpp: its checks, and the model the window already holds).
  Context(const options::Options& o, run::Session& session) : o_(o), lab_(cpuOnly(o.lab)), session_(session) {}

  const LabSettings& lab() const { return lab_; }
  const options::Options& options() const { return o_; }
  bool model() const { return lab_.pretrained(); }
  bool translator() const { return lab_.translator; }

  /// A trained translator's run (null when the step's model is not one).
  const results::Run* translatorRun() {
    if (translator() && !translator_run_) translator_run_ = session_.run(lab_);
    return translator_run_.get();
  }

  /// The attention shown: the synthetic lab's, or each captured layer of the model.
  const std::vector<AttentionResult>& results() {
    if (!results_) {
      results_.emplace();
      if (translator()) {
        *results_ = translatorRun()->translator->layers;
      } else if (model()) {
        LabSettings every_token = lab_;  // the numbers read every token and every layer
        every_token.hide_special = false;
        every_token.rollout = false;
        const auto run = session_.run(every_token);
        *results_ = run->model_run->attention;
        ids_ = run->model_run->encoding.ids;
        model_run_ = run;
      } else {
        LabRun run = runWith(lab_);
        pad_tokens_ = run.pad_tokens;
        tokens_ = run.query_tokens;
        results_->push_back(std::move(run.attention));
      }
    }
    return *results_;
  }
  const AttentionResult& first() { return results().front(); }
  /// A model's interventions and readings (--ablate, --logit-lens, --dla), else null.
  const results::Interventions* interventions() {
    results();
    return model_run_ ? model_run_->interventions.get() : nullptr;
  }
  /// A model's token ids (every token), empty in the synthetic lab.
  const std::vector<int>& ids() { return results(), ids_; }
  /// A model's head roles (attnlab/head_roles.hpp; the session keeps them per model), else null.
  const HeadRoles* roles() {
    LabSettings lab = lab_;
    lab.head_roles = true;
    if (!roles_ && model()) roles_ = session_.run(lab)->head_roles;
    return roles_.get();
  }
  int padTokens() {
    results();
    return pad_tokens_;
  }

  /// A synthetic run of settings `lab` (the weights kept while the shapes and seed stay).
  LabRun runWith(const LabSettings& lab) { return std::move(session_.run(lab)->run); }

  /// A model's config (loaded through the session: the window's own copy).
  const ModelConfig& config() { return session_.model(lab_.model_dir)->config; }

  int dK() {
    if (translator()) return std::max(translatorConfig().d_k, translatorConfig().attention_dim);
    return model() ? config().dK() : lab_.spec.resolvedDk();
  }
  int heads() {
    if (translator()) return first().heads();
    return model() ? config().heads : lab_.spec.heads;
  }
  int kvHeads() {
    return model() ? config().resolvedKvHeads() : lab_.spec.resolvedKvHeads();
  }
  int layers() {
    if (translator()) return std::max(1, translatorConfig().decoder_layers);
    return model() ? config().layers : 1;
  }
  int dModel() { return model() ? config().d_model : lab_.spec.d_model; }
  /// The cost mode's layer at n tokens (run::costShape: what the CLI's cost and the window's
  /// cost panel count).
  CostShape shape(int n) {
    if (!shape_) shape_ = run::costShape(lab_).first;
    CostShape s = *shape_;
    s.n = n;
    return s;
  }
  /// The cost mode's counts at n tokens.
  AttentionCost costAt(int n) {
    run::CostRequest request;
    request.shape = shape(n);
    request.n = {n};
    return run::cost(request).rows.front();
  }

  /// The Monte-Carlo saturation point at the current d_k, for the curves on screen: as many keys
  /// as the text has (the window's saturation panel) and saturationSamples rows, the seed's draws
  /// — the point the plot's marker reads.
  const SaturationAnalysis& saturation() {
    if (!saturation_) saturation_ = run::interactiveSaturation(first().nK(), lab_.seed, dK());
    return *saturation_;
  }

  /// Attention of the text and of the text with its last word changed, causal or not: max |Δ| of
  /// the rows before that word, and its row ({-1, 0} when the experiment does not apply).
  std::pair<double, int> prefixDifference(bool causal) {
    const std::optional<run::WordChange> change = run::Experiments(session_).lastWordChanged(lab_, causal);
    if (!change) return {-1, 0};
    return {prefixMaxDifference(change->original, change->changed, change->word), change->word};
  }

  /// KV-cache decoding of the text with the step's cache bug (run::Session::decode: the CLI's
  /// decode and the window's decoding dock); nullopt when decoding does not apply (a model) or
  /// refuses these settings (a source, additive or linear attention, a numerics option).
  const std::shared_ptr<const results::Decoded>& decode() {
    if (!decode_done_) {
      decode_done_ = true;
      if (model()) return decode_;
      try {
        decode_ = session_.decode({lab_, o_.decode.cache_bug, o_.decode.bug_step});
      } catch (const options::OptionError&) {
        decode_ = nullptr;
      }
    }
    return decode_;
  }

  /// The model's greedy continuation of the text, kLessonGenerateTokens tokens at most
  /// (run::Session::generate: the CLI's generate and the window's Generate box); null without a
  /// model.
  const std::shared_ptr<const results::Generated>& generated() {
    if (!generated_done_) {
      generated_done_ = true;
      if (model() && !translator()) {
        run::GenerateRequest request;
        request.lab = lab_;
        request.generate.max_tokens = kLessonGenerateTokens;
        generated_ = session_.generate(request);
      }
    }
    return generated_;
  }

  /// The first token of the text that occurs twice, and max |Δ| between the weight rows of its
  /// two occurrences over every head (0 without positions and without a mask: attention alone
  /// cannot tell them apart). nullopt for a model, a source, or no repeated token.
  struct Repeated {
    std::string token;
    double max_diff = 0;
  };
  std::optional<Repeated> repeatedRows() {
    if (model() || lab_.cross()) return std::nullopt;
    const AttentionResult& r = first();
    const std::vector<Token>& tokens = tokens_;  // the run's, [PAD] last
    for (int j = 1; j < static_cast<int>(tokens.size()) - pad_tokens_; ++j) {
      for (int i = 0; i < j; ++i) {
        if (tokens[static_cast<std::size_t>(i)].text != tokens[static_cast<std::size_t>(j)].text) continue;
        Repeated out{tokens[static_cast<std::size_t>(i)].text, 0};
        for (int h = 0; h < r.heads(); ++h)
          for (int k = 0; k < r.nK(); ++k)
            out.max_diff = std::max(out.max_diff, std::abs(static_cast<double>(r.weights(h, i, k)) - r.weights(h, j, k)));
        return out;
      }
    }
    return std::nullopt;
  }

  /// var(q·k) of the raw dot products of the text's (and source's) queries and keys, without
  /// padding (nullopt for a model or additive attention, which has no q·k).
  std::optional<double> varQk() {
    const std::optional<AttentionInputs> in = run::Experiments(session_).projections(lab_);
    if (!in) return std::nullopt;
    return dotProductVariance(in->q, in->k);
  }

  /// Overflowed rows with the softmax made naive or stable (the current precision).
  int overflowRows(SoftmaxKind kind) {
    if (model() || lab_.spec.mechanism == Mechanism::kLinear) return -1;  // linear has no softmax
    LabSettings lab = lab_;
    lab.spec.softmax = kind;
    return nonFiniteRows(runWith(lab).attention);
  }

 private:
  static LabSettings cpuOnly(LabSettings lab) {
    lab.backend = options::BackendKind::kCpu;
    return lab;
  }

  const options::Options& o_;
  LabSettings lab_;
  run::Session& session_;
  const TranslatorConfig& translatorConfig() { return translatorRun()->translator->info->config; }

  std::shared_ptr<const results::Run> translator_run_;
  std::shared_ptr<const results::Run> model_run_;  ///< A model's run (its interventions).
  std::optional<std::vector<AttentionResult>> results_;
  std::vector<int> ids_;
  std::shared_ptr<const HeadRoles> roles_;
  int pad_tokens_ = 0;
  std::vector<Token> tokens_;  ///< The synthetic run's query tokens.
  std::optional<CostShape> shape_;
  std::optional<SaturationAnalysis> saturation_;
  bool decode_done_ = false;
  std::shared_ptr<const results::Decoded> decode_;
  bool generated_done_ = false;
  std::shared_ptr<const results::Generated> generated_;
};

/// Mean over every result, head and query row with a visible key of a row statistic.
double meanStat(Context& c, std::vector<float> HeadStats::*field, int min_visible) {
  double sum = 0, count = 0;
  for (const AttentionResult& r : c.results()) {
    const MaskPattern p = r.pattern();
    for (int h = 0; h < r.heads(); ++h)
      for (int i = 0; i < r.nQ(); ++i) {
        if (p.visibleCount(i, r.nK()) < min_visible) continue;
        sum += (r.stats[static_cast<std::size_t>(h)].*field)[static_cast<std::size_t>(i)];
        count += 1;
      }
  }
  return count > 0 ? sum / count : 0;
}

/// Visible scores of every result: calls f(head, i, j, score).
template <class F>
void forVisible(Context& c, F&& f) {
  for (const AttentionResult& r : c.results()) {
    const MaskPattern p = r.pattern();
    for (int h = 0; h < r.heads(); ++h)
      for (int i = 0; i < r.nQ(); ++i)
        for (int j = 0; j < r.nK(); ++j)
          if (p.visible(i, j)) f(r, h, i, j);
  }
}

using Compute = std::function<QString(Context&)>;

/// Mean loss (nats) over the second half of the text's next tokens (a repeated sequence's second
/// copy), before (false) or after (true) the step's ablation; "—" without one.
QString repeatLoss(Context& c, bool after) {
  const results::Interventions* x = c.interventions();
  if (!x || x->ablated.empty()) return kNotApplicable;
  const std::vector<double>& loss = after ? x->loss_after : x->loss_before;
  const std::size_t from = loss.size() / 2;
  if (from >= loss.size()) return kNotApplicable;
  double sum = 0;
  for (std::size_t i = from; i < loss.size(); ++i) sum += loss[i];
  return fixed2(sum / static_cast<double>(loss.size() - from));
}

/// The top next token before (false) or after (true) the step's ablation: "␣ocean (0.81)".
QString nextToken(Context& c, bool after) {
  const results::Interventions* x = c.interventions();
  if (!x || x->ablated.empty()) return kNotApplicable;
  const std::vector<NextToken>& t = after ? x->after : x->before;
  if (t.empty()) return kNotApplicable;
  return QStringLiteral("%1 (%2)").arg(QString::fromStdString(t.front().label), fixed2(t.front().probability));
}

/// The step's direct logit attribution, or null.
const LogitAttribution* dlaOf(Context& c) {
  const results::Interventions* x = c.interventions();
  return x && x->dla ? &*x->dla : nullptr;
}

/// The step's logit lens, or null.
const LogitLens* lensOf(Context& c) {
  const results::Interventions* x = c.interventions();
  return x && x->lens ? &*x->lens : nullptr;
}
/// The top head of `role`: its layer (what 0), head (1), score (2), or the median of all heads (3).
QString roleTop(Context& c, HeadRole role, int what) {
  const HeadRoles* r = c.roles();
  if (!r || r->layers * r->heads == 0) return kNotApplicable;
  const HeadScore top = r->top(role, 1).front();
  return what == 0 ? QString::number(top.layer) : what == 1 ? QString::number(top.head)
                   : fixed2(what == 2 ? top.score : r->median(role));
}

const std::vector<std::pair<QString, Compute>>& table() {
  static const std::vector<std::pair<QString, Compute>> entries = {
      {"d_k", [](Context& c) { return QString::number(c.dK()); }},
      {"heads", [](Context& c) { return QString::number(c.heads()); }},
      {"kv_heads", [](Context& c) { return QString::number(c.kvHeads()); }},
      {"n_tokens", [](Context& c) { return QString::number(c.first().nQ()); }},
      {"n_keys", [](Context& c) { return QString::number(c.first().nK()); }},
      {"model_layers", [](Context& c) { return c.model() || c.translator() ? QString::number(c.layers()) : kNotApplicable; }},
      {"mean_max_weight", [](Context& c) { return fixed2(meanStat(c, &HeadStats::max_weight, 1)); }},
      {"mean_entropy", [](Context& c) { return fixed2(meanStat(c, &HeadStats::normalized_entropy, 2)); }},
      {"jacobian_norm", [](Context& c) { return formatNumber(meanStat(c, &HeadStats::jacobian_norm, 1)); }},
      {"var_qk", [](Context& c) {
         const std::optional<double> v = c.varQk();
         return v ? formatNumber(*v) : kNotApplicable;
       }},
      {"var_qk_ratio", [](Context& c) {
         const std::optional<double> v = c.varQk();
         return v ? fixed2(*v / c.dK()) : kNotApplicable;
       }},
      {"score_std", [](Context& c) {
         double s = 0, s2 = 0, n = 0;
         forVisible(c, [&](const AttentionResult& r, int h, int i, int j) {
           const double v = r.scores(h, i, j);
           if (!std::isfinite(v)) return;
           s += v; s2 += v * v; n += 1;
         });
         return n > 0 ? formatNumber(std::sqrt(std::max(0.0, s2 / n - (s / n) * (s / n)))) : kNotApplicable;
       }},
      {"max_score", [](Context& c) {
         double m = 0;
         forVisible(c, [&](const AttentionResult& r, int h, int i, int j) { m = std::max(m, std::abs(static_cast<double>(r.scores(h, i, j)))); });
         return formatNumber(m);
       }},
      {"max_weight_scaled", [](Context& c) { return fixed2(c.saturation().scaled.front().mean_max_weight); }},
      {"max_weight_unscaled", [](Context& c) { return fixed2(c.saturation().unscaled.front().mean_max_weight); }},
      {"jacobian_scaled", [](Context& c) { return formatNumber(c.saturation().scaled.front().mean_jacobian_norm); }},
      {"jacobian_unscaled", [](Context& c) { return formatNumber(c.saturation().unscaled.front().mean_jacobian_norm); }},
      {"jacobian_ratio", [](Context& c) {
         const double u = c.saturation().unscaled.front().mean_jacobian_norm;
         return u > 0 ? times(c.saturation().scaled.front().mean_jacobian_norm / u) : QStringLiteral("∞");
       }},
      {"repeated_token", [](Context& c) {
         const auto r = c.repeatedRows();
         return r ? QString::fromStdString(r->token) : kNotApplicable;
       }},
      {"repeat_row_diff", [](Context& c) {
         const auto r = c.repeatedRows();
         return r ? formatNumber(r->max_diff) : kNotApplicable;
       }},
      {"head_jsd_mean", [](Context& c) {
         const HeadSimilarity s = headSimilarity(c.first());
         double sum = 0, n = 0;
         for (int a = 0; a < s.h; ++a)
           for (int b = a + 1; b < s.h; ++b) { sum += s(a, b); n += 1; }
         return n > 0 ? formatNumber(sum / n) : kNotApplicable;
       }},
      {"loss_repeat_before", [](Context& c) { return repeatLoss(c, false); }},
      {"loss_repeat_after", [](Context& c) { return repeatLoss(c, true); }},
      {"next_before", [](Context& c) { return nextToken(c, false); }},
      {"next_after", [](Context& c) { return nextToken(c, true); }},
      {"dla_target", [](Context& c) {
         const LogitAttribution* d = dlaOf(c);
         return d ? QString::fromStdString(d->target_label) : kNotApplicable;
       }},
      {"dla_logit", [](Context& c) { const LogitAttribution* d = dlaOf(c); return d ? fixed2(d->logit) : kNotApplicable; }},
      {"dla_heads_sum", [](Context& c) { const LogitAttribution* d = dlaOf(c); return d ? fixed2(d->heads.sum()) : kNotApplicable; }},
      {"dla_heads_mean", [](Context& c) {
         // What the heads would add if multi-head attention averaged them: 1/h of their sum.
         const LogitAttribution* d = dlaOf(c);
         return d ? fixed2(d->heads.sum() / static_cast<double>(d->heads.cols())) : kNotApplicable;
       }},
      {"dla_mlp_sum", [](Context& c) {
         const LogitAttribution* d = dlaOf(c);
         return d ? fixed2(std::accumulate(d->mlp.begin(), d->mlp.end(), 0.0)) : kNotApplicable;
       }},
      {"dla_embedding", [](Context& c) { const LogitAttribution* d = dlaOf(c); return d ? fixed2(d->embedding) : kNotApplicable; }},
      {"dla_total", [](Context& c) { const LogitAttribution* d = dlaOf(c); return d ? fixed2(d->total) : kNotApplicable; }},
      {"dla_top_head", [](Context& c) {
         const LogitAttribution* d = dlaOf(c);
         if (!d || d->heads.size() == 0) return kNotApplicable;
         Eigen::Index l = 0, h = 0;
         d->heads.maxCoeff(&l, &h);
         return QStringLiteral("%1.%2").arg(l).arg(h);
       }},
      {"dla_top_value", [](Context& c) { const LogitAttribution* d = dlaOf(c); return d ? fixed2(d->heads.maxCoeff()) : kNotApplicable; }},
      {"lens_final", [](Context& c) {
         const LogitLens* l = lensOf(c);
         return l && !l->final_labels.empty() ? QString::fromStdString(l->final_labels.back()) : kNotApplicable;
       }},
      {"lens_first_layer", [](Context& c) {
         // The first layer from which the final prediction stays on top at the last token.
         const LogitLens* l = lensOf(c);
         if (!l || l->cells.empty()) return kNotApplicable;
         auto first = static_cast<int>(l->cells.size()) - 1;
         while (first > 0 && l->cells[static_cast<std::size_t>(first - 1)].back().final_rank == 0) --first;
         return QString::number(first);
       }},
      {"lens_final_probability", [](Context& c) {
         const LogitLens* l = lensOf(c);
         return l && !l->cells.empty() ? fixed2(l->cells.back().back().top_probability) : kNotApplicable;
       }},
      {"induction_layer", [](Context& c) { return roleTop(c, HeadRole::kInduction, 0); }},
      {"induction_head", [](Context& c) { return roleTop(c, HeadRole::kInduction, 1); }},
      {"induction_score", [](Context& c) { return roleTop(c, HeadRole::kInduction, 2); }},
      {"induction_median", [](Context& c) { return roleTop(c, HeadRole::kInduction, 3); }},
      {"previous_layer", [](Context& c) { return roleTop(c, HeadRole::kPreviousToken, 0); }},
      {"previous_head", [](Context& c) { return roleTop(c, HeadRole::kPreviousToken, 1); }},
      {"previous_score", [](Context& c) { return roleTop(c, HeadRole::kPreviousToken, 2); }},
      {"head_previous_weight", [](Context& c) { return fixed2(previousTokenWeight(c.first(), c.options().head.value_or(0)).value_or(NAN)); }},
      {"head_induction_weight", [](Context& c) { return fixed2(inductionWeight(c.first(), c.options().head.value_or(0), c.ids()).value_or(NAN)); }},
      {"near_duplicate_pairs", [](Context& c) { return QString::number(headSimilarity(c.first()).near_duplicates.size()); }},
      {"avg_output_lost", [](Context& c) { return percent(averagingLoss(c.first().head_outputs)); }},
      {"avg_map_max_weight", [](Context& c) {
         const AttentionResult& r = c.first();
         double sum = 0;
         for (int i = 0; i < r.nQ(); ++i) {
           double best = 0;
           for (int j = 0; j < r.nK(); ++j) {
             double w = 0;
             for (int h = 0; h < r.heads(); ++h) w += r.weights(h, i, j);
             best = std::max(best, w / r.heads());
           }
           sum += best;
         }
         return fixed2(sum / r.nQ());
       }},
      {"prefix_diff_causal", [](Context& c) {
         const double d = c.prefixDifference(true).first;
         return d < 0 ? kNotApplicable : formatNumber(d);
       }},
      {"prefix_diff_bidirectional", [](Context& c) {
         const double d = c.prefixDifference(false).first;
         return d < 0 ? kNotApplicable : formatNumber(d);
       }},
      {"mask_diff", [](Context& c) {
         // max |Δ| of the step's attention and the same run with the causal mask switched: what
         // a "causal − no mask" difference's title says (the cells one side masks have weight 0).
         if (c.model() || c.translator() || !c.lab().source.isEmpty()) return kNotApplicable;
         LabSettings other = c.lab();
         other.spec.mask = other.causal() ? Mask::kNone : Mask::kCausal;
         const AttentionResult& a = c.first();
         LabRun b;
         try {
           b = c.runWith(other);
         } catch (const std::exception&) {
           return kNotApplicable;  // the other side refused (a setting that needs the mask)
         }
         double d = 0;
         for (std::size_t i = 0; i < a.weights.data.size(); ++i)
           d = std::max(d, std::fabs(static_cast<double>(a.weights.data[i]) - b.attention.weights.data[i]));
         return QString::number(d, 'f', 3);
       }},
      {"changed_rows", [](Context& c) {
         const auto [d, rows] = c.prefixDifference(true);
         return d < 0 ? kNotApplicable : QString::number(rows);
       }},
      {"pad_leak", [](Context& c) {
         const int pads = c.padTokens();
         if (pads == 0) return kNotApplicable;
         const AttentionResult& r = c.first();
         const int real = r.nQ() - pads;
         double sum = 0;
         for (int h = 0; h < r.heads(); ++h)
           for (int i = 0; i < real; ++i)
             for (int j = real; j < r.nK(); ++j) sum += r.weights(h, i, j);
         return percent(sum / (static_cast<double>(r.heads()) * real));
       }},
      {"p_bytes", [](Context& c) { return bytes(c.costAt(c.first().nK()).score_matrix_bytes); }},
      {"n_double", [](Context& c) { return QString::number(2 * c.first().nK()); }},
      {"p_bytes_double", [](Context& c) { return bytes(c.costAt(2 * c.first().nK()).score_matrix_bytes); }},
      {"attention_flops", [](Context& c) { return flops(c.costAt(c.first().nK()).attentionFlops()); }},
      {"projection_flops", [](Context& c) { return flops(c.costAt(c.first().nK()).projection_flops); }},
      {"crossover_n", [](Context& c) {
         run::CostRequest request;
         request.shape = c.shape(1);
         return QString::number(std::lround(run::cost(request).crossover));
       }},
      {"long_n", [](Context&) { return QString::number(kLongN); }},
      {"p_bytes_long", [](Context& c) { return bytes(c.costAt(kLongN).score_matrix_bytes); }},
      {"reference_bytes_long", [](Context& c) {
         const AttentionTimer timer(false);
         return bytes(timer.extraBytes(TimedPath::kCpuReference, TimingCase{kLongN, c.heads(), c.dK(), false, 0}));
       }},
      {"fused_bytes_long", [](Context& c) {
         const AttentionTimer timer(false);
         return bytes(timer.extraBytes(TimedPath::kOpenClFused, TimingCase{kLongN, c.heads(), c.dK(), false, 0}));
       }},
      {"fused_saving_long", [](Context& c) {
         const AttentionTimer timer(false);
         const TimingCase t{kLongN, c.heads(), c.dK(), false, 0};
         return times(timer.extraBytes(TimedPath::kCpuReference, t) / timer.extraBytes(TimedPath::kOpenClFused, t));
       }},
      {"kv_bytes_mha_long", [](Context& c) { return bytes(c.costAt(kLongN).kv_cache_bytes_mha); }},
      {"kv_bytes_long", [](Context& c) { return bytes(c.costAt(kLongN).kv_cache_bytes); }},
      {"kv_bytes_mqa_long", [](Context& c) { return bytes(c.costAt(kLongN).kv_cache_bytes_mqa); }},
      {"kv_saving", [](Context& c) { return times(static_cast<double>(c.heads()) / c.kvHeads()); }},
      {"decode_cache_bytes", [](Context& c) {
         const auto& d = c.decode();
         return d ? bytes(static_cast<double>(d->decode.steps.back().cache_bytes)) : kNotApplicable;
       }},
      {"decode_mha_bytes", [](Context& c) {
         const auto& d = c.decode();
         return d ? bytes(static_cast<double>(d->decode.steps.back().mha_cache_bytes)) : kNotApplicable;
       }},
      // Apart, as the decode picture shows the weights (its Δ map with a bug) and not the outputs.
      {"decode_weight_diff", [](Context& c) {
         const auto& d = c.decode();
         return d ? formatNumber(d->decode.max_weight_diff) : kNotApplicable;
       }},
      {"decode_output_diff", [](Context& c) {
         const auto& d = c.decode();
         return d ? formatNumber(d->decode.max_output_diff) : kNotApplicable;
       }},
      {"decode_first_diff_step", [](Context& c) {
         const auto& d = c.decode();
         if (!d) return kNotApplicable;
         return d->decode.first_diff_step < 0 ? QStringLiteral("—") : QString::number(d->decode.first_diff_step);
       }},
      {"decode_bug_token", [](Context& c) {
         const auto& d = c.decode();
         if (!d || d->decode.bug_step < 0) return kNotApplicable;
         return QStringLiteral("%1 “%2”").arg(d->decode.bug_step).arg(d->labels.value(d->decode.bug_step));
       }},
      {"generated_text", [](Context& c) {
         const auto& g = c.generated();
         if (!g) return kNotApplicable;
         std::string text;
         for (const GenerationStep& s : g->generation->steps) text += s.token.bytes;
         return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
       }},
      {"visible_fraction", [](Context& c) {
         const AttentionResult& r = c.first();
         return percent(r.pattern().visibleFraction(r.nQ(), r.nK()));
       }},
      {"near_far_gap", [](Context& c) {
         double near = 0, far = 0, nn = 0, nf = 0;
         const int n = c.first().nK();
         forVisible(c, [&](const AttentionResult& r, int h, int i, int j) {
           const double s = r.scores(h, i, j);
           if (!std::isfinite(s)) return;
           const int d = std::abs(i - j);
           if (d <= 1) { near += s; nn += 1; }
           if (2 * d >= n) { far += s; nf += 1; }
         });
         return nn > 0 && nf > 0 ? formatNumber(near / nn - far / nf) : kNotApplicable;
       }},
      {"overflow_rows", [](Context& c) {
         int rows = 0;
         for (const AttentionResult& r : c.results()) rows += nonFiniteRows(r);
         return QString::number(rows);
       }},
      {"overflow_rows_naive", [](Context& c) {
         const int rows = c.overflowRows(SoftmaxKind::kNaive);
         return rows < 0 ? kNotApplicable : QString::number(rows);
       }},
      {"overflow_rows_stable", [](Context& c) {
         const int rows = c.overflowRows(SoftmaxKind::kStable);
         return rows < 0 ? kNotApplicable : QString::number(rows);
       }},
      {"total_rows", [](Context& c) { return QString::number(c.first().heads() * c.first().nQ()); }},
      {"dropped_fraction", [](Context& c) {
         const AttentionResult& r = c.first();
         if (r.dropped.empty()) return percent(0);
         double dropped = 0, visible = 0;
         forVisible(c, [&](const AttentionResult& rr, int h, int i, int j) {
           visible += 1;
           dropped += rr.isDropped(h, i, j) ? 1 : 0;
         });
         return percent(visible > 0 ? dropped / visible : 0);
       }},
  };
  return entries;
}

}  // namespace

QStringList quantityNames() {
  QStringList names;
  for (const auto& [name, f] : table()) names << name;
  return names + translatorQuantityNames();
}

std::map<QString, QString> quantities(const QStringList& names, const options::Options& settings,
                                      run::Session& session) {
  Context context(settings, session);
  std::map<QString, QString> out;
  for (const QString& name : names) {
    if (translatorQuantityNames().contains(name)) {
      out[name] = translatorQuantity(name, context.translatorRun());
      continue;
    }
    const auto it = std::find_if(table().begin(), table().end(), [&name](const auto& e) { return e.first == name; });
    if (it == table().end())
      throw Error(ErrorCode::kInvalidArgument, "unknown lesson quantity {" + utf8(name) + "}");
    out[name] = it->second(context);
  }
  return out;
}

std::map<QString, QString> quantities(const Step& step, const options::LabSettings& settings,
                                      run::Session& session) {
  options::Options o;
  o.lab = settings;
  try {  // the step's head (its head's numbers) and a decode step's cache bug
    const options::Options own = stepOptions(step);
    o.head = own.head;
    if (step.view == View::kDecode) o.decode = own.decode;
  } catch (const std::exception&) {
    // Head 0 and no cache bug when the step's own settings are refused.
  }
  QStringList names = placeholders(step.caption.en);
  for (const QString& n : placeholders(step.caption.zh_CN))
    if (!names.contains(n)) names << n;
  return quantities(names, o, session);
}

}  // namespace attnlab::lessons
