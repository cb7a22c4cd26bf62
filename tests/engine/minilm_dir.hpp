#pragma once
// Where the real-model tests find the models scripts/fetch-model fetches (all-MiniLM-L6-v2,
// SmolLM2-135M-Instruct, Gemma 3 270M).

#include <catch2/catch.hpp>
#include <cstdlib>

#include "fetched_models.hpp"
#include "test_support.hpp"
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::test {

/// The MiniLM folder, or std::nullopt after reporting the test as skipped (CTest shows it as
/// skipped; scripts/test fails a CI run with any skipped test, since CI must run the real model).
inline std::optional<std::filesystem::path> requireMiniLm() {
  auto dir = miniLmDir();
  if (!dir) {
    skipTest(
        "all-MiniLM-L6-v2 not found (run scripts/fetch-model or set ATTNLAB_MINILM_DIR); this "
        "real-model test cannot run");
  }
  return dir;
}

/// A model file fetched by scripts/fetch-model: $ENV (scripts/test sets it), else the cache
/// ($ATTNLAB_MODEL_CACHE, $XDG_CACHE_HOME/attention-lab/models, ~/.cache/attention-lab/models)
/// holding `file`. When it is absent the test is reported skipped (a failure with CI=true,
/// which must run every real model), naming `fetch_name` for scripts/fetch-model.
inline std::optional<std::filesystem::path> requireFetchedFile(const char* env, const char* file,
                                                               const char* fetch_name,
                                                               const char* model) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char* f = std::getenv(env); f && *f) candidates.emplace_back(f);
  if (const char* c = std::getenv("ATTNLAB_MODEL_CACHE"); c && *c) {
    candidates.push_back(fs::path(c) / file);
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    candidates.push_back(fs::path(x) / "attention-lab/models" / file);
  }
  if (const char* h = std::getenv("HOME"); h && *h) {
    candidates.push_back(fs::path(h) / ".cache/attention-lab/models" / file);
  }
  for (const fs::path& p : candidates) {
    if (fs::exists(p)) return p;
  }
  const std::string message = std::string(model) + " not found (run scripts/fetch-model " +
                              fetch_name + " or set " + env +
                              "); this real-model test is skipped";
  if (inCi()) FAIL(message);
  skipTest(message);
  return std::nullopt;
}

/// SmolLM2-135M-Instruct's .gguf (see requireFetchedFile).
inline std::optional<std::filesystem::path> requireSmolLm2() {
  return requireFetchedFile("ATTNLAB_SMOLLM2_GGUF", "SmolLM2-135M-Instruct.Q4_1.gguf", "smollm2",
                            "SmolLM2-135M-Instruct");
}

/// Gemma 3 270M's .gguf (see requireFetchedFile).
inline std::optional<std::filesystem::path> requireGemma3() {
  return requireFetchedFile("ATTNLAB_GEMMA3_GGUF", "gemma-3-270m-q4_k_m.gguf", "gemma3",
                            "Gemma 3 270M");
}

}  // namespace attnlab::test
