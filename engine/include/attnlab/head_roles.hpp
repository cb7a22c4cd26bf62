#pragma once
/// \file head_roles.hpp
/// What the heads of a trained model do: per head, six scores in [0, 1] read from one forward pass
/// over a repeated sequence of random tokens (Olsson et al. 2022, "In-context Learning and
/// Induction Heads", §2 and the "prefix matching" / "copying" measurements of its appendix;
/// Elhage et al. 2021 for previous-token and duplicate-token heads; Xiao et al. 2023,
/// "Efficient Streaming Language Models with Attention Sinks", for the first-token sink).
///
/// The sequence (headRoleSequence): the special tokens the model's tokenizer puts before a text
/// (`prefix` of them: BOS for Gemma, [CLS] for BERT, none for SmolLM2 or GPT-2), then T distinct
/// random non-special tokens r_0 … r_{T−1} (a fixed seed), then the same T tokens again, then the
/// special tokens the tokenizer puts after a text ([SEP] for BERT). With p = prefix, the first copy
/// is at positions p … p+T−1, the second at p+T … p+2T−1, and position p+T+t holds the token
/// of p+t. Scores, from the attention weights A = P [h, n, n] of each layer:
///   previous-token  = mean over i ∈ [p+1, p+2T−1] of A[i, i−1];
///   duplicate-token = mean over the second copy's queries i ∈ [p+T, p+2T−1] of A[i, i−T] (the
///                     earlier occurrence of the same token);
///   induction       = mean over the second copy's queries of A[i, i−T+1] (the token that followed
///                     the earlier occurrence: Olsson et al.'s prefix matching);
///   sink            = mean over every query i ≥ 1 of A[i, 0] (position 0: BOS, [CLS], or the
///                     first token when the model has no BOS);
///   local           = mean over queries i ∈ [kHeadRoleLocalDistance + 1, p+2T−1] of the mass on
///                     keys j with |i − j| ≤ kHeadRoleLocalDistance (the query itself and its three
///                     neighbours on each side it may see), the queries chosen so that no window
///                     reaches position 0 and the sink does not count as local;
///   broad           = mean over every query with at least two visible keys of H_i / ln(visible
///                     keys of i), H_i = −Σ_j A[i, j] ln A[i, j] (nats; the row's normalised
///                     entropy, as HeadStats::normalized_entropy: 1 for uniform attention over what
///                     the mask shows, 0 for one key).
/// Each is a mean of weights (or of masses, or of normalised entropies) in [0, 1], so it lies in
/// [0, 1]: 1 is a head that does exactly that on every query. Random tokens make a copy's
/// content unpredictable except by looking back at the first copy, so only heads that use the
/// repetition score high on duplicate-token and induction, and the scores are a property of the
/// head, not of a text someone typed (all six come from the same pass, so they are comparable).
/// The same definitions hold for bidirectional (BERT) heads, which may also look forward, and for
/// sliding-window layers (Gemma's local layers, Mistral): a key the window hides has weight 0, so a
/// window shorter than T hides the first copy and the head scores 0 for duplicate and induction.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/attention.hpp"

namespace attnlab {

class Backend;
class ModelTokenizer;
class PretrainedModel;

/// The roles scored, in the order of every listing (JSON keys, the picture's panels).
enum class HeadRole { kPreviousToken, kDuplicateToken, kInduction, kSink, kLocal, kBroad };
inline constexpr int kHeadRoleCount = 6;
/// Every role in listing order.
inline constexpr std::array<HeadRole, kHeadRoleCount> kHeadRoles{
    HeadRole::kPreviousToken, HeadRole::kDuplicateToken, HeadRole::kInduction,
    HeadRole::kSink,          HeadRole::kLocal,          HeadRole::kBroad};

/// "previous-token", "duplicate-token", "induction", "sink", "local" or "broad" (the CLI's and the
/// JSON's names).
std::string_view headRoleName(HeadRole role);
/// The role named `name` (headRoleName's words), or nothing.
std::optional<HeadRole> parseHeadRole(std::string_view name);

/// The random part's length T when the model's context allows it (2T + framing tokens must fit
/// max_positions): 64 random tokens, 2·64 = 128 (+ BOS) positions for SmolLM2, whose forward pass
/// over them takes most of the ~1 s the 270 heads need.
inline constexpr int kHeadRolePeriod = 64;
/// The smallest T accepted: below it the means average too few queries to say anything.
inline constexpr int kHeadRoleMinPeriod = 4;
/// The seed of the random tokens (std::mt19937, the same numbers on every platform).
inline constexpr std::uint32_t kHeadRoleSeed = 2022;
/// The distance within which attention counts as local: |i − j| ≤ 3.
inline constexpr int kHeadRoleLocalDistance = 3;

/// The repeated random sequence and where its parts are.
struct HeadRoleSequence {
  std::vector<int> ids;  ///< prefix + r_0 … r_{T−1} + r_0 … r_{T−1} + suffix, model ids.
  int prefix = 0;        ///< p: the special tokens before the random part.
  int period = 0;        ///< T: the random tokens of one copy.
  int suffix = 0;        ///< The special tokens after the second copy.
  std::uint32_t seed = kHeadRoleSeed;
  int size() const { return static_cast<int>(ids.size()); }
};

/// Builds the sequence for `tokenizer`: the prefix and suffix are the special tokens it puts before
/// and after a text (read from its encoding of "a"); r_t are drawn with std::mt19937(seed) as
/// (draw mod vocabSize()), keeping ids that are not special, stand for some bytes and are not
/// drawn already (so position p+T+t repeats p+t and nothing else does). `period` = T. Throws
/// Error(kInvalidArgument) when T < kHeadRoleMinPeriod, or when the vocabulary has fewer than T
/// usable tokens (naming both).
HeadRoleSequence headRoleSequence(const ModelTokenizer& tokenizer, int period,
                                  std::uint32_t seed = kHeadRoleSeed);

/// One head and its score for one role.
struct HeadScore {
  int layer = 0;
  int head = 0;
  double score = 0;  ///< In [0, 1].
};

/// The six scores of every head of the layers scored.
struct HeadRoles {
  int layers = 0;  ///< L: layers scored (every layer of the model).
  int heads = 0;   ///< h: query heads per layer.
  /// Per role (kHeadRoles order), [L, h] row-major: scores[r][l·h + k] for head k of layer l.
  std::array<std::vector<double>, kHeadRoleCount> scores;
  HeadRoleSequence sequence;  ///< What the model was given.
  double compute_ms = 0;      ///< Wall time of the forward pass and the scoring, ms.

