#pragma once
// The real-model Catch2 tests' look-up of the fetched models (tests/common/fetched_models.hpp,
// which reads the model manifest): a missing model is reported skipped, or fails with CI=true.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "fetched_models.hpp"
#include "test_support.hpp"

namespace attnlab::test {

/// The fetched copy of model `name` (fetchedModel). When it is absent the test is reported
/// skipped (a failure with CI=true, which must run every real model), naming what to run.
inline std::optional<std::filesystem::path> requireFetchedFile(const std::string& name) {
  if (auto path = fetchedModel(name)) return path;
  const nlohmann::json m = manifestEntry(name);
  const std::string message = m.at("display").get<std::string>() + " not found (run scripts/fetch-model " +
                              name + " or set " + m.value("env", "ATTNLAB_MODEL_CACHE") +
                              "); this real-model test is skipped";
  if (inCi()) FAIL(message);
  skipTest(message);
  return std::nullopt;
}

/// all-MiniLM-L6-v2's folder (see requireFetchedFile).
inline std::optional<std::filesystem::path> requireMiniLm() { return requireFetchedFile("minilm"); }
/// SmolLM2-135M-Instruct's .gguf (see requireFetchedFile).
inline std::optional<std::filesystem::path> requireSmolLm2() { return requireFetchedFile("smollm2"); }
/// Gemma 3 270M's .gguf (see requireFetchedFile).
inline std::optional<std::filesystem::path> requireGemma3() { return requireFetchedFile("gemma3"); }

}  // namespace attnlab::test
