#pragma once
/// \file spec.hpp
/// AttentionSpec: what to compute. A plain value type shared by the engine, the CLI and the GUI.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace attnlab {

/// How a query and a key are turned into a score (logit).
enum class Mechanism {
  kAdditive,  ///< e = vᵀ tanh(W_a q + U_a k) (Bahdanau, Cho & Bengio 2015, eq. 6 / App. A.1.2).
  kDot,       ///< e = q·k (Luong, Pham & Manning 2015, "dot").
  kScaled,    ///< e = q·k / √d_k (Vaswani et al. 2017, §3.2.1, eq. 1).
  /// Linear attention (Katharopoulos et al. 2020, "Transformers are RNNs", eqs. 4–6): no softmax;
  /// similarity φ(q)·φ(k) with φ(x) = elu(x) + 1, P_ij = φ(q_i)·φ(k_j) / Σ_l φ(q_i)·φ(k_l), the
  /// output formed as φ(q_i)ᵀ(Σ_j φ(k_j) v_jᵀ) / φ(q_i)ᵀ(Σ_j φ(k_j)) in O(n·d_k·d_v) (causal:
  /// prefix sums over j ≤ i). CPU reference only.
  kLinear,
};

/// Which keys a query may see.
enum class Mask {
  kNone,    ///< Every query sees every key (encoder / bidirectional).
  kCausal,  ///< Query i sees keys j ≤ i only (decoder); self-attention only.
};

/// How the synthetic lab puts token positions into attention (issue 12). Pretrained models use
/// their own scheme and ignore this.
enum class Positions {
  kSinusoidal,  ///< Added to the embeddings (Vaswani et al. 2017, §3.5).
  kRope,        ///< Rotates q and k (Su et al. 2021, RoFormer, §3.4; see positions.hpp).
  kAlibi,       ///< Adds −m_h·(i − j) or −m_h·|i − j| to the scores (Press et al. 2022, §3).
  kNone,        ///< No position information at all.
};

/// The number format the softmax is carried out in (issue 13; the seeds' fp16 overflow pitfall).
/// kFp32 is the engine's own arithmetic; kFp16 and kBf16 round the scores, every exponential, every
/// partial sum and every weight to the format (round to nearest, ties to even), emulated exactly
/// in software (attnlab/numerics.hpp). CPU reference only: other backends fall back to it.
enum class Precision {
  kFp32,  ///< IEEE 754 binary32 (the default; the engine's own path).
  kFp16,  ///< IEEE 754 binary16: 5 exponent bits, 10 fraction bits, largest finite 65504.
  kBf16,  ///< bfloat16: binary32's 8 exponent bits, 7 fraction bits, largest ≈ 3.39e38.
};

/// How the softmax forms its exponentials.
enum class SoftmaxKind {
  kStable,  ///< e^{s_j − max_l s_l}: never overflows (the standard log-sum-exp shift).
  kNaive,   ///< e^{s_j} without the shift: overflows once a score exceeds ln(largest finite).
};

/// Which (query, key) pairs are visible: the causal mask combined with a sliding window, global
/// tokens, a stride and key padding. The default pattern shows everything. A pure value type,
/// shared by the CPU reference, the kernels' arguments, the statistics and the pictures.
///
/// visible(i, j) is decided in this order:
///   1. j ≥ valid_keys (when valid_keys ≥ 0): a [PAD] key, hidden (key padding mask);
///   2. causal and j > i: hidden;
///   3. global > 0 and (i < global or j < global): visible (Longformer's global tokens,
///      Beltagy, Peters & Cohan 2020, §3.1);
///   4. window > 0: visible when i − j < window (causal) or |i − j| < window (otherwise)
///      (Longformer §3.1; Mistral's sliding window, Jiang et al. 2023);
///   5. stride > 0: also visible when (i − j) mod stride = 0 (Child et al. 2019, "strided" pattern,
///      §4.2, combined with the window);
///   6. window = 0: visible; otherwise hidden.
struct MaskPattern {
  bool causal = false;
  int window = 0;       ///< W ≥ 1, or 0 for no window.
  int global = 0;       ///< The first `global` tokens are global (0: none).
  int stride = 0;       ///< S ≥ 1, or 0 for no stride (only meaningful with a window).
  int valid_keys = -1;  ///< Keys j ≥ valid_keys are padding and hidden; −1: no padding mask.

