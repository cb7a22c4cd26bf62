/// \file test_cli_gguf.cpp
/// attention-lab-cli with Llama-family models (issue 14): `--model` takes a .gguf file or a
/// folder; the JSON names the architecture, the K/V heads (per head too), the RoPE base, the KV
/// cache and the next tokens; pictures mark the K/V groups and show the predictions; and every
/// bad file exits 2 with one line naming the fault, never a crash.

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attnlab/memory.hpp"
#include "attnlab/pretrained.hpp"
#include "cli/cli.hpp"
#include "cli_test_support.hpp"
#include "gguf_writer.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_cli_gguf {

namespace {

using attnlab::test::GgufBuilder;

const std::string kData = ATTNLAB_TEST_DATA_DIR;
const std::string kTinyLlamaDir = kData + "/models/tiny-llama";
const std::string kTinyLlama = kTinyLlamaDir + "/tiny-llama.gguf";
const std::string kTinyGpt2 = kData + "/models/tiny-gpt2";

using attnlab::test::CliResult;
using attnlab::test::runCli;

/// Exit 2 with exactly one line on stderr containing `needle`.
void requireExit2(const std::vector<std::string>& args, const std::string& needle) {
  const CliResult r = runCli(args);
  INFO("stderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find(needle) != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.rfind("attention-lab-cli: ", 0) == 0);
}

std::vector<unsigned char> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A minimal Llama GGUF: 1 layer, d_model 32, `heads` query heads and `kv_heads` K/V heads of
/// d_model / heads, a 4-token vocabulary. `drop` names a tensor left out; `q_type` stores
/// attn_q as that ggml type (raw zero bytes of its block size).
std::vector<unsigned char> tinyLlama(int heads, int kv_heads, const std::string& drop = {},
                                     std::uint32_t q_type = 0) {
  GgufBuilder b;
  b.str("general.architecture", "llama").u32("llama.block_count", 1);
  b.u32("llama.context_length", 16).u32("llama.embedding_length", 32);
  b.u32("llama.feed_forward_length", 32)
      .u32("llama.attention.head_count", static_cast<std::uint32_t>(heads));
  b.u32("llama.attention.head_count_kv", static_cast<std::uint32_t>(kv_heads));
  b.f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  b.str("tokenizer.ggml.model", "gpt2").str("tokenizer.ggml.pre", "smollm");
  b.strings("tokenizer.ggml.tokens", {"<s>", "a", "b", "\xC4\xA0"})
      .i32s("tokenizer.ggml.token_type", {3, 1, 1, 1});
  b.strings("tokenizer.ggml.merges", {});
  const int d = 32 / heads;
  const auto mat = [](int rows, int cols) {
    return std::vector<float>(static_cast<std::size_t>(rows * cols), 0.01f);
  };
  const auto add = [&](const std::string& name, std::vector<std::int64_t> ne, int rows, int cols) {
    if (name != drop) b.tensorF32(name, std::move(ne), mat(rows, cols));
  };
  add("token_embd.weight", {32, 4}, 4, 32);
  add("output_norm.weight", {32}, 1, 32);
  add("blk.0.attn_norm.weight", {32}, 1, 32);
  add("blk.0.ffn_norm.weight", {32}, 1, 32);
  if (q_type == 0) {
    add("blk.0.attn_q.weight", {32, 32}, 32, 32);
  } else {
    b.tensor("blk.0.attn_q.weight", q_type, {256, 4}, std::vector<unsigned char>(4 * 66));
  }
  add("blk.0.attn_k.weight", {32, kv_heads * d}, kv_heads * d, 32);
  add("blk.0.attn_v.weight", {32, kv_heads * d}, kv_heads * d, 32);
  add("blk.0.attn_output.weight", {32, 32}, 32, 32);
  add("blk.0.ffn_gate.weight", {32, 32}, 32, 32);
  add("blk.0.ffn_up.weight", {32, 32}, 32, 32);
  add("blk.0.ffn_down.weight", {32, 32}, 32, 32);
  return b.bytes();
}

QJsonObject readLayout(const std::string& path) {
  QFile f(QString::fromStdString(path));
  REQUIRE(f.open(QIODevice::ReadOnly));
  return QJsonDocument::fromJson(f.readAll()).object();
}

std::vector<QJsonObject> textsWithRole(const QJsonObject& layout, const QString& role) {
  std::vector<QJsonObject> out;
  for (const QJsonValue& v : layout["texts"].toArray())
    if (v.toObject()["role"].toString() == role) out.push_back(v.toObject());
  return out;
}

}  // namespace

TEST_CASE("info --model FILE.gguf: the shape, the weights as stored and the memory of a pass",
          "[cli][model][gguf][memory]") {
  const CliResult r = runCli({"info", "--model", kTinyLlama});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const attnlab::ModelFileInfo info = attnlab::inspectModel(kTinyLlama);
  CHECK_THAT(r.out, Catch::StartsWith("tiny-llama: llama (gguf), 2 layers, d_model 64, 4 query heads "
                                      "sharing 2 K/V heads of d_k 16"));
  CHECK_THAT(r.out, Catch::Contains("weights: " + attnlab::formatBytes(info.weights.total) +
                                    " in memory as the file stores them ("));
  CHECK_THAT(r.out, Catch::Contains("memory budget now: "));
  // One row per length up to the context (64 tokens here: none), then the KV cache.
  CHECK_THAT(r.out, Catch::Contains("| tokens | activations | attention, every layer | total |"));
  CHECK_THAT(r.out, Catch::Contains("generation: a KV cache of 512 bytes per token"));
  // Not a model: the same refusal as the other commands.
  const CliResult bad = runCli({"info", "--model", std::string(kTinyLlama) + ".missing"});
  CHECK(bad.code != 0);
  CHECK(bad.err.find('\n') == bad.err.size() - 1);
}

TEST_CASE("compute --model FILE.gguf: architecture, K/V heads, RoPE, KV cache, next tokens",
          "[cli][model][gguf]") {
  const CliResult r =
      runCli({"compute", "--model", kTinyLlama, "--text", "the cat sat", "--backend", "cpu"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["model"] == "tiny-llama");
  CHECK(j["architecture"] == "llama");
  CHECK(j["format"] == "gguf");
  CHECK(j["mask"]["causal"] == true);
  CHECK(j["h"] == 4);
  CHECK(j["kv_heads"] == 2);
  CHECK(j["d_k"] == 16);
  CHECK(j["rope_base"] == 10000.0);
  CHECK(j["rope_scaling"] == "none");
  // 2 (K and V) · 2 layers · 2 K/V heads · 16 · 4 bytes; multi-head attention would need twice.
  CHECK(j["kv_cache_bytes_per_token"] == 512);
  CHECK(j["mha_kv_cache_bytes_per_token"] == 1024);
  REQUIRE(j["layers"].size() == 2);
  for (const auto& layer : j["layers"]) {
    REQUIRE(layer["heads"].size() == 4);
    for (int i = 0; i < 4; ++i) CHECK(layer["heads"][i]["kv_head"] == i / 2);  // ⌊i·G/h⌋
  }
  const auto& next = j["next_tokens"];
  REQUIRE(next.size() == 5);
  double sum = 0;
  for (std::size_t i = 0; i < next.size(); ++i) {
    CHECK(next[i]["id"].is_number_integer());
    CHECK(next[i]["token"].is_string());
    const double p = next[i]["probability"];
    CHECK(p > 0);
    if (i > 0) CHECK(p <= next[i - 1]["probability"].get<double>());
    sum += p;
  }
  CHECK(sum <= 1.0 + 1e-9);

  // The same weights as a HuggingFace folder: the same predictions.
  const CliResult folder = runCli({"compute", "--model", kTinyLlamaDir, "--text", "the cat sat",
                                   "--layer", "1", "--backend", "cpu"});
  INFO(folder.err);
  REQUIRE(folder.code == 0);
  const auto k = nlohmann::json::parse(folder.out);
  CHECK(k["architecture"] == "llama");
  CHECK(k["format"] == "safetensors");
  CHECK(k["kv_heads"] == 2);
  CHECK(k["heads"][3]["kv_head"] == 1);
  REQUIRE(k["next_tokens"].size() == 5);
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(k["next_tokens"][i]["id"] == next[i]["id"]);
    CHECK(k["next_tokens"][i]["probability"].get<double>() ==
          Approx(next[i]["probability"].get<double>()).margin(1e-4));
  }

  // Multi-head attention: every head its own K/V head, no RoPE.
  const CliResult gpt2 =
      runCli({"compute", "--model", kTinyGpt2, "--text", "the cat", "--layer", "0"});
  REQUIRE(gpt2.code == 0);
  const auto g = nlohmann::json::parse(gpt2.out);
  CHECK(g["architecture"] == "gpt2");
  CHECK(g["kv_heads"] == g["h"]);
  CHECK(g["heads"][3]["kv_head"] == 3);
  CHECK(g["rope_base"].is_null());
  CHECK(g["next_tokens"].size() == 5);
  CHECK(g["kv_cache_bytes_per_token"] == g["mha_kv_cache_bytes_per_token"]);
}

TEST_CASE("render --model FILE.gguf: K/V groups marked, the next tokens under the picture",
          "[cli][model][gguf]") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const std::string d = dir.path().toStdString();
  SECTION("the model view: a box per K/V group") {
    const CliResult r = runCli({"render", "--model", kTinyLlama, "--layer", "all", "--text",
                                "the cat sat on the mat", "--out", d + "/all.png", "--layout-json",
                                d + "/all.json"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_FALSE(QImage(QString::fromStdString(d + "/all.png")).isNull());
    const QJsonObject layout = readLayout(d + "/all.json");
    CHECK(layout["maps"].toArray().size() == 2 * 4);
    REQUIRE(layout["kv_groups"].toArray().size() == 2);
    CHECK(textsWithRole(layout, QStringLiteral("group_label")).size() == 2);
    REQUIRE(textsWithRole(layout, QStringLiteral("next_tokens")).size() >= 1);
    CHECK(textsWithRole(layout, QStringLiteral("next_tokens"))
              .front()["text"]
              .toString()
              .startsWith(QStringLiteral("next token (top 5): “")));
  }
  SECTION("one layer: each head framed in its group's colour and titled with its K/V head") {
    const CliResult r = runCli({"render", "--model", kTinyLlama, "--layer", "1", "--out",
                                d + "/one.svg", "--layout-json", d + "/one.json"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const QJsonObject layout = readLayout(d + "/one.json");
    const QJsonArray maps = layout["maps"].toArray();
    REQUIRE(maps.size() == 4);
    for (int k = 0; k < 4; ++k) CHECK(maps[k].toObject()["kv_head"].toInt() == k / 2);
    CHECK(textsWithRole(layout, QStringLiteral("panel_title"))[3]["text"].toString() ==
          QStringLiteral("head 3 · K/V 1"));
    bool noted = false;
    for (const QJsonObject& t : textsWithRole(layout, QStringLiteral("note")))
      noted = noted ||
              t["text"].toString().contains(QStringLiteral("KV cache 512 bytes per token (1 024"));
    CHECK(noted);
  }
  SECTION("GPT-2 (multi-head attention): predictions, no groups") {
    const CliResult r = runCli({"render", "--model", kTinyGpt2, "--layer", "all", "--out",
                                d + "/gpt2.png", "--layout-json", d + "/gpt2.json"});
    REQUIRE(r.code == 0);
    const QJsonObject layout = readLayout(d + "/gpt2.json");
    CHECK_FALSE(layout.contains("kv_groups"));
    CHECK_FALSE(textsWithRole(layout, QStringLiteral("next_tokens")).empty());
  }
}

TEST_CASE("bad model files exit 2 with one line naming the fault, never a crash",
          "[cli][model][gguf][errors]") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const std::string d = dir.path().toStdString();
  const std::vector<unsigned char> good = readBytes(kTinyLlama);
  REQUIRE(good.size() > 1000);
  const auto file = [&d](const std::string& name, const std::vector<unsigned char>& bytes) {
    return attnlab::test::writeBytes(d + "/" + name, bytes).string();
  };
  const auto exit2 = [](const std::string& model, const std::string& needle) {
    requireExit2({"compute", "--model", model, "--text", "the cat"}, needle);
    requireExit2({"render", "--model", model, "--text", "the cat", "--out", "unused.png"}, needle);
  };

  std::vector<unsigned char> bytes = good;
  std::memcpy(bytes.data(), "GGML", 4);
  exit2(file("magic.gguf", bytes), "magic.gguf");
  bytes = good;
  bytes[4] = 9;
  exit2(file("version.gguf", bytes), "GGUF version 9 is not supported (2 and 3 are)");
  for (const std::size_t n : {std::size_t{6}, std::size_t{100}, good.size() / 2, good.size() - 1}) {
    INFO("cut to " << n << " bytes");
    exit2(file("cut.gguf", std::vector<unsigned char>(
                               good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n))),
          "cut.gguf");
  }
  exit2(file("cut.gguf", std::vector<unsigned char>(good.begin(), good.end() - 1)),
        "past the end of the file");
  bytes = good;
  const std::uint64_t count = 1ULL << 40;
  std::memcpy(bytes.data() + 8, &count, 8);
  exit2(file("count.gguf", bytes), "tensor count 1099511627776 is larger than the file could hold");
  {
    GgufBuilder b;
    std::vector<unsigned char> length;
    GgufBuilder::put<std::uint64_t>(length, 1ULL << 50);
    b.raw("general.name", 8, length);
    exit2(file("string.gguf", b.bytes()), "general.name: string length 1125899906842624");
  }
  {
    GgufBuilder b;
    b.str("general.architecture", "llama").tensor("w", 99, {32}, std::vector<unsigned char>(64));
    exit2(file("type.gguf", b.bytes()), "tensor w: unknown tensor type 99");
  }
  exit2(file("iq2.gguf", tinyLlama(2, 2, {}, 16)),
        "blk.0.attn_q.weight is IQ2_XXS, which this engine cannot dequantise");
  exit2(file("kv.gguf", tinyLlama(2, 3)),
        "llama.attention.head_count_kv (3) does not divide llama.attention.head_count (2)");
  exit2(file("missing.gguf", tinyLlama(2, 1, "blk.0.ffn_up.weight")),
        "has no tensor blk.0.ffn_up.weight");
  exit2(d + "/none.gguf", "none.gguf");

  // A text longer than the context: tiny-llama reads at most 64 tokens.
  std::string text;
  for (int i = 0; i < 80; ++i) text += "cat ";
  requireExit2({"compute", "--model", kTinyLlama, "--text", text},
               "tiny-llama reads at most 64 (its context length)");
  requireExit2({"render", "--model", kTinyLlamaDir, "--text", text, "--out", d + "/x.png"},
               "tiny-llama reads at most 64 (its context length)");
  CHECK_FALSE(QFile::exists(QString::fromStdString(d + "/x.png")));
}

}  // namespace attnlab_test_cli_gguf
