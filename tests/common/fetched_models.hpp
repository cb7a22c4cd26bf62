#pragma once
// Where the real-model tests find the models scripts/fetch-model fetches, without a test
// framework (the Catch2 tests report a missing one through minilm_dir.hpp; the window's QtTest
// tests print the CTest skip marker themselves).

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

namespace attnlab::test {

/// all-MiniLM-L6-v2's folder: $ATTNLAB_MINILM_DIR (scripts/test sets it), else scripts/fetch-model's
/// cache ($ATTNLAB_MODEL_CACHE, $XDG_CACHE_HOME/attention-lab/models, ~/.cache/attention-lab/models).
inline std::optional<std::filesystem::path> miniLmDir() {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char* dir = std::getenv("ATTNLAB_MINILM_DIR"); dir && *dir) candidates.emplace_back(dir);
  if (const char* cache = std::getenv("ATTNLAB_MODEL_CACHE"); cache && *cache) {
    candidates.push_back(fs::path(cache) / "all-MiniLM-L6-v2");
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    candidates.push_back(fs::path(xdg) / "attention-lab/models/all-MiniLM-L6-v2");
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    candidates.push_back(fs::path(home) / ".cache/attention-lab/models/all-MiniLM-L6-v2");
  }
  for (const fs::path& dir : candidates) {
    if (fs::exists(dir / "model.safetensors") && fs::exists(dir / "vocab.txt")) return dir;
  }
  return std::nullopt;
}

}  // namespace attnlab::test
