#pragma once
/// \file mapped_file.hpp
/// Private to the engine: a whole file mapped read-only, what the GGUF and safetensors readers
/// (gguf.cpp, safetensors.cpp) validate and hand tensors out of.

#include <cstddef>
#include <filesystem>

namespace attnlab {

/// The bytes of one regular file, mapped read-only (mmap, PROT_READ, MAP_PRIVATE) for the life of
/// the object and unmapped when it is destroyed (RAII: a reader whose validation throws leaves
/// nothing mapped). The descriptor is closed as soon as the mapping exists.
class MappedFile {
 public:
  /// Opens and maps `path`. Throws Error(kIo) "cannot open PATH: REASON" (strerror) when it cannot
  /// be opened, "cannot read PATH: not a regular file" for a folder, device or FIFO, and
  /// "cannot map PATH: REASON" when mmap fails. An empty file maps to no bytes (data() null,
  /// size() 0), so the readers say "truncated" for it as for any file too short for its header.
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  /// The file's first byte (null when the file is empty).
  const std::byte* data() const { return static_cast<const std::byte*>(map_); }
  /// The file's length in bytes.
  std::size_t size() const { return size_; }

 private:
  void* map_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace attnlab
