// Additive (Bahdanau) attention, e_ij = vᵀ tanh(W_a q_i + U_a k_j) (Bahdanau, Cho & Bengio 2015,
// arXiv:1409.0473, Appendix A.1.2), and the generic pieces it needs on the device: a per-head row
// projection, a row softmax over stored scores, and P·V. The scores and P·V come in two variants:
// GPU-shaped (one work-item per output element) and CPU-shaped (*_cpu: 16 keys or 16 output
// columns per float16, work-group size 1; a tanh or an FMA then works on a whole vector).
//
// Scores follow the engine's overflow contract (ScoreScale in attention.hpp): the score kernels
// write x' = a·e (a = `scale`; |e| ≤ Σ|v_a|, so x' is finite); the softmax kernels take the weights
// as e^{b(x' − m)} / l and then turn the stored x' into the reported S = b·x' (b = 1 ordinarily).
//
// Build options (-D): ROWS (rows of P per work-item in weights_times_values_cpu).
// Shapes (row-major, h = last global dimension): x [h, n, d_in], w [h, d_in, d_out];
// a [h, n_q, d_a] = Q W_a, bk [h, n_k, d_a] = K U_a, bkt [h, d_a, nk_pad] (its transpose,
// zero-padded), va [h, d_a]; s, p [h, n_q, n_k]; v [h, n_k, d_v], vpad [h, n_k, dv_pad] (zero-
// padded to a multiple of 16), o [h, n_q, d_v]; norm [h, n_q, 2] = (m, l) per row.
// Mask and bias: mask_t (attention_mask.cl, prepended): every pattern, and ALiBi's −m_h·distance
// (slopes [h] hold m_h / b) added to x' by the softmax kernels before the mask (so S includes it).
// K and V arrive with one head per query head (the host repeats grouped K/V heads).

#ifndef ROWS
#define ROWS 4
#endif

// Stores the first min(count, 16) lanes of x at dst.
inline void store_lanes(const float16 x, __global float* dst, const int count) {
  if (count >= 16) {
    vstore16(x, 0, dst);
  } else {
    float part[16];
    vstore16(x, 0, part);
    for (int t = 0; t < count; ++t) dst[t] = part[t];
  }
}

// (x w)[head, row, col].
inline float projected(__global const float* restrict x, __global const float* restrict w,
                       const int n, const int d_in, const int d_out, const int head,
                       const int row, const int col) {
  __global const float* xr = x + ((size_t)head * n + row) * d_in;
  __global const float* wh = w + (size_t)head * d_in * d_out;
  float sum = 0.0f;
  for (int c = 0; c < d_in; ++c) sum = fma(xr[c], wh[(size_t)c * d_out + col], sum);
  return sum;
}

// y = x w per head. Global size (d_out, n, h).
__kernel void project_rows(__global const float* restrict x, __global const float* restrict w,
                           __global float* restrict y, const int n, const int d_in,
                           const int d_out) {
  const int col = (int)get_global_id(0), row = (int)get_global_id(1);
  const int head = (int)get_global_id(2);
  y[((size_t)head * n + row) * d_out + col] = projected(x, w, n, d_in, d_out, head, row, col);
}

// yt = (x w)ᵀ per head, rows padded to n_pad. Global size (d_out, n, h).
__kernel void project_rows_transposed(__global const float* restrict x,
                                      __global const float* restrict w,
                                      __global float* restrict yt, const int n, const int d_in,
                                      const int d_out, const int n_pad) {
  const int col = (int)get_global_id(0), row = (int)get_global_id(1);
  const int head = (int)get_global_id(2);
  yt[((size_t)head * d_out + col) * n_pad + row] =
      projected(x, w, n, d_in, d_out, head, row, col);
}

// CPU variant of the scores: one query row per work-item, its keys 16 at a time (one per lane,
// contiguous in bkt). Global size (n_q, h), work-group size 1.
__kernel void additive_scores_cpu(__global const float* restrict a,
                                  __global const float* restrict bkt,
                                  __global const float* restrict va, __global float* restrict s,
                                  const int n_q, const int n_k, const int nk_pad, const int d_a,
                                  const float scale) {
  const int i = (int)get_global_id(0), head = (int)get_global_id(1);
  __global const float* ai = a + ((size_t)head * n_q + i) * d_a;
  __global const float* bh = bkt + (size_t)head * d_a * nk_pad;
  __global const float* vh = va + (size_t)head * d_a;
  __global float* row = s + ((size_t)head * n_q + i) * n_k;
  for (int j0 = 0; j0 < n_k; j0 += 16) {
    float16 e = (float16)(0.0f);
    for (int c = 0; c < d_a; ++c)
      e = fma((float16)(vh[c]), tanh((float16)(ai[c]) + vload16(0, bh + (size_t)c * nk_pad + j0)),
              e);
    store_lanes(e * scale, row + j0, n_k - j0);
  }
}

