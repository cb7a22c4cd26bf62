// dates-transformer(-unscaled): a pre-LayerNorm Transformer encoder–decoder (Vaswani et al. 2017,
// §3.1–3.5; the LayerNorm before each sub-layer as in Xiong et al. 2020) over characters, with
// sinusoidal positions, encoder self-attention, decoder causal self-attention and decoder →
// encoder cross-attention (§3.2.3). Every attention goes through the Backend, so the pictures show
// exactly what the next sub-layer received.

#include <string>
#include <utility>
#include <vector>

#include "attnlab/synthetic.hpp"
#include "model/blocks.hpp"
#include "model/translator_models.hpp"

namespace attnlab::translators {
namespace {

using blocks::Dense;
using blocks::layerNorm;

struct Norm {
  Vector gamma, beta;
};

/// Multi-head attention's projections: W_Q, W_K, W_V [h·d_k, d_model], W_O [d_model, h·d_k].
struct Attention {
  Dense q, k, v, o;
};

struct EncoderLayer {
  Attention self;
  Norm norm1, norm2;
  Dense fc1, fc2;
};

struct DecoderLayer {
  Attention self, cross;
  Norm norm1, norm2, norm3;
  Dense fc1, fc2;
};

class Seq2SeqTransformer final : public Translator {
 public:
  Seq2SeqTransformer(const TranslatorConfig& c, const TranslatorVocab& vocab,
                     const SafeTensors& f) {
    const blocks::WeightReader w(f, "");
    const int d = c.d_model, hd = c.heads * c.d_k;
    src_embed_ = w.matrix("src_embed.weight", static_cast<Eigen::Index>(vocab.source.size()), d);
    tgt_embed_ = w.matrix("tgt_embed.weight", static_cast<Eigen::Index>(vocab.target.size()), d);
    for (int l = 0; l < c.encoder_layers; ++l) {
      const std::string p = "encoder.layers." + std::to_string(l) + ".";
      EncoderLayer layer{attention(w, p + "self_attn", d, hd), norm(w, p + "norm1", d),
                         norm(w, p + "norm2", d), dense(w, p + "ffn.fc1", d, c.d_ff),
                         dense(w, p + "ffn.fc2", c.d_ff, d)};
      encoder_.push_back(std::move(layer));
    }
    encoder_norm_ = norm(w, "encoder.norm", d);
    for (int l = 0; l < c.decoder_layers; ++l) {
      const std::string p = "decoder.layers." + std::to_string(l) + ".";
      DecoderLayer layer{attention(w, p + "self_attn", d, hd), attention(w, p + "cross_attn", d, hd),
                         norm(w, p + "norm1", d), norm(w, p + "norm2", d), norm(w, p + "norm3", d),
                         dense(w, p + "ffn.fc1", d, c.d_ff), dense(w, p + "ffn.fc2", c.d_ff, d)};
      decoder_.push_back(std::move(layer));
    }
    decoder_norm_ = norm(w, "decoder.norm", d);
    out_ = dense(w, "out", d, static_cast<Eigen::Index>(vocab.target.size()));
    positions_ = sinusoidalPositions(std::max(c.max_source_length, c.max_target_length), d);
  }

