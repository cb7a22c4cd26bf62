// The avx512 path's one-row products over quantised blocks, compiled with -march=x86-64-v4
// -ffp-contract=off (engine/CMakeLists.txt). See quant_kernel_impl.hpp.
#define ATTNLAB_QUANT_TABLE kQuantAvx512
#define ATTNLAB_KERNEL_NAME "avx512"
#define ATTNLAB_LANES 16
#include "cpu/quant_kernel_impl.hpp"
