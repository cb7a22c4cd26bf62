// The cost formulas against numbers worked out by hand, attention rollout on a 3-token, 2-layer
// case computed by hand, weight differences, and the timer's bookkeeping (never its speed).

#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/cost.hpp"
#include "attnlab/difference.hpp"
#include "attnlab/error.hpp"
#include "attnlab/rollout.hpp"
#include "attnlab/synthetic.hpp"
#include "attnlab/timing.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_cost_rollout {

using namespace attnlab;
using Catch::Detail::Approx;

namespace {

/// A result holding only weights [h, n, n] given row by row per head.
AttentionResult weightsOnly(const std::vector<std::vector<std::vector<float>>>& heads) {
  AttentionResult r;
  const int h = static_cast<int>(heads.size()), n = static_cast<int>(heads.front().size());
  r.weights = Tensor3(h, n, n);
  for (int k = 0; k < h; ++k)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) r.weights(k, i, j) = heads[k][i][j];
  return r;
}

}  // namespace

TEST_CASE("cost: the seed's counts and the engine's FLOPs at d_model 512, 8 heads, n 128",
          "[cost]") {
  CostShape s;
  s.n = 128;
  s.d_model = 512;
  s.heads = 8;
  const AttentionCost c = attentionCost(s);
  // Seed: 4·n·d² = 4·128·262144 = 134 217 728; 2·n²·d = 2·16384·512 = 16 777 216; 4·d² = 1 048 576.
  CHECK(c.seed_projection_macs == 134217728.0);
  CHECK(c.seed_attention_macs == 16777216.0);
  CHECK(c.seed_parameters == 1048576.0);
  // d_k = 512/8 = 64. Q, K, V: 2·128·512·(512 + 512 + 512) = 201 326 592; W_O: 2·128·512·512 =
  // 67 108 864; together 268 435 456 = 2 × the seed's multiply–adds.
  CHECK(c.projection_flops == 268435456.0);
  CHECK(c.projection_flops == 2 * c.seed_projection_macs);
  // Q Kᵀ: 2·8·128²·64 = 16 777 216, the same for P V; together 2 × the seed's 2·n²·d.
  CHECK(c.score_flops == 16777216.0);
  CHECK(c.value_flops == 16777216.0);
  CHECK(c.attentionFlops() == 2 * c.seed_attention_macs);
  CHECK(c.parameters == c.seed_parameters);
  // P: 8·128²·4 = 524 288 bytes. KV cache, one layer: 128·G·(64 + 64)·4 = 65 536·G.
  CHECK(c.score_matrix_bytes == 524288.0);
  CHECK(c.kv_cache_bytes == 524288.0);
  CHECK(c.kv_cache_bytes_mha == 524288.0);
  CHECK(c.kv_cache_bytes_mqa == 65536.0);
  // The crossover 2·n²·d = 4·n·d² at n = 2·d = 1024.
  CHECK(attentionCrossover(s) == Approx(1024.0));
}

TEST_CASE("cost: grouped-query attention shrinks K/V projections, cache and the crossover",
          "[cost]") {
  CostShape s;
  s.n = 1000;
  s.d_model = 512;
  s.heads = 8;
  s.kv_heads = 2;
  s.layers = 30;
  const AttentionCost c = attentionCost(s);
  // Parameters: 512·(8·64 + 2·(64 + 64)) + 8·64·512 = 393 216 + 262 144 = 655 360.
  CHECK(c.parameters == 655360.0);
  // KV cache: 30 layers · 1000 tokens · G · 128 · 4 bytes = 15 360 000·G.
  CHECK(c.kv_cache_bytes == 30720000.0);
  CHECK(c.kv_cache_bytes_mha == 122880000.0);
  CHECK(c.kv_cache_bytes_mqa == 15360000.0);
  // Crossover: 512·(512 + 256 + 512) / (8·128) = 640.
  CHECK(attentionCrossover(s) == Approx(640.0));
  // At the crossover both counts agree (a property of the formula, checked at n = 640).
  s.n = 640;
  const AttentionCost at = attentionCost(s);
  CHECK(at.attentionFlops() == Approx(at.projection_flops));
}

TEST_CASE("cost: attention-lab-bench's GFLOP/s count is attentionFlops (4·n²·d_k per head)",
          "[cost]") {
  CostShape s;
  s.n = 1024;
  s.heads = 8;
  s.d_k = 64;
  s.d_model = 512;
  // 4·1024²·64·8 = 2 147 483 648.
  CHECK(attentionCost(s).attentionFlops() == 2147483648.0);
}