 protected:
  Translation run(const std::vector<int>& source_ids, const std::vector<int>& forced,
                  const TranslatorOptions& options, Backend& backend) const override {
    AttentionSpec spec;
    spec.mechanism = options.mechanism.value_or(config_.scale_attention ? Mechanism::kScaled
                                                                        : Mechanism::kDot);
    spec.temperature = options.temperature;
    spec.heads = config_.heads;
    spec.d_model = config_.d_model;
    spec.d_k = config_.d_k;
    spec.d_v = config_.d_k;
    Translation t;
    const Matrix memory = encode(source_ids, spec, backend, &t.encoder_self);
    t.decoder_inputs = {TranslatorVocab::kBos};
    if (!forced.empty()) {
      t.decoder_inputs.insert(t.decoder_inputs.end(), forced.begin(), forced.end() - 1);
      t.logits = decode(t.decoder_inputs, memory, spec, backend, &t.decoder_self, &t.cross);
      t.target_ids = forced;
      return t;
    }
    // Greedy, one position at a time with the self-attention's keys and values kept (a causal
    // decoder: earlier positions never change), then one teacher-forced pass over what was chosen,
    // which gives every step's attention and the logits a forced run of that output gives.
    DecodeCache cache = startCache(memory);
    for (int position = 0;; ++position) {
      const Vector logits =
          decodeStep(t.decoder_inputs.back(), position, spec, backend, cache);
      Eigen::Index best = 0;
      logits.maxCoeff(&best);  // the first of equal maxima, as torch.argmax
      const int next = static_cast<int>(best);
      t.target_ids.push_back(next);
      if (next == TranslatorVocab::kEos ||
          static_cast<int>(t.target_ids.size()) >= config_.max_target_length)
        break;
      t.decoder_inputs.push_back(next);
    }
    t.logits = decode(t.decoder_inputs, memory, spec, backend, &t.decoder_self, &t.cross);
    return t;
  }

 private:
  static Dense dense(const blocks::WeightReader& w, const std::string& name, Eigen::Index in,
                     Eigen::Index out) {
    Dense d = w.linear(name, in, out);
    d.pack();
    return d;
  }
  static Norm norm(const blocks::WeightReader& w, const std::string& name, Eigen::Index d) {
    return Norm{w.vector(name + ".weight", d), w.vector(name + ".bias", d)};
  }
  static Attention attention(const blocks::WeightReader& w, const std::string& name, int d,
                             int hd) {
    return Attention{dense(w, name + ".q", d, hd), dense(w, name + ".k", d, hd),
                     dense(w, name + ".v", d, hd), dense(w, name + ".o", hd, d)};
  }
  Matrix normed(const Matrix& x, const Norm& n) const {
    return layerNorm(x, n.gamma, n.beta, config_.layer_norm_eps);
  }

  /// E[ids]·embedding_scale + PE(0 … n − 1), [n, d_model].
  Matrix embed(const std::vector<int>& ids, const Matrix& table) const {
    const auto n = static_cast<Eigen::Index>(ids.size());
    Matrix x(n, config_.d_model);
    const auto scale = static_cast<float>(config_.embedding_scale);
    for (Eigen::Index i = 0; i < n; ++i)
      x.row(i) = table.row(ids[static_cast<std::size_t>(i)]) * scale + positions_.row(i);
    return x;
  }

  /// MHA(x_q, x_kv) = [P_0 V_0 | … ] W_Oᵀ + b_O with the result appended to *results.
  Matrix attend(const Attention& a, const Matrix& xq, const Matrix& xkv, const AttentionSpec& spec,
                bool causal, Backend& backend, std::vector<AttentionResult>* results) const {
    return attendProjected(a, xq, a.k.apply(xkv), a.v.apply(xkv), spec, causal, backend, results);
  }

  /// MHA with the keys K = x_kv W_Kᵀ + b_K and values V [n_k, h·d_k] already projected.
  Matrix attendProjected(const Attention& a, const Matrix& xq, const Matrix& keys,
                         const Matrix& values, AttentionSpec spec, bool causal, Backend& backend,
                         std::vector<AttentionResult>* results) const {
    spec.mask = causal ? Mask::kCausal : Mask::kNone;
    AttentionInputs in;
    const int h = config_.heads, dk = config_.d_k;
    in.q = blocks::splitHeads(a.q.apply(xq), 0, h, dk);
    in.k = blocks::splitHeads(keys, 0, h, dk);
    in.v = blocks::splitHeads(values, 0, h, dk);
    AttentionResult r = backend.compute(in, spec);
    Matrix out = a.o.apply(blocks::mergeHeads(r.head_outputs));
    results->push_back(std::move(r));
    return out;
  }

  Matrix ffn(const Matrix& x, const Dense& fc1, const Dense& fc2) const {
    Matrix hidden = fc1.apply(x);
    blocks::activate(hidden, blocks::Activation::kRelu);
    return fc2.apply(hidden);
  }

