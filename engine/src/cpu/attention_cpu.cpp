// The CPU reference attention: the dot-product path's products, softmax and statistics on the
// CPU path's kernels (cpu/dense_kernels.hpp), the rest in Eigen. Every other backend is checked
// against this file.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "attnlab/numerics.hpp"
#include "attnlab/positions.hpp"
#include "cpu/attention_cpu.hpp"
#include "cpu/cpu_path_internal.hpp"
#include "cpu/row_sums.hpp"
#include "model/linear.hpp"

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

namespace {

/// The largest Euclidean norm of the rows of head `head` of t, in double.
double largestRowNorm(const Tensor3& t, int head) {
  double largest = 0;
  for (int i = 0; i < t.rows; ++i) {
    const double total = rows::squaredDeviations(t.row(head, i), t.cols, 0.0);
    if (std::isnan(total)) return total;  // NaN inputs: a NaN bound (splitScoreScale: no split)
    largest = std::max(largest, total);
  }
  return std::sqrt(largest);
}

}  // namespace

double dotProductBound(const Tensor3& q, const Tensor3& k) {
  double bound = 0;
  // Heads in parallel from a few thousand elements (a maximum: the same bound in any order).
#pragma omp parallel for schedule(static) reduction(max : bound) \
    if (q.h > 1 && !omp_in_parallel() && q.data.size() + k.data.size() >= (1 << 14))
  for (int head = 0; head < q.h; ++head) {
    const double q_max = largestRowNorm(q, head);
    const double k_max = largestRowNorm(k, kvHeadOf(head, q.h, k.h));
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

namespace {

/// RowStats from a row's Moments (kernels::Moments) with n_visible unmasked keys.
RowStats statsFromMoments(const kernels::Moments& m, int n_visible) {
  RowStats s;
  if (m.total == 0) return s;  // fully masked row: all statistics 0
  s.max_weight = m.max;
  s.entropy = std::max(0.0, m.entropy);
  s.normalized_entropy =
      n_visible > 1 ? std::clamp(s.entropy / std::log(static_cast<double>(n_visible)), 0.0, 1.0)
                    : 0.0;
  s.effective_keys = std::exp(s.entropy);
  // ‖diag(p) − p pᵀ‖_F² = Σ p_j² − 2 Σ p_j³ + (Σ p_j²)².
  s.jacobian_norm =
      std::sqrt(std::max(0.0, m.sum_sq - 2 * m.sum_cube + m.sum_sq * m.sum_sq));
  return s;
}

/// softmaxRow, and with `moments` (not null) the row's Moments from the softmax's own passes
/// (SoftmaxSpan). Returns 0 for an empty range, 1 when the moments were taken (a finite maximum),
/// 2 for the limits (+inf scores, a row of −inf) where they were not.
int softmaxSpanRow(const float* scores, float* p, int n, int lo, int hi, float score_factor,
                   kernels::Moments* moments) {
  lo = std::clamp(lo, 0, n);
  hi = std::clamp(hi, lo, n);
  std::fill(p, p + lo, 0.0f);
  std::fill(p + hi, p + n, 0.0f);
  if (lo >= hi) return 0;
  // x − m ≤ 0 and b is finite, so the argument is never NaN; e^{−huge} underflows to 0 and the
  // maximum contributes exactly 1. The CPU path's kernel (dense_kernels.hpp: SoftmaxSpan) gives a
  // row the same bits wherever it lies in memory, and sums in double.
  const float m = kernels::activeDenseKernel().softmax(scores + lo, hi - lo, score_factor, p + lo,
                                                       moments);
  if (std::isfinite(m)) return 1;
  const Eigen::Map<const Eigen::ArrayXf> x(scores + lo, hi - lo);
  Eigen::Map<Eigen::ArrayXf> w(p + lo, hi - lo);
  if (std::isinf(m) && m > 0) {
    // Infinite scores (only from a caller; the engine's are finite): the +inf keys share the
    // weight equally, the limit of the softmax.
    const float count = static_cast<float>((x == m).count());
    w = (x == m).select(Eigen::ArrayXf::Constant(hi - lo, 1.0f / count), 0.0f);
    return 2;
  }
  // Every visible score is −inf: treat the row as uniform over the visible keys.
  w.setConstant(1.0f / static_cast<float>(hi - lo));
  return 2;
}

/// softmaxRowMasked, and with `stats` (not null) the row's statistics (as rowStats gives them from
/// the weights, the entropy from the softmax's sums: SoftmaxSpan).
bool softmaxMaskedRow(const float* scores, float* p, int n, const MaskPattern& pattern, int i,
                      float score_factor, RowStats* stats) {
  kernels::Moments moments{};
  kernels::Moments* want = stats ? &moments : nullptr;
  const auto [lo, hi] = pattern.span(i, n);
  int taken = 0;
  if (pattern.contiguous()) {
    taken = softmaxSpanRow(scores, p, n, lo, hi, score_factor, want);
  } else {
    // Gaps (global tokens, strides): the visible scores gathered into one contiguous row,
    // softmaxed with the same numerics, and scattered back (the zeros between add nothing to the
    // moments).
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
    taken = softmaxSpanRow(x.data(), w.data(), count, 0, count, score_factor, want);
    for (int t = 0; t < count; ++t) p[index[t]] = w[t];
  }
  if (stats) {
    const int visible = pattern.visibleCount(i, n);
    *stats = taken == 1 ? statsFromMoments(moments, visible)
             : taken == 2 ? rowStats(p, n, visible)
                          : RowStats{};
  }
  return taken != 0;
}

}  // namespace

bool softmaxRow(const float* scores, float* p, int n, int lo, int hi, float score_factor) {
  return softmaxSpanRow(scores, p, n, lo, hi, score_factor, nullptr) != 0;
}

bool softmaxRowMasked(const float* scores, float* p, int n, const MaskPattern& pattern, int i,
                      float score_factor) {
  return softmaxMaskedRow(scores, p, n, pattern, i, score_factor, nullptr);
}

RowStats rowStats(const float* p, int n, int n_visible) {
  // Sums in double over the row on the CPU path's kernel (dense_kernels.hpp: RowMoments); p ln p
  // formed in float with its vectorised log (relative error ~1e-7 per term), exactly 0 for a
  // masked weight p = 0.
  if (n <= 0) return RowStats{};
  return statsFromMoments(kernels::activeDenseKernel().moments(p, n), n_visible);
}

void weightedValueRow(const float* p, const float* v_span, int len, int d_v, float* o) {
  if (len <= 0) {
    std::fill(o, o + d_v, 0.0f);
    return;
  }
  timesValues(p, len, 1, v_span, d_v, len, o, d_v);
}

void timesValues(const float* p, long ldp, long rows, const float* v, int d_v, long n_k,
                 float* out, long ldo) {
  const kernels::DenseKernel& kernel = kernels::activeDenseKernel();
  if (d_v % 16 == 0) {
    kernel.times(p, ldp, rows, v, d_v, n_k, d_v, out, ldo);
    return;
  }
  // The kernel reads whole panels of 16 columns: V copied into rows padded with zeros.
  const int ld = (d_v + 15) / 16 * 16;
  thread_local std::vector<float> padded;
  padded.assign(static_cast<std::size_t>(n_k) * ld, 0.0f);
  for (long k = 0; k < n_k; ++k)
    std::copy(v + k * d_v, v + (k + 1) * d_v, padded.data() + k * ld);
  kernel.times(p, ldp, rows, padded.data(), ld, n_k, d_v, out, ldo);
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

namespace {

/// result.stats sized for its heads and query rows (values set by storeRowStats).
void sizeRowStats(AttentionResult& r) {
  const auto n_q = static_cast<std::size_t>(r.nQ());
  r.stats.assign(r.heads(), HeadStats{});
  for (HeadStats& st : r.stats) {
    st.max_weight.resize(n_q);
    st.entropy.resize(n_q);
    st.normalized_entropy.resize(n_q);
    st.effective_keys.resize(n_q);
    st.jacobian_norm.resize(n_q);
  }
}

void storeRowStats(HeadStats& st, int i, const RowStats& rs) {
  st.max_weight[i] = static_cast<float>(rs.max_weight);
  st.entropy[i] = static_cast<float>(rs.entropy);
  st.normalized_entropy[i] = static_cast<float>(rs.normalized_entropy);
  st.effective_keys[i] = static_cast<float>(rs.effective_keys);
  st.jacobian_norm[i] = static_cast<float>(rs.jacobian_norm);
}

}  // namespace

void fillRowStats(AttentionResult& r) {
  const int h = r.heads(), n_q = r.nQ(), n_k = r.nK();
  sizeRowStats(r);
  const MaskPattern pattern = r.pattern();
#pragma omp parallel for schedule(dynamic, 1) if (h > 1 && double(n_q) * n_k * h >= 65536.0)
  for (int head = 0; head < h; ++head) {
    for (int i = 0; i < n_q; ++i)
      storeRowStats(r.stats[head], i,
                    rowStats(r.weights.row(head, i), n_k, pattern.visibleCount(i, n_k)));
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

// Query rows per parallel block of the CPU attention: a multiple of every path's register rows
// (12, 6, 3), so that only a head's last block has a tail.
constexpr int kRowBlock = 48;

// Query rows [i0, i1) of O = P·V for one head (p [n_q, n_k], v [n_k, d_v], out [n_q, d_v]) on
// the CPU path's kernel. With a causal mask or a window the keys run only over the rows' visible
// span (the weights outside a row's own span are 0 and add exactly nothing, so each row equals
// weightedValueRow over its span, the KV-cache decode's arithmetic); else over every key.
void headOutputs(const float* p, const float* v, int i0, int i1, int n_k, int d_v,
                 const MaskPattern& pattern, float* out) {
  int lo = 0, hi = n_k;
  if (pattern.contiguous() && (pattern.causal || (pattern.window > 0 && pattern.window < n_k))) {
    lo = n_k, hi = 0;
    for (int i = i0; i < i1; ++i) {
      const auto [a, b] = pattern.span(i, n_k);
      if (a < b) lo = std::min(lo, a), hi = std::max(hi, b);
    }
  }
  if (lo >= hi) {
    std::fill(out + std::ptrdiff_t(i0) * d_v, out + std::ptrdiff_t(i1) * d_v, 0.0f);
    return;
  }
  timesValues(p + std::ptrdiff_t(i0) * n_k + lo, n_k, i1 - i0, v + std::ptrdiff_t(lo) * d_v, d_v,
              hi - lo, out + std::ptrdiff_t(i0) * d_v, d_v);
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
  // The softmax path writes every element of its results (the rows' masked keys get their zeros
  // from the row softmax, empty rows a zero output): no zero-fill first. Linear attention's are
  // zero-filled.
  const bool linear = spec.mechanism == Mechanism::kLinear;
  r.scores = linear ? Tensor3(h, n_q, n_k) : Tensor3(h, n_q, n_k, Tensor3::Unfilled{});
  r.weights = linear ? Tensor3(h, n_q, n_k) : Tensor3(h, n_q, n_k, Tensor3::Unfilled{});
  r.head_outputs = linear ? Tensor3(h, n_q, d_v) : Tensor3(h, n_q, d_v, Tensor3::Unfilled{});
  r.backend = "cpu";
  r.precision = spec.precision;
  r.softmax = spec.softmax;
  r.dropout = spec.dropout;
  const bool reduced = spec.precision != Precision::kFp32 || spec.softmax != SoftmaxKind::kStable;

  const bool additive = spec.mechanism == Mechanism::kAdditive;
  if (linear) {
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
  // Dot-product scores read the keys packed once per K/V group (grouped-query attention reads the
  // G groups' keys, never a copy per query head) and the queries scaled by a (ScoreScale) first.
  const int d_k = in.q.cols;
  const long long packed_stride = additive ? 0 : linear::packedSize(n_k, d_k);
  std::vector<float> packed_k(static_cast<std::size_t>(packed_stride * g));
  Tensor3 q_scaled;
  if (additive) {
    // Heads in parallel, each on one thread (Eigen does not nest inside the parallel region).
#pragma omp parallel for schedule(dynamic, 1) if (h > 1 && double(n_q) * n_k * h >= 65536.0)
    for (int head = 0; head < h; ++head) {
      additiveScores(in.q.head(head), in.k.head(kvHeadOf(head, h, g)), in.w_a.head(head),
                     in.u_a.head(head), in.v_a.head(head), split.query_factor, r.scores.head(head));
    }
  } else {
    q_scaled = Tensor3(h, n_q, d_k, Tensor3::Unfilled{});
    // Each K/V group packed and each query head scaled on one thread (the same numbers).
#pragma omp parallel if (double(n_q + n_k) * d_k * h >= 16384.0)
    {
#pragma omp for schedule(static) nowait
      for (int kv = 0; kv < g; ++kv)
        linear::packPanels(in.k.row(kv, 0), n_k, d_k, packed_k.data() + kv * packed_stride);
#pragma omp for schedule(static)
      for (int head = 0; head < h; ++head) {
        const float* src = in.q.row(head, 0);
        float* dst = q_scaled.row(head, 0);
        for (std::size_t t = 0, e = std::size_t(n_q) * d_k; t < e; ++t)
          dst[t] = src[t] * split.query_factor;
      }
    }
  }
  // Soft-capping (Gemma 2, §2): S = c·tanh(b·x' / c), formed before the softmax, which then reads
  // S itself (its factor 1). Without a cap S = b·x' is formed after the softmax.
  const float b = capped ? 1.0f : split.score_factor;
  const kernels::DenseKernel& kernel = kernels::activeDenseKernel();
  // Each row's statistics from its softmax's own sums (SoftmaxSpan: no logarithm per weight),
  // unless reduced numerics or dropout change the weights after it (fillRowStats then reads them).
  const bool inline_stats = !reduced && spec.dropout <= 0.0;
  if (inline_stats) sizeRowStats(r);
  // Blocks of query rows in parallel (every head's, so that one head or a few keep both threads
  // busy): their raw scores on the CPU path's dense kernel, then row by row the bias, cap and
  // softmax, then the block's outputs (headOutputs).
  const int chunks = (n_q + kRowBlock - 1) / kRowBlock;
#pragma omp parallel for schedule(dynamic, 1) if (double(n_q) * n_k * h >= 65536.0)
  for (int task = 0; task < h * chunks; ++task) {
    const int head = task / chunks, i0 = task % chunks * kRowBlock;
    const int i1 = std::min(n_q, i0 + kRowBlock), kv = kvHeadOf(head, h, g);
    if (!additive) {
      kernel.product(q_scaled.row(head, i0), d_k, i1 - i0, packed_k.data() + kv * packed_stride,
                     d_k, 0, n_k, r.scores.row(head, i0), n_k, nullptr, nullptr);
    }
    for (int i = i0; i < i1; ++i) {
      float* row = r.scores.row(head, i);
      if (!slopes.empty()) {
        // x'' = x' + bias / b, so that S = b·x'' = b·x' + bias (exactly x' + bias when b = 1).
        const float f = split.score_factor;
        for (int j = 0; j < n_k; ++j) {
          const float bias = alibiBias(slopes[head], i, j, causal);
          row[j] += f == 1.0f ? bias : bias / f;
        }
      }
      if (capped) capScores(row, static_cast<std::size_t>(n_k), split.score_factor, spec.score_cap);
      if (reduced) {
        // Reduced numerics (numerics.hpp): the reported scores S = b·x' rounded to the format,
        // then the softmax in the format from them (outputs after dropout, below).
        for (int j = 0; j < n_k; ++j) row[j] = roundTo(spec.precision, b != 1.0f ? row[j] * b : row[j]);
        reducedSoftmaxRow(row, r.weights.row(head, i), n_k, r.mask_pattern, i, spec.precision,
                          spec.softmax);
        continue;
      }
      if (inline_stats) {
        RowStats rs;
        softmaxMaskedRow(row, r.weights.row(head, i), n_k, r.mask_pattern, i, b, &rs);
        storeRowStats(r.stats[head], i, rs);
      } else {
        softmaxMaskedRow(row, r.weights.row(head, i), n_k, r.mask_pattern, i, b, nullptr);
      }
      // The reported scores S = b·x' (±inf where they exceed float32; b = 1 ordinarily).
      if (b != 1.0f)
        for (int j = 0; j < n_k; ++j) row[j] *= b;
    }
    // A fully masked row has zero weights, hence a zero output row.
    if (!reduced && spec.dropout <= 0.0)
      headOutputs(r.weights.row(head, 0), in.v.row(kv, 0), i0, i1, n_k, d_v, r.mask_pattern,
                  r.head_outputs.row(head, 0));
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
  if (!inline_stats) fillRowStats(r);
  return r;
}

}  // namespace attnlab
