// The Llama architecture (Touvron et al. 2023, "LLaMA", §2.2): pre-RMSNorm blocks, RoPE on queries
// and keys, grouped-query attention, SwiGLU feed-forward, optional tied embeddings; from GGUF files
// (llama.cpp's tensor names, weights dequantised) and HuggingFace folders (LlamaForCausalLM).
// The same decoder runs the family's variants: Mistral (a sliding window per layer), Qwen2 /
// Qwen2.5 (biases on W_Q, W_K, W_V) and Phi-3 (W_Q | W_K | W_V and W_gate | W_up stored fused).

#include "model/llama.hpp"

#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "attnlab/error.hpp"
#include "attnlab/positions.hpp"
#include "model/blocks.hpp"
#include "model/weight_matrix.hpp"
#include "model/rope_scaling.hpp"
#include "model/weights.hpp"

namespace attnlab::llama {
namespace {

using blocks::frozenRmsNorm;
using blocks::rmsNorm;
using weights::badKey;
using weights::positiveKey;

/// The pieces of the checkpoint, named per format by tensorName().
enum class Part {
  kEmbed,
  kOutputNorm,
  kOutput,
  kAttnNorm,
  kQ,
  kK,
  kV,
  kQkv,  ///< Phi-3: W_Q | W_K | W_V in one tensor.
  kQBias,
  kKBias,
  kVBias,
  kO,
  kFfnNorm,
  kGate,
  kUp,
  kGateUp,  ///< Phi-3: W_gate | W_up in one tensor (llama.cpp names it ffn_up).
  kDown
};

std::string ggufName(Part part, int l) {
  const std::string b = "blk." + std::to_string(l) + ".";
  switch (part) {
    case Part::kEmbed:
      return "token_embd.weight";
    case Part::kOutputNorm:
      return "output_norm.weight";
    case Part::kOutput:
      return "output.weight";
    case Part::kAttnNorm:
      return b + "attn_norm.weight";
    case Part::kQ:
      return b + "attn_q.weight";
    case Part::kK:
      return b + "attn_k.weight";
    case Part::kV:
      return b + "attn_v.weight";
    case Part::kQkv:
      return b + "attn_qkv.weight";
    case Part::kQBias:
      return b + "attn_q.bias";
    case Part::kKBias:
      return b + "attn_k.bias";
    case Part::kVBias:
      return b + "attn_v.bias";
    case Part::kO:
      return b + "attn_output.weight";
    case Part::kFfnNorm:
      return b + "ffn_norm.weight";
    case Part::kGate:
      return b + "ffn_gate.weight";
    case Part::kUp:
    case Part::kGateUp:
      return b + "ffn_up.weight";
    case Part::kDown:
      return b + "ffn_down.weight";
  }
  return {};
}

std::string hfName(Part part, int l) {
  const std::string b = "model.layers." + std::to_string(l) + ".";
  switch (part) {
    case Part::kEmbed:
      return "model.embed_tokens.weight";
    case Part::kOutputNorm:
      return "model.norm.weight";
    case Part::kOutput:
      return "lm_head.weight";
    case Part::kAttnNorm:
      return b + "input_layernorm.weight";
    case Part::kQ:
      return b + "self_attn.q_proj.weight";
    case Part::kK:
      return b + "self_attn.k_proj.weight";
    case Part::kV:
      return b + "self_attn.v_proj.weight";
    case Part::kQkv:
      return b + "self_attn.qkv_proj.weight";
    case Part::kQBias:
      return b + "self_attn.q_proj.bias";
    case Part::kKBias:
      return b + "self_attn.k_proj.bias";
    case Part::kVBias:
      return b + "self_attn.v_proj.bias";
    case Part::kO:
      return b + "self_attn.o_proj.weight";
    case Part::kFfnNorm:
      return b + "post_attention_layernorm.weight";
    case Part::kGate:
      return b + "mlp.gate_proj.weight";
    case Part::kUp:
      return b + "mlp.up_proj.weight";
    case Part::kGateUp:
      return b + "mlp.gate_up_proj.weight";
    case Part::kDown:
      return b + "mlp.down_proj.weight";
  }
  return {};
}

/// One part of layer l (or of the model) under both formats' names.
weights::TensorName tensor(Part part, int l) { return {ggufName(part, l), hfName(part, l)}; }

struct LlamaLayer {
  Vector attn_norm, ffn_norm;
  // As the file stores them (weight_matrix.hpp), [out, in]:
  linear::WeightMatrix wqkv;   // [(h + 2G)·d_k, d_model]: W_Q, W_K, W_V (Q, K RoPE-interleaved)
  Vector bqkv;                 // [(h + 2G)·d_k]: b_Q, b_K, b_V in wqkv's row order; empty: none
  linear::WeightMatrix wo;     // [d_model, h·d_k]
  linear::WeightMatrix wgu;    // [2·d_ff, d_model]: W_gate rows, then W_up
  linear::WeightMatrix wdown;  // [d_model, d_ff]
};

/// True when W_Q and W_K are stored in HuggingFace's rotate-half RoPE layout and must be permuted
/// to the interleaved one: every HuggingFace checkpoint, and GGUF files of the architectures that
/// llama.cpp runs with its NEOX rotation (qwen2, phi3), whose converter leaves the rows as they
/// are; llama GGUF files hold them interleaved already.
bool storedRotateHalf(const ModelConfig& c, const weights::Source& w) {
  return w.rotateHalf() || c.model_type == "qwen2" || c.model_type == "phi3";
}

class LlamaModel final : public PretrainedModel {
 public:
  LlamaModel(ModelConfig config, const weights::Source& w) {
    config_ = std::move(config);
    const ModelConfig& c = config_;
    embed_ = w.weightMatrix({{tensor(Part::kEmbed, 0), c.vocab_size}}, c.d_model);
    out_norm_ = w.vector(tensor(Part::kOutputNorm, 0), c.d_model);
    if (!c.tied_embeddings)
      output_ = w.weightMatrix({{tensor(Part::kOutput, 0), c.vocab_size}}, c.d_model);
    layers_.resize(static_cast<std::size_t>(c.layers));
    for (int l = 0; l < c.layers; ++l) loadLayer(c, w, l, layers_[static_cast<std::size_t>(l)]);
  }