  /// True when query i may see key j (rules above).
  bool visible(int i, int j) const {
    if (valid_keys >= 0 && j >= valid_keys) return false;
    if (causal && j > i) return false;
    if (global > 0 && (i < global || j < global)) return true;
    if (window <= 0) return true;
    const int d = i - j;
    if ((causal ? d : (d < 0 ? -d : d)) < window) return true;
    return stride > 0 && d % stride == 0;
  }
  /// True when every visible set is one contiguous range per row (no global, no stride), so that
  /// span() is exact.
  bool contiguous() const { return global <= 0 && stride <= 0; }
  /// The smallest half-open range [first, second) of keys in [0, n_k) holding every key query i
  /// may see (empty when none): kernels skip key blocks outside it.
  std::pair<int, int> span(int i, int n_k) const {
    int hi = n_k;
    if (valid_keys >= 0 && valid_keys < hi) hi = valid_keys;
    if (causal && i + 1 < hi) hi = i + 1;
    int lo = 0;
    const bool global_row = global > 0 && i < global;
    if (window > 0 && !global_row && stride <= 0 && global <= 0) {
      lo = i - window + 1 > 0 ? i - window + 1 : 0;
      if (!causal && i + window < hi) hi = i + window;
    }
    if (lo > hi) lo = hi;
    return {lo, hi};
  }
  /// True for the pattern that shows everything (no causal mask either).
  bool none() const { return !causal && window <= 0 && global <= 0 && valid_keys < 0; }
  /// How many of the keys [0, n_k) query i may see (the n_visible of the row statistics).
  int visibleCount(int i, int n_k) const {
    const auto [lo, hi] = span(i, n_k);
    if (contiguous()) return hi - lo;
    int count = 0;
    for (int j = lo; j < hi; ++j) count += visible(i, j) ? 1 : 0;
    return count;
  }
  /// The fraction of the n_q·n_k (query, key) pairs of an [n_q, n_k] attention matrix that this
  /// pattern leaves visible: Σ_i visibleCount(i, n_k) / (n_q·n_k), in [0, 1] — 1 for none(),
  /// (n + 1) / (2n) causal at n_q = n_k = n, 1/n for a causal window of 1 (the diagonal). 0 when
  /// n_q or n_k is below 1. Costs O(n_q) for contiguous() patterns, O(n_q·n_k) otherwise.
  double visibleFraction(int n_q, int n_k) const {
    if (n_q < 1 || n_k < 1) return 0.0;
    double count = 0;
    for (int i = 0; i < n_q; ++i) count += visibleCount(i, n_k);
    return count / (static_cast<double>(n_q) * n_k);
  }
  bool operator==(const MaskPattern&) const = default;
};

/// Everything that decides the attention computation apart from the inputs themselves.
struct AttentionSpec {
  Mechanism mechanism = Mechanism::kScaled;
  Mask mask = Mask::kNone;
  int heads = 8;     ///< h, number of heads (≥ 1).
  int d_model = 64;  ///< Width of token embeddings and of the output.
  int d_k = 0;       ///< Query/key width per head; 0 means d_model / heads (which must divide).
  int d_v = 0;       ///< Value width per head; 0 means the resolved d_k.
  int d_a = 0;       ///< Additive attention's hidden size; 0 means the resolved d_k.
  /// When set, scores are divided by this temperature T instead of the mechanism's own scale
  /// (q·k/T for dot and scaled; e/T for additive). Must be finite and > 0.
  std::optional<double> temperature;
  /// kScaled's width: scores are q·k/√scale_width instead of q·k/√d_k; 0 means d_k (Vaswani et
  /// al.'s 1/√d_k). Gemma 2 and 3 divide by √query_pre_attn_scalar (Gemma Team 2024, "Gemma 2",
  /// Table 1 and §2: d_k for the 2B and 9B models, d_model/h = 144 for the 27B). Finite, ≥ 0. Dot
  /// (scaling off) and a temperature replace it, as they replace 1/√d_k.
  double scale_width = 0;
  /// Soft-capping of the scores (Gemma Team 2024, "Gemma 2", §2 "Logit soft-capping", after Bello
  /// et al. 2016): S ← c·tanh(S / c), after the scale and the ALiBi bias, before the mask and the
  /// softmax, so every score lies in (−c, c). 0 = none (c finite, ≥ 0; Gemma 2 uses c = 50). The
  /// scores a result reports are the capped ones. Every mechanism but linear; the OpenCL kernels
  /// do not cap (they fall back to the CPU reference with kCpuOnlyNumerics, naming it).
  double score_cap = 0;
  /// G, the number of key/value heads (grouped-query attention, see kvHeadOf); 0 means heads
  /// (multi-head attention). Must divide heads. Inputs then carry K and V as [G, n_k, d].
  int kv_heads = 0;
  /// Sliding window W (MaskPattern::window): 0 = none.
  int window = 0;
  /// Global tokens (MaskPattern::global): 0 = none.
  int global_tokens = 0;
  /// Stride S (MaskPattern::stride): 0 = none.
  int stride = 0;
  /// Key padding: keys j ≥ valid_keys are [PAD] and masked; −1 = no padding mask. The synthetic
  /// lab sets it from --pad-to (and leaves it −1 with --no-pad-mask, to show the bug).
  int valid_keys = -1;
  /// The synthetic lab's position scheme; kAlibi also makes every backend add the ALiBi bias
  /// −m_h·(i − j) (causal) or −m_h·|i − j| to the scores (after the scale, before the mask).
  Positions positions = Positions::kSinusoidal;
  /// RoPE's base (θ_m = base^(−2m/d_k)); used with Positions::kRope.
  double rope_base = 10000.0;
  /// The softmax's number format (Precision); anything but kFp32 runs on the CPU reference.
  Precision precision = Precision::kFp32;
  /// Stable (row maximum subtracted) or naive exponentials; kNaive runs on the CPU reference.
  SoftmaxKind softmax = SoftmaxKind::kStable;
  /// Dropout probability p on the attention weights, 0 ≤ p < 1 (Vaswani et al. 2017, §5.4;
  /// Srivastava et al. 2014): after the softmax each weight is zeroed with probability p and the
  /// rest multiplied by 1/(1 − p) ("inverted dropout"). 0 = none (the inference view, exact).
  double dropout = 0.0;
  /// The seed of the dropout draws (the synthetic lab passes --seed).
  std::uint64_t dropout_seed = 0;

