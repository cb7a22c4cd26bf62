// Pretrained models: config.json, weights from model.safetensors, and the forward passes of BERT
// and GPT-2 in float32 with every layer's attention computed by a Backend.

#include "attnlab/pretrained.hpp"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unsupported/Eigen/SpecialFunctions>
#include <sstream>

#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/memory.hpp"
#include "attnlab/safetensors.hpp"
#include "attnlab/tokenizer.hpp"
#include "model/linear.hpp"
#include "model/llama.hpp"
#include "model/tokenizer_common.hpp"

namespace attnlab {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

[[noreturn]] void badConfig(const std::string& what) {
  throw Error(ErrorCode::kInvalidInput, "config.json: " + what);
}

int intField(const json& config, std::initializer_list<const char*> names,
             std::optional<int> fallback = std::nullopt) {
  for (const char* name : names) {
    const auto it = config.find(name);
    if (it == config.end() || it->is_null()) continue;
    if (!it->is_number_integer() || it->get<long long>() <= 0 || it->get<long long>() > (1 << 30)) {
      badConfig(std::string(name) + " must be a positive integer");
    }
    return it->get<int>();
  }
  if (fallback) return *fallback;
  badConfig(std::string("missing ") + *names.begin());
}

double numberField(const json& config, const char* name, double fallback) {
  const auto it = config.find(name);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_number() || !(it->get<double>() > 0))
    badConfig(std::string(name) + " must be a positive number");
  return it->get<double>();
}

std::string stringField(const json& config, const char* name, const std::string& fallback) {
  const auto it = config.find(name);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_string()) badConfig(std::string(name) + " must be a string");
  return it->get<std::string>();
}

bool boolField(const json& config, const char* name, bool fallback) {
  const auto it = config.find(name);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) badConfig(std::string(name) + " must be true or false");
  return it->get<bool>();
}

// --- Numerics shared by both architectures ------------------------------------------------

/// LayerNorm over each row (Ba, Kiros & Hinton 2016): (x − mean) / √(var + eps) · γ + β, the
/// variance biased (divided by d) as PyTorch computes it.
Matrix layerNorm(const Matrix& x, const Vector& gamma, const Vector& beta, double eps) {
  Matrix out(x.rows(), x.cols());
  // Rows are independent: split across the threads for long inputs (the same numbers).
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && x.size() >= (1 << 16))
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const auto row = x.row(i);
    const double mean = row.cast<double>().mean();
    const double var = (row.cast<double>().array() - mean).square().mean();
    const auto inv = static_cast<float>(1.0 / std::sqrt(var + eps));
    out.row(i) = ((row.array() - static_cast<float>(mean)) * inv * gamma.transpose().array() +
                  beta.transpose().array())
                     .matrix();
  }
  return out;
}

enum class Activation { kGeluErf, kGeluTanh, kRelu, kSilu };

Activation parseActivation(const std::string& name) {
  if (name == "gelu") return Activation::kGeluErf;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast")
    return Activation::kGeluTanh;
  if (name == "relu") return Activation::kRelu;
  if (name == "silu" || name == "swish") return Activation::kSilu;
  throw Error(ErrorCode::kInvalidArgument,
              "config.json: activation \"" + name +
                  "\" is not supported (gelu, gelu_new, relu, silu are)");
}

void activate(Matrix& x, Activation activation) {
  float* p = x.data();
  const Eigen::Index n = x.size();
  switch (activation) {
    case Activation::kGeluErf: {  // x Φ(x) (Hendrycks & Gimpel 2016, eq. 1); Eigen's vectorised erf
      // In chunks of whole rows across the threads (elementwise: the same numbers).
      const Eigen::Index cols = x.cols(), rows = x.rows();
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && n >= (1 << 16))
      for (Eigen::Index r = 0; r < rows; ++r) {
        Eigen::Map<Eigen::ArrayXf> a(p + r * cols, cols);
        a = 0.5f * a * (1.0f + (a * 0.70710678118654752f).erf());
      }
      break;
    }
    case Activation::kGeluTanh:  // tanh approximation (Hendrycks & Gimpel 2016, §2)
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && n >= (1 << 16))
      for (Eigen::Index i = 0; i < n; ++i) {
        const float v = p[i];
        p[i] = 0.5f * v * (1.0f + std::tanh(0.79788456080286536f * (v + 0.044715f * v * v * v)));
      }
      break;
    case Activation::kRelu:
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && n >= (1 << 16))
      for (Eigen::Index i = 0; i < n; ++i) p[i] = p[i] > 0 ? p[i] : 0.0f;
      break;
    case Activation::kSilu:  // x σ(x) (Elfwing, Uchibe & Doya 2018)
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && n >= (1 << 16))
      for (Eigen::Index i = 0; i < n; ++i) p[i] = p[i] / (1.0f + std::exp(-p[i]));
      break;
  }
}

