// dates-additive: Bahdanau, Cho & Bengio (2015), "Neural Machine Translation by Jointly Learning
// to Align and Translate", §3 and appendix A — a bidirectional GRU encoder, additive attention
// (eqs. 5–6) and a GRU decoder fed the previous character and the context. Float32 throughout,
// in the order torch computes it (nn.GRU, nn.GRUCell, nn.Linear).

#include <string>
#include <utility>
#include <vector>

#include "model/blocks.hpp"
#include "model/translator_models.hpp"

namespace attnlab::translators {
namespace {

/// One GRU's weights as torch stacks them: gates r, z, n in rows [0, n), [n, 2n), [2n, 3n).
struct Gru {
  Matrix w_ih, w_hh;  // [3n, in], [3n, n]
  Vector b_ih, b_hh;  // [3n]

  /// torch's GRU step: r = σ(W_ir x + b_ir + W_hr h + b_hr), z likewise,
  /// n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)), h' = (1 − z) ⊙ n + z ⊙ h.
  Vector step(const Vector& x, const Vector& h) const {
    const Eigen::Index n = h.size();
    const Vector gi = w_ih * x + b_ih;
    const Vector gh = w_hh * h + b_hh;
    const auto sigmoid = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
    const Vector r = (gi.head(n) + gh.head(n)).unaryExpr(sigmoid);
    const Vector z = (gi.segment(n, n) + gh.segment(n, n)).unaryExpr(sigmoid);
    const Vector cand =
        (gi.tail(n) + r.cwiseProduct(gh.tail(n))).unaryExpr([](float v) { return std::tanh(v); });
    return (Vector::Ones(n) - z).cwiseProduct(cand) + z.cwiseProduct(h);
  }
};

Gru readGru(const SafeTensors& f, const std::string& prefix, const std::string& suffix, int in,
            int n) {
  const blocks::WeightReader w(f, "");
  return Gru{w.matrix(prefix + "weight_ih" + suffix, 3 * n, in),
             w.matrix(prefix + "weight_hh" + suffix, 3 * n, n),
             w.vector(prefix + "bias_ih" + suffix, 3 * n),
             w.vector(prefix + "bias_hh" + suffix, 3 * n)};
}

class AdditiveGru final : public Translator {
 public:
  AdditiveGru(const TranslatorConfig& c, const TranslatorVocab& vocab, const SafeTensors& f) {
    const blocks::WeightReader w(f, "");
    const int e = c.embedding_dim, n = c.encoder_hidden, nd = c.decoder_hidden,
              da = c.attention_dim;
    const auto vs = static_cast<Eigen::Index>(vocab.source.size());
    const auto vt = static_cast<Eigen::Index>(vocab.target.size());
    src_embed_ = w.matrix("src_embed.weight", vs, e);
    tgt_embed_ = w.matrix("tgt_embed.weight", vt, e);
    forward_ = readGru(f, "encoder.", "_l0", e, n);
    backward_ = readGru(f, "encoder.", "_l0_reverse", e, n);
    init_w_ = w.matrix("init.weight", nd, n);
    init_b_ = w.vector("init.bias", nd);
    w_a_ = w.matrix("attention.W_a.weight", da, nd);
    u_a_ = w.matrix("attention.U_a.weight", da, 2 * n);
    v_a_ = w.matrix("attention.v.weight", 1, da).row(0).transpose();
    decoder_ = readGru(f, "decoder.", "", e + 2 * n, nd);
    out_w_ = w.matrix("out.weight", vt, nd + 2 * n + e);
    out_b_ = w.vector("out.bias", vt);
  }

