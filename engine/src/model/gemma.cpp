// Gemma 2 and Gemma 3 (gemma.hpp): GGUF keys and tensors as llama.cpp writes and reads them,
// HuggingFace Gemma2ForCausalLM / Gemma3ForCausalLM checkpoints, and the forward pass.

#include "model/gemma.hpp"

#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/positions.hpp"
#include "model/blocks.hpp"
#include "model/weight_matrix.hpp"
#include "model/rope_scaling.hpp"
#include "model/weights.hpp"

namespace attnlab::gemma {
namespace {

using blocks::frozenRmsNorm;
using blocks::rmsNorm;
using weights::badKey;
using weights::positiveKey;
using weights::TensorName;

/// A tensor outside the layers, by its GGUF and HuggingFace names.
TensorName modelTensor(const char* gguf, const char* hf) { return {gguf, hf}; }

/// Tensor `part` of layer l: part names the GGUF suffix and the HuggingFace one.
TensorName inLayer(int l, const char* gguf, const char* hf) {
  const std::string n = std::to_string(l);
  return {"blk." + n + "." + gguf + ".weight", "model.layers." + n + "." + hf + ".weight"};
}

/// A safetensors source whose HuggingFace names live under another prefix (a
/// Gemma3ForConditionalGeneration's language model: "model." becomes `prefix`).
class RenamedSource final : public weights::Source {
 public:
  RenamedSource(const weights::Source& inner, std::string prefix)
      : inner_(inner), prefix_(std::move(prefix)) {}
  void read(const TensorName& name, Eigen::Index rows, Eigen::Index cols, Matrix& dst,
            Eigen::Index row0) const override {
    inner_.read(renamed(name), rows, cols, dst, row0);
  }
  bool contains(const TensorName& name) const override { return inner_.contains(renamed(name)); }
  linear::StoredRows stored(const TensorName& name, Eigen::Index rows,
                            Eigen::Index cols) const override {
    return inner_.stored(renamed(name), rows, cols);
  }
  bool rotateHalf() const override { return inner_.rotateHalf(); }

 private:
  TensorName renamed(const TensorName& name) const {
    const std::string hf = name.hf.rfind("model.", 0) == 0 ? prefix_ + name.hf.substr(6) : name.hf;
    return {name.gguf, hf};
  }
  const weights::Source& inner_;
  std::string prefix_;
};

struct GemmaLayer {
  // RMSNorm gains γ = 1 + w [d_model]: before and after the attention, before and after the FFN.
  Vector attn_norm, post_attn_norm, ffn_norm, post_ffn_norm;
  // Gemma 3: per-head gains [d_k] of the query and key norms, in the interleaved RoPE order.
  Vector q_norm, k_norm;
  // As the file stores them (weight_matrix.hpp), [out, in]:
  linear::WeightMatrix wqkv;   // [(h + 2G)·d_k, d_model]: W_Q, W_K (RoPE-interleaved), W_V
  linear::WeightMatrix wo;     // [d_model, h·d_k]
  linear::WeightMatrix wgu;    // [2·d_ff, d_model]: W_gate rows, then W_up
  linear::WeightMatrix wdown;  // [d_model, d_ff]
};

class GemmaModel final : public PretrainedModel {
 public:
  /// `stored_gain`: the file stores the norms' gains 1 + w (GGUF) rather than w (HuggingFace).
  GemmaModel(ModelConfig config, const weights::Source& w, bool stored_gain)
      : stored_gain_(stored_gain), activation_(blocks::parseActivation(config.activation)) {
    config_ = std::move(config);
    const ModelConfig& c = config_;
    embed_ = w.weightMatrix(
        {{modelTensor("token_embd.weight", "model.embed_tokens.weight"), c.vocab_size}}, c.d_model);
    out_norm_ = gain(w, modelTensor("output_norm.weight", "model.norm.weight"), c.d_model);
    if (!c.tied_embeddings)
      output_ = w.weightMatrix({{modelTensor("output.weight", "lm_head.weight"), c.vocab_size}},
                               c.d_model);
    layers_.resize(static_cast<std::size_t>(c.layers));
    for (int l = 0; l < c.layers; ++l) loadLayer(w, l, layers_[static_cast<std::size_t>(l)]);
  }

 private:
  /// An RMSNorm gain γ [n]: as stored (GGUF), or 1 + w (HuggingFace, float32 like Gemma's
  /// `1.0 + self.weight.float()`).
  Vector gain(const weights::Source& w, const TensorName& name, Eigen::Index n) const {
    Vector g = w.vector(name, n);
    if (!stored_gain_) g.array() += 1.0f;
    return g;
  }

