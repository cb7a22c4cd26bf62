#pragma once
// Writes small GGUF files for tests, including deliberately broken ones: metadata of every value
// type, tensors of any ggml type from raw bytes, and hooks to corrupt the result.

#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "attnlab/gguf.hpp"

namespace attnlab::test {

/// Builds a GGUF file in memory, field by field (little-endian, as the format is).
class GgufBuilder {
 public:
  explicit GgufBuilder(std::uint32_t version = 3) : version_(version) {}

  // Raw appends into the key/value area.
  template <typename T>
  static void put(std::vector<unsigned char>& out, T value) {
    const std::size_t at = out.size();
    out.resize(at + sizeof(T));
    std::memcpy(out.data() + at, &value, sizeof(T));
  }
  static void putString(std::vector<unsigned char>& out, const std::string& s) {
    put<std::uint64_t>(out, s.size());
    out.insert(out.end(), s.begin(), s.end());
  }

  GgufBuilder& u32(const std::string& key, std::uint32_t v) { return scalar(key, 4, v); }
  GgufBuilder& i32(const std::string& key, std::int32_t v) { return scalar(key, 5, v); }
  GgufBuilder& f32(const std::string& key, float v) { return scalar(key, 6, v); }
  GgufBuilder& boolean(const std::string& key, bool v) {
    return scalar(key, 7, static_cast<std::uint8_t>(v));
  }
  GgufBuilder& u64(const std::string& key, std::uint64_t v) { return scalar(key, 10, v); }
  GgufBuilder& str(const std::string& key, const std::string& v) {
    putString(kv_, key);
    put<std::uint32_t>(kv_, 8);
    putString(kv_, v);
    ++kv_count_;
    return *this;
  }
  GgufBuilder& strings(const std::string& key, const std::vector<std::string>& v) {
    putString(kv_, key);
    put<std::uint32_t>(kv_, 9);
    put<std::uint32_t>(kv_, 8);
    put<std::uint64_t>(kv_, v.size());
    for (const auto& s : v) putString(kv_, s);
    ++kv_count_;
    return *this;
  }
  GgufBuilder& i32s(const std::string& key, const std::vector<std::int32_t>& v) {
    putString(kv_, key);
    put<std::uint32_t>(kv_, 9);
    put<std::uint32_t>(kv_, 5);
    put<std::uint64_t>(kv_, v.size());
    for (auto x : v) put(kv_, x);
    ++kv_count_;
    return *this;
  }
  GgufBuilder& f32s(const std::string& key, const std::vector<float>& v) {
    putString(kv_, key);
    put<std::uint32_t>(kv_, 9);
    put<std::uint32_t>(kv_, 6);
    put<std::uint64_t>(kv_, v.size());
    for (auto x : v) put(kv_, x);
    ++kv_count_;
    return *this;
  }
  /// A key whose value bytes are written by hand (type + value), for odd or broken values.
  GgufBuilder& raw(const std::string& key, std::uint32_t type,
                   const std::vector<unsigned char>& value) {
    putString(kv_, key);
    put<std::uint32_t>(kv_, type);
    kv_.insert(kv_.end(), value.begin(), value.end());
    ++kv_count_;
    return *this;
  }

  /// A tensor of ggml type `type` with dims ne (innermost first) and its raw bytes.
  GgufBuilder& tensor(const std::string& name, std::uint32_t type, std::vector<std::int64_t> ne,
                      std::vector<unsigned char> bytes) {
    tensors_.push_back({name, type, std::move(ne), std::move(bytes)});
    return *this;
  }
  /// A float32 tensor; `ne` innermost first (a [rows, cols] matrix is ne = {cols, rows}).
  GgufBuilder& tensorF32(const std::string& name, std::vector<std::int64_t> ne,
                         const std::vector<float>& values) {
    std::vector<unsigned char> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return tensor(name, 0, std::move(ne), std::move(bytes));
  }

  std::vector<unsigned char> bytes(std::uint32_t alignment = 32) const {
    std::vector<unsigned char> out = {'G', 'G', 'U', 'F'};
    put<std::uint32_t>(out, version_);
    put<std::uint64_t>(out, tensors_.size());
    put<std::uint64_t>(out, kv_count_);
    out.insert(out.end(), kv_.begin(), kv_.end());
    std::uint64_t offset = 0;
    std::vector<std::uint64_t> offsets;
    for (const auto& t : tensors_) {
      putString(out, t.name);
      put<std::uint32_t>(out, static_cast<std::uint32_t>(t.ne.size()));
      for (auto d : t.ne) put<std::int64_t>(out, d);
      put<std::uint32_t>(out, t.type);
      put<std::uint64_t>(out, offset);
      offsets.push_back(offset);
      offset += (t.bytes.size() + alignment - 1) / alignment * alignment;
    }
    while (out.size() % alignment != 0) out.push_back(0);
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
      out.insert(out.end(), tensors_[i].bytes.begin(), tensors_[i].bytes.end());
      while (out.size() % alignment != 0) out.push_back(0);
    }
    return out;
  }

