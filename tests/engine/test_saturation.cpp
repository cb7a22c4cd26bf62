// The seeds' claims about d_k and the 1/√d_k scaling (Vaswani et al. 2017, §3.2.1).

#include <catch2/catch.hpp>

#include "attnlab/error.hpp"
#include "attnlab/saturation.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_saturation {

using namespace attnlab;

TEST_CASE("var(q.k) is within 5 % of d_k for unit-variance components", "[saturation]") {
  SaturationConfig config;
  config.d_k = {16, 64, 256};
  config.n_k = 1;
  config.samples = 20000;
  const SaturationAnalysis a = saturationMonteCarlo(config);
  REQUIRE(a.unscaled.size() == 3);
  for (const SaturationPoint& p : a.unscaled) {
    INFO("d_k = " << p.d_k << ", var = " << p.score_variance);
    CHECK(std::abs(p.score_variance - p.d_k) <= 0.05 * p.d_k);
  }
}

TEST_CASE("unscaled softmax saturates as d_k grows; scaled does not", "[saturation]") {
  SaturationConfig config;  // d_k = 1, 2, 4, …, 1024
  config.n_k = 16;
  config.samples = 2000;
  const SaturationAnalysis a = saturationMonteCarlo(config);
  REQUIRE(a.n_k == 16);
  REQUIRE(a.scaled.size() == 11);
  REQUIRE(a.scaled.back().d_k == 1024);
  // Unscaled: mean max weight climbs towards 1 …
  for (std::size_t i = 1; i < a.unscaled.size(); ++i) {
    INFO("d_k = " << a.unscaled[i].d_k);
    CHECK(a.unscaled[i].mean_max_weight > a.unscaled[i - 1].mean_max_weight - 0.01);
  }
  CHECK(a.unscaled.front().mean_max_weight < 0.3);
  CHECK(a.unscaled.back().mean_max_weight > 0.9);
  // … the Jacobian norm falls towards 0 and the entropy collapses.
  CHECK(a.unscaled.back().mean_jacobian_norm < 0.1);
  CHECK(a.unscaled.back().mean_jacobian_norm < 0.3 * a.unscaled.front().mean_jacobian_norm);
  CHECK(a.unscaled.back().mean_norm_entropy < 0.1);
  // Scaled: the spread stays at unit variance, so no saturation at any d_k.
  for (const SaturationPoint& p : a.scaled) {
    INFO("d_k = " << p.d_k);
    CHECK(p.mean_max_weight < 0.5);
    CHECK(p.mean_norm_entropy > 0.7);
  }
}

TEST_CASE("the Monte-Carlo estimate is deterministic for a seed", "[saturation]") {
  SaturationConfig config;
  config.d_k = {4, 32};
  config.samples = 300;
  const SaturationAnalysis a = saturationMonteCarlo(config);
  const SaturationAnalysis b = saturationMonteCarlo(config);
  config.seed = 1;
  const SaturationAnalysis c = saturationMonteCarlo(config);
  CHECK(a.unscaled[1].mean_max_weight == b.unscaled[1].mean_max_weight);
  CHECK(a.scaled[0].mean_jacobian_norm == b.scaled[0].mean_jacobian_norm);
  CHECK(a.unscaled[1].mean_max_weight != c.unscaled[1].mean_max_weight);
}

TEST_CASE("a sentence's own queries and keys saturate the same way", "[saturation]") {
  AttentionSpec spec;
  spec.heads = 4;
  spec.d_model = 64;
  const SaturationAnalysis s =
      saturationOfSentence(spec, 0, true, "The cat sat on the mat because it was tired.",
                           std::nullopt, {1, 16, 256, 1024});
  REQUIRE(s.n_k == 11);
  REQUIRE(s.unscaled.size() == 4);
  // The synthetic model keeps var(q·k) ≈ d_k …
  CHECK(s.unscaled[3].score_variance > 0.5 * 1024);
  CHECK(s.unscaled[3].score_variance < 2.0 * 1024);
  // … so unscaled rows go one-hot while scaled ones stay spread.
  CHECK(s.unscaled[3].mean_max_weight > 0.85);
  CHECK(s.scaled[3].mean_max_weight < 0.6);
  CHECK(s.unscaled[3].mean_jacobian_norm < s.scaled[3].mean_jacobian_norm);
}

TEST_CASE("bad saturation settings are reported", "[saturation][errors]") {
  SaturationConfig config;
  config.d_k = {};
  CHECK_THROWS_AS(saturationMonteCarlo(config), Error);
  config.d_k = {0};
  CHECK_THROWS_WITH(saturationMonteCarlo(config), Catch::Contains("d_k"));
  config.d_k = {4};
  config.n_k = 0;
  CHECK_THROWS_AS(saturationMonteCarlo(config), Error);
}

}  // namespace attnlab_test_saturation
