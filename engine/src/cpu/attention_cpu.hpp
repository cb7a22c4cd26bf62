#pragma once
// Pieces of the CPU reference that other backends share.

#include "attnlab/attention.hpp"

namespace attnlab {

/// Throws Error(kInvalidArgument) when the inputs' shapes disagree with each other or the spec.
void checkAttentionInputs(const AttentionInputs& inputs, const AttentionSpec& spec);

/// Fills result.stats from result.weights and result.mask (see HeadStats).
void fillRowStats(AttentionResult& result);

}  // namespace attnlab
