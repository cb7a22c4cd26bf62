// The materialised path the heatmaps need: scores S and attention weights P for every
// (query, key), computed in tiles in two passes.
//   pass 1 (row_norm_*): for each query row, the row maximum m and sum l gathered across key tiles
//     with the online softmax (Milakov & Gimelshein 2018, arXiv:1805.02867); writes (m, l) apart
//     ((−INFINITY, 0) for a row with no visible key): L = m + log l as one float would lose digits
//     when |m| is in the thousands.
//   pass 2 (write_probs_*): recomputes each tile of x' (the same FMA order as pass 1, so the same
//     bits) and writes S = b·x' and P = e^{b(x' − m)} / l, already normalised; masked entries of P
//     are exactly 0 (S keeps the unmasked score).
// Scores follow the engine's overflow contract (ScoreScale in attention.hpp): the queries arrive
// scaled by a, x' = q·k is finite, b = 1 ordinarily.
// On CPU devices the heatmaps take S and P from flash_probs_cpu (flash_attention.cl) instead, which
// never computes a score twice; this file also holds the CPU variant of the block-pooled weights.
//
// Build options (-D): D_K; ROWS (query rows per work-item, CPU variant); TILE (GPU tile edge).
// Shapes (row-major, h = last global dimension; G = h / q_per_kv K/V heads, query head `head`
// reading K/V head head / q_per_kv):
//   q [h, n_q, D_K] pre-scaled; kt [G, D_K, nk_pad] (K transposed, zero-padded to a multiple of
//   16; CPU variant); k [G, n_k, D_K] (GPU variant); norm [h, n_q, 2] = (m, l);
//   slopes [h] (ALiBi's m_h / b); s, p [h, n_q, n_k].
// Mask (mask_t, attention_mask.cl, prepended): every pattern — causal, sliding window, global
// tokens, stride, key padding — and the ALiBi bias, added to x' before the mask (S includes it).
// The bias is formed as fma(−m_h/b, distance, x') in every kernel, so that the passes agree bit
// for bit.

#ifndef D_K
#define D_K 64
#endif
#ifndef ROWS
#define ROWS 4
#endif
#ifndef TILE
#define TILE 16
#endif

// 2^y for y = b·(x' − m)·log2(e) ≤ 0 (or −∞): y = n + f (n = round(y), f in [−½, ½]); 2^f by the
// Cephes exp2f polynomial (relative error ≈ 2e-7), 2^n written into the exponent bits; y is
// clamped at −127, where 2^n is 0; 2^0 = 1 exactly. Cheaper than the library exp on PoCL.
inline float16 exp2_weights(float16 y0) {
  // select rather than max: max is undefined for infinite arguments in OpenCL C.
  const float16 y = select(y0, (float16)(-127.0f), y0 < (float16)(-127.0f));
  // Adding 1.5·2^23 rounds y to the nearest integer n, held in the low mantissa bits of t.
  const float16 t = y + (float16)(12582912.0f);
  const float16 f = y - (t - (float16)(12582912.0f));
  float16 p = (float16)(1.535336188319500e-4f);
  p = fma(p, f, (float16)(1.339887440266574e-3f));
  p = fma(p, f, (float16)(9.618437357674640e-3f));
  p = fma(p, f, (float16)(5.550332471162809e-2f));
  p = fma(p, f, (float16)(2.402264791363012e-1f));
  p = fma(p, f, (float16)(6.931472028550421e-1f));
  p = fma(p, f, (float16)(1.0f));
  // as_int(t) = 0x4B400000 + n; shifted left by 23, only n + 127 remains: the bits of 2^n.
  return p * as_float16((as_int16(t) + 127) << 23);
}

// b·log2(e), kept finite (b ≤ FLT_MAX), so x' − m = 0 always gives 2^0 = 1.
inline float exp2_factor(float b) { return fmin(b * M_LOG2E_F, FLT_MAX); }

