// Fuzz target: config.json of a HuggingFace model folder (readModelConfig). An accepted config
// must describe a model the forward pass can be built for.

#include <cmath>
#include <cstdint>

#include "attnlab/pretrained.hpp"
#include "fuzz_support.hpp"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::scratchFile("config.json", data, size);
  try {
    const ModelConfig c = readModelConfig(path);
    fuzz::expect(c.model_type == "bert" || c.model_type == "gpt2", "unknown model_type accepted");
    fuzz::expect(c.layers >= 1 && c.heads >= 1 && c.d_model >= 1 && c.d_ff >= 1 &&
                     c.max_positions >= 1 && c.vocab_size >= 1,
                 "a size of the model is not positive");
    fuzz::expect(c.d_model % c.heads == 0, "heads do not divide d_model");
    fuzz::expect(std::isfinite(c.layer_norm_eps) && c.layer_norm_eps > 0,
                 "layer_norm_eps is not a positive finite number");
    fuzz::expect(c.dK() * c.heads == c.d_model, "d_k · heads != d_model");
  } catch (const Error& e) {
    fuzz::expectOneLine(e);
  }
  return 0;
}