  void loadLayer(const weights::Source& w, int l, GemmaLayer& layer) const {
    const ModelConfig& c = config_;
    const int d = c.dK();
    const Eigen::Index q_rows = static_cast<Eigen::Index>(c.heads) * d;
    const Eigen::Index kv_rows = static_cast<Eigen::Index>(c.kv_heads) * d;
    layer.attn_norm = gain(w, inLayer(l, "attn_norm", "input_layernorm"), c.d_model);
    layer.post_attn_norm =
        gain(w, inLayer(l, "post_attention_norm", "post_attention_layernorm"), c.d_model);
    layer.ffn_norm = gain(w, inLayer(l, "ffn_norm", "pre_feedforward_layernorm"), c.d_model);
    layer.post_ffn_norm =
        gain(w, inLayer(l, "post_ffw_norm", "post_feedforward_layernorm"), c.d_model);
    // Both formats hold W_Q / W_K in the rotate-half order (llama.cpp's converter leaves Gemma's
    // unpermuted: NEOX-style RoPE); the engine rotates interleaved pairs, reading the rows
    // through an index (WeightMatrix::permuteRotateHalf).
    layer.wqkv = w.weightMatrix({{inLayer(l, "attn_q", "self_attn.q_proj"), q_rows},
                                 {inLayer(l, "attn_k", "self_attn.k_proj"), kv_rows},
                                 {inLayer(l, "attn_v", "self_attn.v_proj"), kv_rows}},
                                c.d_model);
    layer.wqkv.permuteRotateHalf(0, c.heads, d);
    layer.wqkv.permuteRotateHalf(q_rows, c.kv_heads, d);
    if (c.architecture == Architecture::kGemma3) {
      // The per-head norm gains follow their dimensions into the interleaved order.
      const std::vector<int> order = rotateHalfToInterleaved(d);
      const Vector q = gain(w, inLayer(l, "attn_q_norm", "self_attn.q_norm"), d);
      const Vector k = gain(w, inLayer(l, "attn_k_norm", "self_attn.k_norm"), d);
      layer.q_norm.resize(d);
      layer.k_norm.resize(d);
      for (int j = 0; j < d; ++j) {
        layer.q_norm[j] = q[order[static_cast<std::size_t>(j)]];
        layer.k_norm[j] = k[order[static_cast<std::size_t>(j)]];
      }
    }
    const Eigen::Index d_ff = c.d_ff;
    layer.wo = w.weightMatrix({{inLayer(l, "attn_output", "self_attn.o_proj"), c.d_model}}, q_rows);
    layer.wgu = w.weightMatrix({{inLayer(l, "ffn_gate", "mlp.gate_proj"), d_ff},
                                {inLayer(l, "ffn_up", "mlp.up_proj"), d_ff}},
                               c.d_model);
    layer.wdown = w.weightMatrix({{inLayer(l, "ffn_down", "mlp.down_proj"), c.d_model}}, d_ff);
  }

  /// RMSNorm of every d-wide head segment of the first `heads` heads of x [n, ·] in place,
  /// gain γ [d] (Gemma 3's q_norm / k_norm), from column col0.
  void headNorm(Matrix& x, Eigen::Index col0, int heads, int d, const Vector& gamma) const {
    const double eps = config_.layer_norm_eps;
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      for (int hh = 0; hh < heads; ++hh) {
        auto seg = x.row(i).segment(col0 + static_cast<Eigen::Index>(hh) * d, d);
        const double ms = seg.cast<double>().squaredNorm() / d;
        const auto inv = static_cast<float>(1.0 / std::sqrt(static_cast<float>(ms) + eps));
        seg = ((seg.array() * inv) * gamma.transpose().array()).matrix();
      }
    }
  }

  /// The cos/sin table of the local or the global layers for n positions (their RoPE base and
  /// scaling), built once per kind and kept for the longest input so far.
  std::shared_ptr<const RopeTable> ropeTable(int n, bool local) const {
    const ModelConfig& c = config_;
    const bool gemma3 = c.architecture == Architecture::kGemma3;
    const double base = local && c.rope_local_base > 0 ? c.rope_local_base : c.rope_base;
    // Gemma 3's local layers rotate unscaled (HF's rotary_emb_local: rope_type default).
    const RopeScaling scaling = local && gemma3 ? RopeScaling{} : c.rope_scaling;
    std::lock_guard<std::mutex> lock(rope_mutex_);
    std::shared_ptr<const RopeTable>& table = local ? rope_local_ : rope_global_;
    if (!table || table->positions < n)
      table = std::make_shared<RopeTable>(makeRopeTable(n, c.rope_dims, base, scaling));
    return table;
  }

