#pragma once
/// \file linear.hpp
/// Private to the engine: the dense products over float32 weights packed at load (BERT, GPT-2,
/// the synthetic lab's and the translators' layers, the keys of the CPU attention's QKᵀ). The
/// decoders of the Llama family and Gemma keep their weights as stored (weight_matrix.hpp) and
/// dequantise panels of this layout per product.
///
/// Weights are packed once at load into panels of 16 output columns (PackedWeights), and
/// y = x Wᵀ runs a register-blocked kernel over them (linear.cpp): 8 rows of x × 32 output
/// columns per step, 16 accumulators of 16 floats, one multiply-add per weight per row. Nothing is
/// packed per call — Eigen's GEMM packs the weights on every product, which at 32 tokens took as
/// long as the arithmetic (MiniLM: 34 % of a pass in gemm_pack_lhs). Panels are split across the
/// OpenMP threads with one meeting per product (Eigen's own parallel GEMM synchronises by spinning
/// after every panel and lost most of its time on a shared 2-core machine: SmolLM2 at 512 tokens
/// took 3.5–7 s on 2 threads vs 2.4 s on one).

#include <cstddef>
#include <memory>

#include "attnlab/tensor.hpp"

namespace attnlab::linear {

/// W [out, in] (PyTorch's nn.Linear layout) packed for timesTransposed(): panel p holds
/// W[16p + c, k] at data[(p·in + k)·16 + c], zero past the last output; 64-byte aligned.
class PackedWeights {
 public:
  static constexpr int kPanel = 16;

  PackedWeights() = default;
  /// Packs w [out, in].
  explicit PackedWeights(const Matrix& w);

  Eigen::Index out() const { return out_; }
  Eigen::Index in() const { return in_; }
  bool empty() const { return out_ == 0; }
  const float* panel(Eigen::Index p) const { return data_.get() + p * in_ * kPanel; }
  /// Row r of W (for tests and the occasional look-up), unpacked.
  Eigen::VectorXf row(Eigen::Index r) const;

 private:
  struct Free {
    void operator()(float* p) const;
  };
  Eigen::Index out_ = 0, in_ = 0;
  std::unique_ptr<float[], Free> data_;
};

/// Floats of W [out, in] in panels of PackedWeights::kPanel rows: ⌈out / 16⌉ · in · 16.
inline long long packedSize(long long out, long long in) {
  return (out + PackedWeights::kPanel - 1) / PackedWeights::kPanel * in * PackedWeights::kPanel;
}

/// Packs w [out, in] (row-major, contiguous) into dst [packedSize(out, in)] in PackedWeights'
/// layout: panel p holds w[16p + c, k] at dst[(p·in + k)·16 + c], zero past the last row. Used for
/// the weights at load and for the keys of the CPU attention's QKᵀ (attention_cpu.cpp).
void packPanels(const float* w, long long out, long long in, float* dst);

/// Throws Error(kInternal) unless x [n, in] fits weights of `in` columns, the bias (when not
/// null) has `out` elements and the residual (when not null) is [n, out]: the checks of every
/// dense product (these and WeightMatrix::timesTransposed).
void checkProductShapes(const Matrix& x, Eigen::Index in, Eigen::Index out, const Vector* bias,
                        const Matrix* residual);

/// y = x Wᵀ: x [n, in] → y [n, out]. Threads take whole panels of output columns.
/// Throws Error(kInternal) when x has the wrong width.
Matrix timesTransposed(const Matrix& x, const PackedWeights& w);

/// y = x Wᵀ + b.
Matrix timesTransposed(const Matrix& x, const PackedWeights& w, const Vector& b);

/// y = (x Wᵀ + b) + residual, residual [n, out] (a transformer block's skip connection), added
/// inside the parallel product: the same numbers as adding it afterwards. Throws
/// Error(kInternal) when residual has another shape.
Matrix timesTransposed(const Matrix& x, const PackedWeights& w, const Vector& b,
                       const Matrix& residual);

}  // namespace attnlab::linear