/// A dense layer y = x Wᵀ + b with W stored [out, in] (PyTorch's nn.Linear) or y = x W + b with W
/// stored [in, out] (GPT-2's Conv1D); kept as [in, out] so both multiply the same way.
struct Dense {
  Matrix w;  // [in, out] while loading; emptied by pack()
  Vector b;  // [out]
  linear::PackedWeights packed;  // Wᵀ packed for the product
  void pack() {
    packed = linear::PackedWeights(w.transpose());
    w.resize(0, 0);
  }
  Matrix apply(const Matrix& x) const { return linear::timesTransposed(x, packed, b); }
};

/// The weights of one safetensors file, looked up with an optional name prefix ("bert.",
/// "transformer.") and shape-checked.
class WeightReader {
 public:
  WeightReader(const SafeTensors& file, std::string prefix)
      : file_(file), prefix_(std::move(prefix)) {}
  Matrix matrix(const std::string& name, Eigen::Index rows, Eigen::Index cols) const {
    return file_.matrix(prefix_ + name, rows, cols);
  }
  Vector vector(const std::string& name, Eigen::Index n) const {
    const TensorView& t = file_.tensor(prefix_ + name);
    if (t.shape.size() != 1 || t.shape[0] != n) {
      throw Error(ErrorCode::kInvalidInput, file_.path().filename().string() + ": tensor " +
                                                t.name + " should have shape [" +
                                                std::to_string(n) + "]");
    }
    const std::vector<float> v = file_.floats(prefix_ + name);
    return Eigen::Map<const Vector>(v.data(), n);
  }
  /// nn.Linear: stored [out, in], returned as [in, out].
  Dense linear(const std::string& name, Eigen::Index in, Eigen::Index out) const {
    Dense d;
    d.w = matrix(name + ".weight", out, in).transpose();
    d.b = vector(name + ".bias", out);
    return d;
  }
  /// GPT-2's Conv1D: stored [in, out] already.
  Dense conv1d(const std::string& name, Eigen::Index in, Eigen::Index out) const {
    Dense d;
    d.w = matrix(name + ".weight", in, out);
    d.b = vector(name + ".bias", out);
    return d;
  }

 private:
  const SafeTensors& file_;
  std::string prefix_;
};

/// Finds the prefix under which `probe` exists: "" or one of `candidates`.
std::string findPrefix(const SafeTensors& file, const std::string& probe,
                       std::initializer_list<const char*> candidates) {
  if (file.contains(probe)) return "";
  for (const char* prefix : candidates) {
    if (file.contains(prefix + probe)) return prefix;
  }
  throw Error(ErrorCode::kInvalidInput, file.path().filename().string() + " has no tensor " +
                                            probe + " (is it a checkpoint of this architecture?)");
}

/// Splits [n, heads·d] into [heads, n, d].
void splitHeads(const Matrix& x, Eigen::Index col0, int heads, int d, Tensor3* out) {
  const auto n = static_cast<int>(x.rows());
  *out = Tensor3(heads, n, d);
  for (int h = 0; h < heads; ++h)
    out->head(h) = x.middleCols(col0 + static_cast<Eigen::Index>(h) * d, d);
}

/// Concatenates per-head outputs [heads, n, d] into [n, heads·d], heads in order.
Matrix mergeHeads(const Tensor3& heads) {
  Matrix out(heads.rows, static_cast<Eigen::Index>(heads.h) * heads.cols);
  for (int h = 0; h < heads.h; ++h)
    out.middleCols(static_cast<Eigen::Index>(h) * heads.cols, heads.cols) = heads.head(h);
  return out;
}

