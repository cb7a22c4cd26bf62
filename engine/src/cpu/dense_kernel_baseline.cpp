// The baseline path (x86-64-v2: SSE4.2, no FMA; on other processor families the compiler's
// default), compiled with -march=x86-64-v2 on x86-64 (engine/CMakeLists.txt). A multiply and an
// add per weight, no fused multiply-add. See dense_kernel_impl.hpp.
#define ATTNLAB_KERNEL_TABLE kBaseline
#define ATTNLAB_KERNEL_NAME "baseline"
#define ATTNLAB_LANES 4
#define ATTNLAB_ROWS 3
#define ATTNLAB_BLOCK_COLUMNS 16
#define ATTNLAB_HAS_FMA 0
#include "cpu/dense_kernel_impl.hpp"
