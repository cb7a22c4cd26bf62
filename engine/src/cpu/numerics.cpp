// Reduced-precision softmax and dropout of the CPU reference (attnlab/numerics.hpp).

#include "attnlab/numerics.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>

namespace attnlab {
namespace {

struct Format {
  int fraction_bits;  // stored fraction bits
  int min_exponent;   // exponent of the smallest normal value
  double largest;     // largest finite value
};

Format formatOf(Precision precision) {
  switch (precision) {
    case Precision::kFp16: return {10, -14, 65504.0};
    case Precision::kBf16: return {7, -126, 0x1.FEp127};
    case Precision::kFp32: break;
  }
  return {23, -126, double(FLT_MAX)};
}

// SplitMix64's finaliser (Steele, Lea & Flood 2014).
std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

float roundTo(Precision precision, double x) {
  if (std::isnan(x) || std::isinf(x) || x == 0.0) return static_cast<float>(x);
  const Format f = formatOf(precision);
  // The quantum (spacing) of the binade holding x; below the smallest normal the subnormals'
  // fixed spacing 2^(min_exponent − fraction_bits).
  const int exponent = std::max(std::ilogb(x), f.min_exponent);
  const double quantum = std::ldexp(1.0, exponent - f.fraction_bits);
  // x / quantum is exact (a power of two); nearbyint rounds to nearest, ties to even.
  const double rounded = std::nearbyint(x / quantum) * quantum;
  if (std::fabs(rounded) > f.largest) return x > 0 ? std::numeric_limits<float>::infinity()
                                                   : -std::numeric_limits<float>::infinity();
  return static_cast<float>(rounded);  // exact: every value of the format is a float
}

std::uint16_t fp16Bits(double x) {
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return sign | 0x7E00;
  const double r = roundTo(Precision::kFp16, x);
  if (std::isinf(r)) return sign | 0x7C00;
  const double a = std::fabs(r);
  if (a == 0.0) return sign;
  const int exponent = std::ilogb(a);
  if (exponent < -14) return sign | static_cast<std::uint16_t>(a * 0x1p24);  // subnormal
  const auto fraction = static_cast<std::uint16_t>((std::ldexp(a, -exponent) - 1.0) * 1024.0);
  return sign | static_cast<std::uint16_t>((exponent + 15) << 10) | fraction;
}

float fp16FromBits(std::uint16_t bits) {
  const float sign = (bits & 0x8000) ? -1.0f : 1.0f;
  const int exponent = (bits >> 10) & 0x1F;
  const int fraction = bits & 0x3FF;
  if (exponent == 0x1F)
    return fraction ? std::numeric_limits<float>::quiet_NaN()
                    : sign * std::numeric_limits<float>::infinity();
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(fraction), -24);
  return sign * std::ldexp(1.0f + static_cast<float>(fraction) / 1024.0f, exponent - 15);
}

std::uint16_t bf16Bits(double x) {
  if (std::isnan(x)) return std::signbit(x) ? 0xFFC0 : 0x7FC0;
  // A bfloat16 is the upper half of the binary32 holding the same value.
  return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(roundTo(Precision::kBf16, x)) >> 16);
}

double largestFinite(Precision precision) { return formatOf(precision).largest; }

bool reducedSoftmaxRow(const float* scores, float* p, int n, const MaskPattern& pattern, int i,
                       Precision precision, SoftmaxKind kind) {
  std::fill(p, p + n, 0.0f);
  const auto [lo, hi] = pattern.span(i, n);
  const auto r = [precision](double x) { return roundTo(precision, x); };
  bool any = false;
  double m = -std::numeric_limits<double>::infinity();
  for (int j = lo; j < hi; ++j) {
    if (!pattern.visible(i, j)) continue;
    any = true;
    m = std::max(m, static_cast<double>(scores[j]));
  }
  if (!any) return false;
  if (kind == SoftmaxKind::kStable && std::isinf(m) && m > 0) {
    int count = 0;
    for (int j = lo; j < hi; ++j) count += pattern.visible(i, j) && scores[j] == m ? 1 : 0;
    for (int j = lo; j < hi; ++j)
      if (pattern.visible(i, j) && scores[j] == m) p[j] = r(1.0 / count);
    return true;
  }
  double sum = 0.0;
  for (int j = lo; j < hi; ++j) {
    if (!pattern.visible(i, j)) continue;
    const double s = scores[j];
    // Stable: the shift is formed in the format too (a score −inf gives e^−inf = 0).
    const double argument = kind == SoftmaxKind::kStable ? r(s - m) : s;
    p[j] = r(std::exp(argument));
    sum = r(sum + p[j]);
  }
  for (int j = lo; j < hi; ++j)
    if (pattern.visible(i, j)) p[j] = r(static_cast<double>(p[j]) / sum);
  return true;
}

void applyDropout(float* weights, int h, int n_q, int n_k, const MaskPattern& pattern, double p,
                  std::uint64_t seed, Precision precision, std::vector<std::uint8_t>& dropped) {
  const std::size_t cells = static_cast<std::size_t>(h) * n_q * n_k;
  dropped.assign(cells, 0);
  if (!(p > 0.0)) return;
  const double keep_scale = 1.0 / (1.0 - p);
  const std::uint64_t stream = mix(seed ^ 0xD809A0C5B7E4F1A3ull);
  for (int head = 0; head < h; ++head) {
    for (int i = 0; i < n_q; ++i) {
      const std::size_t row = (static_cast<std::size_t>(head) * n_q + i) * n_k;
      for (int j = 0; j < n_k; ++j) {
        if (!pattern.visible(i, j)) continue;
        const std::size_t cell = row + static_cast<std::size_t>(j);
        // 53 random bits: a uniform double in [0, 1).
        const double u = static_cast<double>(mix(stream ^ mix(cell)) >> 11) * 0x1p-53;
        if (u < p) {
          weights[cell] = 0.0f;
          dropped[cell] = 1;
        } else {
          weights[cell] = roundTo(precision, static_cast<double>(weights[cell]) * keep_scale);
        }
      }
    }
  }
}

}  // namespace attnlab
