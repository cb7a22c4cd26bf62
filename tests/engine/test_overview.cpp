// Block-pooled overviews (overview.hpp) and model runs that keep them (ModelRunOptions::
// overview_block): hand-checked blocks, every pair counted once, a run's overviews equal the
// pooled full layers, and the memory a run keeps.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "attnlab/attention.hpp"
#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/overview.hpp"
#include "attnlab/pretrained.hpp"
#include "pooled_checks.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_overview {

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

/// A 1-head causal result of n × n weights w(i, j) = (i + 1) · 10 + j on the visible pairs.
AttentionResult causalRamp(int n) {
  AttentionResult r;
  r.mask = Mask::kCausal;
  r.weights = Tensor3(1, n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) r.weights(0, i, j) = static_cast<float>((i + 1) * 10 + j);
  return r;
}

}  // namespace

TEST_CASE("pooled weights: max and mean over the visible pairs of each block, by hand",
          "[overview]") {
  const PooledAttention p = poolWeights(causalRamp(5), 2);
  REQUIRE(p.blockRows() == 3);
  REQUIRE(p.blockCols() == 3);
  CHECK(p.n_q == 5);
  // Block (0, 0): pairs (0,0) 10, (1,0) 20, (1,1) 21 — (0,1) is masked.
  CHECK(p.visible[0] == 3);
  CHECK(p.max(0, 0, 0) == 21.0f);
  CHECK(p.mean(0, 0, 0) == Approx((10.0 + 20 + 21) / 3));
  // Block (0, 1): every pair masked.
  CHECK(p.visible[1] == 0);
  CHECK(std::isnan(p.max(0, 0, 1)));
  CHECK(std::isnan(p.mean(0, 0, 1)));
  // Block (2, 2): the last row alone, pair (4, 4) = 54; block (2, 1): (4,2) 52 and (4,3) 53.
  CHECK(p.visible[8] == 1);
  CHECK(p.max(0, 2, 2) == 54.0f);
  CHECK(p.mean(0, 2, 1) == Approx(52.5));
  CHECK(PooledAttention::bytes(1, 5, 5, 2) == 9 * (2 * 4 + 4));
  CHECK_THROWS_AS(poolWeights(causalRamp(5), 0), Error);
  CHECK_THROWS_AS(poolWeights(AttentionResult{}, 2), Error);
}

TEST_CASE("pooled weights count every visible pair once, for blocks that do and do not divide n",
          "[overview]") {
  for (int n : {1, 7, 16, 33}) {
    for (int b : {1, 3, 4, 40}) {
      AttentionResult r = causalRamp(n);
      r.mask_pattern.window = 5;  // a sliding window as well: a banded, contiguous pattern
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          if (!r.pattern().visible(i, j)) r.weights(0, i, j) = 0.0f;
      const PooledAttention p = poolWeights(r, b);
      long long pairs = 0;
      double total = 0;
      for (int v : p.visible) pairs += v;
      for (int bi = 0; bi < p.blockRows(); ++bi)
        for (int bj = 0; bj < p.blockCols(); ++bj) {
          const int v = p.visible[static_cast<std::size_t>(bi) * p.blockCols() + bj];
          if (v > 0) total += static_cast<double>(p.mean(0, bi, bj)) * v;
        }
      long long want_pairs = 0;
      double want_total = 0;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          if (r.pattern().visible(i, j)) ++want_pairs, want_total += r.weights(0, i, j);
      INFO("n = " << n << ", b = " << b);
      CHECK(pairs == want_pairs);
      CHECK(total == Approx(want_total).epsilon(1e-6));
    }
  }
}

TEST_CASE("a model run keeps one layer in full and the others' pooled weights, equal to the full "
          "run's", "[overview][memory]") {
  const fs::path gguf = fs::path(ATTNLAB_TEST_DATA_DIR) / "models/tiny-llama/tiny-llama.gguf";
  const auto model = PretrainedModel::load(gguf);
  const ModelConfig& c = model->config();
  auto cpu = makeCpuBackend();
  const std::string text = "the cat sat on the mat because it was tired";
  const ModelRun full = model->run(text, std::nullopt, {}, *cpu);
  const int n = static_cast<int>(full.encoding.ids.size());
  REQUIRE(c.layers >= 2);

  ModelRunOptions mixed;
  mixed.layer = 1;
  mixed.overview_block = 3;
  mixed.next_tokens = 0;  // the overviews alone run the pass through every layer
  const ModelRun run = model->run(text, std::nullopt, mixed, *cpu);
  REQUIRE(run.layers == std::vector<int>{1});
  REQUIRE(static_cast<int>(run.overviews.size()) == c.layers - 1);
  CHECK(run.overview_layers.front() == 0);
  for (std::size_t e = 0; e < run.overviews.size(); ++e) {
    const int l = run.overview_layers[e];
    const PooledAttention want = poolWeights(full.attention[static_cast<std::size_t>(l)], 3);
    attnlab::test::checkSamePooled(run.overviews[e], want);
  }
  CHECK(run.attention.front().weights.data == full.attention[1].weights.data);

  // Kept: layer 1 in full, one layer in flight unless layer 1 is the last one run (the layers
  // before it are let go by then), and the other layers' overviews.
  const long long per_layer = 1LL * c.heads * n * n * 8 + 1LL * c.heads * n * c.dK() * 4 +
                              1LL * c.heads * n * 5 * 4;
  CHECK(model->overviewLayers(mixed) == c.layers - 1);
  CHECK(model->attentionBytes(n, mixed) ==
        (c.layers == 2 ? 1 : 2) * per_layer + (c.layers - 1) * PooledAttention::bytes(c.heads, n, n, 3));
  // Layer 0 kept: it is held while every later layer runs, one at a time.
  ModelRunOptions first_kept = mixed;
  first_kept.layer = 0;
  CHECK(model->attentionBytes(n, first_kept) ==
        2 * per_layer + (c.layers - 1) * PooledAttention::bytes(c.heads, n, n, 3));
  ModelRunOptions pooled_only;
  pooled_only.overview_block = 3;
  CHECK(model->keptLayers(pooled_only) == 0);
  CHECK(model->attentionBytes(n, pooled_only) ==
        per_layer + c.layers * PooledAttention::bytes(c.heads, n, n, 3));
  const ModelRun only = model->run(text, std::nullopt, pooled_only, *cpu);
  CHECK(only.attention.empty());
  CHECK(static_cast<int>(only.overviews.size()) == c.layers);
  CHECK(only.next_tokens.size() == full.next_tokens.size());

  ModelRunOptions bad;
  bad.overview_block = -1;
  CHECK_THROWS_AS(model->run(text, std::nullopt, bad, *cpu), Error);
}

}  // namespace attnlab_test_overview