TEST_CASE("cost: the crossover is 2·d_model for multi-head attention at any width", "[cost]") {
  const int d_model = GENERATE(8, 64, 96, 768, 4096);
  const int heads = GENERATE(1, 2, 8);
  CostShape s;
  s.d_model = d_model;
  s.heads = heads;
  CHECK(attentionCrossover(s) == Approx(2.0 * d_model));
}

TEST_CASE("cost: bad shapes are refused by name", "[cost]") {
  CostShape s;
  s.heads = 8;
  s.kv_heads = 3;
  CHECK_THROWS_WITH(attentionCost(s), Catch::Contains("K/V heads (3) must divide the heads (8)"));
  s.kv_heads = 0;
  s.d_model = 60;
  CHECK_THROWS_WITH(attentionCost(s), Catch::Contains("must divide d_model"));
  s.n = 0;
  CHECK_THROWS_AS(attentionCost(s), Error);
  CHECK(humanCount(1536, "B") == "1.50 KiB");
  CHECK(humanCount(2.5e9, "FLOP") == "2.50 GFLOP");
  CHECK(humanCount(512, "B") == "512 B");
}

TEST_CASE("rollout: 3 tokens, 2 layers of 2 heads, by hand (Abnar & Zuidema 2020)", "[rollout]") {
  // Layer 0, heads averaged: [[.5, .5, 0], [.5, .5, 0], [.5, 0, .5]];
  // Â0 = ½·mean + ½·I = [[.75, .25, 0], [.25, .75, 0], [.25, 0, .75]] (rows already sum to 1).
  const AttentionResult l0 = weightsOnly(
      {{{1, 0, 0}, {0.5f, 0.5f, 0}, {0, 0, 1}}, {{0, 1, 0}, {0.5f, 0.5f, 0}, {1, 0, 0}}});
  // Layer 1, both heads [[0, 0, 1], [0, 1, 0], [0, 0, 1]]; Â1 = [[.5, 0, .5], [0, 1, 0], [0, 0,
  // 1]].
  const AttentionResult l1 =
      weightsOnly({{{0, 0, 1}, {0, 1, 0}, {0, 0, 1}}, {{0, 0, 1}, {0, 1, 0}, {0, 0, 1}}});
  const Matrix r = attentionRollout({l0, l1});
  // R = Â1·Â0: row 0 = ½·[.75, .25, 0] + ½·[.25, 0, .75] = [.5, .125, .375];
  // row 1 = Â0's row 1 = [.25, .75, 0]; row 2 = Â0's row 2 = [.25, 0, .75].
  const float expected[3][3] = {{0.5f, 0.125f, 0.375f}, {0.25f, 0.75f, 0}, {0.25f, 0, 0.75f}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) CHECK(r(i, j) == Approx(expected[i][j]).margin(1e-7));
  // One layer alone is Â0.
  const Matrix first = attentionRollout({l0});
  CHECK(first(2, 0) == Approx(0.25f).margin(1e-7));
  CHECK(first(2, 2) == Approx(0.75f).margin(1e-7));
}

TEST_CASE("rollout: rows are renormalised after the residual is added", "[rollout]") {
  // Row 0 sums to 0.4 (tokens hidden): ½·[.2, .2, 0] + ½·[1, 0, 0] = [.6, .1, 0], sum .7 →
  // [6/7, 1/7, 0]. Row 2 with no weight at all: ½·I's row, sum ½ → [0, 0, 1].
  const AttentionResult l = weightsOnly({{{0.2f, 0.2f, 0}, {0, 1, 0}, {0, 0, 0}}});
  const Matrix r = attentionRollout({l});
  CHECK(r(0, 0) == Approx(6.0 / 7).margin(1e-7));
  CHECK(r(0, 1) == Approx(1.0 / 7).margin(1e-7));
  CHECK(r(2, 2) == Approx(1.0f).margin(1e-7));
  // Residual 0 and an empty row: passed through as the identity's row.
  const Matrix plain = attentionRollout({l}, 0.0);
  CHECK(plain(2, 2) == 1.0f);
  CHECK(plain(0, 0) == Approx(0.5f));
}

TEST_CASE("rollout: properties over generated models (rows sum to 1, causal stays causal)",
          "[rollout]") {
  const int n = GENERATE(1, 2, 5, 17);
  const bool causal = GENERATE(false, true);
  AttentionSpec spec;
  spec.heads = 4;
  spec.d_model = 32;
  spec.mask = causal ? Mask::kCausal : Mask::kNone;
  const SyntheticModel model(spec, 7);
  auto cpu = makeCpuBackend();
  std::string text;
  for (int i = 0; i < n; ++i) {
    text += 'w';
    text += std::to_string(i);
    text += ' ';
  }
  const LabRun a = runSynthetic(model, spec, text, std::nullopt, *cpu);
  const Matrix r = attentionRollout({a.attention, a.attention, a.attention});
  REQUIRE(r.rows() == n);
  for (int i = 0; i < n; ++i) {
    CHECK(r.row(i).sum() == Approx(1.0f).margin(1e-5));
    for (int j = i + 1; causal && j < n; ++j) CHECK(r(i, j) == 0.0f);
  }
  CHECK_THROWS_AS(attentionRollout({}), Error);
  CHECK_THROWS_AS(attentionRollout({a.attention}, 1.5), Error);
}

