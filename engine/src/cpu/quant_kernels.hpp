#pragma once
/// \file quant_kernels.hpp
/// Private to the engine: the weights as a file stores them (model/weight_matrix.hpp) read by the
/// CPU path's own vector code — the one-row product of a decoding step (x · Wᵀ for x [1, in])
/// and the dequantisation of a run of elements into float32 (the panels a prompt's products
/// multiply, a token's embedding row). Compiled three times from quant_kernel_impl.hpp
/// (quant_kernel_avx512.cpp, _avx2.cpp, _baseline.cpp) with -ffp-contract=off, and picked at run
/// time by cpu_path.cpp, like the dense kernels (dense_kernels.hpp).
///
/// Every element is decoded exactly as at load (ggml's formulas in ggml's order of float32
/// operations, model/gguf_quants.cpp being the scalar reading of the same formulas): a
/// dequantised run equals dequantize()'s bit for bit, and a one-row product differs from the
/// dequantised model's x · Wᵀ only by the order of its float32 sums (and fused multiply-adds
/// on the FMA paths). Nothing is quantised on the activation side.

namespace attnlab::kernels {

/// y[r − r0] = Σ_k x[k] · W[r, k] for rows r in [r0, r1) of W, each row `in` elements stored as
/// `row_bytes` bytes of one ggml type (whole blocks: `in` a multiple of the type's block size;
/// any `in` for F32, F16 and BF16), row r starting at rows + r · row_bytes.
using QuantRowProduct = void (*)(const unsigned char* rows, long row_bytes, long in, const float* x,
                                 long r0, long r1, float* y);

/// out[0, count) = the `count` elements stored from `blocks` on (a block boundary; `count` a
/// multiple of the block size, any count for F32, F16 and BF16), dequantised.
using QuantDequantise = void (*)(const unsigned char* blocks, long count, float* out);

/// panel[k·16 + c] = element k of row c for k in [0, count) and c in [0, rows), 0 for
/// c in [rows, 16): up to 16 rows of one ggml type dequantised and transposed into the layout of
/// linear::PackedWeights' panels (16 output columns per k). row[c] points at the block holding
/// the rows' first element (a block boundary); count ≤ 256, a multiple of the block size (any
/// count for F32, F16 and BF16).
using QuantPanel = void (*)(const unsigned char* const* row, int rows, long count, float* panel);

/// One ggml type's kernels on one path.
struct QuantType {
  QuantRowProduct product = nullptr;
  QuantDequantise dequantise = nullptr;
  QuantPanel panel = nullptr;
};

/// One path's kernels, by ggml type (each member named after the type).
struct QuantKernel {
  const char* name;  ///< "avx512", "avx2" or "baseline".
  QuantType f32, f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0, q2_k, q3_k, q4_k, q5_k, q6_k, iq4_nl,
      iq4_xs;
};

/// The tables, defined in the three kernel files.
extern const QuantKernel kQuantAvx512;
extern const QuantKernel kQuantAvx2;
extern const QuantKernel kQuantBaseline;

}  // namespace attnlab::kernels
