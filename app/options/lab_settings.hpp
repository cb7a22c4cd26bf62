#pragma once
/// \file lab_settings.hpp
/// LabSettings: everything that decides one attention computation, as one value type. The option
/// table (options.hpp) fills it from a command line for attention-lab-cli and for the window; the
/// window's inputs panel fills it from its widgets; the compute worker and the CLI both check it
/// with validate(), so both accept and refuse the same inputs with the same
/// words (the checks that read the text or the model are app/run's, run/checks.hpp). Two
/// sources of attention: the synthetic lab (every shape is the user's) and a pretrained
/// model folder (the model decides h, d_model, d_k, the mask and the weights; the scaling and the
/// temperature still apply).

#include <QString>
#include <cstdint>
#include <optional>
#include <string_view>

#include "attnlab/interventions.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/spec.hpp"
#include "attnlab/synthetic.hpp"
#include "attnlab/translator.hpp"

class QSettings;

namespace attnlab::options {

/// The cat sentence: the text when none is given.
inline constexpr const char* kDefaultText = "The cat sat on the mat because it was tired.";
/// Most tokens per side (queries, keys) that the CLI and the window compute. At 4096 tokens and
/// 8 heads the scores and weights take 1 GiB.
inline constexpr int kMaxTokens = 4096;

/// Where attention is computed (--backend): the engine's choice, parsed once at the edge (the
/// option table, the window's backend box, the stored settings).
using attnlab::BackendKind;
/// The kind named "auto", "cpu" or "opencl"; nullopt for any other text.
std::optional<BackendKind> parseBackendKind(const QString& name);

/// Which attention of a trained translator the pictures show (--attention).
enum class TranslatorAttention {
  kCross,        ///< Decoder → encoder: rows = output characters, columns = source characters.
  kEncoderSelf,  ///< The Transformer's encoder self-attention: source × source.
  kDecoderSelf,  ///< The Transformer's decoder causal self-attention: outputs × decoder inputs.
};
/// "cross", "encoder-self" or "decoder-self" (the option's words).
std::string toString(TranslatorAttention attention);
/// The attention named "cross", "encoder-self" or "decoder-self"; nullopt for any other text.
std::optional<TranslatorAttention> parseTranslatorAttention(const QString& name);

/// What to compute. Rows of every result are queries (the text), columns keys (the source when
/// cross-attention, else the text). The engine's part is the engine's own AttentionSpec (`spec`,
/// with its defaults); the rest is what only the lab knows: the texts, the synthetic model's
/// seed, key padding, the backend and the model to run.
struct LabSettings {
  QString text = QString::fromUtf8(kDefaultText);  ///< The sentence (the target when cross).
  QString source;  ///< Non-empty (after trimming): cross-attention, keys and values from this.
  /// What to compute, as the engine takes it: the mechanism (additive, dot, scaled, linear; a
  /// model takes dot or scaled), the temperature, the mask (kCausal: --causal, self-attention
  /// only), h, d_model, d_k, d_v, d_a, K/V heads, the sliding window, global tokens, the stride,
  /// positions and RoPE's base, the softmax's precision and kind, dropout. Its derived parts
  /// (dropout_seed, valid_keys) are not read here: toSpec() sets dropout_seed from `seed`, and
  /// the synthetic run sets valid_keys from padding(). With a model, the model decides the
  /// shapes, the mask and the rest; only the mechanism's scaling and the temperature apply.
  AttentionSpec spec;
  std::uint64_t seed = 0;             ///< The synthetic model's seed (also dropout's draws).
  int pad_to = 0;                     ///< Pad the text with [PAD] up to N tokens; 0 = none.
  bool pad_mask = true;               ///< Hide the [PAD] keys (false: the classic leak).
  BackendKind backend = BackendKind::kAuto;  ///< --backend.
  int device = 0;                     ///< OpenCL device index (listOpenClDevices order).
  /// Non-empty: the absolute path of a HuggingFace model folder whose real forward pass is shown
  /// (then the shapes, the seed, the source, the causal flag and additive do not apply).
  QString model_dir;
  /// model_dir is a trained translator (attnlab::isTranslatorFolder, decided where model_dir is
  /// set: the --model option, the window's model list). Then `source` is the input, `text` the
  /// forced target (empty: greedy decoding), and `translator_attention` the attention shown.
  bool translator = false;
  TranslatorAttention translator_attention = TranslatorAttention::kCross;
  std::optional<int> layer;   ///< Model: the layer shown, 0-based; unset = every layer.
  /// Model, BERT only: the second sentence ([CLS] text [SEP] pair [SEP]) exactly when one is
  /// given (--pair; the window: its field enabled and not empty). Given empty, blank or to a
  /// model without pairs, the forward pass refuses it in its words.
  std::optional<QString> pair;
  bool hide_special = false;  ///< Model: leave special tokens out of the pictures (display only).
  /// Model: show the attention rollout (Abnar & Zuidema 2020) through the layer shown (every
  /// layer when none is chosen) instead of the heads; every layer up to it is captured.
  bool rollout = false;
  /// Model: also score every head's roles (previous-token, duplicate-token, induction, sink,
  /// local, broad; attnlab/head_roles.hpp) in a pass of their own over the repeated random
  /// sequence (Run::head_roles; compute --head-roles, render --plot head-roles, the window's
  /// role badges). Independent of the text: the session keeps them while the model stays.
  bool head_roles = false;
  /// Model: the weight products (prompts, each generated token's step, the next-token
  /// predictions) multiply Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, IQ4_NL and IQ4_XS weights by int8
  /// activations, as llama.cpp does
  /// (ModelRunOptions::int8_activations): faster, not float32's numbers; the pictures say so.
  bool int8_activations = false;
  /// Model: heads whose output before W_O is replaced (--ablate L.H,…; the window: a head's
  /// context menu), every later layer recomputed; empty: none (attnlab/interventions.hpp).
  std::vector<HeadRef> ablate;
  AblationMode ablation = AblationMode::kZero;  ///< --ablation zero | mean | uniform.
  /// Model with next-token predictions: the logit lens (each layer's residual stream decoded),
  /// compute --logit-lens, render --plot logit-lens.
  bool logit_lens = false;
  /// Model with next-token predictions: direct logit attribution per head (compute --dla,
  /// render --plot dla) of --target (default: the prediction), minus --versus when given.
  bool dla = false;
  QString target;  ///< --target: one token of the model (empty: the prediction).
  QString versus;  ///< --versus: one token (empty: none; patching: the corrupted prediction).
  /// Activation patching from the corrupted prompt --patch-from TEXT (the same number of tokens
  /// as --text) into it: render --plot patching, compute's "patching".
  QString patch_from;
  /// Model: the cells show value-weighted attention α_ij·‖v_j W_O^h‖, normalised per row
  /// (Kobayashi et al. 2020), instead of the weights α_ij.
  bool value_weighted = false;
  /// True when the run keeps the residual stream for an intervention or a reading of it.
  bool interventions() const {
    return !ablate.empty() || logit_lens || dla || !patch_from.isEmpty();
  }
  /// Model: the most one run may take — weights, activations, kept attention (and a
  /// generation's KV cache) — in GB (10⁹ bytes); unset = the default, 80 % of the memory
  /// available when the run starts (PretrainedModel::memoryBudget).
  std::optional<double> memory_budget_gb;

