#pragma once
/// \file pretrained.hpp
/// Real pretrained transformers read from a HuggingFace model folder (config.json,
/// model.safetensors, tokenizer files) or a GGUF file (llama.cpp's format, weights dequantised):
/// BERT (Devlin et al. 2019; covers MiniLM and sentence-transformers' all-MiniLM-L6-v2), GPT-2
/// (Radford et al. 2019) and the Llama family (Touvron et al. 2023; SmolLM2, TinyLlama, Llama 2/3
/// layouts: RMSNorm, RoPE, grouped-query attention, SwiGLU; with Qwen2/Qwen2.5's Q/K/V biases,
/// Mistral's sliding window, Phi-3's fused projections and window). The engine runs the model's own forward pass
/// in float32 and keeps every layer's per-head scores and weights; the attention inside each layer
/// goes through a Backend, so what the heatmaps show is exactly what the next layer received.

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/interventions.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "attnlab/overview.hpp"
#include "attnlab/positions.hpp"
#include "attnlab/spec.hpp"

namespace attnlab {

/// The architectures the engine can run.
enum class Architecture {
  kBert,  ///< Post-LayerNorm encoder, bidirectional self-attention, learned absolute positions.
  kGpt2,  ///< Pre-LayerNorm decoder, causal self-attention, learned absolute positions.
  /// Pre-RMSNorm decoder, causal self-attention with RoPE on queries and keys and grouped-query
  /// attention, SwiGLU feed-forward (Touvron et al. 2023, §2.2). One decoder with options covers
  /// the family: model_type "llama", "mistral" (Jiang et al. 2023: a sliding window, see
  /// ModelConfig::layer_window), "qwen2" (Qwen2/Qwen2.5: biases on the Q, K and V projections,
  /// ModelConfig::qkv_bias) and "phi3" (Abdin et al. 2024: W_Q | W_K | W_V and W_gate | W_up stored
  /// fused, optionally a sliding window).
  kLlama,
  /// Gemma 2 (Gemma Team 2024, arXiv:2408.00118, §2): as Llama with the embedding scaled by
  /// √d_model, RMSNorms (1 + w) before and after the attention and the feed-forward, GeGLU,
  /// scores scaled by 1/√query_pre_attn_scalar and soft-capped, alternating local (sliding
  /// window) and global layers, final logits soft-capped.
  kGemma2,
  /// Gemma 3 (Gemma Team 2025, arXiv:2503.19786, §2): as Gemma 2 without soft-capping, with
  /// queries and keys RMS-normalised per head, five local layers (RoPE base 10 000) to one
  /// global (rope_theta).
  kGemma3,
};

/// "bert", "gpt2", "llama", "gemma2" or "gemma3".
std::string toString(Architecture architecture);

/// The architectures the engine runs, by the names the files give them: config.json's model_type
/// and a GGUF file's general.architecture. The one list that load errors quote ("… is not
/// supported (supported: …)"); an architecture added to the engine is added here.
struct SupportedArchitectures {
  std::vector<std::string> model_types;  ///< config.json model_type: "bert", "gpt2", "llama" …
  std::vector<std::string> gguf;         ///< GGUF general.architecture: "llama", "qwen2" …
};
const SupportedArchitectures& supportedArchitectures();

/// The one-line refusal of an architecture the engine does not run: `FIELD "NAME" is not supported
/// (supported: config.json model_type bert, gpt2, …; GGUF general.architecture llama, …)`, FIELD
/// being "model_type" or "general.architecture". Error(kInvalidArgument), which the CLI maps to
/// exit 2.
Error unsupportedArchitecture(const std::string& field, const std::string& name);

/// What config.json (or a GGUF file's llama.* keys) says, reduced to what the forward pass needs.
struct ModelConfig {
  Architecture architecture = Architecture::kBert;
  /// config.json's model_type ("bert", "gpt2", "llama", "mistral", "qwen2", "phi3"); for a GGUF
  /// file its general.architecture ("llama", "qwen2", "phi3"; llama.cpp writes Mistral as llama).
  std::string model_type;
  std::string format;         ///< Where the weights came from: "safetensors" or "gguf".
  /// The weights' element type as stored: a GGUF file's quantisation as its header names it
  /// ("Q4_K_M", "Q4_1", "F16" ...; else the type holding most bytes) or the safetensors dtype of
  /// the embedding ("F32", "BF16" ...). Computation is float32.
  std::string weight_type;
  int layers = 0;             ///< num_hidden_layers / n_layer / block_count.
  int heads = 0;              ///< Query heads h: num_attention_heads / n_head / head_count.
  /// K/V heads G (grouped-query attention, G divides h; Ainslie et al. 2023): num_key_value_heads
  /// / head_count_kv. Equal to heads for BERT and GPT-2 (multi-head attention).
  int kv_heads = 0;
  /// G after the default: kv_heads, or heads when the file names none (no grouping).
  int resolvedKvHeads() const { return kv_heads > 0 ? kv_heads : heads; }
  int d_model = 0;            ///< hidden_size / n_embd / embedding_length.
  int d_ff = 0;               ///< intermediate_size / n_inner (GPT-2 default 4·d_model).
  int max_positions = 0;      ///< max_position_embeddings / n_positions / context_length.
  int vocab_size = 0;
  int type_vocab_size = 0;    ///< BERT's segment count (0 otherwise).
  /// layer_norm_eps / layer_norm_epsilon; Llama: the RMSNorm epsilon (rms_norm_eps,
  /// attention.layer_norm_rms_epsilon).
  double layer_norm_eps = 0;
  std::string activation;     ///< hidden_act / activation_function: gelu, gelu_new, relu, silu.
  bool scale_attention = true;  ///< GPT-2's scale_attn_weights; always true otherwise.
  /// Width of one head (d_k = d_v) when given explicitly (head_dim / attention.key_length);
  /// 0 means d_model / heads.
  int head_dim = 0;
  /// RoPE base (Su et al. 2021; rope_theta / rope.freq_base, e.g. 100000 for SmolLM2); 0 for
  /// models without RoPE.
  double rope_base = 0;
  int rope_dims = 0;              ///< Dimensions rotated per head (the whole head here); 0: none.
  /// How the RoPE frequencies are stretched (rope_scaling, rope.scaling.*, rope_freqs.weight);
  /// none by default. See RopeScaling.
  RopeScaling rope_scaling;
  bool tied_embeddings = false;   ///< The output layer is the token embedding (Llama, GPT-2).
  /// The Q, K and V projections have biases, x W_Qᵀ + b_Q … (Qwen2/Qwen2.5: q_proj.bias …,
  /// GGUF blk.N.attn_q.bias …); the output projection has none.
  bool qkv_bias = false;
  /// Sliding-window attention per layer (Mistral, Jiang et al. 2023; Gemma 2/3's local layers):
  /// layer_window[l] = W > 0 lets query i see keys j with i − j < W (W keys, itself included, as
  /// MaskPattern::window); 0 = a global layer. Empty: no layer has a window.
  std::vector<int> layer_window;
  /// Inputs longer than this many tokens are refused naming agreed_positions_field (0: no such
  /// limit): a field the model's references read differently only beyond it — Qwen2's
  /// sliding_window W without use_sliding_window, or with max_window_layers > 0 (transformers
  /// 4.49's eager attention windows every layer, the model's definition none or only the upper
  /// layers; on inputs of at most W tokens no window binds, so both give the same numbers).
  int agreed_positions = 0;
  std::string agreed_positions_field;  ///< e.g. "sliding_window 4096 with use_sliding_window false …"
  /// kScaled's width (AttentionSpec::scale_width): scores are q·k/√scale_width; 0 means d_k.
  /// Gemma's query_pre_attn_scalar (GGUF: llama.cpp's rule, key_length or d_model/h for 27B).
  double scale_width = 0;
  /// Attention-logit soft-cap c (AttentionSpec::score_cap; Gemma 2's attn_logit_softcapping,
  /// gemma2.attn_logit_softcapping); 0 = none.
  double attn_softcap = 0;
  /// Final-logit soft-cap: next-token logits become c·tanh(logit/c) (Gemma 2's
  /// final_logit_softcapping); 0 = none.
  double final_softcap = 0;
  /// RoPE base of the local (sliding-window) layers (Gemma 3's rope_local_base_freq); 0 = every
  /// layer rotates with rope_base.
  double rope_local_base = 0;
  /// The window of layer l (0: global, also past the end of layer_window).
  int windowOf(int l) const {
    return l >= 0 && l < static_cast<int>(layer_window.size())
               ? layer_window[static_cast<std::size_t>(l)]
               : 0;
  }

