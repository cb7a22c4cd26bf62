// Gemma 2 and Gemma 3: the tiny random checkpoints of tests/reference/make_gemma_goldens.py
// (HuggingFace folder and GGUF) against their references on every layer's and head's attention
// weights and the top-5 next tokens; the config.json fields and GGUF keys that are honoured, and
// the ones refused with one line naming them.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"
#include "gguf_writer.hpp"
#include "golden_parity.hpp"
#include "helpers.hpp"
#include "model/gemma.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_gemma {

using namespace attnlab;
using namespace attnlab::test;
namespace fs = std::filesystem;

namespace {

const fs::path kData = ATTNLAB_TEST_DATA_DIR;
constexpr double kWeightTolerance = 1e-4;  // the tolerance against the reference

/// `path` (folder or GGUF) against golden `name`'s sets ("" for the folder, "gguf_" for the GGUF):
/// every layer's and head's weights, the windows of the local layers, the top-5 tokens.
GoldenParity checkGolden(const fs::path& path, const std::string& name, const std::string& set) {
  const auto model = PretrainedModel::load(path);
  const ModelConfig& c = model->config();
  const SafeTensors golden(kData / "goldens" / (name + ".safetensors"));
  const auto cases = nlohmann::json::parse(golden.metadata().at("cases"));
  const auto local = nlohmann::json::parse(golden.metadata().at("local_layers"));
  for (int l = 0; l < c.layers; ++l) {
    const bool is_local = std::find(local.begin(), local.end(), l) != local.end();
    CHECK(c.windowOf(l) == (is_local ? 4 : 0));
  }
  REQUIRE(cases.size() >= 4);
  auto backend = makeCpuBackend();
  GoldenParity worst;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string text = cases[i].at("text").get<std::string>();
    INFO("case " << cases[i].at("name").get<std::string>() << ": " << text);
    const std::vector<std::int64_t> ids = golden.integers(caseKey(i) + ".input_ids");
    Encoding e;
    e.ids.assign(ids.begin(), ids.end());
    if (cases[i].at("name") != "paragraph_24") {
      const Encoding ours = model->tokenizer().encode(text);
      REQUIRE(std::vector<std::int64_t>(ours.ids.begin(), ours.ids.end()) == ids);
    }
    const ModelRun run = model->runIds(e, {}, *backend);
    REQUIRE(static_cast<int>(run.attention.size()) == c.layers);
    for (int l = 0; l < c.layers; ++l) {
      // What the picture's mask shows.
      CHECK(run.attention[static_cast<std::size_t>(l)].pattern().window == c.windowOf(l));
    }
    addParity(run, golden.floats(caseKey(i) + "." + set + "attentions"),
              golden.integers(caseKey(i) + "." + set + "next_ids"),
              golden.floats(caseKey(i) + "." + set + "next_probs"), worst);
  }
  WARN(path.filename().string() << " vs " << golden.metadata().at("reference")
                                << ": max |Δ attention weight| = " << worst.weights
                                << ", max |Δ next-token probability| = " << worst.probs);
  CHECK(worst.weights < kWeightTolerance);
  CHECK(worst.probs < kWeightTolerance);
  return worst;
}

/// A copy of tiny model folder `name` with config.json edited by `edit`.
fs::path editedFolder(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
  const fs::path from = kData / "models" / name;
  const fs::path to = scratch(name + "_edited");
  fs::remove_all(to);
  fs::create_directories(to);
  for (const char* f : {"config.json", "model.safetensors", "tokenizer.json"})
    fs::copy_file(from / f, to / f);
  std::ifstream in(from / "config.json");
  nlohmann::json config = nlohmann::json::parse(in);
  edit(config);
  std::ofstream(to / "config.json") << config.dump(2);
  return to;
}

ModelConfig editedConfig(const std::string& name,
                         const std::function<void(nlohmann::json&)>& edit) {
  return readModelConfig(editedFolder(name, edit) / "config.json");
}

/// The keys of a Gemma GGUF (no tensors: configFromGguf reads keys only).
GgufBuilder gemmaKeys(const std::string& arch) {
  GgufBuilder b;
  b.str("general.architecture", arch);
  b.u32(arch + ".block_count", 6).u32(arch + ".context_length", 64);
  b.u32(arch + ".embedding_length", 64).u32(arch + ".feed_forward_length", 32);
  b.u32(arch + ".attention.head_count", 4).u32(arch + ".attention.head_count_kv", 1);
  b.u32(arch + ".attention.key_length", 16);
  b.f32(arch + ".attention.layer_norm_rms_epsilon", 1e-6f);
  b.u32(arch + ".attention.sliding_window", 4).u32(arch + ".vocab_size", 8);
  return b;
}

