// The one-row products with int8 activations (cpu/quant_kernels.hpp: Int8Activations, the
// option ModelRunOptions::int8_activations) on every CPU path this machine supports, over the
// gguf Python package's golden blocks (tests/data/quants):
// - the quantisation of the activations, checked by hand (scale max |x| / 127, nearest integer,
//   a block of zeros, the sums of 16);
// - each kernel equals Σ w·x̃ formed in double from the package's dequantised weights w and the
//   dequantised activations x̃ = d·q, within float32 summation's bound (the integer sums are
//   exact, the blocks' scaled terms are float32);
// - it stays within the quantisation's own bound of the float32 product: |Σ w·(x − x̃)| ≤
//   Σ |w|·d/2 (each |x − x̃| ≤ d/2);
// - Int8ActivationsScope switches the one-row products of the types that have an int8 kernel
//   (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS) and of no other, and restores what it found;
// - a short prompt's product (fewer than 8 rows, kInt8Rows at a time) gives each row the one-row
//   product's value bit for bit, whatever the number of rows a call takes, and a matrix with a
//   segment of another type stays float32 whole;
// - a longer prompt's product (the int8 GEMM over decoded panels) equals Σ w·x̃ in double within
//   the same bound, and is the same bits on every path.

#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <nlohmann/json.hpp>

#include "attnlab/cpu_path.hpp"
#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/safetensors.hpp"
#include "cpu/cpu_path_internal.hpp"
#include "model/weight_matrix.hpp"

