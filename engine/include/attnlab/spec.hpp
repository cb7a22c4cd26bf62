#pragma once
/// \file spec.hpp
/// AttentionSpec: what to compute. A plain value type shared by the engine, the CLI and the GUI.

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
};

/// Which keys a query may see.
enum class Mask {
  kNone,    ///< Every query sees every key (encoder / bidirectional).
  kCausal,  ///< Query i sees keys j ≤ i only (decoder); self-attention only.
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

  /// d_k after applying the default (d_model / heads).
  int resolvedDk() const { return d_k > 0 ? d_k : (heads > 0 ? d_model / heads : 0); }
  /// d_v after applying the default (d_k).
  int resolvedDv() const { return d_v > 0 ? d_v : resolvedDk(); }
  /// d_a after applying the default (d_k).
  int resolvedDa() const { return d_a > 0 ? d_a : resolvedDk(); }
  /// The factor applied to raw scores for query/key width d_k: 1/T when a temperature is set,
  /// else 1/√d_k for kScaled and 1 for kDot and kAdditive.
  double scoreScale(int d_k) const;

  /// Checks every field; throws Error(kInvalidArgument) with a one-line message naming the first
  /// bad setting (e.g. "heads (3) must divide d_model (64), or set d_k").
  void validate() const;
};

/// Parses "additive", "dot" or "scaled" (case-sensitive). Throws Error(kInvalidArgument) naming
/// the value and the accepted ones.
Mechanism parseMechanism(std::string_view name);
/// The lower-case name used by the CLI and JSON ("additive", "dot", "scaled").
std::string toString(Mechanism mechanism);
/// "none" or "causal".
std::string toString(Mask mask);

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

/// True when the mask hides key j from query i. Shapes: i in [0, n_q), j in [0, n_k).
inline bool isMasked(Mask mask, int i, int j, int n_k) {
  auto [lo, hi] = visibleKeys(mask, i, n_k);
  return j < lo || j >= hi;
}

}  // namespace attnlab
