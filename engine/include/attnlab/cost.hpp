#pragma once
/// \file cost.hpp
/// What one multi-head self-attention layer costs, counted from its shapes: the floating-point
/// work of the projections and of the attention, the parameters, the bytes of the score matrix
/// and of a KV cache (multi-head, grouped-query and multi-query). Two counts are given side by
/// side: the seed's (multiply–adds with h·d_k = d_model: 4·n·d_model² for the projections,
/// 2·n²·d_model for the attention, 4·d_model² parameters; Vaswani et al. 2017, Table 1's
/// O(n·d²) against O(n²·d)) and the exact count of the matrix products the engine performs, in
/// FLOPs (a multiply–add counts 2), for any h, d_k, d_v and K/V heads. The element-wise work
/// (the scale, the softmax's max, exponent, sum and division: a few operations per score) is
/// not counted, as attention-lab-bench does not count it either.

#include <string>

namespace attnlab {

/// The shapes of one self-attention layer (n_q = n_k = n).
struct CostShape {
  int n = 1;         ///< Tokens.
  int d_model = 64;  ///< Embedding width.
  int heads = 8;     ///< Query heads h.
  /// K/V heads G (grouped-query attention, Ainslie et al. 2023; G = 1 is multi-query attention,
  /// Shazeer 2019); 0 means h (multi-head attention). Must divide h.
  int kv_heads = 0;
  int d_k = 0;     ///< Query/key width per head; 0 means d_model / h (h must divide d_model).
  int d_v = 0;     ///< Value width per head; 0 means d_k.
  int layers = 1;  ///< Layers of the model: the KV cache holds every layer's K and V.

  int resolvedKvHeads() const { return kv_heads > 0 ? kv_heads : heads; }
  int resolvedDk() const { return d_k > 0 ? d_k : (heads > 0 ? d_model / heads : 0); }
  int resolvedDv() const { return d_v > 0 ? d_v : resolvedDk(); }
  /// Throws Error(kInvalidArgument) naming the first bad field: n, d_model, heads, layers < 1,
  /// G not dividing h, h not dividing d_model without d_k.
  void validate() const;
};

/// The cost of one layer at n tokens. Counts are doubles: at n = 10⁶ they pass 2⁶³.
struct AttentionCost {
  // The seed's counts, in multiply–adds, with h·d_k = d_model.
  double seed_projection_macs = 0;  ///< 4·n·d_model² (W_Q, W_K, W_V, W_O).
  double seed_attention_macs = 0;   ///< 2·n²·d_model (Q Kᵀ and P V).
  double seed_parameters = 0;       ///< 4·d_model².
  // The engine's matrix products, in FLOPs (2 per multiply–add).
  /// 2·n·d_model·(h·d_k + G·d_k + G·d_v) for Q, K and V plus 2·n·h·d_v·d_model for W_O.
  double projection_flops = 0;
  double score_flops =
      0;  ///< S = Q Kᵀ: 2·h·n²·d_k (the causal half included: the CPU computes it).
  double value_flops = 0;  ///< O = P V: 2·h·n²·d_v.
  /// d_model·(h·d_k + G·(d_k + d_v)) + h·d_v·d_model (no biases), = 4·d_model² for MHA.
  double parameters = 0;
  double score_matrix_bytes = 0;  ///< P [h, n, n] in float32: h·n²·4 (the engine keeps S too).
  double kv_cache_bytes = 0;      ///< float32 K and V of n tokens: layers·n·G·(d_k + d_v)·4.
  double kv_cache_bytes_mha = 0;  ///< The same with G = h (multi-head attention).
  double kv_cache_bytes_mqa = 0;  ///< The same with G = 1 (multi-query attention).

  /// Q Kᵀ and P V: 4·h·n²·d_k when d_v = d_k, the count attention-lab-bench's GFLOP/s use.
  double attentionFlops() const { return score_flops + value_flops; }
};

/// The cost of `shape` (validated first; throws Error(kInvalidArgument)).
AttentionCost attentionCost(const CostShape& shape);

/// The n at which the attention's FLOPs equal the projections' (shape.n is ignored):
/// d_model·(h·d_k + G·(d_k + d_v) + h·d_v) / (h·(d_k + d_v)), which is 2·d_model for multi-head
/// attention with h·d_k = d_model (the seed's crossover: 2·n²·d = 4·n·d² at n = 2·d). Fewer K/V
/// heads make the projections cheaper, so the crossover comes earlier. Throws like validate().
double attentionCrossover(const CostShape& shape);

/// "12.3 GFLOP", "512 KiB"-style short forms for tables and plots: value with an SI prefix
/// (k, M, G, T, P) and `unit`; bytes use binary prefixes (KiB, MiB, GiB, TiB) when unit is "B".
std::string humanCount(double value, const std::string& unit);

}  // namespace attnlab