// s_ij = scale · Σ_a va_a tanh(a_ia + bk_ja). Global size (n_k, n_q, h).
__kernel void additive_scores(__global const float* restrict a, __global const float* restrict bk,
                              __global const float* restrict va, __global float* restrict s,
                              const int n_q, const int n_k, const int d_a, const float scale) {
  const int j = (int)get_global_id(0), i = (int)get_global_id(1);
  const int head = (int)get_global_id(2);
  __global const float* ai = a + ((size_t)head * n_q + i) * d_a;
  __global const float* bj = bk + ((size_t)head * n_k + j) * d_a;
  __global const float* vh = va + (size_t)head * d_a;
  float e = 0.0f;
  for (int c = 0; c < d_a; ++c) e = fma(vh[c], tanh(ai[c] + bj[c]), e);
  s[((size_t)head * n_q + i) * n_k + j] = scale * e;
}

// p = softmax over the visible keys of each stored row of x' (row maximum subtracted; masked
// weights exactly 0; a row with no visible key all 0), then s = b·x'. Global size (n_q, h).
__kernel void softmax_rows(__global float* restrict s, __global float* restrict p,
                           __global float* restrict norm, const int n_q, const int n_k,
                           const mask_t mk, __global const float* restrict slopes,
                           const float b) {
  const int i = (int)get_global_id(0), head = (int)get_global_id(1);
  const size_t base = ((size_t)head * n_q + i) * n_k;
  const int2 range = visible_keys(i, n_k, mk);
  const int sparse = mask_sparse(mk);
  if (mask_alibi(mk)) {
    const float slope = slopes[head];
    for (int j = 0; j < n_k; ++j) s[base + j] = fma(-slope, alibi_distance(i, j, mk), s[base + j]);
  }
#define SEES(j) ((j) >= range.x && (j) < range.y && (!sparse || key_visible(i, (j), mk)))
  float m = -INFINITY;
  for (int j = range.x; j < range.y; ++j)
    if (SEES(j)) m = fmax(m, s[base + j]);
  float l = 0.0f, l_err = 0.0f;  // summed with Kahan's compensation: n terms, error ~2^-23
  for (int j = range.x; j < range.y; ++j) {
    if (!SEES(j)) continue;
    const float y = exp((s[base + j] - m) * b) - l_err, sum = l + y;
    l_err = (sum - l) - y;
    l = sum;
  }
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
  for (int j = 0; j < n_k; ++j) {
    p[base + j] = SEES(j) ? exp((s[base + j] - m) * b) * inv : 0.0f;
    s[base + j] *= b;
  }
#undef SEES
  norm[2 * ((size_t)head * n_q + i)] = l > 0.0f ? m : -INFINITY;
  norm[2 * ((size_t)head * n_q + i) + 1] = l;
}

