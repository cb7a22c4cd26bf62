// The one-row products with int8 activations (quant_kernels.hpp: Int8Activations; a call takes
// up to kInt8Rows rows of activations, each weight block decoded once for them), llama.cpp's
// way: the weights' integers times the activations' integers summed exactly in int32 (SSSE3's,
// AVX2's and AVX-512BW's multiply-add of unsigned and signed bytes, then of 16-bit pairs), the
// float scales applied once per block. Included by quant_kernel_impl.hpp inside its namespace;
// the same three paths (ATTNLAB_LANES 16, 8, 4), and plain loops where there are no such
// instructions. The integer sums are the same on every path; only the float32 sums of the
// blocks' scaled terms differ in order (within float32 summation's bound).

#if defined(__AVX512BW__) && ATTNLAB_LANES == 16
#define ATTNLAB_INT8_512 1
#elif defined(__AVX2__) && ATTNLAB_LANES == 8
#define ATTNLAB_INT8_256 1
#elif defined(__SSSE3__) && ATTNLAB_LANES == 4
#define ATTNLAB_INT8_128 1
#endif

/// dot64<g>(a, b, x, s): Σ over 64 weights of w·x, weight i's products scaled by scale
/// 4g + i / 16 of the block's sixteen (Scales16), as 32-bit lanes (their total is the sum): w_i (0 ≤ w_i ≤ 63) the bytes of a (i < 32) and b (i ≥ 32), x the 64
/// activations' int8 values. Multiply-adds of unsigned by signed bytes (pair sums of at most
/// 2·63·127 < 2^15: nothing saturates), then of the 16-bit sums by the scales: exact.
#if defined(ATTNLAB_INT8_512) || defined(ATTNLAB_INT8_256)
typedef __m256i Chunk;  // 32 weights' bytes
inline Chunk loadChunk(const unsigned char* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline Chunk nibbleLow(Chunk v) { return _mm256_and_si256(v, _mm256_set1_epi8(15)); }
inline Chunk nibbleHigh(Chunk v) { return _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(15)); }
/// (v >> shift) & (2^kWidth − 1), moved to bit 4 on: Q6_K's two high bits, Q5_K's fifth.
template <int kWidth>
inline Chunk bitsAt(Chunk v, int shift) {
  return _mm256_and_si256(shift >= 4 ? _mm256_srli_epi16(v, shift - 4) : _mm256_slli_epi16(v, 4 - shift),
                          _mm256_set1_epi8(static_cast<char>(((1 << kWidth) - 1) << 4)));
}
inline Chunk orChunk(Chunk a, Chunk b) { return _mm256_or_si256(a, b); }
#endif
#if defined(ATTNLAB_INT8_512)
/// A block's sixteen 16-bit scales (scale i for its weights [16i, 16i + 16)).
struct Scales16 {
  __m512i v;
  explicit Scales16(const short* s) : v(_mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)))) {}
  Scales16(__m128i low, __m128i high) : v(_mm512_castsi256_si512(_mm256_set_m128i(high, low))) {}  // 0 … 7, 8 … 15
};
/// Group g of 64 weights (scales 4g … 4g + 3).
/// dot64 of the 64 weight bytes in w.
template <int g>
inline Ints dot64(__m512i w, const signed char* x, const Scales16& s) {
  const __m512i p = _mm512_maddubs_epi16(w, _mm512_loadu_si512(x));
  constexpr short i = 4 * g;
  const __m512i index = _mm512_set_epi16(i + 3, i + 3, i + 3, i + 3, i + 3, i + 3, i + 3, i + 3,
                                         i + 2, i + 2, i + 2, i + 2, i + 2, i + 2, i + 2, i + 2,
                                         i + 1, i + 1, i + 1, i + 1, i + 1, i + 1, i + 1, i + 1,
                                         i, i, i, i, i, i, i, i);
  return (Ints)_mm512_madd_epi16(p, _mm512_permutexvar_epi16(index, s.v));
}
template <int g>
inline Ints dot64(Chunk a, Chunk b, const signed char* x, const Scales16& s) {
  return dot64<g>(_mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1), x, s);
}
#elif defined(ATTNLAB_INT8_256)
struct Scales16 {
  __m256i low, high;  // scales 0 … 7, 8 … 15, in both 128-bit halves
  explicit Scales16(const short* s)
      : low(_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)))),
        high(_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 8)))) {}
  Scales16(__m128i lo, __m128i hi) : low(_mm256_broadcastsi128_si256(lo)), high(_mm256_broadcastsi128_si256(hi)) {}
};
/// Scales i (first eight 16-bit lanes) and i + 1 (last eight) of the eight in v's halves.
template <int i>
inline __m256i scalePair(__m256i v) {
  constexpr char a = 2 * i, b = 2 * i + 1, c = 2 * i + 2, d = 2 * i + 3;
  return _mm256_shuffle_epi8(v, _mm256_setr_epi8(a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b,
                                                 c, d, c, d, c, d, c, d, c, d, c, d, c, d, c, d));
}
template <int g>
inline Ints dot64(Chunk a, Chunk b, const signed char* x, const Scales16& s) {
  const __m256i pa = _mm256_maddubs_epi16(a, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)));
  const __m256i pb = _mm256_maddubs_epi16(b, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + 32)));
  const __m256i& v = g < 2 ? s.low : s.high;
  constexpr int i = (4 * g) % 8;
  return (Ints)_mm256_add_epi32(_mm256_madd_epi16(pa, scalePair<i>(v)),
                                _mm256_madd_epi16(pb, scalePair<i + 2>(v)));
}
#elif defined(ATTNLAB_INT8_128)
struct Chunk {
  __m128i lo, hi;
};
inline Chunk loadChunk(const unsigned char* p) {
  return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16))};
}
inline Chunk nibbleLow(Chunk v) { const __m128i m = _mm_set1_epi8(15); return {_mm_and_si128(v.lo, m), _mm_and_si128(v.hi, m)}; }
inline Chunk nibbleHigh(Chunk v) {
  const __m128i m = _mm_set1_epi8(15);
  return {_mm_and_si128(_mm_srli_epi16(v.lo, 4), m), _mm_and_si128(_mm_srli_epi16(v.hi, 4), m)};
}
template <int kWidth>
inline __m128i bits128(__m128i v, int shift) {
  return _mm_and_si128(shift >= 4 ? _mm_srli_epi16(v, shift - 4) : _mm_slli_epi16(v, 4 - shift),
                       _mm_set1_epi8(static_cast<char>(((1 << kWidth) - 1) << 4)));
}
template <int kWidth>
inline Chunk bitsAt(Chunk v, int shift) { return {bits128<kWidth>(v.lo, shift), bits128<kWidth>(v.hi, shift)}; }
inline Chunk orChunk(Chunk a, Chunk b) { return {_mm_or_si128(a.lo, b.lo), _mm_or_si128(a.hi, b.hi)}; }
inline __m128i dot16(__m128i w, const signed char* x, int s) {
  return _mm_madd_epi16(_mm_maddubs_epi16(w, _mm_loadu_si128(reinterpret_cast<const __m128i*>(x))),
                        _mm_set1_epi16(static_cast<short>(s)));
}
struct Scales16 {
  const short* s;
  explicit Scales16(const short* p) : s(p) {}
};
template <int g>
inline Ints dot64(Chunk a, Chunk b, const signed char* x, const Scales16& s) {
  const short* c = s.s + 4 * g;
  return (Ints)_mm_add_epi32(_mm_add_epi32(dot16(a.lo, x, c[0]), dot16(a.hi, x + 16, c[1])),
                             _mm_add_epi32(dot16(b.lo, x + 32, c[2]), dot16(b.hi, x + 48, c[3])));
}
#else
struct Chunk {
  unsigned char b[32];
};
inline Chunk loadChunk(const unsigned char* p) { Chunk c; memcpy(c.b, p, 32); return c; }
inline Chunk nibbleLow(Chunk v) { for (auto& b : v.b) b &= 15; return v; }
inline Chunk nibbleHigh(Chunk v) { for (auto& b : v.b) b >>= 4; return v; }
template <int kWidth>
inline Chunk bitsAt(Chunk v, int shift) {
  for (auto& b : v.b) b = static_cast<unsigned char>(((b >> shift) & ((1 << kWidth) - 1)) << 4);
  return v;
}
inline Chunk orChunk(Chunk a, Chunk b) { for (int i = 0; i < 32; ++i) a.b[i] |= b.b[i]; return a; }
struct Scales16 {
  const short* s;
  explicit Scales16(const short* p) : s(p) {}
};
template <int g>
inline Ints dot64(Chunk a, Chunk b, const signed char* x, const Scales16& s) {
  Ints r = {};
  for (int i = 0; i < 64; ++i) r[0] += s.s[4 * g + i / 16] * (i < 32 ? a.b[i] : b.b[i - 32]) * x[i];
  return r;
}
#endif

