// The kernels over weights as stored (quant_kernels.hpp), written once for every instruction-set
// path. Included by exactly one kernel file per path, which defines:
//   ATTNLAB_QUANT_TABLE  the table's name (kQuantAvx512, kQuantAvx2, kQuantBaseline)
//   ATTNLAB_KERNEL_NAME  its printed name
//   ATTNLAB_LANES        floats per vector register (16, 8, 4)
// Each type has one decoder (a struct below: its block size, its block bytes and decode()),
// which turns a block into vectors of the path's width — the bytes widened and converted, then
// ggml's formula (ggml-quants.c's reference dequantisers, the layouts of ggml-common.h;
// model/gguf_quants.cpp is the scalar reading of the same formulas) in the same order of float32
// operations, so every weight equals the load-time dequantisation's bit for bit — and hands each
// vector to a sink: Dot multiplies it into four accumulators (the one-row product), Store writes
// it out (dequantisation). The file is compiled with -ffp-contract=off: the only fused
// multiply-adds are madd()'s, weight × activation. Nothing here has external linkage but the
// table (see dense_kernels.hpp for why).

#include <string.h>

#include <type_traits>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>  // intrinsics only: always inlined, never an out-of-line copy to merge
#endif

#include "cpu/quant_kernels.hpp"

namespace attnlab::kernels {
namespace {

constexpr int kLanes = ATTNLAB_LANES;
constexpr int kChains = 8;  // independent accumulators per row
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));
typedef unsigned Words __attribute__((vector_size(kLanes * sizeof(unsigned))));
typedef int Ints __attribute__((vector_size(kLanes * sizeof(int))));

inline Vec load(const float* p) {
  Vec v;
  memcpy(&v, p, sizeof v);
  return v;
}

// GCC 12 reports its own _mm512_undefined_*() in avx512fintrin.h's widenings, conversions and
// permutations as maybe used uninitialised (the masked forms' pass-through operand, which the
// all-ones mask never reads), wherever they are inlined: silenced for the rest of the file.
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

/// The one-row product's sink: put(k, w, o) adds weights w times activations x[o, o + kLanes)
/// into chain (o / kLanes) mod 8 — the vector's place in its block, a constant of the unrolled
/// block loop, so the chains stay in registers and every vector of a block goes to a chain of
/// its own (a K-quant block's sixteen vectors on the avx512 path: two FMAs per chain, not eight
/// on one chain waiting on the FMA latency).
struct Dot {
  const float* x = nullptr;  // the current block's activations
  Vec v[kChains] = {};
  void put(int, Vec w, int o) {
    constexpr int kMask = kChains - 1;
    v[(o / kLanes) & kMask] = madd(w, load(x + o), v[(o / kLanes) & kMask]);
  }
  float sum() const {
    float t[kLanes];
    const Vec s = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
    memcpy(t, &s, sizeof t);
    for (int w = kLanes / 2; w >= 1; w /= 2)  // a tree, not a chain of kLanes dependent adds
      for (int l = 0; l < w; ++l) t[l] += t[l + w];
    return t[0];
  }
  /// One more weight and activation outside the vectors (a plain type's tail).
  void scalar(float w, float a) { v[0][0] = v[0][0] + w * a; }
};

/// Dot's put() for a second block of the same row, whose vectors go to the chains after the
/// first block's: two blocks decoded per loop turn keep the chains busy where a block has few
/// vectors (Q8_0 on the avx512 path: two).
template <int kShift>
struct DotShifted {
  Dot& d;
  const float* x;  // this block's activations
  void put(int, Vec w, int o) {
    constexpr int kMask = kChains - 1;
    d.v[(o / kLanes + kShift) & kMask] = madd(w, load(x + o), d.v[(o / kLanes + kShift) & kMask]);
  }
};

/// The dequantisation's sink: put(k, w, o) stores w at out[o, o + kLanes).
struct Store {
  float* out = nullptr;  // the current block's elements
  void put(int, Vec w, int o) { memcpy(out + o, &w, sizeof w); }
};

// --- The one-row product, factored (rowsProduct for the types with a dot()) --------------------
// Σ_k w_k·x_k over a block as ggml's own vector dot products form it: the quantised values times
// the activations first, Σ q·x, then the block's (or sub-block's) scale, and its minimum or offset
// times Σ x — the activations' sums of 32 (Q2_K: 16) taken once per product (xs). Per vector that
// is the conversion and one multiply-add instead of also the scale's multiply and the minimum's
// subtraction (the K-quants' sixteen vectors a block: about 40 % fewer operations). The terms are
// the dequantised weights' products regrouped: within float32 summation's bound of the
// dequantised x · Wᵀ, as before (a unit x still gives each weight exactly).

/// Σ over the vectors at offsets o0, o0 + kLanes, …, o0 + len − kLanes of f(c)·x[c], two chains
/// when there are more than two vectors (the baseline path's eight per 32 elements).
template <int kLen, class F>
inline Vec partial(F f, const float* x) {
  if constexpr (kLen / kLanes <= 2) {
    Vec p = f(0) * load(x);
    #pragma GCC unroll 16
    for (int c = kLanes; c < kLen; c += kLanes) p = madd(f(c), load(x + c), p);
    return p;
  } else {
    Vec p0 = f(0) * load(x), p1 = f(kLanes) * load(x + kLanes);
    #pragma GCC unroll 16
    for (int c = 2 * kLanes; c < kLen; c += 2 * kLanes) {
      p0 = madd(f(c), load(x + c), p0);
      p1 = madd(f(c + kLanes), load(x + c + kLanes), p1);
    }
    return p0 + p1;
  }
}

