#pragma once
/// \file attention.hpp
/// The result of the attention mode: what one run computed (run::Session::run), and what the
/// window, the CLI, Compare, sweeps and the lessons draw or write from it. Plain values: Qt Core,
/// the option types and the engine; computed by app/run, read by app/views (which never includes
/// app/run) and the programs.

#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/head_roles.hpp"
#include "attnlab/head_similarity.hpp"
#include "attnlab/overview.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/summary.hpp"
#include "attnlab/synthetic.hpp"
#include "attnlab/token_display.hpp"
#include "attnlab/translator.hpp"
#include "options/lab_settings.hpp"
#include "options/message.hpp"

namespace attnlab::results {

/// A loaded pretrained model, as the pictures describe it.
struct ModelInfo {
  QString dir;         ///< The folder or .gguf file, as the settings name it.
  QString name;        ///< The model's name, e.g. "all-MiniLM-L6-v2".
  ModelConfig config;  ///< Layers, heads, d_model, architecture (mask, pairs).
  double load_ms = 0;  ///< Time PretrainedModel::load took, ms.
  WeightBytes weights;  ///< The weights as held, by stored type (PretrainedModel::weightBytes).
  bool mapped = false;  ///< The weights are the mapped file's (GGUF, Llama family, Gemma).
};

/// A loaded trained translator (issue 23), as the pictures describe it.
struct TranslatorInfo {
  QString dir;              ///< The folder, absolute.
  QString name;             ///< "dates-additive".
  TranslatorConfig config;  ///< Architecture, shapes, the training's accuracy.
  double load_ms = 0;       ///< Time Translator::load took, ms.
};

/// A trained translator's run (settings.translator): the model, the translation with every
/// attention, and the attention shown (settings.translator_attention) per layer — additive
/// [1, T, n_s]; the Transformer's cross [h, T, n_s], encoder self [h, n_s, n_s] or decoder self
/// [h, T, T]. Run::query_tokens / key_tokens label them (outputs y_i, "</s>" last; source
/// characters; decoder inputs "<s>", y_1 …).
struct TranslatorRun {
  std::shared_ptr<const TranslatorInfo> info;
  std::shared_ptr<const Translation> translation;
  std::vector<AttentionResult> layers;  ///< The attention shown, one per layer kept.
  std::vector<int> layer_indices;       ///< The layer number of each entry of `layers`.
};

/// settings.rollout with a model: the attention rollout (Abnar & Zuidema 2020) of layers
/// 0 … last as a one-head result [1, n, n] over the shown tokens.
struct Rollout {
  AttentionResult result;
  int last = 0;
};

/// A pooled model view (RunHooks::allow_overview, when every layer in full would pass the memory
/// budget): every layer's weights pooled over block × block token blocks while the pass ran
/// (PooledAttention, attnlab/overview.hpp), in layer order. Run::layers() then holds the last
/// layer alone, in full, for the panels that read one layer; every token is shown.
struct Overview {
  std::vector<PooledAttention> layers;
  std::vector<int> layer_indices;  ///< 0 … L − 1.
  int block = 0;                   ///< b of every entry.
  /// The refusal the full run got ("this run would keep 30.7 GB of attention …"), what anything
  /// that needs every layer's weights (JSON, CSV, NPY) says instead.
  std::optional<options::Message> full_refusal;
};

/// A model run's interventions and readings (attnlab/interventions.hpp), what --ablate,
/// --logit-lens, --dla and --patch-from asked for. The pictures of the run (its heads) show the
/// pass with the ablation; `before` and `after` compare it with the pass without.
struct Interventions {
  std::vector<HeadRef> ablated;                ///< The heads ablated (empty: none).
  AblationMode mode = AblationMode::kZero;
  std::vector<NextToken> before, after;        ///< Next-token top-k without and with.
  std::vector<double> loss_before, loss_after;  ///< Next tokens' losses [n − 1], nats.
  int first_ablated_layer = 0;                 ///< The pass with the ablation resumed here.
  std::optional<LogitLens> lens;               ///< --logit-lens (of the pass shown).
  std::optional<LogitAttribution> dla;         ///< --dla (of the pass shown).
  std::optional<PatchingResult> patching;      ///< --patch-from.
  std::vector<std::string> patch_labels;       ///< The corrupted prompt's display labels.
  /// Mean of a loss vector (0 when empty).
  static double meanOf(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / static_cast<double>(v.size());
  }
};

/// What one attention run computed. Immutable once returned (callers share it as
/// std::shared_ptr<const Run>). Three sources, each with its own part:
/// - the synthetic lab: `run` holds the one result [h, n_q, n_k]; model and translator are null;
/// - a pretrained model (`model` set): `model_run` is the forward pass over every token, the rows
///   and columns are its tokens after the display filter (special tokens left out when
///   settings.hide_special; weights not renormalised), plus the optional rollout, head roles and
///   pooled overview;
/// - a trained translator (`translator` set).
/// `attention(entry)` reads whichever applies.
struct Run {
  options::LabSettings settings;  ///< What was asked for.
  /// The resolved spec: the synthetic lab's (validated), or for a model the mechanism, mask, h,
  /// d_model, d_k and temperature of its forward pass.
  AttentionSpec spec;
  /// Synthetic: tokens, scores, weights [h, n_q, n_k], statistics, outputs. Model: the shown
  /// tokens only (query tokens = key tokens), each Token::text the model's own label
  /// (Encoding::labels, "\xE6\x88" for part of a character: what files write as query_token),
  /// and compute_ms.
  LabRun run;
  /// The rows' labels as pictures, tooltips and the next-token line show them: run.query_tokens
  /// as text, for a model the display labels of token_display ("⋯我", attnlab/token_display.hpp).
  QStringList query_tokens;
  QStringList key_tokens;  ///< The columns' labels, as query_tokens.
  double model_ms = 0;     ///< Time spent drawing new weights or loading the model (0 when reused).

