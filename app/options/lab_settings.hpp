#pragma once
/// \file lab_settings.hpp
/// LabSettings: everything that decides one attention computation, as one value type. The option
/// table (options.hpp) fills it from a command line for attention-lab-cli and for the window; the
/// window's inputs panel fills it from its widgets; the compute worker and the CLI both check it
/// with validate() and checkTokens(), so both accept and refuse the same inputs with the same
/// words. Two sources of attention: the synthetic lab (every shape is the user's) and a pretrained
/// model folder (the model decides h, d_model, d_k, the mask and the weights; the scaling and the
/// temperature still apply).

#include <QString>
#include <cstdint>
#include <optional>
#include <string_view>

#include "attnlab/pretrained.hpp"
#include "attnlab/spec.hpp"
#include "attnlab/synthetic.hpp"

class QSettings;

namespace attnlab::options {

/// The cat sentence: the text when none is given.
inline constexpr const char* kDefaultText = "The cat sat on the mat because it was tired.";
/// Most tokens per side (queries, keys) that the CLI and the window compute. At 4096 tokens and
/// 8 heads the scores and weights take 1 GiB.
inline constexpr int kMaxTokens = 4096;

/// Where attention is computed: the choice of --backend, parsed once at the edge (the option
/// table, the window's backend box, the stored settings).
enum class BackendKind {
  kAuto,    ///< OpenCL device `device` when its kernels build, else the CPU.
  kCpu,     ///< The CPU reference.
  kOpenCl,  ///< OpenCL device `device`; the CPU only when it fails (said in the result).
};
/// "auto", "cpu" or "opencl" (the option's own words, as selectBackend takes them).
std::string toString(BackendKind kind);
/// The kind named "auto", "cpu" or "opencl"; nullopt for any other text.
std::optional<BackendKind> parseBackendKind(const QString& name);

/// What to compute. Rows of every result are queries (the text), columns keys (the source when
/// cross-attention, else the text).
struct LabSettings {
  QString text = QString::fromUtf8(kDefaultText);  ///< The sentence (the target when cross).
  QString source;  ///< Non-empty (after trimming): cross-attention, keys and values from this.
  /// additive, dot (q·k, the scaling off) or scaled (q·k/√d_k). A model takes dot or scaled.
  Mechanism mechanism = Mechanism::kScaled;
  std::optional<double> temperature;  ///< Scores ÷ T instead of the mechanism's scale (T > 0).
  int heads = 8;                      ///< h.
  int d_model = 64;                   ///< Embedding width.
  int d_k = 0;                        ///< Query/key width per head; 0 = d_model / heads.
  int d_v = 0;                        ///< Value width per head; 0 = d_k.
  int d_a = 0;                        ///< Additive attention's hidden size; 0 = d_k.
  bool causal = false;                ///< Causal mask (self-attention only).
  std::uint64_t seed = 0;             ///< The synthetic model's seed.
  /// How positions enter (sinusoidal added to the embeddings, RoPE, ALiBi or none).
  Positions positions = Positions::kSinusoidal;
  double rope_base = 10000.0;         ///< RoPE's base (θ_m = base^(−2m/d_k)), > 1.
  int kv_heads = 0;                   ///< K/V heads G (grouped-query attention); 0 = heads.
  int window = 0;                     ///< Sliding window W ≥ 1; 0 = none (self-attention only).
  int global_tokens = 0;              ///< The first K tokens are global; 0 = none.
  int stride = 0;                     ///< Strided keys (with a window); 0 = none.
  int pad_to = 0;                     ///< Pad the text with [PAD] up to N tokens; 0 = none.
  bool pad_mask = true;               ///< Hide the [PAD] keys (false: the classic leak).
  /// The softmax's number format (issue 13): fp32, or fp16 / bf16 emulated on the CPU reference.
  Precision precision = Precision::kFp32;
  SoftmaxKind softmax = SoftmaxKind::kStable;  ///< Stable (max subtracted) or naive exponentials.
  double dropout = 0.0;               ///< Dropout on the weights, 0 ≤ p < 1, drawn from seed.
  BackendKind backend = BackendKind::kAuto;  ///< --backend.
  int device = 0;                     ///< OpenCL device index (listOpenClDevices order).
  /// Non-empty: the absolute path of a HuggingFace model folder whose real forward pass is shown
  /// (then the shapes, the seed, the source, the causal flag and additive do not apply).
  QString model_dir;
  std::optional<int> layer;   ///< Model: the layer shown, 0-based; unset = every layer.
  /// Model, BERT only: the second sentence ([CLS] text [SEP] pair [SEP]) exactly when one is
  /// given (--pair; the window: its field enabled and not empty). Given empty, blank or to a
  /// model without pairs, the forward pass refuses it in its words.
  std::optional<QString> pair;
  bool hide_special = false;  ///< Model: leave special tokens out of the pictures (display only).
  /// Model: show the attention rollout (Abnar & Zuidema 2020) through the layer shown (every
  /// layer when none is chosen) instead of the heads; every layer up to it is captured.
  bool rollout = false;
  /// Model: the most the kept attention of one run may take, in GB (10⁹ bytes); unset = the
  /// default, half of the usable memory (attnlab::defaultMemoryBudget).
  std::optional<double> memory_budget_gb;

