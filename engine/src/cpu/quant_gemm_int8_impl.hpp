// A prompt's products with int8 activations (quant_kernels.hpp: Int8Panel, QuantInt8Gemm): the
// weights of 16 rows decoded once into unsigned bytes laid out row by row in the lanes (four
// consecutive elements of each row in a 32-bit lane), then every activation row multiplied by
// the panel with byte multiply-adds against its four elements broadcast — the same products and
// integer sums as llama.cpp's, with no horizontal sum. Included by quant_kernel_impl.hpp inside
// its namespace, after quant_int8_impl.hpp; the same three paths (kLanes rows a vector: 16, 8,
// 4) and a plain loop elsewhere.
//
// Every weight of the types it takes is w = d·sc_j·u − dmin·m_j: u the element's unsigned value
// (0 … kUMax), sc_j and m_j the integer scale and minimum of its sub-block j of kSub elements,
// d and dmin the block's floats (Q4_K, Q5_K: its six-bit sc and m; Q6_K: u = q + 32, m = 32·sc, dmin =
// d; Q4_0 / Q5_0: sc = 1, m = 8 / 16, dmin = d; Q4_1 / Q5_1: sc = m = 1, dmin = −min). So per
// block and activation row, exactly in int32:
//   P = Σ_j sc_j·Σ_{k∈j} u_k·q_k   and   M = Σ_j m_j·Σ_{k∈j} q_k,
// and y += (float)P·(d·dx) − (float)M·(dmin·dx) in float32 multiplies, adds and subtracts only
// (no fused multiply-add): the same operations in the same order on every path, so a product
// is the same bits on avx512, avx2 and baseline.
//
// The byte products' pair sums (at most 2·kUMax·127) add up in 16-bit lanes for kChunk groups of
// four elements (≤ 32767: nothing wraps), then multiply-add by the sub-block's scale into 32 bits.
// Compiled with AVX512-VNNI (quant_kernel_avx512vnni.cpp), four products go into 32 bits at once
// instead, and the same integers come out.

/// What the int8 GEMM needs of a type: blocks of kBlock elements, sub-blocks of kSub, values
/// 0 ≤ u ≤ kUMax — or, kSigned (Q8_0, IQ4_NL, IQ4_XS), signed bytes |u| ≤ 127 (Q8_0: 128)
/// multiplied as |u| by x with u's sign (pair sums at most 2·128·127: one group a 16-bit sum).
template <int kBlock_, int kSub_, int kUMax, bool kSigned_ = false>
struct Int8GemmShape {
  static constexpr int kBlock = kBlock_, kSub = kSub_;
  static constexpr bool kSigned = kSigned_;
  static constexpr int kSubs = kBlock / kSub;              ///< sub-blocks a block
  static constexpr int kPairs = (kSubs + 1) / 2;           ///< their minimums, two a lane
  static constexpr int kGroups = kSub / 4;                 ///< groups of four a sub-block
  static constexpr int kChunk = 32767 / (2 * kUMax * 127); ///< groups a 16-bit sum takes
  static_assert(kChunk >= 1);
};

/// One decoded block of one row: u in element order, sc and m by sub-block, d and dmin.
template <class S>
struct Decoded {
  alignas(64) unsigned char u[S::kBlock];
  short sc[S::kSubs];
  short m[S::kSubs];
  float d, dmin;
};

// The decoders, one a type: block b → Decoded (ggml's element order, as gguf_quants.cpp reads it).
/// Q4_K, and Q5_K (kFifth: the fifth bit of element 64j + l is bit 2j of qh[l], of 64j + 32 + l
/// bit 2j + 1).
template <bool kFifth>
struct QK4Gemm {
  using Shape = Int8GemmShape<256, 32, kFifth ? 31 : 15>;
  static constexpr int kBytes = kFifth ? 176 : 144;
  static void decode(const unsigned char* b, Decoded<Shape>& o) {
    alignas(16) unsigned char sm[16];
    scalesK4(b, sm);
    const unsigned char* qh = b + 16;
    for (int j = 0; j < 4; ++j) {
      const unsigned char* q = b + (kFifth ? 48 : 16) + 32 * j;
      for (int l = 0; l < 32; ++l) {
        o.u[64 * j + l] = q[l] & 15;
        o.u[64 * j + 32 + l] = q[l] >> 4;
      }
      if constexpr (kFifth) {
        for (int l = 0; l < 32; ++l) {
          o.u[64 * j + l] |= static_cast<unsigned char>(((qh[l] >> (2 * j)) & 1) << 4);
          o.u[64 * j + 32 + l] |= static_cast<unsigned char>(((qh[l] >> (2 * j + 1)) & 1) << 4);
        }
      }
    }
    for (int j = 0; j < 8; ++j) {
      o.sc[j] = sm[j];
      o.m[j] = sm[8 + j];
    }
    o.d = half(b);
    o.dmin = half(b + 2);
  }
};
using Q4_KGemm = QK4Gemm<false>;
using Q5_KGemm = QK4Gemm<true>;

