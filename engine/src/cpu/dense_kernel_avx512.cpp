// The AVX-512 path (x86-64-v4: AVX512F/BW/CD/DQ/VL), compiled with -march=x86-64-v4
// -ffp-contract=fast (engine/CMakeLists.txt). See dense_kernel_impl.hpp.
#define ATTNLAB_KERNEL_TABLE kAvx512
#define ATTNLAB_KERNEL_NAME "avx512"
#define ATTNLAB_LANES 16
#define ATTNLAB_ROWS 12
#define ATTNLAB_BLOCK_COLUMNS 32
#define ATTNLAB_HAS_FMA 1
#include "cpu/dense_kernel_impl.hpp"
