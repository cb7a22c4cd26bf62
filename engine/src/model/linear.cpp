// The packed dense product (see linear.hpp). The kernel uses GCC/Clang vector extensions of 16
// floats, which the compiler maps to one AVX-512 register, two AVX registers or four SSE ones;
// this file is compiled with -ffp-contract=fast so that each y += x·w is one fused multiply-add.

#include "model/linear.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "attnlab/error.hpp"

namespace attnlab::linear {
namespace {

using V16 = float __attribute__((vector_size(64)));
constexpr int kP = PackedWeights::kPanel;
constexpr int kRows = 8;  // rows of x per step: 8 × 2 panels = 16 accumulators

inline V16 load(const float* p) {
  V16 v;
  std::memcpy(&v, p, sizeof v);  // the panels are aligned; memcpy keeps the compiler honest
  return v;
}

/// Rows [0, R) of x (row stride ldx) times `panels` (1 or 2) consecutive panels of W; writes
/// `cols` (≤ 16·panels) columns of y (row stride ldy).
template <int R, int Panels>
void block(const float* x, Eigen::Index ldx, const float* w, Eigen::Index in, float* y,
           Eigen::Index ldy, int cols) {
  V16 acc[R][Panels] = {};
  const float* w1 = w + (Panels > 1 ? in * kP : 0);
  for (Eigen::Index k = 0; k < in; ++k) {
    const V16 a = load(w + k * kP);
    const V16 b = Panels > 1 ? load(w1 + k * kP) : a;
    for (int r = 0; r < R; ++r) {
      const float xr = x[r * ldx + k];
      acc[r][0] += xr * a;
      if constexpr (Panels > 1) acc[r][1] += xr * b;
    }
  }
  for (int r = 0; r < R; ++r) {
    float out[kP * Panels];
    for (int p = 0; p < Panels; ++p) std::memcpy(out + p * kP, &acc[r][p], sizeof(V16));
    std::memcpy(y + r * ldy, out, static_cast<std::size_t>(cols) * sizeof(float));
  }
}

template <int Panels>
void rowsBlock(int rows, const float* x, Eigen::Index ldx, const float* w, Eigen::Index in,
               float* y, Eigen::Index ldy, int cols) {
  switch (rows) {
    case 8:
      return block<8, Panels>(x, ldx, w, in, y, ldy, cols);
    case 7:
      return block<7, Panels>(x, ldx, w, in, y, ldy, cols);
    case 6:
      return block<6, Panels>(x, ldx, w, in, y, ldy, cols);
    case 5:
      return block<5, Panels>(x, ldx, w, in, y, ldy, cols);
    case 4:
      return block<4, Panels>(x, ldx, w, in, y, ldy, cols);
    case 3:
      return block<3, Panels>(x, ldx, w, in, y, ldy, cols);
    case 2:
      return block<2, Panels>(x, ldx, w, in, y, ldy, cols);
    default:
      return block<1, Panels>(x, ldx, w, in, y, ldy, cols);
  }
}

}  // namespace

void PackedWeights::Free::operator()(float* p) const { std::free(p); }

PackedWeights::PackedWeights(const Matrix& w) : out_(w.rows()), in_(w.cols()) {
  const Eigen::Index panels = (out_ + kP - 1) / kP;
  const std::size_t count = static_cast<std::size_t>(panels * in_ * kP);
  const std::size_t bytes = (std::max<std::size_t>(count, 1) * sizeof(float) + 63) / 64 * 64;
  data_.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
  if (!data_) throw std::bad_alloc();
  // Panel by panel, each written front to back (16 source rows read side by side).
  const double elements = static_cast<double>(out_) * static_cast<double>(in_);
#pragma omp parallel for schedule(static) if (elements >= (1 << 16))
  for (Eigen::Index p = 0; p < panels; ++p) {
    float* dst = data_.get() + p * in_ * kP;
    const Eigen::Index r0 = p * kP;
    const int rows = static_cast<int>(std::min<Eigen::Index>(kP, out_ - r0));
    const float* src = w.data() + r0 * in_;
    for (Eigen::Index k = 0; k < in_; ++k) {
      float* d = dst + k * kP;
      for (int c = 0; c < rows; ++c) d[c] = src[c * in_ + k];
      for (int c = rows; c < kP; ++c) d[c] = 0.0f;
    }
  }
}

Eigen::VectorXf PackedWeights::row(Eigen::Index r) const {
  Eigen::VectorXf v(in_);
  const float* src = data_.get() + (r / kP) * in_ * kP + r % kP;
  for (Eigen::Index k = 0; k < in_; ++k) v[k] = src[k * kP];
  return v;
}

Matrix timesTransposed(const Matrix& x, const PackedWeights& w) {
  if (x.cols() != w.in()) {
    throw Error(ErrorCode::kInternal, "dense product: input width " + std::to_string(x.cols()) +
                                          " for weights of width " + std::to_string(w.in()));
  }
  const Eigen::Index n = x.rows();
  const Eigen::Index out = w.out();
  const Eigen::Index in = w.in();
  Matrix y(n, out);
  const Eigen::Index pairs = (out + 2 * kP - 1) / (2 * kP);  // steps of two panels
  const double macs = static_cast<double>(n) * in * out;
  const bool parallel = !omp_in_parallel() && omp_get_max_threads() > 1 && macs >= (1 << 18);
#pragma omp parallel for schedule(static) if (parallel)
  for (Eigen::Index q = 0; q < pairs; ++q) {
    const Eigen::Index c0 = q * 2 * kP;
    const int cols = static_cast<int>(std::min<Eigen::Index>(2 * kP, out - c0));
    const float* panels = w.panel(c0 / kP);
    for (Eigen::Index r0 = 0; r0 < n; r0 += kRows) {
      const int rows = static_cast<int>(std::min<Eigen::Index>(kRows, n - r0));
      const float* xr = x.data() + r0 * in;
      float* yr = y.data() + r0 * out + c0;
      if (cols > kP) {
        rowsBlock<2>(rows, xr, in, panels, in, yr, out, cols);
      } else {
        rowsBlock<1>(rows, xr, in, panels, in, yr, out, cols);
      }
    }
  }
  return y;
}

Matrix timesTransposed(const Matrix& x, const PackedWeights& w, const Vector& b) {
  Matrix y = timesTransposed(x, w);
  y.rowwise() += b.transpose();
  return y;
}

}  // namespace attnlab::linear