// A row's (m, l) as the weights need them: m (0 for a row with no visible key, so that no
// −∞ − (−∞) is formed) and 1/l (0 for that row, which makes every weight 0).
inline float2 row_norm(__global const float* restrict norm, const size_t row) {
  const float m = norm[2 * row], l = norm[2 * row + 1];
  return l > 0.0f ? (float2)(m, 1.0f / l) : (float2)(0.0f, 0.0f);
}

#define IOTA16 ((int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))

// Row i's x' for keys cols (16 lanes) with the ALiBi bias added, and which of them row i sees
// within its span [range.x, range.y) (−1 visible, 0 not).
inline float16 biased_scores(const float16 x, const int i, const int16 cols, const mask_t mk,
                             const float slope) {
  if (!mask_alibi(mk)) return x;
  return fma((float16)(-slope), alibi_distance16((int16)(i), cols, mk), x);
}
inline int16 visible_cols(const int i, const int16 cols, const int2 range, const mask_t mk) {
  int16 seen = (cols >= (int16)(range.x)) & (cols < (int16)(range.y));
  if (mask_sparse(mk)) seen &= key_visible16((int16)(i), cols, mk);
  return seen;
}

// Scores of ROWS query rows (q, row-major; only the first `rows` exist, the others repeat the
// last so nothing past the buffer is read) against keys jb … jb + 15 of K transposed (kt, rows
// padded to nk_pad): one vector load of 16 keys per feature, broadcast FMAs per row.
inline void score_tile(__global const float* restrict q, __global const float* restrict kt,
                       const int nk_pad, const int jb, const int rows, float16* s) {
  __global const float* qr[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    s[r] = (float16)(0.0f);
    qr[r] = q + min(r, rows - 1) * D_K;
  }
  for (int c = 0; c < D_K; ++c) {
    const float16 kc = vload16(0, kt + (size_t)c * nk_pad + jb);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) s[r] = fma((float16)(qr[r][c]), kc, s[r]);
  }
}

// CPU variant of pass 1: ROWS query rows per work-item; 16 keys per step, one per lane, loaded
// contiguously from K transposed; running max and sum kept per lane and reduced once at the end.
__kernel void row_norm_cpu(__global const float* restrict q, __global const float* restrict kt,
                           __global float* restrict norm, const int n_q, const int n_k,
                           const int nk_pad, const mask_t mk, const int q_per_kv,
                           __global const float* restrict slopes, const float b) {
  const int r0 = (int)get_global_id(0) * ROWS;
  const int head = (int)get_global_id(1);
  if (r0 >= n_q) return;
  const int rows = min(ROWS, n_q - r0);
  q += ((size_t)head * n_q + r0) * D_K;
  kt += (size_t)(head / q_per_kv) * D_K * nk_pad;
  const float slope = mask_alibi(mk) ? slopes[head] : 0.0f;
  int2 range[ROWS];
  float16 m[ROWS], l[ROWS];
  for (int r = 0; r < ROWS; ++r) {
    range[r] = visible_keys(min(r0 + r, n_q - 1), n_k, mk);
    m[r] = (float16)(-INFINITY);
    l[r] = (float16)(0.0f);
  }
  const int j_begin = range[0].x & ~15;
  const int j_end = range[rows - 1].y;
  for (int jb = j_begin; jb < j_end; jb += 16) {
    float16 s[ROWS];
    score_tile(q, kt, nk_pad, jb, rows, s);
    const int16 cols = (int16)(jb) + IOTA16;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int i = min(r0 + r, n_q - 1);
      const int16 visible = visible_cols(i, cols, range[r], mk);
      const float16 sr =
          select((float16)(-INFINITY), biased_scores(s[r], i, cols, mk, slope), visible);
      const float16 m_new = fmax(m[r], sr);
      const float16 m_ref = select(m_new, (float16)(0.0f), isinf(m_new));  // never −inf − (−inf)
      l[r] = l[r] * exp((m[r] - m_ref) * b) + exp((sr - m_ref) * b);
      m[r] = m_new;
    }
  }
  for (int r = 0; r < rows; ++r) {
    float mv[16], lv[16];
    vstore16(m[r], 0, mv);
    vstore16(l[r], 0, lv);
    float big = -INFINITY;
    for (int t = 0; t < 16; ++t) big = fmax(big, mv[t]);
    float sum = 0.0f;
    if (big > -INFINITY)
      for (int t = 0; t < 16; ++t) sum += lv[t] > 0.0f ? lv[t] * exp((mv[t] - big) * b) : 0.0f;
    const size_t row = (size_t)head * n_q + r0 + r;
    norm[2 * row] = sum > 0.0f ? big : -INFINITY;
    norm[2 * row + 1] = sum;
  }
}

