// The packed dense product of the model forward passes (engine/src/model/linear.hpp) equals
// x Wᵀ formed in double, on every CPU path this machine supports (cpu/dense_kernels.hpp) and
// through the dispatched entry point, over shapes that cover every edge of each path's blocking:
// rows not a multiple of 3, 6 or 12, outputs not a multiple of 16 or 32, one input column, one
// row. Tolerance: each output is a sum of `in` float products; float32 accumulation in any order
// (with or without fused multiply-adds) stays within in · 2⁻²³ · Σ|x_k w_k| of the exact sum
// (Higham, Accuracy and Stability of Numerical Algorithms, 2002, eq. 3.5), so the check is
// |got − exact| ≤ 2 · in · 2⁻²³ · Σ|x_k w_k| + 1e-30.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>

#include "attnlab/cpu_path.hpp"
#include "attnlab/error.hpp"
#include "cpu/cpu_path_internal.hpp"
#include "model/linear.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_linear {

using namespace attnlab;

namespace {

void fill(Matrix& x, Matrix& w) {
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index k = 0; k < x.cols(); ++k) x(i, k) = std::sin(0.37f * i + 1.1f * k);
  for (Eigen::Index r = 0; r < w.rows(); ++r)
    for (Eigen::Index k = 0; k < w.cols(); ++k) w(r, k) = std::cos(0.53f * r - 0.7f * k);
}

/// Largest |got − exact| / bound over the product (≤ 1 passes).
double worstRatio(const Matrix& got, const Matrix& x, const Matrix& w) {
  const Eigen::MatrixXd xd = x.cast<double>(), wd = w.cast<double>();
  const Eigen::MatrixXd exact = xd * wd.transpose();
  const Eigen::MatrixXd magnitude = xd.cwiseAbs() * wd.cwiseAbs().transpose();
  const double u = std::ldexp(1.0, -23);
  double worst = 0;
  for (Eigen::Index i = 0; i < exact.rows(); ++i)
    for (Eigen::Index j = 0; j < exact.cols(); ++j) {
      const double bound = 2.0 * x.cols() * u * magnitude(i, j) + 1e-30;
      worst = std::max(worst, std::abs(got(i, j) - exact(i, j)) / bound);
    }
  return worst;
}

}  // namespace

TEST_CASE("the packed product equals x Wᵀ for every blocking edge", "[linear]") {
  const int n = GENERATE(1, 2, 5, 6, 7, 12, 13, 25, 64);
  const int out = GENERATE(1, 15, 16, 17, 32, 33, 100);
  const int in = GENERATE(1, 3, 64);
  Matrix x(n, in), w(out, in);
  fill(x, w);
  const linear::PackedWeights packed(w);
  CHECK(packed.out() == out);
  CHECK(packed.in() == in);
  const Matrix got = linear::timesTransposed(x, packed);
  REQUIRE(got.rows() == n);
  REQUIRE(got.cols() == out);
  CHECK(worstRatio(got, x, w) <= 1.0);
  Vector b = Vector::LinSpaced(out, -1, 1);
  const Matrix with_bias = linear::timesTransposed(x, packed, b);
  CHECK((with_bias - (got.rowwise() + b.transpose())).cwiseAbs().maxCoeff() == 0.0f);
  // The skip connection added by the kernel before its store: the same two float additions, in
  // the same order, as adding the bias and then the residual to the product afterwards.
  const Matrix residual = Matrix::NullaryExpr(n, out, [](Eigen::Index i, Eigen::Index j) {
    return std::sin(0.3f * float(i) - 0.9f * float(j)) * 3.0f;
  });
  const Matrix with_residual = linear::timesTransposed(x, packed, b, residual);
  CHECK((with_residual - (with_bias + residual)).cwiseAbs().maxCoeff() == 0.0f);
  CHECK(packed.row(out - 1).isApprox(w.row(out - 1).transpose()));
}

TEST_CASE("every CPU path's dense kernel equals x Wᵀ at every blocking edge", "[linear][cpu-path]") {
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::DenseKernel& kernel = kernels::denseKernel(path);
    INFO("path " << toString(path) << ": " << kernel.block_rows << " rows × "
                 << kernel.block_columns << " columns");
    REQUIRE(kernel.block_columns % linear::PackedWeights::kPanel == 0);
    for (const int n : {1, 2, 3, 5, 6, 7, 11, 12, 13, 25, 37}) {
      for (const int out : {1, 15, 16, 17, 31, 32, 33, 48, 100}) {
        for (const int in : {1, 3, 64, 129}) {
          Matrix x(n, in), w(out, in);
          fill(x, w);
          const linear::PackedWeights packed(w);
          Matrix y = Matrix::Constant(n, out, std::nanf(""));
          const long step = kernel.block_columns;
          for (long c0 = 0; c0 < out; c0 += step)
            kernel.product(x.data(), in, n, packed.panel(0), in, c0,
                           std::min<long>(out, c0 + step), y.data(), out, nullptr, nullptr);
          INFO("n " << n << ", out " << out << ", in " << in);
          REQUIRE(y.allFinite());  // every cell written, nothing past the end
          CHECK(worstRatio(y, x, w) <= 1.0);
          // Bias, then residual, added in the kernel: bit for bit the additions made afterwards.
          const Vector b = Vector::LinSpaced(out, -2, 3);
          const Matrix residual = x.leftCols(1).replicate(1, out) * 0.5f;
          Matrix z = Matrix::Constant(n, out, std::nanf(""));
          for (long c0 = 0; c0 < out; c0 += step)
            kernel.product(x.data(), in, n, packed.panel(0), in, c0, std::min<long>(out, c0 + step),
                           z.data(), out, b.data(), residual.data());
          const Matrix expected = (y.rowwise() + b.transpose()) + residual;
          CHECK((z.array() == expected.array()).all());
        }
      }
    }
  }
}

TEST_CASE("the FMA chains of every CPU path run and give finite sums", "[linear][cpu-path]") {
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::DenseKernel& kernel = kernels::denseKernel(path);
    INFO("path " << toString(path));
    CHECK(std::isfinite(kernel.chains(1000, 1.0f)));
    CHECK(kernel.lanes >= 4);
    CHECK(kernel.chain_count >= 8);
  }
}

TEST_CASE("the CPU path in use is one this CPU supports, and named", "[linear][cpu-path]") {
  const CpuPath active = activeCpuPath();
  CHECK(active <= bestCpuPath());
  CHECK(supportedCpuPaths().front() == CpuPath::kBaseline);
  CHECK(supportedCpuPaths().back() == bestCpuPath());
  const std::string line = describeCpuPath();
  CHECK(line.rfind(toString(active), 0) == 0);
  const char* forced = std::getenv("ATTNLAB_CPU_PATH");
  if (forced != nullptr && *forced != '\0') {
    CHECK(toString(active) == forced);
    CHECK(line.find("forced by ATTNLAB_CPU_PATH") != std::string::npos);
  } else {
    CHECK(active == bestCpuPath());
  }
  CHECK_THROWS_AS(kernels::denseKernel(static_cast<CpuPath>(static_cast<int>(bestCpuPath()) + 1)),
                  Error);
}

TEST_CASE("the packed product refuses an input of the wrong width", "[linear]") {
  const linear::PackedWeights packed(Matrix::Ones(4, 3));
  CHECK_THROWS(linear::timesTransposed(Matrix::Ones(2, 5), packed));
}

}  // namespace attnlab_test_linear
