#pragma once
/// \file cpu_path_internal.hpp
/// Private to the engine (and the bench): the kernel tables of a CPU path.

#include "attnlab/cpu_path.hpp"
#include "cpu/dense_kernels.hpp"
#include "cpu/quant_kernels.hpp"

namespace attnlab::kernels {

/// The kernels of activeCpuPath(). Throws as activeCpuPath().
const DenseKernel& activeDenseKernel();

/// The kernels of `path`. Throws Error(kInvalidArgument) when this CPU lacks it.
const DenseKernel& denseKernel(CpuPath path);

/// The one-row quantised products of activeCpuPath(). Throws as activeCpuPath().
const QuantKernel& activeQuantKernel();

/// The one-row quantised products of `path`. Throws as denseKernel().
const QuantKernel& quantKernel(CpuPath path);

}  // namespace attnlab::kernels