  // A pretrained model's part (null and empty otherwise).
  std::shared_ptr<const ModelInfo> model;
  std::shared_ptr<const ModelRun> model_run;  ///< The forward pass over every token.
  /// The shown tokens as displayed: label and the pieces of cut UTF-8 characters each holds.
  std::vector<TokenDisplay> token_display;
  std::vector<AttentionResult> filtered;   ///< model_run's layers without the hidden tokens; empty
                                           ///< when nothing is hidden.
  bool special_hidden = false;             ///< Special tokens were left out of the pictures.
  std::shared_ptr<const Rollout> rollout;  ///< settings.rollout: the rollout shown instead.
  /// settings.head_roles: every head's role scores (attnlab/head_roles.hpp), from their own pass
  /// over the repeated random sequence, all layers and heads whatever the layer shown. Shared
  /// with the session, which keeps them while model and backend stay.
  std::shared_ptr<const HeadRoles> head_roles;
  std::optional<Overview> overview;  ///< A pooled model view (see Overview).
  /// A model run's interventions and readings (null when none was asked for).
  std::shared_ptr<const Interventions> interventions;

  // A trained translator's part (null otherwise).
  std::shared_ptr<const TranslatorRun> translator;

  /// True for a pooled model view.
  bool pooled() const { return overview.has_value(); }
  /// Number of attention results: 1 for the synthetic lab, the captured layers for a model.
  int entries() const { return model || translator ? static_cast<int>(layers().size()) : 1; }
  /// Attention result `entry` (0 ≤ entry < entries()), shown tokens only.
  const AttentionResult& attention(int entry = 0) const;
  /// A model's (or translator's) shown layers, in layer order (empty in the synthetic lab).
  const std::vector<AttentionResult>& layers() const;
  /// The model layer number of each entry of layers() (empty in the synthetic lab).
  const std::vector<int>& layerIndices() const;
  /// A model's display labels of the shown tokens, UTF-8 (token_display's; empty in the synthetic
  /// lab): what the files write as query_label and key_label beside the raw tokens.
  std::vector<std::string> displayLabels() const;
  /// Why the CPU computed what --backend opencl asked of OpenCL (empty otherwise, and always
  /// empty for "auto", which chooses quietly): the CLI prints it as a note.
  std::string fallbackNote() const;
};

/// What the analysis pictures read of one entry (layer) of a run (run::analyse): its rows'
/// statistics and score histogram, and the heads' mutual Jensen–Shannon divergence.
struct Analysis {
  AttentionSummary summary;   ///< summarizeAttention: per-row entropy, the score histogram.
  HeadSimilarity similarity;  ///< headSimilarity: h × h mean JSD.
};

}  // namespace attnlab::results
