// Weights as stored (weight_matrix.hpp): segments of a file's tensors, the rotate-half row
// index, and the products — panels dequantised per column block for the dense kernel, the
// one-row kernel over the stored rows. The kernels are the CPU path's (cpu/quant_kernels.hpp,
// cpu/dense_kernels.hpp).

#include "model/weight_matrix.hpp"

#include <omp.h>

#include <algorithm>
#include <exception>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/positions.hpp"
#include "cpu/cpu_path_internal.hpp"
#include "model/linear.hpp"

namespace attnlab::linear {
namespace {

constexpr int kPanel = 16;  // PackedWeights::kPanel: output columns per packed panel

/// The path's kernels for ggml type `type` (null members: none).
const kernels::QuantType* kernelFor(const kernels::QuantKernel& k, std::uint32_t type) {
  switch (type) {
    case 0: return &k.f32;
    case 1: return &k.f16;
    case 2: return &k.q4_0;
    case 3: return &k.q4_1;
    case 6: return &k.q5_0;
    case 7: return &k.q5_1;
    case 8: return &k.q8_0;
    case 10: return &k.q2_k;
    case 11: return &k.q3_k;
    case 12: return &k.q4_k;
    case 13: return &k.q5_k;
    case 14: return &k.q6_k;
    case 20: return &k.iq4_nl;
    case 23: return &k.iq4_xs;
    case 30: return &k.bf16;
    default: return nullptr;
  }
}

constexpr std::uint32_t kSupported[] = {0, 1, 2, 3, 6, 7, 8, 10, 11, 12, 13, 14, 20, 23, 30};

/// Bytes `elements` elements of `type` take (whole blocks).
std::size_t bytesOf(std::uint32_t type, Eigen::Index elements) {
  const GgmlTypeInfo* info = ggmlTypeInfo(type);
  return static_cast<std::size_t>(elements / info->block_elements) *
         static_cast<std::size_t>(info->block_bytes);
}

/// A 64-byte aligned float buffer of the calling thread, at least `count` floats.
float* threadBuffer(std::size_t count) {
  struct Buffer {
    float* data = nullptr;
    std::size_t size = 0;
    ~Buffer() { std::free(data); }
  };
  thread_local Buffer buffer;
  if (buffer.size < count) {
    std::free(buffer.data);
    buffer.data = static_cast<float*>(std::aligned_alloc(64, (count * sizeof(float) + 63) / 64 * 64));
    buffer.size = buffer.data != nullptr ? count : 0;
    if (buffer.data == nullptr) throw std::bad_alloc();
  }
  return buffer.data;
}

/// The segment holding row r.
const WeightMatrix::Segment& segmentOf(const WeightMatrix& w, Eigen::Index r) {
  for (const WeightMatrix::Segment& s : w.segments()) {
    if (r >= s.row0 && r < s.row0 + s.stored.rows) return s;
  }
  throw Error(ErrorCode::kInternal, "weight row " + std::to_string(r) + " does not exist");
}

/// f(rows, r0, r1, y) over rows [a, b) of W that segment s holds (rows of W, not of the
/// segment): one call over the stored rows when the segment reads them in order, else one a row
/// through its rotate-half index (r0 = 0, r1 = 1); y receives row a's product first.
template <class F>
void segmentRuns(const WeightMatrix::Segment& s, Eigen::Index a, Eigen::Index b, float* y, F f) {
  if (s.order.empty()) {
    f(s.stored.data, static_cast<long>(a - s.row0), static_cast<long>(b - s.row0), y);
    return;
  }
  for (Eigen::Index r = a; r < b; ++r) f(s.rowData(r - s.row0), 0L, 1L, y + (r - a));
}

thread_local bool t_int8_activations = false;

/// x [in] quantised for the int8 products in blocks of `block` (32 or 256), into this thread's
/// buffers for that block size (a matrix may mix types: one of each at once), reused from one
/// product to the next. Valid until this thread quantises with the same block size again.
const kernels::Int8Activations& quantised(const float* x, Eigen::Index in, int block) {
  struct Buffers {
    std::vector<float> d;
    std::vector<signed char> q;
    std::vector<short> sums16;
    kernels::Int8Activations view;
  };
  thread_local Buffers by32, by256;
  Buffers& b = block == 32 ? by32 : by256;
  b.d.resize(static_cast<std::size_t>(in / block));
  b.q.resize(static_cast<std::size_t>(in));
  b.sums16.resize(static_cast<std::size_t>(in / 16));
  kernels::quantiseActivations(x, static_cast<long>(in), block, b.d.data(), b.q.data(), b.sums16.data());
  b.view = {block, b.d.data(), b.q.data(), b.sums16.data()};
  return b.view;
}

/// y[0, out) = W · x with the one-row kernels: one OpenMP region, thread t takes output rows
/// [out·t/T, out·(t+1)/T) across segments. Under an Int8ActivationsScope the segments whose type
/// has an int8 kernel multiply x quantised once per block size (before the region).
void oneRow(const WeightMatrix& w, const float* x, float* y, const kernels::QuantKernel& kernel) {
  const Eigen::Index out = w.out();
  const auto in = static_cast<long>(w.in());
  const double weights = static_cast<double>(out) * static_cast<double>(in);
  const bool parallel = !omp_in_parallel() && omp_get_max_threads() > 1 && weights >= (1 << 16);
  const kernels::Int8Activations* x32 = nullptr;
  const kernels::Int8Activations* x256 = nullptr;
  if (t_int8_activations) {
    for (const WeightMatrix::Segment& s : w.segments()) {
      const int block = kernelFor(kernel, s.stored.type)->int8_block;
      if (block == 32 && x32 == nullptr) x32 = &quantised(x, in, 32);
      if (block == 256 && x256 == nullptr) x256 = &quantised(x, in, 256);
    }
  }
#pragma omp parallel if (parallel)
  {
    const Eigen::Index threads = omp_get_num_threads(), t = omp_get_thread_num();
    const Eigen::Index lo = out * t / threads, hi = out * (t + 1) / threads;
    for (const WeightMatrix::Segment& s : w.segments()) {
      const Eigen::Index a = std::max(lo, s.row0), b = std::min(hi, s.row0 + s.stored.rows);
      if (a >= b) continue;
      const kernels::QuantType& k = *kernelFor(kernel, s.stored.type);
      const auto row_bytes = static_cast<long>(s.stored.row_bytes);
      const kernels::Int8Activations* q = k.int8_block == 32 ? x32 : x256;
      if (k.int8 != nullptr && q != nullptr) {
        segmentRuns(s, a, b, y + a, [&](const unsigned char* rows, long r0, long r1, float* yr) {
          k.int8(rows, row_bytes, in, q, 1, r0, r1, yr, 0);
        });
      } else {
        segmentRuns(s, a, b, y + a, [&](const unsigned char* rows, long r0, long r1, float* yr) {
          k.product(rows, row_bytes, in, x, r0, r1, yr);
        });
      }
    }
  }
}

/// Asks the processor to bring the stored bytes of rows [c0, c1) towards its caches (a thread
/// calls it for its next column block before the product of this one, which takes far longer
/// than reading them from memory).
void prefetchRows(const WeightMatrix& w, Eigen::Index c0, Eigen::Index c1) {
  for (Eigen::Index r = c0; r < c1; ++r) {
    const WeightMatrix::Segment& s = segmentOf(w, r);
    const unsigned char* row = s.rowData(r - s.row0);
    for (std::size_t b = 0; b < s.stored.row_bytes; b += 64) __builtin_prefetch(row + b, 0, 1);
  }
}

/// Rows [c0, c1) of W (c1 − c0 ≤ the dense kernel's block) dequantised into `panel` in
/// PackedWeights' layout: panel p holds W[c0 + 16p + c, k] at panel[(p·in + k)·16 + c], zero
/// past c1. 256 elements of 16 rows at a time (the path's QuantPanel: decoded into a tile in the
/// first-level cache, transposed in registers); rows of two types (a segment's edge inside the
/// panel) go one type at a time through the same tile's columns.
void fillPanels(const WeightMatrix& w, const kernels::QuantKernel& kernel, Eigen::Index c0,
                Eigen::Index c1, float* panel) {
  constexpr Eigen::Index kChunk = 256;  // a multiple of every block size (32, 256) and of 16
  const Eigen::Index in = w.in();
  for (Eigen::Index p0 = c0; p0 < c1; p0 += kPanel) {
    float* dst = panel + (p0 - c0) / kPanel * in * kPanel;
    const int rows = static_cast<int>(std::min<Eigen::Index>(kPanel, c1 - p0));
    const unsigned char* data[kPanel];
    std::uint32_t types[kPanel];
    for (int c = 0; c < rows; ++c) {
      const WeightMatrix::Segment& s = segmentOf(w, p0 + c);
      data[c] = s.rowData(p0 + c - s.row0);
      types[c] = s.stored.type;
    }
    const bool one_type = std::all_of(types, types + rows, [&](std::uint32_t t) { return t == types[0]; });
    for (Eigen::Index k0 = 0; k0 < in; k0 += kChunk) {
      const Eigen::Index len = std::min(kChunk, in - k0);
      float* d = dst + k0 * kPanel;
      const unsigned char* at[kPanel];
      for (int c = 0; c < rows; ++c) at[c] = data[c] + bytesOf(types[c], k0);
      if (one_type) {
        kernelFor(kernel, types[0])->panel(at, rows, static_cast<long>(len), d);
        continue;
      }
      // Mixed types: each row on its own, placed in its column.
      alignas(64) float single[kChunk * kPanel];
      for (Eigen::Index k = 0; k < len; ++k)
        for (int c = rows; c < kPanel; ++c) d[k * kPanel + c] = 0.0f;
      for (int c = 0; c < rows; ++c) {
        kernelFor(kernel, types[c])->panel(&at[c], 1, static_cast<long>(len), single);
        for (Eigen::Index k = 0; k < len; ++k) d[k * kPanel + c] = single[k * kPanel];
      }
    }
  }
}

}  // namespace

bool WeightMatrix::supports(std::uint32_t type) {
  return kernelFor(kernels::kQuantBaseline, type) != nullptr;
}

std::string WeightMatrix::supportedTypeNames() {
  std::string names;
  for (const std::uint32_t t : kSupported) {
    if (!names.empty()) names += ", ";
    names += ggmlTypeName(t);
  }
  return names;
}

std::size_t WeightMatrix::bytes() const {
  std::size_t total = 0;
  for (const Segment& s : segments_)
    total += s.stored.row_bytes * static_cast<std::size_t>(s.stored.rows);
  return total;
}

std::uint32_t WeightMatrix::mainType() const {
  const Segment* most = nullptr;
  for (const Segment& s : segments_) {
    if (most == nullptr || s.stored.rows > most->stored.rows) most = &s;
  }
  return most != nullptr ? most->stored.type : 0;
}

void WeightMatrix::append(StoredRows rows) {
  if (!supports(rows.type)) {
    throw Error(ErrorCode::kInternal,
                "tensor " + rows.name + ": no kernel for " + ggmlTypeName(rows.type));
  }
  if (!empty() && rows.cols != in_) {
    throw Error(ErrorCode::kInternal, "tensor " + rows.name + ": rows of " +
                                          std::to_string(rows.cols) + " appended to rows of " +
                                          std::to_string(in_));
  }
  const GgmlTypeInfo* info = ggmlTypeInfo(rows.type);
  if (rows.cols % info->block_elements != 0 || rows.row_bytes != bytesOf(rows.type, rows.cols)) {
    throw Error(ErrorCode::kInternal, "tensor " + rows.name + ": rows of " +
                                          std::to_string(rows.row_bytes) + " bytes for " +
                                          std::to_string(rows.cols) + " " + ggmlTypeName(rows.type) +
                                          " elements");
  }
  Segment s;
  s.row0 = out_;
  in_ = rows.cols;
  out_ += rows.rows;
  s.stored = std::move(rows);
  segments_.push_back(std::move(s));
}

void WeightMatrix::permuteRotateHalf(Eigen::Index row0, int heads, int d) {
  const Eigen::Index n = static_cast<Eigen::Index>(heads) * d;
  const auto seg = std::find_if(segments_.begin(), segments_.end(), [&](const Segment& s) {
    return s.row0 <= row0 && row0 + n <= s.row0 + s.stored.rows;
  });
  if (seg == segments_.end()) {
    throw Error(ErrorCode::kInternal, "rotate-half rows outside one weight tensor");
  }
  if (seg->order.empty()) {
    seg->order.resize(static_cast<std::size_t>(seg->stored.rows));
    for (std::size_t i = 0; i < seg->order.size(); ++i) seg->order[i] = static_cast<std::int32_t>(i);
  }
  const std::vector<int> interleaved = rotateHalfToInterleaved(d);
  const std::vector<std::int32_t> old = seg->order;
  const Eigen::Index base = row0 - seg->row0;
  for (int h = 0; h < heads; ++h) {
    for (int j = 0; j < d; ++j) {
      const auto to = static_cast<std::size_t>(base + h * d + j);
      const auto from = static_cast<std::size_t>(base + h * d + interleaved[static_cast<std::size_t>(j)]);
      seg->order[to] = old[from];
    }
  }
}

void WeightMatrix::row(Eigen::Index r, float* out) const {
  const Segment& s = segmentOf(*this, r);
  kernelFor(kernels::activeQuantKernel(), s.stored.type)
      ->dequantise(s.rowData(r - s.row0), static_cast<long>(in_), out);
}

Matrix WeightMatrix::dequantised() const {
  Matrix m(out_, in_);
  for (Eigen::Index r = 0; r < out_; ++r) row(r, m.row(r).data());
  return m;
}

namespace {

/// Whether every segment of W has an int8 one-row kernel on this path (`gemm`: and an int8 GEMM).
bool allInt8(const WeightMatrix& w, const kernels::QuantKernel& kernel, bool gemm) {
  return std::all_of(w.segments().begin(), w.segments().end(), [&](const WeightMatrix::Segment& s) {
    const kernels::QuantType& k = *kernelFor(kernel, s.stored.type);
    return k.int8 != nullptr && (!gemm || k.int8_gemm != nullptr);
  });
}

/// The rows of x [n, in] quantised for the int8 products in blocks of `block` (32 or 256), one
/// view a row; the storage lives as long as this object.
struct QuantisedRows {
  std::vector<float> d;
  std::vector<signed char> q;
  std::vector<short> sums16;
  std::vector<kernels::Int8Activations> rows;