/// Bits [j, j + kLanes) of qh, one per lane, moved to bit `to`: qh's fifth bits (Q5_0, Q5_1).
inline Ints highBits(unsigned qh, int j, int to) {
#if defined(__AVX512F__) && ATTNLAB_LANES == 16
  // The sixteen bits as a lane mask: 1 << to where set, one masked move.
  return (Ints)_mm512_maskz_mov_epi32(static_cast<__mmask16>(qh >> j), _mm512_set1_epi32(1 << to));
#else
  Words lane;
  for (int l = 0; l < kLanes; ++l) lane[l] = static_cast<unsigned>(j + l);
  const Words bits = ((Words{} + qh) >> lane) & 1u;
  return reinterpret_cast<const Ints&>(bits) << to;
#endif
}

inline unsigned readU32(const unsigned char* p) {
  unsigned v;
  memcpy(&v, p, sizeof v);
  return v;
}

// block_q4_0 { half d; uint8 qs[16]; }: w[j] = (lo nibble − 8)·d, w[j + 16] = (hi nibble − 8)·d.
struct Q4_0 {
  static constexpr int kBlock = 32, kBytes = 18;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b);
    #pragma GCC unroll 16
    for (int c = 0; c < 16; c += kLanes) {
      const Ints q = bytes(b + 2 + c);
      s.put(c / kLanes, toFloat((q & 15) - 8) * d, c);
      s.put(c / kLanes + 1, toFloat((q >> 4) - 8) * d, 16 + c);
    }
  }
  /// Σ w·x of the block into acc[kC]: d · Σ (q − 8)·x.
  template <int kC>
  static void dot(const unsigned char* b, const float* x, const float*, Vec* acc, Vec&) {
    const Vec lo = partial<16>([&](int c) { return toFloat((bytes(b + 2 + c) & 15) - 8); }, x);
    const Vec hi = partial<16>([&](int c) { return toFloat((bytes(b + 2 + c) >> 4) - 8); }, x + 16);
    acc[kC] = madd(Vec{} + half(b), lo + hi, acc[kC]);
  }
};

// block_q4_1 { half d, m; uint8 qs[16]; }: w = q·d + m.
struct Q4_1 {
  static constexpr int kBlock = 32, kBytes = 20;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b), m = half(b + 2);
    #pragma GCC unroll 16
    for (int c = 0; c < 16; c += kLanes) {
      const Ints q = bytes(b + 4 + c);
      s.put(c / kLanes, toFloat(q & 15) * d + m, c);
      s.put(c / kLanes + 1, toFloat(q >> 4) * d + m, 16 + c);
    }
  }
  /// d · Σ q·x + m · Σ x.
  template <int kC>
  static void dot(const unsigned char* b, const float* x, const float* xs, Vec* acc, Vec& mins) {
    const Vec lo = partial<16>([&](int c) { return toFloat(bytes(b + 4 + c) & 15); }, x);
    const Vec hi = partial<16>([&](int c) { return toFloat(bytes(b + 4 + c) >> 4); }, x + 16);
    acc[kC] = madd(Vec{} + half(b), lo + hi, acc[kC]);
    mins[0] = mins[0] - half(b + 2) * xs[0];
  }
};

// block_q5_0 { half d; uint8 qh[4]; uint8 qs[16]; }: the fifth bit of element j is bit j of qh.
struct Q5_0 {
  static constexpr int kBlock = 32, kBytes = 22;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b);
    const unsigned qh = readU32(b + 2);
    #pragma GCC unroll 16
    for (int c = 0; c < 16; c += kLanes) {
      const Ints q = bytes(b + 6 + c);
      const Ints lo = (q & 15) | highBits(qh, c, 4);
      const Ints hi = (q >> 4) | highBits(qh, c + 16, 4);
      s.put(c / kLanes, toFloat(lo - 16) * d, c);
      s.put(c / kLanes + 1, toFloat(hi - 16) * d, 16 + c);
    }
  }
  /// d · Σ (q − 16)·x.
  template <int kC>
  static void dot(const unsigned char* b, const float* x, const float*, Vec* acc, Vec&) {
    const unsigned qh = readU32(b + 2);
    const Vec lo = partial<16>(
        [&](int c) { return toFloat(((bytes(b + 6 + c) & 15) | highBits(qh, c, 4)) - 16); }, x);
    const Vec hi = partial<16>(
        [&](int c) { return toFloat(((bytes(b + 6 + c) >> 4) | highBits(qh, c + 16, 4)) - 16); },
        x + 16);
    acc[kC] = madd(Vec{} + half(b), lo + hi, acc[kC]);
  }
};

