// dates-additive: Bahdanau, Cho & Bengio (2015), "Neural Machine Translation by Jointly Learning
// to Align and Translate", §3 and appendix A — a bidirectional GRU encoder, additive attention
// (eqs. 5–6) and a GRU decoder fed the previous character and the context, in torch's equations
// (nn.GRU, nn.GRUCell, nn.Linear). Computed in double from the float32 weights, rounded to float32
// at the end, so the engine's numbers are the exact ones of the stored weights and what differs
// from torch is torch's own float32 rounding (about 1e-6 relative over a 20-step recurrence).

#include <string>
#include <utility>
#include <vector>

#include "model/blocks.hpp"
#include "model/translator_models.hpp"

namespace attnlab::translators {
namespace {

using MatrixD = Eigen::MatrixXd;
using VectorD = Eigen::VectorXd;

/// One GRU's weights as torch stacks them: gates r, z, n in rows [0, n), [n, 2n), [2n, 3n).
struct Gru {
  MatrixD w_ih, w_hh;  // [3n, in], [3n, n]
  VectorD b_ih, b_hh;  // [3n]

  /// torch's GRU step: r = σ(W_ir x + b_ir + W_hr h + b_hr), z likewise,
  /// n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)), h' = (1 − z) ⊙ n + z ⊙ h.
  VectorD step(const VectorD& x, const VectorD& h) const {
    const Eigen::Index n = h.size();
    const VectorD gi = w_ih * x + b_ih;
    const VectorD gh = w_hh * h + b_hh;
    const auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
    const VectorD r = (gi.head(n) + gh.head(n)).unaryExpr(sigmoid);
    const VectorD z = (gi.segment(n, n) + gh.segment(n, n)).unaryExpr(sigmoid);
    const VectorD cand =
        (gi.tail(n) + r.cwiseProduct(gh.tail(n))).unaryExpr([](double v) { return std::tanh(v); });
    return (VectorD::Ones(n) - z).cwiseProduct(cand) + z.cwiseProduct(h);
  }
};

Gru readGru(const SafeTensors& f, const std::string& prefix, const std::string& suffix, int in,
            int n) {
  const blocks::WeightReader w(f, "");
  return Gru{w.matrix(prefix + "weight_ih" + suffix, 3 * n, in).cast<double>(),
             w.matrix(prefix + "weight_hh" + suffix, 3 * n, n).cast<double>(),
             w.vector(prefix + "bias_ih" + suffix, 3 * n).cast<double>(),
             w.vector(prefix + "bias_hh" + suffix, 3 * n).cast<double>()};
}

class AdditiveGru final : public Translator {
 public:
  AdditiveGru(const TranslatorConfig& c, const TranslatorVocab& vocab, const SafeTensors& f) {
    const blocks::WeightReader w(f, "");
    const int e = c.embedding_dim, n = c.encoder_hidden, nd = c.decoder_hidden,
              da = c.attention_dim;
    const auto vs = static_cast<Eigen::Index>(vocab.source.size());
    const auto vt = static_cast<Eigen::Index>(vocab.target.size());
    src_embed_ = w.matrix("src_embed.weight", vs, e).cast<double>();
    tgt_embed_ = w.matrix("tgt_embed.weight", vt, e).cast<double>();
    forward_ = readGru(f, "encoder.", "_l0", e, n);
    backward_ = readGru(f, "encoder.", "_l0_reverse", e, n);
    init_w_ = w.matrix("init.weight", nd, n).cast<double>();
    init_b_ = w.vector("init.bias", nd).cast<double>();
    w_a_ = w.matrix("attention.W_a.weight", da, nd).cast<double>();
    u_a_ = w.matrix("attention.U_a.weight", da, 2 * n).cast<double>();
    v_a_ = w.matrix("attention.v.weight", 1, da).row(0).transpose().cast<double>();
    decoder_ = readGru(f, "decoder.", "", e + 2 * n, nd);
    out_w_ = w.matrix("out.weight", vt, nd + 2 * n + e).cast<double>();
    out_b_ = w.vector("out.bias", vt).cast<double>();
  }