TEST_CASE("difference: A − B per cell and where |Δ| is largest", "[difference]") {
  const AttentionResult a = weightsOnly({{{1, 0}, {0.5f, 0.5f}}, {{0.25f, 0.75f}, {0, 1}}});
  const AttentionResult b = weightsOnly({{{0.5f, 0.5f}, {0.5f, 0.5f}}});
  // Head 1 of A − head 0 of B: [[-.25, .25], [-.5, .5]]: max |Δ| = .5 first at query 1, key 0.
  const WeightDifference d = weightDifference(a, {1}, b, {0});
  CHECK(d.delta(0, 0, 0) == Approx(-0.25f));
  CHECK(d.delta(0, 1, 1) == Approx(0.5f));
  CHECK(d.max_abs == Approx(0.5));
  CHECK(d.map == 0);
  CHECK(d.query == 1);
  CHECK(d.key == 0);
  CHECK(d.a == Approx(0.0));
  CHECK(d.b == Approx(0.5));
  // Identical maps: Δ = 0 everywhere.
  const WeightDifference same = weightDifference(a, {0, 1}, a, {0, 1});
  CHECK(same.max_abs == 0.0);
  CHECK_THROWS_WITH(weightDifference(a, {0}, weightsOnly({{{1}}}), {0}),
                    Catch::Contains("same tokens"));
  CHECK_THROWS_AS(weightDifference(a, {0, 1}, b, {0}), Error);
  CHECK_THROWS_AS(weightDifference(a, {2}, b, {0}), Error);
}

TEST_CASE("difference: causal against not keeps the cells only one side masks", "[difference]") {
  AttentionSpec spec;
  spec.heads = 2;
  spec.d_model = 16;
  const SyntheticModel model(spec, 3);
  auto cpu = makeCpuBackend();
  AttentionSpec causal = spec;
  causal.mask = Mask::kCausal;
  const LabRun a = runSynthetic(model, causal, "a b c d", std::nullopt, *cpu);
  const LabRun b = runSynthetic(model, spec, "a b c d", std::nullopt, *cpu);
  const WeightDifference d = weightDifference(a.attention, {0, 1}, b.attention, {0, 1});
  CHECK(d.mask == Mask::kNone);
  // Above the diagonal A is exactly 0, so Δ = −B there.
  CHECK(d.delta(1, 0, 3) == -b.attention.weights(1, 0, 3));
  // Query 3 sees every key on both sides: Δ = 0.
  for (int j = 0; j < 4; ++j) CHECK(d.delta(0, 3, j) == Approx(0.0f).margin(1e-7));
  const WeightDifference both = weightDifference(a.attention, {0}, a.attention, {1});
  CHECK(both.mask == Mask::kCausal);
}

TEST_CASE("timer: runs the CPU paths, skips by memory and without OpenCL, with reasons",
          "[timing]") {
  AttentionTimer timer(false);
  CHECK_FALSE(timer.hasOpenCl());
  CHECK(timer.openClUnavailable() == "OpenCL not requested");
  TimingCase c;
  c.n = 16;
  c.heads = 2;
  c.d_k = 8;
  const std::vector<PathTime> t = timer.time(
      c, {TimedPath::kCpuReference, TimedPath::kEigenBaseline, TimedPath::kOpenClFused}, 2, 1e9);
  REQUIRE(t.size() == 3);
  CHECK(t[0].ran);
  CHECK(t[0].median_ms > 0);
  CHECK(t[1].ran);
  CHECK_FALSE(t[2].ran);
  CHECK(t[2].skipped == "OpenCL not requested");
  // Extra memory: reference 2·h·n²·4 = 4096 bytes; a 1000-byte limit skips it and says so.
  CHECK(t[0].extra_bytes == 4096.0);
  const std::vector<PathTime> small = timer.time(c, {TimedPath::kCpuReference}, 1, 1000);
  CHECK_FALSE(small[0].ran);
  CHECK(small[0].skipped.find("needs") == 0);
  CHECK_THROWS_AS(timer.time(c, {TimedPath::kCpuReference}, 0, 1e9), Error);
}

}  // namespace attnlab_test_cost_rollout
