#pragma once
/// \file quant_rows.hpp
/// Private to the engine: a weight matrix W [out, in] kept in a GGUF file's quantised blocks, for
/// the one-row products of a decoding step (x [1, in] · Wᵀ) and the output layer's logits of one
/// position. A step then reads the file's 4.5–8.5 bits per weight instead of the 32 of the
/// float32 copy (SmolLM2-135M Q4_1: 90 MB a token instead of 540). Each block is dequantised on
/// the fly to exactly the values of the load-time dequantisation and multiplied by the float32
/// activations (cpu/quant_kernels.hpp): the product is the dequantised model's up to the order of
/// the float32 sums. Products of several rows (a prompt) keep the packed float32 path (linear.hpp).

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "attnlab/gguf.hpp"
#include "attnlab/tensor.hpp"
#include "model/weights.hpp"

namespace attnlab::linear {

/// The rows of W as ggml blocks, one ggml type per appended tensor (a fused W_Q | W_K | W_V may
/// mix types, as Gemma 3's Q4_K_M file does).
class QuantRows {
 public:
  /// True when ggml type `type` has a one-row kernel: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K,
  /// Q6_K.
  static bool supports(std::uint32_t type);

  Eigen::Index out() const { return out_; }
  Eigen::Index in() const { return in_; }
  bool empty() const { return out_ == 0; }
  /// Bytes of blocks held.
  std::size_t bytes() const { return data_.size(); }

  /// Appends the rows of tensor t [rows, cols] (a copy of their blocks) below those held.
  /// Throws Error(kInternal) when t's type has no kernel or its rows are not `in()` long.
  void append(const GgufTensor& t);
  /// Reorders rows [row0, row0 + heads·d) head by head with rotateHalfToInterleaved(d), as
  /// permuteRotateHalfRows() reorders the float32 rows. Throws Error(kInternal) when the range
  /// is not inside one appended tensor.
  void permuteRotateHalf(Eigen::Index row0, int heads, int d);
  /// Row r dequantised into out[0, in) (the values of dequantize(), bit for bit).
  void row(Eigen::Index r, float* out) const;

  /// Rows of one ggml type, contiguous in data_.
  struct Segment {
    std::uint32_t type = 0;
    Eigen::Index row0 = 0, rows = 0;
    std::size_t row_bytes = 0, offset = 0;
  };
  const std::vector<Segment>& segments() const { return segments_; }
  const unsigned char* data() const { return data_.data(); }

 private:
  std::vector<Segment> segments_;
  std::vector<unsigned char> data_;
  Eigen::Index out_ = 0, in_ = 0;
};

/// A [rows, cols] table read row by row (the token embedding) and multiplied by one vector (the
/// output layer's logits): the file's blocks where they have a kernel — the float32 copy is then
/// never made (SmolLM2: 30 MB of Q8_0 instead of 113 MB; Gemma 3 270M: 178 MB instead of
/// 671) — else the float32 matrix.
class RowTable {
 public:
  RowTable() = default;
  /// Tensor `name` [rows, cols] of `source`. Throws what Source::matrix throws (a missing or
  /// wrongly shaped tensor, named).
  RowTable(const weights::Source& source, const weights::TensorName& name, Eigen::Index rows,
           Eigen::Index cols);
  Eigen::Index rows() const { return blocks_.empty() ? dense_.rows() : blocks_.out(); }
  Eigen::Index cols() const { return blocks_.empty() ? dense_.cols() : blocks_.in(); }
  /// Row r into out[0, cols): the dequantised values, as the float32 table holds them.
  void row(Eigen::Index r, float* out) const;
  /// z [rows] = T · x for x [cols]: the one-row kernel over the blocks (timesTransposedRow), else
  /// the float32 product.
  Eigen::VectorXf times(const float* x) const;

 private:
  Matrix dense_;
  QuantRows blocks_;
};

/// y[0, out) = x[0, in) · Wᵀ over the quantised rows with the active CPU path's kernel: one
/// OpenMP region, the output rows split evenly over the threads. x and y hold in() and out()
/// floats.
void timesTransposedRow(const float* x, const QuantRows& w, float* y);

/// The blocks of `parts` stacked in order (the rows of one matrix the model packs, e.g. W_Q,
/// W_K, W_V), or empty rows when any part is not held in blocks QuantRows runs (a safetensors
/// checkpoint, an F16 or F32 tensor): that matrix then has only its float32 copy.
QuantRows quantisedRows(const weights::Source& source,
                        std::initializer_list<weights::TensorName> parts);

}  // namespace attnlab::linear
