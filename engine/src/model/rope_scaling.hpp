#pragma once
/// \file rope_scaling.hpp
/// Private to the engine: a model file's RoPE scaling (positions.hpp, RopeScaling) read from GGUF
/// keys as llama.cpp reads them, or from config.json's rope_scaling as HuggingFace transformers
/// 4.49 reads it. Every field that changes the angles is honoured or refused by name.

#include <nlohmann/json.hpp>
#include <string>

#include "attnlab/gguf.hpp"
#include "attnlab/positions.hpp"

namespace attnlab::rope_scaling {

/// The keys PREFIX.rope.scaling.* and PREFIX.rope.scale_linear of `file` (PREFIX is the
/// architecture, e.g. "llama") and the tensor rope_freqs.weight, for heads of `rotary_dims`
/// rotated dimensions trained on `context` tokens. As llama.cpp: type absent means linear, a
/// factor of 0 or type "none" means no scaling, scaling.factor wins over scale_linear, YaRN's
/// original context defaults to `context`. Throws Error(kInvalidArgument) naming an unsupported
/// type (longrope, …) or a key whose value this engine does not implement (attn_factor,
/// yarn_attn_factor, yarn_ext_factor other than 1, yarn_log_multiplier other than 0,
/// scaling.alpha), Error(kInvalidInput) naming a key with an invalid value or rope_freqs.weight
/// with a length other than rotary_dims/2.
RopeScaling fromGguf(const GgufFile& file, const std::string& prefix, int rotary_dims,
                     int context);

/// config.json's rope_scaling (null or absent: none) for a model with max_position_embeddings
/// `max_positions`, as transformers 4.49 computes each rope_type ("type" is the old name):
/// default, linear, dynamic (the same angles as default for inputs up to max_positions, the only
/// ones the engine runs), llama3, yarn. Throws Error(kInvalidArgument) naming an unsupported
/// rope_type (longrope, …) or a key the type does not take (e.g. mscale), or a YaRN
/// original_max_position_embeddings that differs from max_position_embeddings (transformers
/// releases disagree on what it means); Error(kInvalidInput) naming a missing or invalid key.
RopeScaling fromConfig(const nlohmann::json& config, int max_positions);

}  // namespace attnlab::rope_scaling
