#pragma once
/// \file translator.hpp
/// The project's own trained character-level translators (issue 23): small encoder–decoders that
/// rewrite a date written many ways ("March 3rd, 2021", "二〇二一年三月三日") as ISO "2021-03-03",
/// trained by tests/reference/train_translators.py and shipped in resources/models/. Two
/// architectures:
/// - "attnlab-additive-gru": a bidirectional GRU encoder, a GRU decoder and additive attention
///   e_ij = vᵀ tanh(W_a s_{i−1} + U_a h_j), α_ij = softmax_j(e_ij), c_i = Σ_j α_ij h_j (Bahdanau,
///   Cho & Bengio 2015, eqs. 5–6 and appendix A);
/// - "attnlab-transformer": a pre-LayerNorm Transformer encoder–decoder with sinusoidal positions,
///   encoder self-attention, decoder causal self-attention and decoder → encoder cross-attention
///   (Vaswani et al. 2017, §3.2.3, §3.5), optionally trained without the 1/√d_k factor.
/// The file layout (config.json, vocab.json, model.safetensors) is docs/DESIGN.md's "Trained
/// translators". Greedy decoding or teacher forcing keeps every step's attention.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/backend.hpp"
#include "attnlab/spec.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

/// The two translator architectures.
enum class TranslatorKind {
  kAdditiveGru,  ///< config.json model_type "attnlab-additive-gru" (Bahdanau et al. 2015).
  kTransformer,  ///< config.json model_type "attnlab-transformer" (Vaswani et al. 2017).
};

/// What a translator's config.json says. Counts are positive; fields of the other architecture
/// are 0.
struct TranslatorConfig {
  TranslatorKind kind = TranslatorKind::kAdditiveGru;
  std::string model_type;     ///< "attnlab-additive-gru" or "attnlab-transformer".
  std::string task;           ///< "dates".
  int max_source_length = 0;  ///< Source characters read at most (no specials on that side).
  int max_target_length = 0;  ///< Target tokens written at most, the final </s> included.
  // The training run (shown in the window's info line and the pictures' notes).
  double test_accuracy = 0;     ///< Exact-match accuracy on the held-out test set, in [0, 1].
  int test_examples = 0;        ///< Size of that test set.
  double training_seconds = 0;  ///< Wall time of the training, s.
  // attnlab-additive-gru
  int embedding_dim = 0;   ///< e: source and target character embeddings.
  int encoder_hidden = 0;  ///< n: per direction (annotations h_j have 2n components).
  int decoder_hidden = 0;  ///< n_d: the decoder state s_i.
  int attention_dim = 0;   ///< d_a: the width of W_a s and U_a h.
  // attnlab-transformer
  int d_model = 0;
  int heads = 0;           ///< h.
  int d_k = 0;             ///< Per head, = d_v; h·d_k need not equal d_model.
  int d_ff = 0;
  int encoder_layers = 0;
  int decoder_layers = 0;
  /// True: scores q·k/√d_k (Vaswani et al. 2017, eq. 1); false: the model was trained on q·k.
  bool scale_attention = true;
  double layer_norm_eps = 1e-5;
  double embedding_scale = 1;  ///< Embeddings are multiplied by it (√d_model) before PE is added.
};

/// Reads a translator's config.json. Throws Error(kIo) when missing, Error(kInvalidInput) naming
/// a missing or invalid field ("config.json: heads must be a positive integer"), and
/// Error(kInvalidArgument) for a model_type that is not a translator's.
TranslatorConfig readTranslatorConfig(const std::filesystem::path& config_json);

/// True when `path` is a folder whose config.json names a translator model_type ("attnlab-…").
/// Reads only config.json; never throws (an unreadable file is "no").
bool isTranslatorFolder(const std::filesystem::path& path);

/// The character vocabularies of vocab.json: id = index; ids 0–3 are the specials in both.
struct TranslatorVocab {
  static constexpr int kPad = 0;  ///< "<pad>"
  static constexpr int kBos = 1;  ///< "<s>": the decoder's first input.
  static constexpr int kEos = 2;  ///< "</s>": the end of the output.
  static constexpr int kUnk = 3;  ///< "<unk>"
  std::vector<std::string> source;  ///< One UTF-8 character per entry past the specials.
  std::vector<std::string> target;
};

/// How to run a translator.
struct TranslatorOptions {
  /// Unset: greedy decoding. Set: teacher forcing — these characters, then </s>, are the outputs
  /// y_1 … y_T and the decoder reads <s>, y_1 … y_{T−1}.
  std::optional<std::string> target;
  /// The Transformer's scores: kScaled (q·k/√d_k), kDot (q·k); unset = what the model was trained
  /// with. The additive model takes only kAdditive or unset.
  std::optional<Mechanism> mechanism;
  /// Divides every attention score by T instead of the mechanism's scale (e/T for additive
  /// attention, q·k/T for the Transformer); finite and > 0.
  std::optional<double> temperature;
};