/// Asks for every cache line of [p, p + bytes) (the blocks kAheadBytes on: see aheadRows).
inline void prefetchSpan(const unsigned char* p, int bytes) {
  for (int o = 0; o < bytes; o += 64) __builtin_prefetch(p + o, 0, 0);
  __builtin_prefetch(p + bytes - 1, 0, 0);
}

/// The float32 lanes' sum, a tree.
inline float lanesSum(Vec v) {
  float t[kLanes];
  memcpy(t, &v, sizeof t);
  for (int w = kLanes / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) t[l] += t[l + w];
  return t[0];
}

/// Q4_K (Q5_K: kFifth) × int8: block b's Σ_j sc_j·Σ q·x over its eight sub-blocks of 32 as
/// int32 lanes, and its minimums' Σ_j m_j·Σ x as int32 lanes (their total is the sum); the
/// block's d and dmin. Per block d·dx·(the first) − dmin·dx·(the second). The block is decoded
/// once for R activation rows (x[i] block k, i < R). Q5_K's q: the nibble plus bit 2j (low
/// nibbles) or 2j + 1 (high) of qh's byte, times 16.
template <bool kFifth>
struct QK4Int8 {
  static constexpr int kBlock = 256, kBytes = kFifth ? 176 : 144;
  static constexpr int kQs = kFifth ? 48 : 16;  // where the nibbles start
  template <int R>
  static void sums(const unsigned char* b, const Int8Activations* x, long k, Ints* isum,
                   Ints* minus, float& d, float& dmin) {
    alignas(16) unsigned char sm[16];
    scalesK4(b, sm);
#if defined(ATTNLAB_INT8_512) || defined(ATTNLAB_INT8_256)
    // The scales and minimums as 16-bit lanes, each twice (sub-block j is scales 2j, 2j + 1 of
    // the sixteen of 16); Σ_j m_j·(the sums of 16 of sub-block j) with one multiply-add.
    const __m128i both = _mm_load_si128(reinterpret_cast<const __m128i*>(sm));
    const __m128i sc = _mm_cvtepu8_epi16(both), m = _mm_cvtepu8_epi16(_mm_srli_si128(both, 8));
    const __m256i m_twice = _mm256_set_m128i(_mm_unpackhi_epi16(m, m), _mm_unpacklo_epi16(m, m));
    for (int i = 0; i < R; ++i) {
      const __m256i mins = _mm256_madd_epi16(
          m_twice, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[i].sums16 + k * 16)));
#if defined(ATTNLAB_INT8_512)
      minus[i] = (Ints)_mm512_zextsi256_si512(mins);
#else
      minus[i] = (Ints)mins;
#endif
    }
    const Scales16 scales(_mm_unpacklo_epi16(sc, sc), _mm_unpackhi_epi16(sc, sc));