// CPU variant of pass 2: ROWS query rows per work-item, looping over all keys 16 at a time and
// writing with vector stores (few, long work-items: PoCL pays per work-group launched).
// Global size (ceil(n_q / ROWS), h).
__kernel void write_probs_cpu(__global const float* restrict q, __global const float* restrict kt,
                              __global const float* restrict norm, __global float* restrict s_out,
                              __global float* restrict p_out, const int n_q, const int n_k,
                              const int nk_pad, const mask_t mk, const int q_per_kv,
                              __global const float* restrict slopes, const float b) {
  const int r0 = (int)get_global_id(0) * ROWS;
  const int head = (int)get_global_id(1);
  if (r0 >= n_q) return;
  const int rows = min(ROWS, n_q - r0);
  q += ((size_t)head * n_q + r0) * D_K;
  kt += (size_t)(head / q_per_kv) * D_K * nk_pad;
  const float c = exp2_factor(b);
  const float slope = mask_alibi(mk) ? slopes[head] : 0.0f;
  int2 range[ROWS];
  float2 mn[ROWS];  // (m, 1/l)
  for (int r = 0; r < ROWS; ++r) {
    const int i = min(r0 + r, n_q - 1);
    range[r] = visible_keys(i, n_k, mk);
    mn[r] = row_norm(norm, (size_t)head * n_q + i);
  }
  for (int jb = 0; jb < n_k; jb += 16) {
    float16 s[ROWS];
    score_tile(q, kt, nk_pad, jb, rows, s);
    const int16 cols = (int16)(jb) + IOTA16;
    const bool full = jb + 16 <= n_k;
    for (int r = 0; r < rows; ++r) {
      const int16 visible =
          visible_cols(r0 + r, cols, range[r], mk) & (int16)(mn[r].y > 0.0f ? -1 : 0);
      const float16 x = biased_scores(s[r], r0 + r, cols, mk, slope);
      const float16 p =
          select((float16)(0.0f), exp2_weights((x - mn[r].x) * c) * mn[r].y, visible);
      const float16 scores = x * b;  // S = b·x' (b = 1 ordinarily)
      const size_t base = ((size_t)head * n_q + r0 + r) * n_k + jb;
      if (full) {
        vstore16(scores, 0, s_out + base);
        vstore16(p, 0, p_out + base);
      } else {
        float sv[16], pv[16];
        vstore16(scores, 0, sv);
        vstore16(p, 0, pv);
        for (int t = 0; t < n_k - jb; ++t) {
          s_out[base + t] = sv[t];
          p_out[base + t] = pv[t];
        }
      }
    }
  }
}

