// GPT-2 (Radford et al. 2019; HuggingFace's GPT2Model layout): token + position embeddings,
// then pre-LayerNorm blocks of causal self-attention (Conv1D projections) and a GELU (tanh) MLP.

#include "model/gpt2.hpp"

#include <string>
#include <utility>
#include <vector>

#include "attnlab/error.hpp"
#include "model/blocks.hpp"

namespace attnlab::gpt2 {
namespace {

using blocks::Activation;
using blocks::activate;
using blocks::attend;
using blocks::BlockWeights;
using blocks::findPrefix;
using blocks::layerNorm;
using blocks::parseActivation;
using blocks::WeightReader;

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
    return layerAt(l, x, 0, [&](int, const Matrix& qkv) {
      return attend(qkv, config_.heads, config_.heads, config_.dK(), spec, backend, attention);
    });
  }

 public:
  bool isDecoder() const override { return true; }
  Matrix embedAt(const std::vector<int>& ids, int first_position) const override {
    const auto n = static_cast<Eigen::Index>(ids.size());
    Matrix x(n, config_.d_model);
    for (Eigen::Index i = 0; i < n; ++i)
      x.row(i) = token_.row(ids[static_cast<std::size_t>(i)]) + position_.row(first_position + i);
    return x;
  }

  /// GPT-2's block: positions are in the embeddings, so first_position plays no part here.
  Matrix layerAt(int l, const Matrix& x, int /*first_position*/,
                 const StepAttend& attend_heads) const override {
    const BlockWeights& layer = layers_[static_cast<std::size_t>(l)];
    const Matrix a = layerNorm(x, layer.ln1_gamma, layer.ln1_beta, config_.layer_norm_eps);
    const Matrix context = attend_heads(l, layer.qkv.apply(a));
    const Matrix h1 = x + layer.out.apply(context);
    Matrix ff =
        layer.ff_in.apply(layerNorm(h1, layer.ln2_gamma, layer.ln2_beta, config_.layer_norm_eps));
    activate(ff, activation_);
    return h1 + layer.ff_out.apply(ff);
  }

 protected:
  bool hasOutputLayer() const override { return lnf_gamma_.size() > 0; }
  Eigen::VectorXf logits(const Matrix& hidden) const override {
    if (lnf_gamma_.size() == 0) return {};
    const Matrix last =
        layerNorm(hidden.bottomRows(1), lnf_gamma_, lnf_beta_, config_.layer_norm_eps);
    return token_ * last.row(0).transpose();
  }

 public:
  Matrix outputProjection(int l, const Matrix& rows) const override {
    return linear::timesTransposed(rows, layers_[static_cast<std::size_t>(l)].out.packed);
  }
  Vector outputBias(int l) const override { return layers_[static_cast<std::size_t>(l)].out.b; }
  FrozenNorm frozenFinalNorm(const Matrix& row) const override {
    return blocks::frozenLayerNorm(row, lnf_gamma_, lnf_beta_, config_.layer_norm_eps);
  }
  Vector unembedding(int token) const override { return token_.row(token).transpose(); }
  Matrix logitsOfRows(const Matrix& hidden) const override {
    return layerNorm(hidden, lnf_gamma_, lnf_beta_, config_.layer_norm_eps) * token_.transpose();
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

}  // namespace

std::unique_ptr<PretrainedModel> fromSafetensors(ModelConfig config, const SafeTensors& file) {
  return std::make_unique<Gpt2Model>(std::move(config), file);
}

}  // namespace attnlab::gpt2
