// Weights kept in their GGUF blocks for the one-row products (quant_rows.hpp): the copy of the
// blocks at load, the rotate-half reordering of W_Q / W_K rows, and the split of a product over
// the OpenMP threads; the kernels are the CPU path's (cpu/quant_kernels.hpp).

#include "model/quant_rows.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "attnlab/error.hpp"
#include "attnlab/positions.hpp"
#include "cpu/cpu_path_internal.hpp"

namespace attnlab::linear {
namespace {

/// The path's kernel for ggml type `type` (null: none).
kernels::QuantRowProduct kernelFor(const kernels::QuantKernel& k, std::uint32_t type) {
  switch (type) {
    case 2:
      return k.q4_0;
    case 3:
      return k.q4_1;
    case 6:
      return k.q5_0;
    case 7:
      return k.q5_1;
    case 8:
      return k.q8_0;
    case 12:
      return k.q4_k;
    case 13:
      return k.q5_k;
    case 14:
      return k.q6_k;
    default:
      return nullptr;
  }
}

}  // namespace

bool QuantRows::supports(std::uint32_t type) {
  return kernelFor(kernels::kQuantBaseline, type) != nullptr;
}

void QuantRows::append(const GgufTensor& t) {
  const GgmlTypeInfo* info = ggmlTypeInfo(t.type);
  if (!supports(t.type) || info == nullptr) {
    throw Error(ErrorCode::kInternal, "no one-row kernel for " + ggmlTypeName(t.type));
  }
  const Eigen::Index rows = t.rows(), cols = t.cols();
  if (!empty() && cols != in_) {
    throw Error(ErrorCode::kInternal, "quantised rows of " + std::to_string(cols) +
                                          " appended to rows of " + std::to_string(in_));
  }
  Segment s;
  s.type = t.type;
  s.row0 = out_;
  s.rows = rows;
  s.row_bytes = static_cast<std::size_t>(cols / info->block_elements) *
                static_cast<std::size_t>(info->block_bytes);
  s.offset = data_.size();
  const std::size_t bytes = s.row_bytes * static_cast<std::size_t>(rows);
  if (bytes != t.bytes) throw Error(ErrorCode::kInternal, "tensor " + t.name + ": size mismatch");
  data_.resize(data_.size() + bytes);
  if (bytes > 0) std::memcpy(data_.data() + s.offset, t.data, bytes);
  segments_.push_back(s);
  in_ = cols;
  out_ += rows;
}

void QuantRows::permuteRotateHalf(Eigen::Index row0, int heads, int d) {
  const Eigen::Index n = static_cast<Eigen::Index>(heads) * d;
  const auto seg = std::find_if(segments_.begin(), segments_.end(), [&](const Segment& s) {
    return s.row0 <= row0 && row0 + n <= s.row0 + s.rows;
  });
  if (seg == segments_.end()) {
    throw Error(ErrorCode::kInternal, "rotate-half rows outside one quantised tensor");
  }
  const std::vector<int> order = rotateHalfToInterleaved(d);
  unsigned char* base =
      data_.data() + seg->offset + static_cast<std::size_t>(row0 - seg->row0) * seg->row_bytes;
  const std::vector<unsigned char> old(base, base + static_cast<std::size_t>(n) * seg->row_bytes);
  for (int h = 0; h < heads; ++h) {
    for (int j = 0; j < d; ++j) {
      const auto to = static_cast<std::size_t>(h * d + j);
      const auto from = static_cast<std::size_t>(h * d + order[static_cast<std::size_t>(j)]);
      std::memcpy(base + to * seg->row_bytes, old.data() + from * seg->row_bytes, seg->row_bytes);
    }
  }
}

void QuantRows::row(Eigen::Index r, float* out) const {
  for (const Segment& s : segments_) {
    if (r >= s.row0 && r < s.row0 + s.rows) {
      const auto* p = reinterpret_cast<const std::byte*>(
          data_.data() + s.offset + static_cast<std::size_t>(r - s.row0) * s.row_bytes);
      dequantize(s.type, p, static_cast<std::size_t>(in_), out);
      return;
    }
  }
  throw Error(ErrorCode::kInternal, "quantised row " + std::to_string(r) + " does not exist");
}

void timesTransposedRow(const float* x, const QuantRows& w, float* y) {
  const kernels::QuantKernel& kernel = kernels::activeQuantKernel();
  const Eigen::Index out = w.out();
  const double weights = static_cast<double>(out) * static_cast<double>(w.in());
  const bool parallel = !omp_in_parallel() && omp_get_max_threads() > 1 && weights >= (1 << 16);
  // One meeting per matrix: thread t takes output rows [out·t/T, out·(t+1)/T), across segments.
#pragma omp parallel if (parallel)
  {
    const Eigen::Index threads = omp_get_num_threads(), t = omp_get_thread_num();
    const Eigen::Index lo = out * t / threads, hi = out * (t + 1) / threads;
    for (const QuantRows::Segment& s : w.segments()) {
      const Eigen::Index a = std::max(lo, s.row0), b = std::min(hi, s.row0 + s.rows);
      if (a >= b) continue;
      kernelFor(kernel, s.type)(w.data() + s.offset, static_cast<long>(s.row_bytes),
                                static_cast<long>(w.in()), x, static_cast<long>(a - s.row0),
                                static_cast<long>(b - s.row0), y + a);
    }
  }
}

QuantRows quantisedRows(const weights::Source& source,
                        std::initializer_list<weights::TensorName> parts) {
  QuantRows q;
  for (const weights::TensorName& name : parts) {
    const GgufTensor* t = source.quantised(name);
    if (t == nullptr) return {};
    q.append(*t);
  }
  return q;
}

RowTable::RowTable(const weights::Source& source, const weights::TensorName& name,
                   Eigen::Index rows, Eigen::Index cols)
    : blocks_(quantisedRows(source, {name})) {
  if (blocks_.empty() || blocks_.out() != rows || blocks_.in() != cols) {
    blocks_ = QuantRows{};
    dense_ = source.matrix(name, rows, cols);  // checks the shape, names what is wrong
  }
}

void RowTable::row(Eigen::Index r, float* out) const {
  if (blocks_.empty()) {
    Eigen::Map<Eigen::RowVectorXf>(out, dense_.cols()) = dense_.row(r);
  } else {
    blocks_.row(r, out);
  }
}

Eigen::VectorXf RowTable::times(const float* x) const {
  if (blocks_.empty()) return dense_ * Eigen::Map<const Eigen::VectorXf>(x, dense_.cols());
  Eigen::VectorXf z(blocks_.out());
  timesTransposedRow(x, blocks_, z.data());
  return z;
}

}  // namespace attnlab::linear
