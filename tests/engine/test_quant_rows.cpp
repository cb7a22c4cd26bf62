// The one-row products over a GGUF file's quantised blocks (engine/src/model/quant_rows.hpp,
// cpu/quant_kernels.hpp), on every CPU path this machine supports, over the blocks of the gguf
// Python package's golden (tests/data/quants: real quantisations of every type).
// - Each weight the kernel multiplies is the package's dequantised value bit for bit: with x the
//   unit vector e_k, y[r] = W[r, k] · 1 summed with zeros, which is exact.
// - A product with a full x equals x · Wᵀ formed in double from the dequantised W within the
//   bound of float32 summation in any order, fused multiply-adds or not: in · 2⁻²³ · Σ|x_k w_k|
//   (Higham 2002, eq. 3.5), checked with a factor 2 as test_linear.cpp does.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "attnlab/cpu_path.hpp"
#include "attnlab/error.hpp"
#include "attnlab/positions.hpp"
#include "attnlab/safetensors.hpp"
#include "cpu/cpu_path_internal.hpp"
#include "model/linear.hpp"
#include "model/quant_rows.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_quant_rows {

using namespace attnlab;

namespace {

const std::filesystem::path kData = ATTNLAB_TEST_DATA_DIR;

struct Golden {
  const char* name;
  std::uint32_t type;
  kernels::QuantRowProduct kernels::QuantKernel::*product;
};

constexpr Golden kTypes[] = {
    {"Q4_0", 2, &kernels::QuantKernel::q4_0},  {"Q4_1", 3, &kernels::QuantKernel::q4_1},
    {"Q5_0", 6, &kernels::QuantKernel::q5_0},  {"Q5_1", 7, &kernels::QuantKernel::q5_1},
    {"Q8_0", 8, &kernels::QuantKernel::q8_0},  {"Q4_K", 12, &kernels::QuantKernel::q4_k},
    {"Q5_K", 13, &kernels::QuantKernel::q5_k}, {"Q6_K", 14, &kernels::QuantKernel::q6_k},
};

const SafeTensors& golden() {
  static const SafeTensors file(kData / "quants/dequant.safetensors");
  return file;
}

/// The golden's first `rows` rows of `in` elements of type g as a GGUF tensor view.
GgufTensor tensorOf(const Golden& g, Eigen::Index rows, Eigen::Index in) {
  const GgmlTypeInfo* info = ggmlTypeInfo(g.type);
  GgufTensor t;
  t.name = g.name;
  t.type = g.type;
  t.dims = {in, rows};
  t.data = golden().tensor(std::string(g.name) + ".bytes").data;
  t.bytes = static_cast<std::size_t>(rows * in / info->block_elements * info->block_bytes);
  return t;
}

/// The golden's dequantised values as a [rows, in] matrix.
Matrix valuesOf(const Golden& g, Eigen::Index rows, Eigen::Index in) {
  const std::vector<float> v = golden().floats(std::string(g.name) + ".values");
  REQUIRE(static_cast<Eigen::Index>(v.size()) >= rows * in);
  return Eigen::Map<const Matrix>(v.data(), rows, in);
}

Eigen::Index countOf(const Golden& g) {
  return nlohmann::json::parse(golden().metadata().at("counts")).at(g.name).get<Eigen::Index>();
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

}  // namespace

TEST_CASE("the one-row kernels multiply the package's dequantised weights bit for bit",
          "[linear][quant][cpu-path]") {
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::QuantKernel& kernel = kernels::quantKernel(path);
    for (const Golden& g : kTypes) {
      INFO("path " << toString(path) << ", " << g.name);
      const Eigen::Index in = ggmlTypeInfo(g.type)->block_elements;  // one block per row
      const Eigen::Index rows = countOf(g) / in;
      const GgufTensor t = tensorOf(g, rows, in);
      const Matrix w = valuesOf(g, rows, in);
      const auto* bytes = reinterpret_cast<const unsigned char*>(t.data);
      const long row_bytes = static_cast<long>(t.bytes) / rows;
      std::size_t mismatches = 0;
      for (Eigen::Index k = 0; k < in; ++k) {
        Eigen::VectorXf x = Eigen::VectorXf::Zero(in), y = Eigen::VectorXf::Constant(rows, NAN);
        x[k] = 1.0f;
        (kernel.*g.product)(bytes, row_bytes, in, x.data(), 0, rows, y.data());
        for (Eigen::Index r = 0; r < rows; ++r) mismatches += y[r] == w(r, k) ? 0 : 1;
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
      const Eigen::Index block = ggmlTypeInfo(g.type)->block_elements;
      for (const int blocks : {1, 3, 5}) {
        const Eigen::Index in = blocks * block;
        const Eigen::Index rows = countOf(g) / in;  // 96, 32, 19 rows of the 32-element types
        INFO("path " << toString(path) << ", " << g.name << ", " << rows << " × " << in);
        const GgufTensor t = tensorOf(g, rows, in);
        const Matrix w = valuesOf(g, rows, in);
        Eigen::VectorXf x(in);
        for (Eigen::Index k = 0; k < in; ++k) x[k] = std::sin(0.37f * static_cast<float>(k) + 0.2f);
        // Odd row ranges: a thread's share starts and ends anywhere.
        Eigen::VectorXf y = Eigen::VectorXf::Constant(rows, NAN);
        const long row_bytes = static_cast<long>(t.bytes) / rows;
        const auto* bytes = reinterpret_cast<const unsigned char*>(t.data);
        const long cut = rows / 3;
        (kernel.*g.product)(bytes, row_bytes, in, x.data(), 0, cut, y.data());
        (kernel.*g.product)(bytes, row_bytes, in, x.data(), cut, rows, y.data() + cut);
        REQUIRE(y.allFinite());
        CHECK(worstRatio(y.data(), x, w) <= 1.0);
      }
    }
  }
}

TEST_CASE("quantised rows: the dispatched product, rotate-half order and the packed weights",
          "[linear][quant]") {
  const Golden& q8 = kTypes[4];
  const Golden& q4k = kTypes[5];
  REQUIRE(std::string(q8.name) == "Q8_0");
  // Two tensors of different types stacked, as W_Q | W_K | W_V of a Q4_K_M file.
  linear::QuantRows rows;
  rows.append(tensorOf(q8, 12, 256));
  rows.append(tensorOf(q4k, 20, 256));
  REQUIRE(rows.out() == 32);
  REQUIRE(rows.in() == 256);
  REQUIRE(rows.segments().size() == 2);
  Matrix w(32, 256);
  w.topRows(12) = valuesOf(q8, 12, 256);
  w.bottomRows(20) = valuesOf(q4k, 20, 256);
  Eigen::VectorXf x(256);
  for (Eigen::Index k = 0; k < 256; ++k) x[k] = std::cos(0.11f * static_cast<float>(k));
  Eigen::VectorXf y(32);
  linear::timesTransposedRow(x.data(), rows, y.data());
  CHECK(worstRatio(y.data(), x, w) <= 1.0);
  Eigen::VectorXf r(256);
  rows.row(13, r.data());
  CHECK(r == w.row(13).transpose());

  // Rows 12..28 (2 heads of 8, inside the Q4_K tensor) reordered as the float32 rows are.
  rows.permuteRotateHalf(12, 2, 8);
  Matrix permuted = w;
  permuted.middleRows(12, 16) = permuteRotateHalfRows(w.middleRows(12, 16), 2, 8);
  for (Eigen::Index i = 0; i < 32; ++i) {
    rows.row(i, r.data());
    INFO("row " << i);
    CHECK(r == permuted.row(i).transpose());
  }
  CHECK_THROWS_AS(rows.permuteRotateHalf(8, 1, 8), Error);  // across the two tensors

  // Packed weights keep the blocks: one row runs over them, two rows over the float32 panels.
  linear::PackedWeights packed(permuted);
  packed.keepQuantised(rows);
  Eigen::VectorXf direct(32);
  linear::timesTransposedRow(x.data(), rows, direct.data());
  const Matrix one = linear::timesTransposed(Matrix(x.transpose()), packed);
  CHECK(Eigen::VectorXf(one.row(0).transpose()) == direct);
  const Matrix two = linear::timesTransposed(Matrix(x.transpose().replicate(2, 1)), packed);
  const Eigen::VectorXf dense = two.row(1).transpose();
  CHECK(worstRatio(dense.data(), x, permuted) <= 1.0);
  linear::QuantRows fewer;
  fewer.append(tensorOf(q8, 4, 256));
  CHECK_THROWS_AS(packed.keepQuantised(fewer), Error);
  CHECK_FALSE(linear::QuantRows::supports(0));  // F32: the float32 rows are the file's
  CHECK_FALSE(linear::QuantRows::supports(1));  // F16
}

namespace {

/// A weight source holding one tensor: the golden's Q6_K blocks, and their dequantised values.
class OneTensor final : public weights::Source {
 public:
  OneTensor(Eigen::Index rows, Eigen::Index in)
      : tensor_(tensorOf(kTypes[7], rows, in)), values_(valuesOf(kTypes[7], rows, in)) {}
  void read(const weights::TensorName&, Eigen::Index rows, Eigen::Index cols, Matrix& dst,
            Eigen::Index row0) const override {
    if (rows != values_.rows() || cols != values_.cols())
      throw Error(ErrorCode::kInvalidInput, "wrong shape");
    dst.middleRows(row0, rows) = values_;
  }
  bool contains(const weights::TensorName&) const override { return true; }
  bool rotateHalf() const override { return false; }
  const GgufTensor* quantised(const weights::TensorName&) const override { return &tensor_; }
  const Matrix& values() const { return values_; }

 private:
  GgufTensor tensor_;
  Matrix values_;
};

}  // namespace

TEST_CASE("an embedding table over the file's blocks reads rows and gives logits",
          "[linear][quant]") {
  REQUIRE(std::string(kTypes[7].name) == "Q6_K");
  const OneTensor source(12, 512);
  const linear::RowTable table(source, {"token_embd.weight", "model.embed_tokens.weight"}, 12, 512);
  REQUIRE(table.rows() == 12);
  REQUIRE(table.cols() == 512);
  Eigen::RowVectorXf r(512);
  table.row(7, r.data());
  CHECK(r == source.values().row(7));
  Eigen::VectorXf x(512);
  for (Eigen::Index k = 0; k < 512; ++k) x[k] = std::sin(0.05f * static_cast<float>(k));
  const Eigen::VectorXf z = table.times(x.data());
  CHECK(worstRatio(z.data(), x, source.values()) <= 1.0);
  // A shape the blocks do not have falls back to the float32 read, which names the fault.
  CHECK_THROWS_AS(linear::RowTable(source, {"a", "b"}, 13, 512), Error);
}

}  // namespace attnlab_test_quant_rows
