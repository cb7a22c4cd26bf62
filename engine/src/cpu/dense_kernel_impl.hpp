// The register-blocked dense product and the FMA chains, written once for every instruction-set
// path (see dense_kernels.hpp). Included by exactly one kernel file per path, which defines:
//   ATTNLAB_KERNEL_TABLE   the table's name (kAvx512, kAvx2, kBaseline)
//   ATTNLAB_KERNEL_NAME    its printed name
//   ATTNLAB_LANES          floats per vector register (16, 8, 4)
//   ATTNLAB_ROWS           rows of x per step
//   ATTNLAB_BLOCK_COLUMNS  output columns per step (16 or 32: one or two packed panels)
//   ATTNLAB_HAS_FMA        1 when y += x·w is one fused multiply-add
// The register budget per step is ROWS × BLOCK_COLUMNS / LANES accumulators plus BLOCK_COLUMNS /
// LANES weight vectors and one broadcast of x, fitted to the path's register file:
//   AVX-512 (32 zmm): 12 rows × 32 columns = 24 accumulators + 2 weights (x broadcast from memory)
//   AVX2 (16 ymm):     6 rows × 16 columns = 12 accumulators + 2 weights + 1 broadcast (BLIS's
//                      Haswell shape)
//   SSE (16 xmm):      3 rows × 16 columns = 12 accumulators + 1 weight + 3 broadcasts
// Nothing here has external linkage but the table (see dense_kernels.hpp for why).

#include <string.h>

#include "cpu/dense_kernels.hpp"

namespace attnlab::kernels {
namespace {

constexpr int kLanes = ATTNLAB_LANES;
constexpr int kRows = ATTNLAB_ROWS;
constexpr int kBlock = ATTNLAB_BLOCK_COLUMNS;
constexpr int kVectors = kBlock / kLanes;  // weight vectors per step
constexpr int kPanel = 16;                 // PackedWeights::kPanel
static_assert(kBlock % kPanel == 0 && kBlock % kLanes == 0, "whole panels, whole vectors");

typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));

inline Vec load(const float* p) {
  Vec v;
  memcpy(&v, p, sizeof v);
  return v;
}

constexpr int kPanelVectors = kPanel / kLanes;  // vectors of one panel
static_assert(kPanelVectors >= 1, "a panel holds whole vectors");

/// What is added to a block's sums before they are stored (DenseProduct): bias[c] for the block's
/// columns c (null: none), then residual[r·ldy + c] (null: none), the same row stride as y.
struct After {
  const float* bias;
  const float* residual;
};

/// Rows [0, R) of x times NV weight vectors of the column block that starts at panel pointer w
/// (panel stride `ps` floats, step `ks` floats from one k to the next: 16 in packed weights, the
/// row stride of a row-major matrix); writes `cols` (≤ NV · kLanes) columns of y, each sum plus
/// `after`'s terms. NV is kVectors, or kPanelVectors for a last block that has only one panel left
/// (the next one does not exist).
template <int R, int NV>
void block(const float* x, long ldx, const float* w, long ps, long ks, long in, float* y,
           long ldy, int cols, After after) {
  constexpr int kCols = NV * kLanes;
  Vec acc[R][NV] = {};
  // Vector v of a step covers columns v·kLanes …: panel (v·kLanes)/16, offset (v·kLanes)%16.
  const float* wv[NV];
  for (int v = 0; v < NV; ++v) wv[v] = w + (v * kLanes / kPanel) * ps + (v * kLanes) % kPanel;
  // Four k-steps per loop turn: the loop's own counter, pointer and branch µops then take an
  // FMA port a quarter as often (measured on a Xeon, MiniLM at 128 tokens: avx2 −4 to −6 %,
  // avx512 −5 %, SSE within noise). Each accumulator's sum keeps its order over k: same bits.
#pragma GCC unroll 4
  for (long k = 0; k < in; ++k) {
    const long off = k * ks;
    if constexpr (kLanes >= 8) {
      Vec b[NV];
      for (int v = 0; v < NV; ++v) b[v] = load(wv[v] + off);
      for (int r = 0; r < R; ++r) {
        const float xr = x[r * ldx + k];
        for (int v = 0; v < NV; ++v) acc[r][v] += xr * b[v];
      }
    } else {
      // Narrow vectors: one weight vector at a time against every row's broadcast.
      float xr[R];
      for (int r = 0; r < R; ++r) xr[r] = x[r * ldx + k];
      for (int v = 0; v < NV; ++v) {
        const Vec b = load(wv[v] + off);
        for (int r = 0; r < R; ++r) acc[r][v] += xr[r] * b;
      }
    }
  }
  if (cols == kCols) {
    if (after.bias) {
      for (int v = 0; v < NV; ++v) {
        const Vec b = load(after.bias + v * kLanes);
        for (int r = 0; r < R; ++r) acc[r][v] += b;
      }
    }
    if (after.residual) {
      for (int r = 0; r < R; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v] += load(after.residual + r * ldy + v * kLanes);
    }
    for (int r = 0; r < R; ++r) memcpy(y + r * ldy, acc[r], sizeof acc[r]);
    return;
  }
  // A narrower last block: element by element, the same additions.
  for (int r = 0; r < R; ++r) {
    float out[kCols];
    memcpy(out, acc[r], sizeof out);
    for (int c = 0; c < cols; ++c) {
      if (after.bias) out[c] += after.bias[c];
      if (after.residual) out[c] += after.residual[r * ldy + c];
    }
    memcpy(y + r * ldy, out, static_cast<unsigned long>(cols) * sizeof(float));
  }
}

