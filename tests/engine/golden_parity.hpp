#pragma once
// The comparison every real-reference model test makes: a run's attention weights (every layer
// and head) and top-5 next tokens against a golden written by a tests/reference/ script.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/pretrained.hpp"

namespace attnlab::test {

/// "case00", "case01" …: the goldens' per-input key prefix.
inline std::string caseKey(std::size_t i) {
  return std::string("case") + (i < 10 ? "0" : "") + std::to_string(i);
}

/// The largest differences seen so far.
struct GoldenParity {
  double weights = 0;  ///< max |Δ attention weight| over every layer and head
  double probs = 0;    ///< max |Δ next-token probability| over the top 5
};

/// Adds one input's differences to `worst`: `expected` holds the kept layers' weights [h, n, n]
/// one after the other (F32), `next_ids` / `next_probs` the reference's top 5. Requires the
/// sizes to agree and the top-5 ids to be equal.
inline void addParity(const ModelRun& run, const std::vector<float>& expected,
                      const std::vector<std::int64_t>& next_ids,
                      const std::vector<float>& next_probs, GoldenParity& worst) {
  std::size_t offset = 0;
  for (const AttentionResult& layer : run.attention) {
    const FloatStore& w = layer.weights.data;
    REQUIRE(offset + w.size() <= expected.size());
    for (std::size_t k = 0; k < w.size(); ++k) {
      worst.weights = std::max(worst.weights, std::abs(double(w[k]) - expected[offset + k]));
    }
    offset += w.size();
  }
  REQUIRE(offset == expected.size());
  REQUIRE(run.next_tokens.size() == next_ids.size());
  REQUIRE(next_probs.size() == next_ids.size());
  for (std::size_t r = 0; r < next_ids.size(); ++r) {
    CHECK(run.next_tokens[r].id == next_ids[r]);
    worst.probs = std::max(worst.probs, std::abs(run.next_tokens[r].probability - next_probs[r]));
  }
}

}  // namespace attnlab::test
