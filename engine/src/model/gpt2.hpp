#pragma once
/// \file gpt2.hpp
/// Private to the engine: the GPT-2 architecture (Radford et al. 2019) from a HuggingFace folder.

#include <memory>

#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"

namespace attnlab::gpt2 {

/// The model with weights from a HuggingFace GPT2Model / GPT2LMHeadModel checkpoint (wte, wpe,
/// h.N.attn.c_attn …; with or without the "transformer." prefix; ln_f, when present, gives the
/// next-token predictions through the tied wte). `config` comes from readModelConfig. Throws
/// Error(kInvalidInput) naming a missing or wrongly shaped tensor, Error(kInvalidArgument) for an
/// unsupported activation.
std::unique_ptr<PretrainedModel> fromSafetensors(ModelConfig config, const SafeTensors& file);

}  // namespace attnlab::gpt2
