#pragma once
/// \file gguf.hpp
/// A memory-mapped reader of GGUF, llama.cpp's model format (versions 2 and 3), and the
/// dequantisation of its tensor types to float32.
///
/// Layout (little-endian): "GGUF", uint32 version, uint64 tensor count, uint64 key/value count;
/// the key/value pairs (string key, uint32 value type, value); the tensor infos (string name,
/// uint32 n_dims, uint64 ne[n_dims] innermost first, uint32 ggml type, uint64 offset); padding to
/// `general.alignment` (default 32); the data block, where each tensor starts at its offset (a
/// multiple of the alignment). Strings are uint64 length + UTF-8 bytes; arrays are uint32 element
/// type + uint64 count + elements.
/// Everything is checked when the file is opened — every count and length against the bytes that
/// are left before anything is allocated, every tensor's size and offset against the data block
/// and the other tensors — so a tensor read afterwards never leaves the file.
/// A model split by llama.cpp's gguf-split (`NAME-00001-of-00003.gguf` …) is opened from its first
/// part: `split.count`, `split.no` and `split.tensors.count` name the parts, the siblings are found
/// beside the first by that naming, each part is checked as a single file is, and their tensors
/// are read as one file's (see GgufFile's constructor).
/// Source: the GGUF specification (ggml-org/ggml, docs/gguf.md) and ggml's type table;
/// llama.cpp's examples/gguf-split for the split keys and names.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab {

class MappedFile;  // model/mapped_file.hpp, private to the engine

/// Metadata value types, numbered as in the file.
enum class GgufValueType : std::uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};

/// The GGUF spelling of a value type ("uint32", "string", "array" ...).
std::string_view ggufValueTypeName(GgufValueType type);

/// One metadata value. Integers of every width (and bool) are kept in `integer` (uint64 values
/// above INT64_MAX keep their bit pattern; `type` says which), float32/float64 in `number`,
/// strings in `text`, arrays in `items` (each with the array's element type).
struct GgufValue {
  GgufValueType type = GgufValueType::kUint8;
  GgufValueType element_type = GgufValueType::kUint8;  ///< Arrays only.
  std::int64_t integer = 0;
  double number = 0;
  std::string text;
  std::vector<GgufValue> items;

  bool isInteger() const;  ///< One of the eight integer types.
  bool isFloat() const {
    return type == GgufValueType::kFloat32 || type == GgufValueType::kFloat64;
  }
};

/// ggml tensor types, numbered as in ggml.h. Only those listed in GgmlTypeInfo::dequantisable
/// are read as float32; the others are known by name and size so that the file still validates
/// and an error can name them.
enum class GgmlType : std::uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ4_1 = 3,
  kQ5_0 = 6,
  kQ5_1 = 7,
  kQ8_0 = 8,
  kQ8_1 = 9,
  kQ2_K = 10,
  kQ3_K = 11,
  kQ4_K = 12,
  kQ5_K = 13,
  kQ6_K = 14,
  kQ8_K = 15,
  kIQ4_NL = 20,
  kIQ4_XS = 23,
  kBF16 = 30,
};

/// What ggml's type table says about one tensor type.
struct GgmlTypeInfo {
  std::string_view name;       ///< "F32", "Q4_1", "Q6_K" ...
  int block_elements = 0;      ///< Elements per block (1 for plain types, 32 or 256 otherwise).
  int block_bytes = 0;         ///< Bytes per block.
  bool dequantisable = false;  ///< dequantize() reads it.
};

/// The table entry of ggml type number `type`, or nullptr for a number ggml does not define.
const GgmlTypeInfo* ggmlTypeInfo(std::uint32_t type);
/// "Q4_1", or "type N" for an unknown number.
std::string ggmlTypeName(std::uint32_t type);
/// The dequantisable types' names, comma-separated (for error messages).
std::string dequantisableTypeNames();

