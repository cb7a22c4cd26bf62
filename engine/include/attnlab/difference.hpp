#pragma once
/// \file difference.hpp
/// The difference of two attention settings over the same tokens, Δ = A − B of their attention
/// weights, and where it is largest: the numbers behind difference maps (scaled − unscaled, one
/// head − another, layer l − layer l + 1, two temperatures, causal − not, two models of the same
/// tokenizer).

#include <vector>

#include "attnlab/attention.hpp"

namespace attnlab {

/// Δ of m pairs of maps.
struct WeightDifference {
  Tensor3 delta;  ///< [m, n_q, n_k]: map i is A's head heads_a[i] minus B's heads_b[i].
  /// kCausal when both sides are causal (a cell hidden from both is masked in Δ too); kNone
  /// otherwise, where a cell one side masks has that side's weight 0.
  Mask mask = Mask::kNone;
  /// The cells masked in Δ: both sides' MaskPattern when they are equal; otherwise only the causal
  /// mask when both are causal, else nothing (a cell one side masks has that side's weight 0).
  MaskPattern mask_pattern;
  double max_abs = 0;  ///< max |Δ| over every map and visible cell (0 when identical).
  int map = -1;        ///< Where max |Δ| first occurs (row-major order), −1 when no cell is
  int query = -1;      ///< visible.
  int key = -1;
  double a = 0, b = 0;  ///< A's and B's weights there.
};

/// Head heads_a[i] of `a` minus head heads_b[i] of `b` for every i, in double then stored as
/// float32. Throws Error(kInvalidArgument) when the lists differ in length or are empty, a head
/// does not exist, or the results differ in n_q or n_k (a difference needs the same tokens).
WeightDifference weightDifference(const AttentionResult& a, const std::vector<int>& heads_a,
                                  const AttentionResult& b, const std::vector<int>& heads_b);

}  // namespace attnlab
