#pragma once
/// \file bert.hpp
/// Private to the engine: the BERT architecture (Devlin et al. 2019) from a HuggingFace folder.

#include <memory>

#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"

namespace attnlab::bert {

/// The model with weights from a HuggingFace BertModel checkpoint (embeddings.word_embeddings,
/// encoder.layer.N.attention.self.query …; with or without the "bert." prefix). `config` comes
/// from readModelConfig. Throws Error(kInvalidInput) naming a missing or wrongly shaped tensor,
/// Error(kInvalidArgument) for an unsupported activation.
std::unique_ptr<PretrainedModel> fromSafetensors(ModelConfig config, const SafeTensors& file);

}  // namespace attnlab::bert
