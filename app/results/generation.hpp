#pragma once
/// \file generation.hpp
/// The result of the generate mode (run::Session::generate): a real model generating token by
/// token with its KV cache (attnlab/generate.hpp), and the causal matrix as it grew, drawn like a
/// forward pass. What `attention-lab-cli generate` and the window's Generate box read.

#include <QStringList>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/generate.hpp"
#include "results/attention.hpp"

namespace attnlab::results {

struct Generated {
  std::shared_ptr<const ModelInfo> model;
  AttentionSpec spec;       ///< The attention the model ran with (PretrainedModel::attentionSpec).
  GenerateOptions options;  ///< The engine's options it generated with (hooks left out).
  /// The prompt's encoding, the steps so far (token, probability, top 5, every layer's new row
  /// over the cache, the cache), the ids, the stop reason and the times.
  std::shared_ptr<const Generation> generation;
  /// The causal matrix of the tokens read so far (prompt + steps − 1) as a run: grownAttention's
  /// rows of every kept layer, the display labels, the last step's predictions as the next-token
  /// line (run::showPass: the path of a forward pass).
  std::shared_ptr<const Run> shown;
  /// The model's own label of each step's input token (GenerationStep::input_id).
  std::vector<std::string> input_labels;
};

}  // namespace attnlab::results
