// config.json of a HuggingFace model folder → ModelConfig (bert, gpt2 and the Llama family:
// llama, mistral, qwen2, phi3), and the names of the architectures.

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/pretrained.hpp"
#include "model/blocks.hpp"
#include "model/rope_scaling.hpp"
#include "model/tokenizer_common.hpp"

namespace attnlab {
namespace {

using json = nlohmann::json;

[[noreturn]] void badConfig(const std::string& what) {
  throw Error(ErrorCode::kInvalidInput, "config.json: " + what);
}

int intField(const json& config, std::initializer_list<const char*> names,
             std::optional<int> fallback = std::nullopt) {
  for (const char* name : names) {
    const auto it = config.find(name);
    if (it == config.end() || it->is_null()) continue;
    if (!it->is_number_integer() || it->get<long long>() <= 0 || it->get<long long>() > (1 << 30)) {
      badConfig(std::string(name) + " must be a positive integer");
    }
    return it->get<int>();
  }
  if (fallback) return *fallback;
  badConfig(std::string("missing ") + *names.begin());
}

double numberField(const json& config, const char* name, double fallback) {
  const auto it = config.find(name);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_number() || !(it->get<double>() > 0))
    badConfig(std::string(name) + " must be a positive number");
  return it->get<double>();
}

std::string stringField(const json& config, const char* name, const std::string& fallback) {
  const auto it = config.find(name);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_string()) badConfig(std::string(name) + " must be a string");
  return it->get<std::string>();
}

bool boolField(const json& config, const char* name, bool fallback) {
  const auto it = config.find(name);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) badConfig(std::string(name) + " must be true or false");
  return it->get<bool>();
}

/// A soft-cap field (Gemma): absent → `fallback` (the config class's default), null → 0 (none),
/// else a positive number.
double capField(const json& config, const char* name, double fallback) {
  const auto it = config.find(name);
  if (it == config.end()) return fallback;
  if (it->is_null()) return 0;
  if (!it->is_number() || !(it->get<double>() > 0) || !std::isfinite(it->get<double>()))
    badConfig(std::string(name) + " must be a positive number or null");
  return it->get<double>();
}

