#pragma once
// Writes small safetensors files for tests, including deliberately broken ones.

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace attnlab::test {

/// One tensor entry: dtype spelling, shape and raw little-endian bytes.
struct RawTensor {
  std::string dtype = "F32";
  std::vector<long long> shape;
  std::vector<unsigned char> bytes;
};

/// Float32 values as a RawTensor of the given shape.
inline RawTensor f32(std::vector<long long> shape, const std::vector<float>& values) {
  RawTensor t{"F32", std::move(shape), {}};
  t.bytes.resize(values.size() * 4);
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

/// The header JSON for tensors laid out back to back in map order.
inline std::string safetensorsHeader(const std::map<std::string, RawTensor>& tensors,
                                     const std::map<std::string, std::string>& metadata = {}) {
  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : metadata) {
      header.append(first ? "\"" : ",\"").append(k).append("\":\"").append(v).append("\"");
      first = false;
    }
    header += "},";
  }
  std::size_t offset = 0;
  bool first = true;
  for (const auto& [name, t] : tensors) {
    header.append(first ? "\"" : ",\"").append(name).append("\":{\"dtype\":\"").append(t.dtype);
    header.append("\",\"shape\":[");
    for (std::size_t i = 0; i < t.shape.size(); ++i) header.append(i ? "," : "").append(std::to_string(t.shape[i]));
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + t.bytes.size()) + "]}";
    offset += t.bytes.size();
    first = false;
  }
  return header + "}";
}

/// Writes header length (little-endian u64), header and data. `header_len_override` writes another
/// length than the header's (for truncation tests).
inline void writeSafetensorsRaw(const std::filesystem::path& path, const std::string& header,
                                const std::vector<unsigned char>& data,
                                std::uint64_t header_len_override = 0) {
  std::ofstream out(path, std::ios::binary);
  std::uint64_t n = header_len_override ? header_len_override : header.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xFF));
  out << header;
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

/// Writes a valid safetensors file.
inline void writeSafetensors(const std::filesystem::path& path,
                             const std::map<std::string, RawTensor>& tensors,
                             const std::map<std::string, std::string>& metadata = {}) {
  std::vector<unsigned char> data;
  for (const auto& [name, t] : tensors) data.insert(data.end(), t.bytes.begin(), t.bytes.end());
  writeSafetensorsRaw(path, safetensorsHeader(tensors, metadata), data);
}

/// A fresh empty temporary folder named after `tag`.
inline std::filesystem::path freshDir(const std::string& tag) {
  const auto dir = std::filesystem::temp_directory_path() / ("attnlab_test_" + tag);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace attnlab::test
