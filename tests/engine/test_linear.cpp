// The packed dense product of the model forward passes (engine/src/model/linear.hpp) equals
// Eigen's product over shapes that cover every edge of its blocking: rows not a multiple of 6,
// outputs not a multiple of 16 or 32, one input column, one row.

#include <catch2/catch.hpp>

#include "model/linear.hpp"

using namespace attnlab;

TEST_CASE("the packed product equals x Wᵀ for every blocking edge", "[linear]") {
  const int n = GENERATE(1, 5, 6, 7, 13, 64);
  const int out = GENERATE(1, 15, 16, 17, 32, 33, 100);
  const int in = GENERATE(1, 3, 64);
  Matrix x(n, in), w(out, in);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < in; ++k) x(i, k) = std::sin(0.37f * i + 1.1f * k);
  for (int r = 0; r < out; ++r)
    for (int k = 0; k < in; ++k) w(r, k) = std::cos(0.53f * r - 0.7f * k);
  const linear::PackedWeights packed(w);
  CHECK(packed.out() == out);
  CHECK(packed.in() == in);
  const Matrix got = linear::timesTransposed(x, packed);
  const Matrix expected = x * w.transpose();
  REQUIRE(got.rows() == n);
  REQUIRE(got.cols() == out);
  CHECK((got - expected).cwiseAbs().maxCoeff() <= 1e-5f * in);
  Vector b = Vector::LinSpaced(out, -1, 1);
  const Matrix with_bias = linear::timesTransposed(x, packed, b);
  CHECK((with_bias - (expected.rowwise() + b.transpose())).cwiseAbs().maxCoeff() <= 1e-5f * in);
  CHECK(packed.row(out - 1).isApprox(w.row(out - 1).transpose()));
}

TEST_CASE("the packed product refuses an input of the wrong width", "[linear]") {
  const linear::PackedWeights packed(Matrix::Ones(4, 3));
  CHECK_THROWS(linear::timesTransposed(Matrix::Ones(2, 5), packed));
}
