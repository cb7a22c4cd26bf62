// Fused attention output, FlashAttention-2 style (Dao 2023, arXiv:2307.08691, Algorithm 1):
// the outer loop runs over query blocks (one per work-item or work-group), the inner loop over key
// blocks; scores are never stored. A running row maximum m and sum l (online softmax, Milakov &
// Gimelshein 2018, arXiv:1805.02867) rescale an unnormalised output accumulator; at the end the
// output is divided by l and (m, l) is saved — apart, because L = m + log l as one float loses
// digits when |m| is in the thousands — so any tile of P can be recomputed later as
// e^{b(x' − m)} / l. Extra memory: O(n·d), never n².
//
// Scores (the engine's overflow contract, ScoreScale in attention.hpp): the queries arrive scaled
// by a, so x' = q·k is finite for every finite input; the reported score is S = b·x' and the
// weights are e^{b(x' − m)} / l, m being the row's (reference) maximum of x'. Ordinarily b = 1;
// b > 1 only when a temperature near 0 or huge inputs would overflow float32, and then the weights
// reach the one-hot limit instead of NaN.
//
// Build options (-D): D_K, D_V (widths per head); CPU variant: BK (keys per block), BKS (keys per
// pass of the score loop), BDV (output columns per pass of the P·V loop); GPU variant: BQ and BKG
// (queries per work-group and keys per local-memory tile). The CPU loops are register-blocked
// (2·BKS score and 2·BDV output accumulators) and unrolled so they stay in registers.
//
// Shapes (row-major, h = global id 1; G = h / q_per_kv K/V heads, grouped-query attention: query
// head `head` reads K/V head head / q_per_kv, Ainslie et al. 2023):
//   q [h, n_q, D_K] (pre-scaled), k [G, n_k, D_K], v [G, n_k, D_V]
//   slopes [h]: ALiBi's m_h / b (read only when the mask says ALiBi)
//   out: o [h, n_q, D_V], norm [h, n_q, 2] = (m, l) per row: the reference maximum of x' and
//        l = Σ_visible e^{b(x'_j − m)} ((−INFINITY, 0) for a row with no visible key; output 0)
// Mask (mask_t, attention_mask.cl, prepended): the key loop covers only the blocks that meet the
// rows' visible span (visible_keys), so with a sliding window of W the cost grows as n·W, causal
// or not; global tokens and strides test each key of the span (key_visible16).

#ifndef D_K
#define D_K 64
#endif
#ifndef D_V
#define D_V D_K
#endif
#ifndef BK
#define BK 24
#endif
#ifndef BKS
#define BKS 6
#endif
#ifndef BDV
#define BDV 4
#endif
#ifndef BQ
#define BQ 64
#endif
#ifndef BKG
#define BKG 16
#endif

// 2^y for the CPU variant's softmax arguments y = b·(x' − m)·log2(e) (y ≤ RESCALE_AT·log2(e),
// or −∞): y split as n + f, n = round(y), f in [−½, ½]; 2^f by the Cephes exp2f polynomial
// (relative error ≈ 2e-7), 2^n written into the exponent bits. y is clamped at −127, where 2^n is
// 0, so 2^−∞ = 0 exactly; 2^0 = 1 exactly. Inlined FMAs instead of the library exp, whose range
// checks and rounding cost as much again on PoCL.
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

// The factor that turns x' − m into the base-2 exponent: b·log2(e), kept finite (b ≤ FLT_MAX, so
// a zero difference — the maximum itself — always gives 2^0 = 1).
inline float exp2_factor(float b) { return fmin(b * M_LOG2E_F, FLT_MAX); }

// The CPU variant rescales only when a lane's block maximum exceeds its reference m by more than
// this (in nats of the weights, b·(x' − m)): weights are then at most e^RESCALE_AT, far from
// overflow, and since the saved (m, l) uses the same m the result is exact up to rounding.
// Rescaling (64 vector multiplies) becomes rare.
#define RESCALE_AT 8.0f

