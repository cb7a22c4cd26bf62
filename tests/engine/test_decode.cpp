// KV-cache decoding: equal to the full causal computation with and without a window, with G < h
// and ALiBi; cache sizes counted by hand; each cache bug differs at its step and not before.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/decode.hpp"
#include "attnlab/error.hpp"
#include "helpers.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_decode {

using namespace attnlab;
using attnlab::test::ErrorMatches;

namespace {

AttentionSpec decodeSpec(int h, int g, int window, Positions positions = Positions::kSinusoidal) {
  AttentionSpec s;
  s.heads = h;
  s.kv_heads = g;
  s.d_model = 8 * h;
  s.d_k = 8;
  s.window = window;
  s.positions = positions;
  return s;
}

AttentionInputs inputsFor(const AttentionSpec& s, int n, std::uint64_t seed) {
  AttentionInputs in = test::randomInputs(s.heads, n, n, 8, 8, seed);
  const int g = s.resolvedKvHeads();
  in.k = test::randomTensor(g, n, 8, seed + 10);
  in.v = test::randomTensor(g, n, 8, seed + 11);
  return in;
}

}  // namespace

TEST_CASE("decode equals the full causal computation (window, GQA, ALiBi)", "[decode]") {
  const int n = GENERATE(1, 2, 9, 40);
  const int window = GENERATE(0, 1, 3, 64);
  const int g = GENERATE(1, 2, 4);
  const bool alibi = GENERATE(false, true);
  const AttentionSpec s = decodeSpec(4, g, window, alibi ? Positions::kAlibi : Positions::kSinusoidal);
  const DecodeResult d = decodeWithCache(inputsFor(s, n, 5 + static_cast<unsigned>(n)), s);
  CAPTURE(n, window, g, alibi);
  CHECK(d.max_abs_diff <= 1e-6);
  CHECK(d.first_diff_step == -1);
  REQUIRE(d.steps.size() == static_cast<std::size_t>(n));
  for (int t = 0; t < n; ++t) {
    const DecodeStep& step = d.steps[static_cast<std::size_t>(t)];
    const int length = window > 0 ? std::min(t + 1, window) : t + 1;
    CHECK(step.token == t);
    CHECK(step.cache_length == length);
    // G·L·(d_k + d_v)·4 bytes and h·L·(d_k + d_v)·4 for multi-head attention.
    CHECK(step.cache_bytes == 4LL * g * length * 16);
    CHECK(step.mha_cache_bytes == 4LL * 4 * length * 16);
  }
}

TEST_CASE("decode equals the full causal computation at n = 1024 (window, GQA, d_k 8 and 64)", "[decode]") {
  const int window = GENERATE(0, 64);
  const int d_k = GENERATE(8, 64);
  AttentionSpec s = decodeSpec(4, 2, window);
  s.d_k = d_k;
  s.d_model = 4 * d_k;
  const int n = 1024;
  AttentionInputs in = test::randomInputs(4, n, n, d_k, d_k, 31);
  in.k = test::randomTensor(2, n, d_k, 41);
  in.v = test::randomTensor(2, n, d_k, 42);
  const DecodeResult d = decodeWithCache(in, s);
  CAPTURE(window, d_k);
  CHECK(d.max_abs_diff <= 1e-6);
  CHECK(d.first_diff_step == -1);
}

TEST_CASE("cache bugs parse from their names and back", "[decode]") {
  for (const CacheBug bug : {CacheBug::kNone, CacheBug::kSkip, CacheBug::kDuplicate})
    CHECK(parseCacheBug(toString(bug)) == bug);
  REQUIRE_THROWS_MATCHES(parseCacheBug("twice"), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "unknown cache bug 'twice' (use none, skip or duplicate)"));
}

