#pragma once
// Pieces of the CPU reference that other backends share.

#include <cstddef>

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

/// Linear attention for one head (Katharopoulos et al. 2020, eqs. 4–6; φ(x) = elu(x) + 1):
/// q [n_q, d_k], k [n_k, d_k], v [n_k, d_v]; pattern: causal and key padding only (no window,
/// global tokens or stride — callers refuse them). Writes scores [n_q, n_k] = φ(q_i)·φ(k_j), the
/// implied weights [n_q, n_k] P_ij = φ(q_i)·φ(k_j) / Σ_{visible l} φ(q_i)·φ(k_l) (0 outside the
/// pattern), and output [n_q, d_v] formed without P in O(n·d_k·d_v) (causal: prefix sums), in
/// double, equal to P·V to rounding.
void linearAttentionHead(const Eigen::Map<const Matrix>& q, const Eigen::Map<const Matrix>& k,
                         const Eigen::Map<const Matrix>& v, const MaskPattern& pattern,
                         Eigen::Map<Matrix> scores, Eigen::Map<Matrix> weights,
                         Eigen::Map<Matrix> output);

/// One output row o = p · V_span: p [len] (the weights of keys lo … lo + len − 1), v_span
/// [len, d_v] (their value rows, contiguous), o [d_v]. The full causal pass and the KV-cache
/// decode (decode.cpp) both form their rows on the same kernel (timesValues), so that a correct
/// cache gives the same arithmetic, not the same sum in another order.
void weightedValueRow(const float* p, const float* v_span, int len, int d_v, float* o);

/// out [rows, d_v] (row stride ldo) = p [rows, n_k] (row stride ldp) · v [n_k, d_v] (contiguous)
/// on the CPU path's kernel (dense_kernels.hpp: MatrixProduct), each cell summed over k in order.
void timesValues(const float* p, long ldp, long rows, const float* v, int d_v, long n_k,
                 float* out, long ldo);

/// Soft-caps n raw scores x' in place (AttentionSpec::score_cap; Gemma Team 2024, "Gemma 2", §2):
/// s ← c·tanh(b·x' / c) with b = score_factor (ScoreScale), so the result is the reported score
/// S, in (−c, c), and the softmax then takes it with factor 1. tanh in double.
void capScores(float* s, std::size_t n, float score_factor, double cap);

/// Fills result.stats from result.weights and result.pattern() (see HeadStats): callers set
/// mask_pattern = spec.maskPattern() first.
void fillRowStats(AttentionResult& result);

}  // namespace attnlab
