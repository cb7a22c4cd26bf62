// Sums over a row of floats in double, shared by the model blocks' norms and the CPU reference's
// score bound.
#pragma once

#include <cstddef>

namespace attnlab::rows {

/// Σ (p_j − c)² over the n floats p[0, n), in double, in eight interleaved partial sums
/// (vectorised; a single running sum is one dependent addition per element). With c = 0 it is the
/// squared Euclidean norm. NaN in, NaN out. The order of the additions is fixed, so every caller
/// gets the same bits for the same row.
inline double squaredDeviations(const float* p, std::ptrdiff_t n, double c) {
  double part[8] = {};
  std::ptrdiff_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; ++l) {
      const double d = static_cast<double>(p[j + l]) - c;
      part[l] += d * d;
    }
  double total = 0;
  for (; j < n; ++j) {
    const double d = static_cast<double>(p[j]) - c;
    total += d * d;
  }
  for (double v : part) total += v;
  return total;
}

}  // namespace attnlab::rows
