#pragma once
/// \file saturation.hpp
/// Softmax saturation against d_k: why Vaswani et al. (2017, §3.2.1) scale q·k by 1/√d_k.
/// If q and k have iid N(0, 1) components, q·k has mean 0 and variance d_k; unscaled, the scores
/// spread as √d_k, the softmax approaches one-hot and its Jacobian (hence the gradient) vanishes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/spec.hpp"

namespace attnlab {

/// Averages for one d_k and one scaling choice.
struct SaturationPoint {
  int d_k = 0;
  double score_variance = 0;      ///< Variance of the raw dot product q·k (before any scaling).
  double mean_max_weight = 0;     ///< Mean over rows of max_j p_j.
  double mean_norm_entropy = 0;   ///< Mean over rows of H / ln(n_k), in [0, 1].
  double mean_jacobian_norm = 0;  ///< Mean over rows of ‖diag(p) − p pᵀ‖_F.
};

/// Curves over a list of d_k, with and without the 1/√d_k scale.
struct SaturationAnalysis {
  int n_k = 0;                             ///< Keys per softmax row.
  std::vector<SaturationPoint> scaled;     ///< Scores q·k/√d_k.
  std::vector<SaturationPoint> unscaled;   ///< Scores q·k.
};

/// The default d_k list: 1, 2, 4, …, 1024.
std::vector<int> defaultDkList();

/// Settings of the Monte-Carlo estimate.
struct SaturationConfig {
  std::vector<int> d_k = defaultDkList();  ///< Each ≥ 1.
  int n_k = 16;             ///< Keys per row (≥ 1).
  int samples = 2000;       ///< Softmax rows drawn per d_k (≥ 2).
  std::uint64_t seed = 0;   ///< Same seed, same numbers.
};

/// Rows per d_k the interactive curves draw for n_k keys — the window's saturation panel, the
/// lessons' numbers and the lecture pack's figures alike, so a caption quotes the curve on
/// screen: about 32000 scores per d_k, 32000 / n_k rows clamped to [32, 2000] (each row's mean is
/// over n_k keys already).
int saturationSamples(int n_k);

/// Monte-Carlo: for each d_k, `samples` rows, each one query and n_k keys with iid N(0, 1)
/// components; the same draws give the scaled and the unscaled point. Deterministic for a seed.
/// Throws Error(kInvalidArgument) for an empty list, d_k < 1, n_k < 1 or samples < 2.
SaturationAnalysis saturationMonteCarlo(const SaturationConfig& config);

/// The same figures for a sentence's own queries and keys: for each d_k the synthetic model is
/// rebuilt with that d_k (other settings from spec) and the statistics are averaged over all heads
/// and query rows (causal rows normalise entropy by their visible keys). n_k in the result is the
/// sentence's key count. Throws like runSynthetic.
SaturationAnalysis saturationOfSentence(const AttentionSpec& spec, std::uint64_t seed,
                                        bool positions, const std::string& text,
                                        const std::optional<std::string>& source,
                                        const std::vector<int>& d_k_list);

}  // namespace attnlab
