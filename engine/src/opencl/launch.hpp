#pragma once
// Private to the runtime's files (runtime.cpp: device, programs and buffers; operations.cpp: the
// attention operations): the CPU variant's -D constants, the error wrapper of OpenCL calls and the
// variadic kernel-argument setter.

#include <CL/opencl.hpp>
#include <cstddef>
#include <string>

#include "attnlab/error.hpp"
#include "opencl/runtime.hpp"

namespace attnlab::opencl {

// The CPU variant's -D options (runtime.cpp: buildOptions), which its launches also depend on.
inline constexpr int kCpuRows = 4;       ///< ROWS: query rows per work-item, materialised path.
inline constexpr int kCpuBlock = 24;     ///< BK: keys per block in the fused kernel.
inline constexpr int kCpuScoreKeys = 6;  ///< BKS: keys per score pass (12 accumulators).
inline constexpr int kCpuValueCols = 4;  ///< BDV: output columns per P·V pass (8 accumulators).

/// n rounded up to a multiple of m (m > 0).
inline std::size_t roundUp(std::size_t n, std::size_t m) { return (n + m - 1) / m * m; }

/// Runs f, turning an OpenCL exception into Error(kBackend) "<CL call> failed: <code name>".
template <typename F>
auto checked(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const cl::Error& e) {
    throw Error(ErrorCode::kBackend, std::string(e.what()) + " failed: " + errorName(e.err()));
  }
}

/// The kernel's function name for messages ("flash_fwd_cpu"), or "a kernel" when the driver
/// cannot say.
std::string kernelName(const cl::Kernel& kernel);

/// Sets every argument of `kernel` in order, argument i from the i-th of `args` (clSetKernelArg
/// with sizeof(arg) bytes; cl::Buffer and other memory objects as their handle), instead of a
/// chain of numbered setArg calls (CLBlast's SetArguments). Throws Error(kBackend)
/// "clSetKernelArg failed for argument i of KERNEL: CODE" naming the kernel and the argument, and
/// Error(kInternal) "KERNEL takes N arguments, given M" when the count differs from the kernel's
/// CL_KERNEL_NUM_ARGS (an argument forgotten or added on one side only).
template <class... Args>
void setArgs(cl::Kernel& kernel, const Args&... args) {
  const auto declared = checked([&] { return kernel.getInfo<CL_KERNEL_NUM_ARGS>(); });
  if (declared != sizeof...(Args))
    throw Error(ErrorCode::kInternal, kernelName(kernel) + " takes " + std::to_string(declared) +
                                          " arguments, given " + std::to_string(sizeof...(Args)));
  cl_uint index = 0;
  try {
    ((kernel.setArg(index, args), ++index), ...);
  } catch (const cl::Error& e) {
    throw Error(ErrorCode::kBackend, std::string(e.what()) + " failed for argument " +
                                         std::to_string(index) + " of " + kernelName(kernel) +
                                         ": " + errorName(e.err()));
  }
}

}  // namespace attnlab::opencl