struct Q6_KGemm {
  using Shape = Int8GemmShape<256, 16, 63>;
  static constexpr int kBytes = 210;
  static void decode(const unsigned char* b, Decoded<Shape>& o) {
    const signed char* sc = reinterpret_cast<const signed char*>(b + 192);
    for (int n = 0; n < 2; ++n) {
      const unsigned char* ql = b + 64 * n;
      const unsigned char* qh = b + 128 + 32 * n;
      unsigned char* u = o.u + 128 * n;
      for (int l = 0; l < 32; ++l) {
        u[l] = static_cast<unsigned char>((ql[l] & 15) | ((qh[l] & 3) << 4));
        u[l + 32] = static_cast<unsigned char>((ql[l + 32] & 15) | (((qh[l] >> 2) & 3) << 4));
        u[l + 64] = static_cast<unsigned char>((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4));
        u[l + 96] = static_cast<unsigned char>((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4));
      }
    }
    for (int i = 0; i < 16; ++i) {
      o.sc[i] = sc[i];
      o.m[i] = static_cast<short>(32 * sc[i]);
    }
    o.d = o.dmin = half(b + 208);
  }
};

/// Q8_0: w = d·q, q a signed byte (sc = 1, no minimum).
struct Q8_0Gemm {
  using Shape = Int8GemmShape<32, 32, 127, true>;
  static constexpr int kBytes = 34;
  static void decode(const unsigned char* b, Decoded<Shape>& o) {
    memcpy(o.u, b + 2, 32);
    o.sc[0] = 1;
    o.m[0] = 0;
    o.d = half(b);
    o.dmin = 0.0f;
  }
};

/// IQ4_NL (blocks of 32) and IQ4_XS (kXs: blocks of 256, sub-blocks of 32 scaled by ls − 32):
/// signed levels, w = d·sc·level, no minimum.
template <bool kXs>
struct IQ4Gemm {
  using Shape = Int8GemmShape<kXs ? 256 : 32, 32, 127, true>;
  static constexpr int kBytes = kXs ? 136 : 18;
  static void decode(const unsigned char* b, Decoded<Shape>& o) {
    for (int ib = 0; ib < Shape::kSubs; ++ib) {
      if constexpr (kXs) {
        o.sc[ib] = static_cast<short>(iq4xsScale(b, ib));
        iq4Levels(b + 8 + 16 * ib, reinterpret_cast<signed char*>(o.u + 32 * ib));
      } else {
        o.sc[ib] = 1;
        iq4Levels(b + 2, reinterpret_cast<signed char*>(o.u));
      }
      o.m[ib] = 0;
    }
    o.d = half(b);
    o.dmin = 0.0f;
  }
};

/// Q4_0, Q4_1, Q5_0, Q5_1: w = d·(u − kOffset) or d·u + min (kMin), u of 4 or 5 bits (kFifth).
template <int kOffset, bool kMin, bool kFifth>
struct Legacy32Gemm {
  using Shape = Int8GemmShape<32, 32, kFifth ? 31 : 15>;
  static constexpr int kBytes = 18 + (kMin ? 2 : 0) + (kFifth ? 4 : 0);
  static void decode(const unsigned char* b, Decoded<Shape>& o) {
    const unsigned char* qs = b + 2 + (kMin ? 2 : 0) + (kFifth ? 4 : 0);
    const unsigned qh = kFifth ? readU32(b + 2 + (kMin ? 2 : 0)) : 0u;
    for (int j = 0; j < 16; ++j) {
      o.u[j] = static_cast<unsigned char>((qs[j] & 15) | (((qh >> j) & 1) << 4));
      o.u[j + 16] = static_cast<unsigned char>((qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4));
    }
    o.sc[0] = 1;
    o.d = half(b);
    if constexpr (kMin) {
      o.m[0] = 1;
      o.dmin = -half(b + 2);
    } else {
      o.m[0] = kOffset;
      o.dmin = o.d;
    }
  }
};

