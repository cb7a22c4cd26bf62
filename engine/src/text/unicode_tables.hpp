#pragma once
/// \file unicode_tables.hpp
/// Private to the engine: compact Unicode classification used by the tokenizer.
///
/// Every predicate is a binary search over a sorted table of inclusive code-point ranges (or a
/// constant-time test). The tables favour compactness over completeness:
/// - White_Space, Regional_Indicator, Emoji_Modifier, variation selectors, tags and the Hangul
///   syllable arithmetic are exact (Unicode 15).
/// - Extended_Pictographic follows the Unicode 15 emoji-data ranges closely, with unassigned
///   code points in the emoji blocks included (as the property itself does).
/// - Letters and digits are exact for Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, Thai,
///   Georgian, the fullwidth forms and the common CJK scripts. Other scripts (the Brahmic scripts
///   after Devanagari, Ethiopic, most historic scripts in planes 1) are covered block by block,
///   so a few symbols or punctuation marks inside those blocks count as letters, and mathematical
///   alphanumerics (U+1D400..1D7FF) count as letters wholesale. Superscript and subscript digits,
///   Roman numerals and similar letter-like numbers count as digits; fractions do not.
/// - Combining marks are exact for the general-purpose combining blocks and for Hebrew, Arabic,
///   Devanagari, Bengali, Thai, Lao, Tibetan and Myanmar. Marks inside other script blocks are
///   classified as letters by isLetterOrDigit, which gives the same tokenization for text written
///   in those scripts.

namespace attnlab::unicode {

/// U+200D ZERO WIDTH JOINER: glues emoji into one ZWJ sequence.
inline constexpr char32_t kZeroWidthJoiner = 0x200D;
/// U+200B ZERO WIDTH SPACE: not White_Space, but a word separator in practice.
inline constexpr char32_t kZeroWidthSpace = 0x200B;
/// U+FE0F VARIATION SELECTOR-16: requests emoji presentation of the preceding character.
inline constexpr char32_t kEmojiPresentation = 0xFE0F;
/// U+20E3 COMBINING ENCLOSING KEYCAP: ends a keycap sequence such as 1 FE0F 20E3.
inline constexpr char32_t kEnclosingKeycap = 0x20E3;

/// The Hangul_Syllable_Type of a code point, used to keep conjoining jamo together.
enum class HangulType {
  kNone,  ///< Not a Hangul jamo or syllable.
  kL,     ///< Leading consonant (choseong) jamo.
  kV,     ///< Vowel (jungseong) jamo.
  kT,     ///< Trailing consonant (jongseong) jamo.
  kLv,    ///< Precomposed syllable without a trailing consonant.
  kLvt,   ///< Precomposed syllable with a trailing consonant.
};

/// True for the Unicode White_Space property (ASCII blanks, NEL, NBSP, U+1680, U+2000..200A,
/// line/paragraph separators, U+202F, U+205F and the ideographic space U+3000).
bool isWhiteSpace(char32_t c);

/// True for control characters (general category Cc) that are not White_Space.
bool isControl(char32_t c);

/// True for invisible format characters that attach to the preceding character (soft hyphen,
/// ZWNJ, bidi marks and embeddings, word joiner, invisible operators, BOM, interlinear annotation
/// marks, U+E0001 LANGUAGE TAG). Excludes ZWJ, ZWSP, tags and variation selectors, which have
/// predicates or constants of their own.
bool isFormat(char32_t c);

/// True for letters (L*) and decimal digits (Nd), plus letter-like numbers (Nl) and superscript /
/// subscript digits. Includes ideographs, kana and hangul; approximated block by block for minor
/// scripts (see the file comment).
bool isLetterOrDigit(char32_t c);

/// True for combining marks (Mn, Mc, Me) in the covered blocks, including U+20E3. Excludes the
/// variation selectors (see isVariationSelector).
bool isMark(char32_t c);

/// True for connector punctuation (Pc): the underscore and its relatives.
bool isConnectorPunctuation(char32_t c);

/// True for characters that are always a token of their own: CJK unified and compatibility
/// ideographs (all extensions), ideographic iteration and number marks, Hiragana, Katakana
/// (including halfwidth and the kana supplements), Hangul syllables and jamo (including the
/// compatibility and halfwidth jamo), and the other ideographic scripts (Tangut, Khitan, Nushu).
bool isCjk(char32_t c);

/// True for Extended_Pictographic code points: the characters that can be emoji (pictographs,
/// dingbats, ©, ®, ™, ‼, arrows used as emoji ...). Excludes regional indicators and skin-tone
/// modifiers, which have predicates of their own.
bool isEmoji(char32_t c);

/// True for the skin-tone modifiers U+1F3FB..1F3FF.
bool isEmojiModifier(char32_t c);

/// True for the regional indicator symbols U+1F1E6..1F1FF (flag halves).
bool isRegionalIndicator(char32_t c);

/// True for variation selectors: U+FE00..FE0F and U+E0100..E01EF (plus the Mongolian free
/// variation selectors U+180B..180D and U+180F).
bool isVariationSelector(char32_t c);

/// True for the tag characters U+E0020..E007F used in emoji tag sequences (subdivision flags).
bool isTag(char32_t c);

/// The Hangul_Syllable_Type of c (exact).
HangulType hangulType(char32_t c);

}  // namespace attnlab::unicode