// GPU variant of pass 1: TILE·TILE work-items per group, one query row each, K streamed through
// local memory TILE keys at a time. Local size (TILE·TILE, 1), global (ceil(n_q/TILE²)·TILE², h).
__kernel void row_norm_gpu(__global const float* restrict q, __global const float* restrict k,
                           __global float* restrict norm, const int n_q, const int n_k,
                           const mask_t mk, const int q_per_kv,
                           __global const float* restrict slopes, const float b) {
  __local float k_tile[TILE * D_K];
  const int group = TILE * TILE;
  const int lid = (int)get_local_id(0);
  const int first = (int)get_group_id(0) * group;
  const int i = first + lid;
  const int head = (int)get_global_id(1);
  const int last = min(first + group - 1, n_q - 1);
  q += (size_t)head * n_q * D_K;
  k += (size_t)(head / q_per_kv) * n_k * D_K;
  const int2 range = visible_keys(min(i, n_q - 1), n_k, mk);
  const int j_begin = visible_keys(first, n_k, mk).x;
  const int j_end = visible_keys(last, n_k, mk).y;
  const int sparse = mask_sparse(mk), alibi = mask_alibi(mk);
  const float slope = alibi ? slopes[head] : 0.0f;
  float qi[D_K];
  for (int c = 0; c < D_K; ++c) qi[c] = i < n_q ? q[(size_t)i * D_K + c] : 0.0f;
  float m = -INFINITY, l = 0.0f, l_err = 0.0f;  // l summed with Kahan's compensation l_err
  for (int jb = j_begin; jb < j_end; jb += TILE) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int idx = lid; idx < TILE * D_K; idx += group) {
      const int j = jb + idx / D_K;
      k_tile[idx] = j < j_end ? k[(size_t)j * D_K + idx % D_K] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n_q) {
      const int t_begin = max(range.x - jb, 0), t_end = min(range.y - jb, TILE);
      for (int t = t_begin; t < t_end; ++t) {
        if (sparse && !key_visible(i, jb + t, mk)) continue;
        float s = 0.0f;
        for (int c = 0; c < D_K; ++c) s = fma(qi[c], k_tile[t * D_K + c], s);
        if (alibi) s = fma(-slope, alibi_distance(i, jb + t, mk), s);
        const float m_new = fmax(m, s);
        const float correction = exp((m - m_new) * b);
        l *= correction;
        l_err *= correction;
        const float y = exp((s - m_new) * b) - l_err, sum = l + y;
        l_err = (sum - l) - y;
        l = sum;
        m = m_new;
      }
    }
  }
  if (i >= n_q) return;
  norm[2 * ((size_t)head * n_q + i)] = l > 0.0f ? m : -INFINITY;
  norm[2 * ((size_t)head * n_q + i) + 1] = l;
}

// GPU variant of pass 2: a TILE × TILE tile of (query, key) per work-group, Q and K tiles staged in
// local memory TILE features at a time (the classic tiled matrix product).
// Local size (TILE, TILE, 1); global (ceil(n_k/TILE)·TILE, ceil(n_q/TILE)·TILE, h).
__kernel void write_probs_gpu(__global const float* restrict q, __global const float* restrict k,
                              __global const float* restrict norm, __global float* restrict s_out,
                              __global float* restrict p_out, const int n_q, const int n_k,
                              const mask_t mk, const int q_per_kv,
                              __global const float* restrict slopes, const float b) {
  __local float q_tile[TILE][TILE];
  __local float k_tile[TILE][TILE + 1];
  const int tj = (int)get_local_id(0), ti = (int)get_local_id(1);
  const int j = (int)get_global_id(0), i = (int)get_global_id(1);
  const int head = (int)get_global_id(2);
  const int i_base = (int)get_group_id(1) * TILE, j_base = (int)get_group_id(0) * TILE;
  q += (size_t)head * n_q * D_K;
  k += (size_t)(head / q_per_kv) * n_k * D_K;
  float s = 0.0f;
  for (int c0 = 0; c0 < D_K; c0 += TILE) {
    const int qi = i_base + ti, kj = j_base + ti, c = c0 + tj;
    q_tile[ti][tj] = (qi < n_q && c < D_K) ? q[(size_t)qi * D_K + c] : 0.0f;
    k_tile[ti][tj] = (kj < n_k && c < D_K) ? k[(size_t)kj * D_K + c] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = 0; t < TILE; ++t) s = fma(q_tile[ti][t], k_tile[tj][t], s);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i >= n_q || j >= n_k) return;
  if (mask_alibi(mk)) s = fma(-slopes[head], alibi_distance(i, j, mk), s);
  const int2 range = visible_keys(i, n_k, mk);
  const int visible = j >= range.x && j < range.y && (!mask_sparse(mk) || key_visible(i, j, mk));
  const float2 mn = row_norm(norm, (size_t)head * n_q + i);  // (m, 1/l)
  const size_t idx = ((size_t)head * n_q + i) * n_k + j;
  s_out[idx] = s * b;
  p_out[idx] = (visible && mn.y > 0.0f) ? exp((s - mn.x) * b) * mn.y : 0.0f;
}

