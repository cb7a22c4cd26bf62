#pragma once
/// \file score.hpp
/// The result of the score mode (run::Session::score, `attention-lab-cli decode --model`): a real
/// model reads a text token by token through its KV cache under the full cache and every
/// --cache-window × --sink-tokens policy — the attention-sink experiment of Xiao et al. 2023
/// (StreamingLLM).

#include <memory>
#include <vector>

#include "attnlab/generate.hpp"
#include "results/attention.hpp"

namespace attnlab::results {

struct Scored {
  std::shared_ptr<const ModelInfo> model;
  Encoding encoding;              ///< The text as the model reads it.
  TextScore full;                 ///< Under the full cache.
  std::vector<TextScore> scored;  ///< One per window × sink count, in the request's order.
  std::vector<int> windows;       ///< The cache windows, ascending.
  std::vector<int> sinks;         ///< The sink counts (0 when none were asked for).

  /// The perplexity under `window` and `sinks`, NaN when that policy was not scored.
  double perplexity(int window, int sinks) const;
};

}  // namespace attnlab::results
