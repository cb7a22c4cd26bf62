// summarizeAttention: the analysis plots' numbers, checked by hand.

#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/error.hpp"
#include "attnlab/summary.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_summary {

TEST_CASE("summarizeAttention: row entropy over heads, ln(visible keys), histogram of visible scores",
          "[summary]") {
  attnlab::AttentionResult r;
  r.mask = attnlab::Mask::kCausal;
  r.weights = attnlab::Tensor3(2, 2, 2);
  r.scores = attnlab::Tensor3(2, 2, 2);
  // Head 0: row 0 sees key 0 (weight 1), row 1 uniform; head 1: row 1 one-hot.
  r.weights(0, 0, 0) = 1;
  r.weights(0, 1, 0) = r.weights(0, 1, 1) = 0.5f;
  r.weights(1, 0, 0) = 1;
  r.weights(1, 1, 1) = 1;
  r.scores(0, 0, 0) = -1;
  r.scores(0, 1, 0) = 0;
  r.scores(0, 1, 1) = 0;
  r.scores(1, 0, 0) = 3;
  r.scores(1, 1, 0) = -100;
  r.scores(1, 1, 1) = 5;
  r.scores(0, 0, 1) = 1000;  // masked: never counted
  attnlab::HeadStats h0, h1;
  h0.entropy = {0.0f, static_cast<float>(std::log(2.0))};
  h1.entropy = {0.0f, 0.0f};
  r.stats = {h0, h1};
  const attnlab::AttentionSummary s = attnlab::summarizeAttention(r, 4);
  REQUIRE(s.row_entropy.size() == 2);
  CHECK(s.row_entropy[0] == 0.0);
  CHECK(s.row_entropy[1] == Approx(std::log(2.0) / 2));  // mean of ln 2 and 0
  CHECK(s.row_max_entropy[0] == 0.0);                     // one visible key
  CHECK(s.row_max_entropy[1] == Approx(std::log(2.0)));
  CHECK(s.max_weight == 1.0);
  CHECK(s.histogram.lo == -100.0);
  CHECK(s.histogram.hi == 5.0);
  REQUIRE(s.histogram.count.size() == 4);
  // Bins of 26.25: −100 alone in bin 0; −1, 0, 0, 3, 5 in bin 3.
  CHECK(s.histogram.count[0] == 1);
  CHECK(s.histogram.count[1] == 0);
  CHECK(s.histogram.count[2] == 0);
  CHECK(s.histogram.count[3] == 5);
  CHECK_THROWS_AS(attnlab::summarizeAttention(r, 0), attnlab::Error);
}

}  // namespace attnlab_test_summary
