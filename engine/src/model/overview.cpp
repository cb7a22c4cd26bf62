// Block-pooled weights of a layer (see attnlab/overview.hpp).
#include "attnlab/overview.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include <omp.h>

#include "attnlab/error.hpp"

namespace attnlab {

namespace {
int blocksOf(int n, int b) { return (n + b - 1) / b; }

/// Calls f(c, j0, j1) for each block c of `block` keys that the span [lo, hi) meets, with the
/// span's part [j0, j1) of it.
template <typename F>
void forSpanBlocks(int lo, int hi, int block, F&& f) {
  for (int c = lo / block; c * block < hi; ++c)
    f(c, std::max(lo, c * block), std::min(hi, (c + 1) * block));
}
}  // namespace

long long PooledAttention::bytes(int h, int n_q, int n_k, int b) {
  const long long cells = static_cast<long long>(blocksOf(n_q, b)) * blocksOf(n_k, b);
  return cells * (2LL * h * 4 + 4);
}

PooledAttention poolWeights(const AttentionResult& result, int block) {
  if (block < 1) throw Error(ErrorCode::kInvalidArgument, "the pooling block must be at least 1");
  const Tensor3& w = result.weights;
  if (w.h <= 0 || w.rows <= 0 || w.cols <= 0) {
    throw Error(ErrorCode::kInvalidArgument, "there are no weights to pool");
  }
  const int h = w.h, n_q = w.rows, n_k = w.cols;
  const int rb = blocksOf(n_q, block), cb = blocksOf(n_k, block);
  PooledAttention p;
  p.block = block;
  p.n_q = n_q;
  p.n_k = n_k;
  constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
  p.max = Tensor3(h, rb, cb, -std::numeric_limits<float>::infinity());
  p.mean = Tensor3(h, rb, cb, 0.0f);
  p.visible.assign(static_cast<std::size_t>(rb) * cb, 0);
  const MaskPattern pattern = result.pattern();
  const bool contiguous = pattern.contiguous();
  // Visible counts first (one pass over the pattern, the same for every head).
  for (int i = 0; i < n_q; ++i) {
    int* counts = p.visible.data() + static_cast<std::size_t>(i / block) * cb;
    if (contiguous) {
      const auto [lo, hi] = pattern.span(i, n_k);
      forSpanBlocks(lo, hi, block, [&](int c, int j0, int j1) { counts[c] += j1 - j0; });
    } else {
      for (int j = 0; j < n_k; ++j)
        if (pattern.visible(i, j)) ++counts[j / block];
    }
  }
  // Block rows of every head in parallel: each writes only its own row of max and mean.
  const long long tasks = static_cast<long long>(h) * rb;
#pragma omp parallel for schedule(dynamic, 1) if (!omp_in_parallel() && w.data.size() >= (1u << 16))
  for (long long t = 0; t < tasks; ++t) {
    const int k = static_cast<int>(t / rb), bi = static_cast<int>(t % rb);
    std::vector<double> sums(static_cast<std::size_t>(cb), 0.0);
    float* mx = p.max.row(k, bi);
    for (int i = bi * block; i < std::min(n_q, (bi + 1) * block); ++i) {
      const float* row = w.row(k, i);
      if (contiguous) {
        // Block by block over the row's span: a plain loop per block (float within a block of at
        // most b weights, double across the block's rows).
        const auto [lo, hi] = pattern.span(i, n_k);
        forSpanBlocks(lo, hi, block, [&](int c, int j0, int j1) {
          float sum = 0, top = mx[c];
          for (int j = j0; j < j1; ++j) {
            sum += row[j];
            top = std::max(top, row[j]);
          }
          sums[c] += sum;
          mx[c] = top;
        });
      } else {
        for (int j = 0; j < n_k; ++j) {
          if (!pattern.visible(i, j)) continue;
          sums[j / block] += row[j];
          mx[j / block] = std::max(mx[j / block], row[j]);
        }
      }
    }
    float* mean = p.mean.row(k, bi);
    const int* counts = p.visible.data() + static_cast<std::size_t>(bi) * cb;
    for (int c = 0; c < cb; ++c) {
      if (counts[c] == 0) {
        mx[c] = kNan;
        mean[c] = kNan;
      } else {
        mean[c] = static_cast<float>(sums[c] / counts[c]);
      }
    }
  }
  return p;
}

}  // namespace attnlab