TEST_CASE("decode: cache sizes by hand, MHA against MQA", "[decode]") {
  // h = 8, d_k = d_v = 8, 5 tokens. MHA: 8 heads · 5 entries · 16 floats · 4 B = 2560 B;
  // MQA (G = 1): 320 B. With a window of 2 the cache stops at 2 entries: 1024 B and 128 B.
  const DecodeResult mha = decodeWithCache(inputsFor(decodeSpec(8, 0, 0), 5, 3), decodeSpec(8, 0, 0));
  CHECK(mha.steps.back().cache_bytes == 2560);
  const DecodeResult mqa = decodeWithCache(inputsFor(decodeSpec(8, 1, 0), 5, 3), decodeSpec(8, 1, 0));
  CHECK(mqa.steps.back().cache_bytes == 320);
  CHECK(mqa.steps.back().mha_cache_bytes == 2560);
  const DecodeResult win = decodeWithCache(inputsFor(decodeSpec(8, 1, 2), 5, 3), decodeSpec(8, 1, 2));
  CHECK(win.steps.back().cache_length == 2);
  CHECK(win.steps.back().cache_bytes == 128);
  CHECK(win.steps.back().mha_cache_bytes == 1024);
}

TEST_CASE("decode: a cache bug differs at its step and not before", "[decode]") {
  const CacheBug bug = GENERATE(CacheBug::kSkip, CacheBug::kDuplicate);
  const int step = GENERATE(0, 1, 4, 11);
  const int window = GENERATE(0, 3);
  const AttentionSpec s = decodeSpec(4, 2, window);
  const DecodeResult d = decodeWithCache(inputsFor(s, 12, 21), s, bug, step);
  CAPTURE(toString(bug), step, window);
  CHECK(d.bug_step == step);
  // A duplicate at step 0 is invisible in row 0 (two copies of the only key share its weight
  // 1, and the output is the same value): the first affected row is then 1.
  const int first = bug == CacheBug::kDuplicate && step == 0 ? 1 : step;
  CHECK(d.first_diff_step == first);
  for (int t = 0; t < first; ++t) CHECK(d.steps[static_cast<std::size_t>(t)].max_abs_diff <= 1e-6);
  CHECK(d.steps[static_cast<std::size_t>(first)].max_abs_diff > 1e-3);
  // The weights' and the outputs' differences apart; the overall one is the larger.
  double weights = 0, outputs = 0;
  for (const DecodeStep& t : d.steps) {
    CHECK(t.max_abs_diff == std::max(t.max_weight_diff, t.max_output_diff));
    weights = std::max(weights, t.max_weight_diff);
    outputs = std::max(outputs, t.max_output_diff);
  }
  CHECK(d.max_weight_diff == weights);
  CHECK(d.max_output_diff == outputs);
  CHECK(d.max_abs_diff == std::max(weights, outputs));
  // Without a window the cache is one entry short from the bug on (skip) or one long (duplicate).
  if (window == 0) {
    for (int t = step; t < 12; ++t) {
      CHECK(d.steps[static_cast<std::size_t>(t)].cache_length == t + 1 + (bug == CacheBug::kSkip ? -1 : 1));
    }
  }
  // The weight of the bug's token in its own row: 0 when skipped; the rows still sum to 1.
  double sum = 0;
  for (int j = 0; j < 12; ++j) sum += d.attention.weights(0, step, j);
  if (bug == CacheBug::kSkip) {
    CHECK(d.attention.weights(0, step, step) == 0.0f);
    CHECK((step == 0 || window == 1 ? sum == 0.0 : std::fabs(sum - 1.0) < 1e-6));
  } else {
    CHECK(std::fabs(sum - 1.0) < 1e-6);
  }
}

TEST_CASE("decode: refused settings", "[decode]") {
  AttentionSpec s = decodeSpec(2, 0, 0);
  const AttentionInputs in = inputsFor(s, 4, 1);
  REQUIRE_THROWS_MATCHES(decodeWithCache(in, s, CacheBug::kSkip, 4), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "outside the tokens 0–3"));
  s.global_tokens = 1;
  REQUIRE_THROWS_MATCHES(decodeWithCache(in, s), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "--global"));
  s.global_tokens = 0;
  s.mechanism = Mechanism::kAdditive;
  REQUIRE_THROWS_MATCHES(decodeWithCache(in, s), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "not additive"));
}

}  // namespace attnlab_test_decode
