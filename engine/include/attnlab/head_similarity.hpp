#pragma once
/// \file head_similarity.hpp
/// Head collapse (the seeds' pitfall 5): how alike the attention maps of every pair of heads are,
/// as the mean Jensen–Shannon divergence of their query rows, and which pairs are near-duplicates.

#include <utility>
#include <vector>

#include "attnlab/attention.hpp"

namespace attnlab {

/// Pairs of heads whose mean JSD is below this many nats are flagged as near-duplicates
/// (0.01 nats ≈ 1.4 % of the largest possible JSD, ln 2 ≈ 0.693: rows that a viewer cannot tell
/// apart on a heatmap).
inline constexpr double kNearDuplicateJsd = 0.01;

/// The similarity of the heads of one attention result.
struct HeadSimilarity {
  int h = 0;
  /// [h, h] row-major: mean over query rows of JSD(P_a[i, :], P_b[i, :]) in nats, in [0, ln 2];
  /// symmetric, 0 on the diagonal.
  std::vector<double> jsd;
  double threshold = kNearDuplicateJsd;  ///< nats; pairs below it are near-duplicates.
  /// (a, b) with a < b and jsd(a, b) < threshold, in row-major order.
  std::vector<std::pair<int, int>> near_duplicates;
  int rows = 0;  ///< Query rows averaged (rows with at least one visible key).

  double operator()(int a, int b) const { return jsd[static_cast<std::size_t>(a) * h + b]; }
};

/// Jensen–Shannon divergence of two distributions p and q of n entries, in nats (Lin 1991,
/// "Divergence measures based on the Shannon entropy", eq. 5.1 with equal weights):
/// JSD = ½·KL(p ‖ m) + ½·KL(q ‖ m), m = ½(p + q); 0·ln 0 = 0. Computed in double; the result is
/// clamped to [0, ln 2]. p and q are expected to sum to 1 (rows of attention weights).
double jensenShannon(const float* p, const float* q, int n);

/// Mean JSD over query rows of every pair of heads of `result` (weights [h, n_q, n_k]); rows with
/// no visible key (all weights 0 in every head) are left out of the mean. Pairs below `threshold`
/// nats are listed in near_duplicates. Throws Error(kInvalidArgument) when threshold is negative
/// or not finite.
HeadSimilarity headSimilarity(const AttentionResult& result, double threshold = kNearDuplicateJsd);

}  // namespace attnlab
