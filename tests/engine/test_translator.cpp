// The trained translators (attnlab/translator.hpp) against what tests/reference/
// train_translators.py wrote: the forward pass equals torch's goldens (logits and every attention
// weight within 1e-5), greedy decoding equals the script's outputs on the whole test set, and
// dates-additive aligns (the attention row of each year/month/day character peaks inside the
// matching source span). ATTNLAB_TRANSLATOR_MODELS / ATTNLAB_TRANSLATOR_GOLDENS point elsewhere
// (the folders of models and goldens) to check other files the same way.

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/translator.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_translator {

namespace {

using attnlab::AttentionResult;
using attnlab::ErrorCode;
using attnlab::Translation;
using attnlab::Translator;
using attnlab::TranslatorOptions;
using attnlab::test::ErrorMatches;
using json = nlohmann::json;
namespace fs = std::filesystem;

// Attention weights (in [0, 1]): |Δ| ≤ tol. Logits (|logit| ≈ 10 here): |Δ| ≤ tol · max(1, |logit|) —
// torch's float32 GRU recurrence is itself ~1e-5 from the exact values at a logit of 11
// (dates-additive in double and in float32 both differ from torch by 1.0e-5 there).
// tol = max(1e-5, u·√d_k·max|S|): scores S = q·k are sums of d_k float32 products, so torch's and
// the engine's differ by about u·√d_k·|S| (u = 2^-24), and a softmax moves a weight by at most
// about that much. dates-transformer (max|S| 15, d_k 128): 1.0e-5; dates-transformer-unscaled,
// trained without 1/√d_k (max|S| 224): 1.5e-4 — float32 cannot pin its weights closer.
constexpr double kTolerance = 1e-5;
constexpr double kUnitRoundoff = 5.9604644775390625e-08;  // 2^-24
const char* const kModels[] = {"dates-additive", "dates-transformer", "dates-transformer-unscaled"};

fs::path fromEnv(const char* name, const fs::path& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? fs::path(value) : fallback;
}
fs::path modelsDir() {
  return fromEnv("ATTNLAB_TRANSLATOR_MODELS", fs::path(ATTNLAB_SOURCE_DIR) / "resources/models");
}
fs::path goldensDir() {
  return fromEnv("ATTNLAB_TRANSLATOR_GOLDENS",
                 fs::path(ATTNLAB_TEST_DATA_DIR) / "goldens/translators");
}
/// The model names present (the three shipped ones, or whatever the env folders hold).
std::vector<std::string> modelNames() {
  std::vector<std::string> names;
  if (std::getenv("ATTNLAB_TRANSLATOR_MODELS")) {
    for (const auto& e : fs::directory_iterator(goldensDir()))
      if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  for (const char* m : kModels)
    if (fs::exists(modelsDir() / m / "config.json")) names.emplace_back(m);
  return names;
}

json readJson(const fs::path& path) {
  std::ifstream in(path);
  REQUIRE(in);
  return json::parse(in);
}

/// max |a − b| over a result's weights and the nested golden list [h][rows][cols] (or [rows][cols]
/// for one head).
double maxDiff(const attnlab::Tensor3& t, const json& golden, bool one_head) {
  double worst = 0;
  const int h = one_head ? 1 : static_cast<int>(golden.size());
  REQUIRE(t.h == h);
  for (int k = 0; k < h; ++k) {
    const json& m = one_head ? golden : golden[static_cast<std::size_t>(k)];
    REQUIRE(static_cast<int>(m.size()) == t.rows);
    for (int i = 0; i < t.rows; ++i) {
      REQUIRE(static_cast<int>(m[static_cast<std::size_t>(i)].size()) == t.cols);
      for (int j = 0; j < t.cols; ++j)
        worst = std::max(worst, std::abs(double(t(k, i, j)) - m[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)].get<double>()));
    }
  }
  return worst;
}

double maxDiffLayers(const std::vector<AttentionResult>& layers, const json& golden) {
  REQUIRE(layers.size() == golden.size());
  double worst = 0;
  for (std::size_t l = 0; l < layers.size(); ++l)
    worst = std::max(worst, maxDiff(layers[l].weights, golden[l], false));
  return worst;
}

}  // namespace

TEST_CASE("translators: the forward pass equals torch's goldens (logits, every attention weight)",
          "[translator]") {
  const std::vector<std::string> names = modelNames();
  if (names.empty()) {
    attnlab::test::skipTest("no translator in " + modelsDir().string());
    return;
  }
  auto backend = attnlab::makeCpuBackend();
  for (const std::string& name : names) {
    const fs::path golden_path = goldensDir() / (name + ".json");
    REQUIRE(fs::exists(golden_path));
    const json golden = readJson(golden_path);
    const auto model = Translator::load(modelsDir() / name);
    double logits = 0, logits_relative = 0, attention = 0, largest_score = 0;
    for (const json& c : golden.at("cases")) {
      INFO(name << ": " << c.at("source").get<std::string>());
      TranslatorOptions options;
      if (c.at("forced").get<bool>()) options.target = c.at("target").get<std::string>();
      const Translation t = model->translate(c.at("source").get<std::string>(), options, *backend);
      CHECK(t.source_ids == c.at("source_ids").get<std::vector<int>>());
      REQUIRE(t.decoder_inputs == c.at("decoder_inputs").get<std::vector<int>>());
      REQUIRE(t.target_ids == c.at("target_ids").get<std::vector<int>>());
      CHECK(t.output == c.at("target").get<std::string>());
      const json& gl = c.at("logits");
      REQUIRE(static_cast<std::size_t>(t.logits.rows()) == gl.size());
      for (Eigen::Index i = 0; i < t.logits.rows(); ++i) {
        REQUIRE(static_cast<std::size_t>(t.logits.cols()) == gl[static_cast<std::size_t>(i)].size());
        for (Eigen::Index v = 0; v < t.logits.cols(); ++v) {
          const double expected = gl[static_cast<std::size_t>(i)][static_cast<std::size_t>(v)].get<double>();
          const double d = std::abs(double(t.logits(i, v)) - expected);
          logits = std::max(logits, d);
          logits_relative = std::max(logits_relative, d / std::max(1.0, std::abs(expected)));
        }
      }
      const json& ga = c.at("attention");
      if (ga.contains("additive")) {
        attention = std::max(attention, maxDiff(t.additive.weights, ga.at("additive"), true));
      } else {
        attention = std::max(attention, maxDiffLayers(t.encoder_self, ga.at("encoder_self")));
        attention = std::max(attention, maxDiffLayers(t.decoder_self, ga.at("decoder_self")));
        attention = std::max(attention, maxDiffLayers(t.cross, ga.at("cross")));
        for (const auto* kind : {&t.encoder_self, &t.decoder_self, &t.cross})
          for (const AttentionResult& r : *kind)
            for (float v : r.scores.data) largest_score = std::max(largest_score, double(std::abs(v)));
      }
    }
    std::cout << name << ": " << golden.at("cases").size() << " cases, max |Δ logit| " << logits
              << " (relative to max(1, |logit|): " << logits_relative
              << "), max |Δ attention weight| " << attention << ", largest |score| " << largest_score << "\n";
    const double tolerance = std::max(
        kTolerance, kUnitRoundoff * std::sqrt(double(model->config().d_k)) * largest_score);
    std::cout << "  tolerance " << tolerance << "\n";
    CHECK(logits_relative <= tolerance);
    CHECK(attention <= tolerance);
  }
}

namespace {

/// Greedy decoding of `name` over the whole test set equals the script's outputs; the last greedy
/// pass is teacher forcing on its own output (a causal decoder), so forcing it gives the same
/// logits.
void checkGreedy(const std::string& name) {
  const fs::path dir = modelsDir() / name;
  const fs::path test_set = fs::path(ATTNLAB_TEST_DATA_DIR) / "translators/dates-test.json";
  if (!fs::exists(dir / "config.json") || !fs::exists(test_set) ||
      std::getenv("ATTNLAB_TRANSLATOR_MODELS")) {
    attnlab::test::skipTest(name + " or the test set is missing (" + test_set.string() + ")");
    return;
  }
  const json test = readJson(test_set);
  const json& examples = test.at("examples");
  auto backend = attnlab::makeCpuBackend();
  const auto model = Translator::load(dir);
  int equal = 0, correct = 0;
  for (const json& e : examples) {
    const Translation t = model->translate(e.at("source").get<std::string>(), {}, *backend);
    const std::string expected = e.at("outputs").at(name).get<std::string>();
    if (t.output != expected) UNSCOPED_INFO(e.at("source").get<std::string>() << ": " << t.output << " vs " << expected);
    equal += t.output == expected;
    correct += t.output == e.at("target").get<std::string>();
  }
  std::cout << name << ": greedy equals the script's on " << equal << " of " << examples.size()
            << " (exact match with the reference " << correct << ")\n";
  CHECK(equal == static_cast<int>(examples.size()));
  const std::string source = examples.at(0).at("source").get<std::string>();
  const Translation greedy = model->translate(source, {}, *backend);
  if (!greedy.finished) return;
  TranslatorOptions forced;
  forced.target = greedy.output;
  const Translation again = model->translate(source, forced, *backend);
  REQUIRE(again.target_ids == greedy.target_ids);
  CHECK((again.logits - greedy.logits).cwiseAbs().maxCoeff() <= 1e-6f);
}

}  // namespace

TEST_CASE("translators: dates-additive's greedy output equals the script's on the test set",
          "[translator]") {
  checkGreedy("dates-additive");
}
TEST_CASE("translators: dates-transformer's greedy output equals the script's on the test set",
          "[translator]") {
  checkGreedy("dates-transformer");
}
TEST_CASE("translators: dates-transformer-unscaled's greedy output equals the script's on the "
          "test set", "[translator]") {
  checkGreedy("dates-transformer-unscaled");
}

TEST_CASE("translators: dates-additive's attention rows peak inside the matching source span",
          "[translator]") {
  const fs::path dir = modelsDir() / "dates-additive";
  const fs::path test_set = fs::path(ATTNLAB_TEST_DATA_DIR) / "translators/dates-test.json";
  if (!fs::exists(dir / "config.json") || !fs::exists(test_set)) {
    attnlab::test::skipTest("dates-additive or the test set is missing");
    return;
  }
  const auto model = Translator::load(dir);
  auto backend = attnlab::makeCpuBackend();
  // Target ISO layout: year characters 0–3, month 5–6, day 8–9.
  const std::pair<const char*, std::pair<int, int>> fields[] = {
      {"year", {0, 4}}, {"month", {5, 7}}, {"day", {8, 10}}};
  int inside = 0, characters = 0, examples_all = 0, examples = 0;
  const json test = readJson(test_set);
  for (const json& e : test.at("examples")) {
    const Translation t = model->translate(e.at("source").get<std::string>(), {}, *backend);
    const json& spans = e.at("spans");
    bool all = true, any = false;
    for (const auto& [field, chars] : fields) {
      if (!spans.contains(std::string(field))) continue;
      const int b = spans.at(field)[0].get<int>(), end = spans.at(field)[1].get<int>();
      for (int i = chars.first; i < chars.second && i < t.additive.nQ(); ++i) {
        const float* row = t.additive.weights.row(0, i);
        const int peak = static_cast<int>(std::max_element(row, row + t.additive.nK()) - row);
        const bool in = peak >= b && peak < end;
        inside += in;
        ++characters;
        all = all && in;
        any = true;
      }
    }
    if (any) {
      ++examples;
      examples_all += all;
    }
  }
  REQUIRE(characters > 0);
  const double share = double(inside) / characters;
  std::cout << "dates-additive alignment: " << inside << " of " << characters
            << " year/month/day characters (" << 100 * share << " %) peak inside their span; "
            << examples_all << " of " << examples << " examples (" << 100.0 * examples_all / examples
            << " %) with every such character inside\n";
  CHECK(share >= 0.9);
}

TEST_CASE("translators: a source too long or a character outside the vocabulary is refused "
          "naming it", "[translator]") {
  const std::vector<std::string> names = modelNames();
  if (names.empty()) {
    attnlab::test::skipTest("no translator in " + modelsDir().string());
    return;
  }
  auto backend = attnlab::makeCpuBackend();
  const auto model = Translator::load(modelsDir() / names.front());
  const int most = model->config().max_source_length;
  const std::string long_source(static_cast<std::size_t>(most) + 1, '1');
  REQUIRE_THROWS_MATCHES(model->translate(long_source, {}, *backend), attnlab::Error,
                         ErrorMatches(ErrorCode::kInvalidInput,
                                      "the source has " + std::to_string(most + 1) +
                                          " characters; " + names.front() + " reads at most " +
                                          std::to_string(most)));
  REQUIRE_THROWS_MATCHES(model->translate("3 March 2021 \xE2\x82\xAC", {}, *backend),
                         attnlab::Error,
                         ErrorMatches(ErrorCode::kInvalidInput,
                                      "'\xE2\x82\xAC' (U+20AC) at position 13 is not in " +
                                          names.front() + "'s source vocabulary"));
  REQUIRE_THROWS_MATCHES(model->translate("", {}, *backend), attnlab::Error,
                         ErrorMatches(ErrorCode::kInvalidInput, "the source is empty"));
  TranslatorOptions forced;
  forced.target = "2021-03-0x";
  REQUIRE_THROWS_MATCHES(model->translate("3 March 2021", forced, *backend), attnlab::Error,
                         ErrorMatches(ErrorCode::kInvalidInput,
                                      "'x' (U+0078) at position 9 is not in " + names.front() +
                                          "'s target vocabulary"));
  forced.target = std::string(static_cast<std::size_t>(model->config().max_target_length), '1');
  REQUIRE_THROWS_MATCHES(model->translate("3 March 2021", forced, *backend), attnlab::Error,
                         ErrorMatches(ErrorCode::kInvalidInput, "the target has"));
  // A folder that is not a translator, and a missing tensor, are named.
  REQUIRE_THROWS_MATCHES(Translator::load(modelsDir() / "no-such-model"), attnlab::Error,
                         ErrorMatches(ErrorCode::kIo, "a translator is a folder"));
}

}  // namespace attnlab_test_translator
