#pragma once
/// \file positions.hpp
/// Rotary position embeddings (RoPE; Su, Lu, Pan, Murtadha, Wen & Liu 2021, "RoFormer: Enhanced
/// Transformer with Rotary Position Embedding", §3.2–3.4). Shared by the Llama-family models and
/// the synthetic lab.
///
/// RoPE rotates each pair of dimensions (2m, 2m + 1) of a query or key at position p by the angle
/// p·θ_m, θ_m = base^(−2m/d) (eq. 15 with base 10000 in the paper; Llama-family models set their
/// own base, e.g. rope.freq_base = 100000 for SmolLM2). Because rotations compose,
/// (R_p q)·(R_s k) = q·R_(s−p) k: the score depends on the content and on the offset s − p only
/// (eq. 16). Rotations keep ‖q‖ and ‖k‖.
///
/// Two layouts of the pairs exist in practice: the paper's interleaved one (pair m = dimensions
/// 2m and 2m + 1; llama.cpp, GGUF files) and HuggingFace's "rotate half" (pair m = dimensions m
/// and m + d/2; LlamaModel). They are the same rotation after a fixed permutation of the
/// dimensions of each head, which llama.cpp's converter applies to the rows of W_Q and W_K; since
/// q·k is unchanged when q and k are permuted alike, either layout gives identical scores.
/// The engine rotates interleaved pairs and converts HuggingFace weights with
/// permuteRotateHalfRows().

#include <string>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab {

/// θ_m = base^(−2m/d) for m in [0, d/2), the rotation frequency of pair m in radians per position
/// (Su et al. 2021, eq. 15). Computed in float32 exactly as HuggingFace's LlamaRotaryEmbedding
/// does (1 / base^(float(2m) / d)), so the engine's angles equal its angles.
/// Requires d even and > 0, base > 0 (not checked: callers validate the model's settings).
std::vector<float> ropeFrequencies(int d, double base);

/// How a model stretches RoPE's frequencies past the context it was trained on. Each kind changes
/// the frequencies θ_m of ropeFrequencies(d, base); YaRN also scales cos and sin:
/// - frequency factors (GGUF tensor rope_freqs.weight, as llama.cpp applies it): θ_m / f_m for
///   each pair m, before any of the kinds below (Llama 3.1/3.2 GGUF files store their scaling so);
/// - kLinear, position interpolation (Chen, Wong, Chen & Tian 2023, "Extending Context Window of
///   Large Language Models via Positional Interpolation", eq. 4): θ_m / s;
/// - kLlama3, the band-wise rule of Llama 3.1 as HuggingFace transformers defines rope_type
///   "llama3" (wavelength λ_m = 2π/θ_m, L = original_positions): θ_m when λ_m < L/high_freq_factor,
///   θ_m / s when λ_m > L/low_freq_factor, else (1 − a)·θ_m/s + a·θ_m with
///   a = (L/λ_m − low_freq_factor) / (high_freq_factor − low_freq_factor);
/// - kYarn, "NTK-by-parts" interpolation with attention temperature (Peng, Quesnelle, Fan &
///   Shippole 2023, "YaRN", §3.2–3.4): with r(d') = d·ln(L / (2π·d')) / (2 ln base), low =
///   max(⌊r(beta_fast)⌋, 0), high = min(⌈r(beta_slow)⌉, d − 1) and ramp γ_m = 1 − clamp((m − low) /
///   max(high − low, 0.001), 0, 1): θ_m·γ_m + (θ_m / s)·(1 − γ_m); cos and sin are multiplied by
///   attention_factor (default 0.1·ln s + 1, the paper's √(1/t), §3.4).
struct RopeScaling {
  enum class Kind { kNone, kLinear, kLlama3, kYarn };
  Kind kind = Kind::kNone;
  double factor = 1;             ///< s ≥ 1 (kLinear, kLlama3, kYarn).
  double low_freq_factor = 1;    ///< kLlama3.
  double high_freq_factor = 4;   ///< kLlama3 (> low_freq_factor).
  int original_positions = 0;    ///< L: the training context (kLlama3, kYarn), tokens.
  double beta_fast = 32;         ///< kYarn: rotations where interpolation starts (α in §3.2).
  double beta_slow = 1;          ///< kYarn: rotations where it is complete (β in §3.2).
  double attention_factor = 1;   ///< Multiplies cos and sin (kYarn); 1 otherwise.
  std::vector<float> freq_factors;  ///< f_m per pair (rope_freqs.weight); empty: none.

