// The GGUF reader: mmap, then parse and validate the header with a cursor that checks every read
// against the end of the file before it happens (see gguf.hpp for the rules).

#include "attnlab/gguf.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <utility>

#include "attnlab/error.hpp"
#include "model/mapped_file.hpp"

namespace attnlab {
namespace {

// Smallest encodings, used to bound counts by the bytes that are left before allocating.
constexpr std::uint64_t kMinKeyValueBytes = 8 + 4 + 1;            // empty key, type, one-byte value
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8;  // empty name, one dimension
constexpr int kMaxDims = 4;                                       // GGML_MAX_DIMS
constexpr int kMaxArrayDepth = 8;                                 // arrays of arrays of …

std::uint64_t minValueBytes(GgufValueType type) {
  switch (type) {
    case GgufValueType::kUint8:
    case GgufValueType::kInt8:
    case GgufValueType::kBool:
      return 1;
    case GgufValueType::kUint16:
    case GgufValueType::kInt16:
      return 2;
    case GgufValueType::kUint32:
    case GgufValueType::kInt32:
    case GgufValueType::kFloat32:
      return 4;
    case GgufValueType::kUint64:
    case GgufValueType::kInt64:
    case GgufValueType::kFloat64:
    case GgufValueType::kString:  // the length
      return 8;
    case GgufValueType::kArray:  // element type + count
      return 12;
  }
  return 1;
}

bool knownValueType(std::uint32_t t) { return t <= 12; }

/// Reads the header within [begin, end), failing through `fail` with the offset of the fault.
class Cursor {
 public:
  Cursor(const std::byte* begin, std::uint64_t size, std::string file_name)
      : begin_(begin), size_(size), file_name_(std::move(file_name)) {}

  std::uint64_t offset() const { return pos_; }
  std::uint64_t left() const { return size_ - pos_; }

