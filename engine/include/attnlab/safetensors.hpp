#pragma once
/// \file safetensors.hpp
/// A memory-mapped reader of HuggingFace's safetensors format: an 8-byte little-endian header
/// length N, N bytes of JSON {"name": {"dtype", "shape", "data_offsets": [begin, end]}, ...,
/// "__metadata__": {string: string}}, then the data block; offsets are relative to the data block.
/// Everything is checked when the file is opened, so a tensor read afterwards never leaves the file.
/// A sharded model (`model-00001-of-00002.safetensors` …) is opened through its index,
/// model.safetensors.index.json ({"metadata": {…}, "weight_map": {tensor: shard file}}): every
/// shard is checked as a single file and their tensors are read as one file's.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab {

class MappedFile;  // model/mapped_file.hpp, private to the engine

/// Element types of safetensors that the engine reads.
enum class DType { kF32, kF16, kBF16, kF64, kI64, kI32, kI16, kI8, kU8, kBool };

/// Bytes per element of dtype.
std::size_t dtypeSize(DType dtype);
/// The safetensors spelling: "F32", "BF16" ...
std::string_view dtypeName(DType dtype);

/// One tensor of an open file: a view into the mapping (valid while the SafeTensors lives).
struct TensorView {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<std::int64_t> shape;  ///< Row-major; empty for a scalar.
  const std::byte* data = nullptr;  ///< First byte; not necessarily aligned.
  std::size_t bytes = 0;            ///< shape product × dtypeSize(dtype).

  std::int64_t elements() const;
};

/// An open, validated safetensors file.
class SafeTensors {
 public:
  /// Maps and validates `path`: the header length lies within the file; the header is well-formed
  /// JSON (nlohmann-json) whose entries each have a known dtype, a non-negative shape and
  /// data_offsets [begin, end] with end − begin = Π shape × dtype size, inside the data block and
  /// not overlapping another tensor's. Throws Error(kIo) when the file cannot be opened or mapped
  /// and Error(kInvalidInput) for any violation, naming the file and the tensor.
  /// A path ending in ".json" is a shard index (safetensors_index.cpp): its weight_map must be an
  /// object of tensor name → shard file name (a plain name in the index's folder); each shard is
  /// opened and checked as above; Error(kInvalidInput) names a shard that is missing, a tensor
  /// the index places in a shard that lacks it, a tensor of a shard the index does not list there
  /// or one found in two shards.
  explicit SafeTensors(const std::filesystem::path& path);
  ~SafeTensors();
  SafeTensors(const SafeTensors&) = delete;
  SafeTensors& operator=(const SafeTensors&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// The mapped file: its first byte and its length in bytes.
  const std::byte* bytes() const;
  std::size_t fileBytes() const;
  /// The files read: the file itself, or a shard index's shards in name order.
  std::vector<std::filesystem::path> partPaths() const;
  /// Each file's mapped bytes (first byte, length in bytes), in partPaths() order.
  std::vector<std::pair<const std::byte*, std::size_t>> mappedParts() const;
  /// Bytes of every file read together (the shards', not the index's).
  std::size_t totalBytes() const;
  bool contains(std::string_view name) const;
  /// The tensor `name`. Throws Error(kInvalidInput) "… has no tensor NAME" when absent.
  const TensorView& tensor(std::string_view name) const;
  /// Every tensor, sorted by name.
  const std::map<std::string, TensorView, std::less<>>& tensors() const { return tensors_; }
  /// The "__metadata__" map (empty when the file has none).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  /// The tensor as float32 (F32 copied, F16 and BF16 widened exactly, F64 rounded), flattened in
  /// row-major order. Throws Error(kInvalidInput) for integer dtypes.
  std::vector<float> floats(std::string_view name) const;
  /// A 2-D float tensor as a [rows, cols] matrix; a 1-D tensor of n elements as [1, n].
  /// Throws Error(kInvalidInput) naming the tensor when it has another rank or the shape differs
  /// from the expected one (pass −1 to accept any size in that dimension).
  Matrix matrix(std::string_view name, Eigen::Index rows = -1, Eigen::Index cols = -1) const;
  /// The tensor `name` after matrix()'s checks (rank 1 or 2, the expected shape), its bytes
  /// untouched. Errors as matrix().
  const TensorView& checkedMatrix(std::string_view name, Eigen::Index rows = -1,
                                  Eigen::Index cols = -1) const;
  /// An integer tensor (I64, I32, I16, I8, U8, Bool) as int64 values.
  std::vector<std::int64_t> integers(std::string_view name) const;

 private:
  /// Reads a shard index at path_ into shards_ and tensors_ (safetensors_index.cpp).
  void openIndex();
  void parseFile();

  std::filesystem::path path_;
  std::unique_ptr<MappedFile> file_;  ///< The mapped file (model/mapped_file.hpp); null for an index.
  std::vector<std::unique_ptr<SafeTensors>> shards_;  ///< An index's shards, in name order.
  std::map<std::string, TensorView, std::less<>> tensors_;
  std::map<std::string, std::string> metadata_;
};

/// float16 (IEEE 754 binary16) bits to float, subnormals, infinities and NaN included.
float halfToFloat(std::uint16_t bits);
/// bfloat16 bits (the upper half of a float32) to float.
float bfloat16ToFloat(std::uint16_t bits);

}  // namespace attnlab