  /// d_k = d_v: head_dim, else d_model / heads.
  int dK() const { return head_dim > 0 ? head_dim : (heads > 0 ? d_model / heads : 0); }
  /// The mask the architecture uses: none for BERT, causal for GPT-2 and Llama.
  Mask mask() const { return architecture == Architecture::kBert ? Mask::kNone : Mask::kCausal; }
  /// The K/V head query head i reads (see kvHeadOf in spec.hpp): i for multi-head attention.
  int kvHeadOf(int query_head) const {
    return attnlab::kvHeadOf(query_head, heads, resolvedKvHeads());
  }
  /// Bytes a float32 KV cache needs per token for the whole model: 2 (K and V) · layers ·
  /// kv_heads · d_k · 4.
  long long kvCacheBytesPerToken() const {
    return 2LL * layers * resolvedKvHeads() * dK() * 4;
  }
  /// The same for multi-head attention with as many K/V heads as query heads: what GQA saves.
  long long mhaKvCacheBytesPerToken() const { return 2LL * layers * heads * dK() * 4; }
  /// The tokens that end a generation (generate.hpp), as the file names them: a GGUF file's
  /// tokenizer.ggml.eos_token_id, eot_token_id and eom_token_id; config.json's eos_token_id (a
  /// number or a list). Empty: the file names none.
  std::vector<int> eos_token_ids;
};

/// Reads config.json. Throws Error(kIo) when missing, Error(kInvalidInput) for malformed JSON or a
/// missing/invalid field (naming it), Error(kInvalidArgument) for an unknown model_type (naming it
/// and the supported ones, unsupportedArchitecture) or an unsupported option (naming the field:
/// e.g. relative position embeddings, Phi-3's partial_rotary_factor, a Qwen2 sliding window that
/// transformers 4.49 and the model's definition apply differently).
ModelConfig readModelConfig(const std::filesystem::path& config_json);

/// What a run holds at its peak, in bytes, known before it starts (PretrainedModel::memoryNeeds,
/// inspectModel): the parts a refusal names.
struct MemoryNeeds {
  /// The weights as the engine holds them: a GGUF file's tensors and a Llama-family or Gemma
  /// folder's safetensors as stored (their pages, mapped), BERT's and GPT-2's float32 copies.
  long long weights = 0;
  /// The hidden states and products of the largest step of the pass that live at once, the
  /// products' dequantised panels and the next-token logits; with interventions also the kept
  /// residual stream, head outputs and value norms (ModelRunOptions::keep_*), and the rows
  /// decoded for the next tokens' losses.
  long long activations = 0;
  long long attention = 0;  ///< The attention kept (PretrainedModel::attentionBytes).
  long long kv_cache = 0;   ///< A generation's float32 keys and values; 0 for one pass.
  /// What the budget is compared with: the four parts above.
  long long total() const { return weights + activations + attention + kv_cache; }
  /// The process's own memory before the run, its weights not counted (the program and its
  /// libraries, the tokenizer, the model's tables, what earlier runs left): VmRSS less the mapped
  /// weights' resident pages or the copied weights, when the run was checked; 0 where not
  /// measured. Not part of total(): the memory
  /// available (memory.hpp) already excludes it.
  long long process = 0;
  /// The resident memory the process should reach at the run's peak: process + total().
  long long peak() const { return process + total(); }
};

/// How to run a model: the attention settings the lab lets a user change on a real model.
struct ModelRunOptions {
  /// kScaled (the model's own 1/√d_k, 1/√query_pre_attn_scalar for Gemma) or kDot (scaling
  /// switched off: no factor at all); unset = what the model was trained with (kScaled, or kDot
  /// for a GPT-2 with scale_attn_weights false). kAdditive is refused. A model's soft-cap
  /// (Gemma 2) applies either way.
  std::optional<Mechanism> mechanism;
  /// Divides scores by T instead of the model's √d_k or √query_pre_attn_scalar (see
  /// AttentionSpec::temperature).
  std::optional<double> temperature;
  /// The layer whose attention is kept; unset keeps every layer. Layers are 0-based.
  std::optional<int> layer;
  /// ≥ 1: every layer not kept in full keeps only its weights pooled over blocks of this many
  /// tokens a side (PooledAttention, overview.hpp: a model view's thumbnails) — all layers but
  /// `layer`, or every layer when `layer` is unset — and the pass runs through every layer.
  /// 0 (the default): no overviews; the layers not kept are computed and dropped.
  int overview_block = 0;
  /// How many next-token predictions to return for the last position (0: none). With an output
  /// layer (Llama, GPT-2) the pass then runs through every layer even when `layer` is set.
  int next_tokens = 5;
  /// The most the run may take, in bytes — weights, activations, kept attention and KV cache
  /// together (PretrainedModel::memoryNeeds) — 0: the default, a share of the memory available
  /// when the run starts (PretrainedModel::memoryBudget, memory.hpp). A run that needs more is
  /// refused before any layer runs.
  long long memory_budget = 0;
  /// The weight products (a prompt's, a generation's steps, the logits) of Q8_0, Q4_0, Q4_1,
  /// Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, IQ4_NL and IQ4_XS weights multiply the activations quantised to int8, as llama.cpp computes (its Q8_0 / Q8_K
  /// activations: blocks of 32 or 256 with one scale, max |x| / 127): faster on every CPU path,
  /// but no longer HuggingFace's float32 numbers (a product moves by about 0.4 % of its size). Off
  /// by default; the pictures say when it is on. Other types stay float32
  /// (linear::Int8ActivationsScope has the details).
  bool int8_activations = false;
  /// Heads whose output (before W_O) is replaced in this pass (interventions.hpp); every later
  /// layer sees the change. Empty: none. Heads out of range are refused (kInvalidArgument).
  Ablation ablation;
  /// Activations copied from another run of the same length (interventions.hpp). Empty: none.
  Patch patch;
  /// Starts the pass at resume->layer with its hidden states (the layers below are not run and
  /// keep no attention; ModelRun::layers says which are there). Null: from the embeddings.
  std::shared_ptr<const Resume> resume;
  /// Keep the residual stream: ModelRun::residual.
  bool keep_residual = false;
  /// Keep every layer's head outputs before W_O: ModelRun::context.
  bool keep_context = false;
  /// Keep ‖v_j W_O^h‖ per layer, head and key: ModelRun::value_norms.
  bool keep_value_norms = false;
  /// Compute each next token's loss: ModelRun::token_loss (models with an output layer).
  bool token_loss = false;
  /// Called after each layer with (layers done, layers the pass runs), on the thread that called
  /// run(); returning false stops the pass (Error kCancelled). Empty: no reports.
  std::function<bool(int done, int total)> progress;
  /// Called once the run's memory is known and within the budget, before any layer runs, with
  /// what it will hold (PretrainedModel::memoryNeeds, MemoryNeeds::process filled in). Empty:
  /// no report.
  std::function<void(const MemoryNeeds&)> memory_report;
};

/// The weights' bytes as the engine holds them (MemoryNeeds::weights) and the bytes of each
/// stored type, from a model's files (sizes only: no weight is read).
struct WeightBytes {
  long long total = 0;
  /// (type name, bytes): GGUF types ("Q8_0", "F32" …) or safetensors dtypes, most bytes first.
  std::vector<std::pair<std::string, long long>> by_type;
};

/// What a model's files say before any weight is read: its config, name and weight sizes.
struct ModelFileInfo {
  ModelConfig config;
  std::string name;         ///< As PretrainedModel::name() will give it.
  long long file_bytes = 0;  ///< The GGUF file or the folder's model.safetensors, bytes.
  WeightBytes weights;
};

/// Reads what `path` (a HuggingFace model folder or a GGUF file, as PretrainedModel::load takes)
/// says about the model without reading a weight: the header or config.json, the tensor table,
/// the sizes. Fast for any size (the file's header only). Throws what load() throws for a file it
/// cannot read, an unsupported architecture, and a tensor of a type the engine does not read
/// (naming the tensor and the type).
ModelFileInfo inspectModel(const std::filesystem::path& path);

/// MemoryNeeds::activations of a pass of `tokens` tokens through a model of config `c`.
long long activationBytes(const ModelConfig& c, int tokens);
/// The attention one layer of config `c` keeps for `tokens` tokens: scores and weights [h, n, n],
/// head outputs [h, n, d_k] and five statistics per row, float32.
long long layerAttentionBytes(const ModelConfig& c, int tokens);

/// One next-token prediction: softmax over the vocabulary of the output layer's logits for the
/// last position (the tied embedding for SmolLM2 and GPT-2).
struct NextToken {
  int id = 0;
  std::string label;        ///< As Encoding::labels shows tokens ("␣cat").
  std::string bytes;        ///< The bytes it stands for (ModelTokenizer::tokenBytes).
  double probability = 0;   ///< In [0, 1].
  double logit = 0;
};

/// The k most probable tokens of softmax(logits) [vocab], most probable first (ties to the lower
/// id; the maximum subtracted, the normaliser's float32 exponentials summed in double, each
/// token's own in double), labelled by `tokenizer`.
std::vector<NextToken> topNextTokens(const Eigen::VectorXf& logits, int k,
                                     const ModelTokenizer& tokenizer);

/// One forward pass with the captured attention.
struct ModelRun {
  Encoding encoding;        ///< Tokens exactly as the model received them.
  /// The captured layers' attention, in layer order: scores (after the scale, before the mask)
  /// and weights [h, n, n], head outputs [h, n, d_k], per-row statistics.
  std::vector<AttentionResult> attention;
  std::vector<int> layers;  ///< The layer index of each entry of `attention`.
  /// With ModelRunOptions::overview_block: the pooled weights of every layer not kept in full,
  /// in layer order (blocks [h, ⌈n/b⌉, ⌈n/b⌉]); empty otherwise.
  std::vector<PooledAttention> overviews;
  std::vector<int> overview_layers;  ///< The layer index of each entry of `overviews`.
  /// For each query head i (h entries) the K/V head it reads (grouped-query attention; i for
  /// multi-head attention), the same in every layer. The backend received the G K/V heads
  /// themselves (grouped-query attention natively, AttentionSpec::kv_heads = G); attention[l]
  /// has h heads of scores and weights.
  std::vector<int> kv_head;
  int kv_heads = 0;         ///< G, the number of distinct K/V heads.
  Matrix hidden;            ///< The last computed layer's output hidden states [n, d_model].
  /// With ModelRunOptions::keep_residual: the residual stream entering each layer and after the
  /// last, [layers run + 1] × [n, d_model] (entry 0 the embeddings; with a resumed pass the
  /// entries below the resumed layer are empty).
  std::vector<Matrix> residual;
  /// With keep_context: each layer's head outputs before W_O, after any ablation or patch,
  /// [layers] × [n, h·d_k] (empty for layers not run).
  std::vector<Matrix> context;
  /// With keep_value_norms: ‖v_j W_O^h‖ per layer [layers] × [h, n] (empty for layers not run).
  std::vector<Matrix> value_norms;
  /// With token_loss: −ln p(token i+1 | tokens ≤ i), nats [n − 1].
  std::vector<double> token_loss;
  /// The last position's logits [vocab] (models with an output layer, next_tokens > 0).
  Eigen::VectorXf logits;
  /// The most probable next tokens after the last position, most probable first (empty for
  /// models without an output layer, i.e. BERT, or when ModelRunOptions::next_tokens is 0).
  std::vector<NextToken> next_tokens;
  double compute_ms = 0;    ///< Wall time of tokenize + forward pass, ms.
};

/// A loaded model: config, weights (float32 in memory) and tokenizer.
class PretrainedModel {
 public:
  /// Loads a HuggingFace model folder (config.json model_type as supportedArchitectures() lists:
  /// bert, gpt2, llama, mistral, qwen2, phi3) or a GGUF file (general.architecture llama, qwen2,
  /// phi3; any file that starts with the GGUF magic). Throws Error(kIo)
  /// naming a missing or unreadable file (or a file that is neither a folder nor GGUF),
  /// Error(kInvalidInput) for a malformed safetensors or GGUF file (one line naming the fault:
  /// see GgufFile), a missing / wrongly shaped weight (naming the tensor), a tensor type that
  /// cannot be dequantised (naming it), head_count_kv not dividing head_count,
  /// Error(kInvalidArgument) for an unknown architecture or tokenizer (naming it).
  static std::unique_ptr<PretrainedModel> load(const std::filesystem::path& path);
  virtual ~PretrainedModel() = default;

