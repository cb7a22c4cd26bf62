#pragma once
/// \file decode.hpp
/// Autoregressive decoding with a KV cache, one token at a time, checked against the full causal
/// computation; and the classic cache mistakes (the seeds' pitfall 4: "tokens repeated or lost").

#include <string>
#include <string_view>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/spec.hpp"

namespace attnlab {

/// A mistake made once, at one step, when the newest token's key and value go into the cache.
enum class CacheBug {
  kNone,       ///< Append K/V of token t once (correct).
  kSkip,       ///< Token t's K/V is never appended: it is lost for its own and every later query.
  kDuplicate,  ///< Token t's K/V is appended twice: it counts double for every later query.
};
/// "none", "skip", "duplicate".
const char* toString(CacheBug bug);
/// Parses "none", "skip" or "duplicate". Throws Error(kInvalidArgument) naming the value.
CacheBug parseCacheBug(std::string_view name);

/// A row counts as differing from the full causal computation above this |Δ| (the bound).
/// Both form a row's output with weightedValueRow over the visible keys and the same softmax; a
/// score is one FMA after another over d_k in both (GEMM's cell order), so what differs is only
/// where Eigen picks another product kernel for small or peeled shapes: measured ≤ 3.6e-7 for the
/// lab at n = 4096 (window, GQA, ALiBi, RoPE, d_k 8 and 64). A cache bug moves rows by 1e-3 or more.
inline constexpr double kDecodeDiffThreshold = 1e-6;

/// One decoding step t (query t over the cache).
struct DecodeStep {
  int token = 0;         ///< t, the token whose query attends (0-based).
  int cache_length = 0;  ///< Entries in the cache after appending and eviction (per K/V head).
  /// Bytes of the cache for this layer in float32, all K/V heads: G·cache_length·(d_k + d_v)·4.
  long long cache_bytes = 0;
  /// What multi-head attention (one K/V head per query head) would hold: h·cache_length·(d_k + d_v)·4.
  long long mha_cache_bytes = 0;
  double ms = 0;             ///< Wall time of the step (append, evict, attend), milliseconds.
  double max_abs_diff = 0;   ///< max |decoded − full causal| over this row's weights and outputs.
  double max_weight_diff = 0;  ///< The same over this row's weights alone (what a Δ map shows).
  double max_output_diff = 0;  ///< The same over this row's per-head outputs alone.
};

/// The result of decoding n tokens.
struct DecodeResult {
  /// Decoded rows laid out as the full matrix: weights and scores [h, n, n] (column j = token j;
  /// a duplicated entry adds its weight to its token's column; columns not in the cache are 0 and,
  /// in scores, 0), head_outputs [h, n, d_v]; mask_pattern = the causal pattern decoded (window
  /// included), stats filled.
  AttentionResult attention;
  std::vector<DecodeStep> steps;  ///< One per token, in order.
  /// max |decoded − full causal| over every row's weights and per-head outputs (≤ 1e-6 without a
  /// bug: the same float32 arithmetic as computeAttentionCpu; see kDecodeDiffThreshold).
  double max_abs_diff = 0;
  double max_weight_diff = 0;  ///< max |decoded − full causal| over the weights alone.
  double max_output_diff = 0;  ///< max |decoded − full causal| over the per-head outputs alone.
  int first_diff_step = -1;  ///< First step whose difference exceeds kDecodeDiffThreshold; −1: none.
  CacheBug bug = CacheBug::kNone;
  int bug_step = -1;         ///< The step the bug struck (−1 without a bug).
  double total_ms = 0;       ///< Sum of the steps' times.
};

/// Decodes the self-attention of inputs (q [h, n, d_k], k and v [G, n, d] with G = spec.kv_heads)
/// token by token: at step t the key and value of token t are appended to the cache (per K/V
/// head, Ainslie et al. 2023 for G < h), entries older than the sliding window W are evicted
/// (spec.window: the cache keeps tokens t − W + 1 … t, Beltagy et al. 2020), and each query head
/// of token t attends over its K/V head's cache with the scaled dot product (Vaswani et al. 2017,
/// eq. 1; ALiBi's bias from each entry's position, Press et al. 2022). `bug` strikes once, at
/// step bug_step. The same rows are then computed in one causal pass (computeAttentionCpu) and
/// compared. Time per step excludes that check.
/// Throws Error(kInvalidArgument) for additive attention, global tokens, strides or key padding
/// (decoding here takes causal dot/scaled attention with an optional window), q and k of different
/// lengths, an empty input, or bug_step outside [0, n) when bug is not kNone.
DecodeResult decodeWithCache(const AttentionInputs& inputs, const AttentionSpec& spec,
                             CacheBug bug = CacheBug::kNone, int bug_step = -1);

}  // namespace attnlab
