/// \file byte_level_bpe.cpp
/// GPT-2's byte-level BPE (Radford et al. 2019, §2.2; Sennrich et al. 2016) — the tokenizer;
/// byte_level_bpe_files.cpp reads it from vocab.json + merges.txt or tokenizer.json — reproducing
/// HuggingFace tokenizers' ByteLevel pre-tokenizer + BPE model as GPT-2's tokenizer.json
/// configures them:
/// 1. Added tokens ("<|endoftext|>") written in the text are split out first, matched exactly,
///    with tokenizer.json's lstrip / rstrip / single_word / normalized flags as tokenizers 0.21
///    applies them (bpe::splitAddedTokens).
/// 2. Each remaining piece is pre-tokenized with GPT-2's pattern
///      's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
///    implemented by hand below (every position starts a match, so one left-to-right scan
///    reproduces the regex), with letters and numbers from utf8proc's general categories and \s
///    the White_Space property.
/// 3. Each pre-token's UTF-8 bytes are mapped to the printable "byte-level" alphabet (bytes
///    '!'..'~', '¡'..'¬', '®'..'ÿ' stand for themselves, the other 68 bytes for U+0100 upward in
///    byte order) and merged by BPE: repeatedly the adjacent pair with the lowest merge rank,
///    leftmost first. Results are cached per pre-token.
/// GPT-2 adds no special tokens (HF GPT2Tokenizer's default add_bos_token = false).
/// Checked against tokenizers 0.23.3: its ByteLevel pre-tokenizer puts every code point
/// U+0001..10FFFF in the same class (letter, number, space, other) as classify() below; with
/// byte-level BPEs trained by its ByteLevelBPETokenizer (753 and 8000 tokens) and the tiny GPT-2
/// fixture, every code point in a text mixing it with letters, digits, apostrophes and white
/// space, and 200 000 random texts (white space of every kind, contractions, digits, CJK, emoji
/// ZWJ sequences, combining marks, <|endoftext|>), give the same ids.

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "attnlab/token_display.hpp"
#include "model/byte_level_bpe.hpp"
#include "model/pretokenize.hpp"
#include "model/tokenizer_common.hpp"
#include "text/unicode_tables.hpp"

namespace attnlab {
namespace {

/// Byte → code point of the byte-level alphabet (GPT-2's bytes_to_unicode).
const std::array<char32_t, 256>& byteToUnicode() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    char32_t next = 0x100;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      t[static_cast<std::size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
    }
    return t;
  }();
  return table;
}

/// Code point of the byte-level alphabet → byte; -1 for code points outside it.
int unicodeToByte(char32_t c) {
  static const std::array<int, 0x144> table = [] {
    std::array<int, 0x144> t{};
    t.fill(-1);
    const auto& forward = byteToUnicode();
    for (int b = 0; b < 256; ++b) t[forward[static_cast<std::size_t>(b)]] = b;
    return t;
  }();
  return c < table.size() ? table[c] : -1;
}

using bpe::AddedToken;
using bpe::BpeData;
using bpe::Merge;
using bpe::pairKey;

using pretok::CharClass;
using pretok::classify;

/// GPT-2's tokenizer.
class ByteLevelBpeTokenizer final : public ModelTokenizer {
 public:
  explicit ByteLevelBpeTokenizer(BpeData data) : data_(std::move(data)) {
    int max_id = -1;
    for (const auto& [token, id] : data_.vocab) max_id = std::max(max_id, id);
    for (const auto& added : data_.added) max_id = std::max(max_id, added.id);
    tokens_.resize(static_cast<std::size_t>(max_id + 1));
    for (const auto& [token, id] : data_.vocab) tokens_[static_cast<std::size_t>(id)] = token;
    is_added_.assign(tokens_.size(), false);
    is_special_.assign(tokens_.size(), false);
    for (const auto& added : data_.added) {
      tokens_[static_cast<std::size_t>(added.id)] = added.content;
      is_added_[static_cast<std::size_t>(added.id)] = true;
      is_special_[static_cast<std::size_t>(added.id)] = added.special;
    }
    const auto& table = byteToUnicode();
    for (int b = 0; b < 256; ++b) {
      std::string s;
      model_text::appendUtf8(s, table[static_cast<std::size_t>(b)]);
      byte_strings_[static_cast<std::size_t>(b)] = s;
      const auto it = data_.vocab.find(s);
      byte_ids_[static_cast<std::size_t>(b)] = it == data_.vocab.end() ? -1 : it->second;
    }
  }

