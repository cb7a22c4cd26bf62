/// \file difference.cpp
/// Δ = A − B of attention weights (difference.hpp).

#include "attnlab/difference.hpp"

#include <cmath>
#include <string>

#include "attnlab/error.hpp"

namespace attnlab {

WeightDifference weightDifference(const AttentionResult& a, const std::vector<int>& heads_a,
                                  const AttentionResult& b, const std::vector<int>& heads_b) {
  if (heads_a.empty() || heads_a.size() != heads_b.size()) {
    throw Error(ErrorCode::kInvalidArgument, "a difference needs as many maps on each side");
  }
  if (a.nQ() != b.nQ() || a.nK() != b.nK()) {
    throw Error(ErrorCode::kInvalidArgument,
                "a difference needs the same tokens: " + std::to_string(a.nQ()) + " × " +
                    std::to_string(a.nK()) + " against " + std::to_string(b.nQ()) + " × " +
                    std::to_string(b.nK()));
  }
  for (std::size_t i = 0; i < heads_a.size(); ++i) {
    if (heads_a[i] < 0 || heads_a[i] >= a.heads() || heads_b[i] < 0 || heads_b[i] >= b.heads()) {
      throw Error(ErrorCode::kInvalidArgument, "a difference names a head that does not exist");
    }
  }
  const int m = static_cast<int>(heads_a.size()), n_q = a.nQ(), n_k = a.nK();
  WeightDifference d;
  d.mask = a.mask == Mask::kCausal && b.mask == Mask::kCausal ? Mask::kCausal : Mask::kNone;
  if (a.pattern() == b.pattern()) {
    d.mask_pattern = a.pattern();
  } else {
    d.mask_pattern = MaskPattern{};
    d.mask_pattern.causal = d.mask == Mask::kCausal;
  }
  d.delta = Tensor3(m, n_q, n_k);
  for (int map = 0; map < m; ++map) {
    const auto ha = static_cast<std::size_t>(map);
    for (int i = 0; i < n_q; ++i) {
      const float* pa = a.weights.row(heads_a[ha], i);
      const float* pb = b.weights.row(heads_b[ha], i);
      float* out = d.delta.row(map, i);
      for (int j = 0; j < n_k; ++j) {
        const double delta = static_cast<double>(pa[j]) - static_cast<double>(pb[j]);
        out[j] = static_cast<float>(delta);
        if (!d.mask_pattern.visible(i, j)) continue;
        if (d.map < 0 || std::fabs(delta) > d.max_abs) {
          d.max_abs = std::fabs(delta);
          d.map = map;
          d.query = i;
          d.key = j;
          d.a = pa[j];
          d.b = pb[j];
        }
      }
    }
  }
  return d;
}

}  // namespace attnlab
