#pragma once
/// \file tensor.hpp
/// Storage types shared by the engine: row-major float matrices and a contiguous 3-D tensor
/// [h, rows, cols] whose per-head slices are viewed as Eigen matrices without copying.

// GCC 12's AVX-512 intrinsics (avx512fintrin.h: `__m512 __Y = __Y;`) raise -Wmaybe-uninitialized
// wherever Eigen's packet code inlines them (GCC bug 105593, fixed in GCC 13): ~900 warnings per
// build with -march=native on an AVX-512 machine. Eigen is a system header (-isystem) but that
// does not cover inlined intrinsics, so the warning is switched off for the headers parsed here —
// the intrinsics and Eigen, whose first inclusion is this one — and stays on for our own code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <Eigen/Core>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <cstddef>
#include <vector>

namespace attnlab {

/// Row-major float32 matrix, the engine's working precision.
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// Column vector of float32.
using Vector = Eigen::VectorXf;

/// A dense float tensor of shape [h, rows, cols], row-major and contiguous (element (k, i, j) at
/// data[(k * rows + i) * cols + j]); the layout NPY files and OpenCL buffers use.
struct Tensor3 {
  int h = 0;
  int rows = 0;
  int cols = 0;
  std::vector<float> data;

  Tensor3() = default;
  Tensor3(int h_, int rows_, int cols_, float fill = 0.0f)
      : h(h_), rows(rows_), cols(cols_),
        data(static_cast<std::size_t>(h_) * rows_ * cols_, fill) {}

  /// Slice k as a [rows, cols] row-major matrix view (no copy).
  Eigen::Map<Matrix> head(int k) {
    return Eigen::Map<Matrix>(data.data() + static_cast<std::size_t>(k) * rows * cols, rows, cols);
  }
  /// Read-only slice k as a [rows, cols] row-major matrix view (no copy).
  Eigen::Map<const Matrix> head(int k) const {
    return Eigen::Map<const Matrix>(data.data() + static_cast<std::size_t>(k) * rows * cols, rows,
                                    cols);
  }
  /// Pointer to row i of slice k (cols contiguous floats).
  float* row(int k, int i) { return data.data() + (static_cast<std::size_t>(k) * rows + i) * cols; }
  const float* row(int k, int i) const {
    return data.data() + (static_cast<std::size_t>(k) * rows + i) * cols;
  }
  float& operator()(int k, int i, int j) {
    return data[(static_cast<std::size_t>(k) * rows + i) * cols + j];
  }
  float operator()(int k, int i, int j) const {
    return data[(static_cast<std::size_t>(k) * rows + i) * cols + j];
  }
};

}  // namespace attnlab