  /// True when source holds more than white space.
  bool cross() const { return !source.trimmed().isEmpty(); }
  /// True when a pretrained model folder is the source of attention.
  bool pretrained() const { return !model_dir.isEmpty(); }
  /// True for dot and scaled with the 1/√d_k factor on (the window's scaling check box).
  bool scaled() const { return spec.mechanism == Mechanism::kScaled; }
  /// True with the causal mask (--causal: spec.mask is Mask::kCausal).
  bool causal() const { return spec.mask == Mask::kCausal; }
  /// Sets spec.mask to the causal mask (on) or none.
  void setCausal(bool on) { spec.mask = on ? Mask::kCausal : Mask::kNone; }

  /// The engine spec of the synthetic lab: `spec` with dropout's seed set from `seed`.
  /// Validates first (validate()), so it throws OptionError for a bad setting. Key padding goes
  /// to runSynthetic as padding().
  AttentionSpec toSpec() const;
  /// The key padding of a synthetic run (pad_to, pad_mask).
  KeyPadding padding() const { return KeyPadding{pad_to, pad_mask}; }
  /// The model-run options: dot or scaled, the temperature, the layer.
  ModelRunOptions toModelOptions() const;

  bool operator==(const LabSettings&) const = default;
};

/// Checks every field against the option table's limits and the rules between fields (causal
/// with a source, heads dividing d_model without --d-k, additive with a model, the backend name,
/// K/V heads dividing heads, window / global / stride / pad-to with a source, RoPE with an odd
/// d_k, a stride without a window, dropout outside [0, 1), …). Throws OptionError with the message the command line prints (e.g. "--d-k must be between
/// 1 and 1024 (got 0)"). Does not read the text nor the model folder (run/checks.hpp does).
void validate(const LabSettings& settings);

/// Stores settings as the option table's own arguments ("lab/arguments": what toArguments gives
/// for the window, e.g. --text … --heads 4 --causal). A model's run stores the model's options;
/// the lab's own shapes then come back at their defaults, as `attention-lab --model M` starts.
void saveSettings(QSettings& store, const LabSettings& settings);
/// Loads settings stored by saveSettings through the window's parser: every argument the table
/// (limits and rules between options) accepts in order is kept, one it refuses (an older
/// version's) is dropped and its default kept, so stored inputs never block the window.
LabSettings loadSettings(QSettings& store);

}  // namespace attnlab::options
