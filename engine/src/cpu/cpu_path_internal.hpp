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

/// The quantised products of `path` (avx512: kQuantAvx512Vnni where avx512Vnni()). Throws as
/// denseKernel().
const QuantKernel& quantKernel(CpuPath path);

/// Whether the avx512 path's quantised products use AVX512-VNNI: the CPU has it and
/// ATTNLAB_NO_VNNI is unset or empty (the same numbers either way).
bool avx512Vnni();

}  // namespace attnlab::kernels
