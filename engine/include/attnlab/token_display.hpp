#pragma once
/// \file token_display.hpp
/// Labels that let a reader read a tokenized text, whatever the tokenizer cut.
///
/// A byte-level tokenizer (GPT-2's BPE, SmolLM2's, SentencePiece's byte fallback) works on UTF-8
/// bytes, so one token may hold only part of a character: SmolLM2 cuts "我" (E6 88 91) into the
/// tokens E6 88 and 91. Encoding::labels shows such a token's bytes as "\xE6\x88", which is
/// true but unreadable. The display label of a token reads the bytes of the whole text instead:
///
/// - a character split across tokens is written once, on the token that completes it (the first
///   position that has read the whole character, the row of a causal model that "knows" it);
/// - "⋯" (U+22EF, MIDLINE HORIZONTAL ELLIPSIS, not the "…" a text itself uses) stands at a
///   token's edge where a character is cut: at its end when the next token continues a character,
///   at its start when it continues one from the previous token;
/// - a token holding nothing but part of one character is "⋯".
///
/// So "我" in two tokens reads "⋯", "⋯我"; split 1 + 1 + 1 it reads "⋯", "⋯", "⋯我"; a token
/// holding "我" and the first byte of "爱" reads "我⋯", the next one "⋯爱". Reading the labels in
/// order with the ⋯ left out gives the text. Tokens without a cut character keep their own label
/// (ASCII, "␣", special tokens, WordPiece's "##ing" unchanged); bytes that never make a valid
/// character stay "\xNN".

#include <string>
#include <string_view>
#include <vector>

#include "attnlab/model_tokenizer.hpp"

namespace attnlab {

/// The marker at a token's edge where a character is cut: "⋯" (U+22EF).
inline constexpr std::string_view kCutMarker = "\u22EF";

/// A character that a token holds only some bytes of.
struct CharacterPiece {
  /// The whole character as a label shows it ("我"); "" when its bytes never complete (a
  /// predicted token that starts a character the next token would finish).
  std::string character;
  int part = 1;       ///< Which of the tokens holding the character this one is, from 1.
  int parts = 0;      ///< How many tokens hold the character (≥ 2); 0 when it never completes.
  std::string bytes;  ///< This token's bytes of the character.
};

/// How one token is shown.
struct TokenDisplay {
  std::string label;  ///< The display label (see the file comment), UTF-8.
  /// The cut characters this token holds part of, in byte order: at most two (one continued
  /// from the previous token, one continued by the next); empty for a token of whole characters.
  std::vector<CharacterPiece> pieces;
};

/// The display of every token of one text. bytes[i] are the UTF-8 bytes token i stands for
/// (Encoding::bytes), labels[i] its own label (Encoding::labels), opaque[i] true for a token
/// that is not text (a special token: its label is kept and no character crosses it).
/// n tokens in, n out. When bytes or opaque has another length than labels (an encoding made
/// from ids alone), every token keeps its label.
std::vector<TokenDisplay> displayTokens(const std::vector<std::string>& bytes,
                                        const std::vector<std::string>& labels,
                                        const std::vector<bool>& opaque);

/// displayTokens of an encoding: its bytes, labels and special flags.
std::vector<TokenDisplay> displayTokens(const Encoding& encoding);

/// The display of one token on its own (a next-token prediction): whole characters as the
/// label shows them, a character it only starts as a piece with parts = 0 and its label "⋯" at
/// the end; continuation bytes with nothing before them stay "\xNN". A token without cut
/// characters keeps `label`.
TokenDisplay displayToken(std::string_view bytes, const std::string& label);

/// The readable label of raw bytes, Encoding::labels' rules for byte-level tokens: printable
/// ASCII and whole valid UTF-8 characters as themselves, a space "␣" (U+2423), a newline "↵"
/// (U+21B5), a tab "⇥" (U+21E5), other control characters (C0, DEL, C1) and bytes that are not
/// a whole valid character "\xNN" (upper case hex). Never U+FFFD.
std::string byteLabel(std::string_view bytes);

/// Bytes as upper-case hex pairs separated by spaces: "E6 88".
std::string hexBytes(std::string_view bytes);

}  // namespace attnlab