  Encoding encode(std::string_view text, std::optional<std::string_view> pair) const override {
    if (pair) {
      throw Error(ErrorCode::kInvalidArgument,
                  "sentence pairs need a BERT-family model (GPT-2's tokenizer takes one text)");
    }
    Encoding out = encodeText(text);
    if (out.ids.size() == data_.prefix_ids.size() + data_.suffix_ids.size()) {
      throw Error(ErrorCode::kInvalidInput,
                  text.empty() ? "the text is empty: there is nothing to tokenize"
                               : "the text has no tokens (" + noTokensReason() + ")");
    }
    return out;
  }

  std::size_t countTextTokens(std::string_view text) const override {
    return encodeText(text).ids.size() - data_.prefix_ids.size() - data_.suffix_ids.size();
  }
  std::string noTokensReason() const override {
    return "none of its bytes is in the byte-level BPE vocabulary";
  }

  int vocabSize() const override { return static_cast<int>(tokens_.size()); }
  std::string tokenLabel(int id) const override {
    return id >= 0 && id < vocabSize() ? label(id) : std::string();
  }
  std::string tokenBytes(int id) const override {
    return id >= 0 && id < vocabSize() ? bytesOf(id) : std::string();
  }
  bool isSpecial(int id) const override {
    return id >= 0 && id < vocabSize() && is_special_[static_cast<std::size_t>(id)];
  }
  std::string kind() const override { return "bpe"; }

 private:
  /// The tokens of one text (white space is content: "\n\n" gives two tokens), possibly none.
  Encoding encodeText(std::string_view text) const {
    (void)model_text::decodeInput(text, false);
    Encoding out;
    for (int id : data_.prefix_ids) appendSpecial(id, out);
    // Added tokens as tokenizers finds them: those with normalized = false in the text as
    // given, the others in what is left after the normalizer (BpeData::nfc).
    for (const auto& segment : bpe::splitAddedTokens(text, data_.added, false)) {
      if (segment.token >= 0) {
        appendAdded(segment.token, out);
        continue;
      }
      std::string_view piece = text.substr(segment.begin, segment.end - segment.begin);
      std::string normalized;
      if (data_.nfc) {
        normalized = bpe::toNfc(piece);
        piece = normalized;
      }
      for (const auto& part : bpe::splitAddedTokens(piece, data_.added, true)) {
        if (part.token >= 0) {
          appendAdded(part.token, out);
        } else {
          appendPiece(piece.substr(part.begin, part.end - part.begin), out);
        }
      }
    }
    for (int id : data_.suffix_ids) appendSpecial(id, out);
    return out;
  }

  void appendAdded(int index, Encoding& out) const {
    const AddedToken& added = data_.added[static_cast<std::size_t>(index)];
    out.ids.push_back(added.id);
    out.labels.push_back(added.content);
    out.bytes.push_back(added.content);
    out.type_ids.push_back(0);
    out.special.push_back(added.special);
  }

  void appendSpecial(int id, Encoding& out) const {
    out.ids.push_back(id);
    out.labels.push_back(label(id));
    out.bytes.push_back(bytesOf(id));
    out.type_ids.push_back(0);
    out.special.push_back(true);
  }

  /// Splits a piece of text without added tokens into digits and the runs between them
  /// (BpeData::split_digits), then pre-tokenizes each run.
  void appendPiece(std::string_view piece, Encoding& out) const {
    if (!data_.split_digits) {
      appendRun(piece, out);
      return;
    }
    const std::u32string cps = decodeUtf8(piece);
    std::size_t byte = 0;
    std::size_t run_begin = 0;
    for (char32_t c : cps) {
      const std::size_t length = model_text::utf8Length(c);
      if (classify(c) == CharClass::kNumber) {
        if (run_begin < byte) appendRun(piece.substr(run_begin, byte - run_begin), out);
        appendRun(piece.substr(byte, length), out);
        run_begin = byte + length;
      }
      byte += length;
    }
    if (run_begin < piece.size()) appendRun(piece.substr(run_begin), out);
  }