  /// The encoder's memory M [n_s, d_model]; each layer's self-attention lands in *attention.
  Matrix encode(const std::vector<int>& ids, const AttentionSpec& spec, Backend& backend,
                std::vector<AttentionResult>* attention) const {
    Matrix x = embed(ids, src_embed_);
    for (const EncoderLayer& layer : encoder_) {
      const Matrix n1 = normed(x, layer.norm1);
      x += attend(layer.self, n1, n1, spec, false, backend, attention);
      x += ffn(normed(x, layer.norm2), layer.fc1, layer.fc2);
    }
    return normed(x, encoder_norm_);
  }

  /// Greedy decoding's state: per decoder layer the self-attention's keys and values of the
  /// positions so far and the cross-attention's of the memory [rows, h·d_k].
  struct DecodeCache {
    std::vector<Matrix> self_k, self_v, cross_k, cross_v;
  };

  DecodeCache startCache(const Matrix& memory) const {
    DecodeCache c;
    for (const DecoderLayer& layer : decoder_) {
      c.self_k.emplace_back(0, config_.heads * config_.d_k);
      c.self_v.emplace_back(0, config_.heads * config_.d_k);
      c.cross_k.push_back(layer.cross.k.apply(memory));
      c.cross_v.push_back(layer.cross.v.apply(memory));
    }
    return c;
  }

  /// The logits [V_t] after decoder input `id` at `position` (every earlier position in cache,
  /// which gains this one's keys and values).
  Vector decodeStep(int id, int position, const AttentionSpec& spec, Backend& backend,
                    DecodeCache& cache) const {
    Matrix y = tgt_embed_.row(id) * static_cast<float>(config_.embedding_scale) +
               positions_.row(position);
    std::vector<AttentionResult> scratch;
    for (std::size_t l = 0; l < decoder_.size(); ++l) {
      const DecoderLayer& layer = decoder_[l];
      const Matrix n1 = normed(y, layer.norm1);
      const auto append = [](Matrix& rows, const Matrix& row) {
        rows.conservativeResize(rows.rows() + 1, Eigen::NoChange);
        rows.row(rows.rows() - 1) = row.row(0);
      };
      append(cache.self_k[l], layer.self.k.apply(n1));
      append(cache.self_v[l], layer.self.v.apply(n1));
      // One query row sees every cached key: the causal mask has nothing to hide.
      y += attendProjected(layer.self, n1, cache.self_k[l], cache.self_v[l], spec, false, backend,
                           &scratch);
      y += attendProjected(layer.cross, normed(y, layer.norm2), cache.cross_k[l],
                           cache.cross_v[l], spec, false, backend, &scratch);
      y += ffn(normed(y, layer.norm3), layer.fc1, layer.fc2);
      scratch.clear();
    }
    return out_.apply(normed(y, decoder_norm_)).row(0).transpose();
  }

  /// The logits [T, V_t] of decoder inputs `ids` over memory.
  Matrix decode(const std::vector<int>& ids, const Matrix& memory, const AttentionSpec& spec,
                Backend& backend, std::vector<AttentionResult>* self,
                std::vector<AttentionResult>* cross) const {
    Matrix y = embed(ids, tgt_embed_);
    for (const DecoderLayer& layer : decoder_) {
      const Matrix n1 = normed(y, layer.norm1);
      y += attend(layer.self, n1, n1, spec, true, backend, self);
      y += attend(layer.cross, normed(y, layer.norm2), memory, spec, false, backend, cross);
      y += ffn(normed(y, layer.norm3), layer.fc1, layer.fc2);
    }
    return out_.apply(normed(y, decoder_norm_));
  }

  Matrix src_embed_, tgt_embed_, positions_;
  std::vector<EncoderLayer> encoder_;
  std::vector<DecoderLayer> decoder_;
  Norm encoder_norm_, decoder_norm_;
  Dense out_;
};

}  // namespace

std::unique_ptr<Translator> transformer(const TranslatorConfig& config,
                                        const TranslatorVocab& vocab, const SafeTensors& file) {
  return std::make_unique<Seq2SeqTransformer>(config, vocab, file);
}

}  // namespace attnlab::translators