 private:
  /// Layer l's weights: the matrices as the file stores them (no byte of them read here), the
  /// norm gains and biases as float32.
  static void loadLayer(const ModelConfig& c, const weights::Source& w, int l, LlamaLayer& layer) {
    const int d = c.dK();
    const Eigen::Index q_rows = static_cast<Eigen::Index>(c.heads) * d;
    const Eigen::Index kv_rows = static_cast<Eigen::Index>(c.kv_heads) * d;
    const Eigen::Index d_ff = c.d_ff;
    layer.attn_norm = w.vector(tensor(Part::kAttnNorm, l), c.d_model);
    layer.ffn_norm = w.vector(tensor(Part::kFfnNorm, l), c.d_model);
    // Phi-3 stores W_Q | W_K | W_V and W_gate | W_up fused, in the order the engine stacks them.
    const bool fused = c.model_type == "phi3";
    const Eigen::Index qkv_rows = q_rows + 2 * kv_rows;
    layer.wqkv = fused ? w.weightMatrix({{tensor(Part::kQkv, l), qkv_rows}}, c.d_model)
                       : w.weightMatrix({{tensor(Part::kQ, l), q_rows},
                                         {tensor(Part::kK, l), kv_rows},
                                         {tensor(Part::kV, l), kv_rows}},
                                        c.d_model);
    Matrix bias;  // [(h + 2G)·d_k, 1]
    if (c.qkv_bias) {
      bias.resize(qkv_rows, 1);
      bias.col(0).segment(0, q_rows) = w.vector(tensor(Part::kQBias, l), q_rows).transpose();
      bias.col(0).segment(q_rows, kv_rows) =
          w.vector(tensor(Part::kKBias, l), kv_rows).transpose();
      bias.col(0).segment(q_rows + kv_rows, kv_rows) =
          w.vector(tensor(Part::kVBias, l), kv_rows).transpose();
    }
    if (storedRotateHalf(c, w)) {
      // The rows are read through an index; the bias entries of W_Q and W_K move with them.
      layer.wqkv.permuteRotateHalf(0, c.heads, d);
      layer.wqkv.permuteRotateHalf(q_rows, c.kv_heads, d);
      if (c.qkv_bias) {
        bias.topRows(q_rows) = permuteRotateHalfRows(bias.topRows(q_rows), c.heads, d);
        bias.middleRows(q_rows, kv_rows) =
            permuteRotateHalfRows(bias.middleRows(q_rows, kv_rows), c.kv_heads, d);
      }
    }
    if (c.qkv_bias) layer.bqkv = Eigen::Map<const Vector>(bias.data(), qkv_rows);
    layer.wo = w.weightMatrix({{tensor(Part::kO, l), c.d_model}}, q_rows);
    layer.wgu = fused ? w.weightMatrix({{tensor(Part::kGateUp, l), 2 * d_ff}}, c.d_model)
                      : w.weightMatrix({{tensor(Part::kGate, l), d_ff}, {tensor(Part::kUp, l), d_ff}},
                                       c.d_model);
    layer.wdown = w.weightMatrix({{tensor(Part::kDown, l), c.d_model}}, d_ff);
  }

