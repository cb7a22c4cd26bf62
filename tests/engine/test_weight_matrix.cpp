// Weights as stored (engine/src/model/weight_matrix.hpp, cpu/quant_kernels.hpp) on every CPU path
// this machine supports, for every type the engine reads, over the blocks of the gguf Python
// package's golden (tests/data/quants: random blocks of each type and their dequantised values):
// - every path's dequantisation equals the package's values bit for bit;
// - the one-row kernel multiplies exactly those weights (x = e_k gives W[r, k] · 1 summed with
//   zeros, which is exact) and equals x · Wᵀ formed in double from them within the bound of
//   float32 summation in any order, fused multiply-adds or not: in · 2⁻²³ · Σ|x_k w_k| (Higham
//   2002, eq. 3.5), checked with a factor 2 as test_linear.cpp does;
// - a product of several rows over the stored weights equals, bit for bit, the same path's dense
//   kernel over the dequantised matrix packed once — with bias and skip connection, at shapes
//   that cross the kernels' row and column blocks — which is what the models computed when they
//   dequantised at load;
// - mixed types in one matrix, the rotate-half row index, one-row look-ups and the refusals.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "attnlab/cpu_path.hpp"
#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/positions.hpp"
#include "attnlab/safetensors.hpp"
#include "cpu/cpu_path_internal.hpp"
#include "model/linear.hpp"
#include "model/weight_matrix.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_weight_matrix {

using namespace attnlab;

namespace {

const std::filesystem::path kData = ATTNLAB_TEST_DATA_DIR;

struct Golden {
  const char* name;
  std::uint32_t type;
  kernels::QuantType kernels::QuantKernel::*kernel;
  bool plain;  ///< F32, F16, BF16: rows of any length
};

constexpr Golden kTypes[] = {
    {"F32", 0, &kernels::QuantKernel::f32, true},
    {"F16", 1, &kernels::QuantKernel::f16, true},
    {"BF16", 30, &kernels::QuantKernel::bf16, true},
    {"Q4_0", 2, &kernels::QuantKernel::q4_0, false},
    {"Q4_1", 3, &kernels::QuantKernel::q4_1, false},
    {"Q5_0", 6, &kernels::QuantKernel::q5_0, false},
    {"Q5_1", 7, &kernels::QuantKernel::q5_1, false},
    {"Q8_0", 8, &kernels::QuantKernel::q8_0, false},
    {"Q2_K", 10, &kernels::QuantKernel::q2_k, false},
    {"Q3_K", 11, &kernels::QuantKernel::q3_k, false},
    {"Q4_K", 12, &kernels::QuantKernel::q4_k, false},
    {"Q5_K", 13, &kernels::QuantKernel::q5_k, false},
    {"Q6_K", 14, &kernels::QuantKernel::q6_k, false},
    {"IQ4_NL", 20, &kernels::QuantKernel::iq4_nl, false},
    {"IQ4_XS", 23, &kernels::QuantKernel::iq4_xs, false},
};

const Golden& typeNamed(const char* name) {
  for (const Golden& g : kTypes)
    if (std::string(g.name) == name) return g;
  throw Error(ErrorCode::kInternal, name);
}

const SafeTensors& golden() {
  static const SafeTensors file(kData / "quants/dequant.safetensors");
  return file;
}

Eigen::Index countOf(const Golden& g) {
  return nlohmann::json::parse(golden().metadata().at("counts")).at(g.name).get<Eigen::Index>();
}

const unsigned char* bytesOf(const Golden& g) {
  return reinterpret_cast<const unsigned char*>(golden().tensor(std::string(g.name) + ".bytes").data);
}

/// The golden's first `rows` rows of `in` elements of type g, as stored.
linear::StoredRows storedOf(const Golden& g, Eigen::Index rows, Eigen::Index in) {
  const GgmlTypeInfo* info = ggmlTypeInfo(g.type);
  linear::StoredRows s;
  s.type = g.type;
  s.rows = rows;
  s.cols = in;
  s.data = bytesOf(g);
  s.row_bytes = static_cast<std::size_t>(in / info->block_elements * info->block_bytes);
  s.name = g.name;
  return s;
}

/// The golden's dequantised values as a [rows, in] matrix.
Matrix valuesOf(const Golden& g, Eigen::Index rows, Eigen::Index in) {
  const std::vector<float> v = golden().floats(std::string(g.name) + ".values");
  REQUIRE(static_cast<Eigen::Index>(v.size()) >= rows * in);
  return Eigen::Map<const Matrix>(v.data(), rows, in);
}

/// The row length of the shape tests: two blocks, or 45 elements of a plain type (not a
/// multiple of any vector width).
Eigen::Index widthOf(const Golden& g) { return g.plain ? 45 : 2 * ggmlTypeInfo(g.type)->block_elements; }

bool sameBits(float a, float b) {
  std::uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return x == y || (std::isnan(a) && std::isnan(b));
}

/// True for a row of ordinary weights (the plain types' goldens also hold ±inf, NaN and
/// float32's largest values on purpose, whose sums overflow).
bool ordinary(const Matrix& w, Eigen::Index r) {
  return w.row(r).allFinite() && w.row(r).cwiseAbs().maxCoeff() <= 1e30f;
}

/// Largest |got − exact| / bound of y = x · Wᵀ (≤ 1 passes).
double worstRatio(const float* got, const Eigen::VectorXf& x, const Matrix& w) {
  const Eigen::VectorXd xd = x.cast<double>();
  const Eigen::MatrixXd wd = w.cast<double>();
  const Eigen::VectorXd exact = wd * xd;
  const Eigen::VectorXd magnitude = wd.cwiseAbs() * xd.cwiseAbs();
  const double u = std::ldexp(1.0, -23);
  double worst = 0;
  for (Eigen::Index r = 0; r < w.rows(); ++r) {
    const double bound = 2.0 * static_cast<double>(w.cols()) * u * magnitude[r] + 1e-30;
    worst = std::max(worst, std::abs(got[r] - exact[r]) / bound);
  }
  return worst;
}

/// The same path's dense kernel over w packed once: what the models computed before they kept
/// their weights as stored.
Matrix packedProduct(const kernels::DenseKernel& kernel, const Matrix& x, const Matrix& w,
                     const Vector* bias, const Matrix* residual) {
  const linear::PackedWeights packed(w);
  Matrix y(x.rows(), w.rows());
  const long step = kernel.block_columns, out = w.rows(), in = w.cols();
  for (long c0 = 0; c0 < out; c0 += step)
    kernel.product(x.data(), in, x.rows(), packed.panel(0), in, c0, std::min(out, c0 + step),
                   y.data(), out, bias ? bias->data() : nullptr,
                   residual ? residual->data() : nullptr);
  return y;
}

Matrix inputs(Eigen::Index n, Eigen::Index in) {
  return Matrix::NullaryExpr(n, in, [](Eigen::Index i, Eigen::Index k) {
    return std::sin(0.37f * static_cast<float>(i) + 0.11f * static_cast<float>(k) + 0.2f);
  });
}

}  // namespace

