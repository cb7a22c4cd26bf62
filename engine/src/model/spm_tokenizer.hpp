#pragma once
/// \file spm_tokenizer.hpp
/// Private to the engine: SentencePiece-style BPE as GGUF files with tokenizer.ggml.model =
/// "llama" describe it (Llama 2, TinyLlama). See loadGgufTokenizer in model_tokenizer.hpp.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/model_tokenizer.hpp"

namespace attnlab::spm {

/// Everything the tokenizer is built from: token i is tokens[i] with score scores[i] and
/// llama.cpp token type types[i] (may be empty: all normal).
struct SpmData {
  std::vector<std::string> tokens;
  std::vector<double> scores;
  std::vector<std::int64_t> types;
  bool add_space_prefix = true;  ///< "▁" before the text and after each special token.
  int unk_id = -1;               ///< For bytes without a <0xNN> token; -1: dropped.
  std::vector<int> prefix_ids;   ///< BOS.
  std::vector<int> suffix_ids;   ///< EOS.
  std::string origin;            ///< The file, for errors.
};

std::unique_ptr<ModelTokenizer> makeSpmTokenizer(SpmData data);

}  // namespace attnlab::spm
