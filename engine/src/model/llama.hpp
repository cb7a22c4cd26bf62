#pragma once
/// \file llama.hpp
/// Private to the engine: the Llama architecture (Touvron et al. 2023) from a GGUF file or a
/// HuggingFace folder, built from the blocks it shares with BERT and GPT-2 (blocks.hpp).

#include <memory>
#include <string>

#include "attnlab/gguf.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"

namespace attnlab::llama {

/// True for the general.architecture values this file runs: "llama" (Llama, Mistral as llama.cpp
/// writes it), "qwen2", "phi3".
bool isLlamaFamilyGguf(const std::string& architecture);

/// The ModelConfig of a GGUF file with general.architecture llama, qwen2 or phi3 (keys
/// "<architecture>.*", e.g. qwen2.block_count). Throws Error(kInvalidArgument) naming another
/// architecture (unsupportedArchitecture) or an unsupported option (RoPE scaling, LongRoPE factor
/// tensors, partial rotary, key and value widths that differ, qwen2.attention.sliding_window),
/// Error(kInvalidInput) for a missing or invalid key (naming it) or head_count_kv not dividing
/// head_count (naming both).
ModelConfig configFromGguf(const GgufFile& file);

/// The model with weights dequantised from `file` (tensor names as llama.cpp writes them:
/// token_embd, blk.N.attn_q …; qwen2's blk.N.attn_q.bias …; phi3's fused blk.N.attn_qkv and
/// blk.N.ffn_up = W_gate | W_up; qwen2 and phi3 keep W_Q / W_K in rotate-half order). Throws Error(kInvalidInput) naming a missing or wrongly shaped
/// tensor, or a tensor type that cannot be dequantised (naming the type).
std::unique_ptr<PretrainedModel> fromGguf(ModelConfig config, const GgufFile& file);

/// The model with weights from a HuggingFace LlamaForCausalLM, MistralForCausalLM,
/// Qwen2ForCausalLM or Phi3ForCausalLM checkpoint (model.embed_tokens,
/// model.layers.N.self_attn.q_proj …, Qwen2's q_proj.bias …, Phi-3's qkv_proj and
/// mlp.gate_up_proj; with or without the "model." prefix). W_Q and W_K are
/// converted from rotate-half to the interleaved RoPE layout (positions.hpp). Errors as fromGguf.
std::unique_ptr<PretrainedModel> fromSafetensors(ModelConfig config, const SafeTensors& file);

}  // namespace attnlab::llama
