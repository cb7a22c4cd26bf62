#pragma once
// The OpenCL backend behind attnlab::selectBackend.

#include <memory>

#include "attnlab/backend.hpp"

namespace attnlab::opencl {

class Runtime;

/// Attention on one OpenCL device: tiled materialised scores and weights, the fused kernel for the
/// outputs (additive: scores, softmax and P·V kernels), statistics on the host. Same contract as
/// computeAttentionCpu. Throws Error(kBackend) when a CL call fails.
AttentionResult computeOnDevice(Runtime& runtime, const AttentionInputs& inputs,
                                const AttentionSpec& spec);

/// The backend "opencl" and "auto" return: programs build in the background (kBackground: results
/// come from the CPU until they are ready) or before the first result (kWait); any OpenCL failure
/// falls back to the CPU for that result with fallback_reason set.
std::unique_ptr<Backend> makeAcceleratedBackend(int device_index, BuildMode mode);

}  // namespace attnlab::opencl
