/// \file summary.cpp
/// summarizeAttention: per-row entropies over heads and the score histogram.

#include "attnlab/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/error.hpp"

namespace attnlab {

AttentionSummary summarizeAttention(const AttentionResult& a, int bins) {
  if (bins < 1) throw Error(ErrorCode::kInvalidArgument, "a histogram needs at least one bin");
  const int h = a.heads(), n_q = a.nQ(), n_k = a.nK();
  if (static_cast<int>(a.stats.size()) != h) {
    throw Error(ErrorCode::kInvalidArgument, "the result's statistics do not match its heads");
  }
  for (const HeadStats& st : a.stats) {
    if (static_cast<int>(st.entropy.size()) != n_q) {
      throw Error(ErrorCode::kInvalidArgument, "the result's statistics do not match its rows");
    }
  }
  AttentionSummary r;
  const MaskPattern pattern = a.pattern();
  r.row_entropy.assign(static_cast<std::size_t>(n_q), 0.0);
  r.row_max_entropy.assign(static_cast<std::size_t>(n_q), 0.0);
  r.row_nonfinite_heads.assign(static_cast<std::size_t>(n_q), 0);
  for (int i = 0; i < n_q; ++i) {
    for (int k = 0; k < h; ++k) r.row_nonfinite_heads[static_cast<std::size_t>(i)] += a.nonfiniteRow(k, i) ? 1 : 0;
    double sum = 0;
    for (int k = 0; k < h; ++k) sum += a.stats[static_cast<std::size_t>(k)].entropy[static_cast<std::size_t>(i)];
    r.row_entropy[static_cast<std::size_t>(i)] = h > 0 ? sum / h : 0;
    const int visible = pattern.visibleCount(i, n_k);
    r.row_max_entropy[static_cast<std::size_t>(i)] = visible > 0 ? std::log(static_cast<double>(visible)) : 0;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  const bool has_scores = a.scores.data.size() == a.weights.data.size();
  for (int k = 0; k < h; ++k) {
    for (int i = 0; i < n_q; ++i) {
      const auto [first, last] = pattern.span(i, n_k);
      const float* w = a.weights.row(k, i);
      for (int j = first; j < last; ++j) r.max_weight = std::max(r.max_weight, static_cast<double>(w[j]));
      if (!has_scores) continue;
      const float* s = a.scores.row(k, i);
      for (int j = first; j < last; ++j) {
        if (!pattern.visible(i, j)) continue;
        if (!std::isfinite(s[j])) {
          ++r.histogram.nonfinite;
          continue;
        }
        lo = std::min(lo, static_cast<double>(s[j]));
        hi = std::max(hi, static_cast<double>(s[j]));
      }
    }
  }
  if (!(hi >= lo)) return r;
  if (hi - lo < 1e-9) {
    lo -= 0.5;
    hi += 0.5;
  }
  r.histogram.lo = lo;
  r.histogram.hi = hi;
  r.histogram.count.assign(static_cast<std::size_t>(bins), 0.0);
  const double width = (hi - lo) / bins;
  for (int k = 0; k < h; ++k) {
    for (int i = 0; i < n_q; ++i) {
      const auto [first, last] = pattern.span(i, n_k);
      const float* s = a.scores.row(k, i);
      for (int j = first; j < last; ++j) {
        if (!std::isfinite(s[j]) || !pattern.visible(i, j)) continue;
        const int bin = std::clamp(static_cast<int>((s[j] - lo) / width), 0, bins - 1);
        r.histogram.count[static_cast<std::size_t>(bin)] += 1;
      }
    }
  }
  return r;
}

}  // namespace attnlab