// CPU variant of the block-pooled weights (pool_probs in pool_attention.cl), kept in this file for
// its score tile and exponential: one block row of P per work-item, ROWS query rows at a time
// against 16 keys of K transposed; each lane's weight goes to its block's sum and maximum in the
// output row, which only this work-item writes. Global size (nb_q, h), work-group size 1.
__kernel void pool_probs_cpu(__global const float* restrict q, __global const float* restrict kt,
                             __global const float* restrict norm, __global float* restrict mean_out,
                             __global float* restrict max_out, const int n_q, const int n_k,
                             const int nk_pad, const int b, const int nb_k, const mask_t mk,
                             const int q_per_kv, __global const float* restrict slopes,
                             const float score_factor) {
  const int bi = (int)get_global_id(0), head = (int)get_global_id(1);
  const int nb_q = (int)get_global_size(0);
  __global float* sums = mean_out + ((size_t)head * nb_q + bi) * nb_k;
  __global float* maxima = max_out + ((size_t)head * nb_q + bi) * nb_k;
  for (int bj = 0; bj < nb_k; ++bj) {
    sums[bj] = 0.0f;
    maxima[bj] = 0.0f;
  }
  const int i_begin = bi * b, i_end = min(n_q, i_begin + b);
  const float c = exp2_factor(score_factor);
  const float slope = mask_alibi(mk) ? slopes[head] : 0.0f;
  kt += (size_t)(head / q_per_kv) * D_K * nk_pad;
  for (int r0 = i_begin; r0 < i_end; r0 += ROWS) {
    const int rows = min(ROWS, i_end - r0);
    int2 range[ROWS];
    float2 mn[ROWS];  // (m, 1/l)
    for (int r = 0; r < ROWS; ++r) {
      range[r] = r < rows ? visible_keys(r0 + r, n_k, mk) : (int2)(0, 0);
      mn[r] = row_norm(norm, (size_t)head * n_q + min(r0 + r, n_q - 1));
    }
    // Visible ranges grow with the row: from the first row's lo to the last row's hi.
    const int j_end = range[rows - 1].y;
    for (int jb = range[0].x & ~15; jb < j_end; jb += 16) {
      float16 s[ROWS];
      score_tile(q + ((size_t)head * n_q + r0) * D_K, kt, nk_pad, jb, rows, s);
      const int16 cols = (int16)(jb) + IOTA16;
      float16 total = (float16)(0.0f), top = (float16)(0.0f);
      for (int r = 0; r < rows; ++r) {
        const int16 visible =
            visible_cols(r0 + r, cols, range[r], mk) & (int16)(mn[r].y > 0.0f ? -1 : 0);
        const float16 x = biased_scores(s[r], r0 + r, cols, mk, slope);
        const float16 p =
            select((float16)(0.0f), exp2_weights((x - mn[r].x) * c) * mn[r].y, visible);
        total += p;
        top = fmax(top, p);
      }
      float tv[16], mv[16];
      vstore16(total, 0, tv);
      vstore16(top, 0, mv);
      for (int t = 0; t < 16 && jb + t < n_k; ++t) {
        const int bj = (jb + t) / b;
        sums[bj] += tv[t];
        maxima[bj] = fmax(maxima[bj], mv[t]);
      }
    }
  }
  for (int bj = 0; bj < nb_k; ++bj)
    sums[bj] /= (float)((i_end - i_begin) * (min(n_k, (bj + 1) * b) - bj * b));
}