TEST_CASE("every path dequantises every stored type to the package's values bit for bit",
          "[linear][quant][cpu-path]") {
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::QuantKernel& kernel = kernels::quantKernel(path);
    for (const Golden& g : kTypes) {
      INFO("path " << toString(path) << ", " << g.name);
      const std::vector<float> expected = golden().floats(std::string(g.name) + ".values");
      REQUIRE(static_cast<Eigen::Index>(expected.size()) == countOf(g));
      std::vector<float> got(expected.size() + 1, -12345.0f);
      (kernel.*g.kernel).dequantise(bytesOf(g), static_cast<long>(expected.size()), got.data());
      std::size_t mismatches = 0;
      for (std::size_t i = 0; i < expected.size(); ++i) mismatches += sameBits(got[i], expected[i]) ? 0 : 1;
      CHECK(mismatches == 0);
      CHECK(got.back() == -12345.0f);  // nothing written past the count
    }
  }
}

TEST_CASE("the one-row kernels multiply the package's dequantised weights bit for bit",
          "[linear][quant][cpu-path]") {
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::QuantKernel& kernel = kernels::quantKernel(path);
    for (const Golden& g : kTypes) {
      INFO("path " << toString(path) << ", " << g.name);
      // One block per row (a plain type: 7 elements, shorter than any vector).
      const Eigen::Index in = g.plain ? 7 : ggmlTypeInfo(g.type)->block_elements;
      const Eigen::Index rows = countOf(g) / in;
      const linear::StoredRows t = storedOf(g, rows, in);
      const Matrix w = valuesOf(g, rows, in);
      std::size_t mismatches = 0;
      for (Eigen::Index k = 0; k < in; ++k) {
        Eigen::VectorXf x = Eigen::VectorXf::Zero(in), y = Eigen::VectorXf::Constant(rows, NAN);
        x[k] = 1.0f;
        (kernel.*g.kernel).product(t.data, static_cast<long>(t.row_bytes), in, x.data(), 0, rows,
                                   y.data());
        for (Eigen::Index r = 0; r < rows; ++r) {
          // 0 · inf is NaN: a plain type's infinite weights make every other product of their
          // row NaN; compare only rows whose weights are all finite. Equal as floats: a weight
          // −0 (a zero scale) sums to +0.
          if (!w.row(r).allFinite()) continue;
          mismatches += y[r] == w(r, k) ? 0 : 1;
        }
      }
      CHECK(mismatches == 0);
    }
  }
}

