#pragma once
/// \file generate.hpp
/// Generation with a real model's KV cache (issue 24): the decoders of pretrained.hpp (GPT-2, the
/// Llama family, Gemma 2 and 3) run one token at a time, each layer's keys and values kept in a
/// float32 cache [G, n, d_k] per layer, and every step reports the new token, its probability,
/// the most probable alternatives and the new row of attention of every layer and head over the
/// cache. The same cache scores a text token by token (its log likelihood and perplexity) under a
/// full cache, a sliding window of the last W tokens, or the window plus the first S tokens kept —
/// the attention-sink experiment of Xiao et al. 2023 ("Efficient Streaming Language Models with
/// Attention Sinks", StreamingLLM, §3.2).
///
/// Positions: a token keeps the position it has in the text when others are evicted (keys are
/// cached after RoPE at that position, as llama.cpp's cache without a context shift). Xiao et al.
/// instead re-number the cached tokens 0 … |cache| − 1 ("positions within the cache", §3.2);
/// that is not implemented here. Below the model's context the two differ only in how far the
/// sink tokens are from the query, and every position stays one the model was trained on.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/pretrained.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

/// Which tokens the KV cache keeps: every one (window 0), or the last `window` tokens plus the
/// first `sinks` (StreamingLLM's rolling cache with attention sinks, Xiao et al. 2023, §3.2;
/// sinks 0 is the plain sliding-window cache of their Figure 1b).
struct CachePolicy {
  int window = 0;  ///< W ≥ 1: the most recent W tokens, the one being read included; 0: all.
  int sinks = 0;   ///< S ≥ 0: the first S tokens of the text are never evicted (only with W).
  /// True when the token at position j is still in the cache as the token at position i ≥ j is
  /// read: i − j < W, or j < S, or no window.
  bool keeps(int i, int j) const { return window <= 0 || i - j < window || j < sinks; }
  /// "full", "window 64" or "window 64 + 4 sinks".
  std::string describe() const;
};

/// One step of generate(): the token read at `position`, the attention of its query over the
/// cache, and the token predicted from it.
struct GenerationStep {
  int position = 0;   ///< Position of the token read (its query row).
  int input_id = 0;   ///< The token read: the prompt's last (step 0) or the previous one generated.
  NextToken token;    ///< The token chosen; probability and logit under the model's softmax.
  std::vector<NextToken> top;  ///< The most probable next tokens, most probable first.
  /// The new row of attention weights of every kept layer (Generation::layers), [h, 1, cache]:
  /// softmax over the cached keys after the layer's mask (causal, its sliding window, the cache
  /// policy), the weight of cache entry c at column c.
  std::vector<Tensor3> rows;
  std::vector<int> cache_positions;  ///< The positions the cache held, in order (cache_length).
  int cache_length = 0;             ///< Entries in the cache when the row was computed.
  /// Bytes of the float32 cache then: cache_length · 2 (K and V) · layers · G · d_k · 4.
  long long cache_bytes = 0;
  double ms = 0;  ///< Wall time of the step (the layers, the logits, the choice), ms.
};

struct Generation;

/// How generate() chooses tokens.
struct GenerateOptions {
  int max_tokens = 16;  ///< New tokens at most, ≥ 1.
  /// Sampling temperature τ: 0 chooses greedily (the most probable token, ties to the lower id);
  /// τ > 0 samples from softmax(z/τ) over the logits z. Not the attention temperature
  /// (ModelRunOptions::temperature, which divides attention scores).
  double sample_temperature = 0;
  std::uint64_t seed = 0;  ///< Seed of the sampling draws (std::mt19937_64).
  int top_k = 0;           ///< With sampling: only the k most probable tokens are drawn; 0 = all.
  int top = 5;             ///< Alternatives reported per step (GenerationStep::top).
  bool stop_at_eos = true;  ///< Stop after an end-of-sequence token (stop_tokens).
  /// The end-of-sequence tokens; unset: the model's (ModelConfig::eos_token_ids).
  std::optional<std::vector<int>> stop_tokens;
  CachePolicy cache;        ///< Which tokens the cache keeps.
  /// The attention settings (mechanism, attention temperature, memory budget) as for run();
  /// `layer` set keeps that layer's rows only; next_tokens and progress are not used.
  ModelRunOptions run;
  /// Called after every step, on the calling thread; returning false stops the generation
  /// (Generation::stop "cancelled"). Empty: no calls.
  std::function<bool(const GenerationStep&)> on_step;
  /// Called after on_step with the generation so far (the prompt's block and every step up to
  /// this one: what grownAttention draws), on the calling thread; returning false stops as
  /// on_step does. Empty: no calls.
  std::function<bool(const Generation&)> on_progress;
};