 private:
  template <typename T>
  GgufBuilder& scalar(const std::string& key, std::uint32_t type, T v) {
    putString(kv_, key);
    put<std::uint32_t>(kv_, type);
    put<T>(kv_, v);
    ++kv_count_;
    return *this;
  }
  struct Tensor {
    std::string name;
    std::uint32_t type;
    std::vector<std::int64_t> ne;
    std::vector<unsigned char> bytes;
  };
  std::uint32_t version_;
  std::vector<unsigned char> kv_;
  std::uint64_t kv_count_ = 0;
  std::vector<Tensor> tensors_;
};

/// The bytes of one metadata value as GGUF stores it after its type: scalars little-endian,
/// strings as length + bytes, arrays as element type + count + elements.
inline void putValue(std::vector<unsigned char>& out, const GgufValue& v) {
  using T = GgufValueType;
  switch (v.type) {
    case T::kUint8: case T::kInt8: case T::kBool:
      GgufBuilder::put<std::uint8_t>(out, static_cast<std::uint8_t>(v.integer));
      break;
    case T::kUint16: case T::kInt16:
      GgufBuilder::put<std::uint16_t>(out, static_cast<std::uint16_t>(v.integer));
      break;
    case T::kUint32: case T::kInt32:
      GgufBuilder::put<std::uint32_t>(out, static_cast<std::uint32_t>(v.integer));
      break;
    case T::kUint64: case T::kInt64:
      GgufBuilder::put<std::uint64_t>(out, static_cast<std::uint64_t>(v.integer));
      break;
    case T::kFloat32:
      GgufBuilder::put<float>(out, static_cast<float>(v.number));
      break;
    case T::kFloat64:
      GgufBuilder::put<double>(out, v.number);
      break;
    case T::kString:
      GgufBuilder::putString(out, v.text);
      break;
    case T::kArray:
      GgufBuilder::put<std::uint32_t>(out, static_cast<std::uint32_t>(v.element_type));
      GgufBuilder::put<std::uint64_t>(out, v.items.size());
      for (const GgufValue& item : v.items) putValue(out, item);
      break;
  }
}

/// Copies every key and tensor of `file` into `b` (tensors byte for byte, any type), except the
/// keys for which skip(key) is true: a real file with keys added or changed by the caller.
template <typename Skip>
void copyGguf(const GgufFile& file, GgufBuilder& b, Skip skip) {
  for (const auto& [key, value] : file.metadata()) {
    if (skip(key)) continue;
    std::vector<unsigned char> bytes;
    putValue(bytes, value);
    b.raw(key, static_cast<std::uint32_t>(value.type), bytes);
  }
  for (const GgufTensor& t : file.tensors()) {
    const auto* p = reinterpret_cast<const unsigned char*>(t.data);
    b.tensor(t.name, t.type, t.dims, std::vector<unsigned char>(p, p + t.bytes));
  }
}

/// Writes bytes to a file (replacing it) and returns its path.
inline std::filesystem::path writeBytes(const std::filesystem::path& path,
                                        const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return path;
}

/// Splits `file` as llama.cpp's gguf-split does: `parts` files DIR/PREFIX-0000i-of-0000N.gguf, the
/// first with every key, each with split.no (uint16), split.count (uint16) and
/// split.tensors.count (int32), the tensors dealt out in file order, about as many to each part.
/// Returns the parts' paths.
inline std::vector<std::filesystem::path> splitGguf(const GgufFile& file, const std::filesystem::path& dir,
                                                   const std::string& prefix, int parts) {
  std::vector<std::filesystem::path> paths;
  const auto& tensors = file.tensors();
  const std::size_t per = (tensors.size() + static_cast<std::size_t>(parts) - 1) / static_cast<std::size_t>(parts);
  for (int i = 0; i < parts; ++i) {
    GgufBuilder b;
    auto u16 = [](std::uint16_t v) {
      return std::vector<unsigned char>{static_cast<unsigned char>(v & 0xFF), static_cast<unsigned char>(v >> 8)};
    };
    if (i == 0) {
      for (const auto& [key, value] : file.metadata()) {
        std::vector<unsigned char> bytes;
        putValue(bytes, value);
        b.raw(key, static_cast<std::uint32_t>(value.type), bytes);
      }
    }
    b.raw("split.no", 2, u16(static_cast<std::uint16_t>(i)));
    b.raw("split.count", 2, u16(static_cast<std::uint16_t>(parts)));
    b.i32("split.tensors.count", static_cast<std::int32_t>(tensors.size()));
    for (std::size_t t = static_cast<std::size_t>(i) * per; t < std::min(tensors.size(), (static_cast<std::size_t>(i) + 1) * per); ++t) {
      const auto* p = reinterpret_cast<const unsigned char*>(tensors[t].data);
      b.tensor(tensors[t].name, tensors[t].type, tensors[t].dims, std::vector<unsigned char>(p, p + tensors[t].bytes));
    }
    char name[32];
    std::snprintf(name, sizeof name, "-%05d-of-%05d.gguf", i + 1, parts);
    paths.push_back(writeBytes(dir / (prefix + name), b.bytes(file.alignment())));
  }
  return paths;
}

}  // namespace attnlab::test