 protected:
  Matrix embed(const Encoding& e) const override {
    // h_0 = E[id]·√d_model (Gemma 2 §2), the factor rounded to float32 as HuggingFace's
    // normalizer tensor is.
    const auto scale = static_cast<float>(std::sqrt(static_cast<double>(config_.d_model)));
    Matrix x(static_cast<Eigen::Index>(e.ids.size()), config_.d_model);
    for (std::size_t i = 0; i < e.ids.size(); ++i) {
      const auto r = static_cast<Eigen::Index>(i);
      embed_.row(e.ids[i], x.row(r).data());
      x.row(r) *= scale;
    }
    return x;
  }

  Matrix layer(int l, const Matrix& x, const AttentionSpec& spec, Backend& backend,
               AttentionResult* attention) const override {
    // spec carries this layer's window, the scale width and the soft-cap (runIds sets them).
    return layerAt(l, x, 0, [&](int, const Matrix& qkv) {
      return blocks::attend(qkv, config_.heads, config_.kv_heads, config_.dK(), spec, backend,
                            attention);
    });
  }

 public:
  bool isDecoder() const override { return true; }
  Matrix embedAt(const std::vector<int>& ids, int /*first_position*/) const override {
    Encoding e;
    e.ids = ids;
    return embed(e);
  }

  Matrix layerAt(int l, const Matrix& x, int first_position,
                 const StepAttend& attend) const override {
    const ModelConfig& c = config_;
    const GemmaLayer& layer = layers_[static_cast<std::size_t>(l)];
    const auto n = static_cast<int>(x.rows());
    const int d = c.dK(), h = c.heads, g = c.kv_heads;

    Matrix qkv = linear::timesTransposed(rmsNorm(x, layer.attn_norm, c.layer_norm_eps), layer.wqkv);
    const auto k_col = static_cast<Eigen::Index>(h) * d;
    if (c.architecture == Architecture::kGemma3) {  // Gemma 3 §2: QK-norm before RoPE
      headNorm(qkv, 0, h, d, layer.q_norm);
      headNorm(qkv, k_col, g, d, layer.k_norm);
    }
    const std::shared_ptr<const RopeTable> rope =
        ropeTable(first_position + n, c.windowOf(l) > 0);
    const RopeTable rows =
        first_position == 0 ? RopeTable{} : blocks::ropeRows(*rope, first_position, n);
    const RopeTable& table = first_position == 0 ? *rope : rows;
    const auto stride = static_cast<int>(qkv.cols());
    applyRope(qkv.data(), n, h, d, stride, table);          // queries
    applyRope(qkv.data() + k_col, n, g, d, stride, table);  // keys
    const Matrix context = attend(l, qkv);
    const Matrix h1 = x + rmsNorm(linear::timesTransposed(context, layer.wo), layer.post_attn_norm,
                                  c.layer_norm_eps);
    // GeGLU (Shazeer 2020, eq. 5; Gemma 2 §2): W_down (act(x W_gate) ⊙ x W_up), act = tanh GELU.
    const Matrix gu =
        linear::timesTransposed(rmsNorm(h1, layer.ffn_norm, c.layer_norm_eps), layer.wgu);
    Matrix act = gu.leftCols(c.d_ff);
    blocks::activate(act, activation_);
    act.array() *= gu.rightCols(c.d_ff).array();
    return h1 + rmsNorm(linear::timesTransposed(act, layer.wdown), layer.post_ffn_norm,
                        c.layer_norm_eps);
  }

 protected:
  bool hasOutputLayer() const override { return true; }
  Eigen::VectorXf logits(const Matrix& hidden) const override {
    const Matrix last = rmsNorm(hidden.bottomRows(1), out_norm_, config_.layer_norm_eps);
    Eigen::VectorXf z = linear::timesVector(config_.tied_embeddings ? embed_ : output_, last.data());
    if (const double cap = config_.final_softcap; cap > 0) {  // Gemma 2 §2: c·tanh(z / c)
      for (Eigen::Index i = 0; i < z.size(); ++i)
        z[i] = static_cast<float>(cap * std::tanh(static_cast<double>(z[i]) / cap));
    }
    return z;
  }