/// Gemma 2 (model_type gemma2) and Gemma 3 (gemma3_text, or gemma3 with a text_config): the
/// fields of transformers' Gemma2Config / Gemma3TextConfig, their defaults where absent.
void readGemma(const json& outer, const std::string& type, ModelConfig& c) {
  const json* inner = &outer;
  if (type == "gemma3") {
    const auto it = outer.find("text_config");
    if (it == outer.end() || !it->is_object())
      badConfig("model_type gemma3 needs a text_config object (the language model's fields)");
    inner = &*it;
  }
  const json& config = *inner;
  const bool gemma2 = type == "gemma2";
  c.architecture = gemma2 ? Architecture::kGemma2 : Architecture::kGemma3;
  c.layers = intField(config, {"num_hidden_layers"});
  c.heads = intField(config, {"num_attention_heads"});
  c.kv_heads = intField(config, {"num_key_value_heads"}, 4);  // both config classes' default
  c.d_model = intField(config, {"hidden_size"});
  c.d_ff = intField(config, {"intermediate_size"});
  c.max_positions = intField(config, {"max_position_embeddings"}, gemma2 ? 8192 : 131072);
  c.vocab_size = intField(config, {"vocab_size"});
  c.layer_norm_eps = numberField(config, "rms_norm_eps", 1e-6);
  c.rope_base = numberField(config, "rope_theta", gemma2 ? 10000.0 : 1000000.0);
  c.head_dim = intField(config, {"head_dim"}, 256);
  if (c.head_dim % 2 != 0) badConfig("head_dim must be even for RoPE");
  c.rope_dims = c.head_dim;
  c.scale_width = numberField(config, "query_pre_attn_scalar", 256.0);
  // hidden_act (Gemma 1's field) is not read by Gemma2MLP / Gemma3MLP: hidden_activation is.
  c.activation = stringField(config, "hidden_activation", "gelu_pytorch_tanh");
  c.tied_embeddings = boolField(config, "tie_word_embeddings", true);
  c.attn_softcap = capField(config, "attn_logit_softcapping", gemma2 ? 50.0 : 0.0);
  c.final_softcap = capField(config, "final_logit_softcapping", gemma2 ? 30.0 : 0.0);
  if (boolField(config, "attention_bias", false))
    throw Error(ErrorCode::kInvalidArgument, "config.json: attention_bias is not supported");
  if (boolField(config, "use_bidirectional_attention", false)) {
    throw Error(ErrorCode::kInvalidArgument,
                "config.json: use_bidirectional_attention is not supported (Gemma is causal here)");
  }
  // Gemma 2 scales every layer's RoPE; Gemma 3 only the global layers' (its local rotary
  // embedding is built with rope_type default; llama.cpp: rope_freq_scale_train_swa = 1).
  c.rope_scaling = rope_scaling::fromConfig(config, c.max_positions);
  // The window: a positive integer; Gemma 3 also takes null (local layers without a window).
  int window = 4096;
  if (const auto it = config.find("sliding_window"); it != config.end()) {
    if (it->is_null() && !gemma2) {
      window = 0;
    } else if (!it->is_number_integer() || it->get<long long>() <= 0 ||
               it->get<long long>() > (1 << 30)) {
      badConfig("sliding_window must be a positive integer");
    } else {
      window = it->get<int>();
    }
  }
  // Which layers are local: Gemma 2 the even ones (transformers 4.49's `not layer_idx % 2`);
  // Gemma 3 layer_types when given (transformers ≥ 4.53), else all but every
  // sliding_window_pattern-th ((l + 1) % pattern ≠ 0; 4.50–4.52's field, 6 by default).
  std::vector<bool> local(static_cast<std::size_t>(c.layers));
  const auto types = config.find("layer_types");
  if (!gemma2 && types != config.end() && !types->is_null()) {
    if (!types->is_array() || types->size() != static_cast<std::size_t>(c.layers))
      badConfig("layer_types must list one type per layer (" + std::to_string(c.layers) + ")");
    for (std::size_t l = 0; l < types->size(); ++l) {
      const json& t = (*types)[l];
      if (!t.is_string() || (t != "sliding_attention" && t != "full_attention"))
        badConfig("layer_types[" + std::to_string(l) +
                  "] must be \"sliding_attention\" or \"full_attention\"");
      local[l] = t == "sliding_attention";
    }
  } else {
    const int pattern =
        gemma2 ? 2 : intField(config, {"sliding_window_pattern", "_sliding_window_pattern"}, 6);
    for (int l = 0; l < c.layers; ++l)
      local[static_cast<std::size_t>(l)] = gemma2 ? l % 2 == 0 : (l + 1) % pattern != 0;
  }
  c.layer_window.assign(static_cast<std::size_t>(c.layers), 0);
  for (int l = 0; l < c.layers; ++l)
    if (local[static_cast<std::size_t>(l)]) c.layer_window[static_cast<std::size_t>(l)] = window;
  if (!gemma2) {
    c.rope_local_base = numberField(config, "rope_local_base_freq", 10000.0);
    bool any_local = false;
    for (bool b : local) any_local = any_local || b;
    if (window == 0 && any_local) {
      throw Error(ErrorCode::kInvalidArgument,
                  "config.json: sliding_window null with local layers is not supported");
    }
  }
  if (c.heads % c.kv_heads != 0) {
    badConfig("num_key_value_heads (" + std::to_string(c.kv_heads) +
              ") does not divide num_attention_heads (" + std::to_string(c.heads) + ")");
  }
}

/// "supported: config.json model_type bert, …; GGUF general.architecture llama, …".
std::string supportedList() {
  auto join = [](const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  };
  const SupportedArchitectures& s = supportedArchitectures();
  return "supported: config.json model_type " + join(s.model_types) +
         "; GGUF general.architecture " + join(s.gguf);
}

[[noreturn]] void refuse(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "config.json: " + what);
}

/// transformers' sliding_window: the class default when the key is absent (4096 for Mistral and
/// Qwen2, none for Phi-3), none when it is null, else a positive integer.
std::optional<int> slidingWindowField(const json& config, std::optional<int> absent) {
  const auto it = config.find("sliding_window");
  if (it == config.end()) return absent;
  if (it->is_null()) return std::nullopt;
  return intField(config, {"sliding_window"});
}