  template <typename T>
  T read(const char* what) {
    if (left() < sizeof(T)) {
      error(std::string("truncated: the file ends inside ") + what + " at byte " +
            std::to_string(pos_));
    }
    T value;
    std::memcpy(&value, begin_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  std::string readString(const std::string& what) {
    const auto length = read<std::uint64_t>(what.c_str());
    if (length > left()) {
      error(what + ": string length " + std::to_string(length) + " at byte " +
            std::to_string(pos_ - 8) + " runs past the end of the file (" + std::to_string(left()) +
            " bytes left)");
    }
    std::string s(reinterpret_cast<const char*>(begin_ + pos_), static_cast<std::size_t>(length));
    pos_ += length;
    return s;
  }

  GgufValue readValue(GgufValueType type, const std::string& key, int depth) {
    GgufValue v;
    v.type = type;
    switch (type) {
      case GgufValueType::kUint8:
        v.integer = read<std::uint8_t>(key.c_str());
        break;
      case GgufValueType::kInt8:
        v.integer = read<std::int8_t>(key.c_str());
        break;
      case GgufValueType::kUint16:
        v.integer = read<std::uint16_t>(key.c_str());
        break;
      case GgufValueType::kInt16:
        v.integer = read<std::int16_t>(key.c_str());
        break;
      case GgufValueType::kUint32:
        v.integer = read<std::uint32_t>(key.c_str());
        break;
      case GgufValueType::kInt32:
        v.integer = read<std::int32_t>(key.c_str());
        break;
      case GgufValueType::kUint64:
        v.integer = static_cast<std::int64_t>(read<std::uint64_t>(key.c_str()));
        break;
      case GgufValueType::kInt64:
        v.integer = read<std::int64_t>(key.c_str());
        break;
      case GgufValueType::kFloat32:
        v.number = read<float>(key.c_str());
        break;
      case GgufValueType::kFloat64:
        v.number = read<double>(key.c_str());
        break;
      case GgufValueType::kBool: {
        const auto b = read<std::uint8_t>(key.c_str());
        if (b > 1) error(key + ": bool value " + std::to_string(b) + " is neither 0 nor 1");
        v.integer = b;
        break;
      }
      case GgufValueType::kString:
        v.text = readString(key);
        break;
      case GgufValueType::kArray: {
        if (depth >= kMaxArrayDepth) error(key + ": arrays nested deeper than 8 levels");
        const auto element = read<std::uint32_t>(key.c_str());
        if (!knownValueType(element)) {
          error(key + ": unknown array element type " + std::to_string(element));
        }
        v.element_type = static_cast<GgufValueType>(element);
        const auto count = read<std::uint64_t>(key.c_str());
        if (count > left() / minValueBytes(v.element_type)) {
          error(key + ": array of " + std::to_string(count) + " " +
                std::string(ggufValueTypeName(v.element_type)) +
                " values runs past the end of the file (" + std::to_string(left()) +
                " bytes left)");
        }
        v.items.reserve(static_cast<std::size_t>(count));
        for (std::uint64_t i = 0; i < count; ++i) {
          v.items.push_back(readValue(v.element_type, key, depth + 1));
        }
        break;
      }
    }
    return v;
  }

  [[noreturn]] void error(const std::string& what) const {
    throw Error(ErrorCode::kInvalidInput, file_name_ + ": " + what);
  }

 private:
  const std::byte* begin_;
  std::uint64_t size_;
  std::uint64_t pos_ = 0;
  std::string file_name_;
};

}  // namespace

std::string_view ggufValueTypeName(GgufValueType type) {
  switch (type) {
    case GgufValueType::kUint8:
      return "uint8";
    case GgufValueType::kInt8:
      return "int8";
    case GgufValueType::kUint16:
      return "uint16";
    case GgufValueType::kInt16:
      return "int16";
    case GgufValueType::kUint32:
      return "uint32";
    case GgufValueType::kInt32:
      return "int32";
    case GgufValueType::kFloat32:
      return "float32";
    case GgufValueType::kBool:
      return "bool";
    case GgufValueType::kString:
      return "string";
    case GgufValueType::kArray:
      return "array";
    case GgufValueType::kUint64:
      return "uint64";
    case GgufValueType::kInt64:
      return "int64";
    case GgufValueType::kFloat64:
      return "float64";
  }
  return "?";
}

bool GgufValue::isInteger() const {
  switch (type) {
    case GgufValueType::kUint8:
    case GgufValueType::kInt8:
    case GgufValueType::kUint16:
    case GgufValueType::kInt16:
    case GgufValueType::kUint32:
    case GgufValueType::kInt32:
    case GgufValueType::kUint64:
    case GgufValueType::kInt64:
      return true;
    default:
      return false;
  }
}

std::int64_t GgufTensor::elements() const {
  std::int64_t n = 1;
  for (std::int64_t d : dims) n *= d;
  return n;
}

std::int64_t GgufTensor::rows() const {
  std::int64_t n = 1;
  for (std::size_t i = 1; i < dims.size(); ++i) n *= dims[i];
  return n;
}

bool isGgufFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::memcmp(magic, "GGUF", 4) == 0;
}

void GgufFile::fail(const std::string& what) const {
  throw Error(ErrorCode::kInvalidInput, path_.filename().string() + ": " + what);
}

GgufFile::GgufFile(const std::filesystem::path& path)
    : path_(path), file_(std::make_unique<MappedFile>(path)) {
  map_size_ = file_->size();
  if (map_size_ < 24) {
    fail("truncated: " + std::to_string(map_size_) +
         " bytes, shorter than the 24-byte GGUF header");
  }
  parse(file_->data(), map_size_);  // file_ is unmapped if this throws
  openSplitParts();
}

GgufFile::GgufFile(const std::filesystem::path& path, PartTag)
    : path_(path), file_(std::make_unique<MappedFile>(path)) {
  map_size_ = file_->size();
  if (map_size_ < 24) {
    fail("truncated: " + std::to_string(map_size_) +
         " bytes, shorter than the 24-byte GGUF header");
  }
  parse(file_->data(), map_size_);
}

GgufFile::GgufFile(const std::byte* data, std::size_t size, std::string name)
    : path_(std::move(name)), owned_(data, data + size) {
  map_size_ = size;
  if (size < 24) {
    fail("truncated: " + std::to_string(size) + " bytes, shorter than the 24-byte GGUF header");
  }
  parse(owned_.data(), size);
}

GgufFile::~GgufFile() = default;

void GgufFile::parse(const std::byte* bytes, std::uint64_t file_size) {
  Cursor in(bytes, file_size, path_.filename().string());
  const auto magic = in.read<std::uint32_t>("the magic");
  if (std::memcmp(bytes, "GGUF", 4) != 0) {
    std::string shown;
    for (int i = 0; i < 4; ++i) {
      const auto c = static_cast<unsigned char>(bytes[i]);
      shown += (c >= 0x20 && c < 0x7F) ? std::string(1, static_cast<char>(c))
                                       : "\\x" + std::string(1, "0123456789ABCDEF"[c >> 4]) +
                                             "0123456789ABCDEF"[c & 0xF];
    }
    fail("not a GGUF file (it starts with \"" + shown + "\", not \"GGUF\")");
  }
  (void)magic;
  version_ = in.read<std::uint32_t>("the version");
  if (version_ != 2 && version_ != 3) {
    const bool swapped = version_ == 0x02000000u || version_ == 0x03000000u;
    fail("GGUF version " + std::to_string(version_) + " is not supported (2 and 3 are" +
         (swapped ? "; this looks like a big-endian file)" : ")"));
  }
  const auto tensor_count = in.read<std::uint64_t>("the tensor count");
  const auto kv_count = in.read<std::uint64_t>("the key/value count");
  if (kv_count > in.left() / kMinKeyValueBytes) {
    fail("key/value count " + std::to_string(kv_count) + " is larger than the file could hold (" +
         std::to_string(file_size) + " bytes)");
  }
  if (tensor_count > in.left() / kMinTensorInfoBytes) {
    fail("tensor count " + std::to_string(tensor_count) + " is larger than the file could hold (" +
         std::to_string(file_size) + " bytes)");
  }

  metadata_.reserve(static_cast<std::size_t>(kv_count));
  for (std::uint64_t i = 0; i < kv_count; ++i) {
    std::string key = in.readString("key " + std::to_string(i));
    const auto type = in.read<std::uint32_t>(("the type of " + key).c_str());
    if (!knownValueType(type)) {
      fail(key + ": unknown value type " + std::to_string(type) + " (GGUF defines 0–12)");
    }
    GgufValue value = in.readValue(static_cast<GgufValueType>(type), key, 0);
    if (!key_index_.emplace(key, metadata_.size()).second) fail("key " + key + " appears twice");
    metadata_.emplace_back(std::move(key), std::move(value));
  }

  if (const GgufValue* a = find("general.alignment")) {
    if (!a->isInteger() || a->integer <= 0 || a->integer > (1 << 30) ||
        (a->integer & (a->integer - 1)) != 0) {
      fail("general.alignment must be a power of two, not " +
           (a->isInteger() ? std::to_string(a->integer) : std::string(ggufValueTypeName(a->type))));
    }
    alignment_ = static_cast<std::uint32_t>(a->integer);
  }

  if (tensor_count > in.left() / kMinTensorInfoBytes) {
    fail("tensor count " + std::to_string(tensor_count) +
         " is larger than the rest of the file could hold (" + std::to_string(in.left()) +
         " bytes after the metadata)");
  }
  tensors_.reserve(static_cast<std::size_t>(tensor_count));
  for (std::uint64_t i = 0; i < tensor_count; ++i) {
    GgufTensor t;
    t.name = in.readString("tensor " + std::to_string(i) + "'s name");
    const std::string where = "tensor " + t.name + ": ";
    const auto n_dims = in.read<std::uint32_t>(t.name.c_str());
    if (n_dims < 1 || n_dims > kMaxDims) {
      fail(where + std::to_string(n_dims) + " dimensions (1 to 4 are allowed)");
    }
    std::uint64_t elements = 1;
    for (std::uint32_t d = 0; d < n_dims; ++d) {
      const auto ne = in.read<std::int64_t>(t.name.c_str());
      if (ne < 0) fail(where + "negative dimension " + std::to_string(ne));
      if (ne != 0 &&
          elements > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) /
                         static_cast<std::uint64_t>(ne)) {
        fail(where + "shape overflows 64 bits");
      }
      elements *= static_cast<std::uint64_t>(ne);
      t.dims.push_back(ne);
    }
    t.type = in.read<std::uint32_t>(t.name.c_str());
    const GgmlTypeInfo* info = ggmlTypeInfo(t.type);
    if (info == nullptr) {
      fail(where + "unknown tensor type " + std::to_string(t.type) +
           " (not a ggml type this reader knows)");
    }
    if (t.dims[0] % info->block_elements != 0) {
      fail(where + "row length " + std::to_string(t.dims[0]) + " is not a multiple of " +
           std::string(info->name) + "'s block of " + std::to_string(info->block_elements));
    }
    t.offset = in.read<std::uint64_t>(t.name.c_str());
    if (t.offset % alignment_ != 0) {
      fail(where + "offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
           std::to_string(alignment_));
    }
    const std::uint64_t blocks = elements / static_cast<std::uint64_t>(info->block_elements);
    if (blocks > file_size / static_cast<std::uint64_t>(info->block_bytes)) {
      fail(where + "its " + std::to_string(elements) + " " + std::string(info->name) +
           " values need more bytes than the file has (truncated file?)");
    }
    t.bytes = static_cast<std::size_t>(blocks * static_cast<std::uint64_t>(info->block_bytes));
    if (!tensor_index_.emplace(t.name, tensors_.size()).second) {
      fail("tensor " + t.name + " appears twice");
    }
    tensors_.push_back(std::move(t));
  }