 public:
  Matrix outputProjection(int l, const Matrix& rows) const override {
    return linear::timesTransposed(rows, layers_[static_cast<std::size_t>(l)].wo);
  }
  Vector attentionOutputScale(int l, const Matrix& total) const override {
    return frozenRmsNorm(total, layers_[static_cast<std::size_t>(l)].post_attn_norm,
                         config_.layer_norm_eps)
        .scale;
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
    Matrix z = linear::timesTransposed(rmsNorm(hidden, out_norm_, config_.layer_norm_eps),
                                       config_.tied_embeddings ? embed_ : output_);
    if (const double cap = config_.final_softcap; cap > 0) {  // Gemma 2 §2: c·tanh(z / c)
      z = z.unaryExpr([cap](float v) {
        return static_cast<float>(cap * std::tanh(static_cast<double>(v) / cap));
      });
    }
    return z;
  }

 private:
  bool stored_gain_ = false;
  blocks::Activation activation_;
  linear::WeightMatrix embed_;   // [vocab, d_model], as stored; also the output layer when tied
  linear::WeightMatrix output_;  // [vocab, d_model]; empty when tied
  Vector out_norm_;
  std::vector<GemmaLayer> layers_;
  mutable std::mutex rope_mutex_;
  mutable std::shared_ptr<const RopeTable> rope_global_, rope_local_;
};

[[noreturn]] void refuse(const GgufFile& file, const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, file.path().filename().string() + ": " + what);
}

/// A positive finite number key, or `fallback` when absent.
double positiveNumber(const GgufFile& file, const std::string& key, double fallback) {
  const std::optional<double> v = file.number(key);
  if (!v) return fallback;
  if (!(*v > 0) || !std::isfinite(*v)) badKey(file, key + " must be a positive number");
  return *v;
}

}  // namespace

bool readsGgufArchitecture(std::string_view architecture) {
  return architecture == "gemma2" || architecture == "gemma3";
}

