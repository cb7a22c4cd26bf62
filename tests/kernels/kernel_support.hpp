#pragma once
// What the kernel tests share: the tolerance table, comparisons against the CPU reference, the
// runtimes under test (with guard bands around every result buffer) and input builders.
//
// The tolerance table. A kernel and the CPU reference form the same float32 sums in different
// orders, so their scores differ by a few units in the last place of the magnitude each sum is
// formed from (M_ij = scale·Σ_c |q_ic k_jc|, not |S_ij|, which can cancel to ~0). A weight moves
// with the scores of its row: p_j ∝ e^{S_j}, so a row whose scores differ by at most ΔS has weights
// within a factor e^{±2ΔS} of each other's (first order: |Δp_j| ≤ 2 p_j ΔS). Each tolerance is
// therefore abs + rel·(magnitude) plus, for weights and outputs, what the row's measured score
// difference accounts for:
//   scores   |ΔS_ij| ≤ abs + rel·M_ij
//   weights  |Δp_ij| ≤ abs + rel·p_ij + p_ij·(e^{2ΔS_i} − 1)
//   outputs  |Δo_ic| ≤ abs + (rel + e^{2ΔS_i} − 1)·Σ_j p_ij |v_jc|   (≥ |o_ic|; o can cancel too)
// abs and rel are then what float32 softmax arithmetic itself costs (exponentials to ~2e-7
// relative, sums of up to n terms), not what the scores' rounding costs. A kernel that normalises
// with anything but the exact sum of its own exponentials (the old L = m + log l as one float:
// relative error ulp(|m|)/2, 1.2e-4 at |m| ≈ 2000) fails the weights' rel and the row sums.
// Besides parity, every result must be consistent with itself: its rows sum to 1 within 1e-6
// and its weights equal the softmax (in double) of its own scores within abs + rel·p.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/backend.hpp"
#include "attnlab/synthetic.hpp"
#include "opencl/runtime.hpp"
#include "test_support.hpp"

