#pragma once
/// \file attention.hpp
/// The CPU reference attention: scores, softmax weights, per-head outputs and per-row statistics
/// from given queries, keys and values. Every other backend is checked against this one.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/spec.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

/// Per-head queries, keys and values, plus the additive mechanism's parameters. Keys and values
/// may have fewer heads than the queries (grouped-query attention, Ainslie et al. 2023): G =
/// AttentionSpec::kv_heads (or h when it is 0) heads, G dividing h; query head i then uses K/V
/// head kvHeadOf(i, h, G).
struct AttentionInputs {
  Tensor3 q;  ///< Queries [h, n_q, d_k].
  Tensor3 k;  ///< Keys    [G, n_k, d_k].
  Tensor3 v;  ///< Values  [G, n_k, d_v].
  // Additive attention only (Bahdanau et al. 2015): per head, e_ij = vᵀ tanh(W_a q_i + U_a k_j).
  Tensor3 w_a;  ///< W_a as [h, d_k, d_a] (right-multiplied: q_i W_a).
  Tensor3 u_a;  ///< U_a as [h, d_k, d_a] (right-multiplied: k_j U_a).
  Tensor3 v_a;  ///< v as [h, 1, d_a].
};

/// Per-query-row statistics of one head's attention weights p (a row of P). Each vector has n_q
/// entries. Rows where every key is masked have all statistics 0.
struct HeadStats {
  std::vector<float> max_weight;          ///< max_j p_j, in [1/n, 1].
  std::vector<float> entropy;             ///< H = −Σ p_j ln p_j, in nats.
  /// H / ln(n_visible), in [0, 1], where n_visible is the number of keys of the row the mask
  /// pattern leaves visible (MaskPattern::visibleCount: n_k without a mask, i + 1 for causal
  /// row i); 0 when n_visible ≤ 1.
  std::vector<float> normalized_entropy;
  std::vector<float> effective_keys;      ///< exp(H): how many keys the row effectively uses.
  /// ‖diag(p) − p pᵀ‖_F, the Frobenius norm of the softmax Jacobian ∂p/∂s: 0 for a one-hot row,
  /// √(1/n − 1/n²) for a uniform one. Small values mean vanishing gradients through the softmax.
  std::vector<float> jacobian_norm;
};

/// Why a requested OpenCL device was not used, as a code and parameters, so that the window can
/// say it in its own language; AttentionResult::fallback_reason says the same in English.
enum class FallbackCode {
  kNone,               ///< The requested backend computed the result.
  kNoOpenClBuild,      ///< This build has no OpenCL support.
  kNoPlatform,         ///< No OpenCL platform: args[0] names the failed call and its code.
  kNoDevice,           ///< Platforms but no device.
  kKernelsBuilding,    ///< The window's background build of the programs is not finished.
  kKernelsBuildingDk,  ///< The programs for args[0] = d_k are building (window, background).
  kDeviceError,        ///< An OpenCL call failed: args[0] is the error (call, code, build log).
  /// The spec asks for numerics only the CPU reference has (AttentionSpec::cpuOnlyNumerics):
  /// args[0] names them ("--precision fp16", "--softmax naive", "--dropout 0.1", joined by ", ").
  kCpuOnlyNumerics,
};

/// Linear attention's outputs alone (Katharopoulos et al. 2020, eqs. 5 and 10–12; φ = elu + 1),
/// [h, n_q, d_v], formed in O(n·d_k·d_v) without the implied weights — what computeAttentionCpu
/// returns as head_outputs for Mechanism::kLinear (which also forms P for the pictures). The
/// spec's causal mask and key padding apply. For the benchmark. Throws as computeAttentionCpu.
Tensor3 linearAttentionOutputs(const AttentionInputs& inputs, const AttentionSpec& spec);

/// The settings of `spec` that only the CPU reference computes (kCpuOnlyNumerics' args[0]):
/// "--mechanism linear", "--precision fp16", "--softmax naive", "--dropout 0.1",
/// "soft-capping c·tanh(S/c), c = 50", joined by ", "; empty when none.
std::string cpuOnlyNumericsNames(const AttentionSpec& spec);