/// Dequantises `count` elements of ggml type `type` stored at `data` into out[0, count).
/// Block layouts and formulas follow ggml's reference dequantisers (ggml-quants.c:
/// dequantize_row_q4_0 … dequantize_row_iq4_xs): Q4_0 (d·(q − 8)), Q4_1 (d·q + m), Q5_0, Q5_1 (a
/// fifth bit per weight from qh), Q8_0 (d·q), Q2_K (sixteen 16-element sub-blocks of 2-bit q with
/// 4-bit scales and mins), Q3_K (3-bit q, 6-bit scales), Q4_K and Q5_K (256-element super-blocks
/// of eight 32-element sub-blocks with 6-bit scales and mins), Q6_K (sixteen 16-element
/// sub-blocks with int8 scales), IQ4_NL and IQ4_XS (4-bit indices into ggml's 16 non-linear
/// levels, IQ4_XS with 6-bit scales per 32 elements); F16 and BF16 widened exactly. Each value is computed in float32 in ggml's order
/// of operations, so results equal ggml's and the `gguf` Python package's bit for bit.
/// Runs in parallel (OpenMP) for large tensors.
/// Throws Error(kInvalidArgument) for a type that is not dequantisable (naming it) or a count
/// that is not a multiple of the type's block size.
void dequantize(std::uint32_t type, const std::byte* data, std::size_t count, float* out);

/// One tensor of an open GGUF file: a view into the mapping (valid while the GgufFile lives).
struct GgufTensor {
  std::string name;
  std::uint32_t type = 0;           ///< ggml type number (see GgmlType).
  std::vector<std::int64_t> dims;   ///< ne[0], ne[1], …: ne[0] is the contiguous (innermost) one.
  std::uint64_t offset = 0;         ///< Offset in the data block, bytes.
  const std::byte* data = nullptr;  ///< First byte.
  std::size_t bytes = 0;            ///< Size in the file.

  std::int64_t elements() const;
  /// As a row-major matrix: ne[0] columns, ne[1]·ne[2]·ne[3] rows (PyTorch's [out, in] for a
  /// linear layer's weight).
  std::int64_t rows() const;
  std::int64_t cols() const { return dims.empty() ? 1 : dims[0]; }
};

