#pragma once
/// \file decode.hpp
/// The result of the decode mode (run::Session::decode): the synthetic lab's text decoded token
/// by token with a KV cache (attnlab/decode.hpp), compared with the full causal computation of
/// the same inputs. What `attention-lab-cli decode`, the window's decoding dock and the lessons'
/// cache numbers read.

#include <QStringList>
#include <optional>
#include <vector>

#include "attnlab/decode.hpp"
#include "attnlab/difference.hpp"
#include "attnlab/tokenizer.hpp"
#include "options/lab_settings.hpp"

namespace attnlab::results {

struct Decoded {
  options::LabSettings settings;  ///< What was asked for (validated, run::checkDecode).
  AttentionSpec spec;             ///< The spec decoded: the settings', with the causal mask.
  std::vector<Token> tokens;      ///< The text's tokens: the rows and the columns.
  QStringList labels;             ///< Their texts, as the pictures label them.
  /// Per step the cache's length and bytes, the step's time and its largest difference from the
  /// full causal computation; the decoded rows as one result [h, n, n]; the bug and its step.
  DecodeResult decode;
  /// With a cache bug: Δ = decoded − full causal weights, every head ([h, n, n]), what the
  /// picture of a bug shows on the diverging scale; nullopt without a bug.
  std::optional<WeightDifference> delta;
};

}  // namespace attnlab::results
