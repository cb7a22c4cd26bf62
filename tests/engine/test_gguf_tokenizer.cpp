// Tokenizers from GGUF metadata: byte-level BPE with the smollm pre-tokenizer (digits split one by
// one), BOS/EOS as the file says, control tokens recognised in the text and marked special; the
// SentencePiece-style BPE of "llama" vocabularies worked by hand; unsupported settings named.

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "gguf_writer.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_gguf_tokenizer {

using namespace attnlab;
using namespace attnlab::test;

namespace {

// The byte-level alphabet's space is "Ġ" (U+0120).
const std::string kG = "\xC4\xA0";

std::unique_ptr<ModelTokenizer> gpt2Tokenizer(const std::string& pre, bool add_bos) {
  GgufBuilder b;
  b.str("tokenizer.ggml.model", "gpt2").str("tokenizer.ggml.pre", pre);
  b.strings("tokenizer.ggml.tokens", {"<|endoftext|>", "<|im_start|>", "a", "b", "1", "2", kG, "ab",
                                      kG + "a", kG + "1", "12"});
  b.i32s("tokenizer.ggml.token_type", {3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  b.strings("tokenizer.ggml.merges", {"a b", kG + " a", kG + " 1", "1 2"});
  b.u32("tokenizer.ggml.bos_token_id", 1).boolean("tokenizer.ggml.add_bos_token", add_bos);
  const auto bytes = b.bytes();
  const GgufFile file(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), "t.gguf");
  return loadGgufTokenizer(file);
}

}  // namespace

TEST_CASE("GGUF gpt2 tokenizer: smollm splits every digit, gpt-2 keeps numbers whole",
          "[gguf][tokenizer]") {
  // "ab 12 a": pre-tokens (gpt-2) "ab", " 12", " a" → ab, Ġ1 + 2? " 12" merges Ġ1 first (rank 2)
  // then nothing joins Ġ1 and 2: [ab, Ġ1, 2, Ġa]. With smollm the digits are pieces of their
  // own: "ab", " ", "1", "2", " a" → [ab, Ġ, 1, 2, Ġa] ("1 2" never merges across pieces).
  const auto gpt2 = gpt2Tokenizer("gpt-2", false);
  CHECK(gpt2->encode("ab 12 a").ids == std::vector<int>{7, 9, 5, 8});
  const auto smol = gpt2Tokenizer("smollm", false);
  const Encoding e = smol->encode("ab 12 a");
  CHECK(e.ids == std::vector<int>{7, 6, 4, 5, 8});
  CHECK(e.labels == std::vector<std::string>{"ab", "\u2423", "1", "2", "\u2423a"});
  // Control tokens written in the text are one special token each.
  const Encoding s = smol->encode("<|im_start|>ab");
  CHECK(s.ids == std::vector<int>{1, 7});
  CHECK(s.special == std::vector<bool>{true, false});
  CHECK(smol->isSpecial(0));
  CHECK_FALSE(smol->isSpecial(7));
  CHECK(smol->tokenLabel(8) == "\u2423a");
}

TEST_CASE("GGUF BOS follows add_bos_token", "[gguf][tokenizer]") {
  const Encoding e = gpt2Tokenizer("smollm", true)->encode("a");
  CHECK(e.ids == std::vector<int>{1, 2});
  CHECK(e.special == std::vector<bool>{true, false});
  CHECK(gpt2Tokenizer("smollm", false)->encode("a").ids == std::vector<int>{2});
}

TEST_CASE("GGUF tokenizers name what they do not support", "[gguf][tokenizer]") {
  CHECK_THROWS_WITH(gpt2Tokenizer("deepseek-llm", false),
                    Catch::Contains("tokenizer.ggml.pre \"deepseek-llm\" is not supported "
                                    "(supported: gpt-2, smollm, starcoder, refact, llama3, "
                                    "llama-v3, llama-bpe, qwen2, deepseek-r1-qwen)"));
  GgufBuilder b;
  b.str("tokenizer.ggml.model", "bert").strings("tokenizer.ggml.tokens", {"a"});
  auto bytes = b.bytes();
  CHECK_THROWS_WITH(loadGgufTokenizer(GgufFile(reinterpret_cast<const std::byte*>(bytes.data()),
                                               bytes.size(), "t.gguf")),
                    Catch::Contains("tokenizer.ggml.model \"bert\" is not supported"));
  GgufBuilder c;
  c.str("tokenizer.ggml.model", "gpt2").strings("tokenizer.ggml.tokens", {"a", "b"});
  c.i32s("tokenizer.ggml.token_type", {1});
  bytes = c.bytes();
  CHECK_THROWS_WITH(loadGgufTokenizer(GgufFile(reinterpret_cast<const std::byte*>(bytes.data()),
                                               bytes.size(), "t.gguf")),
                    Catch::Contains("tokenizer.ggml.token_type has 1 entries for 2 tokens"));
}

TEST_CASE("GGUF llama (SentencePiece) tokenizer merges the best-scoring pair first",
          "[gguf][tokenizer]") {
  // Pieces: "▁a" (score −0.5) beats "ab" (−0.7); text "ab a" → "▁ab▁a" as characters
  // ▁ a b ▁ a. Candidates: ▁a (−0.5), ab (−0.7), ▁a (−0.5): the leftmost ▁a merges first,
  // then "▁a"+"b" is not a piece, the second ▁a merges: [▁a, b, ▁a]. "中" is not a piece: its
  // UTF-8 bytes E4 B8 AD fall back to byte tokens <0xNN>; bytes without one become the file's
  // unknown token (<unk> = 0).
  GgufBuilder b;
  b.str("tokenizer.ggml.model", "llama");
  b.strings("tokenizer.ggml.tokens",
            {"<unk>", "<s>", "</s>", "\u2581", "a", "b", "\u2581a", "ab", "<0xE4>"});
  b.f32s("tokenizer.ggml.scores", {0, 0, 0, -1, -2, -2, -0.5f, -0.7f, 0});
  b.i32s("tokenizer.ggml.token_type", {2, 3, 3, 1, 1, 1, 1, 1, 6});
  b.u32("tokenizer.ggml.bos_token_id", 1).u32("tokenizer.ggml.unknown_token_id", 0);
  const auto bytes = b.bytes();
  const auto tok = loadGgufTokenizer(
      GgufFile(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), "spm.gguf"));
  const Encoding e = tok->encode("ab a");
  CHECK(e.ids == std::vector<int>{1, 6, 5, 6});  // BOS by default for llama vocabularies
  CHECK(e.labels == std::vector<std::string>{"<s>", "\u2423a", "b", "\u2423a"});
  CHECK(e.special == std::vector<bool>{true, false, false, false});
  // "中" = E4 B8 AD: <0xE4> exists, B8 and AD fall back to <unk> (id 0).
  CHECK(tok->encode("\u4e2d").ids == std::vector<int>{1, 3, 8, 0, 0});
  CHECK(tok->tokenLabel(8) == "\\xE4");
  // "<unk>" in the text is the unknown token (type 2), as llama.cpp cuts it out with the control
  // and user-defined ones; the piece after it gets the space prefix (llama-cpp-python 0.3.36
  // gives [1, 6, 0, 3, 5] for this vocabulary).
  CHECK(tok->encode("a<unk>b").ids == std::vector<int>{1, 6, 0, 3, 5});
}