// block_q5_1 { half d, m; uint8 qh[4]; uint8 qs[16]; }: w = q·d + m.
struct Q5_1 {
  static constexpr int kBlock = 32, kBytes = 24;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b), m = half(b + 2);
    const unsigned qh = readU32(b + 4);
    #pragma GCC unroll 16
    for (int c = 0; c < 16; c += kLanes) {
      const Ints q = bytes(b + 8 + c);
      const Ints lo = (q & 15) | highBits(qh, c, 4);
      const Ints hi = (q >> 4) | highBits(qh, c + 16, 4);
      s.put(c / kLanes, toFloat(lo) * d + m, c);
      s.put(c / kLanes + 1, toFloat(hi) * d + m, 16 + c);
    }
  }
  /// d · Σ q·x + m · Σ x.
  template <int kC>
  static void dot(const unsigned char* b, const float* x, const float* xs, Vec* acc, Vec& mins) {
    const unsigned qh = readU32(b + 4);
    const Vec lo = partial<16>(
        [&](int c) { return toFloat((bytes(b + 8 + c) & 15) | highBits(qh, c, 4)); }, x);
    const Vec hi = partial<16>(
        [&](int c) { return toFloat((bytes(b + 8 + c) >> 4) | highBits(qh, c + 16, 4)); }, x + 16);
    acc[kC] = madd(Vec{} + half(b), lo + hi, acc[kC]);
    mins[0] = mins[0] - half(b + 2) * xs[0];
  }
};

// block_q8_0 { half d; int8 qs[32]; }: w = q·d.
struct Q8_0 {
  static constexpr int kBlock = 32, kBytes = 34;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b);
    #pragma GCC unroll 16
    for (int c = 0; c < 32; c += kLanes) s.put(c / kLanes, toFloat(widen<true>(b + 2 + c)) * d, c);
  }
  /// d · Σ q·x.
  template <int kC>
  static void dot(const unsigned char* b, const float* x, const float*, Vec* acc, Vec&) {
    const Vec p = partial<32>([&](int c) { return toFloat(widen<true>(b + 2 + c)); }, x);
    acc[kC] = madd(Vec{} + half(b), p, acc[kC]);
  }
};


/// The six-bit scales and minimums of a Q4_K or Q5_K block (its twelve bytes at b + 4) as bytes:
/// sc_0…7 then m_0…7, with ggml's own word shuffle (ggml-cpu's kmask1/2/3).
inline void scalesK4(const unsigned char* b, unsigned char out[16]) {
  unsigned u[4];
  memcpy(u, b + 4, 12);
  const unsigned kmask1 = 0x3f3f3f3fu, kmask2 = 0x0f0f0f0fu, kmask3 = 0x03030303u;
  u[3] = ((u[2] >> 4) & kmask2) | (((u[1] >> 6) & kmask3) << 4);
  const unsigned aux = u[1] & kmask1;
  u[1] = (u[2] & kmask2) | (((u[0] >> 6) & kmask3) << 4);
  u[2] = aux;
  u[0] &= kmask1;
  memcpy(out, u, 16);
}

/// The eight scales and minimums of a Q4_K or Q5_K block as floats, already multiplied by d and
/// dmin: lanes 0 … 7 of v hold d·sc_j, lanes 8 … 15 dmin·m_j — the products get_scale_min_k4's
/// callers form, in the same float32 operations (d·sc, dmin·m), for all sixteen at once: the
/// twelve packed bytes unpacked with ggml's own word shuffle (ggml-cpu's kmask1/2/3: sc_0…7 in
/// the first eight bytes, m_0…7 in the next eight), widened and converted a vector at a time.
struct ScalesK4 {
  Vec v[16 / kLanes];
  explicit ScalesK4(const unsigned char* b) {  // b: the block
    unsigned char packed[16];
    scalesK4(b, packed);
    const float d = half(b), min = half(b + 2);
#if ATTNLAB_LANES == 16
    // d in lanes 0 … 7, dmin in 8 … 15: one blend of two broadcasts (__builtin_shufflevector:
    // GCC 12 and clang alike).
    v[0] = toFloat(bytes(packed)) * __builtin_shufflevector(Vec{} + d, Vec{} + min, 0, 1, 2, 3,
                                                            4, 5, 6, 7, 24, 25, 26, 27, 28, 29,
                                                            30, 31);
#else
    #pragma GCC unroll 16
    for (int c = 0; c < 16; c += kLanes) v[c / kLanes] = toFloat(bytes(packed + c)) * (c < 8 ? d : min);
#endif
  }
  /// d·sc_j (j < 8) or dmin·m_(j − 8) in every lane: one permutation where the path has one
  /// (j is a constant of the unrolled loops, and so is the index vector).
  Vec lane(int j) const {
#if defined(__AVX512F__) && ATTNLAB_LANES == 16
    return (Vec)_mm512_permutexvar_ps(_mm512_set1_epi32(j), (__m512)v[0]);
#elif defined(__AVX2__) && ATTNLAB_LANES == 8
    return (Vec)_mm256_permutevar8x32_ps((__m256)v[j / 8], _mm256_set1_epi32(j % 8));
#else
    return Vec{} + v[j / kLanes][j % kLanes];
#endif
  }
  float at(int j) const { return v[j / kLanes][j % kLanes]; }
};

