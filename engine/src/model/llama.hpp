#pragma once
/// \file llama.hpp
/// Private to the engine: the Llama architecture (Touvron et al. 2023) from a GGUF file or a
/// HuggingFace folder, built from the blocks it shares with BERT and GPT-2 (blocks.hpp).

#include <memory>

#include "attnlab/gguf.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"

namespace attnlab::llama {

/// The ModelConfig of a GGUF file with general.architecture = llama (keys llama.*). Throws
/// Error(kInvalidArgument) naming another architecture or an unsupported option (RoPE scaling,
/// partial rotary, key and value widths that differ), Error(kInvalidInput) for a missing or
/// invalid key (naming it) or head_count_kv not dividing head_count (naming both).
ModelConfig configFromGguf(const GgufFile& file);

/// The model with weights dequantised from `file` (tensor names as llama.cpp writes them:
/// token_embd, blk.N.attn_q …). Throws Error(kInvalidInput) naming a missing or wrongly shaped
/// tensor, or a tensor type that cannot be dequantised (naming the type).
std::unique_ptr<PretrainedModel> fromGguf(ModelConfig config, const GgufFile& file);

/// The model with weights from a HuggingFace LlamaForCausalLM checkpoint (model.embed_tokens,
/// model.layers.N.self_attn.q_proj …; with or without the "model." prefix). W_Q and W_K are
/// converted from rotate-half to the interleaved RoPE layout (positions.hpp). Errors as fromGguf.
std::unique_ptr<PretrainedModel> fromSafetensors(ModelConfig config, const SafeTensors& file);

}  // namespace attnlab::llama
