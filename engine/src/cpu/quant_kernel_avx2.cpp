// The avx2 path's one-row products over quantised blocks, compiled with -march=x86-64-v3
// -ffp-contract=off (engine/CMakeLists.txt). See quant_kernel_impl.hpp.
#define ATTNLAB_QUANT_TABLE kQuantAvx2
#define ATTNLAB_KERNEL_NAME "avx2"
#define ATTNLAB_LANES 8
#include "cpu/quant_kernel_impl.hpp"