/// The sliding window of every layer of a Mistral, Qwen2 or Phi-3 config.json. transformers 4.49's
/// eager attention (_prepare_4d_causal_attention_mask_with_cache_position) hides keys j ≤ i − W in
/// every layer (W keys visible, the query's own included: MaskPattern::window = W) whenever
/// config.sliding_window is set; Mistral and Phi-3 mean exactly that. Qwen2 means a window only
/// with use_sliding_window and only on layers l ≥ max_window_layers (its flash-attention path and
/// later transformers apply it so). Where the two readings differ, the layers get the model's
/// definition and inputs longer than W — the only ones on which the readings differ — are refused
/// naming the fields (ModelConfig::agreed_positions).
void readSlidingWindow(const json& config, ModelConfig& c) {
  const std::optional<int> window =
      slidingWindowField(config, c.model_type == "phi3" ? std::nullopt : std::optional<int>(4096));
  if (!window || *window >= c.max_positions) return;  // never binds within the context
  const int w = *window;
  if (c.model_type != "qwen2") {
    c.layer_window.assign(static_cast<std::size_t>(c.layers), w);
    return;
  }
  const bool use = boolField(config, "use_sliding_window", false);
  int from = 28;  // Qwen2Config's default
  if (const auto it = config.find("max_window_layers"); it != config.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<long long>() < 0) {
      badConfig("max_window_layers must be an integer ≥ 0");
    }
    from = static_cast<int>(std::min<long long>(it->get<long long>(), 1 << 30));
  }
  if (use && from == 0) {  // every layer, by both readings
    c.layer_window.assign(static_cast<std::size_t>(c.layers), w);
    return;
  }
  c.agreed_positions = w;
  if (!use) {
    c.agreed_positions_field = "sliding_window " + std::to_string(w) +
                               " with use_sliding_window false (transformers 4.49's eager "
                               "attention windows every layer, the model's definition none)";
    return;
  }
  c.agreed_positions_field = "max_window_layers " + std::to_string(from) +
                             " with use_sliding_window and sliding_window " + std::to_string(w) +
                             " (transformers 4.49's eager attention windows every layer, the "
                             "model's definition only layers ≥ max_window_layers)";
  if (from < c.layers) {
    c.layer_window.assign(static_cast<std::size_t>(c.layers), 0);
    for (int l = from; l < c.layers; ++l) c.layer_window[static_cast<std::size_t>(l)] = w;
  }
}

}  // namespace

