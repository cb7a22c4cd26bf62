#pragma once
/// \file rollout.hpp
/// Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", §3):
/// how much each input token contributes to each position after several layers, following the
/// attention through the residual connections. Per layer l the heads' attention weights are
/// averaged, Ā_l = (1/h)·Σ_k P_l,k; the residual is added as Â_l = (1 − r)·Ā_l + r·I (the paper's
/// r = 0.5) and each row renormalised to sum 1; the rollout multiplies the layers,
/// R_l = Â_l · R_{l−1} with R_0 = Â_0. Averaging the heads is the paper's choice, not the only
/// one (heads differ; the maximum or a weighting are others) — pictures say so.

#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

/// The rollout through `layers` (in layer order, the first one applied first): each a
/// self-attention result with weights [h, n, n]. `residual` is r in [0, 1]. Returns R [n, n]
/// (float32, computed in double): row i is position i after the last layer, column j the input
/// token j; every row sums to 1 (a row of a layer with no visible key is taken as the identity's).
/// Throws Error(kInvalidArgument) when layers is empty, a result is not square, the layers
/// differ in n, or residual is outside [0, 1].
Matrix attentionRollout(const std::vector<AttentionResult>& layers, double residual = 0.5);

}  // namespace attnlab
