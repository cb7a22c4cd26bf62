#pragma once
/// \file quant_kernels.hpp
/// Private to the engine: the weights as a file stores them (model/weight_matrix.hpp) read by the
/// CPU path's own vector code — the one-row product of a decoding step (x · Wᵀ for x [1, in])
/// and the dequantisation of a run of elements into float32 (the panels a prompt's products
/// multiply, a token's embedding row), and the int8 products of the option that quantises the
/// activations. Compiled from quant_kernel_impl.hpp for each path (quant_kernel_avx512.cpp,
/// _avx2.cpp, _baseline.cpp, and _avx512vnni.cpp for the avx512 path on CPUs with AVX512-VNNI)
/// with -ffp-contract=off, and picked at run time by cpu_path.cpp, like the dense kernels
/// (dense_kernels.hpp).
///
/// Every element is decoded exactly as at load (ggml's formulas in ggml's order of float32
/// operations, model/gguf_quants.cpp being the scalar reading of the same formulas): a
/// dequantised run equals dequantize()'s bit for bit, and a one-row product differs from the
/// dequantised model's x · Wᵀ only by the order of its float32 sums (and fused multiply-adds
/// on the FMA paths). Nothing is quantised on the activation side, except by the
/// int8 products below (an option, as llama.cpp computes).

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

/// Activations x [in] quantised to int8 the way llama.cpp quantises them for its integer dot
/// products (ggml's Q8_0 and Q8_K): in blocks of `block` elements (32 or 256), each with one
/// scale d = max |x| / 127 and values q = x · (127 / max |x|) rounded to the nearest integer
/// (|q| ≤ 127; a block of zeros has d = 0), so x ≈ d·q within d/2; sums16 holds Σ q over each
/// 16 elements (the K-quants' minimums and offsets multiply them).
struct Int8Activations {
  int block = 0;
  const float* d = nullptr;            ///< [in / block]
  const signed char* q = nullptr;      ///< [in]
  const short* sums16 = nullptr;       ///< [in / 16]
};

/// Quantises x [in] (a multiple of `block`, 32 or 256) into d [in / block], q [in] and
/// sums16 [in / 16]: the same values on every path.
void quantiseActivations(const float* x, long in, int block, float* d, signed char* q,
                         short* sums16);

/// The most activation rows one int8 product call takes (QuantInt8Product's nx).
constexpr int kInt8Rows = 4;

/// y[i·ldy + r − r0] ≈ Σ_k x_i[k] · W[r, k] for rows r in [r0, r1) of W and nx activation rows
/// x_i (1 ≤ nx ≤ kInt8Rows) given as int8 (quantised with the type's int8_block): the weights'
/// and activations' integers multiplied and summed exactly in int32, each block's float scales
/// applied once — llama.cpp's dot products (ggml-cpu's vec_dot_q4_K_q8_K, …). Each weight block
/// is read and decoded once for the nx rows (a prompt's product); row i's value is the same bit
/// for bit whatever nx, so a prompt's rows equal the one-row product of a decoding step.
using QuantInt8Product = void (*)(const unsigned char* rows, long row_bytes, long in,
                                  const Int8Activations* x, int nx, long r0, long r1, float* y,
                                  long ldy);

/// The most activation rows one QuantInt8Gemm call takes.
constexpr int kInt8GemmRows = 8;

/// Up to 16 weight rows of one type decoded for the int8 GEMM (a prompt's products), every
/// element as w = d·sc_j·u − dmin·m_j (quant_gemm_int8_impl.hpp), per block k of the type's
/// int8_block elements B, sub-blocks of int8_sub elements S:
/// - u [blocks][B/4][16][4]: element 4g + t of row c at u[((k·B/4 + g)·16 + c)·4 + t], 0 … 63;
/// - sc [blocks][B/S][16][2]: sub-block j's scale of row c, twice (its two 16-bit lanes);
/// - mins [blocks][⌈B/S/2⌉][16][2]: the minimums of sub-blocks 2p and 2p + 1 of row c;
/// - d, dmin [blocks][16].
/// Rows past the panel's count are zero. Int8PanelSizes gives each array's element count.
struct Int8Panel {
  unsigned char* u = nullptr;
  short* sc = nullptr;
  short* mins = nullptr;
  float* d = nullptr;
  float* dmin = nullptr;
};

/// Decodes rows row[c] (c < rows ≤ 16, each `blocks` whole blocks from a block boundary) into p.
using QuantInt8Panel = void (*)(const unsigned char* const* row, int rows, long blocks,
                                const Int8Panel& p);

/// y[i·ldy + c] = Σ_k x_i[k]·W[c, k] for the panel's rows c < rows and nx activation rows
/// (1 ≤ nx ≤ kInt8GemmRows), quantised in blocks of the type's int8_block, with pairs[i] the
/// sums Σ q over x_i's sub-blocks of int8_sub elements, two a 32-bit word (low half: sub-block
/// 2p, high half: 2p + 1; 0 where a block has one sub-block), ⌈B/S/2⌉ words a block. The integer
/// sums are exact; the float32 operations are the same, in the same order, on every path.
using QuantInt8Gemm = void (*)(const Int8Panel& p, long blocks, const Int8Activations* x,
                               const int* const* pairs, int nx, float* y, long ldy, int rows);

/// One ggml type's kernels on one path. int8 is null (and int8_block 0) for the types read
/// with float32 activations only; int8_gemm null for the int8 types without a prompt kernel.
struct QuantType {
  QuantRowProduct product = nullptr;
  QuantDequantise dequantise = nullptr;
  QuantPanel panel = nullptr;
  QuantInt8Product int8 = nullptr;
  int int8_block = 0;
  QuantInt8Panel int8_panel = nullptr;  ///< null: no int8 GEMM (prompts run the one-row kernel)
  QuantInt8Gemm int8_gemm = nullptr;
  int int8_sub = 0;                     ///< the int8 GEMM's sub-block (16 or 32 elements)
};

/// One path's kernels, by ggml type (each member named after the type).
struct QuantKernel {
  const char* name;  ///< "avx512", "avx2" or "baseline".
  QuantType f32, f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0, q2_k, q3_k, q4_k, q5_k, q6_k, iq4_nl,
      iq4_xs;
};

/// The tables, defined in the kernel files: the avx512 path's twice, without and with
/// AVX512-VNNI (the same numbers; cpu_path.cpp picks the second where the CPU has it).
extern const QuantKernel kQuantAvx512;
extern const QuantKernel kQuantAvx512Vnni;
extern const QuantKernel kQuantAvx2;
extern const QuantKernel kQuantBaseline;

}  // namespace attnlab::kernels
