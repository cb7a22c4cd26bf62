// BERT (Devlin et al. 2019; HuggingFace's BertModel layout): word + position + token-type
// embeddings, then post-LayerNorm blocks of self-attention (no mask) and a GELU feed-forward.

#include "model/bert.hpp"

#include <string>
#include <utility>
#include <vector>

#include "attnlab/error.hpp"
#include "model/blocks.hpp"

namespace attnlab::bert {
namespace {

using blocks::Activation;
using blocks::activate;
using blocks::attend;
using blocks::BlockWeights;
using blocks::Dense;
using blocks::findPrefix;
using blocks::layerNorm;
using blocks::parseActivation;
using blocks::WeightReader;

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
    const int h = config_.heads;
    const Matrix context = attend(layer.qkv.apply(x), h, h, config_.dK(), spec, backend, attention);
    const Matrix h1 = layerNorm(layer.out.apply(context, x), layer.ln1_gamma, layer.ln1_beta,
                                config_.layer_norm_eps);
    Matrix ff = layer.ff_in.apply(h1);
    activate(ff, activation_);
    return layerNorm(layer.ff_out.apply(ff, h1), layer.ln2_gamma, layer.ln2_beta,
                     config_.layer_norm_eps);
  }

 private:
  Matrix outputProjection(int l, const Matrix& rows) const override {
    return linear::timesTransposed(rows, layers_[static_cast<std::size_t>(l)].out.packed);
  }
  Vector outputBias(int l) const override { return layers_[static_cast<std::size_t>(l)].out.b; }

 private:
  Matrix word_, position_, type_;
  Vector ln_gamma_, ln_beta_;
  Activation activation_ = Activation::kGeluErf;
  std::vector<BlockWeights> layers_;
};

}  // namespace

std::unique_ptr<PretrainedModel> fromSafetensors(ModelConfig config, const SafeTensors& file) {
  return std::make_unique<BertModel>(std::move(config), file);
}

}  // namespace attnlab::bert