  /// True when source holds more than white space.
  bool cross() const { return !source.trimmed().isEmpty(); }
  /// True when a pretrained model folder is the source of attention.
  bool pretrained() const { return !model_dir.isEmpty(); }
  /// True for dot and scaled with the 1/√d_k factor on (the window's scaling check box).
  bool scaled() const { return mechanism == Mechanism::kScaled; }
  /// d_k after the default (d_model / heads; 0 when heads do not divide d_model).
  int resolvedDk() const { return toSpecUnchecked().resolvedDk(); }
  /// K/V heads G after the default (kv_heads, or heads when 0: no grouping).
  int resolvedKvHeads() const { return toSpecUnchecked().resolvedKvHeads(); }

  /// The engine spec (synthetic lab): mechanism, mask pattern (causal, window, global, stride),
  /// shapes, K/V heads, positions, temperature. Runs validate() first, so it throws OptionError
  /// for a bad setting. Key padding goes to runSynthetic as padding().
  AttentionSpec toSpec() const;
  /// The key padding of a synthetic run (pad_to, pad_mask).
  KeyPadding padding() const { return KeyPadding{pad_to, pad_mask}; }
  /// The model-run options: dot or scaled, the temperature, the layer.
  ModelRunOptions toModelOptions() const;

  bool operator==(const LabSettings&) const = default;

 private:
  AttentionSpec toSpecUnchecked() const;
};

/// Checks every field against the option table's limits and the rules between fields (causal
/// with a source, heads dividing d_model without --d-k, additive with a model, the backend name,
/// K/V heads dividing heads, window / global / stride / pad-to with a source, RoPE with an odd
/// d_k, a stride without a window, dropout outside [0, 1), …). Throws OptionError with the message the command line prints (e.g. "--d-k must be between
/// 1 and 1024 (got 0)"). Does not read the text (see checkTokens) nor the model folder.
void validate(const LabSettings& settings);

/// Token counts of a synthetic run (the synthetic lab's tokenizer).
struct TokenCounts {
  int queries = 0;  ///< Tokens of the text.
  int keys = 0;     ///< Tokens of the source (cross), else of the text.
};
/// Tokenizes the text (and the source) of a synthetic run and checks them: not empty, not only
/// white space, at most kMaxTokens per side, no more than pad_to tokens, at least global_tokens
/// tokens. With pad_to, queries and keys count the padded tokens. Throws OptionError ("the text is empty", "the
/// source text has no tokens (only white space)", "the text has 5000 tokens; at most 4096 per
/// side are computed"). A model's own tokenizer counts its tokens (checkModelTokens).
TokenCounts checkTokens(const LabSettings& settings);
/// Checks, before a forward pass, that an encoding of `tokens` tokens (PretrainedModel::encode)
/// fits model: at most its context length (ModelConfig::max_positions: "the text has 80 tokens;
/// tiny-llama reads at most 64 (its context length)") and kMaxTokens ("the text has 5000 tokens;
/// at most 4096 per side are computed"), and that the attention the run keeps
/// (PretrainedModel::attentionBytes for settings' layer) fits the memory budget ("this run would
/// keep 26.5 GB of attention (30 layers × 9 heads × 3500² scores and weights), more than the
/// memory budget of 12.6 GB: choose one layer (--layer), fewer tokens, or a larger
/// --memory-budget"). Throws OptionError.
void checkModelTokens(const PretrainedModel& model, int tokens, const LabSettings& settings);
/// Checks the layer against a loaded model's layers; throws OptionError "--layer 7 does not
/// exist: tiny-gpt2 has layers 0–1 (or use all)".
void checkLayer(const LabSettings& settings, const QString& model_name, int layers);

/// Stores settings as the option table's own arguments ("lab/arguments": what toArguments gives
/// for the window, e.g. --text … --heads 4 --causal). A model's run stores the model's options;
/// the lab's own shapes then come back at their defaults, as `attention-lab --model M` starts.
void saveSettings(QSettings& store, const LabSettings& settings);
/// Loads settings stored by saveSettings through the window's parser: every argument the table
/// (limits and rules between options) accepts in order is kept, one it refuses (an older
/// version's) is dropped and its default kept, so stored inputs never block the window.
LabSettings loadSettings(QSettings& store);

}  // namespace attnlab::options
