// The CPU attention's row kernels (engine/src/cpu/dense_kernels.hpp: MatrixProduct for P·V,
// SoftmaxSpan, RowMoments) on every CPU path this machine supports, against the same quantities
// formed in double, over lengths that cover every edge of each path's vectors (1, lanes − 1,
// lanes, lanes + 1, …) and at the extremes (scores in the thousands, factors near 0 and huge,
// infinite scores, all-zero rows).
// Tolerances: P·V as test_linear.cpp's bound (2 · n · 2⁻²³ · Σ|p v|, Higham 2002, eq. 3.5); the
// softmax's weights within 8 · 2⁻²⁴ relative plus 1e-30 absolute: exp within 2 ulp (measured
// 1.2e-7 relative over [−104, 0]), one rounding of x' − m, one of the product with b (each ≤ ½ ulp
// of an argument ≤ 104 in size changes e^t by ≤ 104 · 2⁻²⁴ relative — so the bound is taken
// relative to |t|: (4 + 2|t|) · 2⁻²⁴), one of the normalisation; the entropy within
// 4 · 2⁻²⁴ · Σ|p ln p| + 1e-30 (log within 2 ulp, one product rounding, summed in double). The
// softmax's own entropy, ln Z − Σ e t / Z, against the same formula in double from the same float
// arguments t: each e within 4 · 2⁻²⁴ relative, one rounding of e·t, so within
// 4u (ln Z) + 9u · |Σ e t| / Z, bounded by 16u · (1 + H) + 1e-30.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "attnlab/cpu_path.hpp"
#include "cpu/cpu_path_internal.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_row_kernels {

using namespace attnlab;

namespace {

std::vector<float> wave(int n, float scale, float phase) {
  std::vector<float> x(n);
  for (int j = 0; j < n; ++j) x[j] = scale * std::sin(0.91f * j + phase) * std::cos(0.13f * j);
  return x;
}

const std::vector<int> kLengths = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 1000};

}  // namespace

TEST_CASE("every CPU path's P·V product equals the sum in double at every blocking edge",
          "[row-kernels][cpu-path]") {
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::DenseKernel& kernel = kernels::denseKernel(path);
    for (const int rows : {1, 2, 3, 5, 12, 13, 49}) {
      for (const int d_v : {16, 32, 48, 64}) {
        for (const int n_k : {1, 3, 17, 64, 130}) {
          INFO("path " << toString(path) << ", rows " << rows << ", d_v " << d_v << ", n_k "
                       << n_k);
          const std::vector<float> p = wave(rows * n_k, 1.0f, 0.3f);
          const std::vector<float> v = wave(n_k * d_v, 2.0f, 1.7f);
          std::vector<float> out(static_cast<std::size_t>(rows) * d_v,
                                 std::numeric_limits<float>::quiet_NaN());
          kernel.times(p.data(), n_k, rows, v.data(), d_v, n_k, d_v, out.data(), d_v);
          double worst = 0;
          for (int i = 0; i < rows; ++i)
            for (int c = 0; c < d_v; ++c) {
              double exact = 0, magnitude = 0;
              for (int k = 0; k < n_k; ++k) {
                exact += double(p[i * n_k + k]) * v[k * d_v + c];
                magnitude += std::abs(double(p[i * n_k + k]) * v[k * d_v + c]);
              }
              const double bound = 2.0 * n_k * std::ldexp(1.0, -23) * magnitude + 1e-30;
              REQUIRE(std::isfinite(out[i * d_v + c]));  // every cell written
              worst = std::max(worst, std::abs(out[i * d_v + c] - exact) / bound);
            }
          CHECK(worst <= 1.0);
        }
      }
    }
  }
}

TEST_CASE("zero weights before and after a row's span leave its P·V sum bit for bit",
          "[row-kernels][cpu-path]") {
  // The full causal pass forms rows over a block's span, the KV-cache decode over the row's own:
  // the same sums (dense_kernels.hpp, MatrixProduct).
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::DenseKernel& kernel = kernels::denseKernel(path);
    const int n_k = 45, d_v = 32, lo = 7, hi = 30;
    std::vector<float> p(n_k, 0.0f);
    const std::vector<float> span = wave(hi - lo, 0.5f, 0.2f);
    std::copy(span.begin(), span.end(), p.begin() + lo);
    const std::vector<float> v = wave(n_k * d_v, 3.0f, 0.9f);
    std::vector<float> whole(d_v), part(d_v);
    kernel.times(p.data(), n_k, 1, v.data(), d_v, n_k, d_v, whole.data(), d_v);
    kernel.times(span.data(), hi - lo, 1, v.data() + lo * d_v, d_v, hi - lo, d_v, part.data(),
                 d_v);
    INFO("path " << toString(path));
    CHECK(std::memcmp(whole.data(), part.data(), sizeof(float) * d_v) == 0);
  }
}

