// Additive (Bahdanau) attention, e_ij = vᵀ tanh(W_a q_i + U_a k_j) (Bahdanau, Cho & Bengio 2015,
// arXiv:1409.0473, Appendix A.1.2), and the generic pieces it needs on the device: a per-head row
// projection, a row softmax over stored scores, and P·V.
//
// Shapes (row-major, h = last global dimension): x [h, n, d_in], w [h, d_in, d_out];
// a [h, n_q, d_a] = Q W_a, bk [h, n_k, d_a] = K U_a, va [h, d_a]; s, p [h, n_q, n_k];
// v [h, n_k, d_v], o [h, n_q, d_v]. Mask as in flash_attention.cl.

inline int2 visible_keys(int i, int n_k, int causal, int offset, int window) {
  int hi = causal ? clamp(i + 1 + offset, 0, n_k) : n_k;
  int lo = (causal && window > 0) ? clamp(i + offset - window + 1, 0, hi) : 0;
  return (int2)(lo, hi);
}

// y = x w per head. Global size (d_out, n, h).
__kernel void project_rows(__global const float* restrict x, __global const float* restrict w,
                           __global float* restrict y, const int n, const int d_in,
                           const int d_out) {
  const int col = (int)get_global_id(0), row = (int)get_global_id(1);
  const int head = (int)get_global_id(2);
  __global const float* xr = x + ((size_t)head * n + row) * d_in;
  __global const float* wh = w + (size_t)head * d_in * d_out;
  float sum = 0.0f;
  for (int c = 0; c < d_in; ++c) sum = fma(xr[c], wh[(size_t)c * d_out + col], sum);
  y[((size_t)head * n + row) * d_out + col] = sum;
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

// p = softmax over the visible keys of each stored score row (row maximum subtracted; masked
// weights exactly 0; a row with no visible key all 0). Global size (n_q, h).
__kernel void softmax_rows(__global const float* restrict s, __global float* restrict p,
                           __global float* restrict lse, const int n_q, const int n_k,
                           const int causal, const int offset, const int window) {
  const int i = (int)get_global_id(0), head = (int)get_global_id(1);
  const size_t base = ((size_t)head * n_q + i) * n_k;
  const int2 range = visible_keys(i, n_k, causal, offset, window);
  float m = -INFINITY;
  for (int j = range.x; j < range.y; ++j) m = fmax(m, s[base + j]);
  float l = 0.0f;
  for (int j = range.x; j < range.y; ++j) l += exp(s[base + j] - m);
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
  for (int j = 0; j < n_k; ++j)
    p[base + j] = (j >= range.x && j < range.y) ? exp(s[base + j] - m) * inv : 0.0f;
  lse[(size_t)head * n_q + i] = l > 0.0f ? m + log(l) : -INFINITY;
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