ModelConfig ggufConfig(GgufBuilder& b) {
  const std::vector<unsigned char> bytes = b.bytes();
  const GgufFile file(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), "t.gguf");
  return gemma::configFromGguf(file);
}

}  // namespace

TEST_CASE("the tiny Gemma 2 folder equals transformers' Gemma2ForCausalLM", "[gemma][golden]") {
  const fs::path dir = kData / "models/tiny-gemma2";
  const auto model = PretrainedModel::load(dir);
  const ModelConfig& c = model->config();
  CHECK(c.architecture == Architecture::kGemma2);
  CHECK(c.heads == 4);
  CHECK(c.kv_heads == 2);
  CHECK(c.dK() == 24);  // head_dim: h·d_k = 96 ≠ d_model = 64
  CHECK(c.scale_width == 32);
  CHECK(c.attn_softcap == 5);
  CHECK(c.final_softcap == 3);
  checkGolden(dir, "tiny-gemma2", "");
}

TEST_CASE("the tiny Gemma 2 GGUF equals transformers with llama.cpp's scale", "[gemma][golden]") {
  const fs::path path = kData / "models/tiny-gemma2/tiny-gemma2.gguf";
  const auto model = PretrainedModel::load(path);
  CHECK(model->config().scale_width == 24);  // llama.cpp: 1/√key_length below 27B
  CHECK(model->config().attn_softcap == 5);
  checkGolden(path, "tiny-gemma2", "gguf_");
}

TEST_CASE("the tiny Gemma 3 folder equals the independent reference", "[gemma][golden]") {
  const fs::path dir = kData / "models/tiny-gemma3";
  const auto model = PretrainedModel::load(dir);
  const ModelConfig& c = model->config();
  CHECK(c.architecture == Architecture::kGemma3);
  CHECK(c.kv_heads == 1);  // multi-query, as Gemma 3 270M
  CHECK(c.rope_base == 1e6);
  CHECK(c.rope_local_base == 1e4);
  CHECK(c.attn_softcap == 0);
  CHECK(c.kvCacheBytesPerToken() * 4 == c.mhaKvCacheBytesPerToken());  // 1 of 4
  checkGolden(dir, "tiny-gemma3", "");
}

TEST_CASE("the tiny Gemma 3 GGUF equals the independent reference", "[gemma][golden]") {
  checkGolden(kData / "models/tiny-gemma3/tiny-gemma3.gguf", "tiny-gemma3", "gguf_");
}

