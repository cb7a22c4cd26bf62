// The one-row products over quantised blocks (quant_kernels.hpp), written once for every
// instruction-set path. Included by exactly one kernel file per path, which defines:
//   ATTNLAB_QUANT_TABLE  the table's name (kQuantAvx512, kQuantAvx2, kQuantBaseline)
//   ATTNLAB_KERNEL_NAME  its printed name
//   ATTNLAB_LANES        floats per vector register (16, 8, 4)
// Each block is dequantised straight into vectors of the path's width — the bytes widened and
// converted, then ggml's formula (ggml-quants.c's reference dequantisers, the layouts of
// ggml-common.h; model/gguf_quants.cpp is the scalar reading of the same formulas) in the same
// order of float32 operations, so every weight equals the load-time dequantisation's bit for bit
// — and multiplied into four vector accumulators. The file is compiled with -ffp-contract=off:
// the only fused multiply-adds are madd()'s, weight × activation. Nothing here has external
// linkage but the table (see dense_kernels.hpp for why).

#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>  // intrinsics only: always inlined, never an out-of-line copy to merge
#endif

#include "cpu/quant_kernels.hpp"

namespace attnlab::kernels {
namespace {

constexpr int kLanes = ATTNLAB_LANES;
constexpr int kChains = 4;  // independent accumulators per row
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));
typedef unsigned Words __attribute__((vector_size(kLanes * sizeof(unsigned))));
typedef int Ints __attribute__((vector_size(kLanes * sizeof(int))));

inline Vec load(const float* p) {
  Vec v;
  memcpy(&v, p, sizeof v);
  return v;
}

// GCC 12 reports its own _mm512_undefined_epi32() in avx512fintrin.h's widenings as maybe used
// uninitialised (the masked form's pass-through operand, which the all-ones mask never reads).
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/// kLanes bytes at p widened to ints, zero- or sign-extended (one widening instruction on x86;
/// GCC 12 widens a generic byte vector lane by lane).
template <bool kSigned>
inline Ints widen(const unsigned char* p) {
#if defined(__AVX512F__) && ATTNLAB_LANES == 16
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return (Ints)(kSigned ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b));
#elif defined(__AVX2__) && ATTNLAB_LANES == 8
  const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return (Ints)(kSigned ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b));
#elif defined(__SSE4_1__) && ATTNLAB_LANES == 4
  int word;
  memcpy(&word, p, sizeof word);
  const __m128i b = _mm_cvtsi32_si128(word);
  return (Ints)(kSigned ? _mm_cvtepi8_epi32(b) : _mm_cvtepu8_epi32(b));
#else
  Ints v;
  for (int l = 0; l < kLanes; ++l)
    v[l] = kSigned ? static_cast<signed char>(p[l]) : static_cast<int>(p[l]);
  return v;
#endif
}

#pragma GCC diagnostic pop

inline Ints bytes(const unsigned char* p) { return widen<false>(p); }

/// Small ints as floats, exactly.
inline Vec toFloat(Ints i) { return __builtin_convertvector(i, Vec); }

/// acc + a·b: one fused multiply-add where the path has FMA, else a multiply and an add.
inline Vec madd(Vec a, Vec b, Vec acc) {
#if defined(__AVX512F__) && ATTNLAB_LANES == 16
  return _mm512_fmadd_ps(a, b, acc);
#elif defined(__FMA__) && ATTNLAB_LANES == 8
  return _mm256_fmadd_ps(a, b, acc);
#else
  return a * b + acc;
#endif
}

/// The IEEE binary16 at p (little-endian) as float32, exactly (F16C where the path has it).
inline float half(const unsigned char* p) {
  const auto bits = static_cast<unsigned short>(p[0] | p[1] << 8);
#if defined(__F16C__)
  return _cvtsh_ss(bits);
#else
  if ((bits & 0x7C00u) == 0x7C00u) {  // infinity or NaN
    const unsigned b = (static_cast<unsigned>(bits & 0x8000u) << 16) | 0x7F800000u |
                       (static_cast<unsigned>(bits & 0x3FFu) << 13);
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
  }
  // Exponent and mantissa moved into float32's fields, then rebiased by 2^(127 − 15): exact for
  // normal and subnormal halves alike (the product is a normal float32).
  const unsigned m = static_cast<unsigned>(bits & 0x7FFFu) << 13;
  float f;
  memcpy(&f, &m, sizeof f);
  f *= 0x1p112f;
  return (bits & 0x8000u) != 0 ? -f : f;
#endif
}