  const ModelConfig& config() const { return config_; }
  const ModelTokenizer& tokenizer() const { return *tokenizer_; }
  /// The folder's name, e.g. "all-MiniLM-L6-v2", or the GGUF file's name without ".gguf".
  const std::string& name() const { return name_; }
  /// What load() was given: the folder or the .gguf file.
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
  /// run()'s first half: the model's tokenization of text (and pair) with its checks (the same
  /// errors, except the ones about the run: length, layer, temperature). run(text, pair, o, b)
  /// equals runIds(encode(text, pair), o, b) with the encoding kept, so a caller can check the
  /// token count between the two without tokenizing twice.
  Encoding encode(std::string_view text, std::optional<std::string_view> pair) const;

  /// Bytes a run of `tokens` tokens with `options` keeps at its peak: the scores and weights
  /// [h, n, n] and head outputs [h, n, d_k] (float32) of every layer kept, plus one layer in
  /// flight when the kept layers are fewer than the layers run, plus the per-row statistics,
  /// plus the pooled overviews (PooledAttention::bytes) of the layers that keep only those.
  long long attentionBytes(int tokens, const ModelRunOptions& options) const;
  /// Everything a run of `tokens` tokens with `options` holds at its peak (MemoryNeeds).
  MemoryNeeds memoryNeeds(int tokens, const ModelRunOptions& options) const;
  /// options.memory_budget, or the default: defaultMemoryBudget() (memory.hpp) counting this
  /// model's weights as the run's — its mapped file's pages, or the copies made at load — bytes.
  long long memoryBudget(const ModelRunOptions& options) const;
  /// The weights' bytes and types (MemoryNeeds::weights).
  const WeightBytes& weightBytes() const { return weight_bytes_; }
  /// True when the weights are the mapped file's (GGUF files, Llama-family and Gemma folders),
  /// false when they were copied at load (BERT, GPT-2).
  bool mapsWeights() const { return !mapped_.empty(); }
  /// Bytes of the mapped weight file this process has in memory (its pages counted in the
  /// process's resident set: /proc/self/smaps); 0 when nothing is mapped.
  long long residentWeightBytes() const;
  /// Reads every page of the mapped weights once (the first touch, which on a cold file reads it
  /// from disk), calling progress(bytes done, bytes in all) between chunks; returning false
  /// stops (Error kCancelled). Nothing to do when nothing is mapped.
  void touchWeights(const std::function<bool(long long done, long long total)>& progress) const;
  /// The layers whose attention a run with `options` keeps in full: 1 with options.layer, 0
  /// with overview_block and no layer, else all.
  int keptLayers(const ModelRunOptions& options) const;
  /// The layers a run with `options` keeps as pooled overviews only (overview_block ≥ 1).
  int overviewLayers(const ModelRunOptions& options) const;
  /// Runs given ids (and type ids; empty = all 0) through the model; encoding labels are the ids.
  /// Throws as run(), and Error(kInvalidInput) "this run would keep …" when attentionBytes()
  /// exceeds the memory budget (before any layer runs), Error(kCancelled) when
  /// options.progress returned false.
  ModelRun runIds(const Encoding& encoding, const ModelRunOptions& options, Backend& backend) const;

