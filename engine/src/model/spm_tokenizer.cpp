/// \file spm_tokenizer.cpp
/// SentencePiece-style BPE (Kudo & Richardson 2018) as llama.cpp runs it for GGUF vocabularies
/// of type "llama" (llama-vocab.cpp, llm_tokenizer_spm): control, user-defined and unknown tokens
/// written in the text are cut out first, longest first (Gemma 3's runs of spaces, newlines and
/// tabs and its HTML tags are user-defined tokens); spaces become "▁" (U+2581), a "▁" is
/// prepended to the text and after every special token when add_space_prefix is set, the text is
/// split into UTF-8 characters, and repeatedly the adjacent pair whose concatenation is a token
/// with the highest score is merged (leftmost first on ties); a final piece that is not a token
/// (a character missing from the vocabulary) becomes its UTF-8 bytes as <0xNN> tokens.

#include "model/spm_tokenizer.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <queue>
#include <unordered_map>

#include "attnlab/error.hpp"
#include "model/tokenizer_common.hpp"

namespace attnlab::spm {
namespace {

constexpr std::int64_t kUnknown = 2;
constexpr std::int64_t kControl = 3;
constexpr std::int64_t kUserDefined = 4;
constexpr std::int64_t kByte = 6;
const std::string kSpace = "\u2581";  // ▁

class SpmTokenizer final : public ModelTokenizer {
 public:
  explicit SpmTokenizer(SpmData data) : data_(std::move(data)) {
    for (std::size_t i = 0; i < data_.tokens.size(); ++i) {
      ids_[data_.tokens[i]] = static_cast<int>(i);
      const std::int64_t type = i < data_.types.size() ? data_.types[i] : 1;
      // llama.cpp finds these in the text before the BPE (llama-vocab.cpp, tokenizer_st_partition:
      // control, user-defined and unknown tokens): "<unk>" written in the text is the unknown id.
      if ((type == kControl || type == kUserDefined || type == kUnknown) && !data_.tokens[i].empty()) {
        added_.push_back(data_.tokens[i]);
        added_ids_.push_back(static_cast<int>(i));
      }
    }
    for (int b = 0; b < 256; ++b) {
      char name[8];
      std::snprintf(name, sizeof name, "<0x%02X>", b);
      auto it = ids_.find(name);
      if (it == ids_.end()) it = ids_.find(std::string(1, static_cast<char>(b)));
      byte_ids_[static_cast<std::size_t>(b)] = it == ids_.end() ? data_.unk_id : it->second;
    }
  }

  Encoding encode(std::string_view text, std::optional<std::string_view> pair) const override {
    if (pair) {
      throw Error(ErrorCode::kInvalidArgument,
                  "sentence pairs need a BERT-family model (this tokenizer takes one text)");
    }
    (void)model_text::decodeInput(text, false);
    Encoding out;
    for (int id : data_.prefix_ids) append(id, true, out);
    bool after_special = true;
    for (const auto& segment : model_text::splitSpecials(text, added_)) {
      if (segment.special >= 0) {
        const int id = added_ids_[static_cast<std::size_t>(segment.special)];
        append(id, isSpecial(id), out);
        after_special = true;
        continue;
      }
      std::string piece = data_.add_space_prefix && after_special ? kSpace : std::string();
      for (char c : text.substr(segment.begin, segment.end - segment.begin)) {
        if (c == ' ') {
          piece += kSpace;
        } else {
          piece.push_back(c);
        }
      }
      for (int id : bpe(piece)) append(id, false, out);
      after_special = false;
    }
    for (int id : data_.suffix_ids) append(id, true, out);
    if (out.ids.size() == data_.prefix_ids.size() + data_.suffix_ids.size()) {
      throw Error(ErrorCode::kInvalidInput,
                  text.empty() ? "the text is empty: there is nothing to tokenize"
                               : "the text has no tokens (" + noTokensReason() + ")");
    }
    return out;
  }

  std::size_t countTextTokens(std::string_view text) const override {
    if (text.empty()) return 0;
    return encode(text, std::nullopt).ids.size() - data_.prefix_ids.size() -
           data_.suffix_ids.size();
  }
  std::string noTokensReason() const override {
    return "the SentencePiece vocabulary gives it no tokens";
  }

