// The one-row int8 products of IQ4_NL and IQ4_XS (quant_int8_impl.hpp's family): a nibble's
// non-linear level by a byte shuffle, then signed bytes times the activations' as Q8_0's are.
// Included at the end of quant_int8_impl.hpp, inside quant_kernel_impl.hpp's namespace.

/// ggml's 16 non-linear levels of IQ4_NL and IQ4_XS as signed bytes (kvalues_iq4nl).
alignas(16) constexpr signed char kIq4nlBytes[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                                     1,    13,   25,  38,  53,  69,  89,  113};

/// The 32 signed levels of 16 bytes of IQ4 nibbles (low nibbles: elements 0 … 15, high: 16 … 31).
inline void iq4Levels(const unsigned char* qs, signed char out[32]) {
#if defined(ATTNLAB_INT8_512) || defined(ATTNLAB_INT8_256) || defined(ATTNLAB_INT8_128)
  const __m128i table = _mm_load_si128(reinterpret_cast<const __m128i*>(kIq4nlBytes));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
  const __m128i m = _mm_set1_epi8(15);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_shuffle_epi8(table, _mm_and_si128(b, m)));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16),
                   _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(b, 4), m)));
#else
  for (int j = 0; j < 16; ++j) {
    out[j] = kIq4nlBytes[qs[j] & 15];
    out[j + 16] = kIq4nlBytes[qs[j] >> 4];
  }
#endif
}

/// Σ q·x over 32 signed weight bytes, as 32-bit lanes summing to it (the avx512 path's upper
/// lanes zero).
inline Ints dot32Levels(const signed char* w, const signed char* x) {
  const Ints p = dot32Signed(reinterpret_cast<const unsigned char*>(w), x);
#if defined(ATTNLAB_INT8_512)
  return (Ints)_mm512_zextsi256_si512(_mm512_castsi512_si256((__m512i)p));
#else
  return p;
#endif
}

/// IQ4_NL (blocks of 32, w = d·level) and IQ4_XS (kXs: blocks of 256, eight sub-blocks of 32
/// with six-bit scales ls, w = d·(ls − 32)·level) × int8: each sub-block's Σ level·x exactly,
/// times its float scale·dx, for R activation rows.
template <bool kXs>
struct IQ4Int8 {
  static constexpr int kBlock = kXs ? 256 : 32, kBytes = kXs ? 136 : 18;
  template <int R>
  static void row(const unsigned char* row, long blocks, const Int8Activations* x,
                  const long* ahead, float* y, long ldy) {
    Vec acc[R] = {};
    alignas(32) signed char w[32];
    for (long k = 0; k < blocks; ++k) {
      const unsigned char* b = row + k * kBytes;
      prefetchSpan(b + *ahead, kBytes);
      const float d = half(b);
      for (int ib = 0; ib < kBlock / 32; ++ib) {
        float dl = d;
        const unsigned char* qs = b + 2 + 16 * ib;
        if constexpr (kXs) {
          dl = d * static_cast<float>(iq4xsScale(b, ib));
          qs = b + 8 + 16 * ib;
        }
        iq4Levels(qs, w);
        for (int i = 0; i < R; ++i)
          acc[i] = madd(toFloat(dot32Levels(w, x[i].q + k * kBlock + 32 * ib)), Vec{} + dl * x[i].d[k], acc[i]);
      }
    }
    for (int i = 0; i < R; ++i) y[i * ldy] = lanesSum(acc[i]);
  }
};