TEST_CASE("every CPU path's softmax equals the softmax in double, at the extremes too",
          "[row-kernels][cpu-path]") {
  const double u = std::ldexp(1.0, -24);
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::DenseKernel& kernel = kernels::denseKernel(path);
    for (const int n : kLengths) {
      for (const float scale : {1.0f, 30.0f, 3000.0f}) {
        for (const float b : {1.0f, 0.125f, 1e-6f, 40.0f}) {
          INFO("path " << toString(path) << ", n " << n << ", scores ×" << scale << ", b " << b);
          const std::vector<float> x = wave(n, scale, 0.4f);
          std::vector<float> w(n, std::numeric_limits<float>::quiet_NaN());
          const float m = kernel.softmax(x.data(), n, b, w.data(), nullptr);
          double m_ref = -INFINITY;
          for (float s : x) m_ref = std::max(m_ref, double(s));
          REQUIRE(m == float(m_ref));
          double sum = 0;
          for (float s : x) sum += std::exp((double(float(s - m)) * b));
          double worst = 0, total = 0;
          for (int j = 0; j < n; ++j) {
            const double t = double(float(float(x[j] - m) * b));
            const double exact = std::exp(double(float(x[j] - m)) * b) / sum;
            const double bound = (8 + 2 * std::abs(t)) * u * exact + 1e-30;
            worst = std::max(worst, std::abs(w[j] - exact) / bound);
            total += w[j];
          }
          CHECK(worst <= 1.0);
          CHECK(std::abs(total - 1.0) <= 1e-6);
        }
      }
    }
  }
}

TEST_CASE("the softmax kernel gives a row the same bits wherever it lies in memory",
          "[row-kernels][cpu-path]") {
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::DenseKernel& kernel = kernels::denseKernel(path);
    const std::vector<float> x = wave(37, 20.0f, 0.1f);
    std::vector<float> reference(37);
    kernel.softmax(x.data(), 37, 0.3f, reference.data(), nullptr);
    for (int offset = 1; offset < 17; ++offset) {
      std::vector<float> shifted(37 + offset, 0.0f), w(37 + offset, 0.0f);
      std::copy(x.begin(), x.end(), shifted.begin() + offset);
      kernel.softmax(shifted.data() + offset, 37, 0.3f, w.data() + offset, nullptr);
      INFO("path " << toString(path) << ", offset " << offset);
      CHECK(std::memcmp(w.data() + offset, reference.data(), sizeof(float) * 37) == 0);
    }
  }
}

TEST_CASE("the softmax kernel hands infinite maxima back and underflows to exact zeros",
          "[row-kernels][cpu-path]") {
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::DenseKernel& kernel = kernels::denseKernel(path);
    INFO("path " << toString(path));
    std::vector<float> w(5, 7.0f);
    const std::vector<float> pos = {1.0f, INFINITY, 2.0f, INFINITY, 0.0f};
    CHECK(kernel.softmax(pos.data(), 5, 1.0f, w.data(), nullptr) == INFINITY);
    CHECK(w[0] == 7.0f);  // untouched: the caller's case
    const std::vector<float> neg(5, -INFINITY);
    CHECK(kernel.softmax(neg.data(), 5, 1.0f, w.data(), nullptr) == -INFINITY);
    // Scores a thousand apart: the winner takes exactly 1, the rest exactly 0.
    const std::vector<float> far = {-1000.0f, 0.0f, -2000.0f, -1000.5f, -3e4f};
    kernel.softmax(far.data(), 5, 1.0f, w.data(), nullptr);
    CHECK(w == std::vector<float>{0.0f, 1.0f, 0.0f, 0.0f, 0.0f});
    // One finite row with −inf keys (a caller's mask): those weights exactly 0.
    const std::vector<float> masked = {0.5f, -INFINITY, 0.5f};
    kernel.softmax(masked.data(), 3, 1.0f, w.data(), nullptr);
    CHECK(w[0] == 0.5f);
    CHECK(w[1] == 0.0f);
    CHECK(w[2] == 0.5f);
  }
}