  /// Pre-tokenizes and encodes a run of text without added tokens.
  void appendRun(std::string_view piece, Encoding& out) const {
    std::string prefixed;
    if (data_.add_prefix_space && piece.front() != ' ') {
      // Appended rather than " " + std::string(piece), which GCC 12 wrongly flags (-Wrestrict).
      prefixed.reserve(piece.size() + 1);
      prefixed.append(1, ' ').append(piece);
      piece = prefixed;
    }
    if (!data_.use_regex) {
      appendWord(piece, out);
      return;
    }
    const std::u32string cps = decodeUtf8(piece);
    std::size_t i = 0;
    std::size_t byte = 0;
    while (i < cps.size()) {
      const std::size_t length =
          data_.pattern == bpe::Pattern::kLlama3  ? pretok::llama3Length(cps, i)
          : data_.pattern == bpe::Pattern::kQwen2 ? pretok::llama3Length(cps, i, 1)
                                                  : pretok::gpt2Length(cps, i);
      std::size_t bytes = 0;
      for (std::size_t k = i; k < i + length; ++k) bytes += model_text::utf8Length(cps[k]);
      appendWord(piece.substr(byte, bytes), out);
      i += length;
      byte += bytes;
    }
  }

  /// BPE on one pre-token's bytes; appends its tokens.
  void appendWord(std::string_view word, Encoding& out) const {
    std::vector<int> ids;
    bool cached = false;
    {
      std::lock_guard<std::mutex> lock(cache_mutex_);
      const auto it = cache_.find(std::string(word));
      if (it != cache_.end()) {
        ids = it->second;
        cached = true;
      }
    }
    if (!cached) {
      ids = bpe(word);
      std::lock_guard<std::mutex> lock(cache_mutex_);
      if (cache_.size() < kCacheCapacity) cache_.emplace(std::string(word), ids);
    }
    for (int id : ids) {
      out.ids.push_back(id);
      out.labels.push_back(label(id));
      out.bytes.push_back(bytesOf(id));
      out.type_ids.push_back(0);
      out.special.push_back(false);
    }
  }