  QuantisedRows(const Matrix& x, int block) {
    const Eigen::Index n = x.rows(), in = x.cols();
    d.resize(static_cast<std::size_t>(n * (in / block)));
    q.resize(static_cast<std::size_t>(n * in));
    sums16.resize(static_cast<std::size_t>(n * (in / 16)));
    rows.resize(static_cast<std::size_t>(n));
    const bool parallel = !omp_in_parallel() && omp_get_max_threads() > 1 && n * in >= (1 << 16);
#pragma omp parallel for schedule(static) if (parallel)
    for (Eigen::Index i = 0; i < n; ++i) {
      float* di = d.data() + i * (in / block);
      signed char* qi = q.data() + i * in;
      short* si = sums16.data() + i * (in / 16);
      kernels::quantiseActivations(x.row(i).data(), static_cast<long>(in), block, di, qi, si);
      rows[static_cast<std::size_t>(i)] = {block, di, qi, si};
    }
  }
};

/// The sums Σ q of x_i's sub-blocks of `sub` elements, two a word, for the int8 GEMM's blocks
/// of `block` (quant_kernels.hpp: QuantInt8Gemm's pairs), one vector a row.
std::vector<std::vector<int>> subBlockPairs(const QuantisedRows& x, long in, int block, int sub) {
  const int subs = block / sub, pairs = (subs + 1) / 2;
  std::vector<std::vector<int>> out(x.rows.size());
  for (std::size_t i = 0; i < x.rows.size(); ++i) {
    const short* s16 = x.rows[i].sums16;
    auto sum = [&](long j) {  // sub-block j of the row
      return sub == 16 ? int{s16[j]} : s16[2 * j] + s16[2 * j + 1];
    };
    std::vector<int>& row = out[i];
    row.resize(static_cast<std::size_t>(in / block * pairs));
    for (long k = 0; k < in / block; ++k) {
      for (int p = 0; p < pairs; ++p) {
        const long j = k * subs + 2 * p;
        const int lo = sum(j), hi = 2 * p + 1 < subs ? sum(j + 1) : 0;
        row[static_cast<std::size_t>(k * pairs + p)] = static_cast<int>(
            (static_cast<unsigned>(lo) & 0xFFFFu) | (static_cast<unsigned>(hi) << 16));
      }
    }
  }
  return out;
}

/// This thread's panel for the int8 GEMM: 16 rows of `in` elements in blocks of `block`,
/// sub-blocks of `sub` (quant_kernels.hpp: Int8Panel), reused from one product to the next.
kernels::Int8Panel int8Panel(long in, int block, int sub) {
  struct Buffers {
    std::vector<unsigned char> u;
    std::vector<short> sc, mins;
    std::vector<float> d, dmin;
  };
  thread_local Buffers b;
  const long blocks = in / block, subs = block / sub;
  b.u.resize(static_cast<std::size_t>(in * 16));
  b.sc.resize(static_cast<std::size_t>(blocks * subs * 32));
  b.mins.resize(static_cast<std::size_t>(blocks * ((subs + 1) / 2) * 32));
  b.d.resize(static_cast<std::size_t>(blocks * 16));
  b.dmin.resize(static_cast<std::size_t>(blocks * 16));
  return {b.u.data(), b.sc.data(), b.mins.data(), b.d.data(), b.dmin.data()};
}

/// Prompts of fewer rows run the one-row int8 kernel kInt8Rows rows at a time: decoding a panel
/// costs more than it saves.
constexpr Eigen::Index kGemmMinRows = 8;

/// Output rows [c0, c1) (one panel, c1 − c0 ≤ 16) of productInt8: the int8 GEMM where the rows
/// are of one type that has one and x has kGemmMinRows rows or more, else the one-row kernel.
void int8Panel16(const WeightMatrix& w, const Matrix& x, Eigen::Index c0, Eigen::Index c1,
                 const kernels::QuantKernel& quant, const std::optional<QuantisedRows>& x32,
                 const std::optional<QuantisedRows>& x256,
                 const std::vector<const int*> (&pair_rows)[3], Matrix& y) {
  const Eigen::Index n = x.rows(), out = w.out();
  const auto in = static_cast<long>(w.in());
  const int rows = static_cast<int>(c1 - c0);
  const WeightMatrix::Segment& first = segmentOf(w, c0);
  const kernels::QuantType& k = *kernelFor(quant, first.stored.type);
  if (n >= kGemmMinRows && k.int8_gemm != nullptr && c1 <= first.row0 + first.stored.rows) {
    const unsigned char* data[kPanel];
    for (int r = 0; r < rows; ++r) data[r] = first.rowData(c0 + r - first.row0);
    const long blocks = in / k.int8_block;
    const kernels::Int8Panel panel = int8Panel(in, k.int8_block, k.int8_sub);
    k.int8_panel(data, rows, blocks, panel);
    const QuantisedRows& q = k.int8_block == 32 ? *x32 : *x256;
    const int which = k.int8_block == 32 ? 0 : k.int8_sub == 32 ? 1 : 2;
    for (Eigen::Index i0 = 0; i0 < n; i0 += kernels::kInt8GemmRows) {
      const int nx = static_cast<int>(std::min<Eigen::Index>(kernels::kInt8GemmRows, n - i0));
      k.int8_gemm(panel, blocks, q.rows.data() + i0, pair_rows[which].data() + i0, nx,
                  y.data() + i0 * out + c0, static_cast<long>(out), rows);
    }
    return;
  }
  for (Eigen::Index i0 = 0; i0 < n; i0 += kernels::kInt8Rows) {
    const int nx = static_cast<int>(std::min<Eigen::Index>(kernels::kInt8Rows, n - i0));
    for (const WeightMatrix::Segment& s : w.segments()) {
      const Eigen::Index a = std::max(c0, s.row0), b = std::min(c1, s.row0 + s.stored.rows);
      if (a >= b) continue;
      const kernels::QuantType& ks = *kernelFor(quant, s.stored.type);
      const auto row_bytes = static_cast<long>(s.stored.row_bytes);
      const QuantisedRows& q = ks.int8_block == 32 ? *x32 : *x256;
      segmentRuns(s, a, b, y.data() + i0 * out + a, [&](const unsigned char* rows_at, long r0, long r1, float* yr) {
        ks.int8(rows_at, row_bytes, in, q.rows.data() + i0, nx, r0, r1, yr, static_cast<long>(out));
      });
    }
  }
}

/// y [n, out] = x · Wᵀ (+ bias, + residual) with the int8 kernels (every segment has one): x
/// quantised once a row; threads take panels of 16 output rows. A panel of one type with an int8
/// GEMM (n ≥ kGemmMinRows) is decoded once into the thread's panel, then every row of x passes
/// kInt8GemmRows at a time; other rows run the one-row int8 kernel kInt8Rows rows of x at a time
/// (each weight block decoded once for them; row i then equals x_i's one-row product bit for bit).
Matrix productInt8(const Matrix& x, const WeightMatrix& w, const Vector* bias,
                   const Matrix* residual, const kernels::QuantKernel& quant) {
  const Eigen::Index n = x.rows(), out = w.out();
  const auto in = static_cast<long>(w.in());
  bool need32 = false, need256 = false;
  for (const WeightMatrix::Segment& s : w.segments()) {
    const int block = kernelFor(quant, s.stored.type)->int8_block;
    need32 = need32 || block == 32;
    need256 = need256 || block == 256;
  }
  std::optional<QuantisedRows> x32, x256;
  if (need32) x32.emplace(x, 32);
  if (need256) x256.emplace(x, 256);
  // The sub-block sums each GEMM type needs, by (block, sub).
  std::vector<std::vector<int>> pairs_32_32, pairs_256_32, pairs_256_16;
  auto pairsFor = [&](int block, int sub) -> std::vector<std::vector<int>>& {
    return block == 32 ? pairs_32_32 : sub == 32 ? pairs_256_32 : pairs_256_16;
  };
  if (n >= kGemmMinRows) {
    for (const WeightMatrix::Segment& s : w.segments()) {
      const kernels::QuantType& k = *kernelFor(quant, s.stored.type);
      std::vector<std::vector<int>>& p = pairsFor(k.int8_block, k.int8_sub);
      if (k.int8_gemm != nullptr && p.empty())
        p = subBlockPairs(k.int8_block == 32 ? *x32 : *x256, in, k.int8_block, k.int8_sub);
    }
  }
  std::vector<const int*> pair_rows[3];
  for (int which = 0; which < 3; ++which) {
    const auto& p = which == 0 ? pairs_32_32 : which == 1 ? pairs_256_32 : pairs_256_16;
    for (const std::vector<int>& row : p) pair_rows[which].push_back(row.data());
  }
  Matrix y(n, out);
  const Eigen::Index panels = (out + kPanel - 1) / kPanel;
  const double macs = static_cast<double>(n) * static_cast<double>(in) * static_cast<double>(out);
  const bool parallel = !omp_in_parallel() && omp_get_max_threads() > 1 && macs >= (1 << 18);
  std::exception_ptr error;
  // Thread t takes panels [P·t/T, P·(t+1)/T) and asks for the next panel's stored bytes before
  // multiplying this one (its first touch from memory then overlaps the arithmetic).
#pragma omp parallel if (parallel)
  {
    const Eigen::Index threads = omp_get_num_threads(), t = omp_get_thread_num();
    const Eigen::Index lo = panels * t / threads, hi = panels * (t + 1) / threads;
    for (Eigen::Index c = lo; c < hi; ++c) {
      try {
        const Eigen::Index c0 = c * kPanel, c1 = std::min(out, c0 + kPanel);
        if (c + 1 < hi) prefetchRows(w, c1, std::min(out, c1 + kPanel));
        int8Panel16(w, x, c0, c1, quant, x32, x256, pair_rows, y);
      } catch (...) {
#pragma omp critical(attnlab_int8_panels)
        error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
  if (bias) y.rowwise() += bias->transpose();
  if (residual) y += *residual;
  return y;
}

/// timesTransposed() on the kernels of one CPU path.
Matrix product(const Matrix& x, const WeightMatrix& w, const Vector* bias, const Matrix* residual,
               const kernels::DenseKernel& dense, const kernels::QuantKernel& quant) {
  linear::checkProductShapes(x, w.in(), w.out(), bias, residual);
  const Eigen::Index n = x.rows(), out = w.out(), in = w.in();
  Matrix y(n, out);
  if (n == 0 || out == 0) return y;
  if (n == 1) {
    oneRow(w, x.data(), y.data(), quant);
    if (bias) y.row(0) += bias->transpose();
    if (residual) y.row(0) += residual->row(0);
    return y;
  }
  // Int8 activations: prompts of kGemmMinRows rows or more where every type has an int8 GEMM.
  if (t_int8_activations && allInt8(w, quant, n >= kGemmMinRows))
    return productInt8(x, w, bias, residual, quant);
  const Eigen::Index step = dense.block_columns;
  const Eigen::Index blocks = (out + step - 1) / step;
  const double macs = static_cast<double>(n) * in * out;
  const bool parallel = !omp_in_parallel() && omp_get_max_threads() > 1 && macs >= (1 << 18);
  const auto panel_floats = static_cast<std::size_t>(step * in);
  // Threads take whole column blocks, as the float32 product does; each dequantises its block's
  // rows into a panel of its own, which stays in its cache while every row block of x passes.
  std::exception_ptr error;
#pragma omp parallel if (parallel)
  {
    float* panel = nullptr;
    try {
      panel = threadBuffer(panel_floats);
    } catch (...) {
#pragma omp critical(attnlab_weight_panels)
      error = std::current_exception();
    }
#pragma omp for schedule(static)
    for (Eigen::Index b = 0; b < blocks; ++b) {
      if (panel == nullptr) continue;
      const Eigen::Index c0 = b * step;
      const Eigen::Index c1 = std::min(out, c0 + step);
      fillPanels(w, quant, c0, c1, panel);
      if (c1 < out) prefetchRows(w, c1, std::min(out, c1 + step));
      dense.product(x.data(), in, n, panel, in, 0, c1 - c0, y.data() + c0, out,
                    bias ? bias->data() + c0 : nullptr,
                    residual ? residual->data() + c0 : nullptr);
    }
  }
  if (error) std::rethrow_exception(error);
  return y;
}

}  // namespace

Matrix timesTransposed(const Matrix& x, const WeightMatrix& w, const Vector* bias,
                       const Matrix* residual) {
  return product(x, w, bias, residual, kernels::activeDenseKernel(), kernels::activeQuantKernel());
}

Matrix timesTransposedOn(CpuPath path, const Matrix& x, const WeightMatrix& w, const Vector* bias,
                         const Matrix* residual) {
  return product(x, w, bias, residual, kernels::denseKernel(path), kernels::quantKernel(path));
}

Int8ActivationsScope::Int8ActivationsScope(bool on) : previous_(t_int8_activations) {
  t_int8_activations = on;
}

Int8ActivationsScope::~Int8ActivationsScope() { t_int8_activations = previous_; }

bool int8Activations() { return t_int8_activations; }

Eigen::VectorXf timesVector(const WeightMatrix& w, const float* x) {
  Eigen::VectorXf z(w.out());
  if (w.out() > 0) oneRow(w, x, z.data(), kernels::activeQuantKernel());
  return z;
}

}  // namespace attnlab::linear