/// `after` for the rows from r0 on.
inline After rowsFrom(After after, long r0, long ldy) {
  if (after.residual) after.residual += r0 * ldy;
  return after;
}

template <int R, int NV>
void rowsTail(int rows, const float* x, long ldx, const float* w, long ps, long ks, long in,
              float* y, long ldy, int cols, After after) {
  if constexpr (R > 1) {
    if (rows < R) return rowsTail<R - 1, NV>(rows, x, ldx, w, ps, ks, in, y, ldy, cols, after);
  }
  block<R, NV>(x, ldx, w, ps, ks, in, y, ldy, cols, after);
}

/// Every row of x times one column block of NV weight vectors.
template <int NV>
void columnBlock(const float* x, long ldx, long rows, const float* w, long ps, long ks, long in,
                 float* y, long ldy, int cols, After after) {
  // A short tail (fewer than half a block: 2 rows of AVX2's 6 at 32 or 128 rows) has too few
  // accumulators to hide the FMA latency; the last full block and it are split into two nearly
  // equal blocks instead (8 rows: 4 + 4). Each cell is the same sum over k either way.
  const long tail = rows % kRows;
  const long whole = rows - tail - (tail > 0 && tail < kRows / 2 && rows > kRows ? kRows : 0);
  long r0 = 0;
  for (; r0 < whole; r0 += kRows)
    block<kRows, NV>(x + r0 * ldx, ldx, w, ps, ks, in, y + r0 * ldy, ldy, cols,
                     rowsFrom(after, r0, ldy));
  while (r0 < rows) {
    const long left = rows - r0;
    const int count = static_cast<int>(left > kRows ? (left + 1) / 2 : left);
    rowsTail<kRows, NV>(count, x + r0 * ldx, ldx, w, ps, ks, in, y + r0 * ldy, ldy, cols,
                        rowsFrom(after, r0, ldy));
    r0 += count;
  }
}

/// Columns [c0, c1) of x · B for a B whose column c, row k is at b[(c / 16)·ps + k·ks + c % 16]:
/// packed weights (ps = in·16, ks = 16) or a row-major matrix (ps = 16, ks = its row stride); each
/// cell plus `after`'s terms for column c (After: bias indexed by c, residual like y).
void blocks(const float* x, long ldx, long rows, const float* b, long ps, long ks, long in,
            long c0, long c1, float* y, long ldy, After after) {
  for (long c = c0; c < c1; c += kBlock) {
    const int cols = static_cast<int>(c1 - c < kBlock ? c1 - c : kBlock);
    const float* w = b + (c / kPanel) * ps;
    const After at = {after.bias ? after.bias + c : nullptr,
                      after.residual ? after.residual + c : nullptr};
    // A block wider than a panel reads its second panel only where one exists.
    if (kBlock > kPanel && cols <= kPanel) {
      columnBlock<kPanelVectors>(x, ldx, rows, w, ps, ks, in, y + c, ldy, cols, at);
    } else {
      columnBlock<kVectors>(x, ldx, rows, w, ps, ks, in, y + c, ldy, cols, at);
    }
  }
}

void product(const float* x, long ldx, long rows, const float* packed, long in, long c0, long c1,
             float* y, long ldy, const float* bias, const float* residual) {
  blocks(x, ldx, rows, packed, in * kPanel, kPanel, in, c0, c1, y, ldy, After{bias, residual});
}

void times(const float* x, long ldx, long rows, const float* m, long ldm, long in, long cols,
           float* y, long ldy) {
  blocks(x, ldx, rows, m, kPanel, ldm, in, 0, cols, y, ldy, After{nullptr, nullptr});
}

constexpr int kChains = 12;  // ≥ FMA latency (4 cycles) × 2 ports; 12 registers on every path

template <int... C>
struct Seq {};
template <int N, int... C>
struct MakeSeq : MakeSeq<N - 1, N - 1, C...> {};
template <int... C>
struct MakeSeq<0, C...> {
  using type = Seq<C...>;
};

template <int... C>
inline void step(Vec* acc, Vec a, Vec b, Seq<C...>) {
  ((acc[C] = acc[C] * a + b), ...);
}

float chains(long iterations, float seed) {
  Vec acc[kChains];
  Vec a, b;
  for (int l = 0; l < kLanes; ++l) {
    a[l] = 0.999999f;
    b[l] = 1e-7f * seed;
  }
  for (int c = 0; c < kChains; ++c)
    for (int l = 0; l < kLanes; ++l) acc[c][l] = 0.001f * static_cast<float>(c + l);
  for (long r = 0; r < iterations; ++r) step(acc, a, b, typename MakeSeq<kChains>::type());
  float total = 0;
  for (int c = 0; c < kChains; ++c)
    for (int l = 0; l < kLanes; ++l) total += acc[c][l];
  return total;
}

}  // namespace
}  // namespace attnlab::kernels

#include "cpu/row_kernel_impl.hpp"

namespace attnlab::kernels {

extern const DenseKernel ATTNLAB_KERNEL_TABLE;
const DenseKernel ATTNLAB_KERNEL_TABLE = {ATTNLAB_KERNEL_NAME, &product, &times,  &softmaxSpan,
                                          &rowMoments,        &chains,  kRows,   kBlock,
                                          kLanes,             kChains,  ATTNLAB_HAS_FMA != 0};

}  // namespace attnlab::kernels