/// One transformer block's weights; both architectures have the same pieces (only their order and
/// the LayerNorm placement differ). qkv packs W_Q | W_K | W_V as [d_model, 3·d_model].
struct BlockWeights {
  Dense qkv, out, ff_in, ff_out;
  Vector ln1_gamma, ln1_beta, ln2_gamma, ln2_beta;
  void pack() {
    for (Dense* d : {&qkv, &out, &ff_in, &ff_out}) d->pack();
  }
};

/// Multi-head self-attention from packed projections qkv [n, 3·d_model]: splits the heads,
/// computes on `backend` (the result lands in *attention) and returns the concatenated head
/// outputs [n, d_model].
Matrix attend(const Matrix& qkv, const ModelConfig& config, const AttentionSpec& spec,
              Backend& backend, AttentionResult* attention) {
  const int d = config.dK();
  AttentionInputs inputs;
  splitHeads(qkv, 0, config.heads, d, &inputs.q);
  splitHeads(qkv, config.d_model, config.heads, d, &inputs.k);
  splitHeads(qkv, 2 * static_cast<Eigen::Index>(config.d_model), config.heads, d, &inputs.v);
  *attention = backend.compute(inputs, spec);
  return mergeHeads(attention->head_outputs);
}

// --- BERT (Devlin et al. 2019; HuggingFace's BertModel layout) ---------------------------------

class BertModel final : public PretrainedModel {
 public:
  BertModel(ModelConfig config, const SafeTensors& file) {
    config_ = std::move(config);
    const ModelConfig& c = config_;
    const WeightReader w(file, findPrefix(file, "embeddings.word_embeddings.weight", {"bert."}));
    word_ = w.matrix("embeddings.word_embeddings.weight", c.vocab_size, c.d_model);
    position_ = w.matrix("embeddings.position_embeddings.weight", c.max_positions, c.d_model);
    type_ = w.matrix("embeddings.token_type_embeddings.weight", c.type_vocab_size, c.d_model);
    ln_gamma_ = w.vector("embeddings.LayerNorm.weight", c.d_model);
    ln_beta_ = w.vector("embeddings.LayerNorm.bias", c.d_model);
    activation_ = parseActivation(c.activation);
    for (int l = 0; l < c.layers; ++l) {
      const std::string p = "encoder.layer." + std::to_string(l) + ".";
      BlockWeights layer;
      const Dense q = w.linear(p + "attention.self.query", c.d_model, c.d_model);
      const Dense k = w.linear(p + "attention.self.key", c.d_model, c.d_model);
      const Dense v = w.linear(p + "attention.self.value", c.d_model, c.d_model);
      layer.qkv.w.resize(c.d_model, 3 * c.d_model);
      layer.qkv.w << q.w, k.w, v.w;
      layer.qkv.b.resize(3 * c.d_model);
      layer.qkv.b << q.b, k.b, v.b;
      layer.out = w.linear(p + "attention.output.dense", c.d_model, c.d_model);
      layer.ln1_gamma = w.vector(p + "attention.output.LayerNorm.weight", c.d_model);
      layer.ln1_beta = w.vector(p + "attention.output.LayerNorm.bias", c.d_model);
      layer.ff_in = w.linear(p + "intermediate.dense", c.d_model, c.d_ff);
      layer.ff_out = w.linear(p + "output.dense", c.d_ff, c.d_model);
      layer.ln2_gamma = w.vector(p + "output.LayerNorm.weight", c.d_model);
      layer.ln2_beta = w.vector(p + "output.LayerNorm.bias", c.d_model);
      layer.pack();
      layers_.push_back(std::move(layer));
    }
  }

 protected:
  Matrix embed(const Encoding& e) const override {
    const auto n = static_cast<Eigen::Index>(e.ids.size());
    Matrix x(n, config_.d_model);
    for (Eigen::Index i = 0; i < n; ++i) {
      const int type = e.type_ids.empty() ? 0 : e.type_ids[static_cast<std::size_t>(i)];
      if (type < 0 || type >= config_.type_vocab_size) {
        throw Error(ErrorCode::kInvalidInput,
                    "token type id " + std::to_string(type) + " is outside the model's " +
                        std::to_string(config_.type_vocab_size) + " segments");
      }
      x.row(i) = word_.row(e.ids[static_cast<std::size_t>(i)]) + position_.row(i) + type_.row(type);
    }
    return layerNorm(x, ln_gamma_, ln_beta_, config_.layer_norm_eps);
  }

