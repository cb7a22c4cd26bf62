// The CPU reference attention (Eigen). Every other backend is checked against this file.

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "cpu/attention_cpu.hpp"

namespace attnlab {

bool softmaxRow(const float* scores, float* p, int n, int lo, int hi) {
  lo = std::max(lo, 0);
  hi = std::min(hi, n);
  if (lo >= hi) {
    std::fill(p, p + n, 0.0f);
    return false;
  }
  std::fill(p, p + lo, 0.0f);  // masked keys; the visible ones are all written below
  std::fill(p + hi, p + n, 0.0f);
  const float m = Eigen::Map<const Eigen::ArrayXf>(scores + lo, hi - lo).maxCoeff();
  if (std::isinf(m) && m > 0) {
    // Overflowed scores: the +inf keys share the weight equally (the limit of the softmax).
    int count = 0;
    for (int j = lo; j < hi; ++j) count += std::isinf(scores[j]) && scores[j] > 0;
    for (int j = lo; j < hi; ++j) p[j] = (std::isinf(scores[j]) && scores[j] > 0) ? 1.0f / count : 0;
    return true;
  }
  if (std::isinf(m)) {
    // Every visible score is −inf: treat the row as uniform over the visible keys.
    for (int j = lo; j < hi; ++j) p[j] = 1.0f / static_cast<float>(hi - lo);
    return true;
  }
  // x − m ≤ 0, so e^{x − m} ≤ 1 and underflows to 0 for very negative x; Eigen's vectorised exp
  // (relative error ~1 ulp).
  const Eigen::Map<const Eigen::ArrayXf> x(scores + lo, hi - lo);
  Eigen::Map<Eigen::ArrayXf> w(p + lo, hi - lo);
  w = (x - m).exp();
  double sum = 0;  // ≥ 1 (the maximum contributes 1)
#pragma omp simd reduction(+ : sum)
  for (int j = lo; j < hi; ++j) sum += p[j];
  w *= static_cast<float>(1.0 / sum);
  return true;
}

RowStats rowStats(const float* p, int n, int n_visible) {
  RowStats s;
  // Sums in double over the row, vectorised (omp simd reductions); p ln p formed in float with
  // Eigen's vectorised log (relative error ~1e-7 per term); p ln max(p, FLT_MIN) is exactly 0 for
  // a masked weight p = 0.
  double total = 0, max_w = 0, sum_sq = 0, sum_cube = 0, entropy = 0;
#pragma omp simd reduction(+ : total, sum_sq, sum_cube) reduction(max : max_w)
  for (int j = 0; j < n; ++j) {
    const double pj = p[j];
    total += pj;
    max_w = std::max(max_w, pj);
    sum_sq += pj * pj;
    sum_cube += pj * pj * pj;
  }
  constexpr int kChunk = 256;  // on the stack: no allocation per row
  for (int j0 = 0; j0 < n; j0 += kChunk) {
    const int len = std::min(kChunk, n - j0);
    const Eigen::Map<const Eigen::ArrayXf> pf(p + j0, len);
    const Eigen::Array<float, Eigen::Dynamic, 1, 0, kChunk, 1> plogp =
        pf * pf.max(std::numeric_limits<float>::min()).log();
    const float* t = plogp.data();
#pragma omp simd reduction(+ : entropy)
    for (int j = 0; j < len; ++j) entropy -= t[j];
  }
  if (total == 0) return s;  // fully masked row: all statistics 0
  s.max_weight = max_w;
  s.entropy = std::max(0.0, entropy);
  s.normalized_entropy =
      n_visible > 1 ? std::clamp(s.entropy / std::log(static_cast<double>(n_visible)), 0.0, 1.0)
                    : 0.0;
  s.effective_keys = std::exp(s.entropy);
  // ‖diag(p) − p pᵀ‖_F² = Σ p_j² − 2 Σ p_j³ + (Σ p_j²)².
  s.jacobian_norm = std::sqrt(std::max(0.0, sum_sq - 2 * sum_cube + sum_sq * sum_sq));
  return s;
}

void checkAttentionInputs(const AttentionInputs& in, const AttentionSpec& spec) {
  std::ostringstream msg;
  const int h = in.q.h;
  if (h < 1 || in.k.h != h || in.v.h != h) {
    msg << "q, k and v must have the same number of heads ≥ 1 (got " << in.q.h << ", " << in.k.h
        << ", " << in.v.h << ")";
  } else if (in.q.cols != in.k.cols) {
    msg << "queries and keys must have the same width d_k (got " << in.q.cols << " and "
        << in.k.cols << ")";
  } else if (in.k.rows != in.v.rows) {
    msg << "keys and values must have the same count n_k (got " << in.k.rows << " and "
        << in.v.rows << ")";
  } else if (in.q.rows < 1 || in.k.rows < 1) {
    msg << "need at least one query and one key (got n_q = " << in.q.rows
        << ", n_k = " << in.k.rows << ")";
  } else if (spec.mask == Mask::kCausal && in.q.rows != in.k.rows) {
    msg << "the causal mask applies to self-attention only (n_q = " << in.q.rows
        << ", n_k = " << in.k.rows << ")";
  } else if (spec.mechanism == Mechanism::kAdditive &&
             (in.w_a.h != h || in.u_a.h != h || in.v_a.h != h || in.w_a.rows != in.q.cols ||
              in.u_a.rows != in.k.cols || in.w_a.cols != in.u_a.cols ||
              in.v_a.cols != in.w_a.cols || in.v_a.rows != 1)) {
    msg << "additive attention needs W_a, U_a [h, d_k, d_a] and v [h, 1, d_a]";
  }
  if (!msg.str().empty()) throw Error(ErrorCode::kInvalidArgument, msg.str());
}

void fillRowStats(AttentionResult& r) {
  const int h = r.heads(), n_q = r.nQ(), n_k = r.nK();
  r.stats.assign(h, HeadStats{});
#pragma omp parallel for schedule(dynamic, 1) if (h > 1 && double(n_q) * n_k * h >= 65536.0)
  for (int head = 0; head < h; ++head) {
    HeadStats& st = r.stats[head];
    st.max_weight.resize(n_q);
    st.entropy.resize(n_q);
    st.normalized_entropy.resize(n_q);
    st.effective_keys.resize(n_q);
    st.jacobian_norm.resize(n_q);
    for (int i = 0; i < n_q; ++i) {
      const auto [lo, hi] = visibleKeys(r.mask, i, n_k);
      const RowStats rs = rowStats(r.weights.row(head, i), n_k, hi - lo);
      st.max_weight[i] = static_cast<float>(rs.max_weight);
      st.entropy[i] = static_cast<float>(rs.entropy);
      st.normalized_entropy[i] = static_cast<float>(rs.normalized_entropy);
      st.effective_keys[i] = static_cast<float>(rs.effective_keys);
      st.jacobian_norm[i] = static_cast<float>(rs.jacobian_norm);
    }
  }
}

namespace {

// Additive scores for one head: e_ij = Σ_a v_a tanh(A_ia + B_ja), A = Q W_a, B = K U_a.
// In double: A and B, so that huge finite inputs cannot overflow to inf − inf = NaN, and tanh as
// 1 − 2 / (e^{2x} + 1) on Eigen's vectorised exp across a whole row of keys (absolute error
// ~1e-15, about 3× faster than std::tanh; e^{2x} = ∞ gives 1, e^{2x} = 0 gives −1). Query rows
// run in parallel (OpenMP).
void additiveScores(const Eigen::Map<const Matrix>& q, const Eigen::Map<const Matrix>& k,
                    const Eigen::Map<const Matrix>& w_a, const Eigen::Map<const Matrix>& u_a,
                    const Eigen::Map<const Matrix>& v_a, double scale, Eigen::Map<Matrix> s) {
  const Eigen::MatrixXd a = q.cast<double>() * w_a.cast<double>();                // [n_q, d_a]
  const Eigen::MatrixXd bt = (k.cast<double>() * u_a.cast<double>()).transpose();  // [d_a, n_k]
  const Eigen::Index n_q = s.rows(), n_k = s.cols(), d_a = a.cols();
#pragma omp parallel for schedule(static)
  for (Eigen::Index i = 0; i < n_q; ++i) {
    Eigen::ArrayXd e = Eigen::ArrayXd::Zero(n_k);
    for (Eigen::Index c = 0; c < d_a; ++c) {
      const Eigen::ArrayXd x = (2.0 * (bt.row(c).transpose().array() + a(i, c))).exp();
      e += static_cast<double>(v_a(0, c)) * (1.0 - 2.0 / (x + 1.0));
    }
    s.row(i) = (scale * e).cast<float>().matrix().transpose();
  }
}

// Dot-product scores S = (scale·Q) Kᵀ for one head on Eigen's float GEMM. Finite inputs can still
// overflow float32 (1e30 · 1e30); such rows are recomputed in double and clamped to ±FLT_MAX, so
// the scores stay finite and ordered and the softmax never sees inf − inf.
void dotScores(const Eigen::Map<const Matrix>& q, const Eigen::Map<const Matrix>& k, double scale,
               Eigen::Map<Matrix> s) {
  // Scale Q before the product: Eigen keeps (αQ)·Kᵀ on its fast GEMM path, whereas (Q·Kᵀ)·α
  // falls back to a slow lazy product (10× at n = 4096).
  s.noalias() = (static_cast<float>(scale) * q) * k.transpose();
  // All finite iff every x − x is 0 (inf − inf and NaN give NaN): one vectorised sum.
  if ((s.array() - s.array()).sum() == 0.0f) return;
  constexpr double kMax = std::numeric_limits<float>::max();
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    if (s.row(i).allFinite()) continue;
    const Eigen::RowVectorXd qi = scale * q.row(i).cast<double>();
    for (Eigen::Index j = 0; j < s.cols(); ++j) {
      const double d = qi.dot(k.row(j).cast<double>());
      s(i, j) = static_cast<float>(std::clamp(d, -kMax, kMax));
    }
  }
}

}  // namespace

