// The Llama family's variants — Qwen2 (Q/K/V biases), Mistral (sliding window), Phi-3 (fused
// projections, window) — from HuggingFace folders and GGUF files against transformers 4.49's
// attention weights (tests/reference/make_llama_family_goldens.py); every config.json field and
// GGUF key that is refused names itself; an unknown architecture lists the supported ones.


#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/safetensors.hpp"
#include "gguf_writer.hpp"
#include "golden_parity.hpp"
#include "helpers.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_llama_family {

using namespace attnlab;
using namespace attnlab::test;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const fs::path kData = ATTNLAB_TEST_DATA_DIR;
constexpr double kWeightTolerance = 1e-4;  // the tolerance against HuggingFace

/// Every layer's and head's attention weights and the top-5 next tokens of `path` against the
/// golden of tiny-NAME; returns the max |Δ weight|.
double checkAgainstGolden(const fs::path& path, const std::string& name) {
  const auto model = PretrainedModel::load(path);
  const SafeTensors golden(kData / ("goldens/tiny-" + name + ".safetensors"));
  const auto cases = json::parse(golden.metadata().at("cases"));
  REQUIRE(cases.size() >= 5);
  auto backend = makeCpuBackend();
  GoldenParity worst;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string text = cases[i].at("text").get<std::string>();
    INFO("case " << cases[i].at("name").get<std::string>() << ": " << text);
    const std::vector<std::int64_t> ids = golden.integers(caseKey(i) + ".input_ids");
    const ModelRun run = model->run(text, std::nullopt, {}, *backend);
    REQUIRE(std::vector<std::int64_t>(run.encoding.ids.begin(), run.encoding.ids.end()) == ids);
    REQUIRE(run.attention.size() == 2);
    CHECK(run.kv_head == std::vector<int>{0, 0, 1, 1});
    addParity(run, golden.floats(caseKey(i) + ".attentions"),
              golden.integers(caseKey(i) + ".next_ids"), golden.floats(caseKey(i) + ".next_probs"),
              worst);
  }
  WARN(path.filename().string() << ": max |Δ attention weight| vs HuggingFace = " << worst.weights
                                << ", max |Δ next-token probability| = " << worst.probs);
  CHECK(worst.weights < kWeightTolerance);
  CHECK(worst.probs < kWeightTolerance);
  return worst.weights;
}

fs::path folder(const std::string& name) { return kData / "models" / ("tiny-" + name); }
fs::path ggufOf(const std::string& name) {
  return folder(name) / ("tiny-" + name + ".gguf");
}

}  // namespace

TEST_CASE("tiny Qwen2 (Q/K/V biases) equals HuggingFace, folder and GGUF", "[llama][qwen2][golden]") {
  for (const fs::path& p : {folder("qwen2"), ggufOf("qwen2")}) {
    INFO(p.string());
    const auto model = PretrainedModel::load(p);
    const ModelConfig& c = model->config();
    CHECK(c.architecture == Architecture::kLlama);
    CHECK(c.model_type == "qwen2");
    CHECK(c.qkv_bias);
    CHECK(c.rope_base == 1000000.0);
    CHECK(c.tied_embeddings);
    CHECK(c.layer_window.empty());  // sliding_window = max_position_embeddings: never binds
    checkAgainstGolden(p, "qwen2");
  }
}

TEST_CASE("tiny Mistral (sliding window 4, head_dim 24) equals HuggingFace, folder and GGUF",
          "[llama][mistral][golden]") {
  for (const fs::path& p : {folder("mistral"), ggufOf("mistral")}) {
    INFO(p.string());
    const auto model = PretrainedModel::load(p);
    const ModelConfig& c = model->config();
    CHECK(c.model_type == (p.extension() == ".gguf" ? "llama" : "mistral"));
    CHECK(c.layer_window == std::vector<int>{4, 4});
    CHECK(c.dK() == 24);
    CHECK_FALSE(c.tied_embeddings);
    CHECK_FALSE(c.qkv_bias);
    checkAgainstGolden(p, "mistral");
    // The window hides key 0 from query 4 onward: weights exactly 0 outside i − 4 < j ≤ i.
    auto backend = makeCpuBackend();
    const ModelRun run = model->run("The cat sat on the mat because it was tired.", std::nullopt,
                                    {}, *backend);
    const Tensor3& w = run.attention[1].weights;
    const int n = static_cast<int>(run.encoding.ids.size());
    REQUIRE(n > 6);
    for (int h = 0; h < 4; ++h) {
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          if (j > i || j <= i - 4) CHECK(w(h, i, j) == 0.0f);
        }
      }
    }
  }
}