/// 16 rows of kBlock bytes (tile[c], 16-byte aligned) to the panel's layout: four bytes of each row a 32-bit
/// lane, group after group (16 × kBlock/4 words transposed, 4 × 4 words at a time with SSE2).
template <int kBlock>
void interleaveGroups(const unsigned char* const* tile, unsigned char* u) {
#if defined(__SSE2__)
  for (int c = 0; c < 16; c += 4) {
    for (int g = 0; g < kBlock / 4; g += 4) {
      const __m128i r0 = _mm_load_si128(reinterpret_cast<const __m128i*>(tile[c] + 4 * g));
      const __m128i r1 = _mm_load_si128(reinterpret_cast<const __m128i*>(tile[c + 1] + 4 * g));
      const __m128i r2 = _mm_load_si128(reinterpret_cast<const __m128i*>(tile[c + 2] + 4 * g));
      const __m128i r3 = _mm_load_si128(reinterpret_cast<const __m128i*>(tile[c + 3] + 4 * g));
      const __m128i a = _mm_unpacklo_epi32(r0, r1), b = _mm_unpackhi_epi32(r0, r1);
      const __m128i e = _mm_unpacklo_epi32(r2, r3), f = _mm_unpackhi_epi32(r2, r3);
      // Group g + t of rows c … c + 3.
      _mm_storeu_si128(reinterpret_cast<__m128i*>(u + (g * 16 + c) * 4), _mm_unpacklo_epi64(a, e));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(u + ((g + 1) * 16 + c) * 4), _mm_unpackhi_epi64(a, e));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(u + ((g + 2) * 16 + c) * 4), _mm_unpacklo_epi64(b, f));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(u + ((g + 3) * 16 + c) * 4), _mm_unpackhi_epi64(b, f));
    }
  }
#else
  for (int c = 0; c < 16; ++c)
    for (int g = 0; g < kBlock / 4; ++g) memcpy(u + (g * 16 + c) * 4, tile[c] + 4 * g, 4);
#endif
}

/// Rows row[c] (c < rows ≤ 16; rows past them zero) of type T, `blocks` blocks each, decoded
/// into the panel's layout (quant_kernels.hpp: Int8Panel): a block of the 16 rows decoded in the
/// first-level cache, then interleaved.
template <class T>
void gemmPanel(const unsigned char* const* row, int rows, long blocks, const Int8Panel& p) {
  using S = typename T::Shape;
  Decoded<S> dec[16];
  const unsigned char* tile[16];
  for (int c = 0; c < 16; ++c) tile[c] = dec[c].u;
  for (int c = rows; c < 16; ++c) memset(&dec[c], 0, sizeof dec[c]);
  for (long k = 0; k < blocks; ++k) {
    short* sc = p.sc + k * S::kSubs * 32;
    short* mn = p.mins + k * S::kPairs * 32;
    for (int c = 0; c < rows; ++c) T::decode(row[c] + k * T::kBytes, dec[c]);
    interleaveGroups<S::kBlock>(tile, p.u + k * S::kBlock * 16);
    for (int c = 0; c < 16; ++c) {
      for (int j = 0; j < S::kSubs; ++j) sc[j * 32 + 2 * c] = sc[j * 32 + 2 * c + 1] = dec[c].sc[j];
      for (int j = 0; j < S::kPairs; ++j) {
        mn[j * 32 + 2 * c] = dec[c].m[2 * j];
        mn[j * 32 + 2 * c + 1] = 2 * j + 1 < S::kSubs ? dec[c].m[2 * j + 1] : short{0};
      }
      p.d[k * 16 + c] = dec[c].d;
      p.dmin[k * 16 + c] = dec[c].dmin;
    }
  }
}

