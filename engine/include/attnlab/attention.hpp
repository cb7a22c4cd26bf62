#pragma once
/// \file attention.hpp
/// The CPU reference attention: scores, softmax weights, per-head outputs and per-row statistics
/// from given queries, keys and values. Every other backend is checked against this one.

#include <string>
#include <vector>

#include "attnlab/spec.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

/// Per-head queries, keys and values, plus the additive mechanism's parameters.
struct AttentionInputs {
  Tensor3 q;  ///< Queries [h, n_q, d_k].
  Tensor3 k;  ///< Keys    [h, n_k, d_k].
  Tensor3 v;  ///< Values  [h, n_k, d_v].
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
  /// H / ln(n_visible), in [0, 1], where n_visible is the number of unmasked keys of the row
  /// (n_k without a mask, i + 1 for causal row i); 0 when n_visible ≤ 1.
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
};

/// The English sentence for a fallback code and its parameters (what fallback_reason holds).
std::string fallbackText(FallbackCode code, const std::vector<std::string>& args);

/// What a backend returns for one attention problem.
struct AttentionResult {
  Mechanism mechanism = Mechanism::kScaled;
  Mask mask = Mask::kNone;
  double scale = 1.0;     ///< The factor applied to raw scores (see AttentionSpec::scoreScale).
  Tensor3 scores;         ///< Scores (logits) after the scale, before the mask [h, n_q, n_k].
  Tensor3 weights;        ///< Attention weights, softmax over keys [h, n_q, n_k]; masked = 0.
  Tensor3 head_outputs;   ///< Per-head outputs P_h V_h [h, n_q, d_v].
  std::vector<HeadStats> stats;  ///< One entry per head.
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

  int heads() const { return weights.h; }
  int nQ() const { return weights.rows; }
  int nK() const { return weights.cols; }
};

/// Computes attention on the CPU (Eigen), the reference implementation.
/// Inputs: q [h, n_q, d_k], k [h, n_k, d_k], v [h, n_k, d_v] (and w_a, u_a, v_a for kAdditive).
/// Scores S = scale · Q Kᵀ (scale applied to Q before the product) or the additive form times the
/// temperature's 1/T; weights P = softmax over keys with the row maximum subtracted. A masked weight
/// is exactly 0 whatever the scores; a row with every key masked gets zero weights, a zero output
/// row and zero statistics. No NaN is produced for finite inputs: dot products that overflow
/// float32 are recomputed in double and clamped to ±FLT_MAX (ties at the maximum share the
/// weight); additive scores are formed in double.
/// Throws Error(kInvalidArgument) when shapes disagree or spec is invalid; kMask kCausal requires
/// n_q == n_k.
AttentionResult computeAttentionCpu(const AttentionInputs& inputs, const AttentionSpec& spec);

/// Softmax of one row of n scores over the visible keys [lo, hi) (every mask in the engine leaves a
/// contiguous range visible); p gets the weights, exactly 0 outside [lo, hi). The row maximum is
/// subtracted first. Returns false and zeros p when the range is empty.
bool softmaxRow(const float* scores, float* p, int n, int lo, int hi);

/// Statistics of one weight row p of length n with n_visible unmasked keys (see HeadStats).
struct RowStats {
  double max_weight = 0, entropy = 0, normalized_entropy = 0, effective_keys = 0,
         jacobian_norm = 0;
};
/// Computes RowStats for one weight row (length n) with n_visible unmasked keys.
RowStats rowStats(const float* p, int n, int n_visible);

}  // namespace attnlab
