// Fused attention output, FlashAttention-2 style (Dao 2023, arXiv:2307.08691, Algorithm 1):
// the outer loop runs over query blocks (one per work-item or work-group), the inner loop over key
// blocks; scores are never stored. A running row maximum m and sum l (online softmax, Milakov &
// Gimelshein 2018, arXiv:1805.02867) rescale an unnormalised output accumulator; at the end the
// output is divided by l and L = m + log(l) is saved so any tile of P can be recomputed later as
// exp(S − L). Extra memory: O(n·d), never n².
//
// Build options (-D): D_K, D_V (widths per head), BK (keys per block, CPU variant), BQ and BKG
// (queries per work-group and keys per local-memory tile, GPU variant). The loops over the BK
// keys of a block are unrolled so their accumulators live in registers (2× on PoCL).
//
// Shapes (row-major, h = global id 1):
//   cpu: qt [h, D_K, nq_pad] (Q transposed, pre-scaled), k [h, n_k, D_K], v [h, n_k, D_V]
//   gpu: q  [h, n_q, D_K] (pre-scaled),                 k, v as above
//   out: o [h, n_q, D_V], lse [h, n_q] (−INFINITY for a row with no visible key; its output is 0)
// Mask: query i sees keys [lo, hi) with hi = min(i + 1 + offset, n_k) when causal (else n_k) and
// lo = max(0, i + offset − window + 1) when causal and window > 0 (else 0).

#ifndef D_K
#define D_K 64
#endif
#ifndef D_V
#define D_V D_K
#endif
#ifndef BK
#define BK 8
#endif
#ifndef BQ
#define BQ 64
#endif
#ifndef BKG
#define BKG 16
#endif

// Visible keys [lo, hi) of query row i.
inline int2 visible_keys(int i, int n_k, int causal, int offset, int window) {
  int hi = causal ? clamp(i + 1 + offset, 0, n_k) : n_k;
  int lo = (causal && window > 0) ? clamp(i + offset - window + 1, 0, hi) : 0;
  return (int2)(lo, hi);
}

