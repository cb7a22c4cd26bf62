// The baseline path's one-row products over quantised blocks, compiled with -march=x86-64-v2
// -ffp-contract=off (engine/CMakeLists.txt). See quant_kernel_impl.hpp.
#define ATTNLAB_QUANT_TABLE kQuantBaseline
#define ATTNLAB_KERNEL_NAME "baseline"
#define ATTNLAB_LANES 4
#include "cpu/quant_kernel_impl.hpp"