TEST_CASE("the one-row kernels equal x · Wᵀ of the dequantised weights, every path and size",
          "[linear][quant][cpu-path]") {
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::QuantKernel& kernel = kernels::quantKernel(path);
    for (const Golden& g : kTypes) {
      const Eigen::Index block = g.plain ? 17 : ggmlTypeInfo(g.type)->block_elements;
      for (const int blocks : {1, 3, 5}) {
        const Eigen::Index in = blocks * block;
        const Eigen::Index rows = countOf(g) / in;
        INFO("path " << toString(path) << ", " << g.name << ", " << rows << " × " << in);
        const linear::StoredRows t = storedOf(g, rows, in);
        const Matrix w = valuesOf(g, rows, in);
        Eigen::VectorXf x(in);
        for (Eigen::Index k = 0; k < in; ++k) x[k] = std::sin(0.37f * static_cast<float>(k) + 0.2f);
        // Odd row ranges: a thread's share starts and ends anywhere.
        Eigen::VectorXf y = Eigen::VectorXf::Constant(rows, NAN);
        const long cut = rows / 3;
        const auto row_bytes = static_cast<long>(t.row_bytes);
        (kernel.*g.kernel).product(t.data, row_bytes, in, x.data(), 0, cut, y.data());
        (kernel.*g.kernel).product(t.data, row_bytes, in, x.data(), cut, rows, y.data() + cut);
        for (Eigen::Index r = 0; r < rows; ++r) {
          if (!ordinary(w, r)) continue;
          INFO("row " << r);
          REQUIRE(std::isfinite(y[r]));
          CHECK(worstRatio(y.data() + r, x, w.row(r)) <= 1.0);
        }
      }
    }
  }
}

TEST_CASE("a product over stored weights equals the dequantised matrix's, bit for bit, every type "
          "and path",
          "[linear][quant][cpu-path]") {
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::DenseKernel& dense = kernels::denseKernel(path);
    for (const Golden& g : kTypes) {
      const Eigen::Index in = widthOf(g);
      // Rows that are not a multiple of 16 or 32: the last column block is partial.
      const Eigen::Index out = std::min<Eigen::Index>(37, countOf(g) / in);
      const linear::WeightMatrix w(storedOf(g, out, in));
      const Matrix dequantised = valuesOf(g, out, in);
      REQUIRE(w.out() == out);
      REQUIRE(w.in() == in);
      CHECK(w.bytes() == static_cast<std::size_t>(out) * storedOf(g, out, in).row_bytes);
      const Vector bias = Vector::LinSpaced(out, -2, 3);
      for (const int n : {2, 5, 13, 29}) {
        INFO("path " << toString(path) << ", " << g.name << ", x [" << n << ", " << in
                     << "] · W [" << out << ", " << in << "]ᵀ");
        const Matrix x = inputs(n, in);
        const Matrix residual = inputs(n, out) * 3.0f;
        const Matrix got = linear::timesTransposedOn(path, x, w, &bias, &residual);
        const Matrix expected = packedProduct(dense, x, dequantised, &bias, &residual);
        std::size_t mismatches = 0;
        for (Eigen::Index i = 0; i < n; ++i)
          for (Eigen::Index j = 0; j < out; ++j) mismatches += sameBits(got(i, j), expected(i, j)) ? 0 : 1;
        CHECK(mismatches == 0);
        const Matrix plain = linear::timesTransposedOn(path, x, w);
        const Matrix plain_expected = packedProduct(dense, x, dequantised, nullptr, nullptr);
        mismatches = 0;
        for (Eigen::Index i = 0; i < n; ++i)
          for (Eigen::Index j = 0; j < out; ++j) mismatches += sameBits(plain(i, j), plain_expected(i, j)) ? 0 : 1;
        CHECK(mismatches == 0);
      }
      // One row: the one-row kernel (another order of the same sums).
      const Matrix x = inputs(1, in);
      const Matrix one = linear::timesTransposedOn(path, x, w);
      for (Eigen::Index r = 0; r < out; ++r) {
        if (!ordinary(dequantised, r)) continue;
        CHECK(worstRatio(one.data() + r, x.row(0).transpose(), dequantised.row(r)) <= 1.0);
      }
    }
  }
}

