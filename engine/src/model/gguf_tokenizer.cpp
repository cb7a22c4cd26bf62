/// \file gguf_tokenizer.cpp
/// The tokenizer stored in a GGUF file's metadata (see loadGgufTokenizer in model_tokenizer.hpp):
/// byte-level BPE through the same implementation as tokenizer.json (byte_level_bpe.cpp), and
/// SentencePiece-style BPE (spm_tokenizer.cpp).

#include <string>
#include <utility>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "model/byte_level_bpe.hpp"
#include "model/spm_tokenizer.hpp"

namespace attnlab {
namespace {

// llama.cpp's token types (llama.h: llama_token_type).
constexpr std::int64_t kControl = 3;
constexpr std::int64_t kUserDefined = 4;

// tokenizer.ggml.pre values whose pre-tokenizer is GPT-2's pattern, with every digit split off
// first (llama-vocab.cpp groups them; HuggingFace: Digits(individual_digits) + ByteLevel).
constexpr const char* kDigitPre[] = {"smollm", "starcoder", "refact"};
// tokenizer.ggml.pre values with Llama 3's pattern (llama-vocab.cpp: LLAMA_VOCAB_PRE_TYPE_LLAMA3).
constexpr const char* kLlama3Pre[] = {"llama3", "llama-v3", "llama-bpe"};
// tokenizer.ggml.pre values with Qwen2's pattern (llama-vocab.cpp: LLAMA_VOCAB_PRE_TYPE_QWEN2).
// llama.cpp has no normalizer: Qwen2's tokenizer.json puts the text in NFC first, a GGUF does not.
constexpr const char* kQwen2Pre[] = {"qwen2", "deepseek-r1-qwen"};

[[noreturn]] void invalid(const GgufFile& file, const std::string& what) {
  throw Error(ErrorCode::kInvalidInput, file.path().filename().string() + ": " + what);
}

/// BOS / EOS ids to add, from tokenizer.ggml.{bos,eos}_token_id and add_{bos,eos}_token.
void specialIds(const GgufFile& file, int vocab, bool default_bos, std::vector<int>& prefix,
                std::vector<int>& suffix) {
  auto idOf = [&](const char* key) {
    const auto id = file.integer(key);
    if (!id) invalid(file, std::string("missing ") + key);
    if (*id < 0 || *id >= vocab) {
      invalid(file, std::string(key) + " " + std::to_string(*id) + " is outside the " +
                        std::to_string(vocab) + " tokens");
    }
    return static_cast<int>(*id);
  };
  if (file.boolean("tokenizer.ggml.add_bos_token").value_or(default_bos)) {
    prefix.push_back(idOf("tokenizer.ggml.bos_token_id"));
  }
  if (file.boolean("tokenizer.ggml.add_eos_token").value_or(false)) {
    suffix.push_back(idOf("tokenizer.ggml.eos_token_id"));
  }
}

std::unique_ptr<ModelTokenizer> gpt2Tokenizer(const GgufFile& file,
                                              const std::vector<std::string>& tokens,
                                              const std::vector<std::int64_t>& types) {
  bpe::BpeData data;
  data.origin = file.path().filename().string();
  const std::string pre = file.string("tokenizer.ggml.pre").value_or("gpt-2");
  bool known = pre == "gpt-2";
  for (const char* name : kDigitPre) {
    if (pre == name) known = data.split_digits = true;
  }
  for (const char* name : kLlama3Pre) {
    if (pre == name) {
      known = true;
      data.pattern = bpe::Pattern::kLlama3;
    }
  }
  for (const char* name : kQwen2Pre) {
    if (pre == name) {
      known = true;
      data.pattern = bpe::Pattern::kQwen2;
    }
  }
  if (!known) {
    throw Error(ErrorCode::kInvalidArgument,
                data.origin + ": tokenizer.ggml.pre \"" + pre +
                    "\" is not supported (supported: " + supportedGgufPreTokenizers() + ")");
  }
  data.vocab.reserve(tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    data.vocab[tokens[i]] = static_cast<int>(i);  // a repeated token keeps its last id
  }
  const std::vector<std::string> merges = file.strings("tokenizer.ggml.merges");
  if (!file.contains("tokenizer.ggml.merges")) {
    invalid(file, "missing tokenizer.ggml.merges (needed by a gpt2 tokenizer)");
  }
  std::string left, right;
  for (std::size_t i = 0; i < merges.size(); ++i) {
    const std::string where = data.origin + ": tokenizer.ggml.merges entry " + std::to_string(i);
    if (!bpe::splitMerge(merges[i], left, right)) {
      invalid(file, "tokenizer.ggml.merges entry " + std::to_string(i) + " is not \"a b\"");
    }
    bpe::addMerge(data, left, right, static_cast<int>(i), where);
  }
  for (std::size_t i = 0; i < types.size(); ++i) {
    if ((types[i] == kControl || types[i] == kUserDefined) && !tokens[i].empty()) {
      data.added.push_back({tokens[i], static_cast<int>(i), types[i] == kControl});
    }
  }
  specialIds(file, static_cast<int>(tokens.size()), false, data.prefix_ids, data.suffix_ids);
  return bpe::makeByteLevelBpe(std::move(data));
}

}  // namespace

std::string supportedGgufPreTokenizers() {
  std::string names = "gpt-2";
  for (const char* name : kDigitPre) names += std::string(", ") + name;
  for (const char* name : kLlama3Pre) names += std::string(", ") + name;
  for (const char* name : kQwen2Pre) names += std::string(", ") + name;
  return names;
}

std::unique_ptr<ModelTokenizer> loadGgufTokenizer(const GgufFile& file) {
  const std::string model = file.requireString("tokenizer.ggml.model");
  const std::vector<std::string> tokens = file.strings("tokenizer.ggml.tokens");
  if (tokens.empty()) invalid(file, "missing tokenizer.ggml.tokens (the file has no vocabulary)");
  std::vector<std::int64_t> types = file.integers("tokenizer.ggml.token_type");
  if (!types.empty() && types.size() != tokens.size()) {
    invalid(file, "tokenizer.ggml.token_type has " + std::to_string(types.size()) +
                      " entries for " + std::to_string(tokens.size()) + " tokens");
  }
  // llama.cpp appends the separator token after the text (rerankers); one text has none here.
  if (file.boolean("tokenizer.ggml.add_sep_token").value_or(false)) {
    throw Error(ErrorCode::kInvalidArgument,
                file.path().filename().string() +
                    ": tokenizer.ggml.add_sep_token = true is not supported (a separator after "
                    "the text)");
  }
  if (model == "gpt2") return gpt2Tokenizer(file, tokens, types);
  if (model == "llama") {
    spm::SpmData data;
    data.origin = file.path().filename().string();
    data.tokens = tokens;
    data.types = types;
    data.scores = file.numbers("tokenizer.ggml.scores");
    if (data.scores.size() != tokens.size()) {
      invalid(file, "tokenizer.ggml.scores has " + std::to_string(data.scores.size()) +
                        " entries for " + std::to_string(tokens.size()) + " tokens");
    }
    data.add_space_prefix = file.boolean("tokenizer.ggml.add_space_prefix").value_or(true);
    if (const auto unk = file.integer("tokenizer.ggml.unknown_token_id")) {
      data.unk_id = static_cast<int>(*unk);
    }
    specialIds(file, static_cast<int>(tokens.size()), true, data.prefix_ids, data.suffix_ids);
    return spm::makeSpmTokenizer(std::move(data));
  }
  throw Error(ErrorCode::kInvalidArgument, file.path().filename().string() +
                                               ": tokenizer.ggml.model \"" + model +
                                               "\" is not supported (gpt2 and llama are)");
}

}  // namespace attnlab