  Matrix layer(int l, const Matrix& x, const AttentionSpec& spec, Backend& backend,
               AttentionResult* attention) const override {
    const BlockWeights& layer = layers_[static_cast<std::size_t>(l)];
    const Matrix context = attend(layer.qkv.apply(x), config_, spec, backend, attention);
    const Matrix h1 = layerNorm(layer.out.apply(context) + x, layer.ln1_gamma, layer.ln1_beta,
                                config_.layer_norm_eps);
    Matrix ff = layer.ff_in.apply(h1);
    activate(ff, activation_);
    return layerNorm(layer.ff_out.apply(ff) + h1, layer.ln2_gamma, layer.ln2_beta,
                     config_.layer_norm_eps);
  }

 private:
  Matrix word_, position_, type_;
  Vector ln_gamma_, ln_beta_;
  Activation activation_ = Activation::kGeluErf;
  std::vector<BlockWeights> layers_;
};

// --- GPT-2 (Radford et al. 2019; HuggingFace's GPT2Model layout) -------------------------------

class Gpt2Model final : public PretrainedModel {
 public:
  Gpt2Model(ModelConfig config, const SafeTensors& file) {
    config_ = std::move(config);
    const ModelConfig& c = config_;
    const WeightReader w(file, findPrefix(file, "wte.weight", {"transformer."}));
    token_ = w.matrix("wte.weight", c.vocab_size, c.d_model);
    position_ = w.matrix("wpe.weight", c.max_positions, c.d_model);
    // The final LayerNorm feeds the (tied) language-model head: only the predictions need it.
    if (file.contains(prefix(file) + "ln_f.weight")) {
      lnf_gamma_ = w.vector("ln_f.weight", c.d_model);
      lnf_beta_ = w.vector("ln_f.bias", c.d_model);
    }
    activation_ = parseActivation(c.activation);
    for (int l = 0; l < c.layers; ++l) {
      const std::string p = "h." + std::to_string(l) + ".";
      BlockWeights layer;
      layer.ln1_gamma = w.vector(p + "ln_1.weight", c.d_model);
      layer.ln1_beta = w.vector(p + "ln_1.bias", c.d_model);
      layer.qkv = w.conv1d(p + "attn.c_attn", c.d_model, 3 * c.d_model);
      layer.out = w.conv1d(p + "attn.c_proj", c.d_model, c.d_model);
      layer.ln2_gamma = w.vector(p + "ln_2.weight", c.d_model);
      layer.ln2_beta = w.vector(p + "ln_2.bias", c.d_model);
      layer.ff_in = w.conv1d(p + "mlp.c_fc", c.d_model, c.d_ff);
      layer.ff_out = w.conv1d(p + "mlp.c_proj", c.d_ff, c.d_model);
      layer.pack();
      layers_.push_back(std::move(layer));
    }
  }

 protected:
  Matrix embed(const Encoding& e) const override {
    const auto n = static_cast<Eigen::Index>(e.ids.size());
    Matrix x(n, config_.d_model);
    for (Eigen::Index i = 0; i < n; ++i) {
      x.row(i) = token_.row(e.ids[static_cast<std::size_t>(i)]) + position_.row(i);
    }
    return x;
  }

  Matrix layer(int l, const Matrix& x, const AttentionSpec& spec, Backend& backend,
               AttentionResult* attention) const override {
    const BlockWeights& layer = layers_[static_cast<std::size_t>(l)];
    const Matrix a = layerNorm(x, layer.ln1_gamma, layer.ln1_beta, config_.layer_norm_eps);
    const Matrix h1 = x + layer.out.apply(attend(layer.qkv.apply(a), config_, spec, backend, attention));
    Matrix ff =
        layer.ff_in.apply(layerNorm(h1, layer.ln2_gamma, layer.ln2_beta, config_.layer_norm_eps));
    activate(ff, activation_);
    return h1 + layer.ff_out.apply(ff);
  }

  bool hasOutputLayer() const override { return lnf_gamma_.size() > 0; }
  Eigen::VectorXf logits(const Matrix& hidden) const override {
    if (lnf_gamma_.size() == 0) return {};
    const Matrix last =
        layerNorm(hidden.bottomRows(1), lnf_gamma_, lnf_beta_, config_.layer_norm_eps);
    return token_ * last.row(0).transpose();
  }