/// An open, validated GGUF file.
class GgufFile {
 public:
  /// Maps and validates `path`. Throws Error(kIo) when the file cannot be opened or mapped and
  /// Error(kInvalidInput) with one line naming the file and the fault: wrong magic, a version
  /// other than 2 or 3, a tensor or key/value count larger than the file could hold, a string or
  /// array length past the end of the file, an unknown value type (naming the key), a duplicate
  /// key or tensor name, more than 4 dimensions or a negative or overflowing shape, an unknown
  /// ggml type (naming the tensor and the number), a row length that is not a multiple of the
  /// type's block size, a general.alignment that is not a power of two, an offset that is not
  /// aligned, a tensor past the end of the file (truncated), tensors that overlap.
  /// A split model's first part (split.count > 1, split.no 0) opens its siblings
  /// PREFIX-0000i-of-0000N.gguf from the same folder, each validated as above, and adds their
  /// tensors; Error(kInvalidInput) names a part that is missing (its file name), a part whose
  /// split.no or split.count disagrees, a tensor found in two parts, a total other than
  /// split.tensors.count, a first part whose name does not follow the pattern, or a later part
  /// opened first (naming the first part to open).
  explicit GgufFile(const std::filesystem::path& path);
  /// Reads a GGUF file held in memory (copied); `name` stands for the file name in errors.
  /// Validation and errors as above (fuzzing and tests).
  GgufFile(const std::byte* data, std::size_t size, std::string name);
  ~GgufFile();
  GgufFile(const GgufFile&) = delete;
  GgufFile& operator=(const GgufFile&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::uint32_t version() const { return version_; }
  std::uint64_t fileBytes() const { return map_size_; }
  /// Bytes of every part together (fileBytes() for a file that is not split).
  std::uint64_t totalBytes() const;
  /// split.count: the number of files the model is stored in (1 when not split).
  int splitCount() const { return 1 + static_cast<int>(parts_.size()); }
  /// The files read, the first (this one) then the other parts in order.
  std::vector<std::filesystem::path> partPaths() const;
  /// Each file's mapped bytes (first byte, length in bytes), in partPaths() order.
  std::vector<std::pair<const std::byte*, std::size_t>> mappedParts() const;
  /// The file's first byte as mapped (or held, for a file read from memory); fileBytes() long.
  const std::byte* bytes() const;
  /// general.alignment, or 32 when absent.
  std::uint32_t alignment() const { return alignment_; }
  /// Byte offset of the data block in the file.
  std::uint64_t dataOffset() const { return data_offset_; }

  /// Every key/value pair, in file order.
  const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return metadata_; }
  /// The value of `key`, or nullptr.
  const GgufValue* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  // Typed look-ups. The required forms throw Error(kInvalidInput) "FILE: missing KEY"; all throw
  // Error(kInvalidInput) naming the key when the value has another type (any integer type is
  // accepted where an integer is asked for, any integer or float type where a number is).
  std::optional<std::int64_t> integer(std::string_view key) const;
  std::int64_t requireInteger(std::string_view key) const;
  std::optional<double> number(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;
  std::string requireString(std::string_view key) const;
  /// An array of strings (e.g. tokenizer.ggml.tokens); empty when absent.
  std::vector<std::string> strings(std::string_view key) const;
  /// An array of integers; empty when absent.
  std::vector<std::int64_t> integers(std::string_view key) const;
  /// An array of numbers (integers or floats); empty when absent.
  std::vector<double> numbers(std::string_view key) const;

  /// Every tensor, in file order (a split model's parts one after another).
  const std::vector<GgufTensor>& tensors() const { return tensors_; }
  /// The tensor `name`, or nullptr.
  const GgufTensor* findTensor(std::string_view name) const;
  /// The tensor `name`. Throws Error(kInvalidInput) "FILE has no tensor NAME".
  const GgufTensor& tensor(std::string_view name) const;
  /// The tensor dequantised to float32 as a [rows, cols] matrix (see GgufTensor::rows). Throws
  /// Error(kInvalidInput) naming the tensor when it is missing, its shape differs from the
  /// expected one (−1 accepts any size) or its type cannot be dequantised (naming the type).
  Matrix matrix(std::string_view name, Eigen::Index rows = -1, Eigen::Index cols = -1) const;
  /// Dequantises the tensor into out[0, rows·cols) after the checks of matrix().
  void readInto(std::string_view name, Eigen::Index rows, Eigen::Index cols, float* out) const;
  /// The tensor `name` after matrix()'s checks (present, [rows, cols] with −1 accepting any
  /// size, a type dequantize() reads), its bytes untouched. Errors as matrix().
  const GgufTensor& checkedTensor(std::string_view name, Eigen::Index rows,
                                  Eigen::Index cols) const;
  /// A tensor of n elements as a vector (any shape with n elements). Errors as matrix().
  Vector vector(std::string_view name, Eigen::Index n) const;

 private:
  struct PartTag {};
  /// One later part of a split model: mapped and validated, its own parts not followed.
  GgufFile(const std::filesystem::path& path, PartTag);
  [[noreturn]] void fail(const std::string& what) const;
  void parse(const std::byte* bytes, std::uint64_t file_size);
  /// Follows split.count (gguf_split.cpp): opens the other parts into parts_, adds their tensors.
  void openSplitParts();

  std::filesystem::path path_;
  std::vector<std::byte> owned_;  ///< The bytes of an in-memory file.
  std::unique_ptr<MappedFile> file_;  ///< The mapped file (null for an in-memory one).
  std::size_t map_size_ = 0;
  std::uint32_t version_ = 0;
  std::uint32_t alignment_ = 32;
  std::uint64_t data_offset_ = 0;
  std::vector<std::pair<std::string, GgufValue>> metadata_;
  std::map<std::string, std::size_t, std::less<>> key_index_;
  std::vector<GgufTensor> tensors_;
  std::map<std::string, std::size_t, std::less<>> tensor_index_;
  std::vector<std::unique_ptr<GgufFile>> parts_;  ///< A split model's parts after the first.
};

/// True when the file at `path` starts with the GGUF magic (false when it cannot be read).
bool isGgufFile(const std::filesystem::path& path);

}  // namespace attnlab
