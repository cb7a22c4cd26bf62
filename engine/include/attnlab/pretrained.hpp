#pragma once
/// \file pretrained.hpp
/// Real pretrained transformers read from a HuggingFace model folder (config.json,
/// model.safetensors, tokenizer files): BERT (Devlin et al. 2019; covers MiniLM and
/// sentence-transformers' all-MiniLM-L6-v2) and GPT-2 (Radford et al. 2019). The engine runs the
/// model's own forward pass in float32 and keeps every layer's per-head scores and weights; the
/// attention inside each layer goes through a Backend, so what the heatmaps show is exactly what
/// the next layer received.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/backend.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "attnlab/spec.hpp"

namespace attnlab {

/// The architectures the engine can run.
enum class Architecture {
  kBert,  ///< Post-LayerNorm encoder, bidirectional self-attention, learned absolute positions.
  kGpt2,  ///< Pre-LayerNorm decoder, causal self-attention, learned absolute positions.
};

/// What config.json says, reduced to what the forward pass needs.
struct ModelConfig {
  Architecture architecture = Architecture::kBert;
  std::string model_type;     ///< "bert" or "gpt2", as written in config.json.
  int layers = 0;             ///< num_hidden_layers / n_layer.
  int heads = 0;              ///< num_attention_heads / n_head.
  int d_model = 0;            ///< hidden_size / n_embd.
  int d_ff = 0;               ///< intermediate_size / n_inner (GPT-2 default 4·d_model).
  int max_positions = 0;      ///< max_position_embeddings / n_positions: the longest input.
  int vocab_size = 0;
  int type_vocab_size = 0;    ///< BERT's segment count (0 for GPT-2).
  double layer_norm_eps = 0;  ///< layer_norm_eps / layer_norm_epsilon.
  std::string activation;     ///< hidden_act / activation_function: gelu, gelu_new, relu ...
  bool scale_attention = true;  ///< GPT-2's scale_attn_weights; always true for BERT.

  /// d_k = d_v = d_model / heads.
  int dK() const { return heads > 0 ? d_model / heads : 0; }
  /// The mask the architecture uses: none for BERT, causal for GPT-2.
  Mask mask() const { return architecture == Architecture::kGpt2 ? Mask::kCausal : Mask::kNone; }
};

/// Reads config.json. Throws Error(kIo) when missing, Error(kInvalidInput) for malformed JSON or a
/// missing/invalid field (naming it), Error(kInvalidArgument) for an unknown model_type (naming it
/// and the supported ones) or an unsupported option (e.g. relative position embeddings).
ModelConfig readModelConfig(const std::filesystem::path& config_json);

/// How to run a model: the attention settings the lab lets a user change on a real model.
struct ModelRunOptions {
  /// kScaled (1/√d_k) or kDot (scaling switched off); unset = what the model was trained with
  /// (kScaled, or kDot for a GPT-2 with scale_attn_weights false). kAdditive is refused.
  std::optional<Mechanism> mechanism;
  /// Divides scores by T instead of √d_k (see AttentionSpec::temperature).
  std::optional<double> temperature;
  /// The layer whose attention is kept; unset keeps every layer. Layers are 0-based.
  std::optional<int> layer;
};

/// One forward pass with the captured attention.
struct ModelRun {
  Encoding encoding;        ///< Tokens exactly as the model received them.
  /// The captured layers' attention, in layer order: scores (after the scale, before the mask)
  /// and weights [h, n, n], head outputs [h, n, d_k], per-row statistics.
  std::vector<AttentionResult> attention;
  std::vector<int> layers;  ///< The layer index of each entry of `attention`.
  Matrix hidden;            ///< The last computed layer's output hidden states [n, d_model].
  double compute_ms = 0;    ///< Wall time of tokenize + forward pass, ms.
};

/// A loaded model: config, weights (float32 in memory) and tokenizer.
class PretrainedModel {
 public:
  /// Loads a HuggingFace model folder. Throws Error(kIo) naming a missing or unreadable file,
  /// Error(kInvalidInput) for a malformed safetensors file or a missing / wrongly shaped weight
  /// (naming the tensor), Error(kInvalidArgument) for an unknown architecture.
  static std::unique_ptr<PretrainedModel> load(const std::filesystem::path& dir);
  virtual ~PretrainedModel() = default;

  const ModelConfig& config() const { return config_; }
  const ModelTokenizer& tokenizer() const { return *tokenizer_; }
  /// The folder's name, e.g. "all-MiniLM-L6-v2".
  const std::string& name() const { return name_; }
  const std::filesystem::path& directory() const { return dir_; }
  /// Time taken by load(), ms.
  double loadMs() const { return load_ms_; }

  /// Tokenizes text (and `pair`, BERT only: [CLS] a [SEP] b [SEP]) and runs the forward pass up to
  /// the last layer to keep, on `backend`. Throws Error(kInvalidInput) for an empty text or pair,
  /// one that gives the model's tokenizer no tokens (its rule, in its words: white space is content
  /// for GPT-2's byte-level BPE, dropped by BERT's WordPiece), invalid UTF-8 or more tokens than
  /// the model's max_positions; Error(kInvalidArgument) for additive
  /// attention, a layer out of range, a pair for GPT-2, or an invalid temperature.
  ModelRun run(std::string_view text, std::optional<std::string_view> pair,
               const ModelRunOptions& options, Backend& backend) const;

  /// Runs given ids (and type ids; empty = all 0) through the model; encoding labels are the ids.
  ModelRun runIds(const Encoding& encoding, const ModelRunOptions& options, Backend& backend) const;

 protected:
  PretrainedModel() = default;
  virtual Matrix embed(const Encoding& encoding) const = 0;
  /// Layer l applied to hidden states x [n, d_model]; writes the layer's attention into *attention.
  virtual Matrix layer(int l, const Matrix& x, const AttentionSpec& spec, Backend& backend,
                       AttentionResult* attention) const = 0;

  ModelConfig config_;
  std::unique_ptr<ModelTokenizer> tokenizer_;
  std::string name_;
  std::filesystem::path dir_;
  double load_ms_ = 0;
};

}  // namespace attnlab
