#pragma once
// Pieces of the CPU reference that other backends share.

#include "attnlab/attention.hpp"

namespace attnlab {

/// Throws Error(kInvalidArgument) when the inputs' shapes disagree with each other or the spec.
void checkAttentionInputs(const AttentionInputs& inputs, const AttentionSpec& spec);

/// The dot-product bound of ScoreScale for q [h, n_q, d_k] and k [G, n_k, d_k] (G dividing h;
/// G = h for multi-head attention): the largest ‖q_i‖ · max(1, ‖k_j‖) over query heads and the
/// K/V head each reads (kvHeadOf), in double.
double dotProductBound(const Tensor3& q, const Tensor3& k);
/// The additive bound of ScoreScale for v_a [h, 1, d_a]: the largest Σ|v_a| over heads (the
/// energies vᵀ tanh(·) never exceed it).
double additiveEnergyBound(const Tensor3& v_a);

/// Fills result.stats from result.weights and result.pattern() (see HeadStats): callers set
/// mask_pattern = spec.maskPattern() first.
void fillRowStats(AttentionResult& result);

}  // namespace attnlab
