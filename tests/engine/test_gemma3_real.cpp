// The real Gemma 3 270M Q4_K_M GGUF (scripts/fetch-model gemma3) against
// tests/data/goldens/gemma-3-270m.safetensors (tests/reference/make_gemma3_goldens.py): its
// SentencePiece tokenizer against llama.cpp's ids, its tensors' types dequantised bit for bit as
// the gguf package does, and every layer's and head's attention and the next tokens against the
// independent reference (tests/reference/gemma3_reference.py). Skipped, visibly, when the model is not fetched (a failure with CI=true).

#include <catch2/catch.hpp>
#include <cstring>
#include <set>
#include <nlohmann/json.hpp>

#include "attnlab/backend.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"
#include "test_support.hpp"

using namespace attnlab;
using namespace attnlab::test;
namespace fs = std::filesystem;

namespace {

const fs::path kGolden = fs::path(ATTNLAB_TEST_DATA_DIR) / "goldens/gemma-3-270m.safetensors";

/// Gemma 3 270M's .gguf: $ATTNLAB_GEMMA3_GGUF (scripts/test sets it), else fetch-model's cache;
/// a visible skip when absent (a failure with CI=true).
std::optional<fs::path> requireGemma3() {
  std::vector<fs::path> candidates;
  if (const char* f = std::getenv("ATTNLAB_GEMMA3_GGUF"); f && *f) candidates.emplace_back(f);
  const char* name = "gemma-3-270m-q4_k_m.gguf";
  if (const char* c = std::getenv("ATTNLAB_MODEL_CACHE"); c && *c) {
    candidates.push_back(fs::path(c) / name);
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    candidates.push_back(fs::path(x) / "attention-lab/models" / name);
  }
  if (const char* h = std::getenv("HOME"); h && *h) {
    candidates.push_back(fs::path(h) / ".cache/attention-lab/models" / name);
  }
  for (const fs::path& p : candidates) {
    if (fs::exists(p)) return p;
  }
  const char* message =
      "Gemma 3 270M not found (run scripts/fetch-model gemma3 or set ATTNLAB_GEMMA3_GGUF); this "
      "real-model test is skipped";
  if (inCi()) FAIL(message);
  skipTest(message);
  return std::nullopt;
}

std::string key(const char* prefix, std::size_t i) {
  return prefix + std::string(i < 10 ? "0" : "") + std::to_string(i);
}

}  // namespace

TEST_CASE("Gemma 3 270M's SentencePiece tokenizer gives llama.cpp's ids",
          "[gguf][tokenizer][gemma3]") {
  const auto path = requireGemma3();
  if (!path) return;
  const GgufFile file(*path);
  CHECK(file.string("tokenizer.ggml.model") == "llama");
  CHECK(file.boolean("tokenizer.ggml.add_space_prefix") == false);
  const auto tokenizer = loadGgufTokenizer(file);
  CHECK(tokenizer->vocabSize() == 262144);
  const SafeTensors golden(kGolden);
  const auto cases = nlohmann::json::parse(golden.metadata().at("tokenizer_cases"));
  REQUIRE(cases.size() >= 15);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string text = cases[i].at("text").get<std::string>();
    INFO("case " << cases[i].at("name").get<std::string>() << ": " << text);
    const std::vector<std::int64_t> want = golden.integers(key("tok", i) + ".ids");
    const Encoding e = tokenizer->encode(text);
    CHECK(std::vector<std::int64_t>(e.ids.begin(), e.ids.end()) == want);
  }
  // 300 random texts of spaces, newlines, tabs, CJK, emoji, digits, HTML and control tokens.
  const auto texts = nlohmann::json::parse(golden.metadata().at("random_texts"));
  const std::vector<std::int64_t> ids = golden.integers("random.ids");
  const std::vector<std::int64_t> lengths = golden.integers("random.lengths");
  REQUIRE(texts.size() == lengths.size());
  std::size_t at = 0, differ = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::string text = texts[i].get<std::string>();
    const auto n = static_cast<std::size_t>(lengths[i]);
    REQUIRE(at + n <= ids.size());
    const std::vector<std::int64_t> want(ids.begin() + static_cast<std::ptrdiff_t>(at),
                                         ids.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
    const Encoding e = tokenizer->encode(text);
    const std::vector<std::int64_t> got(e.ids.begin(), e.ids.end());
    if (got != want && differ++ < 5) {
      UNSCOPED_INFO("random text " << i << " \"" << text << "\" differs from llama.cpp");
    }
  }
  CHECK(differ == 0);
}

TEST_CASE("Gemma 3 270M's tensor types dequantise bit for bit as gguf.quants does",
          "[gguf][gemma3]") {
  const auto path = requireGemma3();
  if (!path) return;
  const GgufFile file(*path);
  const SafeTensors golden(kGolden);
  const auto types = nlohmann::json::parse(golden.metadata().at("dequantised"));
  std::set<std::string> seen;
  for (const auto& [name, type] : types.items()) {
    INFO(name << " (" << type.get<std::string>() << ")");
    const GgufTensor& t = file.tensor(name);
    CHECK(ggmlTypeName(t.type) == type.get<std::string>());
    seen.insert(type.get<std::string>());
    const std::vector<std::int64_t> rows = golden.integers("deq." + name + ".rows");
    const std::vector<float> want = golden.floats("deq." + name + ".values");
    const std::size_t cols = static_cast<std::size_t>(t.cols());
    const std::size_t row_bytes = t.bytes / static_cast<std::size_t>(t.rows());
    REQUIRE(want.size() == rows.size() * cols);
    std::vector<float> got(cols);
    std::size_t differ = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      dequantize(t.type, t.data + static_cast<std::size_t>(rows[r]) * row_bytes, cols, got.data());
      differ += static_cast<std::size_t>(
          std::memcmp(got.data(), want.data() + r * cols, cols * sizeof(float)) != 0);
    }
    CHECK(differ == 0);
  }
  // Every type the file uses: F32 norms, Q8_0 embedding and V, Q5_0, Q4_K, Q6_K.
  std::set<std::string> used;
  for (const GgufTensor& t : file.tensors()) used.insert(ggmlTypeName(t.type));
  CHECK(used == std::set<std::string>{"F32", "Q4_K", "Q5_0", "Q6_K", "Q8_0"});
  CHECK(seen == used);
}
