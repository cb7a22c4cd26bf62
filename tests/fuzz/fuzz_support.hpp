#pragma once
// Shared by the fuzz targets: a per-process scratch file for readers that take a path, and the
// rule every target checks — the engine may refuse an input only with an attnlab::Error whose
// message is one non-empty line; anything else (another exception, a crash, a sanitizer report,
// a broken invariant) is a finding.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "attnlab/error.hpp"

namespace attnlab::fuzz {

/// Stops the run with a message: libFuzzer (or the replay driver) reports the input as a crash.
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
  std::abort();
}

/// Requires an invariant of a result the engine accepted.
inline void expect(bool holds, const char* what) {
  if (!holds) finding(what);
}

/// A refusal must be one non-empty line, free of control characters.
inline void expectOneLine(const Error& e) {
  const std::string_view what = e.what();
  bool control = false;
  for (const char c : what) control |= static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
  if (what.empty() || control) finding("error message is not one line: " + std::string(what));
}

/// A file `name` in a scratch folder of this process, holding data. The folder is on /dev/shm
/// (memory) where there is one — a disk folder made the targets 14× slower — and is removed at
/// exit.
inline std::filesystem::path scratchFile(const char* name, const std::uint8_t* data,
                                         std::size_t size) {
  struct Scratch {
    std::filesystem::path dir;
    Scratch() {
      std::error_code ec;
      const std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec)
                                             ? std::filesystem::path("/dev/shm")
                                             : std::filesystem::temp_directory_path();
      dir = base / ("attnlab_fuzz_" + std::to_string(::getpid()));
      std::filesystem::create_directories(dir);
    }
    ~Scratch() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  };
  static const Scratch scratch;
  const std::filesystem::path path = scratch.dir / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace attnlab::fuzz