#else
    alignas(32) short s16[16];
    for (int i = 0; i < 16; ++i) s16[i] = sm[i / 2];
    const Scales16 scales(s16);
    for (int i = 0; i < R; ++i) {
      const short* sums16 = x[i].sums16 + k * 16;
      int total = 0;
      for (int j = 0; j < 8; ++j) total += sm[8 + j] * (sums16[2 * j] + sums16[2 * j + 1]);
      minus[i] = Ints{};
      minus[i][0] = total;
    }
#endif
    for (int i = 0; i < R; ++i) isum[i] = Ints{};
    [[maybe_unused]] const Chunk qh = loadChunk(b + 16);
    auto pair = [&]<int j>() __attribute__((always_inline)) {
#if defined(ATTNLAB_INT8_512)
      if constexpr (!kFifth) {
        // The 32 bytes in both halves, shifted right by 0 (low nibbles) and 4 (high) a half.
        const __m512i raw = _mm512_broadcast_i64x4(loadChunk(b + kQs + 32 * j));
        const __m512i shift = _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_set1_epi16(4), 1);
        const __m512i w = _mm512_and_si512(_mm512_srlv_epi16(raw, shift), _mm512_set1_epi8(15));
        for (int i = 0; i < R; ++i) isum[i] += dot64<j>(w, x[i].q + k * 256 + 64 * j, scales);
        return;
      }
