// Head similarity (mean Jensen–Shannon divergence between heads): a 2-head case worked by hand,
// identical heads, symmetry and range over generated shapes, empty rows left out.

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>

#include "attnlab/error.hpp"
#include "attnlab/head_similarity.hpp"
#include "attnlab/synthetic.hpp"
#include "helpers.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_head_similarity {

using namespace attnlab;
using Catch::Detail::Approx;
using attnlab::test::ErrorMatches;

namespace {

AttentionResult weightsOf(const std::vector<std::vector<std::vector<float>>>& heads) {
  AttentionResult r;
  const int h = static_cast<int>(heads.size()), n = static_cast<int>(heads.front().size());
  const int m = static_cast<int>(heads.front().front().size());
  r.weights = Tensor3(h, n, m);
  for (int k = 0; k < h; ++k)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) r.weights(k, i, j) = heads[k][i][j];
  return r;
}

}  // namespace

TEST_CASE("head similarity: two heads worked by hand", "[head_similarity]") {
  // Row 0: p = (1, 0), q = (½, ½), m = (¾, ¼).
  //   KL(p‖m) = ln(4/3); KL(q‖m) = ½ ln(2/3) + ½ ln 2 = ½ ln(4/3); JSD = ¾ ln(4/3) ≈ 0.21576.
  // Row 1: both (0, 1): 0. Row 2: no visible key in either head: left out. Mean = ⅜ ln(4/3).
  const AttentionResult r = weightsOf({{{1, 0}, {0, 1}, {0, 0}}, {{0.5f, 0.5f}, {0, 1}, {0, 0}}});
  const HeadSimilarity s = headSimilarity(r);
  REQUIRE(s.h == 2);
  CHECK(s.rows == 2);
  CHECK(s(0, 1) == Approx(0.375 * std::log(4.0 / 3.0)).epsilon(1e-7));
  CHECK(s(1, 0) == s(0, 1));
  CHECK(s(0, 0) == 0.0);
  CHECK(s.near_duplicates.empty());
  // Disjoint rows reach the maximum, ln 2.
  const float p[] = {1, 0, 0}, q[] = {0, 0.5f, 0.5f};
  CHECK(jensenShannon(p, q, 3) == Approx(std::log(2.0)).epsilon(1e-12));
}

TEST_CASE("head similarity: identical heads are 0 and flagged; symmetric over generated shapes",
          "[head_similarity]") {
  const int h = GENERATE(1, 2, 5);
  const int n = GENERATE(1, 3, 17);
  const bool causal = GENERATE(false, true);
  AttentionSpec spec;
  spec.heads = h;
  spec.d_model = 16 * h;
  spec.d_k = 16;
  spec.mask = causal ? Mask::kCausal : Mask::kNone;
  AttentionResult r =
      computeAttentionCpu(test::randomInputs(h, n, n, 16, 16, 40 + static_cast<unsigned>(n)), spec);
  // Head h−1 made a copy of head 0 (when h > 1).
  if (h > 1) std::copy(r.weights.row(0, 0), r.weights.row(0, 0) + n * n, r.weights.row(h - 1, 0));
  const HeadSimilarity s = headSimilarity(r);
  CHECK(s.rows == n);
  for (int a = 0; a < h; ++a) {
    CHECK(s(a, a) == 0.0);
    for (int b = 0; b < h; ++b) {
      CHECK(s(a, b) == s(b, a));
      CHECK(s(a, b) >= 0.0);
      CHECK(s(a, b) <= std::log(2.0));
    }
  }
  if (h > 1) {
    CHECK(s(0, h - 1) == 0.0);
    CHECK(std::find(s.near_duplicates.begin(), s.near_duplicates.end(), std::make_pair(0, h - 1)) !=
          s.near_duplicates.end());
  }
  REQUIRE_THROWS_MATCHES(headSimilarity(r, -1.0), Error,
                         ErrorMatches(ErrorCode::kInvalidArgument, "threshold"));
}

}  // namespace attnlab_test_head_similarity