namespace attnlab_test_int8_products {

using namespace attnlab;

namespace {

const std::filesystem::path kData = ATTNLAB_TEST_DATA_DIR;

struct Int8Type {
  const char* name;
  std::uint32_t type;
  kernels::QuantType kernels::QuantKernel::*kernel;
  int block;  ///< the activations' block (the type's int8_block)
};

constexpr Int8Type kTypes[] = {
    {"Q8_0", 8, &kernels::QuantKernel::q8_0, 32},
    {"Q4_0", 2, &kernels::QuantKernel::q4_0, 32},
    {"Q4_1", 3, &kernels::QuantKernel::q4_1, 32},
    {"Q5_0", 6, &kernels::QuantKernel::q5_0, 32},
    {"Q5_1", 7, &kernels::QuantKernel::q5_1, 32},
    {"Q4_K", 12, &kernels::QuantKernel::q4_k, 256},
    {"Q5_K", 13, &kernels::QuantKernel::q5_k, 256},
    {"Q6_K", 14, &kernels::QuantKernel::q6_k, 256},
    {"IQ4_NL", 20, &kernels::QuantKernel::iq4_nl, 32},
    {"IQ4_XS", 23, &kernels::QuantKernel::iq4_xs, 256},
};

const SafeTensors& golden() {
  static const SafeTensors file(kData / "quants/dequant.safetensors");
  return file;
}

Eigen::Index countOf(const char* name) {
  return nlohmann::json::parse(golden().metadata().at("counts")).at(name).get<Eigen::Index>();
}

struct Quantised {
  std::vector<float> d;
  std::vector<signed char> q;
  std::vector<short> sums16;
  Quantised(const Eigen::VectorXf& x, int block)
      : d(static_cast<std::size_t>(x.size() / block)), q(static_cast<std::size_t>(x.size())),
        sums16(static_cast<std::size_t>(x.size() / 16)) {
    kernels::quantiseActivations(x.data(), static_cast<long>(x.size()), block, d.data(), q.data(),
                                 sums16.data());
  }
  kernels::Int8Activations view(int block) const { return {block, d.data(), q.data(), sums16.data()}; }
  /// x̃ = d·q in double.
  Eigen::VectorXd values(int block) const {
    Eigen::VectorXd v(static_cast<Eigen::Index>(q.size()));
    for (std::size_t i = 0; i < q.size(); ++i) v[static_cast<Eigen::Index>(i)] = double(d[i / static_cast<std::size_t>(block)]) * q[i];
    return v;
  }
};

Eigen::VectorXf activations(Eigen::Index in, float phase = 0.2f) {
  Eigen::VectorXf x(in);
  for (Eigen::Index k = 0; k < in; ++k)
    x[k] = std::sin(0.37f * static_cast<float>(k) + phase) * (1.0f + static_cast<float>(k % 7));
  return x;
}

std::uint32_t typeNamed(const char* name) {
  for (std::uint32_t t = 0; t < 40; ++t) {
    const GgmlTypeInfo* info = ggmlTypeInfo(t);
    if (info != nullptr && std::string(info->name) == name) return t;
  }
  return 0;
}

/// The golden blocks of `name` as a WeightMatrix of rows of `in`.
linear::StoredRows goldenRows(const char* name, Eigen::Index in) {
  const std::uint32_t type = typeNamed(name);
  const GgmlTypeInfo* info = ggmlTypeInfo(type);
  linear::StoredRows s;
  s.type = type;
  s.rows = countOf(name) / in;
  s.cols = in;
  s.data = reinterpret_cast<const unsigned char*>(golden().tensor(std::string(name) + ".bytes").data);
  s.row_bytes = static_cast<std::size_t>(in / info->block_elements * info->block_bytes);
  s.name = name;
  return s;
}

}  // namespace

TEST_CASE("int8 activations: the scale is max |x| / 127 and each value the nearest integer",
          "[linear][quant][int8]") {
  Eigen::VectorXf x = Eigen::VectorXf::Zero(64);
  x[0] = 1.0f;
  x[1] = -2.0f;
  x[2] = 0.5f;
  x[3] = -0.0078125f;  // 2/127 · 0.4921…: rounds to 0
  // The second block of 32 stays zero.
  std::vector<float> d(2);
  std::vector<signed char> q(64, 99);
  std::vector<short> sums(4, 99);
  kernels::quantiseActivations(x.data(), 64, 32, d.data(), q.data(), sums.data());
  CHECK(d[0] == 2.0f / 127.0f);
  CHECK(q[0] == 64);  // 1 · 127/2 = 63.5, to even
  CHECK(q[1] == -127);
  CHECK(q[2] == 32);  // 31.75
  CHECK(q[3] == 0);
  CHECK(q[4] == 0);
  CHECK(d[1] == 0.0f);
  CHECK(q[40] == 0);
  CHECK(sums[0] == 64 - 127 + 32);
  CHECK(sums[1] == 0);
  CHECK(sums[2] == 0);
  CHECK(sums[3] == 0);
}

TEST_CASE("int8 products equal the dequantised weights times the dequantised activations, every "
          "path", "[linear][quant][int8][cpu-path]") {
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::QuantKernel& kernel = kernels::quantKernel(path);
    for (const Int8Type& t : kTypes) {
      const kernels::QuantType& k = kernel.*t.kernel;
      REQUIRE(k.int8 != nullptr);
      REQUIRE(k.int8_block == t.block);
      const GgmlTypeInfo* info = ggmlTypeInfo(t.type);
      const std::vector<float> values = golden().floats(std::string(t.name) + ".values");
      const auto* bytes = reinterpret_cast<const unsigned char*>(golden().tensor(std::string(t.name) + ".bytes").data);
      for (const int blocks : {1, 3, 8}) {
        const Eigen::Index in = blocks * info->block_elements;
        if (in % 256 != 0 && t.block == 256) continue;
        const Eigen::Index rows = countOf(t.name) / in;
        if (rows < 2) continue;
        INFO("path " << toString(path) << ", " << t.name << ", " << rows << " × " << in);
        const auto row_bytes = static_cast<long>(in / info->block_elements * info->block_bytes);
        const Eigen::MatrixXd w = Eigen::Map<const Matrix>(values.data(), rows, in).cast<double>();
        const Eigen::VectorXf x = activations(in);
        const Quantised xq(x, t.block);
        std::vector<float> y(static_cast<std::size_t>(rows), NAN);
        const long cut = static_cast<long>(rows / 3);  // a thread's share starts anywhere
        const kernels::Int8Activations view = xq.view(t.block);
        k.int8(bytes, row_bytes, static_cast<long>(in), &view, 1, 0, cut, y.data(), 0);
        k.int8(bytes, row_bytes, static_cast<long>(in), &view, 1, cut, static_cast<long>(rows), y.data() + cut, 0);
        const Eigen::VectorXd xt = xq.values(t.block);
        const Eigen::VectorXd exact = w * xt, magnitude = w.cwiseAbs() * xt.cwiseAbs();
        const Eigen::VectorXd full = w * x.cast<double>();
        const double u = std::ldexp(1.0, -23);
        for (Eigen::Index r = 0; r < rows; ++r) {
          INFO("row " << r);
          REQUIRE(std::isfinite(y[static_cast<std::size_t>(r)]));
          // Two roundings a block (d·dx, the conversion-free multiply-add) and the sums: a
          // generous 4 · in · u · Σ|w x̃|.
          CHECK(std::abs(y[static_cast<std::size_t>(r)] - exact[r]) <= 4.0 * double(in) * u * magnitude[r] + 1e-30);
          double quantisation = 0;
          for (Eigen::Index i = 0; i < in; ++i)
            quantisation += std::abs(w(r, i)) * double(xq.d[static_cast<std::size_t>(i / t.block)]) / 2;
          CHECK(std::abs(y[static_cast<std::size_t>(r)] - full[r]) <=
                quantisation + 4.0 * double(in) * u * magnitude[r] + 1e-30);
        }
      }
    }
  }
}

