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

/// The synthetic model's weights for one (spec, seed): per query head W_Q [d_model, d_k], per
/// K/V head (G = spec.resolvedKvHeads(), grouped-query attention) W_K [d_model, d_k] and
/// W_V [d_model, d_v], additive W_a, U_a [d_k, d_a] and v [d_a] per query head, and
/// W_O [h·d_v, d_model]. Every matrix and head has its own stream, so G = h draws exactly the
/// multi-head model and G < h its first G K/V heads. Position information follows
/// spec.positions: sinusoids added to the embeddings (kSinusoidal), q and k rotated by RoPE
/// with spec.rope_base (kRope; no sinusoids), the ALiBi bias added by the backend (kAlibi; no
/// sinusoids), or nothing (kNone).
/// Drawing the weights is the expensive part (≈ 4·d_model² normals); build one model and reuse it
/// for every sentence with the same settings.
class SyntheticModel {
 public:
  /// Validates spec (throws Error(kInvalidArgument), also for RoPE with an odd d_k) and draws all
  /// weights from `seed`. positions = false is Positions::kNone whatever spec.positions says.
  SyntheticModel(const AttentionSpec& spec, std::uint64_t seed, bool positions = true);

  /// True when this model was built for the same shapes (K/V heads included), seed and position
  /// scheme (and RoPE base) — the mechanism, mask pattern and temperature do not change it.
  /// positions = false stands for Positions::kNone.
  bool sameWeights(const AttentionSpec& spec, std::uint64_t seed, bool positions = true) const;

  /// Embeddings X [n, d_model]: per-token N(0, 1) vectors; with sinusoidal positions plus the
  /// sinusoids, the sum rescaled by 1/√1.5 so each component keeps unit variance (positions have
  /// variance ½). Row i is position i.
  Matrix embed(const std::vector<Token>& tokens) const;

  /// Q = X_q W_Q [h, n_q, d_k], K = X_k W_K [G, n_k, d_k], V = X_k W_V [G, n_k, d_v], row i at
  /// position i (RoPE rotates q and k by it: Su et al. 2021, eq. 34), plus the additive parameters
  /// W_a, U_a, v when mechanism is kAdditive (drawn on first use: d_k·d_a per head is large at
  /// d_k = 1024). x_query [n_q, d_model], x_key [n_k, d_model]; pass the same object twice for
  /// self-attention (one matrix product then serves Q, K and V).
  AttentionInputs project(const Matrix& x_query, const Matrix& x_key,
                          Mechanism mechanism = Mechanism::kScaled) const;

  /// The multi-head output: concat_h(head_outputs[h]) W_O, [n_q, d_model]. Heads are concatenated
  /// in head order, never averaged (Vaswani et al. 2017, §3.2.2).
  Matrix combineHeads(const Tensor3& head_outputs) const;

  const AttentionSpec& spec() const { return spec_; }
  std::uint64_t seed() const { return seed_; }
  /// False when the model has no position information at all (Positions::kNone).
  bool positions() const { return spec_.positions != Positions::kNone; }
  /// The position scheme in force (spec.positions, or kNone when built with positions = false).
  Positions positionScheme() const { return spec_.positions; }
  /// W_Q [d_model, h·d_k]; head k owns columns [k·d_k, (k+1)·d_k).
  Matrix wQ() const { return w_qkv_.leftCols(qWidth()); }
  /// W_K [d_model, G·d_k]; K/V head g owns columns [g·d_k, (g+1)·d_k).
  Matrix wK() const { return w_qkv_.middleCols(qWidth(), kWidth()); }
  /// W_V [d_model, G·d_v].
  Matrix wV() const { return w_qkv_.rightCols(w_qkv_.cols() - qWidth() - kWidth()); }
  /// W_O [h·d_v, d_model].
  const Matrix& wO() const { return w_o_; }

 private:
  Eigen::Index qWidth() const { return static_cast<Eigen::Index>(spec_.heads) * spec_.resolvedDk(); }
  Eigen::Index kWidth() const {
    return static_cast<Eigen::Index>(spec_.resolvedKvHeads()) * spec_.resolvedDk();
  }
  void rotate(Tensor3& t) const;  // RoPE on every head of q or k, row i at position i
  const Eigen::VectorXf& tokenVector(const std::string& text) const;  // caller holds cache_mutex_

  AttentionSpec spec_;  // positions = kNone when built with positions = false
  std::uint64_t seed_;
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

/// Key padding of a synthetic run (self-attention only): the text is padded with `[PAD]` tokens
/// up to pad_to tokens, as a batch of sentences is padded to its longest one.
struct KeyPadding {
  int pad_to = 0;     ///< Tokens after padding; 0 = no padding. Must be ≥ the text's tokens.
  /// Hide the [PAD] keys (AttentionSpec::valid_keys = the text's tokens). false leaves them
  /// visible — the classic bug of a forgotten padding mask, weight leaking onto [PAD].
  bool mask = true;
};

/// The text of a [PAD] token.
inline constexpr const char* kPadToken = "[PAD]";

/// One run of the synthetic lab on a sentence (or a source/target pair).
struct LabRun {
  std::vector<Token> query_tokens;  ///< Tokens of the text (the target when cross), [PAD] last.
  std::vector<Token> key_tokens;    ///< Tokens of the source when cross, else the text's.
  bool cross = false;               ///< True for cross-attention.
  int pad_tokens = 0;               ///< [PAD] tokens appended to the text (KeyPadding).
  AttentionResult attention;        ///< Per-head scores, weights, outputs and statistics.
  Matrix output;                    ///< concat_h(P_h V_h) W_O, [n_q, d_model].
  double compute_ms = 0;            ///< Wall time of tokenize + embed + project + attention, ms.
};

/// Runs text (and optional source, for cross-attention: queries from text, keys and values from
/// source) through `model` on `backend` with the model's spec, overridden by `spec` for the
/// mechanism, mask pattern (causal, window, global tokens, stride) and temperature (shapes must
/// match the model's; the position scheme is always the model's). With padding.pad_to the text is padded with [PAD] tokens
/// and, when padding.mask, spec.valid_keys becomes the text's token count.
/// Throws Error(kInvalidInput) for empty / whitespace-only / invalid UTF-8 text, and
/// Error(kInvalidArgument) for a causal mask or padding with a source, or pad_to below the text's
/// token count.
LabRun runSynthetic(const SyntheticModel& model, const AttentionSpec& spec, std::string_view text,
                    const std::optional<std::string>& source, Backend& backend,
                    const KeyPadding& padding = {});

}  // namespace attnlab