TEST_CASE("GGUF llama-bpe (Llama 3's pattern) equals HuggingFace tokenizers on 1000 texts",
          "[gguf][tokenizer]") {
  // tests/reference/make_llama3_pretokenizer_goldens.py: the tiny Llama's vocabulary with Llama
  // 3's Split + ByteLevel in HuggingFace tokenizers, on random mixes of cased contractions, digit
  // runs, \r\n and other white space, punctuation, CJK and emoji.
  const std::filesystem::path dir = std::filesystem::path(ATTNLAB_TEST_DATA_DIR) / "tokenizers";
  const GgufFile file(dir / "llama3-pretokenizer.gguf");
  const auto tok = loadGgufTokenizer(file);
  std::ifstream in(dir / "llama3-pretokenizer.json");
  const auto cases = nlohmann::json::parse(in);
  REQUIRE(cases.size() == 1000);
  int mismatches = 0;
  for (const auto& c : cases) {
    const std::string text = c.at("text").get<std::string>();
    const std::vector<int> expected = c.at("ids").get<std::vector<int>>();
    const std::vector<int> got = tok->encode(text).ids;
    if (got != expected) {
      ++mismatches;
      UNSCOPED_INFO("text " << nlohmann::json(text).dump());
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("tokenizer.json with Llama 3's Split pre-tokenizer reads like the GGUF",
          "[gguf][tokenizer]") {
  const std::filesystem::path data = ATTNLAB_TEST_DATA_DIR;
  std::ifstream in(data / "models/tiny-llama/tokenizer.json");
  auto json = nlohmann::json::parse(in);
  json["pre_tokenizer"] = nlohmann::json::parse(R"({"type": "Sequence", "pretokenizers": [
      {"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
       "behavior": "Isolated", "invert": false},
      {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}]})");
  const auto path = std::filesystem::temp_directory_path() / "attnlab_llama3_tokenizer.json";
  std::ofstream(path) << json.dump();
  const auto from_json = loadByteLevelBpe(path);
  const auto from_gguf = loadGgufTokenizer(GgufFile(data / "tokenizers/llama3-pretokenizer.gguf"));
  for (const char* text : {"I'LL say 12345 and\r\n\n  then (it's) 中文!", "a\t\tb  \n c'S"}) {
    CHECK(from_json->encode(text).ids == from_gguf->encode(text).ids);
  }
}

}  // namespace attnlab_test_gguf_tokenizer
