#pragma once
/// \file pretokenize.hpp
/// Private to the engine: the regular-expression pre-tokenizers of byte-level BPE tokenizers,
/// implemented by hand (every position of the text starts a match, so one left-to-right scan
/// reproduces the regex), with letters and numbers from utf8proc's general categories and \s the
/// White_Space property.

#include <cstddef>
#include <string>

namespace attnlab::pretok {

/// Character classes of the patterns.
enum class CharClass { kLetter, kNumber, kSpace, kOther };

/// \p{L}, \p{N}, \s or anything else, as HuggingFace tokenizers' regex engine classifies c.
CharClass classify(char32_t c);

/// Length in code points of the pre-token starting at cps[i] under GPT-2's pattern
///   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
std::size_t gpt2Length(const std::u32string& cps, std::size_t i);

/// Length in code points of the pre-token starting at cps[i] under Llama 3's pattern
/// (llama.cpp's LLAMA_VOCAB_PRE_TYPE_LLAMA3; tokenizer.json Split of Llama 3)
///   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|
///   \s*[\r\n]+|\s+(?!\S)|\s+
/// With max_digits = 1 it is Qwen2's pattern (its tokenizer.json's Split; llama.cpp's
/// LLAMA_VOCAB_PRE_TYPE_QWEN2), the same with \p{N} for \p{N}{1,3}.
std::size_t llama3Length(const std::u32string& cps, std::size_t i, std::size_t max_digits = 3);

}  // namespace attnlab::pretok