TEST_CASE("Int8ActivationsScope switches the one-row products of the types with an int8 kernel only",
          "[linear][quant][int8]") {
  for (const char* name : {"Q8_0", "Q4_K", "Q6_K", "Q4_1", "Q5_0", "Q5_K", "IQ4_XS", "Q3_K"}) {
    INFO(name);
    std::uint32_t type = 0;
    for (std::uint32_t t = 0; t < 40; ++t) {
      const GgmlTypeInfo* info = ggmlTypeInfo(t);
      if (info != nullptr && std::string(info->name) == name) type = t;
    }
    const GgmlTypeInfo* info = ggmlTypeInfo(type);
    REQUIRE(info != nullptr);
    const Eigen::Index in = 256, rows = countOf(name) / in;
    linear::StoredRows s;
    s.type = type;
    s.rows = rows;
    s.cols = in;
    s.data = reinterpret_cast<const unsigned char*>(golden().tensor(std::string(name) + ".bytes").data);
    s.row_bytes = static_cast<std::size_t>(in / info->block_elements * info->block_bytes);
    s.name = name;
    const linear::WeightMatrix w(s);
    const Eigen::VectorXf x = activations(in);
    const Eigen::VectorXf plain = linear::timesVector(w, x.data());
    CHECK_FALSE(linear::int8Activations());
    Eigen::VectorXf quantised;
    {
      const linear::Int8ActivationsScope on(true);
      CHECK(linear::int8Activations());
      quantised = linear::timesVector(w, x.data());
      {
        const linear::Int8ActivationsScope off(false);
        CHECK((linear::timesVector(w, x.data()).array() == plain.array()).all());
      }
      CHECK(linear::int8Activations());
    }
    CHECK_FALSE(linear::int8Activations());
    const bool has_int8 = std::string(name) != "Q3_K";
    const bool same = (quantised.array() == plain.array()).all();
    CHECK(same != has_int8);
    // Within 2 % of the largest product: int8's rounding, not another matrix.
    CHECK((quantised - plain).cwiseAbs().maxCoeff() <= 0.02 * plain.cwiseAbs().maxCoeff());
  }
}