  data_offset_ = (in.offset() + alignment_ - 1) / alignment_ * alignment_;
  const std::uint64_t data_size = data_offset_ <= file_size ? file_size - data_offset_ : 0;
  std::vector<std::size_t> order(tensors_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return tensors_[a].offset < tensors_[b].offset; });
  std::uint64_t reach = 0;
  const GgufTensor* reach_owner = nullptr;
  for (std::size_t i : order) {
    GgufTensor& t = tensors_[i];
    if (t.offset > data_size || t.bytes > data_size - t.offset) {
      fail("tensor " + t.name + ": bytes [" + std::to_string(t.offset) + ", " +
           std::to_string(t.offset + t.bytes) +
           ") of the data block run past the end of the "
           "file (the data block has " +
           std::to_string(data_size) + " bytes; truncated file?)");
    }
    if (t.bytes == 0) continue;
    if (reach_owner != nullptr && t.offset < reach) {
      fail("tensor " + t.name + " overlaps tensor " + reach_owner->name);
    }
    t.data = bytes + data_offset_ + t.offset;
    reach = t.offset + t.bytes;
    reach_owner = &t;
  }
}

const GgufValue* GgufFile::find(std::string_view key) const {
  const auto it = key_index_.find(key);
  return it == key_index_.end() ? nullptr : &metadata_[it->second].second;
}