/// mins += the block's dmin·m_j times its sums of x, lane by lane: xs holds 16 floats a block
/// (XsK4 layout: zeros, then the eight sums of 32 activations), so lanes 0 … 7 add d·sc · 0.
inline void minsK4(const ScalesK4& k4, const float* xs, Vec& mins) {
  #pragma GCC unroll 16
  for (int c = 0; c < 16; c += kLanes) mins = madd(k4.v[c / kLanes], load(xs + c), mins);
}

// block_q2_K { uint8 scales[16]; uint8 qs[64]; half d, dmin; }: 16 sub-blocks of 16 with a 4-bit
// scale (low nibble) and min (high nibble), w = (d·sc)·q − dmin·m with 2-bit q: element
// 128·n + 32·j + 16·h + l is bits 2j, 2j + 1 of qs[32·n + 16·h + l].
struct Q2_K {
  static constexpr int kBlock = 256, kBytes = 84;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b + 80), min = half(b + 82);
    #pragma GCC unroll 16
    for (int n = 0; n < 2; ++n) {
      const unsigned char* q = b + 16 + 32 * n;
      #pragma GCC unroll 16
      for (int j = 0; j < 4; ++j) {
        #pragma GCC unroll 16
        for (int h = 0; h < 2; ++h) {
          const int is = 8 * n + 2 * j + h;
          const float dl = d * static_cast<float>(b[is] & 0xF);
          const float ml = min * static_cast<float>(b[is] >> 4);
          #pragma GCC unroll 16
          for (int c = 0; c < 16; c += kLanes) {
            const Ints v = (bytes(q + 16 * h + c) >> (2 * j)) & 3;
            s.put(2 * h + c / kLanes, toFloat(v) * dl - ml, 128 * n + 32 * j + 16 * h + c);
          }
        }
      }
    }
  }
};

// block_q3_K { uint8 hmask[32]; uint8 qs[64]; uint8 scales[12]; half d; }: 16 sub-blocks of 16
// with 6-bit scales (ggml's kmask1 / kmask2 unpacking), w = (d·(sc − 32))·(q − 4 + 4·hbit): the
// 2-bit q of element 128·n + 32·j + 16·h + l as in Q2_K, its high bit bit 4n + j of hmask[16h + l].
struct Q3_K {
  static constexpr int kBlock = 256, kBytes = 110;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d_all = half(b + 108);
    unsigned aux[4];
    memcpy(aux, b + 96, 12);
    const unsigned kmask1 = 0x03030303u, kmask2 = 0x0f0f0f0fu, tmp = aux[2];
    aux[2] = ((aux[0] >> 4) & kmask2) | (((tmp >> 4) & kmask1) << 4);
    aux[3] = ((aux[1] >> 4) & kmask2) | (((tmp >> 6) & kmask1) << 4);
    aux[0] = (aux[0] & kmask2) | (((tmp >> 0) & kmask1) << 4);
    aux[1] = (aux[1] & kmask2) | (((tmp >> 2) & kmask1) << 4);
    signed char scales[16];
    memcpy(scales, aux, 16);
    #pragma GCC unroll 16
    for (int n = 0; n < 2; ++n) {
      const unsigned char* q = b + 32 + 32 * n;
      #pragma GCC unroll 16
      for (int j = 0; j < 4; ++j) {
        #pragma GCC unroll 16
        for (int h = 0; h < 2; ++h) {
          const float dl = d_all * static_cast<float>(scales[8 * n + 2 * j + h] - 32);
          #pragma GCC unroll 16
          for (int c = 0; c < 16; c += kLanes) {
            const Ints lo = (bytes(q + 16 * h + c) >> (2 * j)) & 3;
            const Ints hi = (bytes(b + 16 * h + c) >> (4 * n + j)) & 1;
            s.put(2 * h + c / kLanes, toFloat(lo - 4 + (hi << 2)) * dl,
                  128 * n + 32 * j + 16 * h + c);
          }
        }
      }
    }
  }
};

// block_q4_K { half d, dmin; uint8 scales[12]; uint8 qs[128]; }: 8 sub-blocks of 32,
// w = (d·sc)·q − dmin·m. block_q5_K { half d, dmin; uint8 scales[12]; uint8 qh[32];
// uint8 qs[128]; }: the same with a fifth bit per weight, bit 2j (low nibbles) or 2j + 1 (high)
// of qh[l] in sub-block pair j. One decoder for both (kFifth: Q5_K).
template <bool kFifth>
struct QK4 {
  static constexpr int kBlock = 256, kBytes = kFifth ? 176 : 144;
  /// The q of sub-block 2j + high at offsets [c, c + kLanes) of its 32: a nibble of the bytes
  /// at qs + 32j + c, plus Q5_K's fifth bit.
  static Ints q(const unsigned char* b, int j, bool high, int c) {
    const Ints v = bytes(b + (kFifth ? 48 : 16) + 32 * j + c);
    const Ints nibble = high ? v >> 4 : v & 15;
    if constexpr (kFifth) return nibble + (((bytes(b + 16 + c) >> (2 * j + high)) & 1) << 4);
    else return nibble;
  }
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const ScalesK4 k4(b);
    #pragma GCC unroll 16
    for (int j = 0; j < 4; ++j) {
      const float d1 = k4.at(2 * j), m1 = k4.at(8 + 2 * j);
      const float d2 = k4.at(2 * j + 1), m2 = k4.at(9 + 2 * j);
      #pragma GCC unroll 16
      for (int c = 0; c < 32; c += kLanes) {
        s.put(c / kLanes, toFloat(q(b, j, false, c)) * d1 - m1, 64 * j + c);
        s.put(c / kLanes + 1, toFloat(q(b, j, true, c)) * d2 - m2, 64 * j + 32 + c);
      }
    }
  }
  /// Σ over the eight sub-blocks of (d·sc) · Σ q·x, sub-block j in chain j; the minimums'
  /// (dmin·m) · Σ x into `mins` (xs: this block's sums in XsK4 layout).
  template <int>
  static void dot(const unsigned char* b, const float* x, const float* xs, Vec* acc, Vec& mins) {
    const ScalesK4 k4(b);
    #pragma GCC unroll 16
    for (int j = 0; j < 4; ++j) {
      const Vec lo = partial<32>([&](int c) { return toFloat(q(b, j, false, c)); }, x + 64 * j);
      const Vec hi = partial<32>([&](int c) { return toFloat(q(b, j, true, c)); }, x + 64 * j + 32);
      acc[2 * j] = madd(k4.lane(2 * j), lo, acc[2 * j]);
      acc[2 * j + 1] = madd(k4.lane(2 * j + 1), hi, acc[2 * j + 1]);
    }
    minsK4(k4, xs, mins);
  }
};
template struct QK4<false>;  // here, inside the diagnostic pragma's reach
template struct QK4<true>;
using Q4_K = QK4<false>;
using Q5_K = QK4<true>;

