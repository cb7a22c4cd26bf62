// Every tokenizer.json field that changes the ids is honoured as HuggingFace tokenizers 0.21
// applies it, or refused by name (docs/models.md, "Model fields: honoured, refused, irrelevant"):
// the added tokens' lstrip, rstrip, single_word and normalized flags, the model's and
// pre-tokenizer's options, and texts whose bytes Qt's conversions could alter (a leading U+FEFF,
// noncharacters, CR line ends, NFC / NFD), against tests/data/tokenizers/added-token-flags.json
// (tests/reference/make_tokenizer_flag_goldens.py).

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "gguf_writer.hpp"
#include "minilm_dir.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_tokenizer_fields {

namespace {

namespace fs = std::filesystem;
using attnlab::ErrorCode;
using Json = nlohmann::json;
using Ids = std::vector<int>;

const fs::path kData = ATTNLAB_TEST_DATA_DIR;

Json readJson(const fs::path& path) {
  std::ifstream in(path);
  REQUIRE(in);
  return Json::parse(in);
}

/// A folder of tokenizer.json variants, removed at the end of the scope.
class Scratch {
 public:
  Scratch() {
    std::random_device random;
    path_ = fs::temp_directory_path() /
            ("attnlab_tokenizer_fields_" + std::to_string(random()) + std::to_string(random()));
    fs::create_directories(path_);
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  /// Writes `json` as the file `name`; returns its path.
  fs::path write(const std::string& name, const Json& json) const {
    const fs::path file = path_ / name;
    std::ofstream(file, std::ios::binary) << json.dump();
    return file;
  }

 private:
  fs::path path_;
};

/// The tiny Llama's tokenizer.json (600 byte-level tokens, the smollm pre-tokenizer, ChatML's
/// <|im_start|> = 1 and <|im_end|> = 2).
Json tinyLlama() { return readJson(kData / "models/tiny-llama/tokenizer.json"); }

/// Applies a golden's patch: "a.b.0.c" paths set to values; "drop" removes vocabulary entries and
/// every merge that uses them or makes a token no longer in the vocabulary.
void applyPatch(Json& spec, const Json& patch) {
  for (const auto& [path, value] : patch.items()) {
    if (path == "drop") {
      Json& vocab = spec["model"]["vocab"];
      for (const Json& t : value) vocab.erase(t.get<std::string>());
      Json kept = Json::array();
      for (const Json& m : spec["model"]["merges"]) {
        std::string left, right;
        if (m.is_array()) {
          left = m[0].get<std::string>();
          right = m[1].get<std::string>();
        } else {
          const std::string s = m.get<std::string>();
          left = s.substr(0, s.find(' '));
          right = s.substr(s.find(' ') + 1);
        }
        if (vocab.contains(left) && vocab.contains(right) && vocab.contains(left + right))
          kept.push_back(m);
      }
      spec["model"]["merges"] = kept;
      continue;
    }
    Json* node = &spec;
    std::string rest = path;
    for (std::size_t dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
      const std::string key = rest.substr(0, dot);
      node = node->is_array() ? &(*node)[std::stoul(key)] : &(*node)[key];
      rest = rest.substr(dot + 1);
    }
    (*node)[rest] = value;
  }
}

/// Checks that `f` throws attnlab::Error with `code` and a one-line message containing `part`.
template <typename F>
void requireError(F&& f, ErrorCode code, const std::string& part) {
  REQUIRE_THROWS_MATCHES(f(), attnlab::Error, attnlab::test::ErrorMatches(code, part));
}

}  // namespace

TEST_CASE("tokenizer.json: added-token flags and model options give tokenizers' ids",
          "[tokenizer][model_tokenizer]") {
  const Json golden = readJson(kData / "tokenizers/added-token-flags.json");
  Scratch scratch;
  int variants = 0;
  int cases = 0;
  for (const Json& v : golden.at("variants")) {
    const std::string base = v.at("base").get<std::string>();
    Json spec = readJson(kData / "models" / base / "tokenizer.json");
    if (!v.at("added_tokens").is_null()) spec["added_tokens"] = v.at("added_tokens");
    applyPatch(spec, v.at("patch"));
    const auto tok = attnlab::loadByteLevelBpe(
        scratch.write("variant" + std::to_string(variants++) + ".json", spec));
    for (const Json& c : v.at("cases")) {
      const std::string text = c.at("text").get<std::string>();
      INFO(v.at("name").get<std::string>() << ": " << Json(text).dump());
      CHECK(tok->encode(text).ids == c.at("ids").get<Ids>());
      ++cases;
    }
  }
  CHECK(variants >= 20);
  CHECK(cases >= 200);
}

TEST_CASE("tokenizer.json: the issue's lstrip / rstrip / single_word cases", "[tokenizer]") {
  Scratch scratch;
  Json spec = tinyLlama();
  const auto flagged = [&](const std::string& name, int index, const char* flag) {
    Json s = spec;
    s["added_tokens"][index][flag] = true;
    return attnlab::loadByteLevelBpe(scratch.write(name, s));
  };
  // Without flags each space is a token of its own: [The, Ġcat, Ġ, <|im_end|>, Ġ, Ġsat].
  CHECK(attnlab::loadByteLevelBpe(scratch.write("plain.json", spec))
            ->encode("The cat <|im_end|>  sat")
            .ids == Ids{337, 309, 223, 2, 223, 535});
  Json both = spec;
  both["added_tokens"][2]["lstrip"] = true;
  both["added_tokens"][2]["rstrip"] = true;
  CHECK(attnlab::loadByteLevelBpe(scratch.write("both.json", both))
            ->encode("The cat <|im_end|>  sat")
            .ids == Ids{337, 309, 2, 85, 266});  // the spaces go with <|im_end|>; s, at
  // rstrip on <|im_start|>: the two spaces after it vanish (9 ids, not 10).
  CHECK(flagged("start.json", 1, "rstrip")->encode("<|im_start|>  user\nhi<|im_end|>\n").ids ==
        Ids{1, 87, 85, 269, 201, 74, 75, 2, 201});
  // single_word: "at" inside "concat" is not the added token.
  Json word = spec;
  word["added_tokens"].push_back({{"id", 600},
                                  {"content", "cat"},
                                  {"single_word", true},
                                  {"lstrip", false},
                                  {"rstrip", false},
                                  {"normalized", false},
                                  {"special", false}});
  const auto single = attnlab::loadByteLevelBpe(scratch.write("word.json", word));
  CHECK(single->encode("concat cat").ids == Ids{69, 308, 69, 266, 223, 600});
  CHECK_FALSE(single->isSpecial(600));
}

TEST_CASE("tokenizer.json: fields that would change the ids and are not reproduced are refused",
          "[tokenizer][model_tokenizer]") {
  Scratch scratch;
  struct Case {
    const char* path;  // as applyPatch takes it
    Json value;
    const char* message;
  };
  const Json metaspace = {{"type", "Metaspace"}, {"replacement", "\u2581"}};
  const Json roberta = {{"type", "RobertaProcessing"}};
  const Json split = {{"type", "Sequence"},
                      {"pretokenizers",
                       {{{"type", "Split"},
                         {"pattern", {{"Regex", "\\s+"}}},
                         {"behavior", "Isolated"},
                         {"invert", false}},
                        {{"type", "ByteLevel"}, {"use_regex", false}}}}};
  const Json digits_grouped = {{"type", "Sequence"},
                               {"pretokenizers",
                                {{{"type", "Digits"}, {"individual_digits", false}},
                                 {{"type", "ByteLevel"}, {"use_regex", true}}}}};
  const std::vector<Case> cases = {
      {"normalizer", {{"type", "NFD"}}, "normalizer NFD is not supported"},
      {"normalizer", {{"type", "Lowercase"}}, "normalizer Lowercase is not supported"},
      {"model.type", "Unigram", "model type \"Unigram\" is not supported"},
      {"model.dropout", 0.1, "BPE dropout (random segmentation) is not supported"},
      {"model.continuing_subword_prefix", "##", "model.continuing_subword_prefix \"##\""},
      {"model.end_of_word_suffix", "</w>", "model.end_of_word_suffix \"</w>\""},
      {"model.byte_fallback", true, "model.byte_fallback is not supported"},
      {"model.unk_token", "<nope>", "model.unk_token \"<nope>\" is not in the vocabulary"},
      {"pre_tokenizer", metaspace, "pre_tokenizer Metaspace is not supported"},
      {"pre_tokenizer", split, "pre_tokenizer Sequence is not supported"},
      {"pre_tokenizer", digits_grouped, "pre_tokenizer Sequence is not supported"},
      {"post_processor", roberta, "post_processor RobertaProcessing is not supported"},
      {"added_tokens.2.lstrip", "yes", "added_tokens entry 2.lstrip should be true or false"},
      {"added_tokens.2.rstrip", 1, "added_tokens entry 2.rstrip should be true or false"},
      {"added_tokens.2.single_word", "no",
       "added_tokens entry 2.single_word should be true or false"},
      {"added_tokens.2.normalized", 0, "added_tokens entry 2.normalized should be true or false"},
  };
  int index = 0;
  for (const Case& c : cases) {
    INFO(c.path << " = " << c.value.dump());
    Json spec = tinyLlama();
    applyPatch(spec, Json{{c.path, c.value}});
    const fs::path file = scratch.write("refused" + std::to_string(index++) + ".json", spec);
    requireError([&] { attnlab::loadByteLevelBpe(file); }, ErrorCode::kInvalidInput, c.message);
  }
}

TEST_CASE("tokenizer.json: fields irrelevant to the ids load and change nothing",
          "[tokenizer][model_tokenizer]") {
  // trim_offsets (offsets only), the decoder (ids → text), version, and truncation / padding
  // (transformers turns them off on every call unless asked: docs/models.md).
  Scratch scratch;
  const Json spec = tinyLlama();
  const std::string text = "The cat <|im_end|> sat on 12 mats.\n";
  const Ids expected =
      attnlab::loadByteLevelBpe(scratch.write("base.json", spec))->encode(text).ids;
  Json other = spec;
  other["pre_tokenizer"]["pretokenizers"][1]["trim_offsets"] = false;
  other["decoder"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}};
  other["version"] = "9.9";
  other["truncation"] = {
      {"direction", "Right"}, {"max_length", 3}, {"strategy", "LongestFirst"}, {"stride", 0}};
  other["padding"] = {{"strategy", {{"Fixed", 64}}},
                      {"direction", "Right"},
                      {"pad_id", 0},
                      {"pad_type_id", 0},
                      {"pad_token", "<|endoftext|>"}};
  CHECK(attnlab::loadByteLevelBpe(scratch.write("other.json", other))->encode(text).ids ==
        expected);
}