#endif
      const Chunk v = loadChunk(b + kQs + 32 * j);
      Chunk lo = nibbleLow(v), hi = nibbleHigh(v);
      if constexpr (kFifth) {
        lo = orChunk(lo, bitsAt<1>(qh, 2 * j));
        hi = orChunk(hi, bitsAt<1>(qh, 2 * j + 1));
      }
      for (int i = 0; i < R; ++i) isum[i] += dot64<j>(lo, hi, x[i].q + k * 256 + 64 * j, scales);
    };
    pair.template operator()<0>();
    pair.template operator()<1>();
    pair.template operator()<2>();
    pair.template operator()<3>();
    d = half(b);
    dmin = half(b + 2);
  }
};

/// Q6_K × int8: block b's Σ_i sc_i·Σ q·x over its sixteen sub-blocks of 16 (q the 6-bit value,
/// 0 … 63), and the offsets' Σ_i sc_i·32·Σ x; the block's d twice. Per block
/// d·dx·(Σ_i sc_i·Σ (q − 32)·x): the offsets' Σ_i sc_i·Σ x as int32 lanes, with dmin = 32·d.
/// Decoded once for R activation rows.
struct Q6_KInt8 {
  static constexpr int kBlock = 256, kBytes = 210;
  template <int R>
  static void sums(const unsigned char* b, const Int8Activations* x, long k, Ints* isum,
                   Ints* minus, float& d, float& dmin) {
    const signed char* sc = reinterpret_cast<const signed char*>(b + 192);
#if defined(ATTNLAB_INT8_512) || defined(ATTNLAB_INT8_256)
    // The sixteen scales as 16-bit lanes; Σ_i sc_i·(the sums of 16 of sub-block i) with one
    // multiply-add, as lanes.
    const __m128i sc8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sc));
    const Scales16 scales(_mm_cvtepi8_epi16(sc8), _mm_cvtepi8_epi16(_mm_srli_si128(sc8, 8)));
    const __m256i sc16 = _mm256_cvtepi8_epi16(sc8);
    for (int r = 0; r < R; ++r) {
      const __m256i m = _mm256_madd_epi16(
          sc16, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r].sums16 + k * 16)));
#if defined(ATTNLAB_INT8_512)
      minus[r] = (Ints)_mm512_zextsi256_si512(m);
#else
      minus[r] = (Ints)m;
#endif
    }
#else
    alignas(32) short s16[16];
    for (int i = 0; i < 16; ++i) s16[i] = sc[i];
    const Scales16 scales(s16);
    for (int r = 0; r < R; ++r) {
      const short* sums16 = x[r].sums16 + k * 16;
      int total = 0;
      for (int i = 0; i < 16; ++i) total += sc[i] * sums16[i];
      minus[r] = Ints{};
      minus[r][0] = total;
    }
#endif
    for (int i = 0; i < R; ++i) isum[i] = Ints{};
    auto half128 = [&]<int n>() __attribute__((always_inline)) {
      const unsigned char* ql = b + 64 * n;
      const Chunk a = loadChunk(ql), a2 = loadChunk(ql + 32), h = loadChunk(b + 128 + 32 * n);
      const Chunk q1 = orChunk(nibbleLow(a), bitsAt<2>(h, 0)), q2 = orChunk(nibbleLow(a2), bitsAt<2>(h, 2));
      const Chunk q3 = orChunk(nibbleHigh(a), bitsAt<2>(h, 4)), q4 = orChunk(nibbleHigh(a2), bitsAt<2>(h, 6));
      for (int i = 0; i < R; ++i) {
        const signed char* xq = x[i].q + k * 256 + 128 * n;
        isum[i] += dot64<2 * n>(q1, q2, xq, scales);
        isum[i] += dot64<2 * n + 1>(q3, q4, xq + 64, scales);
      }
    };
    half128.template operator()<0>();
    half128.template operator()<1>();
    d = half(b + 208);
    dmin = 32.0f * d;  // exact: the offsets' 32 (q − 32) carried by dmin
  }
};

using Q4_KInt8 = QK4Int8<false>;
using Q5_KInt8 = QK4Int8<true>;

