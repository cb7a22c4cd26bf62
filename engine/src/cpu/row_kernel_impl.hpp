// The row kernels of the CPU attention (see dense_kernels.hpp: SoftmaxSpan, RowMoments), written
// once for every instruction-set path on the vector type of dense_kernel_impl.hpp, which includes
// this file (kLanes, Vec, load). exp and log are our own vector polynomials, not the C library's:
// a kernel file may share no inline code with the rest of the program (dense_kernels.hpp), and
// the same polynomial on every path keeps the paths within rounding of one another.
// Constants: Cody & Waite's split of ln 2 and the polynomial coefficients of Moshier's Cephes
// library (expf.c, logf.c), whose published relative error is about 1 ulp on these ranges.

namespace attnlab::kernels {
namespace {

typedef int VecI __attribute__((vector_size(kLanes * sizeof(int))));
typedef double VecD __attribute__((vector_size(kLanes * sizeof(float))));    // kLanes / 2 doubles
typedef double VecW __attribute__((vector_size(kLanes * sizeof(double))));  // kLanes doubles

inline Vec splat(float v) {
  Vec out;
  for (int l = 0; l < kLanes; ++l) out[l] = v;
  return out;
}

inline VecI asInt(Vec v) {
  VecI out;
  memcpy(&out, &v, sizeof out);
  return out;
}

inline Vec asFloat(VecI v) {
  Vec out;
  memcpy(&out, &v, sizeof out);
  return out;
}

template <int... I>
inline VecD lowHalf(const VecW& w, Seq<I...>) {
  return __builtin_shufflevector(w, w, I...);
}
template <int... I>
inline VecD highHalf(const VecW& w, Seq<I...>) {
  return __builtin_shufflevector(w, w, (I + kLanes / 2)...);
}

/// The kLanes floats of v widened to double, as two one-register halves. Converted whole (one
/// instruction per register, vcvtps2pd) and then split: GCC 12 lowers a conversion of half a Vec to
/// element-wise conversions and re-insertions, and keeps a kLanes-double accumulator in memory.
inline void widen(const Vec& v, VecD& lo, VecD& hi) {
  const VecW w = __builtin_convertvector(v, VecW);
  lo = lowHalf(w, typename MakeSeq<kLanes / 2>::type());
  hi = highHalf(w, typename MakeSeq<kLanes / 2>::type());
}

/// acc += the kLanes floats of v, widened to double.
inline void addWide(VecD& acc, const Vec& v) {
  VecD lo, hi;
  widen(v, lo, hi);
  acc += lo + hi;
}

inline double sumLanes(const VecD& v) {
  double total = 0;
  for (int l = 0; l < kLanes / 2; ++l) total += v[l];
  return total;
}

/// e^t for t ≤ 0 (and NaN, which stays NaN): t = n ln 2 + r, |r| ≤ ln 2 / 2, e^r by Cephes'
/// polynomial, 2^n applied as 2^⌊n/2⌋ · 2^(n−⌊n/2⌋) so that results down to the subnormals are
/// right; t < −104 gives 0 (e^−104 < 2^−150).
inline Vec expNonPositive(Vec t) {
  const Vec lowest = splat(-104.0f);
  t = t < lowest ? lowest : t;  // NaN compares false and stays
  const Vec magic = splat(12582912.0f);  // 1.5 · 2^23: adding it rounds to an integer
  const Vec z = t * splat(1.44269504088896341f) + magic;
  const VecI n = asInt(z) - asInt(magic);
  const Vec nf = z - magic;
  const Vec r = (t - nf * splat(0.693359375f)) - nf * splat(-2.12194440e-4f);
  Vec p = splat(1.9875691500e-4f);
  p = p * r + splat(1.3981999507e-3f);
  p = p * r + splat(8.3334519073e-3f);
  p = p * r + splat(4.1665795894e-2f);
  p = p * r + splat(1.6666665459e-1f);
  p = p * r + splat(5.0000001201e-1f);
  const Vec y = p * (r * r) + r + splat(1.0f);
  const VecI n1 = n >> 1;
  const VecI n2 = n - n1;
  return y * asFloat((n1 + 127) << 23) * asFloat((n2 + 127) << 23);
}

/// ln x for normal x > 0 (Cephes' logf): x = m · 2^e with m in [√½, √2), ln m by a degree-9
/// polynomial in m − 1.
inline Vec logPositive(Vec x) {
  const VecI bits = asInt(x);
  VecI e = ((bits >> 23) & 0xff) - 126;                         // x = f · 2^e, f in [0.5, 1)
  Vec f = asFloat((bits & 0x007fffff) | 0x3f000000);
  const VecI small = f < splat(0.707106781186547524f);          // f < √½: use 2f, e − 1
  e += small;                                                   // small is −1 where true
  f = f + asFloat(asInt(f) & small) - splat(1.0f);
  const Vec ef = __builtin_convertvector(e, Vec);
  const Vec z = f * f;
  Vec y = splat(7.0376836292e-2f);
  y = y * f - splat(1.1514610310e-1f);
  y = y * f + splat(1.1676998740e-1f);
  y = y * f - splat(1.2420140846e-1f);
  y = y * f + splat(1.4249322787e-1f);
  y = y * f - splat(1.6668057665e-1f);
  y = y * f + splat(2.0000714765e-1f);
  y = y * f - splat(2.4999993993e-1f);
  y = y * f + splat(3.3333331174e-1f);
  y = y * f * z;
  y = y + ef * splat(-2.12194440e-4f) - splat(0.5f) * z;
  return f + y + ef * splat(0.693359375f);
}

/// The last n < kLanes elements of a row in a full vector, the rest `fill`.
inline Vec loadTail(const float* p, long n, float fill) {
  float lanes[kLanes];
  for (int l = 0; l < kLanes; ++l) lanes[l] = l < n ? p[l] : fill;
  return load(lanes);
}

inline void storeTail(float* p, long n, Vec v) {
  float lanes[kLanes];
  memcpy(lanes, &v, sizeof lanes);
  for (long l = 0; l < n; ++l) p[l] = lanes[l];
}

/// The powers of one vector of weights into double sums (RowMoments and the softmax's Moments
/// take the same sums).
struct PowerSums {
  VecD total = {}, sum_sq = {}, sum_cube = {};
  Vec max = {};  // weights are ≥ 0

