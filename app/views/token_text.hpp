#pragma once
/// \file token_text.hpp
/// Tokens named in words: what a hover and the next-token line say of a token that holds only
/// part of a UTF-8 character (a byte-level tokenizer's cut, attnlab/token_display.hpp).

#include <QString>

#include "attnlab/token_display.hpp"

namespace attnlab::views {

/// The pieces of cut characters a token holds, translated: "我 (part 1 of 2: E6 88)" (the
/// character, which of the tokens holding it this one is, this token's bytes in hex); two pieces
/// joined by " · "; a character a predicted token only starts: "start of a character: EF BC";
/// empty for a token of whole characters.
QString characterPartsText(const TokenDisplay& display);

/// A token as a hover names it: its label in quotes, then characterPartsText when it holds part
/// of a character: "'⋯' 我 (part 1 of 2: E6 88)". `display` may be null (the synthetic lab).
QString hoverTokenText(const QString& label, const TokenDisplay* display);

}  // namespace attnlab::views
