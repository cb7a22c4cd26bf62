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
/// into chain k mod 4 (k a constant of the unrolled block loop, so the chains stay in registers).
struct Dot {
  const float* x = nullptr;  // the current block's activations
  Vec v[kChains] = {};
  void put(int k, Vec w, int o) { v[k % kChains] = madd(w, load(x + o), v[k % kChains]); }
  float sum() const {
    float t[kLanes];
    const Vec s = (v[0] + v[1]) + (v[2] + v[3]);
    memcpy(t, &s, sizeof t);
    for (int w = kLanes / 2; w >= 1; w /= 2)  // a tree, not a chain of kLanes dependent adds
      for (int l = 0; l < w; ++l) t[l] += t[l + w];
    return t[0];
  }
  /// One more weight and activation outside the vectors (a plain type's tail).
  void scalar(float w, float a) { v[0][0] = v[0][0] + w * a; }
};

/// The dequantisation's sink: put(k, w, o) stores w at out[o, o + kLanes).
struct Store {
  float* out = nullptr;  // the current block's elements
  void put(int, Vec w, int o) { memcpy(out + o, &w, sizeof w); }
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
struct Q4_0 {
  static constexpr int kBlock = 32, kBytes = 18;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b);
    for (int c = 0; c < 16; c += kLanes) {
      const Ints q = bytes(b + 2 + c);
      s.put(c / kLanes, toFloat((q & 15) - 8) * d, c);
      s.put(c / kLanes + 1, toFloat((q >> 4) - 8) * d, 16 + c);
    }
  }
};

// block_q4_1 { half d, m; uint8 qs[16]; }: w = q·d + m.
struct Q4_1 {
  static constexpr int kBlock = 32, kBytes = 20;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b), m = half(b + 2);
    for (int c = 0; c < 16; c += kLanes) {
      const Ints q = bytes(b + 4 + c);
      s.put(c / kLanes, toFloat(q & 15) * d + m, c);
      s.put(c / kLanes + 1, toFloat(q >> 4) * d + m, 16 + c);
    }
  }
};

// block_q5_0 { half d; uint8 qh[4]; uint8 qs[16]; }: the fifth bit of element j is bit j of qh.
struct Q5_0 {
  static constexpr int kBlock = 32, kBytes = 22;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b);
    const unsigned qh = readU32(b + 2);
    for (int c = 0; c < 16; c += kLanes) {
      const Ints q = bytes(b + 6 + c);
      const Ints lo = (q & 15) | highBits(qh, c, 4);
      const Ints hi = (q >> 4) | highBits(qh, c + 16, 4);
      s.put(c / kLanes, toFloat(lo - 16) * d, c);
      s.put(c / kLanes + 1, toFloat(hi - 16) * d, 16 + c);
    }
  }
};

// block_q5_1 { half d, m; uint8 qh[4]; uint8 qs[16]; }: w = q·d + m.
struct Q5_1 {
  static constexpr int kBlock = 32, kBytes = 24;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b), m = half(b + 2);
    const unsigned qh = readU32(b + 4);
    for (int c = 0; c < 16; c += kLanes) {
      const Ints q = bytes(b + 8 + c);
      const Ints lo = (q & 15) | highBits(qh, c, 4);
      const Ints hi = (q >> 4) | highBits(qh, c + 16, 4);
      s.put(c / kLanes, toFloat(lo) * d + m, c);
      s.put(c / kLanes + 1, toFloat(hi) * d + m, 16 + c);
    }
  }
};

// block_q8_0 { half d; int8 qs[32]; }: w = q·d.
struct Q8_0 {
  static constexpr int kBlock = 32, kBytes = 34;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b);
    for (int c = 0; c < 32; c += kLanes) s.put(c / kLanes, toFloat(widen<true>(b + 2 + c)) * d, c);
  }
};

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

