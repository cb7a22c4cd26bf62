// quantiseActivations (quant_kernels.hpp): one definition for every path, so the int8 values
// the path kernels multiply are the same everywhere. SSE2 (every x86-64) or plain loops: the same
// values either way (max |x| is exact in any order; x · (127 / max |x|) rounded to the nearest
// integer, ties to even, as nearbyint and cvtps2dq both do in the default rounding mode).

#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu/quant_kernels.hpp"

namespace attnlab::kernels {
namespace {

/// max |x_i| over n elements (n a multiple of 16).
float largestMagnitude(const float* x, int n) {
#if defined(__SSE2__)
  const __m128 magnitude = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF));
  __m128 m = _mm_setzero_ps();
  for (int i = 0; i < n; i += 4) m = _mm_max_ps(m, _mm_and_ps(_mm_loadu_ps(x + i), magnitude));
  float lanes[4];
  _mm_storeu_ps(lanes, m);
  return std::fmax(std::fmax(lanes[0], lanes[1]), std::fmax(lanes[2], lanes[3]));
#else
  float amax = 0.0f;
  for (int i = 0; i < n; ++i) amax = std::fmax(amax, std::fabs(x[i]));
  return amax;
#endif
}

/// q[i] = x[i] · id rounded to the nearest integer (|q| ≤ 127 as |x| ≤ max |x|).
void roundScaled(const float* x, int n, float id, signed char* q) {
#if defined(__SSE2__)
  const __m128 s = _mm_set1_ps(id);
  const __m128i lo = _mm_set1_epi16(-127), hi = _mm_set1_epi16(127);
  for (int i = 0; i < n; i += 16) {
    const __m128i a = _mm_cvtps_epi32(_mm_mul_ps(_mm_loadu_ps(x + i), s));
    const __m128i b = _mm_cvtps_epi32(_mm_mul_ps(_mm_loadu_ps(x + i + 4), s));
    const __m128i c = _mm_cvtps_epi32(_mm_mul_ps(_mm_loadu_ps(x + i + 8), s));
    const __m128i d = _mm_cvtps_epi32(_mm_mul_ps(_mm_loadu_ps(x + i + 12), s));
    const __m128i ab = _mm_min_epi16(_mm_max_epi16(_mm_packs_epi32(a, b), lo), hi);
    const __m128i cd = _mm_min_epi16(_mm_max_epi16(_mm_packs_epi32(c, d), lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), _mm_packs_epi16(ab, cd));
  }
#else
  for (int i = 0; i < n; ++i) {
    const float v = std::nearbyint(x[i] * id);
    q[i] = static_cast<signed char>(std::fmax(-127.0f, std::fmin(127.0f, v)));
  }
#endif
}

}  // namespace

void quantiseActivations(const float* x, long in, int block, float* d, signed char* q,
                         short* sums16) {
  for (long b = 0; b < in / block; ++b) {
    const float* xb = x + b * block;
    const float amax = largestMagnitude(xb, block);
    const float id = amax > 0.0f ? 127.0f / amax : 0.0f;
    d[b] = amax / 127.0f;
    roundScaled(xb, block, id, q + b * block);
  }
  for (long s = 0; s < in / 16; ++s) {
    int sum = 0;
    for (int i = 0; i < 16; ++i) sum += q[16 * s + i];
    sums16[s] = static_cast<short>(sum);
  }
}

}  // namespace attnlab::kernels
