#pragma once
/// \file tokenizer.hpp
/// The synthetic mode's tokenizer: deterministic, UTF-8 safe, no vocabulary.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

/// One token of the input text.
struct Token {
  std::string text;           ///< The token's UTF-8 bytes, exactly as in the input.
  std::size_t byte_begin = 0; ///< Offset of the first byte in the input, in bytes.
  std::size_t byte_end = 0;   ///< One past the last byte, in bytes.
  std::size_t char_begin = 0; ///< Offset of the first code point, in Unicode code points.
  std::size_t char_end = 0;   ///< One past the last code point, in code points.
};

/// Splits UTF-8 text into tokens for the synthetic lab:
/// - runs of letters, digits, marks and connector punctuation form a word ("don" "'" "t" are
///   split at the apostrophe; "tired." gives "tired" and ".");
/// - every other punctuation or symbol code point is a token of its own, so markup-like text such
///   as `a<b<c` is five tokens and is never interpreted;
/// - each CJK ideograph (and each kana / hangul syllable) is one token;
/// - emoji and other multi-code-point sequences stay whole: ZWJ sequences, variation selectors,
///   skin-tone modifiers, keycaps, regional-indicator flag pairs and tag sequences;
/// - white space (Unicode White_Space, incl. U+00A0 and U+3000) separates tokens and is dropped;
///   so are control characters and U+200B ZERO WIDTH SPACE. Invisible format characters (soft
///   hyphen, ZWNJ, bidi marks, BOM) stay attached to the preceding character; with none before
///   them (a leading U+FEFF, one after white space) they are a token of their own, so every
///   other character of the text is in some token.
/// Returns the tokens in input order with byte and code-point offsets; empty or white-space-only
/// input gives an empty vector (callers decide whether that is an error). Letter classification
/// is exact for the major scripts and approximated block by block for minor ones.
/// Throws Error(kInvalidInput) with a message "invalid UTF-8 at byte offset N (reason)", N being
/// the offset of the first byte of the first invalid sequence (stray continuation bytes, overlong
/// forms, surrogates, values above U+10FFFF, truncated sequences, bytes C0, C1, F5..FF).
std::vector<Token> tokenize(std::string_view utf8);

/// Decodes UTF-8 into code points. Throws Error(kInvalidInput) naming the byte offset of the first
/// invalid sequence.
std::u32string decodeUtf8(std::string_view utf8);

}  // namespace attnlab
