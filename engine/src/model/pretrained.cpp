// Pretrained models: config.json, weights from model.safetensors, and the forward passes of BERT
// and GPT-2 in float32 with every layer's attention computed by a Backend.

#include "attnlab/pretrained.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attnlab/error.hpp"
#include "attnlab/safetensors.hpp"
#include "attnlab/tokenizer.hpp"
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

enum class Activation { kGeluErf, kGeluTanh, kRelu };

Activation parseActivation(const std::string& name) {
  if (name == "gelu") return Activation::kGeluErf;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast")
    return Activation::kGeluTanh;
  if (name == "relu") return Activation::kRelu;
  throw Error(ErrorCode::kInvalidArgument, "config.json: activation \"" + name +
                                               "\" is not supported (gelu, gelu_new, relu are)");
}

void activate(Matrix& x, Activation activation) {
  float* p = x.data();
  const Eigen::Index n = x.size();
  switch (activation) {
    case Activation::kGeluErf:  // x Φ(x) (Hendrycks & Gimpel 2016, eq. 1)
      for (Eigen::Index i = 0; i < n; ++i)
        p[i] = 0.5f * p[i] * (1.0f + std::erf(p[i] * 0.70710678118654752f));
      break;
    case Activation::kGeluTanh:  // tanh approximation (Hendrycks & Gimpel 2016, §2)
      for (Eigen::Index i = 0; i < n; ++i) {
        const float v = p[i];
        p[i] = 0.5f * v * (1.0f + std::tanh(0.79788456080286536f * (v + 0.044715f * v * v * v)));
      }
      break;
    case Activation::kRelu:
      for (Eigen::Index i = 0; i < n; ++i) p[i] = p[i] > 0 ? p[i] : 0.0f;
      break;
  }
}

/// A dense layer y = x Wᵀ + b with W stored [out, in] (PyTorch's nn.Linear) or y = x W + b with W
/// stored [in, out] (GPT-2's Conv1D); kept as [in, out] so both multiply the same way.
struct Dense {
  Matrix w;  // [in, out]
  Vector b;  // [out]
  Matrix apply(const Matrix& x) const {
    Matrix y = x * w;
    y.rowwise() += b.transpose();
    return y;
  }
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
    return {matrix(name + ".weight", out, in).transpose(), vector(name + ".bias", out)};
  }
  /// GPT-2's Conv1D: stored [in, out] already.
  Dense conv1d(const std::string& name, Eigen::Index in, Eigen::Index out) const {
    return {matrix(name + ".weight", in, out), vector(name + ".bias", out)};
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

 private:
  Matrix token_, position_;
  Activation activation_ = Activation::kGeluTanh;
  std::vector<BlockWeights> layers_;
};

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
    if (boolField(config, "scale_attn_by_inverse_layer_idx", false)) {
      throw Error(ErrorCode::kInvalidArgument,
                  "config.json: scale_attn_by_inverse_layer_idx is not supported");
    }
  } else if (type.empty()) {
    badConfig("missing model_type (supported: bert, gpt2)");
  } else {
    throw Error(ErrorCode::kInvalidArgument,
                "model_type \"" + type + "\" is not supported (supported: bert, gpt2)");
  }
  if (c.d_model % c.heads != 0) {
    badConfig("heads (" + std::to_string(c.heads) + ") must divide the hidden size (" +
              std::to_string(c.d_model) + ")");
  }
  parseActivation(c.activation);
  return c;
}

std::unique_ptr<PretrainedModel> PretrainedModel::load(const std::filesystem::path& dir) {
  const auto t0 = Clock::now();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw Error(ErrorCode::kIo, std::filesystem::exists(dir, ec)
                                    ? dir.string() + " is a file; --model takes the model's folder"
                                    : "model folder " + dir.string() + " does not exist");
  }
  ModelConfig config = readModelConfig(dir / "config.json");
  const std::filesystem::path weights = dir / "model.safetensors";
  if (!std::filesystem::exists(weights, ec)) {
    throw Error(ErrorCode::kIo,
                "cannot read " + weights.string() +
                    ": the model folder needs model.safetensors (PyTorch .bin files are not read)");
  }
  std::unique_ptr<PretrainedModel> model;
  {
    const SafeTensors file(weights);  // unmapped once the weights are copied out
    if (config.architecture == Architecture::kBert) {
      model = std::make_unique<BertModel>(std::move(config), file);
    } else {
      model = std::make_unique<Gpt2Model>(std::move(config), file);
    }
  }
  model->tokenizer_ = loadModelTokenizer(dir, model->config_.model_type);
  if (model->tokenizer_->vocabSize() > model->config_.vocab_size) {
    throw Error(ErrorCode::kInvalidInput,
                "the tokenizer has " + std::to_string(model->tokenizer_->vocabSize()) +
                    " entries but the model only " + std::to_string(model->config_.vocab_size) +
                    " embeddings (tokenizer files from another model?)");
  }
  model->dir_ = dir;
  model->name_ = std::filesystem::absolute(dir, ec).lexically_normal().filename().string();
  if (model->name_.empty()) {
    model->name_ =
        std::filesystem::absolute(dir, ec).lexically_normal().parent_path().filename().string();
  }
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
  AttentionSpec spec;
  spec.mechanism =
      options.mechanism.value_or(config_.scale_attention ? Mechanism::kScaled : Mechanism::kDot);
  spec.mask = config_.mask();
  spec.heads = config_.heads;
  spec.d_model = config_.d_model;
  spec.temperature = options.temperature;
  spec.validate();

  ModelRun run;
  run.encoding.ids = encoding.ids;
  run.encoding.type_ids = encoding.type_ids;
  run.encoding.special.assign(encoding.ids.size(), false);
  for (int id : encoding.ids) run.encoding.labels.push_back(std::to_string(id));
  const int last = options.layer ? *options.layer : config_.layers - 1;
  Matrix x = embed(encoding);
  for (int l = 0; l <= last; ++l) {
    AttentionResult attention;
    x = layer(l, x, spec, backend, &attention);
    if (!options.layer || l == *options.layer) {
      run.attention.push_back(std::move(attention));
      run.layers.push_back(l);
    }
  }
  run.hidden = std::move(x);
  run.compute_ms = msSince(t0);
  return run;
}

}  // namespace attnlab
