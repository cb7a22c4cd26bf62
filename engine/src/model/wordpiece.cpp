/// \file wordpiece.cpp
/// BERT's tokenizer (Devlin et al. 2019, §3; Wu et al. 2016, §4.1), reproducing HuggingFace
/// tokenizers' BertNormalizer + BertPreTokenizer + WordPiece + TemplateProcessing as configured
/// in BERT models' tokenizer.json:
/// 1. Special-token strings written in the text ([CLS], [SEP], [PAD], [UNK], [MASK]) are split
///    out first, matched exactly on the raw text (HF: added tokens with normalized = false).
/// 2. Normalization, in HF's order: clean text (drop U+0000, U+FFFD and "other" characters —
///    categories Cc, Cf, Co, Cs — except tab, newline and carriage return; map White_Space to
///    ' '), put spaces around CJK ideographs, strip accents (NFD, drop Mn), lower-case (simple
///    case mapping; U+0130 becomes "i" + U+0307 as Rust's char::to_lowercase gives).
/// 3. Pre-tokenization: split on white space, and isolate each punctuation character (ASCII
///    punctuation and the Unicode P* categories).
/// Categories come from utf8proc, corrected to HuggingFace's older tables (see kKeptFormat).
/// Checked against tokenizers 0.23.3 with all-MiniLM-L6-v2's tokenizer.json: every code point
/// U+0001..10FFFF in "a" + c + "b", and 300 000 random texts and pairs, give the same ids.
/// Known difference: HF lower-cases with Rust's Unicode version (16.0 in 0.23.3), utf8proc 2.8
/// with 15.0, so letters new in Unicode 16 are not lower-cased here.
/// 4. WordPiece: greedy longest-match-first, continuation pieces prefixed "##"; a word longer than
///    max_input_chars_per_word code points, or with an unmatchable rest, becomes one [UNK].
/// 5. [CLS] a [SEP] (b [SEP]), type ids 0 for the first text and its [SEP], 1 for the second.

#include <utf8proc.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "model/tokenizer_common.hpp"
#include "text/unicode_tables.hpp"

namespace attnlab {
namespace {

utf8proc_category_t category(char32_t c) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(c));
}

using model_text::CodeRange;
using model_text::inRanges;

// HuggingFace tokenizers classifies "other", punctuation and nonspacing marks with the Rust
// crate unicode_categories, whose tables predate Unicode 9.0, while utf8proc 2.8 follows Unicode
// 15.0. The tables below list every code point where the two disagree. They were made by
// classifying each code point U+0001..10FFFF with tokenizers 0.23.3 (BertNormalizer with only
// clean_text, with only strip_accents, and BertPreTokenizer on "a" + c + "b") and with the
// predicates of this file on utf8proc 2.8.0, and keeping the differences. Sorted, for binary
// search.

