#pragma once
/// \file dense_kernels.hpp
/// Private to the engine: the per-instruction-set kernels behind linear::timesTransposed(), the
/// CPU attention's products and rows (QKᵀ, P·V, softmax, statistics: attention_cpu.cpp) and the
/// bench's FMA peak. Each is compiled three times (dense_kernel_avx512.cpp, _avx2.cpp,
/// _baseline.cpp, with -march=x86-64-v4, -v3 and -v2) from dense_kernel_impl.hpp and
/// row_kernel_impl.hpp, and cpu_path.cpp picks one table at run time (see attnlab/cpu_path.hpp).
///
/// The kernel files include nothing of C++'s library or Eigen: an inline function of a header
/// compiled with AVX-512 in one file and without in another would be merged by the linker into one
/// copy, which could then execute AVX-512 instructions on a CPU that lacks them. Only this header
/// (plain declarations) and <string.h> are shared.

namespace attnlab::kernels {

/// y[0:rows, c0:c1) = x[0:rows, 0:in) · Wᵀ over the packed weights (linear.hpp's PackedWeights:
/// panel p holds W[16p + c, k] at packed[(p·in + k)·16 + c]), then + bias[c] where `bias` is not
/// null, then + residual[r·ldy + c] where `residual` is not null (a skip connection of y's shape
/// and stride): each a float addition in that order, made in registers before the one store. The
/// columns [c0, c1) are whole column blocks of the kernel (DenseKernel::block_columns, a multiple
/// of 16), except that c1 may stop at the weights' row count. x has row stride ldx, y row stride
/// ldy (floats).
using DenseProduct = void (*)(const float* x, long ldx, long rows, const float* packed, long in,
                              long c0, long c1, float* y, long ldy, const float* bias,
                              const float* residual);

/// y[0:rows, 0:cols) = x[0:rows, 0:in) · M for a row-major M [in, ·] with row stride ldm: the
/// attention's P·V (P the weights, M = V). ldm must be a multiple of 16 and ≥ cols rounded up to
/// 16 (the kernel reads whole panels of 16 columns). Each output cell is one sum over k = 0 … in−1
/// in order (a fused multiply-add per k where the path has FMA), so zero weights before or after
/// a row's visible keys leave its sum exactly as over the visible keys alone (for finite V).
using MatrixProduct = void (*)(const float* x, long ldx, long rows, const float* m, long ldm,
                               long in, long cols, float* y, long ldy);

/// Sums over one row of weights p [n] for the per-row statistics (HeadStats), in double: Σ p,
/// max p, Σ p², Σ p³ and the entropy −Σ p ln max(p, FLT_MIN) (p ln p formed in float with the
/// path's vectorised log, Cephes' polynomial, within 2 ulp; exactly 0 for p = 0).
struct Moments {
  double total, max, sum_sq, sum_cube, entropy;
};
using RowMoments = Moments (*)(const float* p, long n);

/// The softmax of one span of n ≥ 1 raw scores x' at factor b (> 0): m = max x', and when m is
/// finite w_j = e_j / Σ e, e_j = exp(t_j), t_j = max((x'_j − m)·b, −104), the sum in double;
/// returns m (w is left untouched when m is ±inf: the caller's cases). exp is the path's own
/// vectorised one (Cody–Waite reduction and Cephes' degree-6 polynomial, within 2 ulp; 0 at
/// −104), the same arithmetic for every element whatever its place in the row, so a row gives the
/// same bits wherever it lies in memory.
/// With `moments` (not null) and m finite, also the row's Moments in the same passes: Σ w, max w,
/// Σ w², Σ w³ over the weights as stored (as RowMoments gives them), and the entropy without a
/// logarithm per weight: with Z = Σ e and ln p_j = t_j − ln Z,
///   −Σ p ln p = ln Z − (Σ e_j t_j) / Z,
/// both terms ≥ 0 (Z ≥ 1: the maximum contributes e^0 = 1; t ≤ 0), so nothing cancels; e_j t_j
/// summed in double. It is the entropy of e / Z, the weights before their float rounding.
using SoftmaxSpan = float (*)(const float* x, long n, float b, float* w, Moments* moments);

/// `iterations` rounds of `chains` independent acc = acc·a + b updates on the widest vectors of
/// the path (one FMA each where the path has FMA, else a multiply and an add); returns a sum of
/// the accumulators so that nothing is optimised away. For the bench's peak measurement.
using FmaChains = float (*)(long iterations, float seed);

/// One instruction-set path's kernels and their register blocking.
struct DenseKernel {
  const char* name;         ///< "avx512", "avx2" or "baseline".
  DenseProduct product;
  MatrixProduct times;
  SoftmaxSpan softmax;
  RowMoments moments;
  FmaChains chains;
  int block_rows;           ///< Rows of x per micro-kernel step.
  int block_columns;        ///< Output columns per micro-kernel step (a multiple of 16).
  int lanes;                ///< Floats per vector register.
  int chain_count;          ///< Independent chains FmaChains runs.
  bool fma;                 ///< Fused multiply-add (2 flops per lane per instruction).
};

/// The tables, defined in the three kernel files (null `product` when the file was not built
/// for this processor family).
extern const DenseKernel kAvx512;
extern const DenseKernel kAvx2;
extern const DenseKernel kBaseline;

}  // namespace attnlab::kernels