// The lane operations on kLanes 32-bit lanes (one row each).
#if defined(ATTNLAB_INT8_512)
typedef __m512i Lanes;
inline Lanes lanesLoad(const void* p) { return _mm512_loadu_si512(p); }
inline Lanes lanesBroadcast(const void* p) { int v; memcpy(&v, p, 4); return _mm512_set1_epi32(v); }
inline Lanes bytePairs(Lanes u, Lanes x) { return _mm512_maddubs_epi16(u, x); }
inline Lanes absBytes(Lanes v) { return _mm512_abs_epi8(v); }
inline Lanes signBytes(Lanes x, Lanes s) {  // x negated where s < 0 (where s = 0 |s| is 0)
  return _mm512_mask_sub_epi8(x, _mm512_movepi8_mask(s), _mm512_setzero_si512(), x);
}
inline Lanes add16(Lanes a, Lanes b) { return _mm512_add_epi16(a, b); }
inline Lanes pairSums(Lanes a, Lanes b) { return _mm512_madd_epi16(a, b); }
inline Lanes add32(Lanes a, Lanes b) { return _mm512_add_epi32(a, b); }
inline Vec toVec(Lanes a) { return (Vec)_mm512_cvtepi32_ps(a); }
inline Lanes lanesZero() { return _mm512_setzero_si512(); }
#elif defined(ATTNLAB_INT8_256)
typedef __m256i Lanes;
inline Lanes lanesLoad(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline Lanes lanesBroadcast(const void* p) { int v; memcpy(&v, p, 4); return _mm256_set1_epi32(v); }
inline Lanes bytePairs(Lanes u, Lanes x) { return _mm256_maddubs_epi16(u, x); }
inline Lanes absBytes(Lanes v) { return _mm256_abs_epi8(v); }
inline Lanes signBytes(Lanes x, Lanes s) { return _mm256_sign_epi8(x, s); }
inline Lanes add16(Lanes a, Lanes b) { return _mm256_add_epi16(a, b); }
inline Lanes pairSums(Lanes a, Lanes b) { return _mm256_madd_epi16(a, b); }
inline Lanes add32(Lanes a, Lanes b) { return _mm256_add_epi32(a, b); }
inline Vec toVec(Lanes a) { return (Vec)_mm256_cvtepi32_ps(a); }
inline Lanes lanesZero() { return _mm256_setzero_si256(); }
#elif defined(ATTNLAB_INT8_128)
typedef __m128i Lanes;
inline Lanes lanesLoad(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
inline Lanes lanesBroadcast(const void* p) { int v; memcpy(&v, p, 4); return _mm_set1_epi32(v); }
inline Lanes bytePairs(Lanes u, Lanes x) { return _mm_maddubs_epi16(u, x); }
inline Lanes absBytes(Lanes v) { return _mm_abs_epi8(v); }
inline Lanes signBytes(Lanes x, Lanes s) { return _mm_sign_epi8(x, s); }
inline Lanes add16(Lanes a, Lanes b) { return _mm_add_epi16(a, b); }
inline Lanes pairSums(Lanes a, Lanes b) { return _mm_madd_epi16(a, b); }
inline Lanes add32(Lanes a, Lanes b) { return _mm_add_epi32(a, b); }
inline Vec toVec(Lanes a) { return (Vec)_mm_cvtepi32_ps(a); }
inline Lanes lanesZero() { return _mm_setzero_si128(); }
#else
// Plain loops: kLanes 32-bit lanes of two 16-bit halves, as the instructions compute them.
struct Lanes {
  int v[kLanes];
};
inline Lanes lanesLoad(const void* p) { Lanes l; memcpy(l.v, p, sizeof l.v); return l; }
inline Lanes lanesBroadcast(const void* p) { Lanes l; for (int& v : l.v) memcpy(&v, p, 4); return l; }
inline short half16(int v, int h) { return static_cast<short>(static_cast<unsigned>(v) >> (16 * h)); }
inline int join16(int lo, int hi) {
  return static_cast<int>((static_cast<unsigned>(lo) & 0xFFFFu) | (static_cast<unsigned>(hi) << 16));
}
inline Lanes bytePairs(Lanes u, Lanes x) {
  Lanes r;
  for (int l = 0; l < kLanes; ++l) {
    unsigned char ub[4];
    signed char xb[4];
    memcpy(ub, &u.v[l], 4);
    memcpy(xb, &x.v[l], 4);
    r.v[l] = join16(ub[0] * xb[0] + ub[1] * xb[1], ub[2] * xb[2] + ub[3] * xb[3]);
  }
  return r;
}
inline Lanes absBytes(Lanes v) {
  for (int& w : v.v) {
    signed char b[4];
    memcpy(b, &w, 4);
    for (signed char& c : b) c = static_cast<signed char>(c < 0 ? -c : c);
    memcpy(&w, b, 4);
  }
  return v;
}
inline Lanes signBytes(Lanes x, Lanes s) {
  for (int l = 0; l < kLanes; ++l) {
    signed char xb[4], sb[4];
    memcpy(xb, &x.v[l], 4);
    memcpy(sb, &s.v[l], 4);
    for (int t = 0; t < 4; ++t) xb[t] = static_cast<signed char>(sb[t] < 0 ? -xb[t] : sb[t] == 0 ? 0 : xb[t]);
    memcpy(&x.v[l], xb, 4);
  }
  return x;
}
inline Lanes add16(Lanes a, Lanes b) {
  for (int l = 0; l < kLanes; ++l)
    a.v[l] = join16(half16(a.v[l], 0) + half16(b.v[l], 0), half16(a.v[l], 1) + half16(b.v[l], 1));
  return a;
}
inline Lanes pairSums(Lanes a, Lanes b) {
  for (int l = 0; l < kLanes; ++l)
    a.v[l] = half16(a.v[l], 0) * half16(b.v[l], 0) + half16(a.v[l], 1) * half16(b.v[l], 1);
  return a;
}
inline Lanes add32(Lanes a, Lanes b) { for (int l = 0; l < kLanes; ++l) a.v[l] += b.v[l]; return a; }
inline Vec toVec(Lanes a) { Vec r; for (int l = 0; l < kLanes; ++l) r[l] = static_cast<float>(a.v[l]); return r; }
inline Lanes lanesZero() { return Lanes{}; }
#endif

/// y[i·ldy + c] (i < R activation rows, c < rows) of the panel (blocks of shape S) times the
/// int8 activations x[i], kLanes rows at a time.
template <class S, int R>
void gemmTile(const Int8Panel& p, long blocks, const Int8Activations* x, const int* const* pairs,
              float* y, long ldy, int rows) {
  for (int h = 0; h < 16; h += kLanes) {
    Vec acc[R];
    for (int i = 0; i < R; ++i) acc[i] = Vec{};
    for (long k = 0; k < blocks; ++k) {
      const unsigned char* u = p.u + k * S::kBlock * 16 + h * 4;
      const short* sc = p.sc + k * S::kSubs * 32 + h * 2;
      const short* mn = p.mins + k * S::kPairs * 32 + h * 2;
      Lanes isum[R];
      for (int i = 0; i < R; ++i) isum[i] = lanesZero();
#if defined(ATTNLAB_INT8_512) && defined(__AVX512VNNI__)
      // Four bytes into 32 bits at once (vpdpbusd: unsigned by signed, nothing saturates), a
      // sub-block's sums then times its scale. Signed bytes (Q8_0) as q + 128, less 128·Σ x:
      // the same integers as below.
      for (int j = 0; j < S::kSubs; ++j) {
        const __m512i scale = _mm512_srai_epi32(_mm512_slli_epi32(lanesLoad(sc + j * 32), 16), 16);
        __m512i a32[R];
        for (int i = 0; i < R; ++i) a32[i] = _mm512_setzero_si512();
        for (int g = 0; g < S::kGroups; ++g) {
          const int e = j * S::kSub + 4 * g;
          __m512i w = lanesLoad(u + e * 16);
          if constexpr (S::kSigned) w = _mm512_xor_si512(w, _mm512_set1_epi8(static_cast<char>(0x80)));
          for (int i = 0; i < R; ++i)
            a32[i] = _mm512_dpbusd_epi32(a32[i], w, lanesBroadcast(x[i].q + k * S::kBlock + e));
        }
        for (int i = 0; i < R; ++i) {
          if constexpr (S::kSigned) {  // sub-block j's Σ q: half j % 2 of pair word j / 2
            const __m512i word = lanesBroadcast(pairs[i] + k * S::kPairs + j / 2);
            const __m512i sum = j % 2 == 0 ? _mm512_srai_epi32(_mm512_slli_epi32(word, 16), 16)
                                           : _mm512_srai_epi32(word, 16);
            a32[i] = _mm512_sub_epi32(a32[i], _mm512_slli_epi32(sum, 7));
          }
          isum[i] = _mm512_add_epi32(isum[i], _mm512_mullo_epi32(a32[i], scale));
        }
      }
#else
      for (int j = 0; j < S::kSubs; ++j) {
        const Lanes scale = lanesLoad(sc + j * 32);
        for (int g0 = 0; g0 < S::kGroups; g0 += S::kChunk) {
          Lanes a16[R];
          for (int i = 0; i < R; ++i) a16[i] = lanesZero();
          const int g1 = g0 + S::kChunk < S::kGroups ? g0 + S::kChunk : S::kGroups;
          for (int g = g0; g < g1; ++g) {
            const int e = j * S::kSub + 4 * g;  // the group's first element in the block
            const Lanes w = lanesLoad(u + e * 16);
            if constexpr (S::kSigned) {
              const Lanes magnitude = absBytes(w);
              for (int i = 0; i < R; ++i)
                a16[i] = add16(a16[i], bytePairs(magnitude, signBytes(lanesBroadcast(x[i].q + k * S::kBlock + e), w)));
            } else {
              for (int i = 0; i < R; ++i)
                a16[i] = add16(a16[i], bytePairs(w, lanesBroadcast(x[i].q + k * S::kBlock + e)));
            }
          }
          for (int i = 0; i < R; ++i) isum[i] = add32(isum[i], pairSums(a16[i], scale));
        }
      }
#endif
      Lanes imin[R];
      for (int i = 0; i < R; ++i) imin[i] = lanesZero();
      for (int j = 0; j < S::kPairs; ++j) {
        const Lanes m = lanesLoad(mn + j * 32);
        for (int i = 0; i < R; ++i)
          imin[i] = add32(imin[i], pairSums(m, lanesBroadcast(pairs[i] + k * S::kPairs + j)));
      }
      const Vec d = load(p.d + k * 16 + h), dmin = load(p.dmin + k * 16 + h);
      for (int i = 0; i < R; ++i) {
        const float dx = x[i].d[k];
        const Vec scaled = toVec(isum[i]) * (d * dx);
        const Vec minus = toVec(imin[i]) * (dmin * dx);
        acc[i] = acc[i] + scaled - minus;
      }
    }
    for (int i = 0; i < R; ++i) {
      float* out = y + i * ldy + h;
      if (h + kLanes <= rows) {
        memcpy(out, &acc[i], sizeof(Vec));
      } else {
        for (int c = 0; h + c < rows; ++c) out[c] = acc[i][c];
      }
    }
  }
}

/// QuantInt8Gemm for types of shape S: nx (1 … kInt8GemmRows) activation rows, in tiles of as
/// many as the path's registers hold (8 with 32 vector registers, else 4); a row's numbers do not
/// depend on the tile.
template <class S>
void gemmInt8(const Int8Panel& p, long blocks, const Int8Activations* x, const int* const* pairs,
              int nx, float* y, long ldy, int rows) {
  constexpr int kTile = kLanes == 16 ? 8 : 4;
  for (int i0 = 0; i0 < nx; i0 += kTile) {
    const Int8Activations* xi = x + i0;
    const int* const* pi = pairs + i0;
    float* yi = y + i0 * ldy;
    switch (nx - i0 < kTile ? nx - i0 : kTile) {
      case 1: gemmTile<S, 1>(p, blocks, xi, pi, yi, ldy, rows); break;
      case 2: gemmTile<S, 2>(p, blocks, xi, pi, yi, ldy, rows); break;
      case 3: gemmTile<S, 3>(p, blocks, xi, pi, yi, ldy, rows); break;
      case 4: gemmTile<S, 4>(p, blocks, xi, pi, yi, ldy, rows); break;
      case 5: gemmTile<S, 5>(p, blocks, xi, pi, yi, ldy, rows); break;
      case 6: gemmTile<S, 6>(p, blocks, xi, pi, yi, ldy, rows); break;
      case 7: gemmTile<S, 7>(p, blocks, xi, pi, yi, ldy, rows); break;
      default: gemmTile<S, 8>(p, blocks, xi, pi, yi, ldy, rows); break;
    }
  }
}
