// Linear attention of the CPU reference (Katharopoulos et al. 2020, "Transformers are RNNs:
// Fast Autoregressive Transformers with Linear Attention", §3.2, eqs. 4–6 and §3.3.1 eq. 10–12).

#include <algorithm>
#include <cmath>

#include "cpu/attention_cpu.hpp"

namespace attnlab {
namespace {

// φ(x) = elu(x) + 1 elementwise (x + 1 for x > 0, e^x otherwise; always > 0), in double.
Eigen::MatrixXd featureMap(const Eigen::Map<const Matrix>& x) {
  return x.cast<double>().unaryExpr([](double t) { return t > 0 ? t + 1.0 : std::exp(t); });
}

// The output the linear way, never forming P: O(n·d_k·d_v).
//   S = Σ_j φ(k_j) v_jᵀ [d_k, d_v],  z = Σ_j φ(k_j) [d_k],  o_i = φ(q_i)ᵀ S / φ(q_i)ᵀ z
// (eq. 5); causal: S_i and z_i are prefix sums over j ≤ i (eqs. 10–12). Keys beyond the padding
// (valid_keys) never enter. Rows with no visible key get a zero output.
void linearOutput(const Eigen::MatrixXd& fq, const Eigen::MatrixXd& fk,
                  const Eigen::Map<const Matrix>& v, const MaskPattern& pattern,
                  Eigen::Map<Matrix> output) {
  const Eigen::Index n_q = fq.rows(), n_k = fk.rows(), d_k = fq.cols(), d_v = v.cols();
  const Eigen::MatrixXd vd = v.cast<double>();
  Eigen::MatrixXd s = Eigen::MatrixXd::Zero(d_k, d_v);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(d_k);
  const int last = pattern.valid_keys >= 0 ? std::min<int>(pattern.valid_keys, static_cast<int>(n_k))
                                           : static_cast<int>(n_k);
  int added = 0;  // keys [0, added) are in s and z
  const auto addKeysUpTo = [&](int end) {
    for (; added < end; ++added) {
      s.noalias() += fk.row(added).transpose() * vd.row(added);
      z += fk.row(added).transpose();
    }
  };
  if (!pattern.causal) addKeysUpTo(last);
  for (Eigen::Index i = 0; i < n_q; ++i) {
    if (pattern.causal) addKeysUpTo(std::min(static_cast<int>(i) + 1, last));
    if (added == 0) {
      output.row(i).setZero();
      continue;
    }
    const double denominator = fq.row(i).dot(z);
    output.row(i) = (fq.row(i) * s / denominator).cast<float>();
  }
}

}  // namespace

Tensor3 linearAttentionOutputs(const AttentionInputs& in, const AttentionSpec& spec) {
  checkAttentionInputs(in, spec);
  const int h = in.q.h;
  Tensor3 out(h, in.q.rows, in.v.cols);
  const MaskPattern pattern = spec.maskPattern();
  for (int head = 0; head < h; ++head) {
    const int kv = kvHeadOf(head, h, in.k.h);
    linearOutput(featureMap(in.q.head(head)), featureMap(in.k.head(kv)), in.v.head(kv), pattern,
                 out.head(head));
  }
  return out;
}

void linearAttentionHead(const Eigen::Map<const Matrix>& q, const Eigen::Map<const Matrix>& k,
                         const Eigen::Map<const Matrix>& v, const MaskPattern& pattern,
                         Eigen::Map<Matrix> scores, Eigen::Map<Matrix> weights,
                         Eigen::Map<Matrix> output) {
  const Eigen::Index n_q = q.rows(), n_k = k.rows();
  const Eigen::MatrixXd fq = featureMap(q);  // [n_q, d_k]
  const Eigen::MatrixXd fk = featureMap(k);  // [n_k, d_k]
  // The picture's matrices: similarities φ(q_i)·φ(k_j) (the "scores") and the implied weights
  // P_ij = sim_ij / Σ_{visible l} sim_il. O(n²·d_k), for the heatmap only.
  const Eigen::MatrixXd sim = fq * fk.transpose();
  scores = sim.cast<float>();
  weights.setZero();
  for (Eigen::Index i = 0; i < n_q; ++i) {
    const auto [lo, hi] = pattern.span(static_cast<int>(i), static_cast<int>(n_k));
    if (lo >= hi) continue;
    const double z = sim.row(i).segment(lo, hi - lo).sum();
    weights.row(i).segment(lo, hi - lo) = (sim.row(i).segment(lo, hi - lo) / z).cast<float>();
  }
  linearOutput(fq, fk, v, pattern, output);
}

}  // namespace attnlab
