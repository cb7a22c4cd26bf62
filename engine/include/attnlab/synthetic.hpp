#pragma once
/// \file synthetic.hpp
/// The synthetic lab: a deterministic stand-in for a trained model. Token embeddings are drawn
/// from N(0, 1) seeded by (token text, seed), so a word has the same vector in every sentence;
/// projections are drawn with variance 1/d_model, so for unit-variance embeddings every component
/// of q and k has unit variance and q·k has variance ≈ d_k, the assumption behind the 1/√d_k
/// scaling (Vaswani et al. 2017, §3.2.1, footnote 4).

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/backend.hpp"
#include "attnlab/spec.hpp"
#include "attnlab/tensor.hpp"
#include "attnlab/tokenizer.hpp"

namespace attnlab {

/// A deterministic random stream (SplitMix64) with a Box–Muller normal sampler; identical on every
/// platform and compiler, unlike std::normal_distribution.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  /// Uniform 64-bit integer.
  std::uint64_t next();
  /// Uniform in (0, 1).
  double uniform();
  /// Standard normal N(0, 1).
  double normal();

 private:
  std::uint64_t state_;
  double spare_ = 0;
  bool has_spare_ = false;
};

/// 64-bit FNV-1a hash of bytes mixed with a seed; used to seed per-token streams.
std::uint64_t hashSeed(std::string_view bytes, std::uint64_t seed);

/// Sinusoidal position encoding (Vaswani et al. 2017, §3.5):
/// PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)).
/// Returns [n, d_model].
Matrix sinusoidalPositions(int n, int d_model);

/// The synthetic model's weights for one (spec, seed): per head W_Q, W_K [d_model, d_k],
/// W_V [d_model, d_v], additive W_a, U_a [d_k, d_a] and v [d_a], and W_O [h·d_v, d_model].
/// Drawing the weights is the expensive part (≈ 4·d_model² normals); build one model and reuse it
/// for every sentence with the same settings.
class SyntheticModel {
 public:
  /// Validates spec (throws Error(kInvalidArgument)) and draws all weights from `seed`.
  SyntheticModel(const AttentionSpec& spec, std::uint64_t seed, bool positions = true);

  /// True when this model was built for the same shapes, seed and position setting (the
  /// mechanism, mask and temperature do not change the weights).
  bool sameWeights(const AttentionSpec& spec, std::uint64_t seed, bool positions) const;

  /// Embeddings X [n, d_model]: per-token N(0, 1) vectors plus sinusoidal positions, the sum
  /// rescaled by 1/√1.5 so each component keeps unit variance (positions have variance ½).
  Matrix embed(const std::vector<Token>& tokens) const;

  /// Q = X_q W_Q, K = X_k W_K, V = X_k W_V per head, plus the additive parameters W_a, U_a, v
  /// when mechanism is kAdditive (drawn on first use: d_k·d_a per head is large at d_k = 1024).
  /// x_query [n_q, d_model], x_key [n_k, d_model]; pass the same object twice for self-attention
  /// (one matrix product then serves Q, K and V).
  AttentionInputs project(const Matrix& x_query, const Matrix& x_key,
                          Mechanism mechanism = Mechanism::kScaled) const;

  /// The multi-head output: concat_h(head_outputs[h]) W_O, [n_q, d_model]. Heads are concatenated
  /// in head order, never averaged (Vaswani et al. 2017, §3.2.2).
  Matrix combineHeads(const Tensor3& head_outputs) const;

  const AttentionSpec& spec() const { return spec_; }
  std::uint64_t seed() const { return seed_; }
  bool positions() const { return positions_; }
  /// W_Q [d_model, h·d_k]; head k owns columns [k·d_k, (k+1)·d_k).
  Matrix wQ() const { return w_qkv_.leftCols(qkWidth()); }
  /// W_K [d_model, h·d_k].
  Matrix wK() const { return w_qkv_.middleCols(qkWidth(), qkWidth()); }
  /// W_V [d_model, h·d_v].
  Matrix wV() const { return w_qkv_.rightCols(w_qkv_.cols() - 2 * qkWidth()); }
  /// W_O [h·d_v, d_model].
  const Matrix& wO() const { return w_o_; }

 private:
  Eigen::Index qkWidth() const { return static_cast<Eigen::Index>(spec_.heads) * spec_.resolvedDk(); }
  const Eigen::VectorXf& tokenVector(const std::string& text) const;  // caller holds cache_mutex_

  AttentionSpec spec_;
  std::uint64_t seed_;
  bool positions_;
  Matrix w_qkv_;  // [W_Q | W_K | W_V], so self-attention projects with one matrix product
  Matrix w_o_;
  mutable std::once_flag additive_once_;
  mutable Tensor3 w_a_, u_a_, v_a_;  // drawn by the first additive projection
  // Embeddings are deterministic, so they are cached: a word's vector and the position table are
  // drawn once per model (the window recomputes on every keystroke).
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, Eigen::VectorXf> token_cache_;
  mutable Matrix positions_cache_;  // [n_cached, d_model], rescaled sinusoids
};

/// One run of the synthetic lab on a sentence (or a source/target pair).
struct LabRun {
  std::vector<Token> query_tokens;  ///< Tokens of the text (the target when cross).
  std::vector<Token> key_tokens;    ///< Tokens of the source when cross, else the text's.
  bool cross = false;               ///< True for cross-attention.
  AttentionResult attention;        ///< Per-head scores, weights, outputs and statistics.
  Matrix output;                    ///< concat_h(P_h V_h) W_O, [n_q, d_model].
  double compute_ms = 0;            ///< Wall time of tokenize + embed + project + attention, ms.
};

/// Runs text (and optional source, for cross-attention: queries from text, keys and values from
/// source) through `model` on `backend` with the model's spec, overridden by `spec` for the
/// mechanism, mask and temperature (shapes must match the model's).
/// Throws Error(kInvalidInput) for empty / whitespace-only / invalid UTF-8 text, and
/// Error(kInvalidArgument) for a causal mask with a source.
LabRun runSynthetic(const SyntheticModel& model, const AttentionSpec& spec, std::string_view text,
                    const std::optional<std::string>& source, Backend& backend);

}  // namespace attnlab