TEST_CASE("the softmax's own moments are the weights' moments and its entropy the exact one's",
          "[row-kernels][cpu-path]") {
  const double u = std::ldexp(1.0, -24);
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::DenseKernel& kernel = kernels::denseKernel(path);
    for (const int n : kLengths) {
      for (const float scale : {1.0f, 30.0f, 3000.0f}) {
        for (const float b : {1.0f, 0.125f, 1e-6f, 40.0f}) {
          INFO("path " << toString(path) << ", n " << n << ", scores ×" << scale << ", b " << b);
          const std::vector<float> x = wave(n, scale, 1.1f);
          std::vector<float> w(n), plain(n);
          kernels::Moments m{};
          const float max = kernel.softmax(x.data(), n, b, w.data(), &m);
          kernel.softmax(x.data(), n, b, plain.data(), nullptr);
          // The same weights, and Σ w, max w, Σ w², Σ w³ exactly as RowMoments takes them.
          REQUIRE(std::memcmp(w.data(), plain.data(), sizeof(float) * n) == 0);
          const kernels::Moments r = kernel.moments(w.data(), n);
          CHECK(m.total == r.total);
          CHECK(m.max == r.max);
          CHECK(m.sum_sq == r.sum_sq);
          CHECK(m.sum_cube == r.sum_cube);
          // The entropy of e / Z in double from the kernel's float arguments t.
          double z = 0, dot = 0;
          for (float s : x) {
            const double t = std::max(float(float(s - max) * b), -104.0f);
            z += std::exp(t);
            dot += std::exp(t) * t;
          }
          const double h = std::log(z) - dot / z;
          CHECK(m.entropy >= 0.0);
          CHECK(std::abs(m.entropy - h) <= 16 * u * (1 + h) + 1e-30);
          // And the log-per-weight entropy of the stored weights agrees to their rounding.
          CHECK(std::abs(m.entropy - r.entropy) <= 1e-5 * (1 + h));
        }
      }
    }
    // One key: weight 1, entropy exactly 0; keys a thousand apart: exactly one-hot, entropy 0.
    std::vector<float> w(5);
    kernels::Moments one{};
    const float single = 3.5f;
    kernel.softmax(&single, 1, 1.0f, w.data(), &one);
    CHECK(one.entropy == 0.0);
    CHECK(one.max == 1.0);
    const std::vector<float> far = {-1000.0f, 0.0f, -2000.0f, -1000.5f, -3e4f};
    kernels::Moments hot{};
    kernel.softmax(far.data(), 5, 1.0f, w.data(), &hot);
    CHECK(hot.entropy == 0.0);
    CHECK(hot.sum_sq - 2 * hot.sum_cube + hot.sum_sq * hot.sum_sq == 0.0);
  }
}

TEST_CASE("every CPU path's row moments equal the sums in double", "[row-kernels][cpu-path]") {
  const double u = std::ldexp(1.0, -24);
  for (const CpuPath path : supportedCpuPaths()) {
    const kernels::DenseKernel& kernel = kernels::denseKernel(path);
    for (const int n : kLengths) {
      INFO("path " << toString(path) << ", n " << n);
      std::vector<float> p = wave(n, 1.0f, 0.7f);
      double total = 0;
      for (float& v : p) total += (v = std::abs(v) + (n % 3 == 0 ? 0.0f : 1e-30f));
      if (n > 4) p[3] = 0.0f;  // a masked key
      double t = 0, mx = 0, sq = 0, cube = 0, entropy = 0, magnitude = 0;
      for (float v : p) {
        t += v;
        mx = std::max(mx, double(v));
        sq += double(v) * v;
        cube += double(v) * v * v;
        const double term = v > 0 ? double(v) * std::log(double(v)) : 0.0;
        entropy -= term;
        magnitude += std::abs(term);
      }
      const kernels::Moments m = kernel.moments(p.data(), n);
      CHECK(m.total == Approx(t).epsilon(1e-14));
      CHECK(m.max == mx);
      CHECK(m.sum_sq == Approx(sq).epsilon(1e-14));
      CHECK(m.sum_cube == Approx(cube).epsilon(1e-14));
      CHECK(std::abs(m.entropy - entropy) <= 4 * u * magnitude + 1e-30);
    }
    const std::vector<float> zeros(9, 0.0f);
    const kernels::Moments z = kernel.moments(zeros.data(), 9);
    CHECK(z.total == 0.0);
    CHECK(z.entropy == 0.0);
  }
}

}  // namespace attnlab_test_row_kernels