TEST_CASE("tiny Phi-3 (fused qkv_proj and gate_up_proj, window 5) equals HuggingFace, folder and "
          "GGUF",
          "[llama][phi3][golden]") {
  for (const fs::path& p : {folder("phi3"), ggufOf("phi3")}) {
    INFO(p.string());
    const auto model = PretrainedModel::load(p);
    const ModelConfig& c = model->config();
    CHECK(c.model_type == "phi3");
    CHECK(c.layer_window == std::vector<int>{5, 5});
    CHECK(c.layer_norm_eps == Approx(1e-5).epsilon(1e-6));  // float32 in the GGUF
    CHECK_FALSE(c.tied_embeddings);
    checkAgainstGolden(p, "phi3");
  }
}

namespace {

/// A copy of tiny-NAME's folder in a temporary directory with `edit` applied to its config.json.
fs::path editedFolder(const std::string& name, const std::function<void(json&)>& edit) {
  const fs::path dir = scratch(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* f : {"model.safetensors", "tokenizer.json"}) {
    fs::copy_file(folder(name) / f, dir / f);
  }
  std::ifstream in(folder(name) / "config.json");
  json config = json::parse(in);
  edit(config);
  std::ofstream(dir / "config.json") << config.dump(2);
  return dir;
}

/// Loading `path` fails with Error(kInvalidArgument) (exit 2 in the CLI): one line containing
/// every needle.
void requireRefused(const fs::path& path, std::initializer_list<std::string> needles) {
  try {
    PretrainedModel::load(path);
    FAIL("no error for " << path.string());
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    for (const std::string& n : needles) CHECK_THAT(e.what(), Catch::Contains(n));
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
}

std::vector<int> windowsOf(const fs::path& path) {
  return PretrainedModel::load(path)->config().layer_window;
}

}  // namespace

namespace {

/// Runs `text` on `path` and refuses nothing: the weights of every layer.
std::vector<float> weightsOf(const fs::path& path, const std::string& text) {
  auto backend = makeCpuBackend();
  const ModelRun run = PretrainedModel::load(path)->run(text, std::nullopt, {}, *backend);
  std::vector<float> all;
  for (const AttentionResult& r : run.attention) {
    all.insert(all.end(), r.weights.data.begin(), r.weights.data.end());
  }
  return all;
}

}  // namespace

TEST_CASE("Qwen2's sliding-window fields: honoured where transformers 4.49 agrees, else inputs "
          "beyond the window refused naming them",
          "[llama][qwen2]") {
  // use_sliding_window with max_window_layers 0: every layer windowed, by both readings.
  CHECK(windowsOf(editedFolder("qwen2", [](json& c) {
          c["use_sliding_window"] = true;
          c["sliding_window"] = 4;
          c["max_window_layers"] = 0;
        })) == std::vector<int>{4, 4});
  // Absent sliding_window: Qwen2Config's 4096, beyond the context of 64: no window.
  CHECK(windowsOf(editedFolder("qwen2", [](json& c) { c.erase("sliding_window"); })).empty());
  CHECK(windowsOf(editedFolder("qwen2", [](json& c) { c["sliding_window"] = nullptr; })).empty());

  // Where transformers 4.49 windows every layer and the model's definition does not (use false;
  // or only layers ≥ max_window_layers), inputs of at most W tokens are the same either way and
  // run; longer ones are refused naming the fields.
  const SafeTensors golden(kData / "goldens/tiny-qwen2.safetensors");
  const auto cases = json::parse(golden.metadata().at("cases"));
  const std::string short_text = cases[5].at("text").get<std::string>();  // "Hello"
  const std::vector<float> expected = golden.floats("case05.attentions");
  REQUIRE(golden.integers("case05.input_ids").size() <= 4);
  const fs::path off = editedFolder("qwen2", [](json& c) { c["sliding_window"] = 4; });
  CHECK(windowsOf(off).empty());
  const std::vector<float> got = weightsOf(off, short_text);
  REQUIRE(got.size() == expected.size());
  for (std::size_t k = 0; k < got.size(); ++k) CHECK(got[k] == Approx(expected[k]).margin(1e-4));
  const fs::path upper = editedFolder("qwen2", [](json& c) {
    c["use_sliding_window"] = true;
    c["sliding_window"] = 4;
    c["max_window_layers"] = 1;
  });
  CHECK(windowsOf(upper) == std::vector<int>{0, 4});  // the model's definition
  auto backend = makeCpuBackend();
  const std::string long_text = "The cat sat on the mat because it was tired.";
  for (const auto& [path, needle] :
       {std::pair{off, std::string("config.json's sliding_window 4 with use_sliding_window false")},
        std::pair{upper, std::string("config.json's max_window_layers 1 with use_sliding_window")}}) {
    try {
      PretrainedModel::load(path)->run(long_text, std::nullopt, {}, *backend);
      FAIL("no error");
    } catch (const Error& e) {
      INFO(e.what());
      CHECK(e.code() == ErrorCode::kInvalidArgument);
      CHECK_THAT(e.what(), Catch::Contains("more than 4") && Catch::Contains(needle));
    }
  }
}

TEST_CASE("Mistral's sliding_window: the class default 4096 when absent, none when null",
          "[llama][mistral]") {
  CHECK(windowsOf(editedFolder("mistral", [](json& c) { c.erase("sliding_window"); })).empty());
  CHECK(windowsOf(editedFolder("mistral", [](json& c) {
          c.erase("sliding_window");
          c["max_position_embeddings"] = 8192;
        })) == std::vector<int>{4096, 4096});
  CHECK(windowsOf(editedFolder("mistral", [](json& c) { c["sliding_window"] = nullptr; })).empty());
  // Mistral's attention has no biases whatever attention_bias says (MistralAttention fixes them).
  CHECK_FALSE(PretrainedModel::load(editedFolder("mistral", [](json& c) {
                c["attention_bias"] = true;
              }))->config().qkv_bias);
}

TEST_CASE("Phi-3's refused fields name themselves", "[llama][phi3]") {
  requireRefused(editedFolder("phi3", [](json& c) { c["partial_rotary_factor"] = 0.5; }),
                 {"config.json: partial_rotary_factor 0.5"});
  for (const char* kind : {"su", "longrope"}) {
    requireRefused(editedFolder("phi3",
                                [&](json& c) {
                                  c["rope_scaling"] = {{"type", kind},
                                                       {"short_factor", std::vector<double>(8, 1.0)},
                                                       {"long_factor", std::vector<double>(8, 2.0)}};
                                }),
                   {"rope_scaling", std::string("\"") + kind + "\""});
  }
  // Without a window key Phi3Config has none.
  CHECK(windowsOf(editedFolder("phi3", [](json& c) { c.erase("sliding_window"); })).empty());
}

TEST_CASE("an unknown model_type names itself and every supported architecture",
          "[llama][pretrained]") {
  requireRefused(editedFolder("qwen2", [](json& c) { c["model_type"] = "falcon"; }),
                 {"model_type \"falcon\" is not supported", "config.json model_type",
                  "qwen2", "mistral", "phi3", "GGUF general.architecture llama"});
  const SupportedArchitectures& s = supportedArchitectures();
  for (const char* t : {"bert", "gpt2", "llama", "mistral", "qwen2", "phi3"}) {
    CHECK(std::find(s.model_types.begin(), s.model_types.end(), t) != s.model_types.end());
  }
  for (const char* a : {"llama", "qwen2", "phi3"}) {
    CHECK(std::find(s.gguf.begin(), s.gguf.end(), a) != s.gguf.end());
  }
}

namespace {

/// A 1-layer GGUF of `arch` (d_model 32, 2 heads, llama.cpp's tensor names for it; qwen2's Q/K/V
/// biases unless `qkv_bias` is false) with `keys` and `tensors` applied to the builder.
fs::path familyGguf(const std::string& arch, const std::function<void(GgufBuilder&)>& keys,
                    const std::function<void(GgufBuilder&)>& tensors = {}, bool qkv_bias = true) {
  GgufBuilder b;
  const std::string p = arch + ".";
  b.str("general.architecture", arch).u32(p + "block_count", 1);
  b.u32(p + "context_length", 16).u32(p + "embedding_length", 32);
  b.u32(p + "feed_forward_length", 32).u32(p + "attention.head_count", 2);
  b.u32(p + "attention.head_count_kv", 2);
  b.f32(p + "attention.layer_norm_rms_epsilon", 1e-5f);
  b.str("tokenizer.ggml.model", "gpt2").str("tokenizer.ggml.pre", "smollm");
  b.strings("tokenizer.ggml.tokens", {"<s>", "a", "b", "\xC4\xA0"});
  b.i32s("tokenizer.ggml.token_type", {3, 1, 1, 1});
  b.strings("tokenizer.ggml.merges", {});
  if (keys) keys(b);
  auto mat = [](int rows, int cols) {
    return std::vector<float>(static_cast<std::size_t>(rows * cols), 0.01f);
  };
  b.tensorF32("token_embd.weight", {32, 4}, mat(4, 32));
  b.tensorF32("output_norm.weight", {32}, mat(1, 32));
  b.tensorF32("blk.0.attn_norm.weight", {32}, mat(1, 32));
  b.tensorF32("blk.0.ffn_norm.weight", {32}, mat(1, 32));
  if (arch == "phi3") {
    b.tensorF32("blk.0.attn_qkv.weight", {32, 96}, mat(96, 32));
    b.tensorF32("blk.0.ffn_up.weight", {32, 64}, mat(64, 32));
  } else {
    for (const char* x : {"q", "k", "v"}) {
      b.tensorF32(std::string("blk.0.attn_") + x + ".weight", {32, 32}, mat(32, 32));
      if (arch == "qwen2" && qkv_bias) b.tensorF32(std::string("blk.0.attn_") + x + ".bias", {32}, mat(1, 32));
    }
    b.tensorF32("blk.0.ffn_gate.weight", {32, 32}, mat(32, 32));
    b.tensorF32("blk.0.ffn_up.weight", {32, 32}, mat(32, 32));
  }
  b.tensorF32("blk.0.attn_output.weight", {32, 32}, mat(32, 32));
  b.tensorF32("blk.0.ffn_down.weight", {32, 32}, mat(32, 32));
  if (tensors) tensors(b);
  return writeBytes(scratch(arch + ".gguf"), b.bytes());
}

}  // namespace

TEST_CASE("GGUF keys of qwen2, phi3 and llama: <arch>.* read, refused ones named",
          "[llama][gguf][qwen2][phi3]") {
  {
    const auto model = PretrainedModel::load(familyGguf("qwen2", {}));
    CHECK(model->config().qkv_bias);
    CHECK(model->config().layer_window.empty());
    auto backend = makeCpuBackend();
    CHECK(model->run("ab a", std::nullopt, {}, *backend).attention.size() == 1);
  }
  CHECK(PretrainedModel::load(familyGguf("phi3", [](GgufBuilder& b) {
          b.u32("phi3.attention.sliding_window", 3);
        }))->config().layer_window == std::vector<int>{3});
  // 0 is "no window": what llama.cpp's converter writes for Phi-4.
  CHECK(PretrainedModel::load(familyGguf("phi3", [](GgufBuilder& b) {
          b.u32("phi3.attention.sliding_window", 0);
        }))->config().layer_window.empty());
  CHECK(PretrainedModel::load(familyGguf("llama", [](GgufBuilder& b) {
          b.u32("llama.attention.sliding_window", 7);
        }))->config().layer_window == std::vector<int>{7});
  requireRefused(familyGguf("qwen2",
                            [](GgufBuilder& b) { b.u32("qwen2.attention.sliding_window", 4); }),
                 {"qwen2.attention.sliding_window is not supported"});
  requireRefused(familyGguf("phi3", [](GgufBuilder& b) { b.u32("phi3.rope.dimension_count", 8); }),
                 {"phi3.rope.dimension_count 8", "partial rotary"});
  requireRefused(familyGguf("phi3", {},
                            [](GgufBuilder& b) {
                              b.tensorF32("rope_factors_long.weight", {4},
                                          std::vector<float>(4, 1.0f));
                            }),
                 {"rope_factors_long.weight"});
  requireRefused(familyGguf("qwen2", [](GgufBuilder& b) { b.u32("qwen2.attention.value_length", 8); }),
                 {"qwen2.attention.value_length"});
  requireRefused(familyGguf("llama", [](GgufBuilder& b) { b.u32("llama.expert_count", 8); }),
                 {"llama.expert_count (mixture of experts) is not supported"});
  requireRefused(familyGguf("mamba", {}),
                 {"general.architecture \"mamba\" is not supported", "config.json model_type",
                  "GGUF general.architecture llama", "phi3", "qwen2"});
}

TEST_CASE("a qwen2 GGUF without its Q/K/V biases names the missing tensor", "[llama][qwen2]") {
  try {
    PretrainedModel::load(familyGguf("qwen2", {}, {}, /*qkv_bias=*/false));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidInput);
    CHECK_THAT(e.what(), Catch::Contains("blk.0.attn_q.bias"));
  }
}

