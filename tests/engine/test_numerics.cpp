// Issue 13: half-precision softmax (fp16 / bf16 emulated exactly, stable and naive) and dropout
// on the weights — hand-computed bit patterns, the fp16 overflow threshold, dropout's mean.

#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/numerics.hpp"
#include "helpers.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_numerics {

using namespace attnlab;

TEST_CASE("fp16 rounding gives the hand-computed binary16 bit patterns", "[numerics]") {
  CHECK(fp16Bits(1.0) == 0x3C00);
  CHECK(fp16Bits(-2.0) == 0xC000);
  CHECK(fp16Bits(65504.0) == 0x7BFF);          // the largest finite value
  CHECK(fp16Bits(65519.0) == 0x7BFF);          // below the halfway point 65520
  CHECK(fp16Bits(65520.0) == 0x7C00);          // halfway: ties to even = 2^16, beyond range: +inf
  CHECK(fp16Bits(1.0 / 3.0) == 0x3555);        // 0.333251953125
  CHECK(fp16Bits(2049.0) == 0x6800);           // spacing 2 at 2048: tie, even mantissa (2048)
  CHECK(fp16Bits(2051.0) == 0x6802);           // tie between 2050 (odd) and 2052 (even)
  CHECK(fp16Bits(std::ldexp(1.0, -24)) == 0x0001);       // the smallest subnormal
  CHECK(fp16Bits(std::ldexp(1.0, -25)) == 0x0000);       // tie between 0 and 2^-24: 0 (even)
  CHECK(fp16Bits(3 * std::ldexp(1.0, -25)) == 0x0002);   // 1.5 quanta: tie, rounds to 2 (even)
  CHECK(fp16Bits(std::ldexp(1.0, -14)) == 0x0400);       // the smallest normal
  CHECK(fp16Bits(std::exp(11.0)) == 0x7B4F);  // e^11 = 59874.14 -> 59872 = 1.8271484375 * 2^15
  CHECK(fp16Bits(std::exp(11.2)) == 0x7C00);  // e^11.2 = 73130 overflows
  CHECK(fp16Bits(NAN) == 0x7E00);
  for (std::uint16_t bits : {0x3C00, 0x3555, 0x7BFF, 0x0001, 0x0400, 0x6802, 0xC000})
    CHECK(fp16Bits(fp16FromBits(bits)) == bits);
  CHECK(fp16FromBits(0x7BFF) == 65504.0f);
  CHECK(std::isinf(roundTo(Precision::kFp16, 70000.0)));
}

TEST_CASE("bf16 rounding gives the hand-computed bfloat16 bit patterns", "[numerics]") {
  CHECK(bf16Bits(1.0) == 0x3F80);
  // 1/3 = 0x3EAAAAAB as binary32: the upper half 0x3EAA, the lower 0xAAAB > 0x8000: rounds up.
  CHECK(bf16Bits(1.0 / 3.0) == 0x3EAB);
  CHECK(bf16Bits(M_PI) == 0x4049);  // pi = 0x40490FDB: lower half 0x0FDB < 0x8000
  CHECK(bf16Bits(1.0 + std::ldexp(1.0, -8)) == 0x3F80);      // tie: 0x3F80 is even
  CHECK(bf16Bits(1.0 + 3 * std::ldexp(1.0, -8)) == 0x3F82);  // tie: 0x3F81 is odd, up
  CHECK(bf16Bits(0x1.FEp127) == 0x7F7F);                     // the largest finite value
  CHECK(bf16Bits(double(FLT_MAX)) == 0x7F80);                // rounds past it: +inf
  CHECK(bf16Bits(-std::exp(11.2)) == 0xC78F);  // -73130.4 -> -73216 = -(1 + 15/128) * 2^16
  CHECK(roundTo(Precision::kBf16, std::exp(11.2)) == 73216.0f);
  CHECK(std::isfinite(roundTo(Precision::kBf16, std::exp(88.0))));
  CHECK(std::isinf(roundTo(Precision::kBf16, std::exp(89.0))));
}

