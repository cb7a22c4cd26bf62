// The CPU reference attention (Eigen). Every other backend is checked against this file.

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "attnlab/numerics.hpp"
#include "attnlab/positions.hpp"
#include "cpu/attention_cpu.hpp"

namespace attnlab {

ScoreScale splitScoreScale(double scale, double bound) {
  constexpr double kRange = 0x1p126;  // |x'| stays below this (FLT_MAX ≈ 2^128)
  if (!std::isfinite(bound)) bound = 1;  // non-finite inputs: nothing to protect
  const double limit = kRange / std::max(bound, 1.0);
  ScoreScale out;
  out.scale = scale;
  if (scale <= limit) {
    out.query_factor = static_cast<float>(scale);
    out.score_factor = 1.0f;
    return out;
  }
  const double a = std::exp2(std::floor(std::log2(limit)));  // a power of two: a·q is exact
  out.query_factor = static_cast<float>(a);
  out.score_factor =
      static_cast<float>(std::min(scale / a, double(std::numeric_limits<float>::max())));
  return out;
}

double dotProductBound(const Tensor3& q, const Tensor3& k) {
  double bound = 0;
  for (int head = 0; head < q.h; ++head) {
    const double q_max = q.head(head).cast<double>().rowwise().norm().maxCoeff();
    const double k_max =
        k.head(kvHeadOf(head, q.h, k.h)).cast<double>().rowwise().norm().maxCoeff();
    bound = std::max(bound, q_max * std::max(1.0, k_max));
  }
  return bound;
}

double additiveEnergyBound(const Tensor3& v_a) {
  double bound = 0;
  for (int head = 0; head < v_a.h; ++head)
    bound = std::max(bound, double(v_a.head(head).cast<double>().cwiseAbs().sum()));
  return bound;
}

bool softmaxRow(const float* scores, float* p, int n, int lo, int hi, float score_factor) {
  std::fill(p, p + n, 0.0f);
  lo = std::max(lo, 0);
  hi = std::min(hi, n);
  if (lo >= hi) return false;
  const Eigen::Map<const Eigen::ArrayXf> x(scores + lo, hi - lo);
  Eigen::Map<Eigen::ArrayXf> w(p + lo, hi - lo);
  const float m = x.maxCoeff();
  if (std::isinf(m) && m > 0) {
    // Infinite scores (only from a caller; the engine's are finite): the +inf keys share the
    // weight equally, the limit of the softmax.
    const float count = static_cast<float>((x == m).count());
    w = (x == m).select(Eigen::ArrayXf::Constant(hi - lo, 1.0f / count), 0.0f);
    return true;
  }
  if (std::isinf(m)) {
    // Every visible score is −inf: treat the row as uniform over the visible keys.
    w.setConstant(1.0f / static_cast<float>(hi - lo));
    return true;
  }
  // x − m ≤ 0 and b is finite, so the argument is never NaN; e^{−huge} underflows to 0 and the
  // maximum contributes exactly 1. Eigen's vectorised exp (relative error ~1 ulp), into an
  // aligned buffer of our own: which elements Eigen computes with packets (and so the rounding)
  // depends on the destination's alignment, and p's varies — the same row must give the same bits.
  thread_local Eigen::ArrayXf e;
  e.resize(hi - lo);
  e = ((x - m) * score_factor).exp();
  // ≥ 1; summed from the same aligned buffer, so in the same order, for the same reason.
  const double sum = e.cast<double>().sum();
  w = e * static_cast<float>(1.0 / sum);
  return true;
}

bool softmaxRowMasked(const float* scores, float* p, int n, const MaskPattern& pattern, int i,
                      float score_factor) {
  const auto [lo, hi] = pattern.span(i, n);
  if (pattern.contiguous()) return softmaxRow(scores, p, n, lo, hi, score_factor);
  // Gaps (global tokens, strides): the visible scores gathered into one contiguous row, softmaxed
  // with the same numerics, and scattered back.
  thread_local std::vector<float> x, w;
  thread_local std::vector<int> index;
  x.clear();
  index.clear();
  for (int j = lo; j < hi; ++j) {
    if (!pattern.visible(i, j)) continue;
    x.push_back(scores[j]);
    index.push_back(j);
  }
  std::fill(p, p + n, 0.0f);
  const int count = static_cast<int>(x.size());
  w.resize(x.size());
  if (!softmaxRow(x.data(), w.data(), count, 0, count, score_factor)) return false;
  for (int t = 0; t < count; ++t) p[index[t]] = w[t];
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
  const int g = spec.kv_heads > 0 ? spec.kv_heads : h;
  if (h < 1 || g < 1 || h % g != 0) {
    msg << "the " << g << " K/V heads must divide the " << h << " query heads";
  } else if (in.k.h != g || in.v.h != g) {
    msg << "k and v must have " << g << (g == h ? " heads, as q has" : " K/V heads") << " (got "
        << in.k.h << " and " << in.v.h << ")";
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
  const MaskPattern pattern = r.pattern();
#pragma omp parallel for schedule(dynamic, 1) if (h > 1 && double(n_q) * n_k * h >= 65536.0)
  for (int head = 0; head < h; ++head) {
    HeadStats& st = r.stats[head];
    st.max_weight.resize(n_q);
    st.entropy.resize(n_q);
    st.normalized_entropy.resize(n_q);
    st.effective_keys.resize(n_q);
    st.jacobian_norm.resize(n_q);
    for (int i = 0; i < n_q; ++i) {
      const RowStats rs =
          rowStats(r.weights.row(head, i), n_k, pattern.visibleCount(i, n_k));
      st.max_weight[i] = static_cast<float>(rs.max_weight);
      st.entropy[i] = static_cast<float>(rs.entropy);
      st.normalized_entropy[i] = static_cast<float>(rs.normalized_entropy);
      st.effective_keys[i] = static_cast<float>(rs.effective_keys);
      st.jacobian_norm[i] = static_cast<float>(rs.jacobian_norm);
    }
  }
}

namespace {

// Raw additive scores for one head: x'_ij = factor · e_ij, e_ij = Σ_c v_c tanh(A_ic + B_jc),
// A = Q W_a, B = K U_a (factor = a of ScoreScale; |e| ≤ Σ|v_c|).
// In double: A and B, so that huge finite inputs cannot overflow to inf − inf = NaN, and tanh as
// 1 − 2 / (e^{2x} + 1) on Eigen's vectorised exp across a whole row of keys (absolute error
// ~1e-15, about 3× faster than std::tanh; e^{2x} = ∞ gives 1, e^{2x} = 0 gives −1). Query rows
// run in parallel (OpenMP).
void additiveScores(const Eigen::Map<const Matrix>& q, const Eigen::Map<const Matrix>& k,
                    const Eigen::Map<const Matrix>& w_a, const Eigen::Map<const Matrix>& u_a,
                    const Eigen::Map<const Matrix>& v_a, float factor, Eigen::Map<Matrix> s) {
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
    s.row(i) = (static_cast<double>(factor) * e).cast<float>().matrix().transpose();
  }
}

// Raw dot-product scores x' = (a·Q) Kᵀ for one head on Eigen's float GEMM (see ScoreScale: a is
// chosen so that no product or partial sum can overflow).
void dotScores(const Eigen::Map<const Matrix>& q, const Eigen::Map<const Matrix>& k, float a,
               Eigen::Map<Matrix> s) {
  // Q is scaled into a matrix of its own first: given (αQ)·Kᵀ, Eigen's GEMM pulls α out and
  // forms Q·Kᵀ unscaled, which is what overflows for huge inputs (NaN after the softmax).
  const Matrix q_scaled = a * q;
  s.noalias() = q_scaled * k.transpose();
}

}  // namespace

void capScores(float* s, std::size_t n, float score_factor, double cap) {
  // tanh in double: an infinite x' (only from a caller) gives ±c rather than NaN.
  for (std::size_t t = 0; t < n; ++t)
    s[t] = static_cast<float>(cap * std::tanh(static_cast<double>(score_factor) * s[t] / cap));
}

AttentionResult computeAttentionCpu(const AttentionInputs& in, const AttentionSpec& spec) {
  checkAttentionInputs(in, spec);
  const int h = in.q.h, n_q = in.q.rows, n_k = in.k.rows, d_v = in.v.cols;
  AttentionResult r;
  r.mechanism = spec.mechanism;
  r.mask = spec.mask;
  r.mask_pattern = spec.maskPattern();
  r.scale = spec.scoreScale(in.q.cols);
  r.scores = Tensor3(h, n_q, n_k);
  r.weights = Tensor3(h, n_q, n_k);
  r.head_outputs = Tensor3(h, n_q, d_v);
  r.backend = "cpu";
  r.precision = spec.precision;
  r.softmax = spec.softmax;
  r.dropout = spec.dropout;
  const bool reduced = spec.precision != Precision::kFp32 || spec.softmax != SoftmaxKind::kStable;

  const bool additive = spec.mechanism == Mechanism::kAdditive;
  if (spec.mechanism == Mechanism::kLinear) {
    // Linear attention: no softmax, no scale; its prefix sums need contiguous key ranges.
    if (!r.mask_pattern.contiguous() || spec.window > 0 || spec.positions == Positions::kAlibi ||
        spec.temperature || reduced || spec.score_cap > 0) {
      throw Error(ErrorCode::kInvalidArgument,
                  "linear attention takes the causal mask and key padding only (no window, "
                  "global tokens, stride, ALiBi, temperature, soft-capping or reduced precision)");
    }
    r.scale = 1.0;
    const MaskPattern pattern = r.pattern();
#pragma omp parallel for schedule(dynamic, 1) if (h > 1 && double(n_q) * n_k * h >= 65536.0)
    for (int head = 0; head < h; ++head) {
      const int kv = kvHeadOf(head, h, in.k.h);
      linearAttentionHead(in.q.head(head), in.k.head(kv), in.v.head(kv), pattern,
                          r.scores.head(head), r.weights.head(head), r.head_outputs.head(head));
    }
    if (spec.dropout > 0.0) {
      applyDropout(r.weights.data.data(), h, n_q, n_k, r.mask_pattern, spec.dropout,
                   spec.dropout_seed, spec.precision, r.dropped);
      for (int head = 0; head < h; ++head)
        r.head_outputs.head(head).noalias() =
            r.weights.head(head) * in.v.head(kvHeadOf(head, h, in.k.h));
    }
    fillRowStats(r);
    return r;
  }
  const ScoreScale split = splitScoreScale(
      r.scale, additive ? additiveEnergyBound(in.v_a) : dotProductBound(in.q, in.k));
  const int g = in.k.h;
  const bool causal = spec.mask == Mask::kCausal;
  const bool capped = spec.score_cap > 0;
  const std::vector<float> slopes =
      spec.positions == Positions::kAlibi ? alibiSlopes(h) : std::vector<float>();
  // Heads in parallel, each on one thread (Eigen does not nest inside the parallel region).
#pragma omp parallel for schedule(dynamic, 1) if (h > 1 && double(n_q) * n_k * h >= 65536.0)
  for (int head = 0; head < h; ++head) {
    const int kv = kvHeadOf(head, h, g);
    auto s = r.scores.head(head);
    if (additive) {
      additiveScores(in.q.head(head), in.k.head(kv), in.w_a.head(head), in.u_a.head(head),
                     in.v_a.head(head), split.query_factor, s);
    } else {
      dotScores(in.q.head(head), in.k.head(kv), split.query_factor, s);
    }
    if (!slopes.empty()) {
      // x'' = x' + bias / b, so that S = b·x'' = b·x' + bias (exactly x' + bias when b = 1).
      const float b = split.score_factor;
      for (int i = 0; i < n_q; ++i) {
        float* row = r.scores.row(head, i);
        for (int j = 0; j < n_k; ++j) {
          const float bias = alibiBias(slopes[head], i, j, causal);
          row[j] += b == 1.0f ? bias : bias / b;
        }
      }
    }
    // Soft-capping (Gemma 2, §2): S = c·tanh(b·x' / c), formed here, so that the softmax below
    // reads S itself (its factor 1). Without a cap S = b·x' is formed after the softmax.
    const float b = capped ? 1.0f : split.score_factor;
    if (capped) capScores(s.data(), static_cast<std::size_t>(s.size()), split.score_factor, spec.score_cap);
    if (reduced) {
      // Reduced numerics (numerics.hpp): the reported scores S = b·x' rounded to the format,
      // then the softmax in the format from them.
      if (b != 1.0f) s.array() *= b;
      for (int i = 0; i < n_q; ++i) {
        float* row = r.scores.row(head, i);
        for (int j = 0; j < n_k; ++j) row[j] = roundTo(spec.precision, row[j]);
        reducedSoftmaxRow(row, r.weights.row(head, i), n_k, r.mask_pattern, i, spec.precision,
                          spec.softmax);
      }
      continue;  // outputs after dropout, below
    }
    for (int i = 0; i < n_q; ++i)
      softmaxRowMasked(r.scores.row(head, i), r.weights.row(head, i), n_k, r.mask_pattern, i, b);
    // The reported scores S = b·x' (±inf where they exceed float32; b = 1 ordinarily).
    if (b != 1.0f) s.array() *= b;
    // A fully masked row has zero weights, hence a zero output row. With a causal mask or a
    // window narrower than the keys, row by row over the visible span (as the KV-cache decode
    // forms it); else one GEMM (so that a window W ≥ n stays bit for bit full attention).
    if (spec.dropout <= 0.0) {
      const MaskPattern& pattern = r.mask_pattern;
      if (pattern.contiguous() && (pattern.causal || (pattern.window > 0 && pattern.window < n_k))) {
        for (int i = 0; i < n_q; ++i) {
          const auto [lo, hi] = pattern.span(i, n_k);
          weightedValueRow(r.weights.row(head, i) + lo, in.v.row(kv, std::min(lo, n_k - 1)), hi - lo, d_v,
                           r.head_outputs.row(head, i));
        }
      } else {
        r.head_outputs.head(head).noalias() = r.weights.head(head) * in.v.head(kv);
      }
    }
  }
  if (reduced || spec.dropout > 0.0) {
    // Dropout after the softmax (p = 0 draws nothing: the weights stay exactly as they are), then
    // the outputs from the weights as they now are: O_h = P_h V_h in float32 (a non-finite weight
    // makes its row's output NaN).
    if (spec.dropout > 0.0)
      applyDropout(r.weights.data.data(), h, n_q, n_k, r.mask_pattern, spec.dropout,
                   spec.dropout_seed, spec.precision, r.dropped);
    for (int head = 0; head < h; ++head)
      r.head_outputs.head(head).noalias() = r.weights.head(head) * in.v.head(kvHeadOf(head, h, g));
  }
  fillRowStats(r);
  return r;
}

}  // namespace attnlab
