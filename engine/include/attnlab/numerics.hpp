#pragma once
/// \file numerics.hpp
/// Reduced-precision softmax and dropout on the attention weights (issue 13), for the CPU
/// reference. Half precision is emulated exactly in software: every value is a double rounded to
/// the format with round-to-nearest, ties to even, so results do not depend on the machine's own
/// half-precision support.
///
/// Formats (IEEE 754-2008 §3.6 for binary16; bfloat16 as in Kalamkar et al. 2019):
///   fp16: 1 sign, 5 exponent, 10 fraction bits; largest finite 65504 = 0x7BFF; values from 65520
///         up round to +inf; subnormals down to 2^-24 = 0x0001.
///   bf16: 1 sign, 8 exponent, 7 fraction bits (the upper half of a binary32); largest finite
///         (2 − 2^-7)·2^127 ≈ 3.39e38 = 0x7F7F.

#include <cstdint>
#include <vector>

#include "attnlab/spec.hpp"

namespace attnlab {

/// x rounded to `precision` (round to nearest, ties to even; overflow to ±inf; NaN stays NaN),
/// returned as a float (every fp16 and bf16 value is a float). kFp32 rounds to binary32.
float roundTo(Precision precision, double x);
/// The binary16 bit pattern of x rounded to fp16 (NaN: 0x7E00 with x's sign).
std::uint16_t fp16Bits(double x);
/// The value of a binary16 bit pattern.
float fp16FromBits(std::uint16_t bits);
/// The bfloat16 bit pattern of x rounded to bf16 (NaN: 0x7FC0 with x's sign).
std::uint16_t bf16Bits(double x);
/// The largest finite value of the format (65504 for fp16, ≈ 3.39e38 bf16, FLT_MAX fp32).
double largestFinite(Precision precision);

/// One softmax row in `precision`, the `kind` way, over the keys of row i that `pattern` shows.
/// scores [n] are the row's scores S (after scale and bias), already rounded to the format.
/// Writes p [n]: masked keys 0; visible keys
///   stable: e_j = r(exp(r(s_j − m))), m the largest visible score;
///   naive:  e_j = r(exp(s_j));
///   sum = r(…r(r(e_0) + e_1)…) accumulated left to right in the format, w_j = r(e_j / sum),
/// r = roundTo(precision, ·) of the exact double result. So a naive fp16 row with a score above
/// ln 65520 ≈ 11.09 gets e_j = +inf, sum = +inf and w_j = NaN for that key, 0 for the rest (the
/// row is "non-finite"); a sum that overflows while every e_j is finite gives zeros. A stable row
/// whose maximum is +inf shares the weight among the +inf keys (the limit; the fp32 path's rule).
/// Returns false when no key is visible (p all 0).
bool reducedSoftmaxRow(const float* scores, float* p, int n, const MaskPattern& pattern, int i,
                       Precision precision, SoftmaxKind kind);

/// Inverted dropout (Srivastava et al. 2014; on attention weights: Vaswani et al. 2017, §5.4) on
/// weights [h, n_q, n_k] in place: each visible weight is kept with probability 1 − p and then
/// multiplied by 1/(1 − p) (rounded to `precision`), else set to 0 and marked in `dropped`
/// ([h·n_q·n_k], 1 = dropped; resized). The draw of cell (head, i, j) is a uniform double in
/// [0, 1) from SplitMix64 of (seed, cell index), so a seed gives the same cells on every machine.
/// p = 0 leaves the weights untouched (and `dropped` all 0). Requires 0 ≤ p < 1.
void applyDropout(float* weights, int h, int n_q, int n_k, const MaskPattern& pattern, double p,
                  std::uint64_t seed, Precision precision, std::vector<std::uint8_t>& dropped);

}  // namespace attnlab
