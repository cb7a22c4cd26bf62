#pragma once
/// \file linear.hpp
/// Private to the engine: the dense products of the pretrained models' forward passes, split by
/// output columns across the OpenMP threads. Each thread runs one single-threaded Eigen GEMM on its
/// share of the weights (packing only that share), and the threads meet once per product — rather
/// than Eigen's own parallel GEMM, whose threads synchronise by spinning after every panel and lose
/// most of their time when the machine is shared (measured: 2.4 s single-threaded vs 3.5–7 s on
/// 2 threads for SmolLM2 at 512 tokens under load).

#include <omp.h>

#include <algorithm>

#include "attnlab/tensor.hpp"

namespace attnlab::linear {

/// Products smaller than this many multiply-adds run on the calling thread.
constexpr double kParallelMacs = 1 << 18;

/// y = x · opW, with opW [in, out] given as a column-block accessor: block(c0, c) returns the
/// expression of columns [c0, c0 + c) of opW. Shapes: x [n, in], y [n, out].
template <typename Block>
Matrix product(const Matrix& x, Eigen::Index out, Block block) {
  Matrix y(x.rows(), out);
  const double macs = static_cast<double>(x.rows()) * static_cast<double>(x.cols()) * out;
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  if (threads <= 1 || macs < kParallelMacs) {
    y.noalias() = x * block(0, out);
    return y;
  }
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int count = omp_get_num_threads();
    // Column blocks in multiples of 16 floats (one AVX-512 register) so no two threads write
    // into the same cache line of a row except at most once.
    const Eigen::Index chunk = ((out + count - 1) / count + 15) / 16 * 16;
    const Eigen::Index c0 = std::min<Eigen::Index>(out, t * chunk);
    const Eigen::Index c = std::min<Eigen::Index>(chunk, out - c0);
    if (c > 0) y.middleCols(c0, c).noalias() = x * block(c0, c);
  }
  return y;
}

/// y = x Wᵀ for W stored [out, in] (PyTorch's nn.Linear weight). x [n, in] → y [n, out].
inline Matrix timesTransposed(const Matrix& x, const Matrix& w) {
  return product(x, w.rows(), [&](Eigen::Index c0, Eigen::Index c) {
    return w.middleRows(c0, c).transpose();
  });
}

/// y = x W for W stored [in, out]. x [n, in] → y [n, out].
inline Matrix times(const Matrix& x, const Matrix& w) {
  return product(x, w.cols(), [&](Eigen::Index c0, Eigen::Index c) { return w.middleCols(c0, c); });
}

}  // namespace attnlab::linear