// block_q6_K { uint8 ql[128]; uint8 qh[64]; int8 scales[16]; half d; }: 16 sub-blocks of 16,
// w = (d·sc)·(q − 32) with 6-bit q from a low nibble and two high bits.
struct Q6_K {
  static constexpr int kBlock = 256, kBytes = 210;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b + 208);
    const unsigned char* ql = b;
    const unsigned char* qh = b + 128;
    const unsigned char* sc = b + 192;
    #pragma GCC unroll 16
    for (int n = 0; n < 256; n += 128, ql += 64, qh += 32, sc += 8) {
      #pragma GCC unroll 16
      for (int c = 0; c < 32; c += kLanes) {
        const int is = c / 16;  // kLanes ≤ 16: one scale per vector
        auto scale = [&](int k) {
          return d * static_cast<float>(static_cast<signed char>(sc[k]));
        };
        const Ints a = bytes(ql + c), a2 = bytes(ql + 32 + c), h = bytes(qh + c);
        const Ints q1 = ((a & 15) | ((h & 3) << 4)) - 32;
        const Ints q2 = ((a2 & 15) | (((h >> 2) & 3) << 4)) - 32;
        const Ints q3 = ((a >> 4) | (((h >> 4) & 3) << 4)) - 32;
        const Ints q4 = ((a2 >> 4) | (((h >> 6) & 3) << 4)) - 32;
        s.put(0, scale(is + 0) * toFloat(q1), n + c);
        s.put(1, scale(is + 2) * toFloat(q2), n + 32 + c);
        s.put(2, scale(is + 4) * toFloat(q3), n + 64 + c);
        s.put(3, scale(is + 6) * toFloat(q4), n + 96 + c);
      }
    }
  }
};

/// ggml's 16 non-linear levels of IQ4_NL and IQ4_XS (ggml-common.h kvalues_iq4nl), as floats
/// (the int8 levels converted exactly, as ggml's d · level converts them).
alignas(64) constexpr float kIq4nlLevels[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                                1,    13,   25,  38,  53,  69,  89,  113};

/// The levels of kLanes 4-bit indices (0 … 15).
inline Vec levels(Ints i) {
#if defined(__AVX512F__) && ATTNLAB_LANES == 16
  return (Vec)_mm512_permutexvar_ps((__m512i)i, _mm512_load_ps(kIq4nlLevels));
#elif defined(__AVX2__) && ATTNLAB_LANES == 8
  const __m256 lo = _mm256_permutevar8x32_ps(_mm256_load_ps(kIq4nlLevels), (__m256i)i);
  const __m256 hi = _mm256_permutevar8x32_ps(_mm256_load_ps(kIq4nlLevels + 8), (__m256i)i);
  return (Vec)_mm256_blendv_ps(lo, hi, _mm256_castsi256_ps(_mm256_slli_epi32((__m256i)i, 28)));
#else
  Vec v;
  for (int l = 0; l < kLanes; ++l) v[l] = kIq4nlLevels[i[l]];
  return v;
#endif
}

// block_iq4_nl { half d; uint8 qs[16]; }: w[j] = d·level(lo nibble), w[j + 16] = d·level(hi).
struct IQ4_NL {
  static constexpr int kBlock = 32, kBytes = 18;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b);
    #pragma GCC unroll 16
    for (int c = 0; c < 16; c += kLanes) {
      const Ints q = bytes(b + 2 + c);
      s.put(c / kLanes, levels(q & 15) * d, c);
      s.put(c / kLanes + 1, levels(q >> 4) * d, 16 + c);
    }
  }
};

// block_iq4_xs { half d; uint16 scales_h; uint8 scales_l[4]; uint8 qs[128]; }: 8 sub-blocks of
// 32 with a 6-bit scale ls (4 bits from scales_l, 2 from scales_h), w = (d·(ls − 32))·level.

