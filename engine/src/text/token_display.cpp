/// \file token_display.cpp
/// Display labels of tokens that cut UTF-8 characters (see attnlab/token_display.hpp).

#include "attnlab/token_display.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {
namespace {

constexpr const char* kHexDigits = "0123456789ABCDEF";

/// The length of the UTF-8 sequence a lead byte starts (2–4), or 0 for a byte that starts none,
/// with the allowed range of the second byte (RFC 3629: no overlong forms, no surrogates, nothing
/// past U+10FFFF).
std::size_t sequenceLength(unsigned char lead, unsigned char& lo, unsigned char& hi) {
  lo = 0x80;
  hi = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) {
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
    return 3;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
    return 4;
  }
  return 0;
}

/// How many bytes of bytes[i..] continue the sequence whose lead is bytes[i] validly (1 = the lead
/// alone), at most its length; `length` receives the sequence's length (0: no lead byte).
std::size_t validBytes(std::string_view bytes, std::size_t i, std::size_t& length) {
  unsigned char lo = 0, hi = 0;
  length = sequenceLength(static_cast<unsigned char>(bytes[i]), lo, hi);
  if (length == 0) return 0;
  std::size_t k = 1;
  for (; k < length && i + k < bytes.size(); ++k) {
    const auto b = static_cast<unsigned char>(bytes[i + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) break;
  }
  return k;
}

void appendHex(std::string& out, unsigned char b) {
  out += "\\x";
  out.push_back(kHexDigits[b >> 4]);
  out.push_back(kHexDigits[b & 0xF]);
}

/// One unit of a text's bytes: a whole character, an invalid byte, or (open end) the valid start
/// of a character the bytes stop inside.
struct Unit {
  std::size_t begin = 0, end = 0;
  bool character = false;  ///< A whole valid character (or an ASCII byte).
  bool open = false;       ///< The start of a character that does not complete.
};

/// Splits bytes into units. With `open_end`, a valid but unfinished sequence at the end is one
/// open unit; otherwise its bytes are invalid units of one byte each.
std::vector<Unit> units(std::string_view bytes, bool open_end) {
  std::vector<Unit> out;
  std::size_t i = 0;
  while (i < bytes.size()) {
    if (static_cast<unsigned char>(bytes[i]) < 0x80) {
      out.push_back({i, i + 1, true, false});
      ++i;
      continue;
    }
    std::size_t length = 0;
    const std::size_t valid = validBytes(bytes, i, length);
    if (length > 0 && valid == length) {
      out.push_back({i, i + length, true, false});
      i += length;
    } else if (length > 0 && open_end && i + valid == bytes.size()) {
      out.push_back({i, bytes.size(), false, true});
      i = bytes.size();
    } else {
      out.push_back({i, i + 1, false, false});
      ++i;
    }
  }
  return out;
}

/// What one token holds, in byte order: runs of whole bytes (shown by byteLabel) and pieces of
/// cut characters.
struct Item {
  std::string whole;  ///< Bytes of whole characters and invalid bytes (piece < 0).
  int piece = -1;     ///< Index into the token's pieces, or −1.
};

/// A token's label from its items (see the file comment of token_display.hpp).
std::string composeLabel(const std::vector<Item>& items,
                         const std::vector<CharacterPiece>& pieces) {
  std::string label;
  for (std::size_t k = 0; k < items.size(); ++k) {
    const Item& item = items[k];
    if (item.piece < 0) {
      label += byteLabel(item.whole);
      continue;
    }
    const CharacterPiece& p = pieces[static_cast<std::size_t>(item.piece)];
    const bool continues_before = p.part > 1;
    const bool completes = p.parts > 0 && p.part == p.parts;
    if (continues_before) label += kCutMarker;
    if (completes) label += p.character;
    // A cut at the end; a token that is only the middle of one character shows one marker.
    if (!completes && !(continues_before && items.size() == 1)) label += kCutMarker;
  }
  return label;
}

/// Appends bytes of whole characters to a token's items.
void appendWhole(std::vector<Item>& items, std::string_view bytes) {
  if (items.empty() || items.back().piece >= 0) items.push_back({});
  items.back().whole.append(bytes);
}

/// displayTokens over tokens [first, last) of one run of text tokens; `open_end` as for units.
void displayRun(const std::vector<std::string>& bytes, std::size_t first, std::size_t last,
                bool open_end, std::vector<TokenDisplay>& out) {
  std::string text;
  std::vector<std::size_t> owner;  // owner[b]: the token of byte b of text
  for (std::size_t t = first; t < last; ++t) {
    text += bytes[t];
    owner.insert(owner.end(), bytes[t].size(), t);
  }
  std::vector<std::vector<Item>> items(last - first);
  for (const Unit& u : units(text, open_end)) {
    const std::size_t t0 = owner[u.begin], t1 = owner[u.end - 1];
    const std::string_view unit_bytes = std::string_view(text).substr(u.begin, u.end - u.begin);
    if (t0 == t1 && !u.open) {
      appendWhole(items[t0 - first], unit_bytes);
      continue;
    }
    // A cut character (or one left open at the end): one piece per token holding its bytes.
    const std::string character = u.open ? std::string() : byteLabel(unit_bytes);
    const int parts = u.open ? 0 : static_cast<int>(t1 - t0 + 1);
    for (std::size_t t = t0; t <= t1; ++t) {
      CharacterPiece piece;
      piece.character = character;
      piece.part = static_cast<int>(t - t0 + 1);
      piece.parts = parts;
      for (std::size_t b = u.begin; b < u.end; ++b) {
        if (owner[b] == t) piece.bytes.push_back(text[b]);
      }
      TokenDisplay& d = out[t];
      items[t - first].push_back({{}, static_cast<int>(d.pieces.size())});
      d.pieces.push_back(std::move(piece));
    }
  }
  for (std::size_t t = first; t < last; ++t) {
    TokenDisplay& d = out[t];
    if (!d.pieces.empty()) d.label = composeLabel(items[t - first], d.pieces);
  }
}

}  // namespace

