#pragma once
/// \file quantities.hpp
/// The arithmetic behind the lessons' live numbers (lesson.hpp: quantities()), as pure functions
/// on the engine's tensors so the tests check them by hand.

#include <QString>

#include "attnlab/attention.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab::lessons {

/// Variance of the raw dot products q_i·k_j over every query head, query i and key j (the
/// population variance, in score units before any scale). q [h, n_q, d_k], k [G, n_k, d_k]
/// with G dividing h; query head a reads K/V head a / (h / G) (grouped-query attention).
/// For iid N(0, 1) components it approaches d_k (Vaswani et al. 2017, §3.2.1, footnote 4).
/// Throws Error(kInvalidArgument) for mismatched shapes or no pairs.
double dotProductVariance(const Tensor3& q, const Tensor3& k);

/// What averaging the heads throws away that concatenating them keeps: over every query row,
/// Σ_h ‖o_h − ō‖² / Σ_h ‖o_h‖², ō the mean of the heads' outputs, for head outputs
/// [h, n_q, d_v]; in [0, 1] (0: every head computed the same; 1 − 1/h for heads orthogonal and of
/// equal norm). Concatenation (Vaswani et al. 2017, §3.2.2) keeps all of it. 0 for zero outputs.
double averagingLoss(const Tensor3& head_outputs);

/// max |a − b| of the attention weights over every head and the query rows 0 … rows − 1 (all
/// keys). a and b must have the same shape; throws Error(kInvalidArgument) otherwise.
double prefixMaxDifference(const AttentionResult& a, const AttentionResult& b, int rows);

/// Rows (head, query) whose weights hold ±inf or NaN.
int nonFiniteRows(const AttentionResult& result);

/// A number as a caption shows it: "0" for 0; three significant digits ("0.943", "63.2",
/// "1.2e-07" below 0.001); whole numbers from 1000 on ("8192"); ±∞ as "∞", NaN as "—".
QString formatNumber(double value);

}  // namespace attnlab::lessons
