#pragma once
/// \file overview.hpp
/// Block-pooled attention weights: what a model view's thumbnail of a long input needs, kept in
/// place of a layer's n × n scores and weights (ModelRunOptions::overview_block).

#include <vector>

#include "attnlab/attention.hpp"

namespace attnlab {

/// The weights of one layer pooled over b × b blocks of (query, key) pairs. Block (I, J) holds
/// queries [I·b, min(n_q, (I+1)·b)) and keys [J·b, min(n_k, (J+1)·b)); only the pairs the
/// layer's mask lets a query see (AttentionResult::pattern()) count, as the window's overview
/// cells count them.
struct PooledAttention {
  int block = 1;  ///< b, tokens per block side (≥ 1).
  int n_q = 0;    ///< Query tokens of the full matrix.
  int n_k = 0;    ///< Key tokens of the full matrix.
  /// The largest visible weight of each block [h, ⌈n_q/b⌉, ⌈n_k/b⌉]; NaN for a block with no
  /// visible pair.
  Tensor3 max;
  /// The mean of the visible weights of each block, same shape; NaN for a block with none.
  Tensor3 mean;
  /// Visible pairs per block [⌈n_q/b⌉ · ⌈n_k/b⌉], row-major (the same for every head): with
  /// them blocks of blocks pool exactly (mean = Σ mean·visible / Σ visible).
  std::vector<int> visible;

  int heads() const { return max.h; }
  int blockRows() const { return max.rows; }
  int blockCols() const { return max.cols; }
  /// Bytes kept for h heads of an n_q × n_k matrix at block b (max, mean, visible counts).
  static long long bytes(int h, int n_q, int n_k, int b);
};

/// Pools result's weights [h, n_q, n_k] over b × b blocks (see PooledAttention). Throws
/// Error(kInvalidArgument) when b < 1 or result holds no weights.
PooledAttention poolWeights(const AttentionResult& result, int block);

}  // namespace attnlab
