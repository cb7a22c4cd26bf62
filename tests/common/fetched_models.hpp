#pragma once
// Where the real-model tests find the fetched models (all-MiniLM-L6-v2, SmolLM2-135M-Instruct,
// Gemma 3 270M), without a test framework: by their entries in the one model manifest,
// resources/model-manifest.json (its "cache" name, "env" variable and "folder"/"check" fields;
// app/options/model_manifest.hpp), so the tests read exactly the files whose SHA-256 the manifest
// pins (tests/app/test_model_manifest.cpp checks them). The Catch2 tests report a missing one
// through minilm_dir.hpp; the window's QtTest tests print the CTest skip marker themselves.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab::test {

/// The manifest's entry of model `name` ("minilm", "smollm2", "gemma3"), read from the source
/// tree (beside ATTNLAB_TEST_DATA_DIR, tests/data). Throws std::runtime_error when the manifest
/// or the model is missing.
inline nlohmann::json manifestEntry(const std::string& name) {
  std::ifstream in(std::string(ATTNLAB_TEST_DATA_DIR) + "/../../resources/model-manifest.json");
  if (!in) throw std::runtime_error("resources/model-manifest.json cannot be read");
  const nlohmann::json manifest = nlohmann::json::parse(in);
  for (const nlohmann::json& m : manifest.at("models"))
    if (m.at("name") == name) return m;
  throw std::runtime_error("resources/model-manifest.json has no model " + name);
}

/// The fetched copy of model `name`: $ENV of its entry (scripts/test sets it), else its "cache"
/// name in fetch-model's cache ($ATTNLAB_MODEL_CACHE, $XDG_CACHE_HOME/attention-lab/models,
/// ~/.cache/attention-lab/models); a folder model counts when its "check" file is there.
inline std::optional<std::filesystem::path> fetchedModel(const std::string& name) {
  namespace fs = std::filesystem;
  const nlohmann::json m = manifestEntry(name);
  const std::string cache = m.at("cache");
  std::vector<fs::path> candidates;
  if (const std::string env = m.value("env", ""); !env.empty())
    if (const char* f = std::getenv(env.c_str()); f && *f) candidates.emplace_back(f);
  if (const char* c = std::getenv("ATTNLAB_MODEL_CACHE"); c && *c) candidates.push_back(fs::path(c) / cache);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    candidates.push_back(fs::path(x) / "attention-lab/models" / cache);
  if (const char* h = std::getenv("HOME"); h && *h)
    candidates.push_back(fs::path(h) / ".cache/attention-lab/models" / cache);
  const bool folder = m.value("folder", false);
  for (const fs::path& p : candidates) {
    if (folder ? fs::exists(p / m.value("check", "")) : fs::is_regular_file(p)) return p;
  }
  return std::nullopt;
}

/// all-MiniLM-L6-v2's folder, or nothing (fetchedModel("minilm")).
inline std::optional<std::filesystem::path> miniLmDir() { return fetchedModel("minilm"); }

}  // namespace attnlab::test
