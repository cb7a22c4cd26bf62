// Block-pooled attention weights: the mean and the maximum of P over b × b blocks, recomputed from
// Q, K and the saved row maximum and sum (m, l) (see flash_attention.cl) as
// P = e^{score_factor·(x' − m)} / l, so an overview heatmap of a long sequence never moves n²
// values to the host. Cells past the edge are not counted; masked cells count as 0 in the mean.
//
// Build options (-D): D_K. Shapes: q [h, n_q, D_K] scaled by a, k [G, n_k, D_K] (query head
// `head` reads K/V head head / q_per_kv), norm [h, n_q, 2], slopes [h] (ALiBi's m_h / score_factor);
// mean_out, max_out [h, nb_q, nb_k] with nb = ceil(n / b). Global size (nb_k, nb_q, h).
// Mask and bias: mask_t (attention_mask.cl, prepended), as in materialized_attention.cl.

#ifndef D_K
#define D_K 64
#endif

__kernel void pool_probs(__global const float* restrict q, __global const float* restrict k,
                         __global const float* restrict norm, __global float* restrict mean_out,
                         __global float* restrict max_out, const int n_q, const int n_k,
                         const int b, const mask_t mk, const int q_per_kv,
                         __global const float* restrict slopes, const float score_factor) {
  const int bj = (int)get_global_id(0), bi = (int)get_global_id(1);
  const int head = (int)get_global_id(2);
  const int nb_k = (int)get_global_size(0), nb_q = (int)get_global_size(1);
  q += (size_t)head * n_q * D_K;
  k += (size_t)(head / q_per_kv) * n_k * D_K;
  const int sparse = mask_sparse(mk), alibi = mask_alibi(mk);
  const float slope = alibi ? slopes[head] : 0.0f;
  const int i_end = min(n_q, (bi + 1) * b), j_end = min(n_k, (bj + 1) * b);
  float sum = 0.0f, largest = 0.0f;
  for (int i = bi * b; i < i_end; ++i) {
    const float m = norm[2 * ((size_t)head * n_q + i)], l = norm[2 * ((size_t)head * n_q + i) + 1];
    if (!(l > 0.0f)) continue;
    const float inv_l = 1.0f / l;
    const int2 range = visible_keys(i, n_k, mk);
    __global const float* qi = q + (size_t)i * D_K;
    for (int j = max(bj * b, range.x); j < min(j_end, range.y); ++j) {
      if (sparse && !key_visible(i, j, mk)) continue;
      __global const float* kj = k + (size_t)j * D_K;
      float s = 0.0f;
      for (int c = 0; c < D_K; ++c) s = fma(qi[c], kj[c], s);
      if (alibi) s = fma(-slope, alibi_distance(i, j, mk), s);
      const float p = exp((s - m) * score_factor) * inv_l;
      sum += p;
      largest = fmax(largest, p);
    }
  }
  const int cells = (i_end - bi * b) * (j_end - bj * b);
  const size_t out = ((size_t)head * nb_q + bi) * nb_k + bj;
  mean_out[out] = cells > 0 ? sum / (float)cells : 0.0f;
  max_out[out] = largest;
}