/// Sub-block ib's ls − 32 of the IQ4_XS block b (the float decoder and the int8 kernels alike).
inline int iq4xsScale(const unsigned char* b, int ib) {
  const unsigned scales_h = static_cast<unsigned>(b[2] | b[3] << 8);
  return (((b[4 + ib / 2] >> 4 * (ib % 2)) & 0xF) | (((scales_h >> 2 * ib) & 3) << 4)) - 32;
}

struct IQ4_XS {
  static constexpr int kBlock = 256, kBytes = 136;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b);
    #pragma GCC unroll 16
    for (int ib = 0; ib < 8; ++ib) {
      const float dl = d * static_cast<float>(iq4xsScale(b, ib));
      const unsigned char* q = b + 8 + 16 * ib;
      #pragma GCC unroll 16
      for (int c = 0; c < 16; c += kLanes) {
        const Ints v = bytes(q + c);
        s.put(c / kLanes, levels(v & 15) * dl, 32 * ib + c);
        s.put(c / kLanes + 1, levels(v >> 4) * dl, 32 * ib + 16 + c);
      }
    }
  }
};

// Every loop of a decoder is unrolled (#pragma GCC unroll): a vector's offset in its block then is
// a constant, and so is the chain Dot adds it to — an accumulator indexed at run time would live
// on the stack.

// The plain types, read a vector at a time ("blocks" of kLanes elements); a row of any length
// ends with its last in % kLanes elements one at a time (scalar()).
struct F32 {
  static constexpr int kBlock = kLanes, kBytes = 4 * kLanes;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    Vec v;
    memcpy(&v, b, sizeof v);
    s.put(0, v, 0);
  }
  static float scalar(const unsigned char* p) {
    float f;
    memcpy(&f, p, sizeof f);
    return f;
  }
};

struct F16 {
  static constexpr int kBlock = kLanes, kBytes = 2 * kLanes;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
#if defined(__AVX512F__) && ATTNLAB_LANES == 16
    s.put(0, (Vec)_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b))), 0);
#elif defined(__F16C__) && ATTNLAB_LANES == 8
    s.put(0, (Vec)_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b))), 0);
#else
    Vec v;
    for (int l = 0; l < kLanes; ++l) v[l] = half(b + 2 * l);
    s.put(0, v, 0);
#endif
  }
  static float scalar(const unsigned char* p) { return half(p); }
};

struct BF16 {
  static constexpr int kBlock = kLanes, kBytes = 2 * kLanes;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    Words w;
    for (int l = 0; l < kLanes; ++l) w[l] = static_cast<unsigned>(b[2 * l] | b[2 * l + 1] << 8);
    w <<= 16;
    Vec v;
    memcpy(&v, &w, sizeof v);
    s.put(0, v, 0);
  }
  static float scalar(const unsigned char* p) {
    const unsigned w = static_cast<unsigned>(p[0] | p[1] << 8) << 16;
    float f;
    memcpy(&f, &w, sizeof f);
    return f;
  }
};

/// The plain types (F32, F16, BF16): read element by element past the last whole vector.
template <class T>
concept Plain = requires(const unsigned char* p) { T::scalar(p); };

/// The types with a factored dot() (above).
template <class T>
concept Dotted = requires(const unsigned char* b, const float* x, Vec* acc, Vec& m) {
  T::template dot<0>(b, x, x, acc, m);
};

/// How far ahead the one-row products prefetch the weights they will read: the same blocks of
/// the row 16 kB on (at least two rows on; the range's last row near its end, so the address
/// stays within the rows given). A step streams every weight from memory, and the
/// hardware prefetcher alone left much of the bandwidth unused (a 2-core AMD EPYC Zen 5, tokens/s:
/// Llama-3.2-1B Q8_0 28.5 → 55, Llama-3.1-8B Q8_0 4.4 → 7.6, Qwen2.5-7B Q4_K 5.9 → 6.9; two
/// rows, 4 kB, 8 kB and 32 kB were no better; where the weights fit the caches nothing changes).
constexpr long kAheadBytes = 16384;
inline long aheadRows(long row_bytes) {
  const long rows = (kAheadBytes + row_bytes - 1) / row_bytes;
  return rows > 2 ? rows : 2;
}

/// The most sums of activations rowsDot keeps on its stack (rows of up to 65 536 elements).
constexpr long kMaxSums = 4096;