namespace {

// One softmax row over every key in `precision` the `kind` way.
std::vector<float> row(std::vector<float> scores, Precision precision, SoftmaxKind kind) {
  for (float& s : scores) s = roundTo(precision, s);
  std::vector<float> p(scores.size());
  reducedSoftmaxRow(scores.data(), p.data(), static_cast<int>(p.size()), MaskPattern{}, 0,
                    precision, kind);
  return p;
}

bool finite(const std::vector<float>& p) {
  for (float x : p)
    if (!std::isfinite(x)) return false;
  return true;
}

}  // namespace

TEST_CASE("the naive fp16 softmax overflows exactly when the row maximum exceeds ln 65520 = 11.09",
          "[numerics]") {
  const auto fp16 = Precision::kFp16;
  const auto naive = SoftmaxKind::kNaive, stable = SoftmaxKind::kStable;
  // 11.0: e^11 = 59872 in fp16; sum 59872 + 1 + e^-2 -> 59872 (spacing 32): weights 1, 0, 0.
  const std::vector<float> at11 = row({11.0f, 0.0f, -2.0f}, fp16, naive);
  REQUIRE(finite(at11));
  CHECK(at11[0] == 1.0f);
  CHECK(at11[1] == roundTo(fp16, 1.0 / 59872.0));
  // 11.2: e^11.2 = 73130 > 65504 -> +inf, the sum +inf: the maximum's weight inf/inf = NaN.
  const std::vector<float> at112 = row({11.2f, 0.0f, -2.0f}, fp16, naive);
  CHECK(std::isnan(at112[0]));
  CHECK(at112[1] == 0.0f);
  // Around the threshold: 11.08 (fp16 11.078125, e^ = 64757) stays finite, 11.1 (11.1015625,
  // e^ = 66285) does not.
  CHECK(finite(row({11.08f, 1.0f}, fp16, naive)));
  CHECK_FALSE(finite(row({11.1f, 1.0f}, fp16, naive)));
  // The stable twin never overflows; it matches the float32 softmax to fp16's resolution.
  const std::vector<float> stable112 = row({11.2f, 0.0f, -2.0f}, fp16, stable);
  REQUIRE(finite(stable112));
  const double z = 1 + std::exp(-11.2) + std::exp(-13.2);
  CHECK(stable112[0] == Approx(1 / z).margin(1e-3));
  CHECK(finite(row({60000.0f, 0.0f}, fp16, stable)));
  // bf16 has float32's range: naive overflows only past ln(3.39e38) = 88.7.
  CHECK(finite(row({11.2f, 0.0f}, Precision::kBf16, naive)));
  CHECK(finite(row({88.0f, 0.0f}, Precision::kBf16, naive)));
  CHECK_FALSE(finite(row({89.0f, 0.0f}, Precision::kBf16, naive)));
  // float32 naive: past 88.72.
  CHECK_FALSE(finite(row({89.0f, 0.0f}, Precision::kFp32, naive)));
}

TEST_CASE("the CPU reference in fp16 naive: the row with a score of 11.2 is non-finite, the other is not",
          "[numerics]") {
  AttentionInputs in;
  in.q = test::oneHead({{1.0f}, {1.0f}});
  in.k = test::oneHead({{11.2f}, {0.5f}});
  in.v = test::oneHead({{1.0f}, {2.0f}});
  in.q(0, 1, 0) = 11.0f / 11.2f;  // row 1's largest score: 11.0 (after rounding, below 11.09)
  AttentionSpec spec;
  spec.mechanism = Mechanism::kDot;
  spec.heads = 1;
  spec.d_model = 1;
  spec.precision = Precision::kFp16;
  spec.softmax = SoftmaxKind::kNaive;
  const AttentionResult r = computeAttentionCpu(in, spec);
  CHECK(r.nonfiniteRow(0, 0));
  CHECK(std::isnan(r.head_outputs(0, 0, 0)));
  CHECK_FALSE(r.nonfiniteRow(0, 1));
  CHECK(std::isfinite(r.head_outputs(0, 1, 0)));
  // Scores are reported rounded to fp16: 11.2 -> 11.203125.
  CHECK(r.scores(0, 0, 0) == 11.203125f);
  spec.softmax = SoftmaxKind::kStable;
  const AttentionResult s = computeAttentionCpu(in, spec);
  CHECK_FALSE(s.nonfiniteRow(0, 0));
  CHECK_FALSE(s.nonfiniteRow(0, 1));
  CHECK(cpuOnlyNumericsNames(spec) == "--precision fp16");
  spec.softmax = SoftmaxKind::kNaive;
  spec.dropout = 0.25;
  CHECK(cpuOnlyNumericsNames(spec) == "--precision fp16, --softmax naive, --dropout 0.25");
}