  int vocabSize() const override { return static_cast<int>(data_.tokens.size()); }
  std::string tokenLabel(int id) const override {
    if (id < 0 || id >= vocabSize()) return {};
    const std::string& token = data_.tokens[static_cast<std::size_t>(id)];
    if (type(id) == kByte && token.size() == 6) return "\\x" + token.substr(3, 2);
    if (type(id) == kControl) return token;
    std::string label;
    for (std::size_t i = 0; i < token.size();) {
      if (token.compare(i, kSpace.size(), kSpace) == 0) {
        label += "\u2423";  // ␣, as the other tokenizers show a space
        i += kSpace.size();
      } else {
        label.push_back(token[i++]);
      }
    }
    return label;
  }
  std::string tokenBytes(int id) const override {
    if (id < 0 || id >= vocabSize()) return {};
    const std::string& token = data_.tokens[static_cast<std::size_t>(id)];
    if (type(id) == kByte && token.size() == 6) {
      const auto hex = [](char c) {
        return c >= '0' && c <= '9'   ? c - '0'
               : c >= 'A' && c <= 'F' ? c - 'A' + 10
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                      : -1;
      };
      const int hi = hex(token[3]), lo = hex(token[4]);
      if (hi >= 0 && lo >= 0) return std::string(1, static_cast<char>(hi * 16 + lo));
    }
    if (type(id) == kControl) return token;
    std::string bytes;
    for (std::size_t i = 0; i < token.size();) {
      if (token.compare(i, kSpace.size(), kSpace) == 0) {
        bytes.push_back(' ');
        i += kSpace.size();
      } else {
        bytes.push_back(token[i++]);
      }
    }
    return bytes;
  }
  bool isSpecial(int id) const override { return type(id) == kControl; }
  std::string kind() const override { return "spm"; }

 private:
  std::int64_t type(int id) const {
    return static_cast<std::size_t>(id) < data_.types.size()
               ? data_.types[static_cast<std::size_t>(id)]
               : 1;
  }

  void append(int id, bool special, Encoding& out) const {
    out.ids.push_back(id);
    out.labels.push_back(tokenLabel(id));
    out.bytes.push_back(tokenBytes(id));
    out.type_ids.push_back(0);
    out.special.push_back(special);
  }

  std::vector<int> bpe(const std::string& text) const {
    struct Symbol {
      int prev, next;
      std::size_t begin, length;
    };
    std::vector<Symbol> symbols;
    for (std::size_t i = 0; i < text.size();) {
      const auto lead = static_cast<unsigned char>(text[i]);
      const std::size_t n = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
      const std::size_t length = std::min(n, text.size() - i);
      const int index = static_cast<int>(symbols.size());
      symbols.push_back({index - 1, -1, i, length});
      if (index > 0) symbols[static_cast<std::size_t>(index - 1)].next = index;
      i += length;
    }
    struct Bigram {
      double score;
      int left, right;
      std::size_t length;
      bool operator<(const Bigram& o) const {
        return score != o.score ? score < o.score : left > o.left;  // max score, then leftmost
      }
    };
    std::priority_queue<Bigram> queue;
    auto consider = [&](int left, int right) {
      if (left < 0 || right < 0) return;
      const Symbol& l = symbols[static_cast<std::size_t>(left)];
      const Symbol& r = symbols[static_cast<std::size_t>(right)];
      const auto it = ids_.find(text.substr(l.begin, l.length + r.length));
      if (it == ids_.end()) return;
      queue.push(
          {data_.scores[static_cast<std::size_t>(it->second)], left, right, l.length + r.length});
    };
    for (std::size_t i = 1; i < symbols.size(); ++i) {
      consider(static_cast<int>(i) - 1, static_cast<int>(i));
    }
    while (!queue.empty()) {
      const Bigram top = queue.top();
      queue.pop();
      Symbol& left = symbols[static_cast<std::size_t>(top.left)];
      Symbol& right = symbols[static_cast<std::size_t>(top.right)];
      if (left.length == 0 || right.length == 0 || left.length + right.length != top.length ||
          left.next != top.right) {
        continue;  // stale: one side has changed since the pair was queued
      }
      left.length += right.length;
      right.length = 0;
      left.next = right.next;
      if (right.next >= 0) symbols[static_cast<std::size_t>(right.next)].prev = top.left;
      consider(left.prev, top.left);
      consider(top.left, left.next);
    }
    std::vector<int> ids;
    for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[static_cast<std::size_t>(i)].next) {
      const Symbol& s = symbols[static_cast<std::size_t>(i)];
      const auto it = ids_.find(text.substr(s.begin, s.length));
      if (it != ids_.end()) {
        ids.push_back(it->second);
        continue;
      }
      for (std::size_t k = 0; k < s.length; ++k) {
        const int id = byte_ids_[static_cast<unsigned char>(text[s.begin + k])];
        if (id >= 0) ids.push_back(id);
      }
    }
    return ids;
  }

  SpmData data_;
  std::unordered_map<std::string, int> ids_;
  std::vector<std::string> added_;
  std::vector<int> added_ids_;
  std::array<int, 256> byte_ids_{};
};

}  // namespace

std::unique_ptr<ModelTokenizer> makeSpmTokenizer(SpmData data) {
  for (const auto* ids : {&data.prefix_ids, &data.suffix_ids}) {
    for (int id : *ids) {
      if (id < 0 || static_cast<std::size_t>(id) >= data.tokens.size()) {
        throw Error(ErrorCode::kInvalidInput,
                    data.origin + ": special token id " + std::to_string(id) + " is not a token");
      }
    }
  }
  return std::make_unique<SpmTokenizer>(std::move(data));
}

}  // namespace attnlab::spm