ModelConfig configFromGguf(const GgufFile& file) {
  const std::string arch = file.requireString("general.architecture");
  if (!readsGgufArchitecture(arch)) {
    refuse(file, "general.architecture \"" + arch + "\" is not Gemma 2 or 3");
  }
  const bool gemma2 = arch == "gemma2";
  const std::string k = arch + ".";
  ModelConfig c;
  c.architecture = gemma2 ? Architecture::kGemma2 : Architecture::kGemma3;
  c.model_type = gemma2 ? "gemma2" : "gemma3_text";
  c.format = "gguf";
  c.layers = positiveKey(file, k + "block_count", std::nullopt);
  c.d_model = positiveKey(file, k + "embedding_length", std::nullopt);
  c.d_ff = positiveKey(file, k + "feed_forward_length", std::nullopt);
  c.heads = positiveKey(file, k + "attention.head_count", std::nullopt);
  c.kv_heads = positiveKey(file, k + "attention.head_count_kv", c.heads);
  c.max_positions = positiveKey(file, k + "context_length", std::nullopt);
  if (c.heads % c.kv_heads != 0) {
    badKey(file, k + "attention.head_count_kv (" + std::to_string(c.kv_heads) +
                     ") does not divide " + k + "attention.head_count (" +
                     std::to_string(c.heads) + ")");
  }
  const int default_dk = c.d_model % c.heads == 0 ? c.d_model / c.heads : 0;
  c.head_dim = positiveKey(file, k + "attention.key_length",
                           default_dk > 0 ? std::optional<int>(default_dk) : std::nullopt);
  if (positiveKey(file, k + "attention.value_length", c.head_dim) != c.head_dim) {
    refuse(file, k + "attention.value_length differs from key_length, which is not supported");
  }
  if (c.head_dim % 2 != 0) badKey(file, k + "attention.key_length must be even for RoPE");
  c.rope_dims = positiveKey(file, k + "rope.dimension_count", c.head_dim);
  if (c.rope_dims != c.head_dim) {
    refuse(file, k + "rope.dimension_count " + std::to_string(c.rope_dims) +
                     " differs from the head width " + std::to_string(c.head_dim) +
                     " (partial rotary is not supported)");
  }
  c.rope_base = positiveNumber(file, k + "rope.freq_base", 10000.0);
  // llama.cpp has no rope_freqs tensor for Gemma (it would not be loaded): refused, not ignored.
  if (file.findTensor("rope_freqs.weight") != nullptr)
    refuse(file, "the rope_freqs.weight tensor (RoPE frequency factors) is not read for Gemma");
  // rope.scaling.*: Gemma 2 every layer, Gemma 3 the global layers only (rope_freq_scale_train;
  // the local layers keep rope_freq_scale_train_swa = 1).
  c.rope_scaling = rope_scaling::fromGguf(file, arch, c.rope_dims, c.max_positions);
  c.layer_norm_eps = positiveNumber(file, k + "attention.layer_norm_rms_epsilon", 1e-6);
  // llama.cpp's score scale (llama-model.cpp, after gemma_pytorch's config): 1/√(d_model/h) for
  // the 27B models, else 1/√key_length. The GGUF keeps no query_pre_attn_scalar.
  const bool is_27b = c.layers == (gemma2 ? 46 : 62);
  c.scale_width = is_27b ? static_cast<double>(c.d_model / c.heads) : c.head_dim;
  int window = 0;
  if (gemma2) {
    // llama.cpp's Gemma 2: soft-caps 50 and 30 and a window of 4096 unless the file says.
    c.attn_softcap = positiveNumber(file, k + "attn_logit_softcapping", 50.0);
    c.final_softcap = positiveNumber(file, k + "final_logit_softcapping", 30.0);
    window = positiveKey(file, k + "attention.sliding_window", 4096);
  } else {
    c.final_softcap = positiveNumber(file, k + "final_logit_softcapping", 0.0);
    window = positiveKey(file, k + "attention.sliding_window", 0);
    // llama.cpp's Gemma 3 fixes these; a file that says otherwise is refused, not reinterpreted.
    if (const auto cap = file.number(k + "attn_logit_softcapping"); cap && *cap != 0.0)
      refuse(file, k + "attn_logit_softcapping: llama.cpp's gemma3 does not cap attention scores");
    if (file.contains(k + "attention.sliding_window_pattern") &&
        file.integer(k + "attention.sliding_window_pattern") != std::optional<std::int64_t>(6))
      refuse(file, k + "attention.sliding_window_pattern: llama.cpp's gemma3 fixes every 6th "
                       "layer global");
    if (const auto base = file.number(k + "rope.freq_base_swa"); base && *base != 10000.0)
      refuse(file, k + "rope.freq_base_swa: llama.cpp's gemma3 fixes the local RoPE base at 10000");
    c.rope_local_base = 10000.0;
  }
  if (window > 0) {
    c.layer_window.assign(static_cast<std::size_t>(c.layers), 0);
    for (int l = 0; l < c.layers; ++l) {
      const bool local = gemma2 ? l % 2 == 0 : (l + 1) % 6 != 0;  // set_swa_pattern(2) / (6)
      c.layer_window[static_cast<std::size_t>(l)] = local ? window : 0;
    }
  }
  const GgufTensor* embed = file.findTensor("token_embd.weight");
  const auto n_tokens = static_cast<int>(file.strings("tokenizer.ggml.tokens").size());
  c.vocab_size = positiveKey(file, k + "vocab_size",
                             embed != nullptr ? std::optional<int>(static_cast<int>(embed->rows()))
                             : n_tokens > 0   ? std::optional<int>(n_tokens)
                                              : std::nullopt);
  c.tied_embeddings = file.findTensor("output.weight") == nullptr;
  c.activation = "gelu_pytorch_tanh";
  c.weight_type = weights::commonWeightType(file);
  return c;
}

std::unique_ptr<PretrainedModel> fromGguf(ModelConfig config, const GgufFile& file) {
  return std::make_unique<GemmaModel>(std::move(config), weights::GgufSource(file), true);
}

std::unique_ptr<PretrainedModel> fromSafetensors(ModelConfig config, const SafeTensors& file) {
  // Gemma*ForCausalLM ("model."), a bare Gemma*Model (""), or the language model of a
  // Gemma3ForConditionalGeneration (transformers 4.50–4.51, then 4.52 and later).
  std::string prefix;
  for (const char* p : {"model.", "", "language_model.model.", "model.language_model."}) {
    if (file.contains(std::string(p) + "embed_tokens.weight")) {
      prefix = p;
      break;
    }
  }
  if (!file.contains(prefix + "embed_tokens.weight")) {
    throw Error(ErrorCode::kInvalidInput,
                file.path().filename().string() +
                    " has no tensor model.embed_tokens.weight (is it a Gemma checkpoint?)");
  }
  config.format = "safetensors";
  config.weight_type = std::string(dtypeName(file.tensor(prefix + "embed_tokens.weight").dtype));
  if (prefix == "model." || prefix.empty()) {
    return std::make_unique<GemmaModel>(std::move(config),
                                        weights::SafetensorsSource(file, prefix), false);
  }
  const weights::SafetensorsSource inner(file, "model.");
  return std::make_unique<GemmaModel>(std::move(config), RenamedSource(inner, prefix), false);
}

}  // namespace attnlab::gemma