/// Rows [r0, r1) of W (type T, with a dot()) times x: the blocks' factored sums, four 32-element
/// blocks a loop turn in chains of their own, a 256-element block's eight sub-blocks likewise;
/// y = the chains' sum − the minimums' (`mins`).
/// The sums of 32 activations are taken once: for a 32-element block one a block (its minimum's
/// factor, xs[k]); for a 256-element block sixteen (XsK4 layout: eight zeros, then its eight sums).
template <class T>
void rowsDot(const unsigned char* rows, long row_bytes, long in, const float* x, long r0, long r1,
             float* y) {
  const long blocks = in / T::kBlock;
  constexpr long kPerBlock = T::kBlock == 32 ? 1 : 16;
  alignas(64) float xs[kMaxSums];
  for (long k = 0; k < blocks; ++k) {
    float* out = xs + k * kPerBlock;
    if constexpr (kPerBlock == 16) {
      for (int j = 0; j < 8; ++j) out[j] = 0.0f;
      out += 8;
    }
    for (long i = 0; i < T::kBlock / 32; ++i) {
      const float* a = x + k * T::kBlock + 32 * i;
      Vec v = load(a);
      #pragma GCC unroll 16
      for (int c = kLanes; c < 32; c += kLanes) v += load(a + c);
      float t[kLanes];
      memcpy(t, &v, sizeof t);
      for (int w = kLanes / 2; w >= 1; w /= 2)
        for (int l = 0; l < w; ++l) t[l] += t[l + w];
      out[i] = t[0];
    }
  }
  const long ahead_rows = aheadRows(row_bytes);
  for (long r = r0; r < r1; ++r) {
    const unsigned char* row = rows + r * row_bytes;
    Vec acc[kChains] = {};
    Vec mins = {};
    long k = 0;
    const unsigned char* ahead = rows + (r + ahead_rows < r1 ? r + ahead_rows : r1 - 1) * row_bytes;
    if constexpr (T::kBlock == 32) {
      for (; k + 4 <= blocks; k += 4) {
        for (int o = 0; o < 4 * T::kBytes; o += 64) __builtin_prefetch(ahead + k * T::kBytes + o, 0, 0);
        T::template dot<0>(row + k * T::kBytes, x + k * 32, xs + k, acc, mins);
        T::template dot<1>(row + (k + 1) * T::kBytes, x + (k + 1) * 32, xs + k + 1, acc, mins);
        T::template dot<2>(row + (k + 2) * T::kBytes, x + (k + 2) * 32, xs + k + 2, acc, mins);
        T::template dot<3>(row + (k + 3) * T::kBytes, x + (k + 3) * 32, xs + k + 3, acc, mins);
      }
    }
    for (; k < blocks; ++k) {
      if constexpr (T::kBlock == 256)
        for (int o = 0; o < T::kBytes; o += 64) __builtin_prefetch(ahead + k * T::kBytes + o, 0, 0);
      T::template dot<0>(row + k * T::kBytes, x + k * T::kBlock, xs + k * kPerBlock, acc, mins);
    }
    Dot total;
    for (int c = 0; c < kChains; ++c) total.v[c] = acc[c];
    total.v[0] -= mins;
    y[r - r0] = total.sum();
  }
}

/// Rows [r0, r1) of W (type T) times x.
template <class T>
void rowsProduct(const unsigned char* rows, long row_bytes, long in, const float* x, long r0,
                 long r1, float* y) {
  if constexpr (Dotted<T>) {
    if (in / 16 <= kMaxSums) return rowsDot<T>(rows, row_bytes, in, x, r0, r1, y);
  }
  const long blocks = in / T::kBlock;
  const long ahead_rows = aheadRows(row_bytes);
  for (long r = r0; r < r1; ++r) {
    const unsigned char* row = rows + r * row_bytes;
    Dot acc;
    long k = 0;
    const unsigned char* ahead = rows + (r + ahead_rows < r1 ? r + ahead_rows : r1 - 1) * row_bytes;
    for (; k + 1 < blocks; k += 2) {
      for (int o = 0; o < 2 * T::kBytes; o += 64) __builtin_prefetch(ahead + k * T::kBytes + o, 0, 0);
      acc.x = x + k * T::kBlock;
      T::decode(row + k * T::kBytes, acc);
      DotShifted<T::kBlock / kLanes> next{acc, x + (k + 1) * T::kBlock};
      T::decode(row + (k + 1) * T::kBytes, next);
    }
    if (k < blocks) {
      acc.x = x + k * T::kBlock;
      T::decode(row + k * T::kBytes, acc);
    }
    if constexpr (Plain<T>) {
      constexpr int kSize = T::kBytes / T::kBlock;
      for (long k = blocks * T::kBlock; k < in; ++k) acc.scalar(T::scalar(row + k * kSize), x[k]);
    }
    y[r - r0] = acc.sum();
  }
}

/// `count` elements of type T from `blocks` on, dequantised into out.
template <class T>
void dequantise(const unsigned char* blocks, long count, float* out) {
  const long whole = count / T::kBlock;
  Store sink;
  for (long k = 0; k < whole; ++k) {
    sink.out = out + k * T::kBlock;
    T::decode(blocks + k * T::kBytes, sink);
  }
  if constexpr (Plain<T>) {
    constexpr int kSize = T::kBytes / T::kBlock;
    for (long k = whole * T::kBlock; k < count; ++k) out[k] = T::scalar(blocks + k * kSize);
  }
}