namespace attnlab::test {

using opencl::MaskParams;
using opencl::Runtime;
using opencl::Variant;

struct Tolerance {
  const char* quantity;
  double abs;
  double rel;
};
// The named tolerance table (see the file comment for what rel multiplies).
inline constexpr Tolerance kScores{"scores", 1e-6, 2e-6};
inline constexpr Tolerance kWeights{"weights", 1e-6, 2e-6};
inline constexpr Tolerance kOutputs{"outputs", 1e-6, 4e-6};
inline constexpr Tolerance kPooled{"pooled weights", 1e-6, 4e-6};
inline constexpr double kRowSum = 1e-6;  // |Σ_j p_ij − 1| for a row with a visible key

/// Guard floats around every result buffer of the runtimes under test (collect() throws when a
/// kernel wrote into them).
inline constexpr std::size_t kGuardFloats = 64;

/// A Runtime per variant on device 0 with guard bands, or nullptr after reporting the test as
/// skipped (no OpenCL device; scripts/test fails a CI run that skipped).
inline Runtime* runtimeFor(Variant variant) {
  static std::unique_ptr<Runtime> runtimes[2];
  static std::string why;
  static bool probed = false;
  if (!probed) {
    probed = true;
    if (!listOpenClDevices(&why).empty()) {
      opencl::RuntimeOverrides guards;
      guards.guard_floats = kGuardFloats;
      opencl::setRuntimeOverridesForTesting(guards);
      runtimes[0] = std::make_unique<Runtime>(0, Variant::kCpu);
      runtimes[1] = std::make_unique<Runtime>(0, Variant::kGpu);
      opencl::setRuntimeOverridesForTesting({});
    }
  }
  if (!runtimes[0]) {
    skipTest("no OpenCL device (" + why + "); install pocl-opencl-icd (scripts/setup)");
    return nullptr;
  }
  return runtimes[variant == Variant::kCpu ? 0 : 1].get();
}

inline const char* variantName(Variant v) {
  return v == Variant::kCpu ? "cpu-shaped" : "gpu-shaped";
}

/// Random inputs: q, k ~ N(0, sd²) [h, n, d_k], v ~ N(0, 1), additive parameters with d_a ≤ 32.
inline AttentionInputs randomInputs(int h, int n_q, int n_k, int d_k, int d_v, std::uint64_t seed,
                                    double sd = 1.0) {
  auto fill = [](Tensor3& t, Rng& rng, double s) {
    for (float& x : t.data) x = static_cast<float>(s * rng.normal());
  };
  Rng rng(seed);
  AttentionInputs in;
  in.q = Tensor3(h, n_q, d_k);
  in.k = Tensor3(h, n_k, d_k);
  in.v = Tensor3(h, n_k, d_v);
  fill(in.q, rng, sd);
  fill(in.k, rng, sd);
  fill(in.v, rng, 1.0);
  const int d_a = std::min(d_k, 32);
  in.w_a = Tensor3(h, d_k, d_a);
  in.u_a = Tensor3(h, d_k, d_a);
  in.v_a = Tensor3(h, 1, d_a);
  fill(in.w_a, rng, 1.0 / std::sqrt(d_k));
  fill(in.u_a, rng, 1.0 / std::sqrt(d_k));
  fill(in.v_a, rng, 1.0 / std::sqrt(d_a));
  return in;
}

inline Tensor3 scaledQ(const Tensor3& q, double scale) {
  Tensor3 out = q;
  for (float& x : out.data) x *= static_cast<float>(scale);
  return out;
}

/// CPU reference for any MaskParams (the kernels' masks beyond the public spec: a causal offset,
/// every pattern, ALiBi; K and V with G heads): scores of the already scaled q plus the ALiBi bias
/// −m_h·distance, softmax in double over the visible keys (keyVisible), P V.
struct Reference {
  Tensor3 scores, weights, output;
};
inline Reference referenceWithMask(const AttentionInputs& in, double scale,
                                   const MaskParams& mask) {
  const int h = in.q.h, g = in.k.h, n_q = in.q.rows, n_k = in.k.rows;
  Reference r{Tensor3(h, n_q, n_k), Tensor3(h, n_q, n_k), Tensor3(h, n_q, in.v.cols)};
  std::vector<double> e(static_cast<std::size_t>(n_k));
  for (int k = 0; k < h; ++k) {
    const int kv = kvHeadOf(k, h, g);
    r.scores.head(k) = (static_cast<float>(scale) * in.q.head(k)) * in.k.head(kv).transpose();
    for (int i = 0; i < n_q; ++i) {
      float* s = r.scores.row(k, i);
      if (!mask.alibi_slopes.empty())
        for (int j = 0; j < n_k; ++j) {
          const int d = i + mask.offset - j;
          s[j] -= mask.alibi_slopes[k] * static_cast<float>(mask.pattern.causal ? d : std::abs(d));
        }
      double m = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int j = 0; j < n_k; ++j)
        if (opencl::keyVisible(mask, i, j)) m = std::max(m, double(s[j]));
      for (int j = 0; j < n_k; ++j)
        sum += e[j] = opencl::keyVisible(mask, i, j) ? std::exp(double(s[j]) - m) : 0.0;
      for (int j = 0; j < n_k; ++j)
        r.weights(k, i, j) = sum > 0 ? static_cast<float>(e[j] / sum) : 0.0f;
    }
    r.output.head(k) = r.weights.head(k) * in.v.head(kv);
  }
  return r;
}

/// M_ij = scale·Σ_c |q_ic k_jc| [h, n_q, n_k]: the magnitude a score is summed from (k may have
/// G heads; query head i uses K head kvHeadOf(i, h, G)).
inline std::vector<double> scoreMagnitude(const Tensor3& q, const Tensor3& k, double scale) {
  std::vector<double> m(static_cast<std::size_t>(q.h) * q.rows * k.rows);
  std::size_t at = 0;
  for (int head = 0; head < q.h; ++head) {
    const Eigen::MatrixXd a = q.head(head).cast<double>().cwiseAbs();
    const Eigen::MatrixXd b = k.head(kvHeadOf(head, q.h, k.h)).cast<double>().cwiseAbs();
    const Eigen::MatrixXd prod = scale * a * b.transpose();
    for (int i = 0; i < q.rows; ++i)
      for (int j = 0; j < k.rows; ++j) m[at++] = prod(i, j);
  }
  return m;
}

/// Adds |ALiBi bias| = m_h·distance to a magnitude [h, n_q, n_k]: a score is then the rounded sum
/// of q·k and the bias, so its rounding is relative to both.
inline std::vector<double> withAlibi(std::vector<double> m, const MaskParams& mask, int h, int n_q,
                                     int n_k) {
  if (mask.alibi_slopes.empty()) return m;
  std::size_t at = 0;
  for (int k = 0; k < h; ++k)
    for (int i = 0; i < n_q; ++i)
      for (int j = 0; j < n_k; ++j)
        m[at++] += mask.alibi_slopes[k] * std::abs(double(i + mask.offset - j));
  return m;
}

