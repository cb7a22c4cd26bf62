// The AVX2 + FMA path (x86-64-v3), compiled with -march=x86-64-v3 -ffp-contract=fast
// (engine/CMakeLists.txt). See dense_kernel_impl.hpp.
#define ATTNLAB_KERNEL_TABLE kAvx2
#define ATTNLAB_KERNEL_NAME "avx2"
#define ATTNLAB_LANES 8
#define ATTNLAB_ROWS 6
#define ATTNLAB_BLOCK_COLUMNS 16
#define ATTNLAB_HAS_FMA 1
#include "cpu/dense_kernel_impl.hpp"