 protected:
  Matrix embed(const Encoding& e) const override {
    Matrix x(static_cast<Eigen::Index>(e.ids.size()), config_.d_model);
    for (std::size_t i = 0; i < e.ids.size(); ++i) {
      embed_.row(e.ids[i], x.row(static_cast<Eigen::Index>(i)).data());
    }
    return x;
  }

  Matrix layer(int l, const Matrix& x, const AttentionSpec& spec, Backend& backend,
               AttentionResult* attention) const override {
    // Grouped-query attention natively (Ainslie et al. 2023): G K/V heads, each read once for its
    // group of h / G query heads (spec.kv_heads = G, set by runIds), not repeated per query head.
    // Mistral's and Phi-3's sliding window (Jiang et al. 2023, §2): query i sees keys
    // i − W < j ≤ i in a layer with a window W (ModelConfig::layer_window).
    AttentionSpec layer_spec = spec;
    layer_spec.window = config_.windowOf(l);
    return layerAt(l, x, 0, [&](int, const Matrix& qkv) {
      return blocks::attend(qkv, config_.heads, config_.kv_heads, config_.dK(), layer_spec,
                            backend, attention);
    });
  }

 public:
  bool isDecoder() const override { return true; }
  Matrix embedAt(const std::vector<int>& ids, int /*first_position*/) const override {
    Matrix x(static_cast<Eigen::Index>(ids.size()), config_.d_model);
    for (std::size_t i = 0; i < ids.size(); ++i)
      embed_.row(ids[i], x.row(static_cast<Eigen::Index>(i)).data());
    return x;
  }

  Matrix layerAt(int l, const Matrix& x, int first_position,
                 const StepAttend& attend) const override {
    const ModelConfig& c = config_;
    const LlamaLayer& layer = layers_[static_cast<std::size_t>(l)];
    const auto n = static_cast<int>(x.rows());
    const int d = c.dK();
    const int h = c.heads;
    const int g = c.kv_heads;

    const Matrix normed = rmsNorm(x, layer.attn_norm, c.layer_norm_eps);
    Matrix qkv = linear::timesTransposed(normed, layer.wqkv,
                                         layer.bqkv.size() > 0 ? &layer.bqkv : nullptr);
    std::shared_ptr<const RopeTable> rope;
    {
      // cos/sin for the longest input so far (the model's context at most), built once.
      std::lock_guard<std::mutex> lock(rope_mutex_);
      if (!rope_ || rope_->positions < first_position + n) {
        rope_ = std::make_shared<RopeTable>(
            makeRopeTable(first_position + n, c.rope_dims, c.rope_base, c.rope_scaling));
      }
      rope = rope_;
    }
    const RopeTable rows = first_position == 0 ? RopeTable{} : blocks::ropeRows(*rope, first_position, n);
    const RopeTable& table = first_position == 0 ? *rope : rows;
    const auto stride = static_cast<int>(qkv.cols());
    applyRope(qkv.data(), n, h, d, stride, table);                                       // queries
    applyRope(qkv.data() + static_cast<std::ptrdiff_t>(h) * d, n, g, d, stride, table);  // keys

    const Matrix context = attend(l, qkv);
    Matrix h1 = x + linear::timesTransposed(context, layer.wo);

    // SwiGLU (Shazeer 2020, eq. 6): W_down (SiLU(x W_gate) ⊙ x W_up).
    const Matrix gu =
        linear::timesTransposed(rmsNorm(h1, layer.ffn_norm, c.layer_norm_eps), layer.wgu);
    const Matrix act = blocks::swiGlu(gu, c.d_ff);
    return h1 + linear::timesTransposed(act, layer.wdown);
  }