/// The magnitude of additive scores: scale·Σ|v_a| of the head (every |e| is at most that).
inline std::vector<double> additiveMagnitude(const AttentionInputs& in, double scale) {
  std::vector<double> m;
  for (int head = 0; head < in.q.h; ++head) {
    const double bound = scale * in.v_a.head(head).cast<double>().cwiseAbs().sum();
    m.insert(m.end(), static_cast<std::size_t>(in.q.rows) * in.k.rows, bound);
  }
  return m;
}

/// Per row [h·n_q], the largest finite |ΔS| over its keys (0 for a row with none).
inline std::vector<double> rowScoreDiff(const Tensor3& got, const Tensor3& want) {
  std::vector<double> diff(static_cast<std::size_t>(want.h) * want.rows, 0.0);
  for (int k = 0; k < want.h; ++k)
    for (int i = 0; i < want.rows; ++i)
      for (int j = 0; j < want.cols; ++j) {
        const double a = got(k, i, j), b = want(k, i, j);
        if (std::isfinite(a) && std::isfinite(b)) {
          double& d = diff[static_cast<std::size_t>(k) * want.rows + i];
          d = std::max(d, std::abs(a - b));
        }
      }
  return diff;
}

/// Records the worst violation of one comparison and requires there is none.
class Checker {
 public:
  explicit Checker(const char* quantity) : quantity_(quantity) {}
  /// got vs want with allowance `allowed` at flat index i. Infinities must match exactly; NaN
  /// never passes.
  void check(double got, double want, double allowed, std::size_t i) {
    ++count_;
    if (std::isinf(got) || std::isinf(want) || std::isnan(got) || std::isnan(want)) {
      if (!(got == want)) bad_special_ = true, special_index_ = i;
      return;
    }
    const double diff = std::abs(got - want);
    worst_ratio_ = std::max(worst_ratio_, diff / allowed);
    if (diff - allowed > worst_excess_) {
      worst_excess_ = diff - allowed;
      worst_diff_ = diff;
      worst_allowed_ = allowed;
      index_ = i;
    }
    max_diff_ = std::max(max_diff_, diff);
  }
  void require() const {
    // ATTNLAB_TOLERANCE_REPORT=1: how close each comparison comes to its tolerance (for tuning
    // the table; 1.0 would be a failure).
    if (std::getenv("ATTNLAB_TOLERANCE_REPORT"))
      std::printf("tolerance %-36s max |diff| %.3g, worst diff/allowed %.3f\n", quantity_,
                  max_diff_, worst_ratio_);
    INFO(quantity_ << " (" << count_ << " values): largest |diff| " << max_diff_ << "; worst at "
                   << index_ << ": |diff| " << worst_diff_ << " vs allowed " << worst_allowed_);
    INFO("non-finite mismatch: " << (bad_special_ ? "yes, at " + std::to_string(special_index_)
                                                  : std::string("no")));
    REQUIRE_FALSE(bad_special_);
    REQUIRE(worst_excess_ <= 0);
  }
  double maxDiff() const { return max_diff_; }

 private:
  const char* quantity_;
  std::size_t count_ = 0, index_ = 0, special_index_ = 0;
  double worst_excess_ = -std::numeric_limits<double>::infinity();
  double worst_diff_ = 0, worst_allowed_ = 0, max_diff_ = 0, worst_ratio_ = 0;
  bool bad_special_ = false;
};

/// Scores against the reference, relative to their magnitude M.
inline void requireScores(const Tensor3& got, const Tensor3& want,
                          const std::vector<double>& magnitude) {
  REQUIRE(got.data.size() == want.data.size());
  Checker c(kScores.quantity);
  for (std::size_t i = 0; i < want.data.size(); ++i)
    c.check(got.data[i], want.data[i], kScores.abs + kScores.rel * magnitude[i], i);
  c.require();
}

/// Weights against the reference, allowing what the row's score difference accounts for.
inline void requireWeights(const Tensor3& got, const Tensor3& want,
                           const std::vector<double>& row_diff, const Tolerance& tol = kWeights) {
  REQUIRE(got.data.size() == want.data.size());
  Checker c(tol.quantity);
  for (std::size_t i = 0; i < want.data.size(); ++i) {
    const double p = want.data[i];
    const double moved = std::expm1(2 * row_diff[i / static_cast<std::size_t>(want.cols)]);
    c.check(got.data[i], p, tol.abs + tol.rel * p + p * moved, i);
  }
  c.require();
}