  // --- One step at a time (the KV cache of generate.hpp) -----------------------------------------

  /// True for the decoders that run a step at a time (GPT-2, the Llama family, Gemma 2 and 3);
  /// false for BERT, an encoder.
  virtual bool isDecoder() const { return false; }
  /// The attention of one layer during a step, given the layer's projections qkv
  /// [m, (h + 2G)·d_k] of the m new tokens — query heads, then key heads, then value heads, after
  /// RoPE at the tokens' positions and Gemma 3's QK-norm, i.e. the keys and values a KV cache
  /// keeps — and returning the head outputs [m, h·d_k] (heads in order).
  using StepAttend = std::function<Matrix(int layer, const Matrix& qkv)>;
  /// The input embeddings [m, d_model] of tokens `ids` at positions first_position,
  /// first_position + 1, … (GPT-2 adds its learned positions; the others have none). Throws
  /// Error(kInvalidArgument) for an encoder.
  virtual Matrix embedAt(const std::vector<int>& ids, int first_position) const;
  /// Layer l on the rows x [m, d_model] of tokens at positions first_position … — the same layer
  /// as the full pass, its attention handed to `attend` — returning the layer's output
  /// [m, d_model]. Throws Error(kInvalidArgument) for an encoder.
  virtual Matrix layerAt(int l, const Matrix& x, int first_position,
                         const StepAttend& attend) const;
  /// The output layer's logits [vocab] for the last row of the final hidden states (final norm,
  /// tied or separate output layer, Gemma 2's final soft-cap); empty for an encoder.
  Eigen::VectorXf nextLogits(const Matrix& hidden) const { return logits(hidden); }
  /// The attention settings runIds gives every layer (scale, soft-cap, K/V heads; the layer's
  /// window is ModelConfig::windowOf), after the checks runIds makes of `options` (mechanism,
  /// temperature). Throws as runIds for additive attention or a bad temperature.
  AttentionSpec attentionSpec(const ModelRunOptions& options) const;

