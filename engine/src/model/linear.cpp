// The packed dense product (see linear.hpp): packing, and the split of a product across the
// OpenMP threads. The register-blocked kernel itself is the CPU path's (cpu/dense_kernels.hpp),
// chosen at run time.

#include "model/linear.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <string>

#include "attnlab/error.hpp"
#include "cpu/cpu_path_internal.hpp"

namespace attnlab::linear {

namespace {
constexpr int kP = PackedWeights::kPanel;
}  // namespace

void PackedWeights::Free::operator()(float* p) const { std::free(p); }

void packPanels(const float* w, long long out, long long in, float* dst) {
  const long long panels = (out + kP - 1) / kP;
  // Panel by panel, each written front to back (16 source rows read side by side).
  const double elements = static_cast<double>(out) * static_cast<double>(in);
#pragma omp parallel for schedule(static) if (elements >= (1 << 16) && !omp_in_parallel())
  for (long long p = 0; p < panels; ++p) {
    float* panel = dst + p * in * kP;
    const long long r0 = p * kP;
    const int rows = static_cast<int>(std::min<long long>(kP, out - r0));
    const float* src = w + r0 * in;
    for (long long k = 0; k < in; ++k) {
      float* d = panel + k * kP;
      for (int c = 0; c < rows; ++c) d[c] = src[c * in + k];
      for (int c = rows; c < kP; ++c) d[c] = 0.0f;
    }
  }
}

PackedWeights::PackedWeights(const Matrix& w) : out_(w.rows()), in_(w.cols()) {
  const std::size_t count = static_cast<std::size_t>(packedSize(out_, in_));
  const std::size_t bytes = (std::max<std::size_t>(count, 1) * sizeof(float) + 63) / 64 * 64;
  data_.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
  if (!data_) throw std::bad_alloc();
  packPanels(w.data(), out_, in_, data_.get());
}

Eigen::VectorXf PackedWeights::row(Eigen::Index r) const {
  Eigen::VectorXf v(in_);
  const float* src = data_.get() + (r / kP) * in_ * kP + r % kP;
  for (Eigen::Index k = 0; k < in_; ++k) v[k] = src[k * kP];
  return v;
}

void checkProductShapes(const Matrix& x, Eigen::Index in, Eigen::Index out, const Vector* bias,
                        const Matrix* residual) {
  if (x.cols() != in) {
    throw Error(ErrorCode::kInternal, "dense product: input width " + std::to_string(x.cols()) +
                                          " for weights of width " + std::to_string(in));
  }
  if (bias && bias->size() != out) {
    throw Error(ErrorCode::kInternal, "dense product: bias of " + std::to_string(bias->size()) +
                                          " for " + std::to_string(out) + " outputs");
  }
  if (residual && (residual->rows() != x.rows() || residual->cols() != out)) {
    throw Error(ErrorCode::kInternal, "dense product: residual [" +
                                          std::to_string(residual->rows()) + ", " +
                                          std::to_string(residual->cols()) + "] for output [" +
                                          std::to_string(x.rows()) + ", " + std::to_string(out) + "]");
  }
}

namespace {

/// y = x Wᵀ (+ b when `bias` is not null) (+ r when `residual` is not null), the bias and then
/// the residual added by the kernel to each block's sums in registers before they are stored
/// (the same sums, one addition each in that order, as adding them after the product).
Matrix product(const Matrix& x, const PackedWeights& w, const Vector* bias,
               const Matrix* residual = nullptr) {
  checkProductShapes(x, w.in(), w.out(), bias, residual);
  const Eigen::Index n = x.rows();
  const Eigen::Index out = w.out();
  const Eigen::Index in = w.in();
  Matrix y(n, out);
  if (n == 0 || out == 0) return y;
  const kernels::DenseKernel& kernel = kernels::activeDenseKernel();
  const Eigen::Index step = kernel.block_columns;
  const Eigen::Index blocks = (out + step - 1) / step;
  const double macs = static_cast<double>(n) * in * out;
  const bool parallel = !omp_in_parallel() && omp_get_max_threads() > 1 && macs >= (1 << 18);
  // Threads take whole column blocks (one meeting per product); a block's weights stay in the
  // thread's cache while every row block of x passes over them.
#pragma omp parallel for schedule(static) if (parallel)
  for (Eigen::Index b = 0; b < blocks; ++b) {
    const Eigen::Index c0 = b * step;
    const Eigen::Index c1 = std::min(out, c0 + step);
    kernel.product(x.data(), in, n, w.panel(0), in, c0, c1, y.data(), out,
                   bias ? bias->data() : nullptr, residual ? residual->data() : nullptr);
  }
  return y;
}

}  // namespace

Matrix timesTransposed(const Matrix& x, const PackedWeights& w) { return product(x, w, nullptr); }

Matrix timesTransposed(const Matrix& x, const PackedWeights& w, const Vector& b) {
  if (b.size() != w.out()) {
    throw Error(ErrorCode::kInternal, "dense product: bias of " + std::to_string(b.size()) +
                                          " for " + std::to_string(w.out()) + " outputs");
  }
  return product(x, w, &b);
}

Matrix timesTransposed(const Matrix& x, const PackedWeights& w, const Vector& b,
                       const Matrix& residual) {
  if (b.size() != w.out()) {
    throw Error(ErrorCode::kInternal, "dense product: bias of " + std::to_string(b.size()) +
                                          " for " + std::to_string(w.out()) + " outputs");
  }
  return product(x, w, &b, &residual);
}

}  // namespace attnlab::linear