 protected:
  Translation run(const std::vector<int>& source_ids, const std::vector<int>& forced,
                  const TranslatorOptions& options, Backend&) const override {
    const auto ns = static_cast<int>(source_ids.size());
    const int n = config_.encoder_hidden;
    // Encoder: annotations h_j = [→h_j ; ←h_j], [n_s, 2n].
    Matrix annotations(ns, 2 * n);
    Vector h = Vector::Zero(n);
    for (int j = 0; j < ns; ++j) {
      h = forward_.step(src_embed_.row(source_ids[j]).transpose(), h);
      annotations.row(j).head(n) = h.transpose();
    }
    h = Vector::Zero(n);
    for (int j = ns - 1; j >= 0; --j) {
      h = backward_.step(src_embed_.row(source_ids[j]).transpose(), h);
      annotations.row(j).tail(n) = h.transpose();
    }
    // U_a h_j once for every step: [n_s, d_a].
    const Matrix keys = annotations * u_a_.transpose();
    // s_0 = tanh(W_init ←h_1 + b_init).
    Vector s = (init_w_ * annotations.row(0).tail(n).transpose() + init_b_)
                   .unaryExpr([](float v) { return std::tanh(v); });

    const double scale = options.temperature ? 1.0 / *options.temperature : 1.0;
    const int steps_max = forced.empty() ? config_.max_target_length
                                         : static_cast<int>(forced.size());
    std::vector<float> scores, weights;
    std::vector<Vector> contexts;
    std::vector<Vector> logit_rows;
    Translation t;
    int input = TranslatorVocab::kBos;
    for (int i = 0; i < steps_max; ++i) {
      // e_ij = v_aᵀ tanh(W_a s_{i−1} + U_a h_j) (eq. 6), α_ij = softmax_j (eq. 5).
      const Vector query = w_a_ * s;
      std::vector<float> e(static_cast<std::size_t>(ns)), alpha(static_cast<std::size_t>(ns));
      for (int j = 0; j < ns; ++j) {
        const Vector a = (query + keys.row(j).transpose()).unaryExpr([](float v) {
          return std::tanh(v);
        });
        e[static_cast<std::size_t>(j)] = static_cast<float>(v_a_.dot(a) * scale);
      }
      softmaxRow(e.data(), alpha.data(), ns, 0, ns);
      // c_i = Σ_j α_ij h_j.
      const Vector context =
          (Eigen::Map<const Eigen::RowVectorXf>(alpha.data(), ns) * annotations).transpose();
      const Vector embedded = tgt_embed_.row(input).transpose();
      Vector x(embedded.size() + context.size());
      x << embedded, context;
      s = decoder_.step(x, s);
      Vector features(s.size() + context.size() + embedded.size());
      features << s, context, embedded;
      const Vector logits = out_w_ * features + out_b_;
      scores.insert(scores.end(), e.begin(), e.end());
      weights.insert(weights.end(), alpha.begin(), alpha.end());
      contexts.push_back(context);
      logit_rows.push_back(logits);
      t.decoder_inputs.push_back(input);
      int output = 0;
      if (forced.empty()) {
        Eigen::Index best = 0;
        logits.maxCoeff(&best);  // the first of equal maxima, as torch.argmax
        output = static_cast<int>(best);
      } else {
        output = forced[static_cast<std::size_t>(i)];
      }
      t.target_ids.push_back(output);
      if (forced.empty() && output == TranslatorVocab::kEos) break;
      input = output;
    }

    const auto steps = static_cast<int>(t.target_ids.size());
    t.logits.resize(steps, out_b_.size());
    for (int i = 0; i < steps; ++i) t.logits.row(i) = logit_rows[static_cast<std::size_t>(i)].transpose();
    AttentionResult& a = t.additive;
    a.mechanism = Mechanism::kAdditive;
    a.scale = scale;
    a.scores = Tensor3(1, steps, ns);
    a.scores.data = std::move(scores);
    a.weights = Tensor3(1, steps, ns);
    a.weights.data = std::move(weights);
    a.head_outputs = Tensor3(1, steps, 2 * n);
    for (int i = 0; i < steps; ++i) {
      const Vector& c = contexts[static_cast<std::size_t>(i)];
      std::copy(c.data(), c.data() + c.size(), a.head_outputs.row(0, i));
    }
    HeadStats st;
    for (int i = 0; i < steps; ++i) {
      const RowStats r = rowStats(a.weights.row(0, i), ns, ns);
      st.max_weight.push_back(static_cast<float>(r.max_weight));
      st.entropy.push_back(static_cast<float>(r.entropy));
      st.normalized_entropy.push_back(static_cast<float>(r.normalized_entropy));
      st.effective_keys.push_back(static_cast<float>(r.effective_keys));
      st.jacobian_norm.push_back(static_cast<float>(r.jacobian_norm));
    }
    a.stats.push_back(std::move(st));
    a.backend = "cpu";
    return t;
  }

 private:
  Matrix src_embed_, tgt_embed_;
  Gru forward_, backward_, decoder_;
  Matrix init_w_, w_a_, u_a_, out_w_;
  Vector init_b_, v_a_, out_b_;
};

}  // namespace

std::unique_ptr<Translator> additiveGru(const TranslatorConfig& config,
                                        const TranslatorVocab& vocab, const SafeTensors& file) {
  return std::make_unique<AdditiveGru>(config, vocab, file);
}

int argmaxRow(const Matrix& logits, Eigen::Index row) {
  Eigen::Index best = 0;
  logits.row(row).maxCoeff(&best);
  return static_cast<int>(best);
}

}  // namespace attnlab::translators