/// The English sentence for a fallback code and its parameters (what fallback_reason holds).
std::string fallbackText(FallbackCode code, const std::vector<std::string>& args);

/// What a backend returns for one attention problem.
struct AttentionResult {
  Mechanism mechanism = Mechanism::kScaled;
  Mask mask = Mask::kNone;
  /// The pairs the result hid beyond `mask` (AttentionSpec::maskPattern(): window, global tokens,
  /// stride, key padding); every backend sets it. Read it through pattern().
  MaskPattern mask_pattern;
  double scale = 1.0;     ///< The factor applied to raw scores (see AttentionSpec::scoreScale).
  /// Scores (logits) after the scale, the ALiBi bias (Positions::kAlibi) and the soft-cap
  /// (AttentionSpec::score_cap: the capped c·tanh(S/c)), before the mask [h, n_q, n_k].
  Tensor3 scores;
  Tensor3 weights;        ///< Attention weights, softmax over keys [h, n_q, n_k]; masked = 0.
  Tensor3 head_outputs;   ///< Per-head outputs P_h V_h [h, n_q, d_v].
  std::vector<HeadStats> stats;  ///< One entry per head.
  Precision precision = Precision::kFp32;   ///< The softmax's format (AttentionSpec::precision).
  SoftmaxKind softmax = SoftmaxKind::kStable;  ///< Stable or naive exponentials.
  double dropout = 0.0;   ///< The dropout probability applied to the weights (0: none).
  /// With dropout: 1 where a visible weight was dropped (zeroed) [h, n_q, n_k]; else empty.
  std::vector<std::uint8_t> dropped;
  std::string backend;    ///< "cpu" or "opencl".
  std::string device;     ///< Human-readable device name.
  std::string fallback_reason;  ///< Why a requested accelerator was not used; empty otherwise.
  FallbackCode fallback_code = FallbackCode::kNone;  ///< fallback_reason as a code …
  std::vector<std::string> fallback_args;            ///< … and its parameters.

  /// Sets fallback_code, fallback_args and fallback_reason (= fallbackText(code, args)).
  void setFallback(FallbackCode code, std::vector<std::string> args = {}) {
    fallback_reason = fallbackText(code, args);
    fallback_code = code;
    fallback_args = std::move(args);
  }

  /// Every (query, key) pair the result hid: mask_pattern, causal also when mask is kCausal.
  /// Weights outside it are exactly 0.
  MaskPattern pattern() const {
    MaskPattern p = mask_pattern;
    p.causal = p.causal || mask == Mask::kCausal;
    return p;
  }

  /// True when a weight of row i of `head` is ±inf or NaN (reduced precision, naive softmax).
  bool nonfiniteRow(int head, int i) const {
    const float* w = weights.row(head, i);
    for (int j = 0; j < weights.cols; ++j)
      if (!std::isfinite(w[j])) return true;
    return false;
  }
  /// True when cell (head, i, j) was dropped by dropout.
  bool isDropped(int head, int i, int j) const {
    return !dropped.empty() &&
           dropped[(static_cast<std::size_t>(head) * weights.rows + i) * weights.cols + j] != 0;
  }

  int heads() const { return weights.h; }
  int nQ() const { return weights.rows; }
  int nK() const { return weights.cols; }
};

/// How a score scale s (AttentionSpec::scoreScale: 1/√d_k, 1/T or 1) is applied so that no
/// float32 product overflows, for every backend alike (the overflow contract):
///   x' = a · (q·k)  — formed as (a·q)·k in float32, or a·e for additive energies e;
///   S  = b · x'     — the reported score, rounded to float32;
///   p_j = e^{b (x'_j − m)} / Σ_visible e^{b (x'_k − m)}, m the largest visible x' of the row.
/// a·b = s. Ordinarily a = s and b = 1 (x' is the score). When s·bound would exceed 2^126 (bound:
/// max‖q_i‖·max(1, max‖k_j‖) for dot products, by Cauchy–Schwarz every partial sum of q·k is at
/// most ‖q‖‖k‖; max Σ|v_a| for additive energies) — a temperature near 0, or huge inputs — a is
/// the power of two that keeps a·bound ≤ 2^126 and b = s / a takes the rest, clamped to FLT_MAX.
/// So x' is always finite; S is ±inf exactly where the true score exceeds float32's range (an
/// honest overflow, never clamped into a false tie); the weights are finite, and as s → ∞ they
/// reach the limit T → 0: one-hot at the arg-max, shared only by keys whose x' are equal. (With
/// b clamped to FLT_MAX, x' differences below 104 / FLT_MAX ≈ 3e-37 count as equal; x' reaches
/// 2^126 ≈ 8.5e37, so this is 2^-240 of the range.)
struct ScoreScale {
  double scale = 1;          ///< s, the factor the spec asks for.
  float query_factor = 1;    ///< a: multiplies the queries (or the additive energies).
  float score_factor = 1;    ///< b: multiplies x' into the reported score and the softmax.
};

