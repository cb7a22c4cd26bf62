// Fuzz target: strict UTF-8 decoding and the synthetic lab's tokenizer. Both entry points must
// agree on what is valid; every token must be the exact bytes of the input at its offsets, in
// order, with code-point offsets that match the decoded text.

#include <cstdint>
#include <string>
#include <string_view>

#include "attnlab/tokenizer.hpp"
#include "fuzz_support.hpp"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::u32string decoded;
  std::string decode_error, tokenize_error;
  try {
    decoded = decodeUtf8(text);
  } catch (const Error& e) {
    fuzz::expectOneLine(e);
    decode_error = e.what();
  }
  std::vector<Token> tokens;
  try {
    tokens = tokenize(text);
  } catch (const Error& e) {
    fuzz::expectOneLine(e);
    tokenize_error = e.what();
  }
  fuzz::expect(decode_error == tokenize_error, "decodeUtf8 and tokenize disagree on validity");
  if (!decode_error.empty()) return 0;
  std::size_t byte_end = 0, char_end = 0;
  for (const Token& t : tokens) {
    fuzz::expect(!t.text.empty(), "empty token");
    fuzz::expect(t.byte_begin >= byte_end && t.byte_begin < t.byte_end && t.byte_end <= size,
                 "token byte offsets out of order or out of range");
    fuzz::expect(text.substr(t.byte_begin, t.byte_end - t.byte_begin) == t.text,
                 "token text is not the input's bytes at its offsets");
    fuzz::expect(t.char_begin >= char_end && t.char_begin < t.char_end &&
                     t.char_end <= decoded.size(),
                 "token code-point offsets out of order or out of range");
    fuzz::expect(decodeUtf8(t.text).size() == t.char_end - t.char_begin,
                 "token code-point length differs from its bytes'");
    byte_end = t.byte_end;
    char_end = t.char_end;
  }
  return 0;
}