TEST_CASE("SmolLM2's GGUF tokenizer keeps a leading U+FEFF as HuggingFace does",
          "[tokenizer][smollm2]") {
  const auto found = attnlab::test::requireSmolLm2();
  if (!found) return;
  const attnlab::GgufFile file(*found);
  const auto tok = attnlab::loadGgufTokenizer(file);
  CHECK(tok->encode("\xEF\xBB\xBFstart").ids == Ids{186, 136, 140, 3738});  // the issue's figure
  CHECK(tok->encode("\xEF\xBB\xBF").ids == Ids{186, 136, 140});
  CHECK(tok->encode("start").ids == Ids{3738});
}

namespace {

/// A gpt2-model GGUF vocabulary (the byte-level space "Ġ" = U+0120) with `extra` keys added.
std::unique_ptr<attnlab::ModelTokenizer> ggufTokenizer(
    const std::function<void(attnlab::test::GgufBuilder&)>& extra) {
  const std::string g = "\xC4\xA0";
  attnlab::test::GgufBuilder b;
  b.str("tokenizer.ggml.model", "gpt2").str("tokenizer.ggml.pre", "smollm");
  b.strings("tokenizer.ggml.tokens",
            {"<|endoftext|>", "<|im_start|>", "a", "b", "1", g, "ab", g + "a", "<sep>", "<u>"});
  b.i32s("tokenizer.ggml.token_type", {3, 3, 1, 1, 1, 1, 1, 1, 3, 4});
  b.strings("tokenizer.ggml.merges", {"a b", g + " a"});
  b.u32("tokenizer.ggml.bos_token_id", 1).u32("tokenizer.ggml.eos_token_id", 0);
  extra(b);
  const auto bytes = b.bytes();
  const attnlab::GgufFile file(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(),
                               "t.gguf");
  return attnlab::loadGgufTokenizer(file);
}

}  // namespace