// block_q2_K { uint8 scales[16]; uint8 qs[64]; half d, dmin; }: 16 sub-blocks of 16 with a 4-bit
// scale (low nibble) and min (high nibble), w = (d·sc)·q − dmin·m with 2-bit q: element
// 128·n + 32·j + 16·h + l is bits 2j, 2j + 1 of qs[32·n + 16·h + l].
struct Q2_K {
  static constexpr int kBlock = 256, kBytes = 84;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b + 80), min = half(b + 82);
    for (int n = 0; n < 2; ++n) {
      const unsigned char* q = b + 16 + 32 * n;
      for (int j = 0; j < 4; ++j) {
        for (int h = 0; h < 2; ++h) {
          const int is = 8 * n + 2 * j + h;
          const float dl = d * static_cast<float>(b[is] & 0xF);
          const float ml = min * static_cast<float>(b[is] >> 4);
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
    for (int n = 0; n < 2; ++n) {
      const unsigned char* q = b + 32 + 32 * n;
      for (int j = 0; j < 4; ++j) {
        for (int h = 0; h < 2; ++h) {
          const float dl = d_all * static_cast<float>(scales[8 * n + 2 * j + h] - 32);
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
// w = (d·sc)·q − dmin·m.
struct Q4_K {
  static constexpr int kBlock = 256, kBytes = 144;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
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
        s.put(c / kLanes, toFloat(v & 15) * d1 - m1, 64 * j + c);
        s.put(c / kLanes + 1, toFloat(v >> 4) * d2 - m2, 64 * j + 32 + c);
      }
    }
  }
};

// block_q5_K { half d, dmin; uint8 scales[12]; uint8 qh[32]; uint8 qs[128]; }: as Q4_K with a
// fifth bit per weight, bit 2j (low nibbles) or 2j + 1 (high) of qh[l] in sub-block pair j.
struct Q5_K {
  static constexpr int kBlock = 256, kBytes = 176;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
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
        s.put(c / kLanes, toFloat(lo) * d1 - m1, 64 * j + c);
        s.put(c / kLanes + 1, toFloat(hi) * d2 - m2, 64 * j + 32 + c);
      }
    }
  }
};

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
    for (int n = 0; n < 256; n += 128, ql += 64, qh += 32, sc += 8) {
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
    for (int c = 0; c < 16; c += kLanes) {
      const Ints q = bytes(b + 2 + c);
      s.put(c / kLanes, levels(q & 15) * d, c);
      s.put(c / kLanes + 1, levels(q >> 4) * d, 16 + c);
    }
  }
};

// block_iq4_xs { half d; uint16 scales_h; uint8 scales_l[4]; uint8 qs[128]; }: 8 sub-blocks of
// 32 with a 6-bit scale ls (4 bits from scales_l, 2 from scales_h), w = (d·(ls − 32))·level.
struct IQ4_XS {
  static constexpr int kBlock = 256, kBytes = 136;
  template <class S>
  static void decode(const unsigned char* b, S& s) {
    const float d = half(b);
    const unsigned scales_h = static_cast<unsigned>(b[2] | b[3] << 8);
    for (int ib = 0; ib < 8; ++ib) {
      const int ls = ((b[4 + ib / 2] >> 4 * (ib % 2)) & 0xF) | (((scales_h >> 2 * ib) & 3) << 4);
      const float dl = d * static_cast<float>(ls - 32);
      const unsigned char* q = b + 8 + 16 * ib;
      for (int c = 0; c < 16; c += kLanes) {
        const Ints v = bytes(q + c);
        s.put(c / kLanes, levels(v & 15) * dl, 32 * ib + c);
        s.put(c / kLanes + 1, levels(v >> 4) * dl, 32 * ib + 16 + c);
      }
    }
  }
};

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

/// Rows [r0, r1) of W (type T) times x.
template <class T>
void rowsProduct(const unsigned char* rows, long row_bytes, long in, const float* x, long r0,
                 long r1, float* y) {
  const long blocks = in / T::kBlock;
  for (long r = r0; r < r1; ++r) {
    const unsigned char* row = rows + r * row_bytes;
    Dot acc;
    for (long k = 0; k < blocks; ++k) {
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

template <class T>
constexpr QuantType kType = {&rowsProduct<T>, &dequantise<T>};

}  // namespace

extern const QuantKernel ATTNLAB_QUANT_TABLE;
const QuantKernel ATTNLAB_QUANT_TABLE = {
    ATTNLAB_KERNEL_NAME, kType<F32>,  kType<F16>,  kType<BF16>, kType<Q4_0>,   kType<Q4_1>,
    kType<Q5_0>,         kType<Q5_1>, kType<Q8_0>, kType<Q2_K>, kType<Q3_K>,   kType<Q4_K>,
    kType<Q5_K>,         kType<Q6_K>, kType<IQ4_NL>, kType<IQ4_XS>,
};

}  // namespace attnlab::kernels