 protected:
  bool hasOutputLayer() const override { return true; }
  Eigen::VectorXf logits(const Matrix& hidden) const override {
    const Matrix last = rmsNorm(hidden.bottomRows(1), out_norm_, config_.layer_norm_eps);
    return linear::timesVector(config_.tied_embeddings ? embed_ : output_, last.data());
  }

 public:
  Matrix outputProjection(int l, const Matrix& rows) const override {
    return linear::timesTransposed(rows, layers_[static_cast<std::size_t>(l)].wo);
  }
  FrozenNorm frozenFinalNorm(const Matrix& row) const override {
    return frozenRmsNorm(row, out_norm_, config_.layer_norm_eps);
  }
  Vector unembedding(int token) const override {
    Vector u(config_.d_model);
    (config_.tied_embeddings ? embed_ : output_).row(token, u.data());
    return u;
  }
  Matrix logitsOfRows(const Matrix& hidden) const override {
    return linear::timesTransposed(rmsNorm(hidden, out_norm_, config_.layer_norm_eps),
                                   config_.tied_embeddings ? embed_ : output_);
  }

 private:
  linear::WeightMatrix embed_;   // [vocab, d_model], as stored
  linear::WeightMatrix output_;  // [vocab, d_model]; empty with tied embeddings
  Vector out_norm_;
  std::vector<LlamaLayer> layers_;
  mutable std::mutex rope_mutex_;
  mutable std::shared_ptr<const RopeTable> rope_;
};

}  // namespace

bool isLlamaFamilyGguf(const std::string& architecture) {
  return architecture == "llama" || architecture == "qwen2" || architecture == "phi3";
}

ModelConfig configFromGguf(const GgufFile& file) {
  const std::string arch = file.requireString("general.architecture");
  const std::string name = file.path().filename().string();
  if (!isLlamaFamilyGguf(arch)) {
    throw Error(ErrorCode::kInvalidArgument,
                name + ": " + unsupportedArchitecture("general.architecture", arch).what());
  }
  // llama.cpp names every hyperparameter "<architecture>.<key>" (gguf-py's constants.Keys).
  const std::string p = arch + ".";
  ModelConfig c;
  c.architecture = Architecture::kLlama;
  c.model_type = arch;
  c.format = "gguf";
  c.layers = positiveKey(file, p + "block_count", std::nullopt);
  c.d_model = positiveKey(file, p + "embedding_length", std::nullopt);
  c.d_ff = positiveKey(file, p + "feed_forward_length", std::nullopt);
  c.heads = positiveKey(file, p + "attention.head_count", std::nullopt);
  c.kv_heads = positiveKey(file, p + "attention.head_count_kv", c.heads);
  c.max_positions = positiveKey(file, p + "context_length", std::nullopt);
  if (c.heads % c.kv_heads != 0) {
    badKey(file, p + "attention.head_count_kv (" + std::to_string(c.kv_heads) + ") does not divide " +
                     p + "attention.head_count (" + std::to_string(c.heads) + ")");
  }
  const int default_dk = c.d_model % c.heads == 0 ? c.d_model / c.heads : 0;
  c.head_dim = positiveKey(file, p + "attention.key_length",
                           default_dk > 0 ? std::optional<int>(default_dk) : std::nullopt);
  if (positiveKey(file, p + "attention.value_length", c.head_dim) != c.head_dim) {
    throw Error(ErrorCode::kInvalidArgument, name + ": " + p +
                                                 "attention.value_length differs from "
                                                 "key_length, which is not supported");
  }
  c.rope_dims = positiveKey(file, p + "rope.dimension_count", c.head_dim);
  if (c.rope_dims != c.head_dim) {
    throw Error(ErrorCode::kInvalidArgument,
                name + ": " + p + "rope.dimension_count " + std::to_string(c.rope_dims) +
                    " differs from the head width " + std::to_string(c.head_dim) +
                    " (partial rotary is not supported)");
  }
  c.rope_base = file.number(p + "rope.freq_base").value_or(10000.0);
  if (!(c.rope_base > 0) || !std::isfinite(c.rope_base)) {
    badKey(file, p + "rope.freq_base must be a positive number");
  }
  c.rope_scaling = rope_scaling::fromGguf(file, arch, c.rope_dims, c.max_positions);
  // Phi-3's LongRoPE factors (the converter writes them for rope_scaling "longrope" / "su").
  for (const char* factors : {"rope_factors_long.weight", "rope_factors_short.weight"}) {
    if (file.findTensor(factors) != nullptr) {
      throw Error(ErrorCode::kInvalidArgument,
                  name + ": tensor " + factors + " (LongRoPE scaling) is not supported");
    }
  }
  c.layer_norm_eps = file.number(p + "attention.layer_norm_rms_epsilon").value_or(1e-5);
  if (!(c.layer_norm_eps > 0)) badKey(file, p + "attention.layer_norm_rms_epsilon must be > 0");
  // A sliding window on every layer, as llama.cpp applies phi3's (keys j with i − j < W; 0: none). llama.cpp
  // writes Mistral as llama without the key (and reads none for llama); a file that has it gets
  // the window Mistral's config.json gives. llama.cpp's qwen2 has no window: the key is refused.
  // 0 means none: llama.cpp's converter writes 0 for Phi-4 (a phi3 file without a window).
  if (file.integer(p + "attention.sliding_window").value_or(0) != 0) {
    if (arch == "qwen2") {
      throw Error(ErrorCode::kInvalidArgument,
                  name + ": " + p + "attention.sliding_window is not supported for qwen2");
    }
    const int window = positiveKey(file, p + "attention.sliding_window", std::nullopt);
    c.layer_window.assign(static_cast<std::size_t>(c.layers), window);
  }
  // Mixture-of-experts files (Mixtral is written as llama with experts): not this decoder.
  if (file.integer(p + "expert_count").value_or(0) > 0) {
    throw Error(ErrorCode::kInvalidArgument,
                name + ": " + p + "expert_count (mixture of experts) is not supported");
  }
  c.qkv_bias = arch == "qwen2";
  const GgufTensor* embed = file.findTensor("token_embd.weight");
  const auto n_tokens = static_cast<int>(file.strings("tokenizer.ggml.tokens").size());
  c.vocab_size = positiveKey(file, p + "vocab_size",
                             embed != nullptr ? std::optional<int>(static_cast<int>(embed->rows()))
                             : n_tokens > 0   ? std::optional<int>(n_tokens)
                                              : std::nullopt);
  c.tied_embeddings = file.findTensor("output.weight") == nullptr;
  c.activation = "silu";
  c.weight_type = weights::commonWeightType(file);
  return c;
}

std::unique_ptr<PretrainedModel> fromGguf(ModelConfig config, const GgufFile& file) {
  return std::make_unique<LlamaModel>(std::move(config), weights::GgufSource(file));
}

std::unique_ptr<PretrainedModel> fromSafetensors(ModelConfig config, const SafeTensors& file) {
  const bool prefixed = file.contains("model.embed_tokens.weight");
  if (!prefixed && !file.contains("embed_tokens.weight")) {
    throw Error(ErrorCode::kInvalidInput,
                file.path().filename().string() +
                    " has no tensor model.embed_tokens.weight (is it a Llama-family checkpoint?)");
  }
  if (config.tied_embeddings == false && !file.contains("lm_head.weight")) {
    throw Error(ErrorCode::kInvalidInput, file.path().filename().string() +
                                              " has no tensor lm_head.weight (config.json says "
                                              "tie_word_embeddings is false)");
  }
  config.format = "safetensors";
  const TensorView& e = file.tensor(prefixed ? "model.embed_tokens.weight" : "embed_tokens.weight");
  config.weight_type = std::string(dtypeName(e.dtype));
  return std::make_unique<LlamaModel>(std::move(config),
                                      weights::SafetensorsSource(file, prefixed ? "model." : ""));
}

}  // namespace attnlab::llama