// CPU variant of softmax_rows: 16 keys per vector step; e^{b(x' − m)} is written to p and then
// scaled by 1/l, so each weight costs one exp. Global size (n_q, h), work-group size 1.
__kernel void softmax_rows_cpu(__global float* restrict s, __global float* restrict p,
                               __global float* restrict norm, const int n_q, const int n_k,
                               const mask_t mk, __global const float* restrict slopes,
                               const float b) {
  const int i = (int)get_global_id(0), head = (int)get_global_id(1);
  const size_t base = ((size_t)head * n_q + i) * n_k;
  const int2 range = visible_keys(i, n_k, mk);
  const int sparse = mask_sparse(mk);
  if (mask_alibi(mk)) {
    const float slope = slopes[head];
    for (int j = 0; j < n_k; ++j) s[base + j] = fma(-slope, alibi_distance(i, j, mk), s[base + j]);
  }
  const int16 iota = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  // Keys j0 … j0 + 15 with the invisible (or missing) ones at −∞.
#define VISIBLE_SCORES(j0, out)                                                       \
  {                                                                                   \
    const int16 cols = (int16)(j0) + iota;                                            \
    int16 seen = (cols >= (int16)(range.x)) & (cols < (int16)(range.y));              \
    if (sparse) seen &= key_visible16((int16)(i), cols, mk);                          \
    float16 raw;                                                                      \
    if ((j0) + 16 <= n_k) {                                                           \
      raw = vload16(0, s + base + (j0));                                              \
    } else {                                                                          \
      float part[16];                                                                 \
      for (int t = 0; t < 16; ++t) part[t] = (j0) + t < n_k ? s[base + (j0) + t] : 0.0f; \
      raw = vload16(0, part);                                                         \
    }                                                                                 \
    out = select((float16)(-INFINITY), raw, seen);                                    \
  }
  float16 mv = (float16)(-INFINITY);
  for (int j0 = 0; j0 < n_k; j0 += 16) {
    float16 x;
    VISIBLE_SCORES(j0, x);
    mv = fmax(mv, x);
  }
  float m = -INFINITY;
  for (int t = 0; t < 16; ++t) m = fmax(m, ((float*)&mv)[t]);
  const float m_ref = m > -INFINITY ? m : 0.0f;  // never −∞ − (−∞)
  float16 lv = (float16)(0.0f);
  for (int j0 = 0; j0 < n_k; j0 += 16) {
    float16 x;
    VISIBLE_SCORES(j0, x);
    const float16 e = exp((x - m_ref) * b);  // exactly 0 where masked
    lv += e;
    store_lanes(e, p + base + j0, n_k - j0);
  }
#undef VISIBLE_SCORES
  float l = 0.0f;
  for (int t = 0; t < 16; ++t) l += ((float*)&lv)[t];
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
  for (int j = 0; j < n_k; ++j) p[base + j] *= inv;
  if (b != 1.0f)
    for (int j = 0; j < n_k; ++j) s[base + j] *= b;
  norm[2 * ((size_t)head * n_q + i)] = l > 0.0f ? m : -INFINITY;
  norm[2 * ((size_t)head * n_q + i) + 1] = l;
}

// o = p v per head. Global size (d_v, n_q, h).
__kernel void weights_times_values(__global const float* restrict p,
                                   __global const float* restrict v, __global float* restrict o,
                                   const int n_q, const int n_k, const int d_v) {
  const int c = (int)get_global_id(0), i = (int)get_global_id(1);
  const int head = (int)get_global_id(2);
  __global const float* pi = p + ((size_t)head * n_q + i) * n_k;
  __global const float* vh = v + (size_t)head * n_k * d_v;
  float sum = 0.0f;
  for (int j = 0; j < n_k; ++j) sum = fma(pi[j], vh[(size_t)j * d_v + c], sum);
  o[((size_t)head * n_q + i) * d_v + c] = sum;
}

// CPU variant of P·V: ROWS rows of P and 16 output columns per work-item (one per lane, from V
// padded to dv_pad columns); each step broadcasts one weight into an FMA with a row of V.
// Global size (dv_pad / 16, ceil(n_q / ROWS), h), work-group size 1.
__kernel void weights_times_values_cpu(__global const float* restrict p,
                                       __global const float* restrict vpad,
                                       __global float* restrict o, const int n_q, const int n_k,
                                       const int d_v, const int dv_pad) {
  const int c0 = (int)get_global_id(0) * 16, r0 = (int)get_global_id(1) * ROWS;
  const int head = (int)get_global_id(2);
  if (r0 >= n_q) return;
  const int rows = min(ROWS, n_q - r0);
  __global const float* pr[ROWS];
  for (int r = 0; r < ROWS; ++r) pr[r] = p + ((size_t)head * n_q + r0 + min(r, rows - 1)) * n_k;
  __global const float* vh = vpad + (size_t)head * n_k * dv_pad + c0;
  float16 acc[ROWS];
  for (int r = 0; r < ROWS; ++r) acc[r] = (float16)(0.0f);
  for (int j = 0; j < n_k; ++j) {
    const float16 vj = vload16(0, vh + (size_t)j * dv_pad);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) acc[r] = fma((float16)(pr[r][j]), vj, acc[r]);
  }
  for (int r = 0; r < rows; ++r)
    store_lanes(acc[r], o + ((size_t)head * n_q + r0 + r) * d_v + c0, d_v - c0);
}