TEST_CASE("a prompt's int8 product gives every row the one-row product's value, bit for bit, "
          "every path", "[linear][quant][int8][cpu-path]") {
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::QuantKernel& kernel = kernels::quantKernel(path);
    for (const Int8Type& t : kTypes) {
      INFO("path " << toString(path) << ", " << t.name);
      const kernels::QuantType& k = kernel.*t.kernel;
      const Eigen::Index in = 256;
      const linear::StoredRows s = goldenRows(t.name, in);
      const auto rows = static_cast<long>(s.rows);
      std::vector<Quantised> xs;
      std::vector<kernels::Int8Activations> views;
      for (int i = 0; i < kernels::kInt8Rows; ++i) xs.emplace_back(activations(in, 0.3f * float(i)), t.block);
      for (const Quantised& q : xs) views.push_back(q.view(t.block));
      std::vector<float> one(static_cast<std::size_t>(kernels::kInt8Rows * rows));
      for (int i = 0; i < kernels::kInt8Rows; ++i)
        k.int8(s.data, static_cast<long>(s.row_bytes), in, &views[static_cast<std::size_t>(i)], 1, 0,
               rows, one.data() + i * rows, 0);
      for (int nx = 2; nx <= kernels::kInt8Rows; ++nx) {
        INFO(nx << " rows a call");
        std::vector<float> many(static_cast<std::size_t>(nx * rows), NAN);
        k.int8(s.data, static_cast<long>(s.row_bytes), in, views.data(), nx, 0, rows, many.data(), rows);
        for (long i = 0; i < nx * rows; ++i) CHECK(many[static_cast<std::size_t>(i)] == one[static_cast<std::size_t>(i)]);
      }
    }
  }
  // Through the matrix: 7 rows (a partial group of kInt8Rows) with a bias, one matrix of two
  // segments (Q4_K and Q6_K: two activation blocks at once); each row equals its own one-row
  // product plus the bias.
  linear::WeightMatrix w(goldenRows("Q4_K", 256));
  w.append(goldenRows("Q6_K", 256));
  Matrix x(7, 256);
  for (Eigen::Index i = 0; i < x.rows(); ++i) x.row(i) = activations(256, 0.1f * float(i)).transpose();
  const Vector bias = Vector::LinSpaced(w.out(), -1.0f, 1.0f);
  for (const CpuPath path : supportedCpuPaths()) {
    INFO("path " << toString(path));
    const linear::Int8ActivationsScope on(true);
    const Matrix prompt = linear::timesTransposedOn(path, x, w, &bias);
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      const Matrix one = linear::timesTransposedOn(path, x.row(i), w, &bias);
      CHECK((prompt.row(i).array() == one.row(0).array()).all());
    }
    const linear::Int8ActivationsScope off(false);
    CHECK((linear::timesTransposedOn(path, x, w, &bias) - prompt).cwiseAbs().maxCoeff() > 0.0f);
  }
  // A segment without an int8 kernel keeps the whole matrix float32.
  linear::WeightMatrix mixed(goldenRows("Q4_K", 256));
  mixed.append(goldenRows("Q3_K", 256));
  Matrix plain;
  {
    const linear::Int8ActivationsScope off(false);
    plain = linear::timesTransposed(x, mixed);
  }
  const linear::Int8ActivationsScope on(true);
  CHECK((linear::timesTransposed(x, mixed).array() == plain.array()).all());
}

TEST_CASE("the int8 GEMM of a prompt equals the dequantised product within float32's bound, the "
          "same bits on every path", "[linear][quant][int8][cpu-path]") {
  const double u = std::ldexp(1.0, -23);
  for (const Int8Type& t : kTypes) {
    INFO(t.name);
    REQUIRE((kernels::quantKernel(supportedCpuPaths().front()).*t.kernel).int8_gemm != nullptr);
    const Eigen::Index in = 256;
    const linear::StoredRows s = goldenRows(t.name, in);
    const linear::WeightMatrix w(s);
    const GgmlTypeInfo* info = ggmlTypeInfo(s.type);
    const std::vector<float> values = golden().floats(std::string(t.name) + ".values");
    const Eigen::MatrixXd wd = Eigen::Map<const Matrix>(values.data(), s.rows, in).cast<double>();
    REQUIRE(info != nullptr);
    // 11 rows: a tile of 8 and one of 3 (or 4 + 4 + 3); an extreme row of thousands.
    Matrix x(11, in);
    for (Eigen::Index i = 0; i < x.rows(); ++i) x.row(i) = activations(in, 0.7f * float(i)).transpose();
    x.row(5) *= 3000.0f;
    x.row(9).setZero();
    std::optional<Matrix> first;
    for (const CpuPath path : supportedCpuPaths()) {
      INFO("path " << toString(path));
      const linear::Int8ActivationsScope on(true);
      const Matrix y = linear::timesTransposedOn(path, x, w);
      if (!first) first = y;
      CHECK((y.array() == first->array()).all());
      for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const Quantised xq(x.row(i).transpose(), t.block);
        const Eigen::VectorXd xt = xq.values(t.block);
        const Eigen::VectorXd exact = wd * xt, magnitude = wd.cwiseAbs() * xt.cwiseAbs();
        for (Eigen::Index r = 0; r < w.out(); ++r) {
          INFO("row " << i << ", output " << r);
          REQUIRE(std::isfinite(y(i, r)));
          CHECK(std::abs(y(i, r) - exact[r]) <= 4.0 * double(in) * u * magnitude[r] + 1e-30);
        }
      }
    }
  }
}