/// One of the most probable tokens of a step.
struct TranslatorToken {
  int id = 0;
  std::string text;        ///< The character, or "<s>", "</s>", "<pad>", "<unk>".
  double probability = 0;  ///< softmax of the step's logits, in [0, 1].
  double logit = 0;
};

/// One decoder step i (1-based in the papers, 0-based here).
struct TranslatorStep {
  int input = 0;       ///< y_{i−1}, the decoder's input (<s> first).
  TranslatorToken output;  ///< y_i with its probability (greedy: the most probable).
  std::vector<TranslatorToken> top;  ///< The 5 most probable tokens, most probable first.
};

/// One translation with every step's attention. T = steps, n_s = source characters.
struct Translation {
  std::vector<int> source_ids;            ///< [n_s]
  std::vector<std::string> source_chars;  ///< [n_s] UTF-8 characters.
  std::vector<int> decoder_inputs;        ///< [T]: <s>, y_1 … y_{T−1}.
  std::vector<int> target_ids;            ///< [T]: y_1 … y_T (</s> last when finished).
  std::vector<std::string> target_chars;  ///< [T]: y_i as text ("</s>" for the end).
  std::string output;  ///< The output characters, specials left out ("2021-03-03").
  bool forced = false;    ///< Teacher forcing (TranslatorOptions::target).
  bool finished = false;  ///< The last output is </s> (greedy: else max_target_length was hit).
  Matrix logits;          ///< [T, V_t]
  std::vector<TranslatorStep> steps;  ///< [T]
  /// The additive model: one head, scores e_ij (divided by the temperature) and weights α_ij
  /// [1, T, n_s]. Empty for the Transformer.
  AttentionResult additive;
  /// The Transformer, one result per layer: encoder self-attention [h, n_s, n_s], decoder causal
  /// self-attention [h, T, T], cross-attention [h, T, n_s] (queries: decoder positions; keys:
  /// source characters). Empty for the additive model.
  std::vector<AttentionResult> encoder_self, decoder_self, cross;
  double compute_ms = 0;  ///< Wall time of translate(), ms.
};

/// A loaded translator.
class Translator {
 public:
  /// Loads a folder with config.json, vocab.json and model.safetensors. Throws Error(kIo) naming
  /// a missing file, Error(kInvalidInput) for a malformed file, a missing field, a vocabulary
  /// entry that is not one character (naming it), a missing or wrongly shaped tensor (naming
  /// it and both shapes), Error(kInvalidArgument) for a model_type that is not a translator's.
  static std::unique_ptr<Translator> load(const std::filesystem::path& dir);
  virtual ~Translator() = default;

  const TranslatorConfig& config() const { return config_; }
  const TranslatorVocab& vocab() const { return vocab_; }
  /// The folder's name, e.g. "dates-additive".
  const std::string& name() const { return name_; }
  const std::filesystem::path& directory() const { return dir_; }
  double loadMs() const { return load_ms_; }
  /// Attention layers a picture can show: 1 for the additive model, else max(encoder, decoder
  /// layers).
  int attentionLayers() const;

  /// The source ids of `source`, one per character. Throws Error(kInvalidInput) for invalid
  /// UTF-8, an empty source, "the source has 40 characters; dates-additive reads at most 32", or
  /// "'€' (U+20AC) at position 4 is not in dates-additive's source vocabulary".
  std::vector<int> encodeSource(std::string_view source) const;
  /// The target ids of forced output characters, </s> appended. Throws Error(kInvalidInput) for
  /// an empty target, more than max_target_length − 1 characters, or a character outside the
  /// target vocabulary (naming it and its position).
  std::vector<int> encodeTarget(std::string_view target) const;

  /// Translates `source` (greedy, or teacher-forced with options.target) and keeps every step's
  /// attention. The Transformer's attention goes through `backend`; the additive model computes
  /// its own (the CPU reference's softmax and statistics). Throws the encode errors and
  /// Error(kInvalidArgument) for a mechanism the model does not have or a bad temperature.
  Translation translate(std::string_view source, const TranslatorOptions& options,
                        Backend& backend) const;

  /// The text of target id `id` ("</s>" for the end).
  const std::string& targetText(int id) const;

 protected:
  Translator() = default;
  /// Runs the model on checked ids: `forced` are the outputs y_1 … y_T of teacher forcing, or
  /// empty for greedy decoding. Fills everything of Translation but the texts and the timing.
  virtual Translation run(const std::vector<int>& source_ids, const std::vector<int>& forced,
                          const TranslatorOptions& options, Backend& backend) const = 0;
  /// Fills steps (output, top 5) from logits, decoder_inputs and target_ids.
  void fillSteps(Translation& t) const;

  TranslatorConfig config_;
  TranslatorVocab vocab_;
  std::string name_;
  std::filesystem::path dir_;
  double load_ms_ = 0;
};

}  // namespace attnlab