TEST_CASE("Gemma 3's rope_scaling (linear x8) stretches the global layers only",
          "[gemma][golden][rope]") {
  const fs::path dir = editedFolder("tiny-gemma3", [](nlohmann::json& j) {
    j["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 8.0}};
  });
  const auto model = PretrainedModel::load(dir);
  CHECK(model->config().rope_scaling.kind == RopeScaling::Kind::kLinear);
  const SafeTensors golden(kData / "goldens/tiny-gemma3.safetensors");
  const auto cases = nlohmann::json::parse(golden.metadata().at("cases"));
  const std::string key = caseKey(cases.size() - 1);
  Encoding e;
  for (std::int64_t id : golden.integers(key + ".input_ids")) e.ids.push_back(static_cast<int>(id));
  auto backend = makeCpuBackend();
  const ModelRun run = model->runIds(e, {}, *backend);
  const std::vector<float> expected = golden.floats(key + ".linear8_attentions");
  const std::vector<float> unscaled = golden.floats(key + ".attentions");
  double worst = 0, global_change = 0, local_change = 0;
  std::size_t offset = 0;
  for (int l = 0; l < 6; ++l) {
    const FloatStore& w = run.attention[static_cast<std::size_t>(l)].weights.data;
    for (std::size_t k = 0; k < w.size(); ++k) {
      worst = std::max(worst, std::abs(double(w[k]) - expected[offset + k]));
      double& change = l == 5 ? global_change : local_change;
      change = std::max(change, std::abs(double(expected[offset + k]) - unscaled[offset + k]));
    }
    offset += w.size();
  }
  WARN("tiny-gemma3, rope_scaling linear x8: max |Δ attention weight| = " << worst);
  CHECK(worst < kWeightTolerance);
  CHECK(local_change == 0);       // the local layers rotate unscaled …
  CHECK(global_change > 1e-2);    // … the global one is stretched
  const std::vector<std::int64_t> next_ids = golden.integers(key + ".linear8_next_ids");
  for (std::size_t r = 0; r < 5; ++r) CHECK(run.next_tokens[r].id == next_ids[r]);
}

TEST_CASE("Gemma: the scaling switch and a temperature replace 1/sqrt(query_pre_attn_scalar)",
          "[gemma]") {
  const auto model = PretrainedModel::load(kData / "models/tiny-gemma2");
  auto backend = makeCpuBackend();
  ModelRunOptions o;
  o.layer = 1;
  o.next_tokens = 0;
  CHECK(model->run("The cat", std::nullopt, o, *backend).attention[0].scale ==
        Catch::Detail::Approx(1 / std::sqrt(32.0)));
  o.mechanism = Mechanism::kDot;  // scaling off: no factor; the soft-cap still applies
  const ModelRun dot = model->run("The cat sat on the mat", std::nullopt, o, *backend);
  CHECK(dot.attention[0].scale == 1.0);
  for (float s : dot.attention[0].scores.data) CHECK(std::fabs(s) <= 5.0f);
  o.mechanism.reset();
  o.temperature = 2;
  CHECK(model->run("The cat", std::nullopt, o, *backend).attention[0].scale == 0.5);
}

TEST_CASE("Gemma config.json: the layer pattern, defaults and null caps are honoured",
          "[gemma][config]") {
  // Gemma 3's layer_types (transformers ≥ 4.53) win over sliding_window_pattern.
  ModelConfig c = editedConfig("tiny-gemma3", [](nlohmann::json& j) {
    j["layer_types"] = {"full_attention",    "sliding_attention", "full_attention",
                        "sliding_attention", "sliding_attention", "full_attention"};
  });
  CHECK(c.layer_window == std::vector<int>{0, 4, 0, 4, 4, 0});
  c = editedConfig("tiny-gemma3", [](nlohmann::json& j) { j["sliding_window_pattern"] = 2; });
  CHECK(c.layer_window == std::vector<int>{4, 0, 4, 0, 4, 0});
  c = editedConfig("tiny-gemma3", [](nlohmann::json& j) {
    j.erase("sliding_window_pattern");
    j["_sliding_window_pattern"] = 3;
  });
  CHECK(c.layer_window == std::vector<int>{4, 4, 0, 4, 4, 0});
  // Gemma 2's defaults when the caps are absent (Gemma2Config: 50 and 30); null switches off.
  c = editedConfig("tiny-gemma2", [](nlohmann::json& j) {
    j.erase("attn_logit_softcapping");
    j.erase("final_logit_softcapping");
  });
  CHECK(c.attn_softcap == 50);
  CHECK(c.final_softcap == 30);
  c = editedConfig("tiny-gemma2", [](nlohmann::json& j) {
    j["attn_logit_softcapping"] = nullptr;
    j["final_logit_softcapping"] = nullptr;
  });
  CHECK(c.attn_softcap == 0);
  CHECK(c.final_softcap == 0);
  CHECK(c.layer_window == std::vector<int>{4, 0, 4, 0});
  // A multimodal Gemma 3 config: the language model's fields from text_config.
  c = editedConfig("tiny-gemma3", [](nlohmann::json& j) {
    nlohmann::json text = j;
    j = nlohmann::json{{"model_type", "gemma3"}, {"text_config", text}};
  });
  CHECK(c.architecture == Architecture::kGemma3);
  CHECK(c.layers == 6);
}

TEST_CASE("Gemma config.json: fields that would change the numbers are refused by name",
          "[gemma][config]") {
  const auto refused = [](const std::string& model, const std::function<void(nlohmann::json&)>& e,
                          const std::string& field) {
    INFO(field);
    REQUIRE_THROWS_MATCHES(editedConfig(model, e), Error,
                           ErrorMatches(ErrorCode::kInvalidArgument, field));
  };
  refused("tiny-gemma3", [](nlohmann::json& j) {
    j["rope_scaling"] = {{"rope_type", "longrope"}, {"factor", 8.0}};
  }, "longrope");
  refused("tiny-gemma2", [](nlohmann::json& j) { j["attention_bias"] = true; }, "attention_bias");
  refused("tiny-gemma3", [](nlohmann::json& j) { j["use_bidirectional_attention"] = true; },
          "use_bidirectional_attention");
  refused("tiny-gemma3", [](nlohmann::json& j) { j["sliding_window"] = nullptr; },
          "sliding_window null");
  refused("tiny-gemma2", [](nlohmann::json& j) { j["hidden_activation"] = "gelu_quick"; },
          "gelu_quick");
  // tie_word_embeddings false is read: the untied output layer is then looked for.
  const fs::path untied =
      editedFolder("tiny-gemma2", [](nlohmann::json& j) { j["tie_word_embeddings"] = false; });
  REQUIRE_THROWS_MATCHES(PretrainedModel::load(untied), Error,
                         ErrorMatches(ErrorCode::kInvalidInput, "lm_head.weight"));
  REQUIRE_THROWS_MATCHES(
      editedConfig("tiny-gemma3", [](nlohmann::json& j) { j["layer_types"] = {"full_attention"}; }),
      Error, ErrorMatches(ErrorCode::kInvalidInput, "layer_types must list one type per layer"));
  REQUIRE_THROWS_MATCHES(
      editedConfig("tiny-gemma2", [](nlohmann::json& j) { j["model_type"] = "gemma3n"; }), Error,
      ErrorMatches(ErrorCode::kInvalidArgument, "model_type \"gemma3n\" is not supported"));
}

TEST_CASE("Gemma GGUF keys: llama.cpp's fixed rules, and keys they contradict refused by name",
          "[gemma][gguf]") {
  {  // Gemma 3: every 6th layer global, local base 10 000, 1/√key_length.
    GgufBuilder b = gemmaKeys("gemma3");
    const ModelConfig c = ggufConfig(b);
    CHECK(c.layer_window == std::vector<int>{4, 4, 4, 4, 4, 0});
    CHECK(c.rope_local_base == 10000);
    CHECK(c.rope_base == 10000);
    CHECK(c.scale_width == 16);
    CHECK(c.final_softcap == 0);
  }
  {  // The converter's linear ×8 (Gemma 3 4B–27B): honoured, on the global layers only.
    GgufBuilder b = gemmaKeys("gemma3");
    b.str("gemma3.rope.scaling.type", "linear").f32("gemma3.rope.scaling.factor", 8.0f);
    const ModelConfig c = ggufConfig(b);
    CHECK(c.rope_scaling.kind == RopeScaling::Kind::kLinear);
    CHECK(c.rope_scaling.factor == 8);
  }
  {  // Gemma 2: even layers local, llama.cpp's soft-cap defaults 50 and 30 when absent.
    GgufBuilder b = gemmaKeys("gemma2");
    const ModelConfig c = ggufConfig(b);
    CHECK(c.layer_window == std::vector<int>{4, 0, 4, 0, 4, 0});
    CHECK(c.attn_softcap == 50);
    CHECK(c.final_softcap == 30);
  }
  {  // The 27B rule: 46 Gemma 2 layers scale by 1/√(d_model/h), not 1/√key_length.
    GgufBuilder b;
    b.str("general.architecture", "gemma2").u32("gemma2.block_count", 46);
    b.u32("gemma2.context_length", 64).u32("gemma2.embedding_length", 4608);
    b.u32("gemma2.feed_forward_length", 32).u32("gemma2.attention.head_count", 32);
    b.u32("gemma2.attention.key_length", 128).u32("gemma2.vocab_size", 8);
    CHECK(ggufConfig(b).scale_width == 144);
  }
  const auto refused = [](const std::function<void(GgufBuilder&)>& edit, const std::string& key) {
    INFO(key);
    GgufBuilder b = gemmaKeys("gemma3");
    edit(b);
    REQUIRE_THROWS_MATCHES(ggufConfig(b), Error, ErrorMatches(ErrorCode::kInvalidArgument, key));
  };
  refused([](GgufBuilder& b) { b.str("gemma3.rope.scaling.type", "longrope"); }, "longrope");
  refused([](GgufBuilder& b) { b.f32("gemma3.rope.freq_base_swa", 500.0f); },
          "gemma3.rope.freq_base_swa");
  refused([](GgufBuilder& b) { b.u32("gemma3.attention.sliding_window_pattern", 4); },
          "gemma3.attention.sliding_window_pattern");
  refused([](GgufBuilder& b) { b.f32("gemma3.attn_logit_softcapping", 50.0f); },
          "gemma3.attn_logit_softcapping");
  refused([](GgufBuilder& b) { b.u32("gemma3.rope.dimension_count", 8); },
          "gemma3.rope.dimension_count 8");
  refused([](GgufBuilder& b) { b.u32("gemma3.attention.value_length", 8); },
          "gemma3.attention.value_length");
  refused([](GgufBuilder& b) { b.tensorF32("rope_freqs.weight", {8}, std::vector<float>(8, 1)); },
          "rope_freqs.weight");
}

}  // namespace attnlab_test_gemma