// The transposition of kLanes rows of kLanes floats: log2(kLanes) rounds of interleaving row i
// with row i + kLanes/2 (a perfect-shuffle network: after the last round row j holds element j
// of every row). Each interleave is one two-source shuffle where the path has one
// (__builtin_shufflevector: GCC 12 and clang alike).
inline Vec interleaveLow(Vec a, Vec b) {
#if ATTNLAB_LANES == 16
  return __builtin_shufflevector(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
#elif ATTNLAB_LANES == 8
  return __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
#else
  return __builtin_shufflevector(a, b, 0, 4, 1, 5);
#endif
}

inline Vec interleaveHigh(Vec a, Vec b) {
#if ATTNLAB_LANES == 16
  return __builtin_shufflevector(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15,
                                 31);
#elif ATTNLAB_LANES == 8
  return __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
#else
  return __builtin_shufflevector(a, b, 2, 6, 3, 7);
#endif
}

inline void transpose(Vec* r) {
  for (int round = 1; round < kLanes; round *= 2) {
    Vec next[kLanes];
    for (int i = 0; i < kLanes / 2; ++i) {
      next[2 * i] = interleaveLow(r[i], r[i + kLanes / 2]);
      next[2 * i + 1] = interleaveHigh(r[i], r[i + kLanes / 2]);
    }
    for (int i = 0; i < kLanes; ++i) r[i] = next[i];
  }
}

constexpr int kPanelColumns = 16;  // linear::PackedWeights::kPanel
constexpr int kPanelChunk = 256;   // QuantPanel's largest count

/// Up to 16 rows of type T dequantised into a row-major tile in the first-level cache, then
/// transposed kLanes × kLanes at a time into the panel.
template <class T>
void panel(const unsigned char* const* row, int rows, long count, float* out) {
  alignas(64) float tile[kPanelColumns][kPanelChunk];
  for (int c = 0; c < rows; ++c) dequantise<T>(row[c], count, tile[c]);
  for (int c = rows; c < kPanelColumns; ++c)
    for (long k = 0; k < count; ++k) tile[c][k] = 0.0f;
  const long whole = count / kLanes * kLanes;
  for (long k0 = 0; k0 < whole; k0 += kLanes) {
    for (int g = 0; g < kPanelColumns; g += kLanes) {
      Vec v[kLanes];
      for (int i = 0; i < kLanes; ++i) memcpy(&v[i], &tile[g + i][k0], sizeof(Vec));
      transpose(v);
      for (int j = 0; j < kLanes; ++j) memcpy(out + (k0 + j) * kPanelColumns + g, &v[j], sizeof(Vec));
    }
  }
  for (long k = whole; k < count; ++k)
    for (int c = 0; c < kPanelColumns; ++c) out[k * kPanelColumns + c] = tile[c][k];
}

#include "cpu/quant_int8_impl.hpp"
#include "cpu/quant_gemm_int8_impl.hpp"

template <class T>
constexpr QuantType kType = {&rowsProduct<T>, &dequantise<T>, &panel<T>};

/// A type with int8 kernels: the one-row product K (activations in blocks of kBlock) and, where
/// G is not void, the GEMM decoder G.
template <class T, class K, int kBlock, class G = void>
constexpr QuantType int8Type() {
  QuantType t = {&rowsProduct<T>, &dequantise<T>, &panel<T>, &rowsProductInt8<K>, kBlock};
  if constexpr (!std::is_void_v<G>) {
    t.int8_panel = &gemmPanel<G>;
    t.int8_gemm = &gemmInt8<typename G::Shape>;
    t.int8_sub = G::Shape::kSub;
  }
  return t;
}
template <>
constexpr QuantType kType<Q4_0> = int8Type<Q4_0, Legacy32Int8<8, false, false>, 32, Legacy32Gemm<8, false, false>>();
template <>
constexpr QuantType kType<Q4_1> = int8Type<Q4_1, Legacy32Int8<0, true, false>, 32, Legacy32Gemm<0, true, false>>();
template <>
constexpr QuantType kType<Q5_0> = int8Type<Q5_0, Legacy32Int8<16, false, true>, 32, Legacy32Gemm<16, false, true>>();
template <>
constexpr QuantType kType<Q5_1> = int8Type<Q5_1, Legacy32Int8<0, true, true>, 32, Legacy32Gemm<0, true, true>>();
template <>
constexpr QuantType kType<Q4_K> = int8Type<Q4_K, KInt8<Q4_KInt8>, 256, Q4_KGemm>();
template <>
constexpr QuantType kType<Q5_K> = int8Type<Q5_K, KInt8<Q5_KInt8>, 256, Q5_KGemm>();
template <>
constexpr QuantType kType<Q6_K> = int8Type<Q6_K, KInt8<Q6_KInt8>, 256, Q6_KGemm>();
template <>
constexpr QuantType kType<IQ4_NL> = int8Type<IQ4_NL, IQ4Int8<false>, 32, IQ4Gemm<false>>();
template <>
constexpr QuantType kType<IQ4_XS> = int8Type<IQ4_XS, IQ4Int8<true>, 256, IQ4Gemm<true>>();
template <>
constexpr QuantType kType<Q8_0> = int8Type<Q8_0, Q8_0Int8, 32, Q8_0Gemm>();

}  // namespace

extern const QuantKernel ATTNLAB_QUANT_TABLE;
const QuantKernel ATTNLAB_QUANT_TABLE = {
    ATTNLAB_KERNEL_NAME, kType<F32>,  kType<F16>,  kType<BF16>, kType<Q4_0>,   kType<Q4_1>,
    kType<Q5_0>,         kType<Q5_1>, kType<Q8_0>, kType<Q2_K>, kType<Q3_K>,   kType<Q4_K>,
    kType<Q5_K>,         kType<Q6_K>, kType<IQ4_NL>, kType<IQ4_XS>,
};

}  // namespace attnlab::kernels