std::vector<TokenDisplay> displayTokens(const std::vector<std::string>& bytes,
                                        const std::vector<std::string>& labels,
                                        const std::vector<bool>& opaque) {
  std::vector<TokenDisplay> out(labels.size());
  for (std::size_t t = 0; t < labels.size(); ++t) out[t].label = labels[t];
  if (bytes.size() != labels.size() || opaque.size() != labels.size()) return out;
  std::size_t first = 0;
  for (std::size_t t = 0; t <= labels.size(); ++t) {
    if (t < labels.size() && !opaque[t]) continue;
    if (first < t) displayRun(bytes, first, t, false, out);
    first = t + 1;
  }
  return out;
}

std::vector<TokenDisplay> displayTokens(const Encoding& encoding) {
  return displayTokens(encoding.bytes, encoding.labels, encoding.special);
}

TokenDisplay displayToken(std::string_view bytes, const std::string& label) {
  std::vector<TokenDisplay> out(1);
  out[0].label = label;
  displayRun({std::string(bytes)}, 0, 1, true, out);
  return out[0];
}

std::string byteLabel(std::string_view bytes) {
  std::string out;
  for (const Unit& u : units(bytes, false)) {
    const auto b = static_cast<unsigned char>(bytes[u.begin]);
    if (!u.character) {
      appendHex(out, b);
    } else if (b == ' ') {
      out += "\u2423";
    } else if (b == '\n') {
      out += "\u21B5";
    } else if (b == '\t') {
      out += "\u21E5";
    } else if (b < 0x20 || b == 0x7F) {
      appendHex(out, b);
    } else if (b == 0xC2 && static_cast<unsigned char>(bytes[u.begin + 1]) < 0xA0) {
      // C1 control characters U+0080..009F: invisible, shown as hex.
      appendHex(out, b);
      appendHex(out, static_cast<unsigned char>(bytes[u.begin + 1]));
    } else {
      out.append(bytes.substr(u.begin, u.end - u.begin));
    }
  }
  return out;
}

std::string hexBytes(std::string_view bytes) {
  std::string out;
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (!out.empty()) out.push_back(' ');
    out.push_back(kHexDigits[b >> 4]);
    out.push_back(kHexDigits[b & 0xF]);
  }
  return out;
}

}  // namespace attnlab
