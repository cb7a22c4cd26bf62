#pragma once
/// \file quant_kernels.hpp
/// Private to the engine: the one-row products over a GGUF file's quantised blocks (the decoding
/// step's x · Wᵀ, model/quant_rows.hpp), per instruction-set path like the dense kernels
/// (dense_kernels.hpp): compiled three times from quant_kernel_impl.hpp (quant_kernel_avx512.cpp,
/// _avx2.cpp, _baseline.cpp) with -ffp-contract=off, and picked at run time by cpu_path.cpp.
///
/// Each block is dequantised exactly as at load (model/ggml_blocks.hpp: ggml's formulas, the
/// same float32 values bit for bit) and multiplied by the float32 activations — nothing is
/// quantised on the activation side — so a product differs from the dequantised model's
/// x · Wᵀ only by the order of its float32 sums (and fused multiply-adds on the FMA paths).

namespace attnlab::kernels {

/// y[r − r0] = Σ_k x[k] · W[r, k] for rows r in [r0, r1) of W, each row `in` elements stored as
/// `row_bytes` bytes of blocks of one ggml type (whole blocks: `in` a multiple of the type's
/// block size), row r starting at rows + r · row_bytes.
using QuantRowProduct = void (*)(const unsigned char* rows, long row_bytes, long in, const float* x,
                                 long r0, long r1, float* y);

/// One path's one-row products, by ggml type (null: no kernel for that type).
struct QuantKernel {
  const char* name;  ///< "avx512", "avx2" or "baseline".
  QuantRowProduct q4_0, q4_1, q5_0, q5_1, q8_0, q4_k, q5_k, q6_k;
};

/// The tables, defined in the three kernel files.
extern const QuantKernel kQuantAvx512;
extern const QuantKernel kQuantAvx2;
extern const QuantKernel kQuantBaseline;

}  // namespace attnlab::kernels