  // --- Pieces the interventions read (interventions.hpp) -----------------------------------------

    /// Refuses (kInvalidArgument) ablated or patched heads, patched positions and a resumed layer
  /// that do not exist in this model or a pass of n tokens, and patch sources of another shape.
  void checkInterventions(const ModelRunOptions& options, int n) const;

  /// True when the model has an output layer (next-token predictions): not BERT.
  bool predictsTokens() const { return hasOutputLayer(); }
  /// Rows of concatenated head outputs [m, h·d_k] through layer l's output projection W_O,
  /// without its bias: [m, d_model].
  virtual Matrix outputProjection(int l, const Matrix& rows) const;
  /// Layer l's W_O bias [d_model]; empty without one.
  virtual Vector outputBias(int l) const {
    (void)l;
    return {};
  }
  /// A norm applied to the attention's output before the residual (Gemma's post-attention
  /// RMSNorm), frozen at its scale for `total` [1, d_model] (the layer's whole attention output
  /// at one position): the per-element factor [d_model]; empty when the model has none.
  virtual Vector attentionOutputScale(int l, const Matrix& total) const {
    (void)l;
    (void)total;
    return {};
  }
  /// The final norm as a linear map frozen at its scale for `row` [1, d_model]:
  /// norm(x) = (centre ? x − mean(x) : x) ⊙ scale + bias (TransformerLens's frozen LayerNorm).
  struct FrozenNorm {
    bool centre = false;
    Vector scale;  ///< [d_model]
    Vector bias;   ///< [d_model]; zero for an RMSNorm.
  };
  virtual FrozenNorm frozenFinalNorm(const Matrix& row) const;
  /// The output layer's row for `token` [d_model] (the tied embedding's, or lm_head's).
  virtual Vector unembedding(int token) const;
  /// The logits of every row of final hidden states [m, d_model] → [m, vocab] (final norm,
  /// output layer, Gemma 2's soft-cap); logits(hidden) is its last row.
  virtual Matrix logitsOfRows(const Matrix& hidden) const;