namespace {
std::string typeOf(const GgufValue& v) {
  std::string s(ggufValueTypeName(v.type));
  if (v.type == GgufValueType::kArray) s += " of " + std::string(ggufValueTypeName(v.element_type));
  return s;
}
}  // namespace

std::optional<std::int64_t> GgufFile::integer(std::string_view key) const {
  const GgufValue* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->isInteger()) fail(std::string(key) + " should be an integer, not " + typeOf(*v));
  return v->integer;
}

std::int64_t GgufFile::requireInteger(std::string_view key) const {
  const auto v = integer(key);
  if (!v) fail("missing " + std::string(key));
  return *v;
}

std::optional<double> GgufFile::number(std::string_view key) const {
  const GgufValue* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (v->isFloat()) return v->number;
  if (v->isInteger()) return static_cast<double>(v->integer);
  fail(std::string(key) + " should be a number, not " + typeOf(*v));
}

std::optional<bool> GgufFile::boolean(std::string_view key) const {
  const GgufValue* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (v->type != GgufValueType::kBool)
    fail(std::string(key) + " should be a bool, not " + typeOf(*v));
  return v->integer != 0;
}

std::optional<std::string> GgufFile::string(std::string_view key) const {
  const GgufValue* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (v->type != GgufValueType::kString) {
    fail(std::string(key) + " should be a string, not " + typeOf(*v));
  }
  return v->text;
}