/// Cf in utf8proc, kept by HuggingFace's clean text.
constexpr CodeRange kKeptFormat[] = {
    {0x890, 0x891},
    {0x8E2, 0x8E2},
    {0x110CD, 0x110CD},
    {0x13430, 0x1343F},
};
/// P* in utf8proc, not punctuation for HuggingFace.
constexpr CodeRange kNotPunctuation[] = {
    {0x61D, 0x61D},     {0x9FD, 0x9FD},     {0xA76, 0xA76},     {0xC77, 0xC77},
    {0xC84, 0xC84},     {0x1B7D, 0x1B7E},   {0x2E43, 0x2E4F},   {0x2E52, 0x2E5D},
    {0x10EAD, 0x10EAD}, {0x10F55, 0x10F59}, {0x10F86, 0x10F89}, {0x1144B, 0x1144F},
    {0x1145A, 0x1145B}, {0x1145D, 0x1145D}, {0x11660, 0x1166C}, {0x116B9, 0x116B9},
    {0x1183B, 0x1183B}, {0x11944, 0x11946}, {0x119E2, 0x119E2}, {0x11A3F, 0x11A46},
    {0x11A9A, 0x11A9C}, {0x11A9E, 0x11AA2}, {0x11B00, 0x11B09}, {0x11C41, 0x11C45},
    {0x11C70, 0x11C71}, {0x11EF7, 0x11EF8}, {0x11F43, 0x11F4F}, {0x11FFF, 0x11FFF},
    {0x12FF1, 0x12FF2}, {0x16E97, 0x16E9A}, {0x16FE2, 0x16FE2}, {0x1E95E, 0x1E95F},
};
/// Punctuation for HuggingFace, not P* in utf8proc.
constexpr CodeRange kExtraPunctuation[] = {
    {0x166D, 0x166D},
    {0x111C9, 0x111C9},
};
/// Mn in utf8proc, kept by HuggingFace's accent stripping.
constexpr CodeRange kNotNonspacingMark[] = {
    {0x7FD, 0x7FD},     {0x898, 0x89F},     {0x8CA, 0x8E1},     {0x9FE, 0x9FE},
    {0xAFA, 0xAFF},     {0xB55, 0xB55},     {0xC04, 0xC04},     {0xC3C, 0xC3C},
    {0xD00, 0xD00},     {0xD3B, 0xD3C},     {0xD81, 0xD81},     {0xEBA, 0xEBA},
    {0xECE, 0xECE},     {0x180F, 0x180F},   {0x1885, 0x1886},   {0x1ABF, 0x1ACE},
    {0x1DF6, 0x1DFB},   {0xA82C, 0xA82C},   {0xA8C5, 0xA8C5},   {0xA8FF, 0xA8FF},
    {0xA9BD, 0xA9BD},   {0x10D24, 0x10D27}, {0x10EAB, 0x10EAC}, {0x10EFD, 0x10EFF},
    {0x10F46, 0x10F50}, {0x10F82, 0x10F85}, {0x11070, 0x11070}, {0x11073, 0x11074},
    {0x110C2, 0x110C2}, {0x111C9, 0x111C9}, {0x111CF, 0x111CF}, {0x1123E, 0x1123E},
    {0x11241, 0x11241}, {0x1133B, 0x1133B}, {0x11438, 0x1143F}, {0x11442, 0x11444},
    {0x11446, 0x11446}, {0x1145E, 0x1145E}, {0x1182F, 0x11837}, {0x11839, 0x1183A},
    {0x1193B, 0x1193C}, {0x1193E, 0x1193E}, {0x11943, 0x11943}, {0x119D4, 0x119D7},
    {0x119DA, 0x119DB}, {0x119E0, 0x119E0}, {0x11A01, 0x11A0A}, {0x11A33, 0x11A38},
    {0x11A3B, 0x11A3E}, {0x11A47, 0x11A47}, {0x11A51, 0x11A56}, {0x11A59, 0x11A5B},
    {0x11A8A, 0x11A96}, {0x11A98, 0x11A99}, {0x11C30, 0x11C36}, {0x11C38, 0x11C3D},
    {0x11C3F, 0x11C3F}, {0x11C92, 0x11CA7}, {0x11CAA, 0x11CB0}, {0x11CB2, 0x11CB3},
    {0x11CB5, 0x11CB6}, {0x11D31, 0x11D36}, {0x11D3A, 0x11D3A}, {0x11D3C, 0x11D3D},
    {0x11D3F, 0x11D45}, {0x11D47, 0x11D47}, {0x11D90, 0x11D91}, {0x11D95, 0x11D95},
    {0x11D97, 0x11D97}, {0x11EF3, 0x11EF4}, {0x11F00, 0x11F01}, {0x11F36, 0x11F3A},
    {0x11F40, 0x11F40}, {0x11F42, 0x11F42}, {0x13440, 0x13440}, {0x13447, 0x13455},
    {0x16F4F, 0x16F4F}, {0x16FE4, 0x16FE4}, {0x1CF00, 0x1CF2D}, {0x1CF30, 0x1CF46},
    {0x1E000, 0x1E006}, {0x1E008, 0x1E018}, {0x1E01B, 0x1E021}, {0x1E023, 0x1E024},
    {0x1E026, 0x1E02A}, {0x1E08F, 0x1E08F}, {0x1E130, 0x1E136}, {0x1E2AE, 0x1E2AE},
    {0x1E2EC, 0x1E2EF}, {0x1E4EC, 0x1E4EF}, {0x1E944, 0x1E94A},
};
/// Dropped by HuggingFace's accent stripping, not Mn in utf8proc.
constexpr CodeRange kExtraNonspacingMark[] = {
    {0x1734, 0x1734},
};

