/// \file pretokenize.cpp
/// The pre-tokenizer patterns of byte-level BPE (see pretokenize.hpp). GPT-2's was checked against
/// HuggingFace tokenizers 0.23.3 on every code point and 200 000 random texts (see
/// byte_level_bpe.cpp); Llama 3's against tokenizers 0.21.4's Split with the same regex on
/// random texts of letters in both cases, digits, apostrophes, \r\n and other white space,
/// punctuation, CJK and emoji (tests/reference/check_llama3_pretokenizer.py).

#include "model/pretokenize.hpp"

#include <utf8proc.h>

#include "model/tokenizer_common.hpp"
#include "text/unicode_tables.hpp"

namespace attnlab::pretok {
namespace {

using model_text::CodeRange;
using model_text::inRanges;

// Letters and numbers assigned in Unicode 16.0, which HuggingFace tokenizers' regex engine
// (Oniguruma in tokenizers 0.23.3) knows and utf8proc 2.8 (Unicode 15.0) sees as unassigned.
// Found by classifying every code point with both (byte_level_bpe.cpp's file comment); a newer
// utf8proc classifies them itself. Sorted, for binary search.
constexpr CodeRange kNewLetters[] = {
    {0x1C89, 0x1C8A},   {0xA7CB, 0xA7CD},   {0xA7DA, 0xA7DC},   {0x105C0, 0x105F3},
    {0x10D4A, 0x10D65}, {0x10D6F, 0x10D85}, {0x10EC2, 0x10EC4}, {0x11380, 0x11389},
    {0x1138B, 0x1138B}, {0x1138E, 0x1138E}, {0x11390, 0x113B5}, {0x113B7, 0x113B7},
    {0x113D1, 0x113D1}, {0x113D3, 0x113D3}, {0x11BC0, 0x11BE0}, {0x13460, 0x143FA},
    {0x16100, 0x1611D}, {0x16D40, 0x16D6C}, {0x18CFF, 0x18CFF}, {0x1E5D0, 0x1E5ED},
    {0x1E5F0, 0x1E5F0}, {0x2EBF0, 0x2EE5D},
};
constexpr CodeRange kNewNumbers[] = {
    {0x10D40, 0x10D49}, {0x116D0, 0x116E3}, {0x11BF0, 0x11BF9}, {0x16130, 0x16139},
    {0x16D70, 0x16D79}, {0x1CCF0, 0x1CCF9}, {0x1E5F1, 0x1E5FA},
};

}  // namespace

CharClass classify(char32_t c) {
  if (unicode::isWhiteSpace(c)) return CharClass::kSpace;
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  if (cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO) return CharClass::kLetter;
  if (cat >= UTF8PROC_CATEGORY_ND && cat <= UTF8PROC_CATEGORY_NO) return CharClass::kNumber;
  if (cat == UTF8PROC_CATEGORY_CN) {
    if (inRanges(kNewLetters, c)) return CharClass::kLetter;
    if (inRanges(kNewNumbers, c)) return CharClass::kNumber;
  }
  return CharClass::kOther;
}

std::size_t gpt2Length(const std::u32string& cps, std::size_t i) {
  const std::size_t n = cps.size();
  const char32_t c = cps[i];
  // 's|'t|'re|'ve|'m|'ll|'d (ASCII apostrophe, lower case only)
  if (c == U'\'' && i + 1 < n) {
    const char32_t d = cps[i + 1];
    if (d == U's' || d == U't' || d == U'm' || d == U'd') return 2;
    if (i + 2 < n) {
      const char32_t e = cps[i + 2];
      if ((d == U'r' && e == U'e') || (d == U'v' && e == U'e') || (d == U'l' && e == U'l')) {
        return 3;
      }
    }
  }
  // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+': an optional space, then a run of one class.
  std::size_t k = i;
  if (c == U' ' && i + 1 < n && classify(cps[i + 1]) != CharClass::kSpace) k = i + 1;
  const CharClass cls = classify(cps[k]);
  if (cls != CharClass::kSpace) {
    std::size_t j = k + 1;
    while (j < n && classify(cps[j]) == cls) ++j;
    return j - i;
  }
  // '\s+(?!\S)|\s+': a run of white space; when a non-space follows, the run gives up its last
  // character (which then starts the next pre-token) unless that leaves nothing.
  std::size_t j = i + 1;
  while (j < n && classify(cps[j]) == CharClass::kSpace) ++j;
  if (j == n || j - i == 1) return j - i;
  return j - i - 1;
}

namespace {

bool isNewline(char32_t c) { return c == U'\r' || c == U'\n'; }

/// ASCII case folding, plus U+017F (ſ), which folds to 's' under Unicode case-insensitivity.
char32_t fold(char32_t c) {
  if (c >= U'A' && c <= U'Z') return c + 32;
  return c == U'\u017F' ? U's' : c;
}

}  // namespace

std::size_t llama3Length(const std::u32string& cps, std::size_t i, std::size_t max_digits) {
  const std::size_t n = cps.size();
  const char32_t c = cps[i];
  // (?i:'s|'t|'re|'ve|'m|'ll|'d)
  if (c == U'\'' && i + 1 < n) {
    const char32_t d = fold(cps[i + 1]);
    if (d == U's' || d == U't' || d == U'm' || d == U'd') return 2;
    if (i + 2 < n) {
      const char32_t e = fold(cps[i + 2]);
      if ((d == U'r' && e == U'e') || (d == U'v' && e == U'e') || (d == U'l' && e == U'l')) {
        return 3;
      }
    }
  }
  const CharClass cls = classify(c);
  auto run = [&](std::size_t j, CharClass k) {
    while (j < n && classify(cps[j]) == k) ++j;
    return j;
  };
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (cls == CharClass::kLetter) return run(i + 1, CharClass::kLetter) - i;
  if (!isNewline(c) && cls != CharClass::kNumber && i + 1 < n &&
      classify(cps[i + 1]) == CharClass::kLetter) {
    return run(i + 2, CharClass::kLetter) - i;
  }
  // \p{N}{1,3} (Qwen2: \p{N})
  if (cls == CharClass::kNumber) {
    std::size_t j = i + 1;
    while (j < n && j - i < max_digits && classify(cps[j]) == CharClass::kNumber) ++j;
    return j - i;
  }
  // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
  std::size_t k = i;
  if (c == U' ' && i + 1 < n && classify(cps[i + 1]) == CharClass::kOther) k = i + 1;
  if (classify(cps[k]) == CharClass::kOther) {
    std::size_t j = run(k + 1, CharClass::kOther);
    while (j < n && isNewline(cps[j])) ++j;
    return j - i;
  }
  // c is white space here. \s*[\r\n]+: the run up to its last newline.
  const std::size_t end = run(i + 1, CharClass::kSpace);
  for (std::size_t j = end; j > i; --j) {
    if (isNewline(cps[j - 1])) return j - i;
  }
  // \s+(?!\S)|\s+
  if (end == n || end - i == 1) return end - i;
  return end - i - 1;
}

}  // namespace attnlab::pretok
