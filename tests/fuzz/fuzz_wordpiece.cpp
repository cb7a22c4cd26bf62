// Fuzz target: BERT's WordPiece tokenizer. The first byte picks what is fuzzed:
//   < 0xF0: encode(text[, pair]) with one of four fixed tokenizers (byte & 3: uncased, cased,
//           cased with accents stripped, CJK characters not split); the rest of the input is the
//           text, and after a 0xFF byte (never part of UTF-8) the pair;
//   ≥ 0xF0: the rest is a vocab.txt, loaded and then used on a fixed sentence.
// Every encoding must keep the Encoding invariants.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "attnlab/model_tokenizer.hpp"
#include "fuzz_support.hpp"

using namespace attnlab;

namespace {

// Specials, whole words, continuation pieces, accented letters, CJK, punctuation.
const char kVocab[] =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\n.\n,\n!\n?\n'\nun\n##aff\n"
    "##able\n##s\n##ing\n##ed\na\nb\nc\n##a\n##b\n##c\ncafé\ncafe\nnaïve\n我\n的\n猫\n很\n累\n"
    "😀\n##😀\nhello\n##llo\nhe\n##l\n##o\n$\n1\n##2\n##3\n";

void checkEncoding(const Encoding& e, const ModelTokenizer& tokenizer) {
  fuzz::expect(e.labels.size() == e.ids.size() && e.type_ids.size() == e.ids.size() &&
                   e.special.size() == e.ids.size(),
               "encoding vectors differ in length");
  for (std::size_t i = 0; i < e.ids.size(); ++i) {
    fuzz::expect(e.ids[i] >= 0 && e.ids[i] < tokenizer.vocabSize(), "id outside the vocabulary");
    fuzz::expect(!e.labels[i].empty(), "empty label");
    fuzz::expect(e.type_ids[i] == 0 || e.type_ids[i] == 1, "type id not 0 or 1");
  }
}

std::unique_ptr<ModelTokenizer> fixed(int which) {
  WordPieceOptions options;
  options.do_lower_case = which == 0;
  if (which == 2) options.strip_accents = true;
  if (which == 3) options.tokenize_chinese_chars = false;
  const auto path = fuzz::scratchFile(("vocab" + std::to_string(which) + ".txt").c_str(),
                                      reinterpret_cast<const std::uint8_t*>(kVocab),
                                      sizeof kVocab - 1);
  return loadWordPiece(path, options);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::unique_ptr<ModelTokenizer> tokenizers[4] = {fixed(0), fixed(1), fixed(2),
                                                                fixed(3)};
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] >= 0xF0) {
    try {
      const auto path = fuzz::scratchFile("vocab.txt", data + 1, size - 1);
      const auto tokenizer = loadWordPiece(path, WordPieceOptions{});
      checkEncoding(tokenizer->encode("the cat sat [SEP] 我的猫 unaffable café 😀"), *tokenizer);
    } catch (const Error& e) {
      fuzz::expectOneLine(e);
    }
    return 0;
  }
  const ModelTokenizer& tokenizer = *tokenizers[data[0] & 3];
  const std::size_t cut = rest.find('\xFF');
  const std::string_view text = rest.substr(0, cut);
  std::optional<std::string_view> pair;
  if (cut != std::string_view::npos) pair = rest.substr(cut + 1);
  try {
    const Encoding e = tokenizer.encode(text, pair);
    checkEncoding(e, tokenizer);
    const std::size_t own = tokenizer.countTextTokens(text);
    fuzz::expect(own + 2 <= e.ids.size(), "countTextTokens exceeds the encoding");
  } catch (const Error& e) {
    fuzz::expectOneLine(e);
  }
  return 0;
}