/// White space for BERT: tab, newline, carriage return and the White_Space property.
bool isBertWhiteSpace(char32_t c) {
  return c == '\t' || c == '\n' || c == '\r' || unicode::isWhiteSpace(c);
}

/// Characters clean-text drops: "other" categories (Cc, Cf, Co, Cs, in HuggingFace's tables)
/// except tab, newline and carriage return. Unassigned code points (Cn) are kept, as HuggingFace
/// keeps them.
bool isBertControl(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  const auto cat = category(c);
  if (cat == UTF8PROC_CATEGORY_CF) return !inRanges(kKeptFormat, c);
  return cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CO || cat == UTF8PROC_CATEGORY_CS;
}

/// The CJK ideograph blocks BERT puts spaces around (its _is_chinese_char): the URO, extensions
/// A to E and the compatibility ideographs; kana and Hangul are not included. HuggingFace
/// tokenizers' range for extensions E and F starts at U+2B920 instead of BERT's U+2B820, leaving
/// U+2B820..2B91F out; that is followed here, since its ids are the ones models see.
bool isChineseChar(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

/// BERT's punctuation: all non-alphanumeric printable ASCII, and the P* categories (in
/// HuggingFace's tables).
bool isBertPunctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
      (c >= 123 && c <= 126)) {
    return true;
  }
  if (c < 0x80) return false;
  const auto cat = category(c);
  if (cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO) {
    return !inRanges(kNotPunctuation, c);
  }
  return inRanges(kExtraPunctuation, c);
}

/// Nonspacing marks (Mn, in HuggingFace's tables): what accent stripping removes.
bool isNonspacingMark(char32_t c) {
  if (category(c) == UTF8PROC_CATEGORY_MN) return !inRanges(kNotNonspacingMark, c);
  return inRanges(kExtraNonspacingMark, c);
}

/// Canonical decomposition (NFD) of `in` with the nonspacing marks (Mn) removed. Marks that stay
/// (Mc, Me with a non-zero combining class) are put in canonical order.
std::u32string stripAccents(const std::u32string& in) {
  std::u32string out;
  out.reserve(in.size());
  utf8proc_int32_t buffer[32];
  for (char32_t c : in) {
    if (c < 0x80) {
      out.push_back(c);
      continue;
    }
    utf8proc_int32_t last_boundclass = 0;
    const utf8proc_ssize_t n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c), buffer, 32,
                                                       UTF8PROC_DECOMPOSE, &last_boundclass);
    if (n < 0 || n > 32) {
      out.push_back(c);  // cannot happen for valid code points; keep the character
      continue;
    }
    for (utf8proc_ssize_t k = 0; k < n; ++k) {
      const auto d = static_cast<char32_t>(buffer[k]);
      if (!isNonspacingMark(d)) out.push_back(d);
    }
  }
  // Canonical ordering of what remains: stable sort of each run of non-starters by class.
  auto ccc = [](char32_t c) {
    return utf8proc_get_property(static_cast<utf8proc_int32_t>(c))->combining_class;
  };
  for (std::size_t i = 0; i < out.size();) {
    if (ccc(out[i]) == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < out.size() && ccc(out[j]) != 0) ++j;
    std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(i),
                     out.begin() + static_cast<std::ptrdiff_t>(j),
                     [&](char32_t a, char32_t b) { return ccc(a) < ccc(b); });
    i = j;
  }
  return out;
}