  /// The token ids of one pre-token's bytes.
  std::vector<int> bpe(std::string_view word) const {
    if (data_.ignore_merges) {
      std::string mapped;
      for (char b : word) mapped += byte_strings_[static_cast<unsigned char>(b)];
      const auto it = data_.vocab.find(mapped);
      if (it != data_.vocab.end()) return {it->second};
    }
    // Symbols as a doubly linked list over the bytes; a merged-away symbol has len 0.
    struct Symbol {
      int id;
      int prev;
      int next;
      int len;
    };
    std::vector<Symbol> symbols;
    symbols.reserve(word.size());
    auto push = [&](int id, int len) {
      const int index = static_cast<int>(symbols.size());
      if (index > 0) symbols.back().next = index;
      symbols.push_back({id, index - 1, -1, len});
    };
    bool last_unknown = false;
    for (char ch : word) {
      const int id = byte_ids_[static_cast<unsigned char>(ch)];
      if (id >= 0) {
        push(id, 1);
        last_unknown = false;
      } else if (data_.unk_id >= 0) {
        if (data_.fuse_unk && last_unknown) {
          ++symbols.back().len;
        } else {
          push(data_.unk_id, 1);
        }
        last_unknown = true;
      }
      // Without an unknown token HuggingFace drops a byte missing from the vocabulary.
    }

    struct Candidate {
      int rank;
      int pos;
      int result;
      bool operator>(const Candidate& o) const {
        return rank != o.rank ? rank > o.rank : pos > o.pos;
      }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
    auto consider = [&](int pos) {
      const int next = symbols[static_cast<std::size_t>(pos)].next;
      if (next < 0) return;
      const auto it = data_.merges.find(pairKey(symbols[static_cast<std::size_t>(pos)].id,
                                                symbols[static_cast<std::size_t>(next)].id));
      if (it != data_.merges.end()) queue.push({it->second.rank, pos, it->second.result});
    };
    for (int pos = 0; pos + 1 < static_cast<int>(symbols.size()); ++pos) consider(pos);
    while (!queue.empty()) {
      const Candidate top = queue.top();
      queue.pop();
      Symbol& left = symbols[static_cast<std::size_t>(top.pos)];
      if (left.len == 0 || left.next < 0) continue;
      Symbol& right = symbols[static_cast<std::size_t>(left.next)];
      // Skip stale candidates: the pair at this position changed since it was queued.
      const auto it = data_.merges.find(pairKey(left.id, right.id));
      if (it == data_.merges.end() || it->second.result != top.result) continue;
      left.id = top.result;
      left.len += right.len;
      right.len = 0;
      left.next = right.next;
      if (left.next >= 0) symbols[static_cast<std::size_t>(left.next)].prev = top.pos;
      if (left.prev >= 0) consider(left.prev);
      consider(top.pos);
    }
    std::vector<int> ids;
    for (const Symbol& s : symbols) {
      if (s.len > 0) ids.push_back(s.id);
    }
    return ids;
  }

  /// The label of token `id` (see Encoding::labels).
  std::string label(int id) const {
    const std::string& token = tokens_[static_cast<std::size_t>(id)];
    if (is_added_[static_cast<std::size_t>(id)]) return token;
    bool byte_level = true;
    const std::string bytes = decodedBytes(token, byte_level);
    return byte_level ? byteLabel(bytes) : token;  // not a byte-level token: as written
  }

  /// The bytes token `id` stands for (see ModelTokenizer::tokenBytes).
  std::string bytesOf(int id) const {
    const std::string& token = tokens_[static_cast<std::size_t>(id)];
    if (is_added_[static_cast<std::size_t>(id)]) return token;
    bool byte_level = true;
    std::string bytes = decodedBytes(token, byte_level);
    return byte_level ? bytes : token;
  }

  /// A vocabulary token's bytes through the byte-level alphabet; byte_level false when one of
  /// its code points is outside the alphabet.
  static std::string decodedBytes(const std::string& token, bool& byte_level) {
    std::string bytes;
    for (char32_t c : decodeUtf8(token)) {
      const int b = unicodeToByte(c);
      if (b < 0) {
        byte_level = false;
        return {};
      }
      bytes.push_back(static_cast<char>(b));
    }
    return bytes;
  }

  static constexpr std::size_t kCacheCapacity = 10000;

  BpeData data_;
  std::vector<std::string> tokens_;  ///< id → token as in the vocabulary
  std::vector<bool> is_added_;       ///< id → from added_tokens
  std::vector<bool> is_special_;     ///< id → an added token marked special
  std::array<std::string, 256> byte_strings_;
  std::array<int, 256> byte_ids_{};  ///< byte → id of its one-byte token, -1 if missing
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int>> cache_;  ///< pre-token → ids
};

[[noreturn]] void throwInvalid(const std::string& message) {
  throw Error(ErrorCode::kInvalidInput, message);
}
}  // namespace

