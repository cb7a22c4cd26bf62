// Fuzz target: the safetensors reader — header length, JSON header, dtypes, shapes and offsets
// checked against the file size — and reading every tensor it accepted back (floats, integers,
// matrices). The input is the whole file.

#include <cstdint>

#include "attnlab/safetensors.hpp"
#include "fuzz_support.hpp"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::scratchFile("model.safetensors", data, size);
  try {
    const SafeTensors file(path);
    for (const auto& [name, t] : file.tensors()) {
      fuzz::expect(t.bytes == static_cast<std::size_t>(t.elements()) * dtypeSize(t.dtype),
                   "a tensor's byte count is not its shape times its dtype size");
      try {
        switch (t.dtype) {
          case DType::kF32:
          case DType::kF16:
          case DType::kBF16:
          case DType::kF64: {
            fuzz::expect(file.floats(name).size() == static_cast<std::size_t>(t.elements()),
                         "floats() returned another element count");
            if (t.shape.size() == 1 || t.shape.size() == 2) (void)file.matrix(name);
            break;
          }
          default:
            fuzz::expect(file.integers(name).size() == static_cast<std::size_t>(t.elements()),
                         "integers() returned another element count");
        }
      } catch (const Error& e) {
        fuzz::expectOneLine(e);
      }
    }
  } catch (const Error& e) {
    fuzz::expectOneLine(e);
  }
  return 0;
}