/// Outputs [h, n_q, d_v] against the reference, relative to Σ_j p_ij |v_jc|.
inline void requireOutputs(const Tensor3& got, const Tensor3& want, const Tensor3& weights,
                           const Tensor3& v, const std::vector<double>& row_diff) {
  REQUIRE(got.data.size() == want.data.size());
  Checker c(kOutputs.quantity);
  for (int k = 0; k < want.h; ++k) {
    const Matrix scale = weights.head(k) * v.head(kvHeadOf(k, want.h, v.h)).cwiseAbs();
    for (int i = 0; i < want.rows; ++i) {
      const double moved =
          std::expm1(2 * row_diff[static_cast<std::size_t>(k) * want.rows + i]);
      for (int col = 0; col < want.cols; ++col)
        c.check(got(k, i, col), want(k, i, col),
                kOutputs.abs + (kOutputs.rel + moved) * scale(i, col),
                (static_cast<std::size_t>(k) * want.rows + i) * want.cols + col);
    }
  }
  c.require();
}

/// Every row with a visible key sums to 1 within kRowSum (in double); a row without sums to 0.
inline void requireRowSums(const Tensor3& weights, const MaskParams& mask) {
  double worst = 0;
  std::size_t not_finite = 0, masked_not_zero = 0;
  for (int k = 0; k < weights.h; ++k)
    for (int i = 0; i < weights.rows; ++i) {
      double sum = 0;
      bool any = false;
      for (int j = 0; j < weights.cols; ++j) {
        const float p = weights(k, i, j);
        const bool visible = opencl::keyVisible(mask, i, j);
        any = any || visible;
        not_finite += !std::isfinite(p);
        masked_not_zero += !visible && p != 0.0f;
        sum += p;
      }
      worst = std::max(worst, std::abs(sum - (any ? 1.0 : 0.0)));
    }
  INFO("largest |row sum − 1| " << worst);
  REQUIRE(not_finite == 0);
  REQUIRE(masked_not_zero == 0);
  REQUIRE(worst <= kRowSum);
}

/// The weights equal the softmax (in double) of the result's own finite scores within kWeights'
/// abs + rel·p: a normaliser that is not the exact sum of the row's exponentials cannot pass.
inline void requireSelfConsistent(const Tensor3& scores, const Tensor3& weights,
                                  const MaskParams& mask) {
  Checker c("weights vs softmax of own scores");
  std::vector<double> e(static_cast<std::size_t>(scores.cols));
  for (int k = 0; k < scores.h; ++k)
    for (int i = 0; i < scores.rows; ++i) {
      const auto [lo, hi] = opencl::visibleRange(mask, i, scores.cols);
      double m = -std::numeric_limits<double>::infinity();
      for (int j = lo; j < hi; ++j)
        if (opencl::keyVisible(mask, i, j)) m = std::max(m, double(scores(k, i, j)));
      if (!std::isfinite(m)) continue;  // no visible key, or overflowed scores (own tests)
      double sum = 0;
      for (int j = lo; j < hi; ++j)
        sum += e[j] = opencl::keyVisible(mask, i, j) ? std::exp(double(scores(k, i, j)) - m) : 0;
      for (int j = lo; j < hi; ++j) {
        if (!opencl::keyVisible(mask, i, j)) continue;
        const double p = e[j] / sum;
        c.check(weights(k, i, j), p, kWeights.abs + kWeights.rel * p,
                (static_cast<std::size_t>(k) * scores.rows + i) * scores.cols + j);
      }
    }
  c.require();
}

/// Everything the parity tests ask of one OpenCL result against the CPU reference's, under the
/// kernels' form of the spec's mask (MaskParams::fromSpec).
inline void requireParity(const AttentionResult& gpu, const AttentionResult& cpu,
                          const AttentionInputs& in, const std::vector<double>& magnitude,
                          const MaskParams& mask) {
  requireScores(gpu.scores, cpu.scores, magnitude);
  const std::vector<double> row_diff = rowScoreDiff(gpu.scores, cpu.scores);
  requireWeights(gpu.weights, cpu.weights, row_diff);
  requireOutputs(gpu.head_outputs, cpu.head_outputs, cpu.weights, in.v, row_diff);
  requireRowSums(gpu.weights, mask);
  requireRowSums(cpu.weights, mask);
  requireSelfConsistent(gpu.scores, gpu.weights, mask);
}
/// requireParity for a result of the plain causal or unmasked spec (no pattern, no ALiBi).
inline void requireParity(const AttentionResult& gpu, const AttentionResult& cpu,
                          const AttentionInputs& in, const std::vector<double>& magnitude) {
  MaskParams mask;
  mask.pattern.causal = cpu.mask == Mask::kCausal;
  requireParity(gpu, cpu, in, magnitude, mask);
}

}  // namespace attnlab::test
