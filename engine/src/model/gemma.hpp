#pragma once
/// \file gemma.hpp
/// Private to the engine: Gemma 2 (Gemma Team 2024, "Gemma 2: Improving Open Language Models at a
/// Practical Size", arXiv:2408.00118, §2) and Gemma 3 (Gemma Team 2025, "Gemma 3 Technical
/// Report", arXiv:2503.19786, §2) from a GGUF file or a HuggingFace folder, over the blocks the
/// other decoders share (blocks.hpp, weights.hpp).
///
/// Both: the token embedding scaled by √d_model; four RMSNorms per layer with gain 1 + w (before
/// and after the attention, before and after the feed-forward); GeGLU (tanh GELU) feed-forward;
/// scores scaled by 1/√query_pre_attn_scalar (AttentionSpec::scale_width); grouped-query
/// attention; RoPE in the rotate-half pairing (llama.cpp runs Gemma NEOX-style, so GGUF files keep
/// HuggingFace's W_Q / W_K rows); local layers with a sliding window and global layers
/// (ModelConfig::layer_window); the output layer tied to the embedding.
/// Gemma 2: attention-logit and final-logit soft-capping c·tanh(x/c) (AttentionSpec::score_cap);
/// even layers local. Gemma 3: no soft-capping by default; queries and keys RMS-normalised per
/// head (1 + w) before RoPE; local layers rotate with base rope_local_base_freq (10 000) unscaled,
/// global ones with rope_theta and the model's RoPE scaling (linear ×8 for the 4B–27B models);
/// every sliding_window_pattern-th layer global (6: layers 5, 11, …).

#include <memory>
#include <string_view>

#include "attnlab/gguf.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"

namespace attnlab::gemma {

/// True for the GGUF architectures read here: "gemma2", "gemma3".
bool readsGgufArchitecture(std::string_view architecture);

/// The ModelConfig of a GGUF file with general.architecture gemma2 or gemma3 (keys gemma2.* /
/// gemma3.*), with llama.cpp's fixed values for what the file does not say: Gemma 2 soft-caps 50
/// and 30 and window 4096 when absent, even layers local; Gemma 3 every 6th layer global, local
/// RoPE base 10 000; the score scale 1/√key_length except for the 27B models (46 layers for
/// gemma2, 62 for gemma3), which use 1/√(d_model/h). RoPE scaling (rope.scaling.*, as
/// rope_scaling::fromGguf reads it) applies to every Gemma 2 layer and to Gemma 3's global layers
/// only. Throws Error(kInvalidArgument) naming a key that would change the numbers and is not
/// honoured (a rope_freqs tensor, partial rotary, differing key and value widths, a Gemma 3 key
/// llama.cpp's fixed rules contradict, what rope_scaling::fromGguf refuses), Error(kInvalidInput)
/// naming a missing or invalid key.
ModelConfig configFromGguf(const GgufFile& file);

/// The model with weights dequantised from `file` (llama.cpp's tensor names: token_embd,
/// blk.N.attn_q, blk.N.post_attention_norm, blk.N.ffn_norm, blk.N.post_ffw_norm,
/// blk.N.attn_q_norm …; every norm stored as 1 + w). Throws Error(kInvalidInput) naming a missing
/// or wrongly shaped tensor, or a type that cannot be dequantised (naming it).
std::unique_ptr<PretrainedModel> fromGguf(ModelConfig config, const GgufFile& file);

/// The model with weights from a HuggingFace Gemma2ForCausalLM / Gemma3ForCausalLM checkpoint
/// (model.embed_tokens, model.layers.N.self_attn.q_proj …, norms stored as w; with or without
/// the "model." prefix), or a Gemma3ForConditionalGeneration's language model
/// (language_model.model.* or model.language_model.*; the vision tower is not read). Errors as
/// fromGguf.
std::unique_ptr<PretrainedModel> fromSafetensors(ModelConfig config, const SafeTensors& file);

}  // namespace attnlab::gemma