 protected:
  PretrainedModel() = default;
  virtual Matrix embed(const Encoding& encoding) const = 0;
  /// Layer l applied to hidden states x [n, d_model]; writes the layer's attention into *attention.
  virtual Matrix layer(int l, const Matrix& x, const AttentionSpec& spec, Backend& backend,
                       AttentionResult* attention) const = 0;
  /// True when the model has an output layer (next-token predictions).
  virtual bool hasOutputLayer() const { return false; }
  /// The output layer's logits [vocab] for the last row of the final hidden states; empty for
  /// models without one.
  virtual Eigen::VectorXf logits(const Matrix& hidden) const {
    (void)hidden;
    return {};
  }

  ModelConfig config_;
  std::unique_ptr<ModelTokenizer> tokenizer_;
  std::string name_;
  std::filesystem::path dir_;
  double load_ms_ = 0;
  /// The mapped weight file, kept open while the model reads its tensors as stored (GGUF files
  /// and the Llama family's and Gemma's safetensors); null when the weights were copied.
  std::shared_ptr<const void> storage_;
  /// The mapped bytes of storage_, one (first byte, length) per file (a split GGUF's parts, a
  /// sharded folder's shards); empty without.
  std::vector<std::pair<const std::byte*, std::size_t>> mapped_;
  WeightBytes weight_bytes_;

 private:
  /// The last layer a run with `options` computes (the predictions need every layer).
  int lastLayerRun(const ModelRunOptions& options) const;

};

}  // namespace attnlab