TEST_CASE("stored weights: mixed types, the rotate-half index, rows and the logits", "[linear][quant]") {
  const Golden& q8 = typeNamed("Q8_0");
  const Golden& q4k = typeNamed("Q4_K");
  // Two tensors of different types stacked, as W_Q | W_K | W_V of a Q4_K_M file.
  linear::WeightMatrix w;
  w.append(storedOf(q8, 12, 256));
  w.append(storedOf(q4k, 20, 256));
  REQUIRE(w.out() == 32);
  REQUIRE(w.in() == 256);
  REQUIRE(w.segments().size() == 2);
  CHECK(w.mainType() == 12);
  Matrix m(32, 256);
  m.topRows(12) = valuesOf(q8, 12, 256);
  m.bottomRows(20) = valuesOf(q4k, 20, 256);
  CHECK(w.dequantised() == m);
  Eigen::VectorXf r(256);
  w.row(13, r.data());
  CHECK(r == m.row(13).transpose());

  // Rows 12..28 (2 heads of 8, inside the Q4_K tensor) read in the interleaved order, as
  // permuteRotateHalfRows reorders a float32 matrix; twice within one segment composes.
  w.permuteRotateHalf(12, 2, 8);
  Matrix permuted = m;
  permuted.middleRows(12, 16) = permuteRotateHalfRows(m.middleRows(12, 16), 2, 8);
  CHECK(w.dequantised() == permuted);
  w.permuteRotateHalf(28, 1, 4);
  permuted.middleRows(28, 4) = permuteRotateHalfRows(permuted.middleRows(28, 4), 1, 4);
  CHECK(w.dequantised() == permuted);
  CHECK_THROWS_AS(w.permuteRotateHalf(8, 1, 8), Error);  // across the two tensors

  // Several rows: the dense kernel over the permuted values, bit for bit; one row: the one-row
  // kernel over the permuted rows; the logits of one position likewise.
  const Matrix x = inputs(7, 256);
  const Matrix several = linear::timesTransposed(x, w);
  CHECK(several == packedProduct(kernels::activeDenseKernel(), x, permuted, nullptr, nullptr));
  const Eigen::VectorXf one = linear::timesTransposed(Matrix(x.topRows(1)), w).row(0).transpose();
  CHECK(worstRatio(one.data(), x.row(0).transpose(), permuted) <= 1.0);
  const Eigen::VectorXf logits = linear::timesVector(w, x.data());
  CHECK(logits == one);
}

TEST_CASE("stored weights refuse what no kernel reads and rows that do not fit", "[linear][quant]") {
  const Golden& q8 = typeNamed("Q8_0");
  CHECK(linear::WeightMatrix::supports(0));
  CHECK(linear::WeightMatrix::supports(23));
  CHECK_FALSE(linear::WeightMatrix::supports(16));  // IQ2_XXS
  CHECK_FALSE(linear::WeightMatrix::supports(15));  // Q8_K: ggml's activation type
  const std::string names = linear::WeightMatrix::supportedTypeNames();
  CHECK(names.find("IQ4_XS") != std::string::npos);
  CHECK(names.find("Q2_K") != std::string::npos);
  CHECK(names == dequantisableTypeNames());  // one list: what loads is what runs
  linear::StoredRows bad = storedOf(q8, 4, 64);
  bad.type = 16;
  CHECK_THROWS_WITH(linear::WeightMatrix(bad), Catch::Contains("no kernel for IQ2_XXS"));
  linear::StoredRows short_rows = storedOf(q8, 4, 64);
  short_rows.row_bytes -= 1;
  CHECK_THROWS_AS(linear::WeightMatrix(short_rows), Error);
  linear::WeightMatrix w(storedOf(q8, 4, 64));
  CHECK_THROWS_AS(w.append(storedOf(q8, 2, 32)), Error);  // another width
  CHECK_THROWS_AS(linear::timesTransposed(inputs(3, 32), w), Error);
}

}  // namespace attnlab_test_weight_matrix