ModelConfig readModelConfig(const std::filesystem::path& config_json) {
  // readFile names the file when it is missing or a Git LFS pointer.
  const std::string text =
      model_text::readFile(config_json, "a HuggingFace model folder needs config.json");
  json config = json::parse(text, nullptr, false);
  if (config.is_discarded() || !config.is_object()) badConfig("not a well-formed JSON object");
  const std::string type = stringField(config, "model_type", "");
  ModelConfig c;
  c.model_type = type;
  if (type == "bert") {
    c.architecture = Architecture::kBert;
    c.layers = intField(config, {"num_hidden_layers"});
    c.heads = intField(config, {"num_attention_heads"});
    c.d_model = intField(config, {"hidden_size"});
    c.d_ff = intField(config, {"intermediate_size"});
    c.max_positions = intField(config, {"max_position_embeddings"});
    c.vocab_size = intField(config, {"vocab_size"});
    c.type_vocab_size = intField(config, {"type_vocab_size"}, 2);
    c.layer_norm_eps = numberField(config, "layer_norm_eps", 1e-12);
    c.activation = stringField(config, "hidden_act", "gelu");
    // BertModel with is_decoder masks causally (get_extended_attention_mask).
    if (boolField(config, "is_decoder", false)) {
      refuse("is_decoder true (BERT as a causal decoder) is not supported");
    }
    const std::string positions = stringField(config, "position_embedding_type", "absolute");
    if (positions != "absolute") {
      throw Error(ErrorCode::kInvalidArgument, "config.json: position_embedding_type \"" +
                                                   positions +
                                                   "\" is not supported (only \"absolute\")");
    }
  } else if (type == "gpt2") {
    c.architecture = Architecture::kGpt2;
    c.layers = intField(config, {"n_layer"});
    c.heads = intField(config, {"n_head"});
    c.d_model = intField(config, {"n_embd"});
    // 4·d_model in 64 bits: n_embd may be up to 2^30, where 4·n_embd overflows int.
    c.d_ff = intField(config, {"n_inner"},
                      static_cast<int>(std::min<long long>(4LL * c.d_model, 1 << 30)));
    c.max_positions = intField(config, {"n_positions", "n_ctx"});
    c.vocab_size = intField(config, {"vocab_size"});
    c.layer_norm_eps = numberField(config, "layer_norm_epsilon", 1e-5);
    c.activation = stringField(config, "activation_function", "gelu_new");
    c.scale_attention = boolField(config, "scale_attn_weights", true);
    c.tied_embeddings = true;  // GPT2LMHeadModel's lm_head is wte
    if (boolField(config, "scale_attn_by_inverse_layer_idx", false)) {
      throw Error(ErrorCode::kInvalidArgument,
                  "config.json: scale_attn_by_inverse_layer_idx is not supported");
    }
  } else if (type == "llama" || type == "mistral" || type == "qwen2" || type == "phi3") {
    // The Llama family (llama.cpp): one decoder; the differences are read below.
    const bool phi3 = type == "phi3";
    c.architecture = Architecture::kLlama;
    c.layers = intField(config, {"num_hidden_layers"});
    c.heads = intField(config, {"num_attention_heads"});
    c.kv_heads = intField(config, {"num_key_value_heads"}, c.heads);
    c.d_model = intField(config, {"hidden_size"});
    c.d_ff = intField(config, {"intermediate_size"});
    c.max_positions = intField(config, {"max_position_embeddings"});
    c.vocab_size = intField(config, {"vocab_size"});
    c.layer_norm_eps = numberField(config, "rms_norm_eps", phi3 ? 1e-5 : 1e-6);
    c.rope_base = numberField(config, "rope_theta", 10000.0);
    c.activation = stringField(config, "hidden_act", "silu");
    c.tied_embeddings = boolField(config, "tie_word_embeddings", false);
    c.head_dim = intField(config, {"head_dim"}, c.d_model % c.heads == 0 ? c.d_model / c.heads : 0);
    if (c.head_dim <= 0) badConfig("head_dim is needed when heads do not divide hidden_size");
    c.rope_dims = c.head_dim;
    if (c.heads % c.kv_heads != 0) {
      badConfig("num_key_value_heads (" + std::to_string(c.kv_heads) +
                ") does not divide num_attention_heads (" + std::to_string(c.heads) + ")");
    }
    if (c.head_dim % 2 != 0) badConfig("head_dim must be even for RoPE");
    c.rope_scaling = rope_scaling::fromConfig(config, c.max_positions);
    // LlamaConfig's biases; Mistral, Qwen2 and Phi-3 fix theirs in code (Qwen2: Q, K and V).
    for (const char* bias : {"attention_bias", "mlp_bias"}) {
      if (type == "llama" && boolField(config, bias, false)) {
        throw Error(ErrorCode::kInvalidArgument,
                    std::string("config.json: ") + bias + " is not supported");
      }
    }
    c.qkv_bias = type == "qwen2";
    if (phi3) {
      const double partial = numberField(config, "partial_rotary_factor", 1.0);
      if (partial != 1.0) {
        refuse("partial_rotary_factor " + json(partial).dump() +
               " is not supported (RoPE on the whole head, 1, is)");
      }
    }
    if (type != "llama") readSlidingWindow(config, c);
    if (c.activation != "silu") {
      throw Error(ErrorCode::kInvalidArgument,
                  "config.json: hidden_act \"" + c.activation + "\" is not supported (silu is)");
    }
  } else if (type == "gemma2" || type == "gemma3_text" || type == "gemma3") {
    readGemma(config, type, c);
  } else if (type.empty()) {
    badConfig("missing model_type (" + supportedList() + ")");
  } else {
    throw unsupportedArchitecture("model_type", type);
  }
  c.format = "safetensors";
  if (c.kv_heads == 0) c.kv_heads = c.heads;
  if (c.head_dim == 0 && c.d_model % c.heads != 0) {
    badConfig("heads (" + std::to_string(c.heads) + ") must divide the hidden size (" +
              std::to_string(c.d_model) + ")");
  }
  blocks::parseActivation(c.activation);  // throws for an activation no block implements
  // eos_token_id: a number or a list (Llama 3's), at the top or in Gemma 3's text_config; ids
  // outside the vocabulary are left out (they could never be generated).
  for (const json* where : {&config, config.contains("text_config") ? &config["text_config"]
                                                                     : static_cast<json*>(nullptr)}) {
    if (where == nullptr || !where->is_object() || !where->contains("eos_token_id")) continue;
    const json& e = (*where)["eos_token_id"];
    for (const json& id : e.is_array() ? e : json::array({e})) {
      if (!id.is_number_integer()) continue;
      const auto v = id.get<long long>();
      if (v >= 0 && v < c.vocab_size &&
          std::find(c.eos_token_ids.begin(), c.eos_token_ids.end(), static_cast<int>(v)) ==
              c.eos_token_ids.end())
        c.eos_token_ids.push_back(static_cast<int>(v));
    }
  }
  return c;
}

const SupportedArchitectures& supportedArchitectures() {
  static const SupportedArchitectures names{
      {"bert", "gpt2", "llama", "mistral", "phi3", "qwen2", "gemma2", "gemma3_text", "gemma3"},
      {"llama", "phi3", "qwen2", "gemma2", "gemma3"},
  };
  return names;
}

Error unsupportedArchitecture(const std::string& field, const std::string& name) {
  return Error(ErrorCode::kInvalidArgument,
               field + " \"" + name + "\" is not supported (" + supportedList() + ")");
}

std::string toString(Architecture architecture) {
  switch (architecture) {
    case Architecture::kBert:
      return "bert";
    case Architecture::kGpt2:
      return "gpt2";
    case Architecture::kLlama:
      return "llama";
    case Architecture::kGemma2:
      return "gemma2";
    case Architecture::kGemma3:
      return "gemma3";
  }
  return "?";
}

}  // namespace attnlab