  bool none() const { return kind == Kind::kNone && freq_factors.empty(); }
  /// One line for model summaries, e.g. "yarn ×4 (context 4096)", "frequency factors (64)", "none".
  std::string describe() const;
};

/// The frequencies θ_m of ropeFrequencies(d, base) changed by `scaling` (see RopeScaling), in
/// float32 as HuggingFace transformers computes them for each kind. Requires d even and > 0, base
/// > 0, freq_factors empty or d/2 long (not checked: callers validate the model's settings).
std::vector<float> ropeFrequencies(int d, double base, const RopeScaling& scaling);

/// cos and sin of p·θ_m for positions p in [first, first + n) and pairs m in [0, rotary_dims/2).
/// Angles are formed as float32 products p·θ_m (as HuggingFace does), cos and sin rounded from
/// double. Layout: cos and sin [n, rotary_dims/2], row-major.
struct RopeTable {
  int positions = 0;    ///< n
  int rotary_dims = 0;  ///< Dimensions rotated per head (even); the rest pass unchanged.
  int first = 0;        ///< Position of row 0.
  std::vector<float> cos, sin;
};

/// Builds the table for n positions from `first`. Throws Error(kInvalidArgument) when
/// rotary_dims is odd or ≤ 0, n < 0, or base ≤ 0.
RopeTable makeRopeTable(int n, int rotary_dims, double base, int first = 0);
/// The same with the frequencies of ropeFrequencies(rotary_dims, base, scaling), cos and sin
/// multiplied by scaling.attention_factor (rounded to float32, then one float32 product, as
/// HuggingFace does). Also throws Error(kInvalidArgument) when freq_factors is neither empty nor
/// rotary_dims/2 long.
RopeTable makeRopeTable(int n, int rotary_dims, double base, const RopeScaling& scaling,
                        int first = 0);

/// Rotates heads in place: x holds rows of `heads` consecutive head vectors of width d_head
/// ([n, heads·d_head] row-major with row stride `row_stride` floats); for row i (position
/// first + i) and every head, pair (2m, 2m + 1) for m < rotary_dims/2 becomes
/// (x₀ cos − x₁ sin, x₀ sin + x₁ cos) (Su et al. 2021, eq. 34). Throws Error(kInvalidArgument)
/// when the table has fewer than n rows or d_head < rotary_dims.
void applyRope(float* x, int n, int heads, int d_head, int row_stride, const RopeTable& table);

/// The rotate-half → interleaved permutation of one head of width d (even): entry j is the
/// rotate-half dimension that interleaved dimension j holds, i.e. 2m + s ← m + s·d/2 for
/// s ∈ {0, 1}. (llama.cpp's convert_hf_to_gguf.py `permute` applies it to W_Q and W_K.)
std::vector<int> rotateHalfToInterleaved(int d);

/// Reorders the rows of a projection stored [heads·d, in] (PyTorch's [out, in]) head by head with
/// rotateHalfToInterleaved(d), turning HuggingFace's W_Q or W_K into the interleaved layout.
/// Throws Error(kInvalidArgument) unless w has heads·d rows and d is even.
Matrix permuteRotateHalfRows(const Matrix& w, int heads, int d);

/// ALiBi's per-head slopes m_h, h in [0, heads) (Press, Smith & Lewis 2022, "Train Short, Test
/// Long", §3): for H a power of two the geometric sequence m_h = 2^(−8(h+1)/H); otherwise the
/// slopes of the largest power of two P < H followed by every other slope of 2P, the first H − P
/// of them (the paper's reference code). Computed in double, rounded to float. The bias of query i
/// and key j is −m_h·(i − j) with a causal mask and −m_h·|i − j| without.
/// Throws Error(kInvalidArgument) when heads < 1.
std::vector<float> alibiSlopes(int heads);

/// ALiBi's bias for query i and key j with slope m (a value of alibiSlopes), in score units:
/// −m·(i − j) with a causal mask, −m·|i − j| without (Press et al. 2022, §3), formed in float32
/// as −(m · float(d)) so that every backend adds the very same value.
inline float alibiBias(float slope, int i, int j, bool causal) {
  const int d = causal ? i - j : (i > j ? i - j : j - i);
  return -(slope * static_cast<float>(d));
}

}  // namespace attnlab
