// The preamble of every attention program: which keys a query sees and the ALiBi bias, defined
// once here and prepended to each kernel file when its program is built (Runtime::build), so the
// kernels and the CPU reference (MaskPattern in spec.hpp) agree on one set of rules.
//
// A mask travels as one int8 argument (mask_t):
//   s0 causal (0/1), s1 offset (query i sits at position p = i + offset: KV-cache style; 0 in the
//   public spec), s2 window W (0: none), s3 global tokens (0: none), s4 stride S (0: none),
//   s5 valid_keys (keys j ≥ it are padding; −1: no padding mask), s6 ALiBi on (0/1), s7 unused.
// visible(p, j), in MaskPattern's order (spec.hpp):
//   1. j ≥ valid_keys ≥ 0: hidden (key padding);  2. causal and j > p: hidden;
//   3. global > 0 and (p < global or j < global): visible (Beltagy et al. 2020, Longformer §3.1);
//   4. window > 0: visible when p − j < W (causal) or |p − j| < W (Longformer; Mistral);
//   5. stride > 0: also visible when (p − j) mod S = 0 (Child et al. 2019, strided, §4.2);
//   6. no window: visible; otherwise hidden.
// ALiBi (Press, Smith & Lewis 2022, §3): the score of (p, j) gains −m_h·(p − j) with a causal
// mask and −m_h·|p − j| without; the kernels take m_h (divided by the score factor b) per head.

typedef int8 mask_t;

inline int mask_causal(const mask_t mk) { return mk.s0; }
inline int mask_offset(const mask_t mk) { return mk.s1; }
// True when the visible keys of a row are not one contiguous range (global tokens or a stride):
// the kernels then test every key of the span with key_visible.
inline int mask_sparse(const mask_t mk) { return mk.s3 > 0 || mk.s4 > 0; }
inline int mask_alibi(const mask_t mk) { return mk.s6; }

// The smallest range [lo, hi) of keys in [0, n_k) holding every key query row i may see (empty
// when none; MaskPattern::span): exact for contiguous masks. lo and hi never decrease with i, so
// a block of rows sees keys from its first row's lo to its last row's hi.
inline int2 visible_keys(const int i, const int n_k, const mask_t mk) {
  const int p = i + mk.s1;
  int hi = n_k;
  if (mk.s5 >= 0) hi = min(hi, mk.s5);
  if (mk.s0) hi = min(hi, p + 1);
  int lo = 0;
  if (mk.s2 > 0 && !mask_sparse(mk)) {
    lo = max(0, p - mk.s2 + 1);
    if (!mk.s0) hi = min(hi, p + mk.s2);
  }
  hi = max(hi, 0);
  return (int2)(min(lo, hi), hi);
}

// True when row i sees key j (the rules above).
inline int key_visible(const int i, const int j, const mask_t mk) {
  const int p = i + mk.s1;
  if (mk.s5 >= 0 && j >= mk.s5) return 0;
  if (mk.s0 && j > p) return 0;
  if (mk.s3 > 0 && (p < mk.s3 || j < mk.s3)) return 1;
  if (mk.s2 <= 0) return 1;
  const int d = p - j;
  if ((mk.s0 ? d : max(d, -d)) < mk.s2) return 1;
  return mk.s4 > 0 && d % mk.s4 == 0;
}

// key_visible for 16 (row, key) pairs, one per lane: −1 where visible, 0 elsewhere.
inline int16 key_visible16(const int16 i, const int16 j, const mask_t mk) {
  const int16 p = i + (int16)(mk.s1);
  const int16 d = p - j;
  int16 seen = (int16)(-1);
  if (mk.s5 >= 0) seen &= j < (int16)(mk.s5);
  if (mk.s0) seen &= d >= (int16)(0);
  if (mk.s2 <= 0) return seen;
  const int16 dist = mk.s0 ? d : max(d, -d);
  int16 near = dist < (int16)(mk.s2);
  if (mk.s3 > 0) near |= (p < (int16)(mk.s3)) | (j < (int16)(mk.s3));
  if (mk.s4 > 0) near |= (d % (int16)(mk.s4)) == (int16)(0);
  return seen & near;
}

// The distance ALiBi multiplies: p − j with a causal mask, |p − j| without.
inline float alibi_distance(const int i, const int j, const mask_t mk) {
  const int d = i + mk.s1 - j;
  return (float)(mk.s0 ? d : max(d, -d));
}
inline float16 alibi_distance16(const int16 i, const int16 j, const mask_t mk) {
  const int16 d = i + (int16)(mk.s1) - j;
  return convert_float16(mk.s0 ? d : max(d, -d));
}