/// Lower-cases code point by code point (Rust's char::to_lowercase: the simple mapping, except
/// U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE, which becomes "i" + U+0307).
std::u32string lowerCase(const std::u32string& in) {
  std::u32string out;
  out.reserve(in.size());
  for (char32_t c : in) {
    if (c == 0x130) {
      out.push_back(U'i');
      out.push_back(0x307);
    } else if (c < 0x80) {
      out.push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
    } else {
      out.push_back(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
    }
  }
  return out;
}

/// The WordPiece tokenizer with its vocabulary.
class WordPieceTokenizer final : public ModelTokenizer {
 public:
  WordPieceTokenizer(std::vector<std::string> pieces, std::unordered_map<std::string, int> vocab,
                     WordPieceOptions options)
      : pieces_(std::move(pieces)), vocab_(std::move(vocab)), options_(std::move(options)) {
    strip_accents_ = options_.strip_accents.value_or(options_.do_lower_case);
    unk_id_ = vocab_.at(options_.unk_token);
    cls_id_ = vocab_.at(options_.cls_token);
    sep_id_ = vocab_.at(options_.sep_token);
    for (const std::string* token : {&options_.pad_token, &options_.unk_token, &options_.cls_token,
                                     &options_.sep_token, &options_.mask_token}) {
      const auto it = vocab_.find(*token);
      if (token->empty() || it == vocab_.end()) continue;
      specials_.push_back(*token);
      special_ids_.push_back(it->second);
    }
  }

  Encoding encode(std::string_view text, std::optional<std::string_view> pair) const override {
    // Validate both texts before producing anything, so errors name the right text.
    (void)model_text::decodeInput(text, false);
    if (pair) (void)model_text::decodeInput(*pair, true);
    Encoding out;
    appendToken(cls_id_, 0, true, out);
    appendSequence(text, 0, out);
    appendToken(sep_id_, 0, true, out);
    if (pair) {
      appendSequence(*pair, 1, out);
      appendToken(sep_id_, 1, true, out);
    }
    return out;
  }

  std::size_t countTextTokens(std::string_view text) const override {
    (void)model_text::decodeInput(text, false);
    Encoding out;
    appendSequence(text, 0, out);
    return out.ids.size();
  }
  std::string noTokensReason() const override {
    return "only white space, control or format characters, which the WordPiece tokenizer drops";
  }

  int vocabSize() const override { return static_cast<int>(pieces_.size()); }
  std::string tokenLabel(int id) const override {
    return id >= 0 && id < vocabSize() ? pieces_[static_cast<std::size_t>(id)] : std::string();
  }
  std::string tokenBytes(int id) const override {
    std::string piece = tokenLabel(id);
    if (piece.rfind("##", 0) == 0 && piece.size() > 2 && !isSpecial(id)) piece.erase(0, 2);
    return piece;
  }
  bool isSpecial(int id) const override {
    return std::find(special_ids_.begin(), special_ids_.end(), id) != special_ids_.end();
  }
  std::string kind() const override { return "wordpiece"; }

 private:
  void appendToken(int id, int type_id, bool special, Encoding& out) const {
    out.ids.push_back(id);
    out.labels.push_back(pieces_[static_cast<std::size_t>(id)]);
    out.bytes.push_back(tokenBytes(id));
    out.type_ids.push_back(type_id);
    out.special.push_back(special);
  }

  /// Appends the tokens of one (valid UTF-8) text.
  void appendSequence(std::string_view text, int type_id, Encoding& out) const {
    for (const auto& segment : model_text::splitSpecials(text, specials_)) {
      if (segment.special >= 0) {
        appendToken(special_ids_[static_cast<std::size_t>(segment.special)], type_id, true, out);
        continue;
      }
      const std::u32string normalized =
          normalize(decodeUtf8(text.substr(segment.begin, segment.end - segment.begin)));
      // Pre-tokenization: white space separates words, punctuation is a word of its own.
      std::u32string word;
      for (char32_t c : normalized) {
        if (unicode::isWhiteSpace(c)) {
          appendWord(word, type_id, out);
        } else if (isBertPunctuation(c)) {
          appendWord(word, type_id, out);
          word.push_back(c);
          appendWord(word, type_id, out);
        } else {
          word.push_back(c);
        }
      }
      appendWord(word, type_id, out);
    }
  }

  /// BertNormalizer: clean text, space CJK ideographs, strip accents, lower-case.
  std::u32string normalize(const std::u32string& in) const {
    std::u32string out;
    out.reserve(in.size());
    for (char32_t c : in) {
      if (c == 0 || c == 0xFFFD || isBertControl(c)) continue;
      if (isBertWhiteSpace(c)) {
        out.push_back(U' ');
      } else if (options_.tokenize_chinese_chars && isChineseChar(c)) {
        out.push_back(U' ');
        out.push_back(c);
        out.push_back(U' ');
      } else {
        out.push_back(c);
      }
    }
    if (strip_accents_) out = stripAccents(out);
    if (options_.do_lower_case) out = lowerCase(out);
    return out;
  }

  /// WordPiece on one pre-tokenized word (then cleared); nothing for an empty word.
  void appendWord(std::u32string& word, int type_id, Encoding& out) const {
    if (word.empty()) return;
    if (word.size() > static_cast<std::size_t>(options_.max_input_chars_per_word)) {
      appendToken(unk_id_, type_id, false, out);
      word.clear();
      return;
    }
    // Byte offset of each code point, plus the end.
    std::string bytes;
    std::vector<std::size_t> offsets;
    offsets.reserve(word.size() + 1);
    for (char32_t c : word) {
      offsets.push_back(bytes.size());
      model_text::appendUtf8(bytes, c);
    }
    offsets.push_back(bytes.size());

    const std::size_t first_new = out.ids.size();
    std::string candidate;
    std::size_t start = 0;
    const std::size_t n = word.size();
    while (start < n) {
      int found = -1;
      std::size_t end = n;
      for (; end > start; --end) {
        candidate.assign(start > 0 ? "##" : "");
        candidate.append(bytes, offsets[start], offsets[end] - offsets[start]);
        const auto it = vocab_.find(candidate);
        if (it != vocab_.end()) {
          found = it->second;
          break;
        }
      }
      if (found < 0) {
        // Unmatchable rest: the whole word is one [UNK].
        out.ids.resize(first_new);
        out.labels.resize(first_new);
        out.bytes.resize(first_new);
        out.type_ids.resize(first_new);
        out.special.resize(first_new);
        appendToken(unk_id_, type_id, false, out);
        word.clear();
        return;
      }
      appendToken(found, type_id, false, out);
      start = end;
    }
    word.clear();
  }

  std::vector<std::string> pieces_;             ///< id → piece
  std::unordered_map<std::string, int> vocab_;  ///< piece → id
  WordPieceOptions options_;
  bool strip_accents_ = false;
  int unk_id_ = 0;
  int cls_id_ = 0;
  int sep_id_ = 0;
  std::vector<std::string> specials_;  ///< Special-token strings split out of the text.
  std::vector<int> special_ids_;       ///< Their ids, in the same order.
};

}  // namespace

