// quantiseActivations (quant_kernels.hpp): one definition for every path, so the int8 values
// the path kernels multiply are the same everywhere.

#include <cmath>

#include "cpu/quant_kernels.hpp"

namespace attnlab::kernels {

void quantiseActivations(const float* x, long in, int block, float* d, signed char* q,
                         short* sums16) {
  for (long b = 0; b < in / block; ++b) {
    const float* xb = x + b * block;
    float amax = 0.0f;
    for (int i = 0; i < block; ++i) amax = std::fmax(amax, std::fabs(xb[i]));
    const float id = amax > 0.0f ? 127.0f / amax : 0.0f;
    d[b] = amax / 127.0f;
    for (int i = 0; i < block; ++i) {
      const float v = std::nearbyint(xb[i] * id);
      q[b * block + i] = static_cast<signed char>(std::fmax(-127.0f, std::fmin(127.0f, v)));
    }
  }
  for (long s = 0; s < in / 16; ++s) {
    int sum = 0;
    for (int i = 0; i < 16; ++i) sum += q[16 * s + i];
    sums16[s] = static_cast<short>(sum);
  }
}

}  // namespace attnlab::kernels
