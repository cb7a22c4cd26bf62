/// \file head_similarity.cpp
/// Mean Jensen–Shannon divergence between the heads of one result (head_similarity.hpp).

#include "attnlab/head_similarity.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/error.hpp"

namespace attnlab {

double jensenShannon(const float* p, const float* q, int n) {
  double sum = 0;
  for (int j = 0; j < n; ++j) {
    const double a = p[j], b = q[j];
    const double m = 0.5 * (a + b);
    if (a > 0) sum += a * std::log(a / m);
    if (b > 0) sum += b * std::log(b / m);
  }
  return std::clamp(0.5 * sum, 0.0, std::log(2.0));
}

HeadSimilarity headSimilarity(const AttentionResult& result, double threshold) {
  if (!std::isfinite(threshold) || threshold < 0) {
    throw Error(ErrorCode::kInvalidArgument, "the near-duplicate threshold must be a finite number ≥ 0");
  }
  const Tensor3& w = result.weights;
  HeadSimilarity s;
  s.h = w.h;
  s.threshold = threshold;
  s.jsd.assign(static_cast<std::size_t>(w.h) * w.h, 0.0);
  // Rows with a visible key: every head shares the mask, so a row is empty in all heads or none.
  std::vector<int> rows;
  for (int i = 0; i < w.rows; ++i) {
    bool any = false;
    for (int k = 0; k < w.h && !any; ++k) {
      const float* r = w.row(k, i);
      any = std::any_of(r, r + w.cols, [](float x) { return x != 0.0f; });
    }
    if (any) rows.push_back(i);
  }
  s.rows = static_cast<int>(rows.size());
  for (int a = 0; a < w.h; ++a) {
    for (int b = a + 1; b < w.h; ++b) {
      double total = 0;
      for (int i : rows) total += jensenShannon(w.row(a, i), w.row(b, i), w.cols);
      const double mean = rows.empty() ? 0.0 : total / static_cast<double>(rows.size());
      s.jsd[static_cast<std::size_t>(a) * w.h + b] = mean;
      s.jsd[static_cast<std::size_t>(b) * w.h + a] = mean;
    }
  }
  for (int a = 0; a < w.h; ++a) {
    for (int b = a + 1; b < w.h; ++b) {
      if (s(a, b) < threshold) s.near_duplicates.emplace_back(a, b);
    }
  }
  return s;
}

}  // namespace attnlab