/// A K-quant (T: Q4_KInt8, Q5_KInt8, Q6_KInt8) × int8 row, blocks of 256, for R activation rows:
/// y[i·ldy] = Σ over blocks of d·dx_i·Σ(scaled q·x_i) − dmin·dx_i·(minus_i), both terms
/// multiply-added lane by lane into one accumulator (one horizontal sum a row). Each activation
/// row's float32 operations are the same, in the same order, whatever R.
template <class T>
struct KInt8 {
  static constexpr int kBlock = 256, kBytes = T::kBytes;
  template <int R>
  static void row(const unsigned char* row, long blocks, const Int8Activations* x,
                  const long* ahead, float* y, long ldy) {
    Vec acc[R] = {};
    for (long k = 0; k < blocks; ++k) {
      const unsigned char* b = row + k * kBytes;
      prefetchSpan(b + *ahead, kBytes);
      Ints isum[R], minus[R];
      float d = 0, dmin = 0;
      T::template sums<R>(b, x, k, isum, minus, d, dmin);
      for (int i = 0; i < R; ++i) {
        const float dx = x[i].d[k];
        acc[i] = madd(toFloat(isum[i]), Vec{} + d * dx, acc[i]);
        acc[i] = madd(toFloat(minus[i]), Vec{} - dmin * dx, acc[i]);
      }
    }
    for (int i = 0; i < R; ++i) y[i * ldy] = lanesSum(acc[i]);
  }
};

/// Σ q·x over one Q8_0 block's 32 weights, as 32-bit lanes: |q| as unsigned bytes times x with
/// q's sign (pair sums at most 2·128·127 < 2^15: exact).
inline Ints dot32Signed(const unsigned char* w, const signed char* x) {
#if defined(ATTNLAB_INT8_512) || defined(ATTNLAB_INT8_256)
  const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
  const __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_sign_epi8(q, q), _mm256_sign_epi8(a, q)),
                                      _mm256_set1_epi16(1));
#if defined(ATTNLAB_INT8_512)
  return (Ints)_mm512_castsi256_si512(p);  // the upper lanes: whatever; masked by the caller
#else
  return (Ints)p;
#endif
#elif defined(ATTNLAB_INT8_128)
  __m128i sum = _mm_setzero_si128();
  for (int o = 0; o < 32; o += 16) {
    const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + o));
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + o));
    sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_maddubs_epi16(_mm_sign_epi8(q, q), _mm_sign_epi8(a, q)),
                                            _mm_set1_epi16(1)));
  }
  return (Ints)sum;
#else
  Ints r = {};
  for (int i = 0; i < 32; ++i) r[0] += static_cast<signed char>(w[i]) * x[i];
  return r;
#endif
}

/// Q8_0 × int8 (blocks of 32): d·dx·Σ q·x per block, for R activation rows (y[i·ldy]).
struct Q8_0Int8 {
  static constexpr int kBlock = 32, kBytes = 34;
  template <int R>
  static void row(const unsigned char* row, long blocks, const Int8Activations* x,
                  const long* ahead, float* y, long ldy) {
#if defined(ATTNLAB_INT8_512)
    // Two blocks a vector: the first's eight sums in lanes 0 … 7, the second's in 8 … 15.
    __m512 acc[R];
    for (int i = 0; i < R; ++i) acc[i] = _mm512_setzero_ps();
    long k = 0;
    for (; k + 2 <= blocks; k += 2) {
      const unsigned char* b = row + k * kBytes;
      prefetchSpan(b + *ahead, 2 * kBytes);
      const float d0 = half(b), d1 = half(b + kBytes);
      for (int i = 0; i < R; ++i) {
        const signed char* xq = x[i].q + 32 * k;
        const __m512i both = _mm512_inserti64x4((__m512i)dot32Signed(b + 2, xq),
                                                _mm512_castsi512_si256((__m512i)dot32Signed(b + kBytes + 2, xq + 32)), 1);
        const __m512 scale = _mm512_insertf32x8(_mm512_set1_ps(d0 * x[i].d[k]),
                                                _mm256_set1_ps(d1 * x[i].d[k + 1]), 1);
        acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(both), scale, acc[i]);
      }
    }
    float total[R];
    for (int i = 0; i < R; ++i) total[i] = lanesSum((Vec)acc[i]);
    for (; k < blocks; ++k) {
      const unsigned char* b = row + k * kBytes;
      for (int i = 0; i < R; ++i) {
        const __m256i p = _mm512_castsi512_si256((__m512i)dot32Signed(b + 2, x[i].q + 32 * k));
        alignas(32) int t[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(t), p);
        int s = 0;
        for (int l = 0; l < 8; ++l) s += t[l];
        total[i] += half(b) * x[i].d[k] * static_cast<float>(s);
      }
    }
    for (int i = 0; i < R; ++i) y[i * ldy] = total[i];
#else
    Vec acc[R] = {};
    for (long k = 0; k < blocks; ++k) {
      const unsigned char* b = row + k * kBytes;
      prefetchSpan(b + *ahead, kBytes);
      const float d = half(b);
      for (int i = 0; i < R; ++i)
        acc[i] = madd(toFloat(dot32Signed(b + 2, x[i].q + 32 * k)), Vec{} + d * x[i].d[k], acc[i]);
    }
    for (int i = 0; i < R; ++i) y[i * ldy] = lanesSum(acc[i]);
#endif
  }
};