// CPU variant: each work-item owns 16 queries, one per lane of a float16. Every score update is
// one FMA broadcasting a K element; the running max and sum are vectors, so no horizontal
// reduction per score; the accumulator lives in private memory. Use with a work-group size of 1.
__kernel void flash_fwd_cpu(__global const float* restrict qt, __global const float* restrict k,
                            __global const float* restrict v, __global float* restrict o,
                            __global float* restrict lse, const int n_q, const int n_k,
                            const int nq_pad, const int causal, const int offset,
                            const int window) {
  const int i0 = (int)get_global_id(0) * 16;
  const int head = (int)get_global_id(1);
  if (i0 >= n_q) return;
  const int last = min(i0 + 15, n_q - 1);
  qt += (size_t)head * D_K * nq_pad + i0;
  k += (size_t)head * n_k * D_K;
  v += (size_t)head * n_k * D_V;

  const int16 rows = (int16)(i0) + (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const int16 hi = causal ? clamp(rows + (1 + offset), (int16)0, (int16)n_k) : (int16)n_k;
  const int16 lo = (causal && window > 0) ? clamp(rows + (offset - window + 1), (int16)0, hi)
                                          : (int16)0;
  // lo and hi grow with the row, so the block's key range runs from row i0's lo to the last
  // row's hi: key blocks above the causal diagonal are never visited.
  const int j_begin = visible_keys(i0, n_k, causal, offset, window).x;
  const int j_end = visible_keys(last, n_k, causal, offset, window).y;

  float16 q[D_K];
  for (int c = 0; c < D_K; ++c) q[c] = vload16(0, qt + (size_t)c * nq_pad);
  float16 acc[D_V];
  for (int c = 0; c < D_V; ++c) acc[c] = (float16)(0.0f);
  float16 m = (float16)(-INFINITY);
  float16 l = (float16)(0.0f);

  for (int jb = j_begin; jb < j_end; jb += BK) {
    const int count = min(BK, j_end - jb);
    // Scores of BK keys for the 16 queries: BK accumulators stay in registers while each q[c] is
    // loaded once; every update is one FMA broadcasting a K element.
    float16 s[BK];
#pragma unroll
    for (int t = 0; t < BK; ++t) s[t] = (float16)(0.0f);
    if (count == BK) {
      for (int c = 0; c < D_K; ++c) {
        const float16 qc = q[c];
#pragma unroll
        for (int t = 0; t < BK; ++t) s[t] = fma(qc, (float16)(k[(size_t)(jb + t) * D_K + c]), s[t]);
      }
    } else {
      for (int c = 0; c < D_K; ++c) {
        const float16 qc = q[c];
        for (int t = 0; t < count; ++t)
          s[t] = fma(qc, (float16)(k[(size_t)(jb + t) * D_K + c]), s[t]);
      }
    }
    float16 block_max = (float16)(-INFINITY);
#pragma unroll
    for (int t = 0; t < BK; ++t) {
      const int j = jb + t;
      const int16 visible = ((int16)(j) >= lo) & ((int16)(j) < hi) & (int16)(t < count ? -1 : 0);
      s[t] = select((float16)(-INFINITY), s[t], visible);
      block_max = fmax(block_max, s[t]);
    }
    const float16 m_new = fmax(m, block_max);
    // A lane that has seen no visible key keeps m = −inf; subtract 0 there instead, so that
    // −inf − (−inf) is never formed (exp(−inf − 0) = 0 leaves l and acc at 0).
    const float16 m_ref = select(m_new, (float16)(0.0f), isinf(m_new));
    const float16 correction = exp(m - m_ref);
    l *= correction;
#pragma unroll
    for (int t = 0; t < BK; ++t) {
      s[t] = exp(s[t] - m_ref);  // now the unnormalised weights p
      l += s[t];
    }
    // Rescale and accumulate: each acc[c] is loaded and stored once per block of BK keys.
    if (count == BK) {
      for (int c = 0; c < D_V; ++c) {
        float16 a = acc[c] * correction;
#pragma unroll
        for (int t = 0; t < BK; ++t) a = fma(s[t], (float16)(v[(size_t)(jb + t) * D_V + c]), a);
        acc[c] = a;
      }
    } else {
      for (int c = 0; c < D_V; ++c) {
        float16 a = acc[c] * correction;
        for (int t = 0; t < count; ++t) a = fma(s[t], (float16)(v[(size_t)(jb + t) * D_V + c]), a);
        acc[c] = a;
      }
    }
    m = m_new;
  }

  const int16 empty = (l == (float16)(0.0f));
  const float16 inv = select((float16)(1.0f) / l, (float16)(0.0f), empty);
  const float16 row_lse = select(m + log(l), (float16)(-INFINITY), empty);
  float tmp[16];
  const int lanes = last - i0 + 1;
  for (int c = 0; c < D_V; ++c) {
    vstore16(acc[c] * inv, 0, tmp);
    for (int r = 0; r < lanes; ++r) o[((size_t)head * n_q + i0 + r) * D_V + c] = tmp[r];
  }
  vstore16(row_lse, 0, tmp);
  for (int r = 0; r < lanes; ++r) lse[(size_t)head * n_q + i0 + r] = tmp[r];
}

// GPU variant: a work-group of BQ work-items, one query each, streams K and V through local
// memory in tiles of BKG keys; each work-item rescales its private accumulator per key.
// Launch with local size (BQ, 1) and global size (ceil(n_q / BQ) · BQ, h).
__kernel void flash_fwd_gpu(__global const float* restrict q, __global const float* restrict k,
                            __global const float* restrict v, __global float* restrict o,
                            __global float* restrict lse, const int n_q, const int n_k,
                            const int causal, const int offset, const int window) {
  __local float k_tile[BKG * D_K];
  __local float v_tile[BKG * D_V];
  const int lid = (int)get_local_id(0);
  const int first = (int)get_group_id(0) * BQ;
  const int i = first + lid;
  const int head = (int)get_global_id(1);
  const int last = min(first + BQ - 1, n_q - 1);
  q += (size_t)head * n_q * D_K;
  k += (size_t)head * n_k * D_K;
  v += (size_t)head * n_k * D_V;

  const int2 range = visible_keys(min(i, n_q - 1), n_k, causal, offset, window);
  const int j_begin = visible_keys(first, n_k, causal, offset, window).x;
  const int j_end = visible_keys(last, n_k, causal, offset, window).y;
  float qi[D_K];
  for (int c = 0; c < D_K; ++c) qi[c] = i < n_q ? q[(size_t)i * D_K + c] : 0.0f;
  float acc[D_V];
  for (int c = 0; c < D_V; ++c) acc[c] = 0.0f;
  float m = -INFINITY, l = 0.0f;

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
        float s = 0.0f;
        for (int c = 0; c < D_K; ++c) s = fma(qi[c], k_tile[t * D_K + c], s);
        const float m_new = fmax(m, s);
        const float correction = exp(m - m_new);  // m = −inf, m_new finite → 0
        const float p = exp(s - m_new);
        l = l * correction + p;
        for (int c = 0; c < D_V; ++c) acc[c] = fma(p, v_tile[t * D_V + c], acc[c] * correction);
        m = m_new;
      }
    }
  }
  if (i >= n_q) return;
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
  for (int c = 0; c < D_V; ++c) o[((size_t)head * n_q + i) * D_V + c] = acc[c] * inv;
  lse[(size_t)head * n_q + i] = l > 0.0f ? m + log(l) : -INFINITY;
}
