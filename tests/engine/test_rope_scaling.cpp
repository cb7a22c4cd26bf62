// RoPE scaling (positions.hpp, RopeScaling): every way a model file states it — config.json's
// rope_scaling, the GGUF keys rope.scaling.* / rope.scale_linear and the tensor rope_freqs.weight —
// gives HuggingFace transformers' attention weights on the tiny Llama, and the kinds the engine
// does not implement are refused naming the field (issue 22, report 1).

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/positions.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"
#include "gguf_writer.hpp"
#include "helpers.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_rope_scaling {

using namespace attnlab;
using namespace attnlab::test;
namespace fs = std::filesystem;

namespace {

const fs::path kData = ATTNLAB_TEST_DATA_DIR;
const fs::path kTinyDir = kData / "models/tiny-llama";
const fs::path kGolden = kData / "goldens/tiny-llama-rope-scaling.safetensors";
constexpr double kTolerance = 1e-4;

/// A copy of the tiny Llama folder whose config.json has rope_scaling = `scaling` (and the other
/// fields in `extra`).
fs::path folderWith(const std::string& name, const nlohmann::json& scaling,
                    const nlohmann::json& extra = nlohmann::json::object()) {
  const fs::path dir = scratch("rope_" + name);
  fs::create_directories(dir);
  for (const char* f : {"model.safetensors", "tokenizer.json"}) fs::copy_file(kTinyDir / f, dir / f);
  std::ifstream in(kTinyDir / "config.json");
  nlohmann::json config = nlohmann::json::parse(in);
  config["rope_scaling"] = scaling;
  for (const auto& [k, v] : extra.items()) config[k] = v;
  std::ofstream(dir / "config.json") << config.dump(2);
  return dir;
}

/// The tiny Llama's GGUF (the same weights as the folder) with `add` applied to a builder that
/// holds every key except those `add` replaces (named in `replace`).
template <typename Add>
fs::path ggufWith(const std::string& name, std::initializer_list<const char*> replace, Add add) {
  const GgufFile file(kTinyDir / "tiny-llama.gguf");
  GgufBuilder b;
  copyGguf(file, b, [&](const std::string& key) {
    for (const char* r : replace) {
      if (key == r) return true;
    }
    return false;
  });
  add(b);
  return writeBytes(scratch("rope_" + name + ".gguf"), b.bytes());
}

/// max |ΔW| between the model's attention weights on the golden's ids and the golden variant.
double worstDifference(const fs::path& model_path, const std::string& variant) {
  const SafeTensors golden(kGolden);
  const auto model = PretrainedModel::load(model_path);
  const std::vector<std::int64_t> ids = golden.integers("input_ids");
  Encoding e;
  e.ids.assign(ids.begin(), ids.end());
  auto backend = makeCpuBackend();
  const ModelRun run = model->runIds(e, {}, *backend);
  const std::vector<float> expected = golden.floats(variant + ".attentions");
  double worst = 0;
  std::size_t k = 0;
  for (const AttentionResult& layer : run.attention) {
    for (const float w : layer.weights.data) worst = std::max(worst, std::abs(double(w) - expected.at(k++)));
  }
  REQUIRE(k == expected.size());
  return worst;
}

void requireRefused(const fs::path& model_path, const std::string& needle) {
  try {
    PretrainedModel::load(model_path);
    FAIL("no error for " << needle);
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    CHECK_THAT(e.what(), Catch::Contains(needle));
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
}

}  // namespace

TEST_CASE("every kind of RoPE scaling in config.json equals HuggingFace", "[llama][rope][golden]") {
  struct Case {
    const char* variant;
    nlohmann::json scaling;
  };
  const std::vector<Case> cases = {
      {"default", nullptr},
      {"linear4", {{"rope_type", "linear"}, {"factor", 4.0}}},
      {"linear4", {{"type", "linear"}, {"factor", 4.0}}},  // the old key name
      {"llama3",
       {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0},
        {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 16}}},
      {"yarn4", {{"rope_type", "yarn"}, {"factor", 4.0}}},
      {"yarn4", {{"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 64}}},
      {"dynamic2", {{"rope_type", "dynamic"}, {"factor", 2.0}}},
      {"default", {{"rope_type", "default"}}},
  };
  int index = 0;
  for (const Case& c : cases) {
    INFO(c.variant << ": " << c.scaling.dump());
    const double worst = worstDifference(folderWith(std::to_string(index++), c.scaling), c.variant);
    WARN("config.json rope_scaling " << c.scaling.dump() << ": max |ΔW| vs HuggingFace = " << worst);
    CHECK(worst < kTolerance);
  }
  // And each scaled variant really differs from the plain model (a reader that ignored the field
  // would fail above, not pass by accident).
  for (const char* v : {"linear4", "llama3", "yarn4"}) {
    CHECK(worstDifference(kTinyDir, v) > 0.1);
  }
}

TEST_CASE("every way a GGUF file states RoPE scaling equals HuggingFace", "[llama][rope][golden]") {
  const std::vector<float> freqs = {1, 1, 1, 1.5f, 2, 4, 8, 8};
  struct Case {
    const char* name;
    const char* variant;
    std::function<void(GgufBuilder&)> add;
  };
  const std::vector<Case> cases = {
      // Llama 3.1/3.2 files: per-pair frequency factors, no scaling type.
      {"rope_freqs", "freqs", [&](GgufBuilder& b) { b.tensorF32("rope_freqs.weight", {8}, freqs); }},
      // llama.cpp reads a factor without a type as linear, and the legacy scale_linear too.
      {"factor_only", "linear4", [](GgufBuilder& b) { b.f32("llama.rope.scaling.factor", 4); }},
      {"scale_linear", "linear4", [](GgufBuilder& b) { b.f32("llama.rope.scale_linear", 4); }},
      {"linear", "linear4",
       [](GgufBuilder& b) {
         b.str("llama.rope.scaling.type", "linear").f32("llama.rope.scaling.factor", 4);
       }},
      {"yarn", "yarn4",
       [](GgufBuilder& b) {
         b.str("llama.rope.scaling.type", "yarn").f32("llama.rope.scaling.factor", 4);
         b.u32("llama.rope.scaling.original_context_length", 64);
       }},
      // Type none: llama.cpp never scales, whatever the factor says.
      {"none", "default",
       [](GgufBuilder& b) {
         b.str("llama.rope.scaling.type", "none").f32("llama.rope.scaling.factor", 4);
       }},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const double worst = worstDifference(ggufWith(c.name, {}, c.add), c.variant);
    WARN("GGUF " << c.name << ": max |ΔW| vs HuggingFace = " << worst);
    CHECK(worst < kTolerance);
  }
  CHECK(worstDifference(kTinyDir / "tiny-llama.gguf", "freqs") > 0.1);
}

TEST_CASE("RoPE scaling the engine does not implement is refused naming the field",
          "[llama][rope]") {
  requireRefused(folderWith("longrope", {{"rope_type", "longrope"},
                                         {"short_factor", {1, 1}},
                                         {"long_factor", {1, 1}}}),
                 "rope_scaling \"longrope\" is not supported");
  requireRefused(folderWith("mscale", {{"rope_type", "yarn"}, {"factor", 4.0}, {"mscale", 1.0}}),
                 "rope_scaling.mscale is not supported");
  requireRefused(folderWith("yarn_orig", {{"rope_type", "yarn"},
                                          {"factor", 4.0},
                                          {"original_max_position_embeddings", 16}}),
                 "rope_scaling.original_max_position_embeddings (16) differs from "
                 "max_position_embeddings (64)");
  requireRefused(ggufWith("longrope", {},
                          [](GgufBuilder& b) { b.str("llama.rope.scaling.type", "longrope"); }),
                 "RoPE scaling \"longrope\" (llama.rope.scaling.type) is not supported");
  requireRefused(ggufWith("attn_factor", {},
                          [](GgufBuilder& b) {
                            b.str("llama.rope.scaling.type", "yarn")
                                .f32("llama.rope.scaling.factor", 4)
                                .f32("llama.rope.scaling.attn_factor", 0.5f);
                          }),
                 "llama.rope.scaling.attn_factor 0.5 is not supported");
  requireRefused(ggufWith("log_mul", {},
                          [](GgufBuilder& b) {
                            b.f32("llama.rope.scaling.yarn_log_multiplier", 0.1f);
                          }),
                 "llama.rope.scaling.yarn_log_multiplier is not supported");
  // Invalid values: one line naming the key (kInvalidInput).
  try {
    PretrainedModel::load(ggufWith("freqs_short", {}, [](GgufBuilder& b) {
      b.tensorF32("rope_freqs.weight", {4}, {1, 1, 1, 1});
    }));
    FAIL("a rope_freqs.weight of 4 values for 8 pairs was accepted");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("rope_freqs.weight has 4 values; the heads rotate 8 pairs"));
  }
  try {
    PretrainedModel::load(folderWith("llama3_missing", {{"rope_type", "llama3"}, {"factor", 8.0}}));
    FAIL("llama3 without its factors was accepted");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("rope_scaling.low_freq_factor is missing"));
  }
}

TEST_CASE("RoPE scaling changes the frequencies as each definition says", "[llama][rope]") {
  const std::vector<float> plain = ropeFrequencies(16, 10000);
  RopeScaling linear;
  linear.kind = RopeScaling::Kind::kLinear;
  linear.factor = 4;
  const std::vector<float> l = ropeFrequencies(16, 10000, linear);
  for (std::size_t m = 0; m < plain.size(); ++m) CHECK(l[m] == plain[m] / 4.0f);
  // YaRN: the fastest pairs (many turns in the context) keep θ, the slowest are divided by s.
  RopeScaling yarn;
  yarn.kind = RopeScaling::Kind::kYarn;
  yarn.factor = 4;
  yarn.original_positions = 64;
  const std::vector<float> y = ropeFrequencies(16, 10000, yarn);
  CHECK(y.front() == plain.front());
  CHECK(y.back() == Approx(plain.back() / 4.0f).epsilon(1e-6));
  // Frequency factors divide pair by pair; the table's cos and sin take YaRN's attention factor.
  RopeScaling f;
  f.freq_factors = {1, 2, 1, 1, 1, 1, 1, 8};
  const std::vector<float> ff = ropeFrequencies(16, 10000, f);
  CHECK(ff[1] == plain[1] / 2.0f);
  CHECK(ff[7] == plain[7] / 8.0f);
  yarn.attention_factor = 0.1 * std::log(4.0) + 1.0;
  const RopeTable t = makeRopeTable(2, 16, 10000, yarn);
  CHECK(t.cos[0] == static_cast<float>(yarn.attention_factor));  // position 0: cos 0 = 1
  CHECK(linear.describe() == "linear \u00d74");
  CHECK(f.describe() == "frequency factors (8)");
  CHECK(RopeScaling{}.describe() == "none");
}

}  // namespace attnlab_test_rope_scaling