/// The 32 weights of a Q4_0 / Q4_1 block as bytes 0 … 15 (the low nibbles of qs are weights
/// 0 … 15, the high nibbles 16 … 31), plus 16 where bit j of qh is set (Q5_0, Q5_1; qh = 0 for
/// the four-bit types).
inline Chunk nibbles32(const unsigned char* qs, unsigned qh) {
#if defined(ATTNLAB_INT8_512) || defined(ATTNLAB_INT8_256)
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
  const __m128i m = _mm_set1_epi8(15);
  __m256i v = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(b, 4), m), _mm_and_si128(b, m));
  if (qh != 0) {
#if defined(ATTNLAB_INT8_512)
    v = _mm256_or_si256(v, _mm256_maskz_mov_epi8(qh, _mm256_set1_epi8(16)));
#else
    // Byte j of the 32 takes qh's byte j / 8, then keeps bit j % 8 (all ones where set).
    const __m256i spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32(static_cast<int>(qh)),
        _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3,
                         3, 3, 3, 3, 3, 3, 3));
    const __m256i bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
    v = _mm256_or_si256(v, _mm256_and_si256(set, _mm256_set1_epi8(16)));
#endif
  }
  return v;
#elif defined(ATTNLAB_INT8_128)
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
  const __m128i m = _mm_set1_epi8(15);
  Chunk c = {_mm_and_si128(b, m), _mm_and_si128(_mm_srli_epi16(b, 4), m)};
  if (qh != 0) {
    const __m128i bit = _mm_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    auto fifth = [&](unsigned half) {  // 16 bits of qh → 16 bytes of 16 or 0
      const __m128i spread = _mm_shuffle_epi8(_mm_cvtsi32_si128(static_cast<int>(half)),
                                              _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1));
      return _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(spread, bit), bit), _mm_set1_epi8(16));
    };
    c.lo = _mm_or_si128(c.lo, fifth(qh & 0xFFFFu));
    c.hi = _mm_or_si128(c.hi, fifth(qh >> 16));
  }
  return c;
#else
  Chunk c;
  for (int j = 0; j < 16; ++j) {
    c.b[j] = static_cast<unsigned char>((qs[j] & 15) | (((qh >> j) & 1) << 4));
    c.b[j + 16] = static_cast<unsigned char>((qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4));
  }
  return c;
#endif
}

/// Σ u·x over one block of 32 (u unsigned ≤ 31, pair sums ≤ 2·31·127): as 32-bit lanes.
inline Ints dot32(Chunk u, const signed char* x) {
#if defined(ATTNLAB_INT8_512) || defined(ATTNLAB_INT8_256)
  const __m256i p = _mm256_madd_epi16(
      _mm256_maddubs_epi16(u, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x))), _mm256_set1_epi16(1));
#if defined(ATTNLAB_INT8_512)
  return (Ints)_mm512_zextsi256_si512(p);
#else
  return (Ints)p;
#endif
#elif defined(ATTNLAB_INT8_128)
  const __m128i one = _mm_set1_epi16(1);
  return (Ints)_mm_add_epi32(
      _mm_madd_epi16(_mm_maddubs_epi16(u.lo, _mm_loadu_si128(reinterpret_cast<const __m128i*>(x))), one),
      _mm_madd_epi16(_mm_maddubs_epi16(u.hi, _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + 16))), one));
#else
  Ints r = {};
  for (int i = 0; i < 32; ++i) r[0] += u.b[i] * x[i];
  return r;
#endif
}

