/// \file tokenizer.cpp
/// Strict UTF-8 decoding and the synthetic lab's vocabulary-free tokenizer.
///
/// Tokenizing runs in two passes over the decoded code points:
/// 1. Clusters: each non-space character is gathered with what attaches to it — combining marks,
///    variation selectors, invisible format characters, tag characters, skin-tone modifiers
///    (after an emoji), emoji joined by ZWJ, the second half of a regional-indicator pair, and
///    conjoining Hangul jamo. This is a simplified form of the extended grapheme clusters of
///    UAX #29.
/// 2. Tokens: consecutive word clusters (letters, digits, marks, connector punctuation) merge
///    into one token; every other cluster (punctuation, symbols, emoji, flags, keycaps,
///    ideographs, kana, hangul) is a token of its own; spacing clusters are dropped.

#include "attnlab/tokenizer.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attnlab/error.hpp"
#include "text/unicode_tables.hpp"

namespace attnlab {
namespace {

[[noreturn]] void throwInvalidUtf8(std::size_t offset, const char* reason) {
  throw Error(ErrorCode::kInvalidInput,
              "invalid UTF-8 at byte offset " + std::to_string(offset) + " (" + reason + ")");
}

bool isContinuation(unsigned char b) { return (b & 0xC0) == 0x80; }

/// Strict decoder (Unicode Table 3-7 "Well-Formed UTF-8 Byte Sequences"). When `offsets` is
/// given, it receives the byte offset of each code point plus the input length.
std::u32string decodeStrict(std::string_view utf8, std::vector<std::size_t>* offsets) {
  std::u32string out;
  out.reserve(utf8.size());
  if (offsets != nullptr) {
    offsets->clear();
    offsets->reserve(utf8.size() + 1);
  }
  const std::size_t n = utf8.size();
  std::size_t i = 0;
  while (i < n) {
    const auto lead = static_cast<unsigned char>(utf8[i]);
    std::size_t length = 0;
    char32_t value = 0;
    // The allowed range of the second byte narrows for E0, ED, F0 and F4; this is what rules out
    // overlong forms, surrogates and values above U+10FFFF.
    unsigned char second_lo = 0x80;
    unsigned char second_hi = 0xBF;
    if (lead < 0x80) {
      length = 1;
      value = lead;
    } else if (lead < 0xC0) {
      throwInvalidUtf8(i, "unexpected continuation byte");
    } else if (lead < 0xC2) {
      throwInvalidUtf8(i, "overlong encoding");
    } else if (lead < 0xE0) {
      length = 2;
      value = lead & 0x1F;
    } else if (lead < 0xF0) {
      length = 3;
      value = lead & 0x0F;
      if (lead == 0xE0) second_lo = 0xA0;
      if (lead == 0xED) second_hi = 0x9F;
    } else if (lead < 0xF5) {
      length = 4;
      value = lead & 0x07;
      if (lead == 0xF0) second_lo = 0x90;
      if (lead == 0xF4) second_hi = 0x8F;
    } else {
      throwInvalidUtf8(i, "byte 0xF5..0xFF never appears in UTF-8");
    }

    for (std::size_t k = 1; k < length; ++k) {
      if (i + k >= n) throwInvalidUtf8(i, "truncated sequence at end of input");
      const auto b = static_cast<unsigned char>(utf8[i + k]);
      if (!isContinuation(b)) throwInvalidUtf8(i, "missing continuation byte");
      if (k == 1 && (b < second_lo || b > second_hi)) {
        if (lead == 0xED) throwInvalidUtf8(i, "surrogate code point");
        if (lead == 0xF4) throwInvalidUtf8(i, "code point above U+10FFFF");
        throwInvalidUtf8(i, "overlong encoding");
      }
      value = (value << 6) | (b & 0x3F);
    }

    out.push_back(value);
    if (offsets != nullptr) offsets->push_back(i);
    i += length;
  }
  if (offsets != nullptr) offsets->push_back(n);
  return out;
}

/// How a cluster takes part in tokenization.
enum class ClusterKind {
  kSkip,    ///< White space, controls, ZWSP.
  kWord,    ///< Letters, digits, marks, connector punctuation: merges with neighbouring words.
  kSingle,  ///< Anything else: a token of its own.
};

/// A cluster: code points [begin, end) of the decoded input.
struct Cluster {
  std::size_t begin;
  std::size_t end;
  ClusterKind kind;
};

/// Characters that attach to whatever precedes them (within a cluster).
bool isExtender(char32_t c) {
  return unicode::isMark(c) || unicode::isVariationSelector(c) || unicode::isFormat(c) ||
         unicode::isTag(c) || c == unicode::kZeroWidthJoiner;
}

bool isWordChar(char32_t c) {
  return unicode::isLetterOrDigit(c) || unicode::isMark(c) || unicode::isConnectorPunctuation(c);
}

/// May a Hangul character of type `next` continue a syllable whose last character is `prev`?
bool hangulContinues(unicode::HangulType prev, unicode::HangulType next) {
  using unicode::HangulType;
  switch (prev) {
    case HangulType::kL:
      return next == HangulType::kL || next == HangulType::kV || next == HangulType::kLv ||
             next == HangulType::kLvt;
    case HangulType::kV:
    case HangulType::kLv:
      return next == HangulType::kV || next == HangulType::kT;
    case HangulType::kT:
    case HangulType::kLvt:
      return next == HangulType::kT;
    case HangulType::kNone:
      return false;
  }
  return false;
}

/// The cluster starting at code point `start`.
Cluster nextCluster(const std::u32string& cps, std::size_t start) {
  const std::size_t n = cps.size();
  const char32_t base = cps[start];
  // An extender with nothing before it to attach to (a leading U+FEFF, a ZWJ after a space) is
  // kept as a token of its own with the extenders after it: the text's bytes all reach a token.
  if (unicode::isWhiteSpace(base) || unicode::isControl(base) || base == unicode::kZeroWidthSpace) {
    return {start, start + 1, ClusterKind::kSkip};
  }

  std::size_t j = start + 1;
  const bool pictographic = unicode::isEmoji(base);
  if (unicode::isRegionalIndicator(base)) {
    // Flags are pairs: the first two indicators of a run form one flag, the next two another.
    if (j < n && unicode::isRegionalIndicator(cps[j])) ++j;
  } else if (auto type = unicode::hangulType(base); type != unicode::HangulType::kNone) {
    while (j < n) {
      const auto next = unicode::hangulType(cps[j]);
      if (!hangulContinues(type, next)) break;
      type = next;
      ++j;
    }
  }

  bool emoji_presentation = false;  // FE0F or a keycap: the cluster is an emoji, not a word
  while (j < n) {
    const char32_t c = cps[j];
    if (c == unicode::kZeroWidthJoiner) {
      ++j;
      // Emoji ZWJ sequence: pictograph (extenders) ZWJ pictograph ...
      if (pictographic && j < n && unicode::isEmoji(cps[j])) ++j;
    } else if (isExtender(c)) {
      if (c == unicode::kEmojiPresentation || c == unicode::kEnclosingKeycap) {
        emoji_presentation = true;
      }
      ++j;
    } else if (pictographic && unicode::isEmojiModifier(c)) {
      ++j;
    } else {
      break;
    }
  }

  ClusterKind kind = ClusterKind::kSingle;
  if (!pictographic && !emoji_presentation && !unicode::isCjk(base) && isWordChar(base)) {
    kind = ClusterKind::kWord;
  }
  return {start, j, kind};
}

}  // namespace

std::u32string decodeUtf8(std::string_view utf8) { return decodeStrict(utf8, nullptr); }

std::vector<Token> tokenize(std::string_view utf8) {
  std::vector<std::size_t> offsets;
  const std::u32string cps = decodeStrict(utf8, &offsets);

  std::vector<Token> tokens;
  auto emit = [&](std::size_t begin, std::size_t end) {
    Token token;
    token.byte_begin = offsets[begin];
    token.byte_end = offsets[end];
    token.char_begin = begin;
    token.char_end = end;
    token.text = std::string(utf8.substr(token.byte_begin, token.byte_end - token.byte_begin));
    tokens.push_back(std::move(token));
  };

  bool in_word = false;
  std::size_t word_begin = 0;
  std::size_t i = 0;
  while (i < cps.size()) {
    const Cluster cluster = nextCluster(cps, i);
    if (cluster.kind == ClusterKind::kWord) {
      if (!in_word) {
        in_word = true;
        word_begin = cluster.begin;
      }
    } else {
      if (in_word) {
        emit(word_begin, cluster.begin);
        in_word = false;
      }
      if (cluster.kind == ClusterKind::kSingle) emit(cluster.begin, cluster.end);
    }
    i = cluster.end;
  }
  if (in_word) emit(word_begin, cps.size());
  return tokens;
}

}  // namespace attnlab