TEST_CASE("dropout: p = 0 is exactly no dropout; the mean over 2000 seeds is the undropped weights",
          "[numerics]") {
  const AttentionInputs in = test::randomInputs(2, 7, 7, 8, 8, 42);
  AttentionSpec spec;
  spec.heads = 2;
  spec.d_model = 16;
  spec.d_k = 8;
  const bool causal = GENERATE(false, true);
  spec.mask = causal ? Mask::kCausal : Mask::kNone;
  const AttentionResult plain = computeAttentionCpu(in, spec);
  spec.dropout_seed = 17;
  spec.dropout = 0.0;
  const AttentionResult zero = computeAttentionCpu(in, spec);
  CHECK(zero.weights.data == plain.weights.data);
  CHECK(zero.head_outputs.data == plain.head_outputs.data);

  spec.dropout = 0.1;
  std::vector<double> mean(plain.weights.data.size(), 0.0);
  constexpr int kSeeds = 2000;
  bool some_row_off_one = false;
  for (int seed = 0; seed < kSeeds; ++seed) {
    spec.dropout_seed = static_cast<std::uint64_t>(seed);
    const AttentionResult d = computeAttentionCpu(in, spec);
    for (std::size_t c = 0; c < mean.size(); ++c) mean[c] += d.weights.data[c] / kSeeds;
    if (seed == 0) {
      // Dropped cells are 0, kept ones scaled by 1/(1 − p); masked cells are never "dropped".
      for (int h = 0; h < 2; ++h)
        for (int i = 0; i < 7; ++i) {
          double sum = 0;
          for (int j = 0; j < 7; ++j) {
            sum += d.weights(h, i, j);
            if (d.isDropped(h, i, j)) {
              CHECK(d.weights(h, i, j) == 0.0f);
            } else {
              CHECK(d.weights(h, i, j) == Approx(plain.weights(h, i, j) / 0.9).epsilon(1e-6));
            }
            if (causal && j > i) CHECK_FALSE(d.isDropped(h, i, j));
          }
          some_row_off_one = some_row_off_one || std::abs(sum - 1.0) > 1e-3;
        }
    }
  }
  CHECK(some_row_off_one);
  // Within 2 %: the mean matrix against the undropped one (relative Frobenius norm; expected
  // sqrt(p / ((1 − p)·2000)) = 0.75 %). One weight alone: its kept count is binomial, so its
  // relative error has sd 0.75 % and a quantum of 1/1800; over ~80 cells the largest reaches ~2.7
  // sd (this seed range: exactly 36/1800 = 2.0 %), so each weight above 0.05 gets 4 sd = 3 %.
  double diff2 = 0, norm2 = 0, worst = 0;
  for (std::size_t c = 0; c < mean.size(); ++c) {
    const double w = plain.weights.data[c];
    diff2 += (mean[c] - w) * (mean[c] - w);
    norm2 += w * w;
    if (w > 0.05) worst = std::max(worst, std::abs(mean[c] - w) / w);
  }
  INFO("relative norm " << std::sqrt(diff2 / norm2) << ", worst weight " << worst);
  CHECK(std::sqrt(diff2 / norm2) < 0.02);
  CHECK(worst < 0.03);
}

}  // namespace attnlab_test_numerics