/// Splits `scale` into (a, b) for inputs whose products are bounded by `bound` (see ScoreScale).
ScoreScale splitScoreScale(double scale, double bound);

/// Computes attention on the CPU (Eigen), the reference implementation.
/// Inputs: q [h, n_q, d_k], k [G, n_k, d_k], v [G, n_k, d_v] with G = spec.kv_heads (h when 0;
/// query head i reads K/V head kvHeadOf(i, h, G), Ainslie et al. 2023) (and w_a, u_a, v_a
/// [h, …] for kAdditive).
/// Scores S = scale · Q Kᵀ (the queries scaled before the product) or the additive energies
/// e = vᵀ tanh(W_a q + U_a k) (formed in double) times the temperature's 1/T; with
/// Positions::kAlibi the bias alibiBias(m_h, i, j, causal) is then added (Press et al. 2022, §3;
/// m_h = alibiSlopes(h)[head]), and the reported scores include it. With spec.score_cap = c > 0
/// every score is then soft-capped, S ← c·tanh(S / c) (Gemma 2, §2), tanh in double, and the
/// reported scores are the capped ones. Weights P = softmax over the
/// keys spec.maskPattern() leaves visible, the row maximum subtracted, the exponentials in
/// float32, their sum in double, so every row sums to 1 within ~1e-7. A masked weight is exactly
/// 0 whatever the scores; a row with every key masked gets zero weights, a zero output row and
/// zero statistics.
/// Extreme scores follow the overflow contract of ScoreScale: finite inputs never give NaN or a
/// clamped score; a temperature whose 1/T overflows float32 gives the one-hot limit. (The ALiBi
/// bias is added to x' as bias / b, so S = b·x' + bias; with b = 1 that is x' + bias.)
/// Throws Error(kInvalidArgument) when shapes disagree or spec is invalid; kMask kCausal requires
/// n_q == n_k.
AttentionResult computeAttentionCpu(const AttentionInputs& inputs, const AttentionSpec& spec);

/// Softmax of one row of n raw scores x' over the visible keys [lo, hi) (every mask in the engine
/// leaves a contiguous range visible): p_j = e^{b (x'_j − m)} / Σ e^{b (x'_k − m)} with
/// b = score_factor and m the largest visible x' (see ScoreScale; b = 1 for ordinary scores).
/// p gets the weights, exactly 0 outside [lo, hi). Scores of +inf (only a caller passing them:
/// the engine's x' are finite) share the weight equally; a row of −inf scores is uniform.
/// Returns false and zeros p when the range is empty.
bool softmaxRow(const float* scores, float* p, int n, int lo, int hi, float score_factor = 1.0f);

/// softmaxRow over the keys of query row i that `pattern` leaves visible (any pattern, contiguous
/// or not: global tokens and strides leave gaps); the same numerics, masked weights exactly 0.
/// Returns false and zeros p when no key is visible.
bool softmaxRowMasked(const float* scores, float* p, int n, const MaskPattern& pattern, int i,
                      float score_factor = 1.0f);

/// Statistics of one weight row p of length n with n_visible unmasked keys (see HeadStats).
struct RowStats {
  double max_weight = 0, entropy = 0, normalized_entropy = 0, effective_keys = 0,
         jacobian_norm = 0;
};
/// Computes RowStats for one weight row (length n) with n_visible unmasked keys.
RowStats rowStats(const float* p, int n, int n_visible);

}  // namespace attnlab