 protected:
  Translation run(const std::vector<int>& source_ids, const std::vector<int>& forced,
                  const TranslatorOptions& options, Backend&) const override {
    const auto ns = static_cast<int>(source_ids.size());
    const int n = config_.encoder_hidden;
    // Encoder: annotations h_j = [→h_j ; ←h_j], [n_s, 2n].
    MatrixD annotations(ns, 2 * n);
    VectorD h = VectorD::Zero(n);
    for (int j = 0; j < ns; ++j) {
      h = forward_.step(src_embed_.row(source_ids[j]).transpose(), h);
      annotations.row(j).head(n) = h.transpose();
    }
    h = VectorD::Zero(n);
    for (int j = ns - 1; j >= 0; --j) {
      h = backward_.step(src_embed_.row(source_ids[j]).transpose(), h);
      annotations.row(j).tail(n) = h.transpose();
    }
    // U_a h_j once for every step: [n_s, d_a].
    const MatrixD keys = annotations * u_a_.transpose();
    // s_0 = tanh(W_init ←h_1 + b_init).
    VectorD s = (init_w_ * annotations.row(0).tail(n).transpose() + init_b_)
                    .unaryExpr([](double v) { return std::tanh(v); });

    const double scale = options.temperature ? 1.0 / *options.temperature : 1.0;
    const int steps_max = forced.empty() ? config_.max_target_length
                                         : static_cast<int>(forced.size());
    FloatStore scores, weights;
    std::vector<VectorD> contexts;
    std::vector<VectorD> logit_rows;
    Translation t;
    int input = TranslatorVocab::kBos;
    for (int i = 0; i < steps_max; ++i) {
      // e_ij = v_aᵀ tanh(W_a s_{i−1} + U_a h_j) (eq. 6), α_ij = softmax_j (eq. 5).
      const VectorD query = w_a_ * s;
      std::vector<float> e(static_cast<std::size_t>(ns)), alpha(static_cast<std::size_t>(ns));
      for (int j = 0; j < ns; ++j) {
        const VectorD a = (query + keys.row(j).transpose()).unaryExpr([](double v) {
          return std::tanh(v);
        });
        e[static_cast<std::size_t>(j)] = static_cast<float>(v_a_.dot(a) * scale);
      }
      softmaxRow(e.data(), alpha.data(), ns, 0, ns);
      // c_i = Σ_j α_ij h_j.
      const VectorD context =
          (Eigen::Map<const Eigen::RowVectorXf>(alpha.data(), ns).cast<double>() * annotations)
              .transpose();
      const VectorD embedded = tgt_embed_.row(input).transpose();
      VectorD x(embedded.size() + context.size());
      x << embedded, context;
      s = decoder_.step(x, s);
      VectorD features(s.size() + context.size() + embedded.size());
      features << s, context, embedded;
      const VectorD logits = out_w_ * features + out_b_;
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
    for (int i = 0; i < steps; ++i) t.logits.row(i) = logit_rows[static_cast<std::size_t>(i)].transpose().cast<float>();
    AttentionResult& a = t.additive;
    a.mechanism = Mechanism::kAdditive;
    a.scale = scale;
    a.scores = Tensor3(1, steps, ns);
    a.scores.data = std::move(scores);
    a.weights = Tensor3(1, steps, ns);
    a.weights.data = std::move(weights);
    a.head_outputs = Tensor3(1, steps, 2 * n);
    for (int i = 0; i < steps; ++i) {
      const VectorD& c = contexts[static_cast<std::size_t>(i)];
      for (Eigen::Index k = 0; k < c.size(); ++k) a.head_outputs(0, i, static_cast<int>(k)) = static_cast<float>(c(k));
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
  MatrixD src_embed_, tgt_embed_;
  Gru forward_, backward_, decoder_;
  MatrixD init_w_, w_a_, u_a_, out_w_;
  VectorD init_b_, v_a_, out_b_;
};

}  // namespace

std::unique_ptr<Translator> additiveGru(const TranslatorConfig& config,
                                        const TranslatorVocab& vocab, const SafeTensors& file) {
  return std::make_unique<AdditiveGru>(config, vocab, file);
}

}  // namespace attnlab::translators