/// What generate() produced.
struct Generation {
  Encoding prompt;           ///< The prompt's tokens as the model received them.
  std::vector<int> ids;      ///< The prompt's ids, then the generated ones.
  std::vector<int> layers;   ///< The layers whose rows are kept (all, or ModelRunOptions::layer).
  /// The prompt's attention weights per kept layer [h, n_p, n_p] (prefill: the causal square,
  /// also under the cache policy), the last row of which is step 0's row.
  std::vector<Tensor3> prompt_attention;
  std::vector<GenerationStep> steps;  ///< One per generated token.
  CachePolicy cache;  ///< Which tokens the cache kept (GenerateOptions::cache).
  /// Why it stopped: "eos" (an end-of-sequence token, kept as the last), "max_tokens", "context"
  /// (the sequence reached the model's context), "cancelled" (on_step returned false).
  std::string stop;
  double prefill_ms = 0;  ///< The prompt's pass through every layer, ms.
  double total_ms = 0;    ///< Prefill and every step, ms.
};

/// Generates up to options.max_tokens tokens after `prompt` (ids as PretrainedModel::encode
/// gives them) with the model's KV cache. Step 0 reads the prompt (one pass over every layer);
/// step k ≥ 1 reads the token generated at step k − 1, one row per layer. The rows equal those of
/// one full pass (PretrainedModel::runIds) over the prompt and the generated tokens but the last,
/// to float32 rounding (tests: within 1e-5). Throws Error(kInvalidArgument) for an encoder
/// (BERT), max_tokens < 1, a negative temperature, top_k, window or sinks, sinks without a window,
/// a mechanism other than scaled or dot; Error(kInvalidInput) for an empty prompt, a prompt longer
/// than the model's context ("the prompt is N tokens; M reads at most C"), ids outside the
/// vocabulary, or rows that would exceed the memory budget.
Generation generate(const PretrainedModel& model, const Encoding& prompt,
                    const GenerateOptions& options);

/// The Encoding of token ids as `tokenizer` labels them: labels (tokenLabel, "#id" for an unused
/// id), bytes (tokenBytes) and special flags, type ids 0 — for a generated sequence's axes.
Encoding labelIds(const ModelTokenizer& tokenizer, const std::vector<int>& ids);

/// The causal matrices of a generation as they grew, per kept layer (Generation::layers): weights
/// (and scores, the same numbers) [h, n, n] for the n = prompt + steps − 1 tokens read when
/// `steps` steps are shown (0 < steps ≤ g.steps.size(); −1: all) — the prompt's block, then step
/// k's row at position n_p + k − 1 for k = 1 … steps − 1, 0 at positions hidden or evicted; mask
/// causal, and under a cache window W with S sinks mask_pattern {window W, global S} — exactly the
/// keys g.cache evicted (CachePolicy::keeps), so pictures draw them grey, never as a weight of 0;
/// per-row statistics (HeadStats, over row i's visible keys). What the pictures of a generation
/// draw.
std::vector<AttentionResult> grownAttention(const Generation& g, int steps = -1);

/// A text scored token by token through the KV cache.
struct TextScore {
  std::vector<int> ids;  ///< The text's tokens.
  /// log p(token i | the cached tokens before it), natural log, for i = 1 … n − 1 (n − 1 entries;
  /// the first token has no prediction).
  std::vector<double> log_probs;
  double log_likelihood = 0;  ///< Σ log_probs.
  double perplexity = 0;      ///< exp(−log_likelihood / (n − 1)).
  /// Per layer and head [layers, h]: the mean attention weight on position 0 over the queries
  /// i = 1 … n − 2 (the tokens read after the first; 0 where position 0 is no longer cached) —
  /// the heads' sink mass.
  Matrix sink_mass;
  CachePolicy cache;  ///< The policy it was scored under.
  double ms = 0;      ///< Wall time, ms.
};

/// Scores `text` (ids, at least 2) token by token under `cache`: each token is read with one row
/// per layer through the cache, as generate() steps. Throws as generate() (window, sinks,
/// encoder, context, vocabulary), Error(kInvalidInput) for fewer than 2 tokens. `progress`
/// (tokens done, total) returning false stops with Error(kCancelled).
TextScore scoreText(const PretrainedModel& model, const Encoding& text, const CachePolicy& cache,
                    const ModelRunOptions& run = {},
                    const std::function<bool(int, int)>& progress = {});

}  // namespace attnlab