namespace {

/// readModelConfig on `config` written to a temporary config.json.
ModelConfig configOf(const json& config) {
  const fs::path path = scratch("config.json");
  std::ofstream(path) << config.dump();
  return readModelConfig(path);
}

void requireConfigRefused(const json& config, const std::string& needle) {
  try {
    configOf(config);
    FAIL("no error for " << needle);
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    CHECK_THAT(e.what(), Catch::Contains(needle));
  }
}

/// `config` with the fields of `patch` set.
json with(json config, const json& patch) {
  config.update(patch);
  return config;
}

json configJson(const fs::path& dir) {
  std::ifstream in(dir / "config.json");
  return json::parse(in);
}

}  // namespace

TEST_CASE("config.json fields of BERT, GPT-2 and Llama that change the numbers: read or refused",
          "[llama][pretrained][audit]") {
  const json bert = {{"model_type", "bert"},         {"num_hidden_layers", 2},
                     {"num_attention_heads", 2},     {"hidden_size", 8},
                     {"intermediate_size", 16},      {"max_position_embeddings", 32},
                     {"vocab_size", 10}};
  CHECK(configOf(bert).layer_norm_eps == 1e-12);  // BertConfig's default
  requireConfigRefused(with(bert, {{"position_embedding_type", "relative_key"}}),
                       "config.json: position_embedding_type \"relative_key\"");
  requireConfigRefused(with(bert, {{"is_decoder", true}}), "config.json: is_decoder");
  requireConfigRefused(with(bert, {{"hidden_act", "mish"}}), "mish");

  const json gpt2 = configJson(kData / "models/tiny-gpt2");
  CHECK(configOf(gpt2).scale_attention);
  CHECK_FALSE(configOf(with(gpt2, {{"scale_attn_weights", false}})).scale_attention);
  CHECK(configOf(gpt2).d_ff == 4 * 64);  // n_inner null: 4·n_embd
  CHECK(configOf(with(gpt2, {{"n_inner", 100}})).d_ff == 100);
  requireConfigRefused(with(gpt2, {{"scale_attn_by_inverse_layer_idx", true}}),
                       "config.json: scale_attn_by_inverse_layer_idx");

  const json llama = configJson(kData / "models/tiny-llama");
  for (const char* bias : {"attention_bias", "mlp_bias"}) {
    requireConfigRefused(with(llama, {{bias, true}}), std::string("config.json: ") + bias);
  }
  requireConfigRefused(with(llama, {{"hidden_act", "gelu"}}), "hidden_act \"gelu\"");
  requireConfigRefused(with(configJson(folder("qwen2")), {{"hidden_act", "relu"}}),
                       "hidden_act \"relu\"");
  CHECK(configOf(with(llama, {{"head_dim", 32}})).dK() == 32);
  // LlamaModel reads no window fields: they change nothing for model_type llama.
  CHECK(configOf(with(llama, {{"sliding_window", 4}, {"use_sliding_window", true},
                              {"max_window_layers", 0}}))
            .layer_window.empty());
}

}  // namespace attnlab_test_llama_family
