// libFuzzer target for the GGUF reader (engine/include/attnlab/gguf.hpp): any byte string must
// either open as a validated GgufFile or throw attnlab::Error — never crash, hang, read out of
// bounds or allocate without bound. An opened file is then exercised the way the model loader
// uses it: every metadata look-up, every tensor dequantised (when small enough), the tokenizer
// built from tokenizer.ggml.* and run on a fixed text.
//
// Seeds: tests/fuzz/corpus/gguf/ (made by tests/fuzz/make_gguf_seeds.py). Built by the asan
// preset like every target in tests/fuzz/CMakeLists.txt; run with `scripts/fuzz SECONDS gguf`, or
//   build/asan/tests/fuzz/fuzz_gguf -max_len=65536 -timeout=10 tests/fuzz/corpus/gguf

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/model_tokenizer.hpp"

namespace {

void exercise(const attnlab::GgufFile& file) {
  for (const auto& [key, value] : file.metadata()) {
    // Every typed look-up either answers or throws Error for the wrong type.
    try {
      (void)file.integer(key);
    } catch (const attnlab::Error&) {
    }
    try {
      (void)file.number(key);
    } catch (const attnlab::Error&) {
    }
    try {
      (void)file.string(key);
    } catch (const attnlab::Error&) {
    }
    try {
      (void)file.strings(key);
    } catch (const attnlab::Error&) {
    }
    try {
      (void)file.numbers(key);
    } catch (const attnlab::Error&) {
    }
  }
  std::vector<float> out;
  for (const attnlab::GgufTensor& t : file.tensors()) {
    const attnlab::GgmlTypeInfo* info = attnlab::ggmlTypeInfo(t.type);
    if (info == nullptr || !info->dequantisable || t.elements() > (1 << 20)) continue;
    out.resize(static_cast<std::size_t>(t.elements()));
    attnlab::dequantize(t.type, t.data, out.size(), out.data());
  }
  try {
    const auto tokenizer = attnlab::loadGgufTokenizer(file);
    (void)tokenizer->encode("The cat sat on 2024 mats <|im_start|> \xe4\xb8\xad \xf0\x9f\x98\x80");
    for (int id = 0; id < tokenizer->vocabSize() && id < 64; ++id) (void)tokenizer->tokenLabel(id);
  } catch (const attnlab::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const attnlab::GgufFile file(reinterpret_cast<const std::byte*>(data), size, "fuzz.gguf");
    exercise(file);
  } catch (const attnlab::Error&) {
    // A rejected file: the expected outcome for most inputs.
  }
  return 0;
}
