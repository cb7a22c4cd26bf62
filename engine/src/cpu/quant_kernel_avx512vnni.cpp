// The avx512 path's quantised products again, compiled with -march=x86-64-v4 -mavx512vnni
// -ffp-contract=off (engine/CMakeLists.txt): the same kernels, but a prompt's int8 GEMM
// (quant_gemm_int8_impl.hpp) multiply-adds four bytes into 32 bits in one instruction. Chosen by
// cpu_path.cpp for the avx512 path where the CPU has AVX512-VNNI; the same numbers as
// kQuantAvx512, bit for bit.
#define ATTNLAB_QUANT_TABLE kQuantAvx512Vnni
#define ATTNLAB_KERNEL_NAME "avx512"
#define ATTNLAB_LANES 16
#include "cpu/quant_kernel_impl.hpp"