  void add(const Vec& v) {
    max = v > max ? v : max;
    VecD lo, hi;
    widen(v, lo, hi);
    total += lo + hi;
    sum_sq += lo * lo + hi * hi;
    sum_cube += lo * lo * lo + hi * hi * hi;
  }
  void into(Moments& out) const {
    out.total = sumLanes(total);
    out.sum_sq = sumLanes(sum_sq);
    out.sum_cube = sumLanes(sum_cube);
    float m = max[0];
    for (int l = 1; l < kLanes; ++l) m = max[l] > m ? max[l] : m;
    out.max = m;
  }
};

template <bool kMoments>
float softmaxSpanImpl(const float* x, long n, float b, float* w, Moments* moments) {
  const float neg_inf = -__builtin_inff();
  const long full = n / kLanes * kLanes;
  Vec mv = splat(neg_inf);
  for (long j = 0; j < full; j += kLanes) {
    const Vec v = load(x + j);
    mv = v > mv ? v : mv;
  }
  if (full < n) {
    const Vec v = loadTail(x + full, n - full, neg_inf);
    mv = v > mv ? v : mv;
  }
  float m = mv[0];
  for (int l = 1; l < kLanes; ++l) m = mv[l] > m ? mv[l] : m;
  if (m - m != 0.0f) return m;  // ±inf (or NaN): the caller's cases
  const Vec shift = splat(m), factor = splat(b), lowest = splat(-104.0f);
  VecD sum = {}, dot = {};
  // e = exp(t) for t = max((x − m)·b, −104) (NaN stays NaN); with moments also Σ e·t (e = 0 at
  // t = −104, so a huge negative t, even −inf, adds exactly 0).
  auto argument = [&](Vec v) {
    const Vec t = (v - shift) * factor;
    return t < lowest ? lowest : t;
  };
  auto exps = [&](Vec v) {
    const Vec t = argument(v);
    const Vec e = expNonPositive(t);
    addWide(sum, e);
    if constexpr (kMoments) addWide(dot, e * t);
    return e;
  };
  // Two vectors a step, their sums paired in float before the double sum (one rounding of
  // ≤ ½ ulp, relative, on terms of one sign: half the conversions). The pairing follows the
  // index within the span, so a row still gets the same bits wherever it lies in memory.
  long j = 0;
  for (; j + 2 * kLanes <= full; j += 2 * kLanes) {
    const Vec t0 = argument(load(x + j)), t1 = argument(load(x + j + kLanes));
    const Vec e0 = expNonPositive(t0), e1 = expNonPositive(t1);
    memcpy(w + j, &e0, sizeof e0);
    memcpy(w + j + kLanes, &e1, sizeof e1);
    addWide(sum, e0 + e1);
    if constexpr (kMoments) addWide(dot, e0 * t0 + e1 * t1);
  }
  for (; j < full; j += kLanes) {
    const Vec e = exps(load(x + j));
    memcpy(w + j, &e, sizeof e);
  }
  // The tail through the same vector code; its padding (−inf) gives exp 0 and adds nothing.
  if (full < n) storeTail(w + full, n - full, exps(loadTail(x + full, n - full, neg_inf)));
  const double z = sumLanes(sum);
  const Vec scale = splat(static_cast<float>(1.0 / z));
  PowerSums sums;
  for (long j = 0; j < full; j += kLanes) {
    const Vec v = load(w + j) * scale;
    memcpy(w + j, &v, sizeof v);
    if constexpr (kMoments) sums.add(v);
  }
  if (full < n) {
    const Vec v = loadTail(w + full, n - full, 0.0f) * scale;  // 0 adds nothing to any sum
    storeTail(w + full, n - full, v);
    if constexpr (kMoments) sums.add(v);
  }
  if constexpr (kMoments) {
    sums.into(*moments);
    moments->entropy = __builtin_log(z) - sumLanes(dot) / z;
  }
  return m;
}

float softmaxSpan(const float* x, long n, float b, float* w, Moments* moments) {
  return moments ? softmaxSpanImpl<true>(x, n, b, w, moments)
                 : softmaxSpanImpl<false>(x, n, b, w, nullptr);
}

Moments rowMoments(const float* p, long n) {
  const long full = n / kLanes * kLanes;
  VecD entropy = {};
  const Vec tiny = splat(0x1p-126f);  // FLT_MIN
  PowerSums sums;
  auto add = [&](Vec v) {
    sums.add(v);
    addWide(entropy, v * logPositive(v > tiny ? v : tiny));
  };
  for (long j = 0; j < full; j += kLanes) add(load(p + j));
  if (full < n) add(loadTail(p + full, n - full, 0.0f));  // 0 adds nothing to any sum
  Moments out;
  sums.into(out);
  out.entropy = -sumLanes(entropy);
  return out;
}

}  // namespace
}  // namespace attnlab::kernels