namespace bpe {

void addMerge(BpeData& data, const std::string& left, const std::string& right, int rank,
              const std::string& where) {
  const auto l = data.vocab.find(left);
  const auto r = data.vocab.find(right);
  const auto result = data.vocab.find(left + right);
  const std::string* missing = l == data.vocab.end()   ? &left
                               : r == data.vocab.end() ? &right
                                                       : nullptr;
  if (missing != nullptr) {
    throwInvalid(where + ": merge \"" + left + " " + right + "\" uses \"" + *missing +
                 "\", which is not in the vocabulary");
  }
  if (result == data.vocab.end()) {
    throwInvalid(where + ": the result of merge \"" + left + " " + right + "\" (\"" + left + right +
                 "\") is not in the vocabulary");
  }
  // A repeated pair keeps its last rank, as HuggingFace's map does.
  data.merges[pairKey(l->second, r->second)] = {rank, result->second};
}

namespace {

/// \w of Rust's regex crate (UTS #18 Annex C), which tokenizers' single_word tests: Alphabetic
/// (letters, Nl, and the Other_Alphabetic symbols: circled and squared Latin letters), marks,
/// decimal digits, connector punctuation and Join_Control (ZWNJ, ZWJ).
bool isWordCharacter(char32_t c) {
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_PC:
      return true;
    default:
      break;
  }
  return c == 0x200C || c == 0x200D || (c >= 0x24B6 && c <= 0x24E9) ||
         (c >= 0x1F130 && c <= 0x1F149) || (c >= 0x1F150 && c <= 0x1F169) ||
         (c >= 0x1F170 && c <= 0x1F189);
}

/// The code point whose UTF-8 ends just before byte `end` (valid UTF-8, end > 0), and its length.
char32_t codePointBefore(std::string_view text, std::size_t end, std::size_t& length) {
  std::size_t begin = end - 1;
  while (begin > 0 && (static_cast<unsigned char>(text[begin]) & 0xC0) == 0x80) --begin;
  length = end - begin;
  return decodeUtf8(text.substr(begin, length))[0];
}

/// The code point whose UTF-8 starts at byte `begin` (valid UTF-8), and its length.
char32_t codePointAt(std::string_view text, std::size_t begin, std::size_t& length) {
  const auto lead = static_cast<unsigned char>(text[begin]);
  length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  return decodeUtf8(text.substr(begin, length))[0];
}

/// One pass of splitAddedTokens over the piece [begin, end) of `text`, with the tokens whose
/// `normalized` flag is `normalized`; appends the pieces to `out`.
void splitPass(std::string_view text, std::size_t begin, std::size_t end,
               const std::vector<AddedToken>& tokens, bool normalized,
               std::vector<AddedSplit>& out) {
  bool first_byte[256] = {};  // the first bytes of this pass's tokens: most positions skip fast
  for (const AddedToken& t : tokens) {
    if (t.normalized == normalized && !t.content.empty())
      first_byte[static_cast<unsigned char>(t.content[0])] = true;
  }
  std::size_t taken = begin;  // end of what the last token took (tokenizers' start_offset)
  std::size_t scan = begin;   // where the search for the next match starts
  std::size_t length = 0;
  while (scan < end) {
    // Leftmost-longest: the earliest position where a token matches, the longest one there.
    int best = -1;
    std::size_t at = scan;
    for (; at < end && best < 0; ++at) {
      if (!first_byte[static_cast<unsigned char>(text[at])]) continue;
      for (std::size_t k = 0; k < tokens.size(); ++k) {
        const std::string& content = tokens[k].content;
        if (tokens[k].normalized != normalized || content.empty() || content.size() > end - at ||
            text.compare(at, content.size(), content) != 0) {
          continue;
        }
        if (best < 0 || content.size() > tokens[static_cast<std::size_t>(best)].content.size()) {
          best = static_cast<int>(k);
        }
      }
    }
    if (best < 0) break;
    const AddedToken& token = tokens[static_cast<std::size_t>(best)];
    std::size_t start = at - 1;
    std::size_t stop = start + token.content.size();
    scan = stop;
    if (token.single_word) {
      const bool word_before =
          start > begin && isWordCharacter(codePointBefore(text, start, length));
      const bool word_after = stop < end && isWordCharacter(codePointAt(text, stop, length));
      if (word_before || word_after) continue;
    }
    if (token.lstrip) {
      std::size_t s = start;
      while (s > begin && unicode::isWhiteSpace(codePointBefore(text, s, length))) s -= length;
      start = std::max(s, taken);
    }
    if (token.rstrip) {
      while (stop < end && unicode::isWhiteSpace(codePointAt(text, stop, length))) stop += length;
    }
    if (taken < start) out.push_back({taken, start, -1});
    out.push_back({start, stop, best});
    taken = stop;
  }
  if (taken < end) out.push_back({taken, end, -1});
}

}  // namespace

std::vector<AddedSplit> splitAddedTokens(std::string_view text,
                                         const std::vector<AddedToken>& tokens, bool normalized) {
  std::vector<AddedSplit> out;
  splitPass(text, 0, text.size(), tokens, normalized, out);
  return out;
}

std::string toNfc(std::string_view text) {
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t length =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                   static_cast<utf8proc_ssize_t>(text.size()), &mapped,
                   static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (length < 0) {
    throw Error(ErrorCode::kInternal,
                std::string("NFC normalization failed: ") + utf8proc_errmsg(length));
  }
  std::string out(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(length));
  std::free(mapped);
  return out;
}

bool splitMerge(std::string_view line, std::string& left, std::string& right) {
  const std::size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
      line.find(' ', space + 1) != std::string_view::npos) {
    return false;
  }
  left.assign(line.substr(0, space));
  right.assign(line.substr(space + 1));
  return true;
}

std::unique_ptr<ModelTokenizer> makeByteLevelBpe(BpeData data) {
  return std::make_unique<ByteLevelBpeTokenizer>(std::move(data));
}

}  // namespace bpe

}  // namespace attnlab