TEST_CASE("the avx512 path's int8 GEMM gives the same bits with and without AVX512-VNNI",
          "[linear][quant][int8][cpu-path]") {
  if (bestCpuPath() != CpuPath::kAvx512) {
    WARN("skipped: this CPU has no AVX-512");
    return;
  }
  if (!kernels::avx512Vnni()) {
    WARN("skipped: this CPU has no AVX512-VNNI (or ATTNLAB_NO_VNNI is set)");
    return;
  }
  for (const Int8Type& t : kTypes) {
    INFO(t.name);
    const kernels::QuantType& plain = kernels::kQuantAvx512.*t.kernel;
    const kernels::QuantType& vnni = kernels::kQuantAvx512Vnni.*t.kernel;
    REQUIRE(plain.int8_gemm != nullptr);
    REQUIRE(vnni.int8_gemm != plain.int8_gemm);
    const Eigen::Index in = 256;
    const linear::StoredRows s = goldenRows(t.name, in);
    const int rows = static_cast<int>(std::min<std::size_t>(s.rows, 16));
    const unsigned char* row[16];
    for (int c = 0; c < rows; ++c) row[c] = s.data + c * s.row_bytes;
    const long blocks = in / t.block, subs = t.block / plain.int8_sub;
    std::vector<unsigned char> u(static_cast<std::size_t>(in * 16));
    std::vector<short> sc(static_cast<std::size_t>(blocks * subs * 32)), mins(static_cast<std::size_t>(blocks * ((subs + 1) / 2) * 32));
    std::vector<float> d(static_cast<std::size_t>(blocks * 16)), dmin(d.size());
    const kernels::Int8Panel panel{u.data(), sc.data(), mins.data(), d.data(), dmin.data()};
    plain.int8_panel(row, rows, blocks, panel);
    std::vector<Quantised> xs;
    std::vector<kernels::Int8Activations> views;
    std::vector<std::vector<int>> pairs;
    std::vector<const int*> pair_rows;
    for (int i = 0; i < kernels::kInt8GemmRows; ++i) {
      Eigen::VectorXf x = activations(in, 0.9f * float(i));
      if (i == 3) x *= 5000.0f;
      xs.emplace_back(x, t.block);
    }
    for (const Quantised& q : xs) {
      views.push_back(q.view(t.block));
      // Σ q over each sub-block, two a word (QuantInt8Gemm's pairs).
      const long sub = plain.int8_sub, per_block = (t.block / sub + 1) / 2;
      std::vector<int> p(static_cast<std::size_t>(blocks * per_block), 0);
      for (long k = 0; k < blocks; ++k) {
        for (long j = 0; j < t.block / sub; ++j) {
          int sum = 0;
          for (long e = 0; e < sub; ++e) sum += q.q[static_cast<std::size_t>(k * t.block + j * sub + e)];
          auto& word = p[static_cast<std::size_t>(k * per_block + j / 2)];
          word = static_cast<int>(static_cast<unsigned>(word) | ((static_cast<unsigned>(sum) & 0xFFFFu) << (16 * (j % 2))));
        }
      }
      pairs.push_back(std::move(p));
    }
    for (const auto& p : pairs) pair_rows.push_back(p.data());
    std::vector<float> a(static_cast<std::size_t>(kernels::kInt8GemmRows * 16), NAN), b = a;
    plain.int8_gemm(panel, blocks, views.data(), pair_rows.data(), kernels::kInt8GemmRows, a.data(), 16, rows);
    vnni.int8_gemm(panel, blocks, views.data(), pair_rows.data(), kernels::kInt8GemmRows, b.data(), 16, rows);
    for (int i = 0; i < kernels::kInt8GemmRows; ++i)
      for (int c = 0; c < rows; ++c) CHECK(a[static_cast<std::size_t>(i * 16 + c)] == b[static_cast<std::size_t>(i * 16 + c)]);
  }
}

}  // namespace attnlab_test_int8_products