/// The legacy types of 32 × int8 (blocks of 32): w = d·(u − kOffset) (Q4_0: 8, Q5_0: 16) or
/// d·u + m (Q4_1, Q5_1: kMin), u the 4- or 5-bit value (kFifth). Per block d·dx·Σ u·x, then the
/// offset's −kOffset·d·dx·Σ x or the minimum's m·dx·Σ x (Σ x: two of the sums of 16); the
/// block's weights decoded once for R activation rows (y[i·ldy]).
template <int kOffset, bool kMin, bool kFifth>
struct Legacy32Int8 {
  static constexpr int kBlock = 32, kBytes = 18 + (kMin ? 2 : 0) + (kFifth ? 4 : 0);
  template <int R>
  static void row(const unsigned char* row, long blocks, const Int8Activations* x,
                  const long* ahead, float* y, long ldy) {
    Vec acc[R] = {};
    float rest[R] = {};
    auto weights = [&](const unsigned char* b) {
      return nibbles32(b + 2 + (kMin ? 2 : 0) + (kFifth ? 4 : 0), kFifth ? readU32(b + 2 + (kMin ? 2 : 0)) : 0u);
    };
    auto restOf = [&](const unsigned char* b, long k, int i) {  // the offset's or the minimum's term
      const int sum = x[i].sums16[2 * k] + x[i].sums16[2 * k + 1];
      if constexpr (kMin) rest[i] += half(b + 2) * x[i].d[k] * static_cast<float>(sum);
      else rest[i] -= half(b) * x[i].d[k] * static_cast<float>(kOffset * sum);
    };
    long k = 0;
#if defined(ATTNLAB_INT8_512)
    // Two blocks a vector (their 64 activations are consecutive): lanes 0 … 7 the first's sums,
    // 8 … 15 the second's.
    for (; k + 2 <= blocks; k += 2) {
      const unsigned char* b = row + k * kBytes;
      prefetchSpan(b + *ahead, 2 * kBytes);
      const __m512i u = _mm512_inserti64x4(_mm512_castsi256_si512(weights(b)), weights(b + kBytes), 1);
      const float d0 = half(b), d1 = half(b + kBytes);
      for (int i = 0; i < R; ++i) {
        const __m512i p = _mm512_madd_epi16(_mm512_maddubs_epi16(u, _mm512_loadu_si512(x[i].q + 32 * k)),
                                            _mm512_set1_epi16(1));
        const __m512 scale = _mm512_insertf32x8(_mm512_set1_ps(d0 * x[i].d[k]),
                                                _mm256_set1_ps(d1 * x[i].d[k + 1]), 1);
        acc[i] = (Vec)_mm512_fmadd_ps(_mm512_cvtepi32_ps(p), scale, (__m512)acc[i]);
        restOf(b, k, i);
        restOf(b + kBytes, k + 1, i);
      }
    }
#endif
    for (; k < blocks; ++k) {
      const unsigned char* b = row + k * kBytes;
      prefetchSpan(b + *ahead, kBytes);
      const Chunk u = weights(b);
      const float d = half(b);
      for (int i = 0; i < R; ++i) {
        acc[i] = madd(toFloat(dot32(u, x[i].q + 32 * k)), Vec{} + d * x[i].d[k], acc[i]);
        restOf(b, k, i);
      }
    }
    for (int i = 0; i < R; ++i) y[i * ldy] = lanesSum(acc[i]) + rest[i];
  }
};

/// Rows [r0, r1) of W (type T) times nx (1 … kInt8Rows) rows of int8 activations x: y[i·ldy +
/// r − r0] for activation row i. Each weight block is read and decoded once for all nx rows;
/// one row's numbers are the same whatever nx. Prefetches kAheadBytes on.
template <class T>
void rowsProductInt8(const unsigned char* rows, long row_bytes, long in, const Int8Activations* x,
                     int nx, long r0, long r1, float* y, long ldy) {
  const long blocks = in / T::kBlock;
  const long ahead_rows = aheadRows(row_bytes);
  auto run = [&]<int R>() {
    for (long r = r0; r < r1; ++r) {
      const long ahead = (r + ahead_rows < r1 ? ahead_rows : r1 - 1 - r) * row_bytes;
      T::template row<R>(rows + r * row_bytes, blocks, x, &ahead, y + (r - r0), ldy);
    }
  };
  switch (nx) {
    case 1: run.template operator()<1>(); break;
    case 2: run.template operator()<2>(); break;
    case 3: run.template operator()<3>(); break;
    default: run.template operator()<kInt8Rows>(); break;
  }
}

#include "cpu/quant_int8_iq4_impl.hpp"