 private:
  static std::string prefix(const SafeTensors& file) {
    return file.contains("wte.weight") ? "" : "transformer.";
  }
  Matrix token_, position_;
  Vector lnf_gamma_, lnf_beta_;
  Activation activation_ = Activation::kGeluTanh;
  std::vector<BlockWeights> layers_;
};

/// The k most probable tokens of softmax(logits), most probable first (softmax in double with
/// the maximum subtracted).
std::vector<NextToken> topTokens(const Eigen::VectorXf& logits, int k, const ModelTokenizer& tok) {
  const auto n = static_cast<int>(logits.size());
  if (n == 0) return {};
  const double m = logits.maxCoeff();
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += std::exp(static_cast<double>(logits[i]) - m);
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  const int top = std::min(k, n);
  std::partial_sort(order.begin(), order.begin() + top, order.end(), [&](int a, int b) {
    return logits[a] != logits[b] ? logits[a] > logits[b] : a < b;
  });
  std::vector<NextToken> out;
  for (int r = 0; r < top; ++r) {
    const int id = order[static_cast<std::size_t>(r)];
    NextToken t;
    t.id = id;
    t.label = tok.tokenLabel(id);
    if (t.label.empty()) t.label = "#" + std::to_string(id);
    t.logit = logits[id];
    t.probability = std::exp(t.logit - m) / sum;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

ModelConfig readModelConfig(const std::filesystem::path& config_json) {
  // readFile names the file when it is missing or a Git LFS pointer.
  const std::string text =
      model_text::readFile(config_json, "a HuggingFace model folder needs config.json");
  json config = json::parse(text, nullptr, false);
  if (config.is_discarded() || !config.is_object()) badConfig("not a well-formed JSON object");
  const std::string type = stringField(config, "model_type", "");
  ModelConfig c;
  c.model_type = type;
  if (type == "bert") {
    c.architecture = Architecture::kBert;
    c.layers = intField(config, {"num_hidden_layers"});
    c.heads = intField(config, {"num_attention_heads"});
    c.d_model = intField(config, {"hidden_size"});
    c.d_ff = intField(config, {"intermediate_size"});
    c.max_positions = intField(config, {"max_position_embeddings"});
    c.vocab_size = intField(config, {"vocab_size"});
    c.type_vocab_size = intField(config, {"type_vocab_size"}, 2);
    c.layer_norm_eps = numberField(config, "layer_norm_eps", 1e-12);
    c.activation = stringField(config, "hidden_act", "gelu");
    const std::string positions = stringField(config, "position_embedding_type", "absolute");
    if (positions != "absolute") {
      throw Error(ErrorCode::kInvalidArgument, "config.json: position_embedding_type \"" +
                                                   positions +
                                                   "\" is not supported (only \"absolute\")");
    }
  } else if (type == "gpt2") {
    c.architecture = Architecture::kGpt2;
    c.layers = intField(config, {"n_layer"});
    c.heads = intField(config, {"n_head"});
    c.d_model = intField(config, {"n_embd"});
    // 4·d_model in 64 bits: n_embd may be up to 2^30, where 4·n_embd overflows int.
    c.d_ff = intField(config, {"n_inner"},
                      static_cast<int>(std::min<long long>(4LL * c.d_model, 1 << 30)));
    c.max_positions = intField(config, {"n_positions", "n_ctx"});
    c.vocab_size = intField(config, {"vocab_size"});
    c.layer_norm_eps = numberField(config, "layer_norm_epsilon", 1e-5);
    c.activation = stringField(config, "activation_function", "gelu_new");
    c.scale_attention = boolField(config, "scale_attn_weights", true);
    c.tied_embeddings = true;  // GPT2LMHeadModel's lm_head is wte
    if (boolField(config, "scale_attn_by_inverse_layer_idx", false)) {
      throw Error(ErrorCode::kInvalidArgument,
                  "config.json: scale_attn_by_inverse_layer_idx is not supported");
    }
  } else if (type == "llama") {
    c.architecture = Architecture::kLlama;
    c.layers = intField(config, {"num_hidden_layers"});
    c.heads = intField(config, {"num_attention_heads"});
    c.kv_heads = intField(config, {"num_key_value_heads"}, c.heads);
    c.d_model = intField(config, {"hidden_size"});
    c.d_ff = intField(config, {"intermediate_size"});
    c.max_positions = intField(config, {"max_position_embeddings"});
    c.vocab_size = intField(config, {"vocab_size"});
    c.layer_norm_eps = numberField(config, "rms_norm_eps", 1e-6);
    c.rope_base = numberField(config, "rope_theta", 10000.0);
    c.activation = stringField(config, "hidden_act", "silu");
    c.tied_embeddings = boolField(config, "tie_word_embeddings", false);
    c.head_dim = intField(config, {"head_dim"}, c.d_model % c.heads == 0 ? c.d_model / c.heads : 0);
    if (c.head_dim <= 0) badConfig("head_dim is needed when heads do not divide hidden_size");
    c.rope_dims = c.head_dim;
    if (c.heads % c.kv_heads != 0) {
      badConfig("num_key_value_heads (" + std::to_string(c.kv_heads) +
                ") does not divide num_attention_heads (" + std::to_string(c.heads) + ")");
    }
    if (c.head_dim % 2 != 0) badConfig("head_dim must be even for RoPE");
    if (const auto it = config.find("rope_scaling"); it != config.end() && !it->is_null()) {
      const std::string kind = it->is_object() ? it->value("rope_type", it->value("type", "?")) : "?";
      if (kind != "default") {
        throw Error(ErrorCode::kInvalidArgument,
                    "config.json: rope_scaling \"" + kind + "\" is not supported");
      }
    }
    for (const char* bias : {"attention_bias", "mlp_bias"}) {
      if (boolField(config, bias, false)) {
        throw Error(ErrorCode::kInvalidArgument,
                    std::string("config.json: ") + bias + " is not supported");
      }
    }
    if (c.activation != "silu") {
      throw Error(ErrorCode::kInvalidArgument,
                  "config.json: hidden_act \"" + c.activation + "\" is not supported (silu is)");
    }
  } else if (type.empty()) {
    badConfig("missing model_type (supported: bert, gpt2, llama)");
  } else {
    throw Error(ErrorCode::kInvalidArgument,
                "model_type \"" + type + "\" is not supported (supported: bert, gpt2, llama)");
  }
  c.format = "safetensors";
  if (c.kv_heads == 0) c.kv_heads = c.heads;
  if (c.head_dim == 0 && c.d_model % c.heads != 0) {
    badConfig("heads (" + std::to_string(c.heads) + ") must divide the hidden size (" +
              std::to_string(c.d_model) + ")");
  }
  parseActivation(c.activation);
  return c;
}

std::string toString(Architecture architecture) {
  switch (architecture) {
    case Architecture::kBert:
      return "bert";
    case Architecture::kGpt2:
      return "gpt2";
    case Architecture::kLlama:
      return "llama";
  }
  return "?";
}

namespace {

/// A forward pass allocates every layer's scores and weights (2·L·h·n² floats: 566 MB for
/// SmolLM2 at 512 tokens) and frees them with the run. By default glibc returns such blocks to the
/// kernel at once (mmap above its threshold, heap trimming), so the next pass page-faults and
/// zeroes the same memory again (~15 % of a MiniLM pass). Keeping freed memory for reuse avoids
/// that; resident memory then stays at the largest run's. Once per process, glibc only.
void keepFreedMemory() {
#ifdef __GLIBC__
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
#endif
}

}  // namespace

std::unique_ptr<PretrainedModel> PretrainedModel::load(const std::filesystem::path& path) {
  const auto t0 = Clock::now();
  keepFreedMemory();
  std::error_code ec;
  std::unique_ptr<PretrainedModel> model;
  if (std::filesystem::is_regular_file(path, ec)) {
    if (!isGgufFile(path)) {
      throw Error(ErrorCode::kIo, path.string() +
                                      " is neither a model folder nor a GGUF file (--model takes "
                                      "a HuggingFace model folder or a .gguf file)");
    }
    const GgufFile file(path);  // unmapped once the weights are dequantised
    ModelConfig config = llama::configFromGguf(file);
    auto tokenizer = loadGgufTokenizer(file);  // before the weights: a bad tokenizer fails fast
    model = llama::fromGguf(std::move(config), file);
    model->tokenizer_ = std::move(tokenizer);
    model->name_ = path.stem().string();
  } else {
    const std::filesystem::path& dir = path;
    if (!std::filesystem::is_directory(dir, ec)) {
      throw Error(ErrorCode::kIo, std::filesystem::exists(dir, ec)
                                      ? dir.string() + " is not a model folder or a GGUF file"
                                      : "model folder " + dir.string() + " does not exist");
    }
    ModelConfig config = readModelConfig(dir / "config.json");
    const std::filesystem::path weights = dir / "model.safetensors";
    if (!std::filesystem::exists(weights, ec)) {
      throw Error(ErrorCode::kIo,
                  "cannot read " + weights.string() +
                      ": the model folder needs model.safetensors (PyTorch .bin files are not read)");
    }
    {
      const SafeTensors file(weights);  // unmapped once the weights are copied out
      switch (config.architecture) {
        case Architecture::kBert:
          model = std::make_unique<BertModel>(std::move(config), file);
          break;
        case Architecture::kGpt2:
          model = std::make_unique<Gpt2Model>(std::move(config), file);
          break;
        case Architecture::kLlama:
          model = llama::fromSafetensors(std::move(config), file);
          break;
      }
    }
    model->tokenizer_ = loadModelTokenizer(dir, model->config_.model_type);
    model->name_ = std::filesystem::absolute(dir, ec).lexically_normal().filename().string();
    if (model->name_.empty()) {
      model->name_ =
          std::filesystem::absolute(dir, ec).lexically_normal().parent_path().filename().string();
    }
  }
  if (model->tokenizer_->vocabSize() > model->config_.vocab_size) {
    throw Error(ErrorCode::kInvalidInput,
                "the tokenizer has " + std::to_string(model->tokenizer_->vocabSize()) +
                    " entries but the model only " + std::to_string(model->config_.vocab_size) +
                    " embeddings (tokenizer files from another model?)");
  }
  model->dir_ = path;
  model->load_ms_ = msSince(t0);
  return model;
}

ModelRun PretrainedModel::run(std::string_view text, std::optional<std::string_view> pair,
                              const ModelRunOptions& options, Backend& backend) const {
  const auto t0 = Clock::now();
  if (pair && config_.architecture != Architecture::kBert) {
    throw Error(ErrorCode::kInvalidArgument,
                "sentence pairs need a BERT-family model; " + name_ + " is " + config_.model_type);
  }
  // Empty text is refused, and so is text the model's tokenizer turns into nothing — a rule of
  // the tokenizer (GPT-2's byte-level BPE reads white space as tokens: "\n\n" is two; BERT's
  // WordPiece drops white space, control and format characters), said in its own words.
  if (text.empty()) throw Error(ErrorCode::kInvalidInput, "the text is empty");
  if (pair && pair->empty())
    throw Error(ErrorCode::kInvalidInput, "the second text (--pair) is empty");
  Encoding encoding = tokenizer_->encode(text, pair);  // checks UTF-8 and names the text
  auto requireTokens = [&](std::string_view t, const char* what) {
    if (tokenizer_->countTextTokens(t) == 0) {
      throw Error(ErrorCode::kInvalidInput,
                  std::string(what) + " has no tokens (" + tokenizer_->noTokensReason() + ")");
    }
  };
  requireTokens(text, "the text");
  if (pair) requireTokens(*pair, "the second text (--pair)");
  ModelRun run = runIds(encoding, options, backend);
  run.encoding = std::move(encoding);
  run.compute_ms = msSince(t0);
  return run;
}

long long ModelRunOptions::budget() const {
  return memory_budget > 0 ? memory_budget : defaultMemoryBudget();
}

int PretrainedModel::keptLayers(const ModelRunOptions& options) const {
  return options.layer ? 1 : config_.layers;
}

int PretrainedModel::lastLayerRun(const ModelRunOptions& options) const {
  // Predictions need the whole pass; without them the pass stops at the layer asked for.
  const bool predict = options.next_tokens > 0 && hasOutputLayer();
  return options.layer && !predict ? *options.layer : config_.layers - 1;
}

long long PretrainedModel::attentionBytes(int tokens, const ModelRunOptions& options) const {
  const long long n = std::max(tokens, 0), h = config_.heads, d = config_.dK();
  const long long per_layer = h * n * n * 2 * 4 + h * n * d * 4 + h * n * 5 * 4;
  const long long kept = keptLayers(options);
  return (kept + (kept < lastLayerRun(options) + 1 ? 1 : 0)) * per_layer;
}

ModelRun PretrainedModel::runIds(const Encoding& encoding, const ModelRunOptions& options,
                                 Backend& backend) const {
  const auto t0 = Clock::now();
  const auto n = static_cast<int>(encoding.ids.size());
  if (n == 0) throw Error(ErrorCode::kInvalidInput, "the text gives no tokens");
  if (n > config_.max_positions) {
    throw Error(ErrorCode::kInvalidInput, "the text is " + std::to_string(n) + " tokens; " + name_ +
                                              " reads at most " +
                                              std::to_string(config_.max_positions));
  }
  for (int id : encoding.ids) {
    if (id < 0 || id >= config_.vocab_size) {
      throw Error(ErrorCode::kInvalidInput, "token id " + std::to_string(id) +
                                                " is outside the vocabulary of " +
                                                std::to_string(config_.vocab_size));
    }
  }
  if (!encoding.type_ids.empty() && encoding.type_ids.size() != encoding.ids.size()) {
    throw Error(ErrorCode::kInvalidArgument, "token type ids and ids differ in length");
  }
  if (options.mechanism == Mechanism::kAdditive) {
    throw Error(ErrorCode::kInvalidArgument,
                "a pretrained model's heads are dot-product attention; additive attention is the "
                "synthetic lab's");
  }
  if (options.layer && (*options.layer < 0 || *options.layer >= config_.layers)) {
    throw Error(ErrorCode::kInvalidArgument, "layer " + std::to_string(*options.layer) +
                                                 " does not exist: " + name_ + " has layers 0–" +
                                                 std::to_string(config_.layers - 1));
  }
  if (options.next_tokens < 0) {
    throw Error(ErrorCode::kInvalidArgument, "the number of next-token predictions must be ≥ 0");
  }
  AttentionSpec spec;
  spec.mechanism =
      options.mechanism.value_or(config_.scale_attention ? Mechanism::kScaled : Mechanism::kDot);
  spec.mask = config_.mask();
  spec.heads = config_.heads;
  spec.kv_heads = config_.kv_heads > 0 ? config_.kv_heads : config_.heads;
  spec.d_model = config_.d_model;
  spec.d_k = config_.dK();
  spec.d_v = config_.dK();
  spec.temperature = options.temperature;
  spec.validate();

  ModelRun run;
  run.encoding.ids = encoding.ids;
  run.encoding.type_ids = encoding.type_ids;
  run.encoding.special.assign(encoding.ids.size(), false);
  for (int id : encoding.ids) run.encoding.labels.push_back(std::to_string(id));
  run.kv_heads = config_.kv_heads > 0 ? config_.kv_heads : config_.heads;
  for (int i = 0; i < config_.heads; ++i) run.kv_head.push_back(config_.kvHeadOf(i));
  const bool predict = options.next_tokens > 0 && hasOutputLayer();
  const int last = lastLayerRun(options);
  const long long needed = attentionBytes(n, options);
  const long long budget = options.budget();
  if (needed > budget) {
    throw Error(ErrorCode::kInvalidInput,
                "this run would keep " + formatBytes(needed) + " of attention (" +
                    std::to_string(keptLayers(options)) + " layers × " + std::to_string(config_.heads) +
                    " heads × " + std::to_string(n) + "² scores and weights), more than the memory "
                    "budget of " + formatBytes(budget) +
                    ": choose one layer (--layer), fewer tokens, or a larger --memory-budget");
  }
  Matrix x = embed(encoding);
  for (int l = 0; l <= last; ++l) {
    AttentionResult attention;
    x = layer(l, x, spec, backend, &attention);
    if (!options.layer || l == *options.layer) {
      run.attention.push_back(std::move(attention));
      run.layers.push_back(l);
    }
    if (options.progress && !options.progress(l + 1, last + 1)) {
      throw Error(ErrorCode::kCancelled, "the forward pass was cancelled");
    }
  }
  if (predict) run.next_tokens = topTokens(logits(x), options.next_tokens, *tokenizer_);
  run.hidden = std::move(x);
  run.compute_ms = msSince(t0);
  return run;
}


}  // namespace attnlab
