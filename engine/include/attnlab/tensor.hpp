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
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace attnlab {

/// Row-major float32 matrix, the engine's working precision.
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// Column vector of float32.
using Vector = Eigen::VectorXf;

/// std::allocator that default-initialises what a container value-initialises: a
/// std::vector<float, DefaultInitAllocator<float>> grown by resize(n) leaves the new floats
/// unwritten (no zero-fill the caller then overwrites); constructors given a value still write it.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using std::allocator<T>::allocator;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// The storage of Tensor3: floats whose growth need not zero them (DefaultInitAllocator).
using FloatStore = std::vector<float, DefaultInitAllocator<float>>;

/// A dense float tensor of shape [h, rows, cols], row-major and contiguous (element (k, i, j) at
/// data[(k * rows + i) * cols + j]); the layout NPY files and OpenCL buffers use.
struct Tensor3 {
  int h = 0;
  int rows = 0;
  int cols = 0;
  FloatStore data;

  /// Tag of the constructor that leaves the elements unwritten.
  struct Unfilled {};

  Tensor3() = default;
  Tensor3(int h_, int rows_, int cols_, float fill = 0.0f)
      : h(h_), rows(rows_), cols(cols_),
        data(static_cast<std::size_t>(h_) * rows_ * cols_, fill) {}
  /// [h, rows, cols] with unspecified elements, for a caller that writes every one of them (no
  /// zero-fill of a buffer about to be overwritten).
  Tensor3(int h_, int rows_, int cols_, Unfilled) : h(h_), rows(rows_), cols(cols_) {
    data.resize(static_cast<std::size_t>(h_) * rows_ * cols_);
  }

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