std::unique_ptr<ModelTokenizer> loadWordPiece(const std::filesystem::path& vocab_txt,
                                              const WordPieceOptions& options) {
  const std::string content = model_text::readFile(
      vocab_txt, "a BERT model folder needs its vocab.txt (one WordPiece per line)");
  const std::string name = vocab_txt.filename().string();

  std::vector<std::string> pieces;
  std::unordered_map<std::string, int> vocab;
  pieces.reserve(content.size() / 6);
  vocab.reserve(content.size() / 6);
  std::size_t begin = 0;
  while (begin < content.size()) {
    std::size_t end = content.find('\n', begin);
    if (end == std::string::npos) end = content.size();
    std::string_view line(content.data() + begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const int id = static_cast<int>(pieces.size());
    const auto [it, inserted] = vocab.emplace(std::string(line), id);
    if (!inserted) {
      throw Error(ErrorCode::kInvalidInput, name + " line " + std::to_string(id + 1) +
                                                ": duplicate piece \"" + std::string(line) +
                                                "\" (first on line " +
                                                std::to_string(it->second + 1) + ")");
    }
    pieces.emplace_back(line);
    begin = end + 1;
  }
  for (const auto* token : {&options.unk_token, &options.cls_token, &options.sep_token}) {
    if (vocab.find(*token) == vocab.end()) {
      throw Error(ErrorCode::kInvalidInput,
                  name + " has no \"" + *token + "\" token: the vocabulary does not fit BERT " +
                      "(check the special token names in tokenizer_config.json)");
    }
  }
  return std::make_unique<WordPieceTokenizer>(std::move(pieces), std::move(vocab), options);
}

}  // namespace attnlab