TEST_CASE("GGUF tokenizer keys: refused by name, or irrelevant to the ids", "[gguf][tokenizer]") {
  const std::string text = "ab a<|im_start|> 1";
  const Ids plain = ggufTokenizer([](auto&) {})->encode(text).ids;
  CHECK(plain == Ids{6, 7, 1, 5, 4});
  requireError(
      [&] { ggufTokenizer([](auto& b) { b.boolean("tokenizer.ggml.add_sep_token", true); }); },
      ErrorCode::kInvalidArgument, "t.gguf: tokenizer.ggml.add_sep_token = true is not supported");
  CHECK(ggufTokenizer([](auto& b) { b.boolean("tokenizer.ggml.add_sep_token", false); })
            ->encode(text)
            .ids == plain);
  // What llama.cpp does not read for a gpt2 vocabulary's prompt (add_space_prefix and
  // remove_extra_whitespaces: SentencePiece / Unigram only; scores: BPE ranks by merges), or
  // reads only to generate, pad or template (eot, padding, separator, chat_template).
  const Ids irrelevant = ggufTokenizer([](auto& b) {
                           b.boolean("tokenizer.ggml.add_space_prefix", true);
                           b.boolean("tokenizer.ggml.remove_extra_whitespaces", true);
                           b.f32s("tokenizer.ggml.scores", {0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
                           b.u32("tokenizer.ggml.eot_token_id", 0);
                           b.u32("tokenizer.ggml.padding_token_id", 0);
                           b.u32("tokenizer.ggml.seperator_token_id", 8);
                           b.u32("tokenizer.ggml.unknown_token_id", 0);
                           b.str("tokenizer.chat_template", "{{ messages }}");
                         })
                             ->encode(text)
                             .ids;
  CHECK(irrelevant == plain);
  // Honoured: control (3) tokens are recognised and special, user-defined (4) ones recognised.
  const auto types = ggufTokenizer([](auto&) {});
  const attnlab::Encoding e = types->encode("a<u><sep>");
  CHECK(e.ids == Ids{2, 9, 8});
  CHECK(e.special == std::vector<bool>{false, false, true});
  // Honoured: add_bos_token / add_eos_token with their ids.
  CHECK(ggufTokenizer([](auto& b) {
          b.boolean("tokenizer.ggml.add_bos_token", true);
          b.boolean("tokenizer.ggml.add_eos_token", true);
        })
            ->encode(text)
            .ids == Ids{1, 6, 7, 1, 5, 4, 0});
}

TEST_CASE("tokenizer_config.json (WordPiece): options it does not reproduce are refused",
          "[tokenizer][model_tokenizer]") {
  Scratch scratch;
  const fs::path dir = scratch.write("vocab.txt", Json()).parent_path();
  std::ofstream(dir / "vocab.txt") << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nun\n##aff\n";
  const auto withConfig = [&](const Json& config) {
    std::ofstream(dir / "tokenizer_config.json") << config.dump();
    return attnlab::loadModelTokenizer(dir, "bert");
  };
  CHECK(withConfig(Json::object())->encode("unaff").ids == Ids{2, 5, 6, 3});
  requireError(
      [&] {
        withConfig({{"do_basic_tokenize", false}});
      },
      ErrorCode::kInvalidArgument,
      "tokenizer_config.json: do_basic_tokenize = false is not supported");
  requireError(
      [&] {
        withConfig({{"never_split", {"unaff"}}});
      },
      ErrorCode::kInvalidArgument,
      "tokenizer_config.json: never_split [\"unaff\"] is not supported");
  requireError(
      [&] {
        withConfig({{"mask_token", {{"content", "[MASK]"}, {"lstrip", true}}}});
      },
      ErrorCode::kInvalidArgument,
      "\"mask_token\": lstrip = true is not supported by the WordPiece tokenizer");
  requireError(
      [&] {
        withConfig({{"added_tokens_decoder",
                     {{"4", {{"content", "[MASK]"}, {"rstrip", true}, {"special", true}}}}}});
      },
      ErrorCode::kInvalidArgument,
      "added_tokens_decoder 4: rstrip = true is not supported by the WordPiece tokenizer");
  requireError(
      [&] {
        withConfig({{"added_tokens_decoder", {{"7", {{"content", "<new>"}, {"special", false}}}}}});
      },
      ErrorCode::kInvalidArgument,
      "added_tokens_decoder 7: added token \"<new>\" is not supported");
  // Irrelevant to the ids: model_max_length (no truncation unless asked), the class name.
  CHECK(withConfig({{"model_max_length", 2},
                    {"tokenizer_class", "BertTokenizer"},
                    {"never_split", nullptr},
                    {"do_basic_tokenize", true},
                    {"added_tokens_decoder",
                     {{"0", {{"content", "[PAD]"}, {"lstrip", false}, {"special", true}}}}}})
            ->encode("unaff")
            .ids == Ids{2, 5, 6, 3});
}

TEST_CASE("byte-level BPE folders: tokenizer.json first; tokenizer_config.json options refused",
          "[tokenizer][model_tokenizer]") {
  Scratch scratch;
  const fs::path dir = scratch.write("tokenizer.json", tinyLlama()).parent_path();
  // The folder's tokenizer.json, read as a GPT-2 folder's would be: with <|im_end|> rstrip'ed in
  // it, vocab.json + merges.txt beside it (which know no flags) are not what is read.
  Json flagged = tinyLlama();
  flagged["added_tokens"][2]["rstrip"] = true;
  scratch.write("tokenizer.json", flagged);
  const Json gpt2_vocab = readJson(kData / "models/tiny-gpt2/vocab.json");
  scratch.write("vocab.json", gpt2_vocab);
  std::ofstream(dir / "merges.txt") << "";
  CHECK(attnlab::loadModelTokenizer(dir, "gpt2")->encode("a<|im_end|> b").ids == Ids{67, 2, 68});
  const auto withConfig = [&](const Json& config) {
    scratch.write("tokenizer_config.json", config);
    return attnlab::loadModelTokenizer(dir, "llama");
  };
  for (const char* key : {"add_prefix_space", "add_bos_token", "add_eos_token"}) {
    INFO(key);
    requireError(
        [&] {
          withConfig({{key, true}});
        },
        ErrorCode::kInvalidArgument,
        std::string("tokenizer_config.json: ") + key + " = true is not supported");
    CHECK(withConfig({{key, false}})->encode("a b").ids == Ids{67, 273});
  }
  // vocab.json + merges.txt with the slow tokenizer's added_tokens.json: refused by name.
  fs::remove(dir / "tokenizer.json");
  fs::remove(dir / "tokenizer_config.json");
  std::ofstream(dir / "added_tokens.json") << R"({"<new>": 800})";
  requireError([&] { attnlab::loadModelTokenizer(dir, "gpt2"); }, ErrorCode::kInvalidArgument,
               "added_tokens.json is not supported");
}

TEST_CASE("GGUF llama tokenizer: add_space_prefix is honoured", "[gguf][tokenizer]") {
  // The vocabulary of "GGUF llama (SentencePiece) tokenizer merges the best-scoring pair first":
  // with the prefix "ab a" is ▁ a b ▁ a → [▁a, b, ▁a]; without it a b ▁ a → ▁a (−0.5) first,
  // then ab (−0.7): [ab, ▁a].
  const auto spm = [](bool prefix) {
    attnlab::test::GgufBuilder b;
    b.str("tokenizer.ggml.model", "llama");
    b.strings("tokenizer.ggml.tokens",
              {"<unk>", "<s>", "</s>", "\u2581", "a", "b", "\u2581a", "ab", "<0xE4>"});
    b.f32s("tokenizer.ggml.scores", {0, 0, 0, -1, -2, -2, -0.5f, -0.7f, 0});
    b.i32s("tokenizer.ggml.token_type", {2, 3, 3, 1, 1, 1, 1, 1, 6});
    b.u32("tokenizer.ggml.bos_token_id", 1).u32("tokenizer.ggml.unknown_token_id", 0);
    b.boolean("tokenizer.ggml.add_space_prefix", prefix);
    const auto bytes = b.bytes();
    return attnlab::loadGgufTokenizer(attnlab::GgufFile(
        reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), "spm.gguf"));
  };
  CHECK(spm(true)->encode("ab a").ids == Ids{1, 6, 5, 6});
  CHECK(spm(false)->encode("ab a").ids == Ids{1, 7, 6});
}

TEST_CASE("Qwen2's pre-tokenizer: tokenizer.json with NFC, and tokenizer.ggml.pre = qwen2",
          "[gguf][tokenizer]") {
  // The goldens' variants "qwen2 NFC" (Qwen2's tokenizer.json: NFC normalizer, Split with its
  // pattern) and "qwen2 without normalizer" (what llama.cpp does for a GGUF: no normalizer) on the
  // tiny Llama's vocabulary; the GGUF is built from the same tokens and merges.
  const Json golden = readJson(kData / "tokenizers/added-token-flags.json");
  const Json spec = tinyLlama();
  std::vector<std::string> tokens(spec["model"]["vocab"].size());
  for (const auto& [token, id] : spec["model"]["vocab"].items())
    tokens.at(id.get<std::size_t>()) = token;
  std::vector<std::string> merges;
  for (const Json& m : spec["model"]["merges"]) {
    merges.push_back(m.is_array() ? m[0].get<std::string>() + " " + m[1].get<std::string>()
                                  : m.get<std::string>());
  }
  std::vector<std::int32_t> types(tokens.size(), 1);
  for (int id : {0, 1, 2}) types[static_cast<std::size_t>(id)] = 3;
  attnlab::test::GgufBuilder b;
  b.str("tokenizer.ggml.model", "gpt2").str("tokenizer.ggml.pre", "qwen2");
  b.strings("tokenizer.ggml.tokens", tokens).i32s("tokenizer.ggml.token_type", types);
  b.strings("tokenizer.ggml.merges", merges);
  const auto bytes = b.bytes();
  const auto gguf = attnlab::loadGgufTokenizer(
      attnlab::GgufFile(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), "q.gguf"));
  int checked = 0;
  for (const Json& v : golden.at("variants")) {
    if (v.at("name") != "qwen2 without normalizer") continue;
    for (const Json& c : v.at("cases")) {
      const std::string text = c.at("text").get<std::string>();
      INFO(Json(text).dump());
      CHECK(gguf->encode(text).ids == c.at("ids").get<Ids>());
      ++checked;
    }
  }
  CHECK(checked > 200);
  // NFC changes the ids where the text is not in NFC: "e" + U+0301 is "é" (C3 A9) first.
  Scratch scratch;
  Json nfc = spec;
  nfc["normalizer"] = {{"type", "NFC"}};
  nfc["pre_tokenizer"] = {{"type", "Sequence"},
                          {"pretokenizers",
                           {{{"type", "Split"},
                             {"pattern", {{"Regex", "x"}}},
                             {"behavior", "Isolated"},
                             {"invert", false}},
                            {{"type", "ByteLevel"}, {"use_regex", false}}}}};
  requireError([&] { attnlab::loadByteLevelBpe(scratch.write("x.json", nfc)); },
               ErrorCode::kInvalidInput, "pre_tokenizer Sequence is not supported");
  nfc["normalizer"] = {{"type", "NFKC"}};
  requireError([&] { attnlab::loadByteLevelBpe(scratch.write("k.json", nfc)); },
               ErrorCode::kInvalidInput, "normalizer NFKC is not supported");
}

}  // namespace attnlab_test_tokenizer_fields
