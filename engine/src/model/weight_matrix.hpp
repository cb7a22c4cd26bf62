#pragma once
/// \file weight_matrix.hpp
/// Private to the engine: a model's weight matrix W [out, in] kept as its file stores it — the
/// rows of a memory-mapped GGUF tensor in their ggml type (F32, F16, BF16, Q4_0 … Q6_K, Q2_K,
/// Q3_K, IQ4_NL, IQ4_XS) or of a safetensors tensor in its dtype (F32, F16, BF16) — and the
/// products of the forward pass over it. Nothing is converted at load: memory is the file's size
/// (the weights are the file's pages, shared with the page cache), not 4–7 times it.
///
/// - y = x · Wᵀ for several rows x [n, in] (a prompt): each thread takes whole column blocks of
///   the CPU path's dense kernel; for each it dequantises those rows of W (the path's vector
///   decoders, quant_kernels.hpp) into a packed float32 panel of its own — the layout
///   linear::PackedWeights holds — and runs the same register-blocked kernel over every row of x.
///   The weights are exactly the load-time dequantisation's (dequantize(), gguf.hpp) and the
///   kernel the same, so the product equals, bit for bit, that of the float32 matrix packed once.
/// - One row x [1, in] (a decoding step, the logits of one position): the one-row kernel reads
///   the stored blocks directly (quant_kernels.hpp), the output rows split over the threads.
/// - row(r): one row dequantised (an embedding look-up).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/cpu_path.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab::linear {

/// The rows of one tensor as stored: row r is `row_bytes` bytes at data + r · row_bytes, `cols`
/// elements of ggml type `type` (a safetensors F32 / F16 / BF16 tensor is ggml's F32 / F16 /
/// BF16). `owner` keeps the bytes alive when they are not the model file's (a converted copy);
/// null when they are the mapped file's, which the model keeps open.
struct StoredRows {
  std::uint32_t type = 0;
  Eigen::Index rows = 0, cols = 0;
  const unsigned char* data = nullptr;
  std::size_t row_bytes = 0;
  std::shared_ptr<const void> owner;
  std::string name;  ///< The tensor's name, for errors.
};

/// W [out, in] as stored, in segments of one tensor each (a stacked W_Q | W_K | W_V may mix
/// types, as Gemma 3's Q4_K_M file does).
class WeightMatrix {
 public:
  /// True when the CPU paths read ggml type `type`: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
  /// Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS.
  static bool supports(std::uint32_t type);
  /// The supported types' names, comma-separated, for errors.
  static std::string supportedTypeNames();

  WeightMatrix() = default;
  /// A matrix of one tensor's rows.
  explicit WeightMatrix(StoredRows rows) { append(std::move(rows)); }

  Eigen::Index out() const { return out_; }
  Eigen::Index in() const { return in_; }
  bool empty() const { return out_ == 0; }
  /// Bytes of the stored rows (the file's bytes this matrix reads, or its copies').
  std::size_t bytes() const;
  /// The ggml type of the segment holding the most rows (for the info line).
  std::uint32_t mainType() const;

  /// Appends rows below those held. Throws Error(kInternal) when their type has no kernel, their
  /// width differs from in(), or row_bytes is not what `cols` elements of the type take.
  void append(StoredRows rows);
  /// Reads rows [row0, row0 + heads·d) head by head in rotateHalfToInterleaved(d) order, as
  /// permuteRotateHalfRows() reorders a float32 matrix's rows (HuggingFace's W_Q / W_K, and
  /// those of GGUF files whose converter keeps that layout). The bytes stay where they are: the
  /// segment reads its rows through an index. Throws Error(kInternal) when the range is not
  /// inside one segment.
  void permuteRotateHalf(Eigen::Index row0, int heads, int d);
  /// Row r dequantised into out[0, in) (dequantize()'s values, bit for bit).
  void row(Eigen::Index r, float* out) const;
  /// W as a float32 matrix [out, in] (tests and the occasional caller that needs every value).
  Matrix dequantised() const;

  /// One segment: rows [row0, row0 + rows) of W, one tensor's.
  struct Segment {
    StoredRows stored;
    Eigen::Index row0 = 0;
    /// Row row0 + i reads stored row order[i]; empty: stored row i.
    std::vector<std::int32_t> order;
    const unsigned char* rowData(Eigen::Index i) const {
      const auto s = order.empty() ? i : static_cast<Eigen::Index>(order[static_cast<std::size_t>(i)]);
      return stored.data + static_cast<std::size_t>(s) * stored.row_bytes;
    }
  };
  const std::vector<Segment>& segments() const { return segments_; }

 private:
  std::vector<Segment> segments_;
  Eigen::Index out_ = 0, in_ = 0;
};

/// y = x Wᵀ (+ b) (+ residual): x [n, in] → y [n, out]; b [out] or null, residual [n, out] or
/// null (a transformer block's skip connection), each added as the float32 product's
/// timesTransposed (linear.hpp) adds it. n ≥ 2 dequantises panels for the dense kernel (the
/// float32 matrix's sums, bit for bit); n = 1 runs the one-row kernel over the stored rows (the
/// same sums in another order). Throws Error(kInternal) for shapes that do not fit.
Matrix timesTransposed(const Matrix& x, const WeightMatrix& w, const Vector* b = nullptr,
                       const Matrix* residual = nullptr);

/// timesTransposed() on the kernels of CPU path `path` rather than the active one (tests compare
/// the paths in one process). Throws Error(kInvalidArgument) for a path this CPU lacks.
Matrix timesTransposedOn(CpuPath path, const Matrix& x, const WeightMatrix& w,
                         const Vector* b = nullptr, const Matrix* residual = nullptr);

/// While one lives, the weight products on its thread (timesTransposed and timesVector: a
/// prompt's products, a generation's steps, the logits) multiply Q8_0, Q4_0, Q4_1, Q5_0, Q5_1,
/// Q4_K, Q5_K, Q6_K, IQ4_NL and IQ4_XS weights by the activations quantised to int8 as llama.cpp does
/// (kernels::Int8Activations: ~0.4 % of a product's size off the float32 product, and faster):
/// - one row, and prompts of fewer than 8 rows: the one-row int8 kernels (a prompt's row then
///   equals the one-row product of the same activations bit for bit);
/// - prompts of 8 rows or more: the int8 GEMM over panels of 16 decoded rows (the same bits on
///   every CPU path).
/// A matrix with any segment of another type stays float32 whole. ModelRunOptions::int8_activations
/// opens one for a run. Scopes nest: the destructor restores the setting it found.
class Int8ActivationsScope {
 public:
  explicit Int8ActivationsScope(bool on);
  ~Int8ActivationsScope();
  Int8ActivationsScope(const Int8ActivationsScope&) = delete;
  Int8ActivationsScope& operator=(const Int8ActivationsScope&) = delete;

 private:
  bool previous_;
};

/// True inside an Int8ActivationsScope(true) on this thread.
bool int8Activations();

/// z [out] = W · x for one x [in]: the one-row kernel (the logits of one position).
Eigen::VectorXf timesVector(const WeightMatrix& w, const float* x);

}  // namespace attnlab::linear