// CPU variant: each work-item owns 16 queries, one per lane of a float16, and walks the keys in
// blocks of BK: scores BKS keys at a time (2·BKS accumulators in registers; every update is one
// FMA broadcasting a K element), then the block maximum and the weights as vectors (no horizontal
// reduction per score), then P·V over BDV output columns at a time (2·BDV accumulators in
// registers for the whole block, so the private accumulator is loaded and stored once per
// block). Use with a work-group size of 1.
//
// With `materialize` (flash_probs_cpu) the same pass also gives the heatmaps' S and P, so no score
// is computed twice: the key loop covers every key (blocks the mask hides get their scores and
// nothing else), each block of S is stored as it is computed (before the mask), and once the
// rows' L is known P = exp(S − L) is written from the S rows this work-item has just stored
// (still in its cache), then S = b·x' over it when b ≠ 1. s_out, p_out [h, n_q, n_k].
inline void flash_rows_cpu(__global const float* restrict q_in, __global const float* restrict k,
                           __global const float* restrict v, __global float* restrict o,
                           __global float* restrict norm, const int n_q, const int n_k,
                           const mask_t mk, const int q_per_kv,
                           __global const float* restrict slopes, const float b,
                           __global float* restrict s_out, __global float* restrict p_out,
                           const int materialize) {
  const int i0 = (int)get_global_id(0) * 16;
  const int head = (int)get_global_id(1);
  if (i0 >= n_q) return;
  const int last = min(i0 + 15, n_q - 1);
  q_in += (size_t)head * n_q * D_K;
  k += (size_t)(head / q_per_kv) * n_k * D_K;
  v += (size_t)(head / q_per_kv) * n_k * D_V;

  const int16 rows = (int16)(i0) + (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  int lo_lane[16], hi_lane[16];
  for (int r = 0; r < 16; ++r) {
    const int2 range = visible_keys(i0 + r, n_k, mk);
    lo_lane[r] = range.x;
    hi_lane[r] = range.y;
  }
  const int16 lo = vload16(0, lo_lane), hi = vload16(0, hi_lane);
  // lo and hi grow with the row, so the block's key range runs from row i0's lo to the last
  // row's hi (key blocks above the causal diagonal or outside the window are never visited),
  // and, for a contiguous mask, keys in [last row's lo, row i0's hi) are visible to every lane.
  const int2 first_range = visible_keys(i0, n_k, mk);
  const int2 last_range = visible_keys(last, n_k, mk);
  const int j_begin = first_range.x, j_end = last_range.y;
  const int sparse = mask_sparse(mk), alibi = mask_alibi(mk);
  const float slope = alibi ? slopes[head] : 0.0f;

  float16 q[D_K];
  // Q transposed in private memory, one query per lane (lanes past the last row repeat it): the
  // 16 rows are 16·D_K contiguous floats, read once per work-item.
  for (int c = 0; c < D_K; ++c) {
    float lane[16];
    for (int r = 0; r < 16; ++r) lane[r] = q_in[(size_t)min(i0 + r, last) * D_K + c];
    q[c] = vload16(0, lane);
  }
  float16 acc[D_V];
  for (int c = 0; c < D_V; ++c) acc[c] = (float16)(0.0f);
  float16 m = (float16)(-INFINITY);  // reference maximum of x' per lane (see RESCALE_AT)
  float16 l = (float16)(0.0f);
  const float c = exp2_factor(b);
  const float16 rescale_at = (float16)(RESCALE_AT / b);  // in units of x'

  const int lanes = last - i0 + 1;
  const int loop_begin = materialize ? 0 : j_begin, loop_end = materialize ? n_k : j_end;
  for (int jb = loop_begin; jb < loop_end; jb += BK) {
    const int count = min(BK, loop_end - jb);
    float16 s[BK];
    int t0 = 0;
    for (; t0 + BKS <= count; t0 += BKS) {
      float16 r[BKS];
#pragma unroll
      for (int t = 0; t < BKS; ++t) r[t] = (float16)(0.0f);
      __global const float* kb = k + (size_t)(jb + t0) * D_K;
      for (int c = 0; c < D_K; ++c) {
        const float16 qc = q[c];
#pragma unroll
        for (int t = 0; t < BKS; ++t) r[t] = fma(qc, (float16)(kb[t * D_K + c]), r[t]);
      }
#pragma unroll
      for (int t = 0; t < BKS; ++t) s[t0 + t] = r[t];
    }
    for (; t0 < count; ++t0) {  // the last keys of the range, one at a time
      __global const float* kb = k + (size_t)(jb + t0) * D_K;
      float16 r = (float16)(0.0f);
      for (int c = 0; c < D_K; ++c) r = fma(q[c], (float16)(kb[c]), r);
      s[t0] = r;
    }
    if (alibi)  // x' − (m_h / b)·distance, so that S = b·x' carries the bias −m_h·distance
      for (int t = 0; t < count; ++t)
        s[t] = fma((float16)(-slope), alibi_distance16(rows, (int16)(jb + t), mk), s[t]);
    if (materialize) {
      // Lanes hold rows: through a private block, so that each S row is written contiguously.
      float block[16 * BK];
      for (int t = 0; t < count; ++t) vstore16(s[t], t, block);
      for (int r = 0; r < lanes; ++r) {
        __global float* row = s_out + ((size_t)head * n_q + i0 + r) * n_k + jb;
        for (int t = 0; t < count; ++t) row[t] = block[t * 16 + r];
      }
      if (jb + count <= j_begin || jb >= j_end) continue;  // no lane sees these keys
    }
    if (sparse) {
      for (int t = 0; t < BK; ++t) {
        const int16 visible = key_visible16(rows, (int16)(jb + t), mk) &
                              (int16)(t < count ? -1 : 0);
        s[t] = select((float16)(-INFINITY), s[t], visible);
      }
    } else if (count < BK || jb < last_range.x || jb + BK > first_range.y) {
      for (int t = 0; t < BK; ++t) {
        const int j = jb + t;
        const int16 visible = ((int16)(j) >= lo) & ((int16)(j) < hi) & (int16)(t < count ? -1 : 0);
        s[t] = select((float16)(-INFINITY), s[t], visible);
      }
    }
    float16 block_max = s[0];  // select rather than fmax (slower) or max (undefined for −inf)
#pragma unroll
    for (int t = 1; t < BK; ++t) block_max = select(block_max, s[t], s[t] > block_max);
    const int16 raise = block_max > m + rescale_at;  // false while both are −inf
    if (any(raise)) {
      const float16 m_new = select(m, block_max, raise);
      // 0 where m was −inf (acc and l are 0 there); lanes that keep m (perhaps −inf) keep 1.
      const float16 correction = select((float16)(1.0f), exp2_weights((m - m_new) * c), raise);
      l *= correction;
      for (int c = 0; c < D_V; ++c) acc[c] *= correction;
      m = m_new;
    }
    // A lane that has seen no visible key keeps m = −inf; subtract 0 there instead, so that
    // −inf − (−inf) is never formed (e^(−inf − 0) = 0 leaves l and acc at 0).
    const float16 m_ref = select(m, (float16)(0.0f), isinf(m));
    // The block's weights are summed on their own and then added to l: a long row's sum then
    // carries the rounding of ~n/BK additions instead of n.
    float16 block_sum = (float16)(0.0f);
#pragma unroll 4
    for (int t = 0; t < BK; ++t) {
      s[t] = exp2_weights((s[t] - m_ref) * c);  // now the unnormalised weights p
      block_sum += s[t];
    }
    l += block_sum;
    for (int c0 = 0; c0 + BDV <= D_V; c0 += BDV) {
      float16 a[BDV];
#pragma unroll
      for (int u = 0; u < BDV; ++u) a[u] = acc[c0 + u];
      __global const float* vb = v + (size_t)jb * D_V + c0;
#pragma unroll 4
      for (int t = 0; t < count; ++t) {
        const float16 p = s[t];
#pragma unroll
        for (int u = 0; u < BDV; ++u) a[u] = fma(p, (float16)(vb[t * D_V + u]), a[u]);
      }
#pragma unroll
      for (int u = 0; u < BDV; ++u) acc[c0 + u] = a[u];
    }
    for (int c = D_V / BDV * BDV; c < D_V; ++c) {  // columns left over when BDV ∤ D_V
      float16 a = acc[c];
      for (int t = 0; t < count; ++t) a = fma(s[t], (float16)(v[(size_t)(jb + t) * D_V + c]), a);
      acc[c] = a;
    }
  }

  const int16 empty = (l == (float16)(0.0f));
  const float16 inv = select((float16)(1.0f) / l, (float16)(0.0f), empty);
  float tmp[16];
  for (int col = 0; col < D_V; ++col) {
    vstore16(acc[col] * inv, 0, tmp);
    for (int r = 0; r < lanes; ++r) o[((size_t)head * n_q + i0 + r) * D_V + col] = tmp[r];
  }
  float ms[16], inv_l[16];
  vstore16(select(m, (float16)(-INFINITY), empty), 0, ms);
  vstore16(l, 0, tmp);
  vstore16(inv, 0, inv_l);
  for (int r = 0; r < lanes; ++r) {
    norm[2 * ((size_t)head * n_q + i0 + r)] = ms[r];
    norm[2 * ((size_t)head * n_q + i0 + r) + 1] = tmp[r];
  }
  if (!materialize) return;

  const int16 iota = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const int scale_scores = b != 1.0f;
  for (int r = 0; r < lanes; ++r) {
    const float row_m = ms[r] > -INFINITY ? ms[r] : 0.0f, row_inv = inv_l[r];
    const int2 range = visible_keys(i0 + r, n_k, mk);
    const size_t base = ((size_t)head * n_q + i0 + r) * n_k;
    // Keys 16 at a time; the last partial group through a private copy. P = e^{b(x' − m)} / l
    // from the x' just stored, then S = b·x' over it.
    for (int j = 0; j < n_k; j += 16) {
      const int16 cols = (int16)(j) + iota;
      int16 visible = (cols >= (int16)(range.x)) & (cols < (int16)(range.y)) &
                      (int16)(row_inv > 0.0f ? -1 : 0);
      if (sparse) visible &= key_visible16((int16)(i0 + r), cols, mk);
      if (j + 16 <= n_k) {
        const float16 sv = vload16(0, s_out + base + j);
        const float16 p = exp2_weights((sv - row_m) * c) * row_inv;
        vstore16(select((float16)(0.0f), p, visible), 0, p_out + base + j);
        if (scale_scores) vstore16(sv * b, 0, s_out + base + j);
      } else {
        float part[16];
        for (int t = 0; t < 16; ++t) part[t] = j + t < n_k ? s_out[base + j + t] : 0.0f;
        const float16 sv = vload16(0, part);
        const float16 p = exp2_weights((sv - row_m) * c) * row_inv;
        vstore16(select((float16)(0.0f), p, visible), 0, part);
        for (int t = 0; j + t < n_k; ++t) p_out[base + j + t] = part[t];
        if (scale_scores)
          for (int t = 0; j + t < n_k; ++t) s_out[base + j + t] *= b;
      }
    }
  }
}

// The fused output and (m, l) only. Global size (ceil(n_q / 16), h), work-group size 1.
__kernel void flash_fwd_cpu(__global const float* restrict q, __global const float* restrict k,
                            __global const float* restrict v, __global float* restrict o,
                            __global float* restrict norm, const int n_q, const int n_k,
                            const mask_t mk, const int q_per_kv,
                            __global const float* restrict slopes, const float b) {
  flash_rows_cpu(q, k, v, o, norm, n_q, n_k, mk, q_per_kv, slopes, b, 0, 0, 0);
}

// The fused output and (m, l), plus the scores S and weights P (the materialised path on CPU
// devices). Global size (ceil(n_q / 16), h), work-group size 1.
__kernel void flash_probs_cpu(__global const float* restrict q, __global const float* restrict k,
                              __global const float* restrict v, __global float* restrict o,
                              __global float* restrict norm, __global float* restrict s_out,
                              __global float* restrict p_out, const int n_q, const int n_k,
                              const mask_t mk, const int q_per_kv,
                              __global const float* restrict slopes, const float b) {
  flash_rows_cpu(q, k, v, o, norm, n_q, n_k, mk, q_per_kv, slopes, b, s_out, p_out, 1);
}

// GPU variant: a work-group of BQ work-items, one query each, streams K and V through local
// memory in tiles of BKG keys; each work-item rescales its private accumulator per key.
// Launch with local size (BQ, 1) and global size (ceil(n_q / BQ) · BQ, h).
__kernel void flash_fwd_gpu(__global const float* restrict q, __global const float* restrict k,
                            __global const float* restrict v, __global float* restrict o,
                            __global float* restrict norm, const int n_q, const int n_k,
                            const mask_t mk, const int q_per_kv,
                            __global const float* restrict slopes, const float b) {
  __local float k_tile[BKG * D_K];
  __local float v_tile[BKG * D_V];
  const int lid = (int)get_local_id(0);
  const int first = (int)get_group_id(0) * BQ;
  const int i = first + lid;
  const int head = (int)get_global_id(1);
  const int last = min(first + BQ - 1, n_q - 1);
  q += (size_t)head * n_q * D_K;
  k += (size_t)(head / q_per_kv) * n_k * D_K;
  v += (size_t)(head / q_per_kv) * n_k * D_V;

  const int2 range = visible_keys(min(i, n_q - 1), n_k, mk);
  const int j_begin = visible_keys(first, n_k, mk).x;
  const int j_end = visible_keys(last, n_k, mk).y;
  const int sparse = mask_sparse(mk), alibi = mask_alibi(mk);
  const float slope = alibi ? slopes[head] : 0.0f;
  float qi[D_K];
  for (int c = 0; c < D_K; ++c) qi[c] = i < n_q ? q[(size_t)i * D_K + c] : 0.0f;
  float acc[D_V];
  for (int c = 0; c < D_V; ++c) acc[c] = 0.0f;
  // l gains one term per key; compensated (Kahan), so a row of n keys sums to 1 within ~2^-23
  // instead of n·2^-24 (2e-6 at n = 1000 with plain adds). l_err is the compensation.
  float m = -INFINITY, l = 0.0f, l_err = 0.0f;

  for (int jb = j_begin; jb < j_end; jb += BKG) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int idx = lid; idx < BKG * D_K; idx += BQ) {
      const int j = jb + idx / D_K;
      k_tile[idx] = j < j_end ? k[(size_t)j * D_K + idx % D_K] : 0.0f;
    }
    for (int idx = lid; idx < BKG * D_V; idx += BQ) {
      const int j = jb + idx / D_V;
      v_tile[idx] = j < j_end ? v[(size_t)j * D_V + idx % D_V] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n_q) {
      const int t_begin = max(range.x - jb, 0), t_end = min(range.y - jb, BKG);
      for (int t = t_begin; t < t_end; ++t) {
        if (sparse && !key_visible(i, jb + t, mk)) continue;
        float s = 0.0f;
        for (int c = 0; c < D_K; ++c) s = fma(qi[c], k_tile[t * D_K + c], s);
        if (alibi) s = fma(-slope, alibi_distance(i, jb + t, mk), s);
        const float m_new = fmax(m, s);
        const float correction = exp((m - m_new) * b);  // m = −inf, m_new finite → 0
        const float p = exp((s - m_new) * b);
        l *= correction;
        l_err *= correction;
        const float y = p - l_err, sum = l + y;
        l_err = (sum - l) - y;
        l = sum;
        for (int c = 0; c < D_V; ++c) acc[c] = fma(p, v_tile[t * D_V + c], acc[c] * correction);
        m = m_new;
      }
    }
  }
  if (i >= n_q) return;
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
  for (int c = 0; c < D_V; ++c) o[((size_t)head * n_q + i) * D_V + c] = acc[c] * inv;
  norm[2 * ((size_t)head * n_q + i)] = l > 0.0f ? m : -INFINITY;
  norm[2 * ((size_t)head * n_q + i) + 1] = l;
}
