// Fuzz target: GPT-2's byte-level BPE. The first byte picks what is fuzzed:
//   < 0xF0: encode(text) with the tiny GPT-2 fixture's tokenizer, from vocab.json + merges.txt
//           (even first byte) or tokenizer.json (odd); both must give the same ids;
//   ≥ 0xF0: the rest is a tokenizer.json, loaded and then used on a fixed sentence.
// Every encoding must keep the Encoding invariants; a non-empty text whose bytes are all in the
// vocabulary must give at least one token (white space included).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/model_tokenizer.hpp"
#include "attnlab/token_display.hpp"
#include "fuzz_support.hpp"

using namespace attnlab;

namespace {

void checkEncoding(const Encoding& e, const ModelTokenizer& tokenizer) {
  fuzz::expect(e.labels.size() == e.ids.size() && e.type_ids.size() == e.ids.size() &&
                   e.special.size() == e.ids.size(),
               "encoding vectors differ in length");
  for (std::size_t i = 0; i < e.ids.size(); ++i) {
    fuzz::expect(e.ids[i] >= 0 && e.ids[i] < tokenizer.vocabSize(), "id outside the vocabulary");
    fuzz::expect(!e.labels[i].empty(), "empty label");
    fuzz::expect(e.labels[i].find("\xEF\xBF\xBD") == std::string::npos, "U+FFFD in a label");
  }
  // Display labels (token_display.hpp): one per token, never empty, never U+FFFD.
  fuzz::expect(e.bytes.size() == e.ids.size(), "bytes differ in length");
  const std::vector<TokenDisplay> shown = displayTokens(e);
  fuzz::expect(shown.size() == e.ids.size(), "display labels differ in length");
  for (const TokenDisplay& d : shown) {
    fuzz::expect(!d.label.empty(), "empty display label");
    fuzz::expect(d.label.find("\xEF\xBF\xBD") == std::string::npos, "U+FFFD in a display label");
  }
}

const std::string kFixture = std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-gpt2";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::unique_ptr<ModelTokenizer> from_files =
      loadByteLevelBpe(kFixture + "/vocab.json", kFixture + "/merges.txt");
  static const std::unique_ptr<ModelTokenizer> from_json =
      loadByteLevelBpe(kFixture + "/tokenizer.json");
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] >= 0xF0) {
    try {
      const auto tokenizer =
          loadByteLevelBpe(fuzz::scratchFile("tokenizer.json", data + 1, size - 1));
      checkEncoding(tokenizer->encode("Hello, world!\n\n我的猫 😀"), *tokenizer);
    } catch (const Error& e) {
      fuzz::expectOneLine(e);
    }
    return 0;
  }
  const ModelTokenizer& tokenizer = (data[0] & 1) ? *from_json : *from_files;
  try {
    const Encoding e = tokenizer.encode(rest);
    checkEncoding(e, tokenizer);
    fuzz::expect(tokenizer.countTextTokens(rest) == e.ids.size(),
                 "countTextTokens differs from the encoding");
    const ModelTokenizer& other = (data[0] & 1) ? *from_files : *from_json;
    fuzz::expect(other.encode(rest).ids == e.ids,
                 "vocab.json + merges.txt and tokenizer.json differ");
  } catch (const Error& e) {
    fuzz::expectOneLine(e);
  }
  return 0;
}