  /// True when the softmax leaves the engine's fp32 stable path, dropout is on, the mechanism is
  /// linear or the scores are soft-capped: only the CPU reference computes these (accelerated backends fall back with kCpuOnlyNumerics).
  bool cpuOnlyNumerics() const {
    return precision != Precision::kFp32 || softmax != SoftmaxKind::kStable || dropout > 0.0 ||
           mechanism == Mechanism::kLinear || score_cap > 0.0;
  }

  /// G after applying the default (heads).
  int resolvedKvHeads() const { return kv_heads > 0 ? kv_heads : heads; }
  /// The visibility pattern of mask, window, global_tokens, stride and valid_keys.
  MaskPattern maskPattern() const {
    MaskPattern p;
    p.causal = mask == Mask::kCausal;
    p.window = window;
    p.global = global_tokens;
    p.stride = stride;
    p.valid_keys = valid_keys;
    return p;
  }

  /// d_k after applying the default (d_model / heads).
  int resolvedDk() const { return d_k > 0 ? d_k : (heads > 0 ? d_model / heads : 0); }
  /// d_v after applying the default (d_k).
  int resolvedDv() const { return d_v > 0 ? d_v : resolvedDk(); }
  /// d_a after applying the default (d_k).
  int resolvedDa() const { return d_a > 0 ? d_a : resolvedDk(); }
  /// The factor applied to raw scores for query/key width d_k: 1/T when a temperature is set,
  /// else 1/√d_k (1/√scale_width when it is set) for kScaled and 1 for kDot and kAdditive.
  double scoreScale(int d_k) const;

  /// Checks every field; throws Error(kInvalidArgument) with a one-line message naming the first
  /// bad setting (e.g. "heads (3) must divide d_model (64), or set d_k").
  void validate() const;

  bool operator==(const AttentionSpec&) const = default;
};

/// Parses "additive", "dot" or "scaled" (case-sensitive). Throws Error(kInvalidArgument) naming
/// the value and the accepted ones.
Mechanism parseMechanism(std::string_view name);
/// The lower-case name used by the CLI and JSON ("additive", "dot", "scaled").
std::string toString(Mechanism mechanism);
/// "none" or "causal".
std::string toString(Mask mask);
/// Parses "sinusoidal", "rope", "alibi" or "none" (case-sensitive). Throws
/// Error(kInvalidArgument) naming the value and the accepted ones.
Positions parsePositions(std::string_view name);
/// The lower-case name used by the CLI and JSON ("sinusoidal", "rope", "alibi", "none").
std::string toString(Positions positions);

/// Parses "fp32", "fp16" or "bf16". Throws Error(kInvalidArgument) naming the value.
Precision parsePrecision(std::string_view name);
/// "fp32", "fp16" or "bf16".
std::string toString(Precision precision);
/// Parses "stable" or "naive". Throws Error(kInvalidArgument) naming the value.
SoftmaxKind parseSoftmaxKind(std::string_view name);
/// "stable" or "naive".
std::string toString(SoftmaxKind softmax);

/// The keys query i may see, as the half-open range [first, second) of key indices in [0, n_k).
/// Every mask the engine knows leaves a contiguous range: [0, n_k) for none, [0, min(i + 1, n_k))
/// for causal.
inline std::pair<int, int> visibleKeys(Mask mask, int i, int n_k) {
  if (mask == Mask::kCausal) return {0, i + 1 < n_k ? i + 1 : n_k};
  return {0, n_k};
}

/// Grouped-query attention (Ainslie et al. 2023, "GQA", §2.2; multi-query attention: Shazeer
/// 2019): h query heads share G key/value heads, G dividing h, in groups of h/G consecutive query
/// heads. Query head i uses K/V head ⌊i·G/h⌋ (HuggingFace's repeat_kv: i / (h/G)). G = h is
/// multi-head attention, G = 1 multi-query attention. Requires 0 ≤ i < h and G dividing h (not
/// checked here: callers validate G).
inline int kvHeadOf(int query_head, int heads, int kv_heads) {
  return static_cast<int>(static_cast<long long>(query_head) * kv_heads / heads);
}

}  // namespace attnlab