std::string GgufFile::requireString(std::string_view key) const {
  auto v = string(key);
  if (!v) fail("missing " + std::string(key));
  return std::move(*v);
}

std::vector<std::string> GgufFile::strings(std::string_view key) const {
  const GgufValue* v = find(key);
  if (v == nullptr) return {};
  if (v->type != GgufValueType::kArray || v->element_type != GgufValueType::kString) {
    fail(std::string(key) + " should be an array of strings, not " + typeOf(*v));
  }
  std::vector<std::string> out;
  out.reserve(v->items.size());
  for (const GgufValue& item : v->items) out.push_back(item.text);
  return out;
}

std::vector<std::int64_t> GgufFile::integers(std::string_view key) const {
  const GgufValue* v = find(key);
  if (v == nullptr) return {};
  GgufValue probe;
  probe.type = v->element_type;
  if (v->type != GgufValueType::kArray || !probe.isInteger()) {
    fail(std::string(key) + " should be an array of integers, not " + typeOf(*v));
  }
  std::vector<std::int64_t> out;
  out.reserve(v->items.size());
  for (const GgufValue& item : v->items) out.push_back(item.integer);
  return out;
}

std::vector<double> GgufFile::numbers(std::string_view key) const {
  const GgufValue* v = find(key);
  if (v == nullptr) return {};
  GgufValue probe;
  probe.type = v->element_type;
  if (v->type != GgufValueType::kArray || !(probe.isInteger() || probe.isFloat())) {
    fail(std::string(key) + " should be an array of numbers, not " + typeOf(*v));
  }
  std::vector<double> out;
  out.reserve(v->items.size());
  for (const GgufValue& item : v->items) {
    out.push_back(item.isFloat() ? item.number : static_cast<double>(item.integer));
  }
  return out;
}

const GgufTensor* GgufFile::findTensor(std::string_view name) const {
  const auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const std::byte* GgufFile::bytes() const {
  return file_ ? file_->data() : owned_.data();
}

const GgufTensor& GgufFile::tensor(std::string_view name) const {
  const GgufTensor* t = findTensor(name);
  if (t == nullptr) fail("has no tensor " + std::string(name));
  return *t;
}

const GgufTensor& GgufFile::checkedTensor(std::string_view name, Eigen::Index rows,
                                          Eigen::Index cols) const {
  const GgufTensor& t = tensor(name);
  const GgmlTypeInfo* info = ggmlTypeInfo(t.type);
  if (!info->dequantisable) {
    fail("tensor " + t.name + " is " + std::string(info->name) +
         ", which this engine cannot dequantise (it reads " + dequantisableTypeNames() + ")");
  }
  const Eigen::Index r = t.rows();
  const Eigen::Index c = t.cols();
  if ((rows >= 0 && r != rows) || (cols >= 0 && c != cols)) {
    fail("tensor " + t.name + " has " + std::to_string(r) + " rows of " + std::to_string(c) +
         ", expected " + (rows >= 0 ? std::to_string(rows) : std::string("any number of")) +
         " rows of " + (cols >= 0 ? std::to_string(cols) : std::string("any length")));
  }
  return t;
}

void GgufFile::readInto(std::string_view name, Eigen::Index rows, Eigen::Index cols,
                        float* out) const {
  const GgufTensor& t = checkedTensor(name, rows, cols);
  dequantize(t.type, t.data, static_cast<std::size_t>(t.elements()), out);
}

Matrix GgufFile::matrix(std::string_view name, Eigen::Index rows, Eigen::Index cols) const {
  const GgufTensor& t = tensor(name);
  Matrix m(t.rows(), t.cols());
  readInto(name, rows, cols, m.data());
  return m;
}

Vector GgufFile::vector(std::string_view name, Eigen::Index n) const {
  const GgufTensor& t = tensor(name);
  if (t.elements() != n) {
    fail("tensor " + t.name + " has " + std::to_string(t.elements()) + " values, expected " +
         std::to_string(n));
  }
  const Matrix m = matrix(name);
  return Eigen::Map<const Vector>(m.data(), n);
}

}  // namespace attnlab
