#pragma once
/// \file weights.hpp
/// Private to the engine: what the decoder architectures (llama.cpp, gemma.cpp) share to read a
/// checkpoint — one weight source over a GGUF file (llama.cpp's tensor names) or a HuggingFace
/// safetensors file, giving either a tensor's rows as stored (weight_matrix.hpp: the layers'
/// matrices and the embedding) or float32 values (norm gains, biases) — and the checks of a GGUF
/// file's integer keys.

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "attnlab/gguf.hpp"
#include "attnlab/safetensors.hpp"
#include "attnlab/tensor.hpp"
#include "model/weight_matrix.hpp"

namespace attnlab::weights {

/// One tensor under the names each format gives it: llama.cpp's GGUF name ("blk.0.attn_q.weight")
/// and HuggingFace's, with the "model." prefix of a ...ForCausalLM checkpoint
/// ("model.layers.0.self_attn.q_proj.weight").
struct TensorName {
  std::string gguf;
  std::string hf;
};

/// Reads tensors of either format into float32 rows, checking each shape.
class Source {
 public:
  virtual ~Source() = default;
  /// Reads tensor `name` of shape [rows, cols] (or [cols] when rows = 1) into rows
  /// [row0, row0 + rows) of `dst`, which has `cols` columns: a GGUF tensor is dequantised in
  /// place, a safetensors tensor converted. Throws Error(kInvalidInput) naming a missing or
  /// wrongly shaped tensor, or a type that cannot be dequantised (naming it).
  virtual void read(const TensorName& name, Eigen::Index rows, Eigen::Index cols, Matrix& dst,
                    Eigen::Index row0) const = 0;
  /// True when the file holds tensor `name` (optional tensors: biases, untied output layers).
  virtual bool contains(const TensorName& name) const = 0;
  /// Tensor `name` [rows, cols] as the file stores it (its bytes untouched, valid while the file
  /// is open). Throws what read() throws: a missing or wrongly shaped tensor, or a type no
  /// kernel reads (naming it). A safetensors dtype other than F32, F16 and BF16 is converted to
  /// a float32 copy.
  virtual linear::StoredRows stored(const TensorName& name, Eigen::Index rows,
                                    Eigen::Index cols) const = 0;
  /// The rows of `parts` stacked in order, each [rows_i, cols] (e.g. W_Q, W_K, W_V).
  linear::WeightMatrix weightMatrix(
      std::initializer_list<std::pair<TensorName, Eigen::Index>> parts, Eigen::Index cols) const;
  /// A [rows, cols] tensor (errors as read()).
  Matrix matrix(const TensorName& name, Eigen::Index rows, Eigen::Index cols) const;
  /// A tensor of shape [n] (errors as read()).
  Vector vector(const TensorName& name, Eigen::Index n) const;
  /// True for HuggingFace weights, whose W_Q / W_K rows are in the rotate-half RoPE layout and
  /// must be converted to the interleaved one (permuteRotateHalfRows, positions.hpp); GGUF files
  /// store them interleaved already.
  virtual bool rotateHalf() const = 0;
};

/// Tensors of a GGUF file by their GGUF names.
class GgufSource final : public Source {
 public:
  explicit GgufSource(const GgufFile& file) : file_(file) {}
  void read(const TensorName& name, Eigen::Index rows, Eigen::Index cols, Matrix& dst,
            Eigen::Index row0) const override;
  bool contains(const TensorName& name) const override;
  linear::StoredRows stored(const TensorName& name, Eigen::Index rows,
                            Eigen::Index cols) const override;
  bool rotateHalf() const override { return false; }

 private:
  const GgufFile& file_;
};

/// Tensors of a safetensors file by their HuggingFace names; with an empty `prefix` (a checkpoint
/// saved from the bare ...Model, not ...ForCausalLM) the names' leading "model." is dropped.
class SafetensorsSource final : public Source {
 public:
  SafetensorsSource(const SafeTensors& file, std::string prefix)
      : file_(file), prefix_(std::move(prefix)) {}
  void read(const TensorName& name, Eigen::Index rows, Eigen::Index cols, Matrix& dst,
            Eigen::Index row0) const override;
  bool contains(const TensorName& name) const override;
  linear::StoredRows stored(const TensorName& name, Eigen::Index rows,
                            Eigen::Index cols) const override;
  bool rotateHalf() const override { return true; }

 private:
  std::string storedName(const TensorName& name) const;
  const SafeTensors& file_;
  std::string prefix_;
};

/// Throws Error(kInvalidInput) "FILE: what".
[[noreturn]] void badKey(const GgufFile& file, const std::string& what);

/// The integer key `key` of `file`, or `fallback` when the file has none. Throws
/// Error(kInvalidInput) "FILE: missing KEY" without a fallback, and "FILE: KEY must be a positive
/// integer, not V" for a value outside [1, 2^30].
int positiveKey(const GgufFile& file, const std::string& key, std::optional<int> fallback);

/// The file's quantisation as its header names it (general.file_type: "Q4_K_M", "Q8_0", "F16"
/// ...), or, without that key or with a value not listed, the GGUF type name of the type that
/// holds most of the file's tensor bytes (ModelConfig::weight_type).
std::string commonWeightType(const GgufFile& file);

}  // namespace attnlab::weights