/// The accumulators of one row; put(k, …) adds weights w times activations x[0, kLanes) into
/// chain k mod 4 (k a constant of the unrolled block loop, so the chains stay in registers).
struct Acc {
  Vec v[kChains] = {};
  void put(int k, Vec w, const float* x) { v[k % kChains] = madd(w, load(x), v[k % kChains]); }
  float sum() const {
    float t[kLanes];
    const Vec s = (v[0] + v[1]) + (v[2] + v[3]);
    memcpy(t, &s, sizeof t);
    for (int w = kLanes / 2; w >= 1; w /= 2)  // a tree, not a chain of kLanes dependent adds
      for (int l = 0; l < w; ++l) t[l] += t[l + w];
    return t[0];
  }
};

/// Bits [j, j + kLanes) of qh, one per lane, moved to bit `to`: qh's fifth bits (Q5_0, Q5_1).
inline Ints highBits(unsigned qh, int j, int to) {
  Words lane;
  for (int l = 0; l < kLanes; ++l) lane[l] = static_cast<unsigned>(j + l);
  const Words bits = ((Words{} + qh) >> lane) & 1u;
  return reinterpret_cast<const Ints&>(bits) << to;
}

inline unsigned readU32(const unsigned char* p) {
  unsigned v;
  memcpy(&v, p, sizeof v);
  return v;
}

// block_q4_0 { half d; uint8 qs[16]; }: w[j] = (lo nibble − 8)·d, w[j + 16] = (hi nibble − 8)·d.
inline void q4_0(const unsigned char* b, const float* x, Acc& acc) {
  const float d = half(b);
  for (int c = 0; c < 16; c += kLanes) {
    const Ints q = bytes(b + 2 + c);
    acc.put(c / kLanes, toFloat((q & 15) - 8) * d, x + c);
    acc.put(c / kLanes + 1, toFloat((q >> 4) - 8) * d, x + 16 + c);
  }
}

// block_q4_1 { half d, m; uint8 qs[16]; }: w = q·d + m.
inline void q4_1(const unsigned char* b, const float* x, Acc& acc) {
  const float d = half(b), m = half(b + 2);
  for (int c = 0; c < 16; c += kLanes) {
    const Ints q = bytes(b + 4 + c);
    acc.put(c / kLanes, toFloat(q & 15) * d + m, x + c);
    acc.put(c / kLanes + 1, toFloat(q >> 4) * d + m, x + 16 + c);
  }
}

// block_q5_0 { half d; uint8 qh[4]; uint8 qs[16]; }: the fifth bit of element j is bit j of qh.
inline void q5_0(const unsigned char* b, const float* x, Acc& acc) {
  const float d = half(b);
  const unsigned qh = readU32(b + 2);
  for (int c = 0; c < 16; c += kLanes) {
    const Ints q = bytes(b + 6 + c);
    const Ints lo = (q & 15) | highBits(qh, c, 4);
    const Ints hi = (q >> 4) | highBits(qh, c + 16, 4);
    acc.put(c / kLanes, toFloat(lo - 16) * d, x + c);
    acc.put(c / kLanes + 1, toFloat(hi - 16) * d, x + 16 + c);
  }
}

// block_q5_1 { half d, m; uint8 qh[4]; uint8 qs[16]; }: w = q·d + m.
inline void q5_1(const unsigned char* b, const float* x, Acc& acc) {
  const float d = half(b), m = half(b + 2);
  const unsigned qh = readU32(b + 4);
  for (int c = 0; c < 16; c += kLanes) {
    const Ints q = bytes(b + 8 + c);
    const Ints lo = (q & 15) | highBits(qh, c, 4);
    const Ints hi = (q >> 4) | highBits(qh, c + 16, 4);
    acc.put(c / kLanes, toFloat(lo) * d + m, x + c);
    acc.put(c / kLanes + 1, toFloat(hi) * d + m, x + 16 + c);
  }
}

// block_q8_0 { half d; int8 qs[32]; }: w = q·d.
inline void q8_0(const unsigned char* b, const float* x, Acc& acc) {
  const float d = half(b);
  for (int c = 0; c < 32; c += kLanes)
    acc.put(c / kLanes, toFloat(widen<true>(b + 2 + c)) * d, x + c);
}