  double score(HeadRole role, int layer, int head) const {
    return scores[static_cast<std::size_t>(role)][static_cast<std::size_t>(layer) * heads + head];
  }
  /// The `count` highest-scoring heads for `role`, best first (ties: lower layer, then lower head
  /// first); fewer when the model has fewer heads.
  std::vector<HeadScore> top(HeadRole role, int count) const;
  /// The median score of `role` over every head (the mean of the two middle ones for an even
  /// count); 0 when there are no heads.
  double median(HeadRole role) const;
};

/// Scores the heads from given attention, one result per layer in layer order, each with weights
/// [h, n, n] over `sequence` (n = sequence.size()) and its mask pattern (AttentionResult::pattern:
/// visible keys for `broad`). Pure arithmetic, for hand-made attention and for headRoles().
/// Throws Error(kInvalidArgument) when `layers` is empty, a result's shape is not [h, n, n] with
/// the same h in every layer, or the sequence's parts do not add up to n.
HeadRoles scoreHeadRoles(const std::vector<AttentionResult>& layers,
                         const HeadRoleSequence& sequence);

/// Previous-token weight of one head on any text: mean over queries i ≥ 1 of A[i, i−1], from
/// weights [h, n, n]; nullopt when n < 2 or `head` is out of range.
std::optional<double> previousTokenWeight(const AttentionResult& result, int head);

/// Induction weight of one head on any text (the induction score without the random sequence):
/// over the queries i whose token ids[i] occurred before, at j (the latest such j with j + 1 < i),
/// the mean of A[i, j + 1] — the weight on the token that followed the earlier occurrence.
/// `ids` are the n token ids of the [h, n, n] result. nullopt when no token repeats that way,
/// `head` is out of range or ids has not n entries.
std::optional<double> inductionWeight(const AttentionResult& result, int head,
                                      const std::vector<int>& ids);

/// How headRoles() runs.
struct HeadRoleOptions {
  /// T; clamped down so that 2T + framing tokens fit the model's max_positions (64 positions
  /// give T = 31 with a BOS). Refused when that leaves less than kHeadRoleMinPeriod.
  int period = kHeadRolePeriod;
  std::uint32_t seed = kHeadRoleSeed;
  /// As ModelRunOptions::progress: (layers done, layers), false cancels (Error kCancelled).
  std::function<bool(int done, int total)> progress;
};

/// The period headRoles() uses for `model` (options.period clamped to its context), or 0 when even
/// kHeadRoleMinPeriod does not fit.
int headRolePeriod(const PretrainedModel& model, int period = kHeadRolePeriod);

/// Runs `model` once over headRoleSequence(model.tokenizer(), period, seed) on `backend`, every
/// layer kept, and scores every head (scoreHeadRoles). Throws Error(kInvalidArgument) when the
/// model's context cannot hold 2·kHeadRoleMinPeriod random tokens and its framing (naming
/// max_positions), and what PretrainedModel::runIds throws (memory budget, kCancelled).
HeadRoles headRoles(const PretrainedModel& model, Backend& backend,
                    const HeadRoleOptions& options = {});

}  // namespace attnlab