AttentionResult computeAttentionCpu(const AttentionInputs& in, const AttentionSpec& spec) {
  checkAttentionInputs(in, spec);
  const int h = in.q.h, n_q = in.q.rows, n_k = in.k.rows, d_v = in.v.cols;
  AttentionResult r;
  r.mechanism = spec.mechanism;
  r.mask = spec.mask;
  r.scale = spec.scoreScale(in.q.cols);
  r.scores = Tensor3(h, n_q, n_k);
  r.weights = Tensor3(h, n_q, n_k);
  r.head_outputs = Tensor3(h, n_q, d_v);
  r.backend = "cpu";

  // Heads in parallel, each on one thread (Eigen does not nest inside the parallel region).
#pragma omp parallel for schedule(dynamic, 1) if (h > 1 && double(n_q) * n_k * h >= 65536.0)
  for (int head = 0; head < h; ++head) {
    auto s = r.scores.head(head);
    if (spec.mechanism == Mechanism::kAdditive) {
      additiveScores(in.q.head(head), in.k.head(head), in.w_a.head(head), in.u_a.head(head),
                     in.v_a.head(head), r.scale, s);
    } else {
      dotScores(in.q.head(head), in.k.head(head), r.scale, s);
    }
    auto p = r.weights.head(head);
    for (int i = 0; i < n_q; ++i) {
      const auto [lo, hi] = visibleKeys(spec.mask, i, n_k);
      softmaxRow(r.scores.row(head, i), r.weights.row(head, i), n_k, lo, hi);
    }
    // A fully masked row has zero weights, hence a zero output row.
    r.head_outputs.head(head).noalias() = p * in.v.head(head);
  }
  fillRowStats(r);
  return r;
}

}  // namespace attnlab
