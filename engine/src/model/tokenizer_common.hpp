#pragma once
/// \file tokenizer_common.hpp
/// Private to the engine: helpers shared by the pretrained models' tokenizers (WordPiece and
/// byte-level BPE) — file reading, UTF-8 encoding, and splitting special-token strings out of the
/// text before normalization, as HuggingFace tokenizers' AddedVocabulary does.

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/tokenizer.hpp"

namespace attnlab::model_text {

/// An inclusive range of code points.
struct CodeRange {
  char32_t first;
  char32_t last;
};

/// True when c lies in one of `ranges` (sorted, not overlapping).
template <std::size_t N>
bool inRanges(const CodeRange (&ranges)[N], char32_t c) {
  const auto it =
      std::upper_bound(std::begin(ranges), std::end(ranges), c,
                       [](char32_t value, const CodeRange& r) { return value < r.first; });
  return it != std::begin(ranges) && c <= std::prev(it)->last;
}

/// True when `head` (a file's first bytes) is a Git LFS pointer: the small text file
/// ("version https://git-lfs.github.com/spec/v1", oid, size) that a checkout holds in place of a
/// large file whose content was never fetched.
inline bool isGitLfsPointer(std::string_view head) {
  return head.substr(0, 23) == "version https://git-lfs";
}

/// The error for a model file that is a Git LFS pointer, naming the file; `what` says what the
/// real file holds ("the weights").
inline Error gitLfsPointerError(const std::filesystem::path& path, std::string_view what) {
  return Error(ErrorCode::kInvalidInput,
               path.filename().string() + ": this is a Git LFS pointer, not " + std::string(what) +
                   "; fetch the real file (git lfs pull in the model's repository)");
}

/// The whole file as bytes. Throws Error(kIo) naming the file when it cannot be opened or read;
/// `hint` (may be empty) is appended to tell the user what to do. Throws Error(kInvalidInput)
/// when the file is a Git LFS pointer.
inline std::string readFile(const std::filesystem::path& path, std::string_view hint = {}) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string message = "cannot read " + path.string();
    if (!hint.empty()) message += ": " + std::string(hint);
    throw Error(ErrorCode::kIo, message);
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(ErrorCode::kIo, "error while reading " + path.string());
  std::string content = std::move(buffer).str();
  if (isGitLfsPointer(content)) throw gitLfsPointerError(path, "the file's content");
  return content;
}

/// Appends the UTF-8 encoding of code point c (assumed valid: not a surrogate, <= U+10FFFF).
inline void appendUtf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

/// Number of bytes of code point c in UTF-8.
inline std::size_t utf8Length(char32_t c) {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/// Decodes the text a tokenizer is given. Throws Error(kInvalidInput) "invalid UTF-8 at byte
/// offset N (reason)", prefixed with "second text: " when `is_pair` (the pair's second text).
inline std::u32string decodeInput(std::string_view text, bool is_pair) {
  if (!is_pair) return decodeUtf8(text);
  try {
    return decodeUtf8(text);
  } catch (const Error& e) {
    throw Error(e.code(), std::string("second text: ") + e.what());
  }
}

/// A piece of the input: bytes [begin, end); `special` is the index of the special token the
/// piece is, or -1 for ordinary text.
struct Segment {
  std::size_t begin = 0;
  std::size_t end = 0;
  int special = -1;
};

/// Splits valid UTF-8 text into ordinary text and occurrences of the `specials` strings, matched
/// exactly (case-sensitive) leftmost-first, the longest special at a position winning — the
/// matching HuggingFace tokenizers applies to added tokens before normalization. Empty special
/// strings are ignored. Ordinary segments are never empty.
inline std::vector<Segment> splitSpecials(std::string_view text,
                                          const std::vector<std::string>& specials) {
  std::vector<Segment> out;
  bool first_byte[256] = {};
  for (const auto& s : specials) {
    if (!s.empty()) first_byte[static_cast<unsigned char>(s[0])] = true;
  }
  std::size_t plain_begin = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    int best = -1;
    if (first_byte[static_cast<unsigned char>(text[i])]) {
      for (std::size_t k = 0; k < specials.size(); ++k) {
        const std::string& s = specials[k];
        if (s.empty() || text.compare(i, s.size(), s) != 0) continue;
        if (best < 0 || s.size() > specials[static_cast<std::size_t>(best)].size()) {
          best = static_cast<int>(k);
        }
      }
    }
    if (best < 0) {
      ++i;
      continue;
    }
    if (plain_begin < i) out.push_back({plain_begin, i, -1});
    const std::size_t end = i + specials[static_cast<std::size_t>(best)].size();
    out.push_back({i, end, best});
    i = end;
    plain_begin = end;
  }
  if (plain_begin < text.size()) out.push_back({plain_begin, text.size(), -1});
  return out;
}

}  // namespace attnlab::model_text