// The 6-bit scale and min of sub-block j from the 12 packed bytes of Q4_K and Q5_K
// (ggml-quants.c get_scale_min_k4), as floats.
inline void scaleMinK4(int j, const unsigned char* q, float* d, float* m) {
  if (j < 4) {
    *d = static_cast<float>(q[j] & 63);
    *m = static_cast<float>(q[j + 4] & 63);
  } else {
    *d = static_cast<float>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    *m = static_cast<float>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

// block_q4_K { half d, dmin; uint8 scales[12]; uint8 qs[128]; }: 8 sub-blocks of 32,
// w = (d·sc)·q − dmin·m.
inline void q4_K(const unsigned char* b, const float* x, Acc& acc) {
  const float d = half(b), min = half(b + 2);
  const unsigned char* q = b + 16;
  for (int j = 0; j < 4; ++j, q += 32) {
    float sc, m;
    scaleMinK4(2 * j, b + 4, &sc, &m);
    const float d1 = d * sc, m1 = min * m;
    scaleMinK4(2 * j + 1, b + 4, &sc, &m);
    const float d2 = d * sc, m2 = min * m;
    for (int c = 0; c < 32; c += kLanes) {
      const Ints v = bytes(q + c);
      acc.put(c / kLanes, toFloat(v & 15) * d1 - m1, x + 64 * j + c);
      acc.put(c / kLanes + 1, toFloat(v >> 4) * d2 - m2, x + 64 * j + 32 + c);
    }
  }
}

// block_q5_K { half d, dmin; uint8 scales[12]; uint8 qh[32]; uint8 qs[128]; }: as Q4_K with a
// fifth bit per weight, bit 2j (low nibbles) or 2j + 1 (high) of qh[l] in sub-block pair j.
inline void q5_K(const unsigned char* b, const float* x, Acc& acc) {
  const float d = half(b), min = half(b + 2);
  const unsigned char* qh = b + 16;
  const unsigned char* ql = b + 48;
  for (int j = 0; j < 4; ++j, ql += 32) {
    float sc, m;
    scaleMinK4(2 * j, b + 4, &sc, &m);
    const float d1 = d * sc, m1 = min * m;
    scaleMinK4(2 * j + 1, b + 4, &sc, &m);
    const float d2 = d * sc, m2 = min * m;
    for (int c = 0; c < 32; c += kLanes) {
      const Ints v = bytes(ql + c), h = bytes(qh + c);
      const Ints lo = (v & 15) + (((h >> (2 * j)) & 1) << 4);
      const Ints hi = (v >> 4) + (((h >> (2 * j + 1)) & 1) << 4);
      acc.put(c / kLanes, toFloat(lo) * d1 - m1, x + 64 * j + c);
      acc.put(c / kLanes + 1, toFloat(hi) * d2 - m2, x + 64 * j + 32 + c);
    }
  }
}

// block_q6_K { uint8 ql[128]; uint8 qh[64]; int8 scales[16]; half d; }: 16 sub-blocks of 16,
// w = (d·sc)·(q − 32) with 6-bit q from a low nibble and two high bits.
inline void q6_K(const unsigned char* b, const float* x, Acc& acc) {
  const float d = half(b + 208);
  const unsigned char* ql = b;
  const unsigned char* qh = b + 128;
  const unsigned char* sc = b + 192;
  for (int n = 0; n < 256; n += 128, ql += 64, qh += 32, sc += 8) {
    for (int c = 0; c < 32; c += kLanes) {
      const int is = c / 16;  // kLanes ≤ 16: one scale per vector
      auto scale = [&](int k) { return d * static_cast<float>(static_cast<signed char>(sc[k])); };
      const Ints a = bytes(ql + c), a2 = bytes(ql + 32 + c), h = bytes(qh + c);
      const Ints q1 = ((a & 15) | ((h & 3) << 4)) - 32;
      const Ints q2 = ((a2 & 15) | (((h >> 2) & 3) << 4)) - 32;
      const Ints q3 = ((a >> 4) | (((h >> 4) & 3) << 4)) - 32;
      const Ints q4 = ((a2 >> 4) | (((h >> 6) & 3) << 4)) - 32;
      acc.put(0, scale(is + 0) * toFloat(q1), x + n + c);
      acc.put(1, scale(is + 2) * toFloat(q2), x + n + 32 + c);
      acc.put(2, scale(is + 4) * toFloat(q3), x + n + 64 + c);
      acc.put(3, scale(is + 6) * toFloat(q4), x + n + 96 + c);
    }
  }
}

/// Rows [r0, r1) of W (blocks of kBlock elements, kBytes bytes, read by Dot) times x.
template <int kBlock, int kBytes, void (*Dot)(const unsigned char*, const float*, Acc&)>
void rowsProduct(const unsigned char* rows, long row_bytes, long in, const float* x, long r0,
                 long r1, float* y) {
  const long blocks = in / kBlock;
  for (long r = r0; r < r1; ++r) {
    const unsigned char* row = rows + r * row_bytes;
    Acc acc;
    for (long k = 0; k < blocks; ++k) Dot(row + k * kBytes, x + k * kBlock, acc);
    y[r - r0] = acc.sum();
  }
}

}  // namespace

extern const QuantKernel ATTNLAB_QUANT_TABLE;
const QuantKernel ATTNLAB_QUANT_TABLE = {
    ATTNLAB_KERNEL_NAME,          &rowsProduct<32, 18, q4_0>,   &rowsProduct<32, 20, q4_1>,
    &rowsProduct<32, 22, q5_0>,   &rowsProduct<32, 24, q5_1>,   &rowsProduct<32, 34, q8_0>,
    &rowsProduct<256, 144, q4_K>, &rowsProduct<256, 176, q5_K>, &rowsProduct<256, 210, q6_K>,
};

}  // namespace attnlab::kernels
