/// \file test_model_tokenizer.cpp
/// Pretrained models' tokenizers: WordPiece and byte-level BPE on tiny vocabularies written here
/// and checked by hand, properties over generated texts, bad input as errors, and the real
/// tokenizers (the tiny GPT-2 fixture; all-MiniLM-L6-v2 when ATTNLAB_MINILM_DIR names its folder)
/// against ids from HuggingFace tokenizers.
///
/// The HuggingFace ids were made with tokenizers 0.23.3 (Python): Tokenizer.from_file on the
/// model's tokenizer.json, no_padding(), no_truncation(), encode(text[, pair]).ids.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/model_tokenizer.hpp"
#include "minilm_dir.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_model_tokenizer {

namespace {

namespace fs = std::filesystem;
using namespace std::string_view_literals;
using attnlab::ErrorCode;
using Ids = std::vector<int>;
using Labels = std::vector<std::string>;

/// A fresh temporary folder, removed with everything in it at the end of the scope.
class TempDir {
 public:
  TempDir() {
    std::random_device random;
    path_ = fs::temp_directory_path() /
            ("attnlab_model_tokenizer_" + std::to_string(random()) + std::to_string(random()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

  /// Writes `content` to the file `name` in the folder; returns its path.
  fs::path write(const std::string& name, std::string_view content) const {
    const fs::path file = path_ / name;
    std::ofstream out(file, std::ios::binary);
    out << content;
    return file;
  }

 private:
  fs::path path_;
};

/// Checks that `f` throws attnlab::Error with `code` and a one-line message containing `part`.
template <typename F>
void requireError(F&& f, ErrorCode code, const std::string& part) {
  REQUIRE_THROWS_MATCHES(f(), attnlab::Error, attnlab::test::ErrorMatches(code, part));
}

/// Checks the invariants every encoding keeps: one entry per token in each vector, ids in range,
/// no empty label and never U+FFFD in a label, each token's bytes its tokenBytes.
void checkShape(const attnlab::Encoding& e, const attnlab::ModelTokenizer& tokenizer) {
  REQUIRE(e.labels.size() == e.ids.size());
  REQUIRE(e.bytes.size() == e.ids.size());
  REQUIRE(e.type_ids.size() == e.ids.size());
  REQUIRE(e.special.size() == e.ids.size());
  for (std::size_t i = 0; i < e.ids.size(); ++i) {
    CAPTURE(i);
    CHECK(e.ids[i] >= 0);
    CHECK(e.ids[i] < tokenizer.vocabSize());
    CHECK(!e.labels[i].empty());
    CHECK(e.labels[i].find("\xEF\xBF\xBD") == std::string::npos);
    CHECK(e.bytes[i] == tokenizer.tokenBytes(e.ids[i]));
  }
}

// ---------------------------------------------------------------------------------------------
// WordPiece fixture

/// A tiny BERT vocabulary; the id of each piece is its line number (from 0).
constexpr std::string_view kWordPieceVocab =
    "[PAD]\n"      // 0
    "[UNK]\n"      // 1
    "[CLS]\n"      // 2
    "[SEP]\n"      // 3
    "[MASK]\n"     // 4
    "un\n"         // 5
    "##aff\n"      // 6
    "##able\n"     // 7
    "##a\n"        // 8
    "aff\n"        // 9
    ",\n"          // 10
    "!\n"          // 11
    "\u00AB\n"     // 12 «
    "\u00BB\n"     // 13 »
    "$\n"          // 14
    "cafe\n"       // 15
    "caf\u00E9\n"  // 16 café
    "Cafe\n"       // 17
    "\u4E2D\n"     // 18 中
    "\u6587\n"     // 19 文
    "##\u6587\n"   // 20 ##文
    "[\n"          // 21
    "]\n"          // 22
    "sep\n"        // 23
    "abc\n"        // 24
    "##d\n"        // 25
    "a\n"          // 26
    "##bcd\n";     // 27

/// The tiny WordPiece tokenizer with `options`.
std::unique_ptr<attnlab::ModelTokenizer> tinyWordPiece(
    const attnlab::WordPieceOptions& options = {}) {
  TempDir dir;
  return attnlab::loadWordPiece(dir.write("vocab.txt", kWordPieceVocab), options);
}

Ids ids(const attnlab::ModelTokenizer& tokenizer, std::string_view text) {
  return tokenizer.encode(text).ids;
}

}  // namespace

TEST_CASE("wordpiece: greedy longest match first with ## continuations", "[model_tokenizer]") {
  const auto tok = tinyWordPiece();
  CHECK(tok->kind() == "wordpiece");
  CHECK(tok->vocabSize() == 28);
  const auto e = tok->encode("unaffable");
  checkShape(e, *tok);
  // "##aff" is the longest continuation in the vocabulary, chosen before "##a".
  CHECK(e.ids == Ids{2, 5, 6, 7, 3});
  CHECK(e.labels == Labels{"[CLS]", "un", "##aff", "##able", "[SEP]"});
  CHECK(e.type_ids == Ids{0, 0, 0, 0, 0});
  CHECK(e.special == std::vector<bool>{true, false, false, false, true});
  // Greedy, not optimal: "abc" is taken first, although "a" + "##bcd" would also cover "abcd".
  CHECK(ids(*tok, "abcd") == Ids{2, 24, 25, 3});
  CHECK(ids(*tok, "aff un") == Ids{2, 9, 5, 3});
}

TEST_CASE("wordpiece: a word with an unmatchable rest or too long is one [UNK]",
          "[model_tokenizer]") {
  const auto tok = tinyWordPiece();
  // "un" + "##aff" match, "##x" does not: the whole word becomes [UNK], not "un ##aff [UNK]".
  const auto e = tok->encode("unaffx un");
  CHECK(e.ids == Ids{2, 1, 5, 3});
  CHECK(e.labels == Labels{"[CLS]", "[UNK]", "un", "[SEP]"});
  CHECK(e.special == std::vector<bool>{true, false, false, true});
  CHECK(ids(*tok, "zzz") == Ids{2, 1, 3});

  attnlab::WordPieceOptions short_words;
  short_words.max_input_chars_per_word = 8;
  const auto strict = tinyWordPiece(short_words);
  CHECK(ids(*strict, "unaffable") == Ids{2, 1, 3});  // 9 code points > 8
  CHECK(ids(*strict, "unaffa") == Ids{2, 5, 6, 8, 3});
  // The limit counts code points, not bytes: 8 two-byte letters are still a word of 8.
  CHECK(ids(*strict, "\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9 un") == Ids{2, 1, 5, 3});
}

TEST_CASE("wordpiece: lower-casing and accent stripping follow the options", "[model_tokenizer]") {
  attnlab::WordPieceOptions options;  // do_lower_case, strip_accents unset: both apply
  CHECK(ids(*tinyWordPiece(options), "UNAFFABLE") == Ids{2, 5, 6, 7, 3});
  CHECK(ids(*tinyWordPiece(options), "CAF\u00C9") == Ids{2, 15, 3});   // CAFÉ → cafe
  CHECK(ids(*tinyWordPiece(options), "CAFE\u0301") == Ids{2, 15, 3});  // combining acute
  options.strip_accents = false;
  CHECK(ids(*tinyWordPiece(options), "CAF\u00C9") == Ids{2, 16, 3});  // café
  options.do_lower_case = false;
  options.strip_accents.reset();  // follows do_lower_case: no stripping
  CHECK(ids(*tinyWordPiece(options), "Caf\u00E9") == Ids{2, 1, 3});
  CHECK(ids(*tinyWordPiece(options), "Cafe") == Ids{2, 17, 3});
  options.strip_accents = true;
  CHECK(ids(*tinyWordPiece(options), "Caf\u00E9") == Ids{2, 17, 3});  // Cafe
}

TEST_CASE("wordpiece: CJK ideographs are words of their own", "[model_tokenizer]") {
  CHECK(ids(*tinyWordPiece(), "\u4E2D\u6587") == Ids{2, 18, 19, 3});
  attnlab::WordPieceOptions options;
  options.tokenize_chinese_chars = false;
  CHECK(ids(*tinyWordPiece(options), "\u4E2D\u6587") == Ids{2, 18, 20, 3});  // 中 ##文
}

TEST_CASE("wordpiece: punctuation splits, white space separates, controls vanish",
          "[model_tokenizer]") {
  const auto tok = tinyWordPiece();
  CHECK(ids(*tok, "un,aff!") == Ids{2, 5, 10, 9, 11, 3});
  // Unicode punctuation (« ») and every non-alphanumeric ASCII character ($ is a symbol in
  // Unicode, but punctuation for BERT).
  CHECK(ids(*tok, "\u00ABun\u00BB$aff") == Ids{2, 12, 5, 13, 14, 9, 3});
  CHECK(ids(*tok, "un\taff") == Ids{2, 5, 9, 3});
  CHECK(ids(*tok, "un\u00A0aff") == Ids{2, 5, 9, 3});  // no-break space
  CHECK(ids(*tok, "un\u3000aff") == Ids{2, 5, 9, 3});  // ideographic space
  CHECK(ids(*tok, "un\u200Baff") == Ids{2, 5, 6, 3});  // zero width space (Cf): dropped
  CHECK(ids(*tok, "un\0aff"sv) == Ids{2, 5, 6, 3});    // U+0000: dropped
  CHECK(ids(*tok, "un\uFFFDaff") == Ids{2, 5, 6, 3});  // U+FFFD: dropped
  CHECK(ids(*tok, "  \n ") == Ids{2, 3});
  CHECK(ids(*tok, "") == Ids{2, 3});
}

TEST_CASE("wordpiece: sentence pairs get [SEP] between and type ids 0 then 1",
          "[model_tokenizer]") {
  const auto tok = tinyWordPiece();
  const auto e = tok->encode("un", "aff!"sv);
  checkShape(e, *tok);
  CHECK(e.ids == Ids{2, 5, 3, 9, 11, 3});
  CHECK(e.type_ids == Ids{0, 0, 0, 1, 1, 1});
  CHECK(e.special == std::vector<bool>{true, false, true, false, false, true});
  CHECK(tok->encode("", ""sv).ids == Ids{2, 3, 3});
}

TEST_CASE("wordpiece: special-token strings in the text are the special token",
          "[model_tokenizer]") {
  const auto tok = tinyWordPiece();
  const auto e = tok->encode("un[SEP]aff");
  CHECK(e.ids == Ids{2, 5, 3, 9, 3});
  CHECK(e.labels == Labels{"[CLS]", "un", "[SEP]", "aff", "[SEP]"});
  CHECK(e.special == std::vector<bool>{true, false, true, false, true});
  CHECK(ids(*tok, "[MASK] [CLS][PAD] [UNK]") == Ids{2, 4, 2, 0, 1, 3});
  // Matched as written, before lower-casing: "[sep]" is ordinary text.
  CHECK(ids(*tok, "[sep]") == Ids{2, 21, 23, 22, 3});
  CHECK(ids(*tok, "[SEP") == Ids{2, 21, 23, 3});
  const auto pair = tok->encode("un", "[SEP]"sv);
  CHECK(pair.ids == Ids{2, 5, 3, 3, 3});
  CHECK(pair.type_ids == Ids{0, 0, 0, 1, 1});
}

TEST_CASE("wordpiece: property: every encoding is [CLS] ... [SEP] with consistent vectors",
          "[model_tokenizer]") {
  const auto tok = tinyWordPiece();
  const std::vector<std::string> fragments = {
      "un", "aff", "able", "UNAFF", "caf\u00E9", "\u4E2D", "\u6587", "[SEP]", "[sep]",  ",",
      "!",  " ",   "  ",   "\t",    "\n",        "x",      "\u00AB", "$",     "\u0301", "\u200B"};
  const int seed = GENERATE(range(0, 25));
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::string text;
  std::string pair;
  const int n = static_cast<int>(rng() % 12);
  for (int i = 0; i < n; ++i) text += fragments[rng() % fragments.size()];
  for (int i = 0; i < n / 2; ++i) pair += fragments[rng() % fragments.size()];
  CAPTURE(text, pair);
  const auto single = tok->encode(text);
  checkShape(single, *tok);
  CHECK(single.ids.front() == 2);
  CHECK(single.ids.back() == 3);
  const auto both = tok->encode(text, pair);
  checkShape(both, *tok);
  // The pair encoding starts with the single one's tokens, all of type 0.
  REQUIRE(both.ids.size() > single.ids.size());
  CHECK(Ids(both.ids.begin(), both.ids.begin() + static_cast<long>(single.ids.size())) ==
        single.ids);
  for (std::size_t i = 0; i < both.ids.size(); ++i) {
    CHECK(both.type_ids[i] == (i < single.ids.size() ? 0 : 1));
  }
  CHECK(both.ids.back() == 3);
}

TEST_CASE("wordpiece: bad vocabularies and texts are errors", "[model_tokenizer]") {
  TempDir dir;
  requireError([&] { attnlab::loadWordPiece(dir.path() / "vocab.txt", {}); }, ErrorCode::kIo,
               "vocab.txt");
  const auto no_unk = dir.write("no_unk.txt", "[PAD]\n[CLS]\n[SEP]\nun\n");
  requireError([&] { attnlab::loadWordPiece(no_unk, {}); }, ErrorCode::kInvalidInput,
               "no \"[UNK]\" token");
  const auto no_sep = dir.write("no_sep.txt", "[UNK]\n[CLS]\nun\n");
  requireError([&] { attnlab::loadWordPiece(no_sep, {}); }, ErrorCode::kInvalidInput, "[SEP]");
  const auto duplicate = dir.write("dup.txt", "[UNK]\n[CLS]\n[SEP]\nun\nun\n");
  requireError([&] { attnlab::loadWordPiece(duplicate, {}); }, ErrorCode::kInvalidInput,
               "dup.txt line 5: duplicate piece \"un\" (first on line 4)");
  // Other names for the special tokens must be in the vocabulary too.
  attnlab::WordPieceOptions renamed;
  renamed.unk_token = "<unk>";
  requireError([&] { attnlab::loadWordPiece(dir.write("v.txt", kWordPieceVocab), renamed); },
               ErrorCode::kInvalidInput, "\"<unk>\"");

  const auto tok = tinyWordPiece();
  requireError([&] { tok->encode("un\xFF"); }, ErrorCode::kInvalidInput,
               "invalid UTF-8 at byte offset 2");
  requireError([&] { tok->encode("un", "a\xC3"sv); }, ErrorCode::kInvalidInput,
               "second text: invalid UTF-8 at byte offset 1");
}

TEST_CASE("wordpiece: Windows line ends in vocab.txt are not part of the pieces",
          "[model_tokenizer]") {
  TempDir dir;
  const auto tok = attnlab::loadWordPiece(
      dir.write("vocab.txt", "[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\nun\r\n"), {});
  CHECK(tok->vocabSize() == 5);
  CHECK(tok->encode("un").ids == Ids{2, 4, 3});
}

TEST_CASE("loadModelTokenizer: a BERT folder with and without tokenizer_config.json",
          "[model_tokenizer]") {
  TempDir dir;
  dir.write("vocab.txt", kWordPieceVocab);
  // Without tokenizer_config.json: HuggingFace's defaults (lower-case, strip accents).
  CHECK(ids(*attnlab::loadModelTokenizer(dir.path(), "bert"), "Caf\u00E9") == Ids{2, 15, 3});
  dir.write("tokenizer_config.json",
            R"({"do_lower_case": false, "strip_accents": null, "tokenize_chinese_chars": false,
                "unk_token": {"content": "[UNK]", "lstrip": false}, "sep_token": "[SEP]"})");
  const auto tok = attnlab::loadModelTokenizer(dir.path(), "bert");
  CHECK(ids(*tok, "Cafe") == Ids{2, 17, 3});
  CHECK(ids(*tok, "Caf\u00E9") == Ids{2, 1, 3});
  CHECK(ids(*tok, "\u4E2D\u6587") == Ids{2, 18, 20, 3});

  dir.write("tokenizer_config.json", R"({"do_lower_case": "yes"})");
  requireError([&] { attnlab::loadModelTokenizer(dir.path(), "bert"); }, ErrorCode::kInvalidInput,
               "tokenizer_config.json: \"do_lower_case\"");
  dir.write("tokenizer_config.json", R"({"do_lower_case": tru)");
  requireError([&] { attnlab::loadModelTokenizer(dir.path(), "bert"); }, ErrorCode::kInvalidInput,
               "tokenizer_config.json: malformed JSON");
  dir.write("tokenizer_config.json", R"({"unk_token": "<unk>"})");
  requireError([&] { attnlab::loadModelTokenizer(dir.path(), "bert"); }, ErrorCode::kInvalidInput,
               "no \"<unk>\" token");
}

TEST_CASE("loadModelTokenizer: unknown types and missing files are errors", "[model_tokenizer]") {
  TempDir dir;
  requireError([&] { attnlab::loadModelTokenizer(dir.path(), "t5"); }, ErrorCode::kInvalidArgument,
               "model type \"t5\"");
  requireError([&] { attnlab::loadModelTokenizer(dir.path() / "nowhere", "bert"); }, ErrorCode::kIo,
               "nowhere");
  requireError([&] { attnlab::loadModelTokenizer(dir.path(), "bert"); }, ErrorCode::kIo,
               "vocab.txt not found");
  requireError([&] { attnlab::loadModelTokenizer(dir.path(), "gpt2"); }, ErrorCode::kIo,
               "vocab.json not found");
  dir.write("vocab.json", "{}");
  requireError([&] { attnlab::loadModelTokenizer(dir.path(), "gpt2"); }, ErrorCode::kIo,
               "merges.txt not found");
}

// ---------------------------------------------------------------------------------------------
// Byte-level BPE fixture

namespace {

/// GPT-2's byte-level alphabet, restated here as a check: the printable bytes '!'..'~',
/// '¡'..'¬', '®'..'ÿ' stand for themselves, the other 68 bytes for U+0100, U+0101 ... in order.
std::string byteToken(int byte) {
  int next = 0x100;
  int code = 0;
  for (int b = 0; b <= byte; ++b) {
    const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    code = printable ? b : next++;
  }
  std::string out;
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
  return out;
}

/// A JSON string literal for `s` (escapes only what the fixture needs).
std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

/// The fixture's merges, in rank order; each result's id is 256 + its rank. The tokens are in the
/// byte-level alphabet: "Ġ" is the space, "Ċ" the newline, "Ã ©" the bytes of "é", "ð Ł" the
/// first two bytes of an emoji.
const std::vector<std::pair<std::string, std::string>> kMerges = {
    {"\u0120", "t"},       // 256 "Ġt"
    {"\u0120", "\u0120"},  // 257 "ĠĠ"
    {"l", "l"},            // 258 "ll"
    {"h", "e"},            // 259 "he"
    {"he", "ll"},          // 260 "hell"
    {"e", "l"},            // 261 "el"
    {"'", "s"},            // 262 "'s"
    {"t", "'"},            // 263 "t'" (unused when contractions split)
    {"c", "1"},            // 264 "c1" (unused when letters and numbers split)
    {"\u010A", "\u010A"},  // 265 "ĊĊ"
    {"\u00C3", "\u00A9"},  // 266 "é"
    {"\u00F0", "\u0141"},  // 267 bytes F0 9F
    {"!", "!"},            // 268 "!!"
    {"\u0120", "!"},       // 269 "Ġ!"
    {"1", "2"},            // 270 "12"
};
constexpr int kEndOfText = 271;

/// vocab.json: the 256 bytes as ids 0..255 (id = byte value), the merge results, <|endoftext|>.
std::string fixtureVocabJson() {
  std::string json = "{";
  for (int b = 0; b < 256; ++b) json += jsonString(byteToken(b)) + ": " + std::to_string(b) + ", ";
  for (std::size_t r = 0; r < kMerges.size(); ++r) {
    json +=
        jsonString(kMerges[r].first + kMerges[r].second) + ": " + std::to_string(256 + r) + ", ";
  }
  return json + "\"<|endoftext|>\": " + std::to_string(kEndOfText) + "}";
}

std::string fixtureMergesTxt() {
  std::string txt = "#version: 0.2\n";
  for (const auto& [a, b] : kMerges) txt += a + " " + b + "\n";
  return txt;
}

/// tokenizer.json with merges as "a b" strings (`pairs` false) or [a, b] arrays (`pairs` true).
std::string fixtureTokenizerJson(bool pairs) {
  std::string merges;
  for (const auto& [a, b] : kMerges) {
    if (!merges.empty()) merges += ", ";
    if (pairs) {
      merges += "[";
      merges += jsonString(a);
      merges += ", ";
      merges += jsonString(b);
      merges += "]";
    } else {
      merges += jsonString(a + " " + b);
    }
  }
  return R"({"version": "1.0", "truncation": null, "padding": null,
    "added_tokens": [{"id": 271, "content": "<|endoftext|>", "single_word": false,
                      "lstrip": false, "rstrip": false, "normalized": true, "special": true}],
    "normalizer": null,
    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true,
                      "use_regex": true},
    "post_processor": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false,
                       "use_regex": true},
    "decoder": {"type": "ByteLevel"},
    "model": {"type": "BPE", "dropout": null, "unk_token": null,
              "continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": false,
              "byte_fallback": false, "ignore_merges": false,
              "vocab": )" +
         fixtureVocabJson() + ", \"merges\": [" + merges + "]}}";
}

/// The fixture from vocab.json + merges.txt.
std::unique_ptr<attnlab::ModelTokenizer> tinyBpe() {
  TempDir dir;
  return attnlab::loadByteLevelBpe(dir.write("vocab.json", fixtureVocabJson()),
                                   dir.write("merges.txt", fixtureMergesTxt()));
}

Labels labels(const attnlab::ModelTokenizer& tokenizer, std::string_view text) {
  return tokenizer.encode(text).labels;
}

/// The bytes token `id` of the fixture stands for (the inverse of the vocabulary above).
std::string fixtureBytes(int id) {
  if (id < 256) return std::string(1, static_cast<char>(id));
  if (id == kEndOfText) return "<|endoftext|>";
  const auto& [a, b] = kMerges[static_cast<std::size_t>(id - 256)];
  std::string out;
  for (const std::string& part : {a, b}) {
    for (int byte = 0; byte < 256; ++byte) {
      if (byteToken(byte) == part) out.push_back(static_cast<char>(byte));
    }
    for (std::size_t r = 0; r < kMerges.size(); ++r) {
      if (kMerges[r].first + kMerges[r].second == part)
        out += fixtureBytes(256 + static_cast<int>(r));
    }
  }
  return out;
}

}  // namespace

TEST_CASE("bpe: the byte-level alphabet gives every byte a token", "[model_tokenizer]") {
  const auto tok = tinyBpe();
  CHECK(tok->kind() == "bpe");
  CHECK(tok->vocabSize() == 272);
  CHECK(tok->encode("A").ids == Ids{65});
  CHECK(tok->encode("~").ids == Ids{126});
  CHECK(tok->encode("\x7F").ids == Ids{127});
  CHECK(tok->encode("\u00E9").ids == Ids{266});         // é = C3 A9, merged
  CHECK(tok->encode("\u00E8").ids == Ids{0xC3, 0xA8});  // è = C3 A8, two byte tokens
  CHECK(byteToken(0x20) == "\u0120");
  CHECK(byteToken(0x0A) == "\u010A");
  CHECK(byteToken(0xAD) == "\u0143");
}

TEST_CASE("bpe: merges apply by rank, leftmost first on ties", "[model_tokenizer]") {
  const auto tok = tinyBpe();
  // hello: "l l" (rank 2) before "h e" (3), then "he ll" (4).
  CHECK(labels(*tok, "hello") == Labels{"hell", "o"});
  // ell: "l l" (rank 2) wins over the leftmost pair "e l" (5).
  CHECK(labels(*tok, "ell") == Labels{"e", "ll"});
  CHECK(labels(*tok, "elk") == Labels{"el", "k"});
  CHECK(labels(*tok, "lll") == Labels{"ll", "l"});
  // " !!" is one pre-token: "! !" (rank 12) before "Ġ !" (13).
  CHECK(labels(*tok, "a !!") == Labels{"a", "\u2423", "!!"});
  CHECK(labels(*tok, "a !") == Labels{"a", "\u2423!"});
  CHECK(tok->encode("hello").ids == Ids{260, 'o'});
}

TEST_CASE("bpe: GPT-2's pre-tokenization pattern", "[model_tokenizer]") {
  const auto tok = tinyBpe();
  // Contractions are pre-tokens of their own ("t '" never merges), lower case only.
  CHECK(labels(*tok, "it's") == Labels{"i", "t", "'s"});
  CHECK(labels(*tok, "IT'S") == Labels{"I", "T", "'", "S"});
  // "''" is one run of other characters, so the second apostrophe never meets the "s".
  CHECK(labels(*tok, "it''s") == Labels{"i", "t", "'", "'", "s"});
  // Letters and numbers are separate runs ("c 1" never merges).
  CHECK(labels(*tok, "abc12") == Labels{"a", "b", "c", "12"});
  // \s+(?!\S): a run of white space before a word gives up its last space to the word ...
  CHECK(labels(*tok, "a  t") == Labels{"a", "\u2423", "\u2423t"});
  CHECK(labels(*tok, "a   t") == Labels{"a", "\u2423\u2423", "\u2423t"});
  CHECK(labels(*tok, "a\n\nb") == Labels{"a", "\u21B5", "\u21B5", "b"});
  // ... but keeps it at the end of the text.
  CHECK(labels(*tok, "a   ") == Labels{"a", "\u2423\u2423", "\u2423"});
  CHECK(labels(*tok, "a\n\n") == Labels{"a", "\u21B5\u21B5"});
  // A single space before a word joins it; other white space does not.
  CHECK(labels(*tok, "a t") == Labels{"a", "\u2423t"});
  CHECK(labels(*tok, "a\tt") == Labels{"a", "\u21E5", "t"});
  CHECK(labels(*tok, "a \tt") == Labels{"a", "\u2423", "\u21E5", "t"});
}

TEST_CASE("bpe: labels show bytes readably and never U+FFFD", "[model_tokenizer]") {
  const auto tok = tinyBpe();
  CHECK(labels(*tok, "caf\u00E9") == Labels{"c", "a", "f", "\u00E9"});
  CHECK(labels(*tok, "\u00E8") == Labels{"\\xC3", "\\xA8"});
  // 😀 = F0 9F 98 80: the merged first half and the two single bytes.
  CHECK(labels(*tok, "\U0001F600") == Labels{"\\xF0\\x9F", "\\x98", "\\x80"});
  CHECK(labels(*tok, "\u4E2D") == Labels{"\\xE4", "\\xB8", "\\xAD"});
  CHECK(labels(*tok, "a\tb\r") == Labels{"a", "\u21E5", "b", "\\x0D"});
  CHECK(labels(*tok, "\x7F") == Labels{"\\x7F"});
  CHECK(labels(*tok, "\u0085") == Labels{"\\xC2", "\\x85"});
}

TEST_CASE("bpe: <|endoftext|> in the text is the special token", "[model_tokenizer]") {
  const auto tok = tinyBpe();
  const auto e = tok->encode("a<|endoftext|>b");
  checkShape(e, *tok);
  CHECK(e.ids == Ids{'a', kEndOfText, 'b'});
  CHECK(e.labels == Labels{"a", "<|endoftext|>", "b"});
  CHECK(e.special == std::vector<bool>{false, true, false});
  CHECK(e.type_ids == Ids{0, 0, 0});
  CHECK(tok->encode("<|endoftext|><|endoftext|>").ids == Ids{kEndOfText, kEndOfText});
  // Not added by default, and not matched when misspelt.
  CHECK(tok->encode("a").ids == Ids{'a'});
  CHECK(tok->encode("<|endoftext|").ids.size() == 12);
}

TEST_CASE("bpe: tokenizer.json gives the same tokenizer as vocab.json + merges.txt",
          "[model_tokenizer]") {
  const auto reference = tinyBpe();
  TempDir dir;
  const auto strings = attnlab::loadByteLevelBpe(dir.write("a.json", fixtureTokenizerJson(false)));
  const auto pairs = attnlab::loadByteLevelBpe(dir.write("b.json", fixtureTokenizerJson(true)));
  for (std::string_view text : {"hello it's a  t\n\n", "abc12 !! \u00E9\U0001F600<|endoftext|>x"}) {
    CAPTURE(text);
    CHECK(strings->encode(text).ids == reference->encode(text).ids);
    CHECK(pairs->encode(text).ids == reference->encode(text).ids);
    CHECK(pairs->encode(text).labels == reference->encode(text).labels);
  }
  CHECK(pairs->vocabSize() == reference->vocabSize());
  // Through the model folder: vocab.json + merges.txt first, else tokenizer.json.
  dir.write("tokenizer.json", fixtureTokenizerJson(true));
  CHECK(attnlab::loadModelTokenizer(dir.path(), "gpt2")->encode("hello").ids == Ids{260, 'o'});
}

TEST_CASE("bpe: property: the tokens' bytes concatenate to the text", "[model_tokenizer]") {
  const auto tok = tinyBpe();
  const std::vector<std::string> fragments = {
      "hello", "ell", "it's", "'S",     " ",          "  ",     "\n",     "\t",     "\r\n",
      "12",    "c1",  "!!",   "\u00E9", "\U0001F600", "\u4E2D", "\u00A0", "\u3000", "<|endoftext|>",
      "t",     "x",   "'"};
  const int seed = GENERATE(range(0, 40));
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::string text;
  const int n = 1 + static_cast<int>(rng() % 15);
  for (int i = 0; i < n; ++i) text += fragments[rng() % fragments.size()];
  CAPTURE(text);
  const auto e = tok->encode(text);
  checkShape(e, *tok);
  std::string bytes;
  for (int id : e.ids) bytes += fixtureBytes(id);
  CHECK(bytes == text);
}

TEST_CASE("bpe: bad files and texts are errors", "[model_tokenizer]") {
  TempDir dir;
  const auto vocab = dir.write("vocab.json", fixtureVocabJson());
  const auto merges = dir.write("merges.txt", fixtureMergesTxt());
  requireError([&] { attnlab::loadByteLevelBpe(dir.path() / "none.json", merges); }, ErrorCode::kIo,
               "none.json");
  requireError([&] { attnlab::loadByteLevelBpe(vocab, dir.path() / "none.txt"); }, ErrorCode::kIo,
               "none.txt");
  requireError([&] { attnlab::loadByteLevelBpe(dir.write("bad.json", "{\"a\": 0,"), merges); },
               ErrorCode::kInvalidInput, "bad.json: malformed JSON");
  requireError(
      [&] { attnlab::loadByteLevelBpe(dir.write("ids.json", "{\"a\": \"zero\"}"), merges); },
      ErrorCode::kInvalidInput, "token \"a\" has id \"zero\"");
  requireError(
      [&] { attnlab::loadByteLevelBpe(vocab, dir.write("m1.txt", "#version: 0.2\nl l\nh e x\n")); },
      ErrorCode::kInvalidInput, "m1.txt line 3: expected two tokens separated by one space");
  requireError([&] { attnlab::loadByteLevelBpe(vocab, dir.write("m2.txt", "l l\n\nh e\n")); },
               ErrorCode::kInvalidInput, "m2.txt line 2");
  requireError([&] { attnlab::loadByteLevelBpe(vocab, dir.write("m3.txt", "o o\n")); },
               ErrorCode::kInvalidInput, "(\"oo\") is not in the vocabulary");
  requireError([&] { attnlab::loadByteLevelBpe(vocab, dir.write("m4.txt", "l zz\n")); },
               ErrorCode::kInvalidInput, "uses \"zz\", which is not in the vocabulary");

  std::string with_normalizer = fixtureTokenizerJson(false);
  with_normalizer.replace(with_normalizer.find("\"normalizer\": null"), 18,
                          "\"normalizer\": {\"type\": \"NFD\"}");
  requireError([&] { attnlab::loadByteLevelBpe(dir.write("n.json", with_normalizer)); },
               ErrorCode::kInvalidInput, "normalizer NFD is not supported");
  std::string bad_merge = fixtureTokenizerJson(true);
  bad_merge.replace(bad_merge.find("[\"l\", \"l\"]"), 10, "[\"l\"]");
  requireError([&] { attnlab::loadByteLevelBpe(dir.write("m.json", bad_merge)); },
               ErrorCode::kInvalidInput, "model.merges entry 2");
  requireError([&] { attnlab::loadByteLevelBpe(dir.write("t.json", "[1, 2]")); },
               ErrorCode::kInvalidInput, "no \"model\" object");
  // Found by fuzz_byte_level_bpe (tests/fuzz/regressions/byte_level_bpe): "ignore_merges": ""
  // escaped the engine as nlohmann's type_error. Every option is now checked for its type, and
  // any JSON exception left becomes an Error naming the file.
  const auto withReplaced = [](bool pairs, const std::string& from, const std::string& to) {
    std::string json = fixtureTokenizerJson(pairs);
    const std::size_t at = json.find(from);
    REQUIRE(at != std::string::npos);
    return json.replace(at, from.size(), to);
  };
  requireError(
      [&] {
        attnlab::loadByteLevelBpe(dir.write(
            "i.json", withReplaced(false, "\"ignore_merges\": false", "\"ignore_merges\": \"\"")));
      },
      ErrorCode::kInvalidInput, "i.json: model.ignore_merges should be true or false, not \"\"");
  requireError(
      [&] {
        attnlab::loadByteLevelBpe(
            dir.write("s.json", withReplaced(false, "\"special\": true", "\"special\": 1")));
      },
      ErrorCode::kInvalidInput, "added_tokens entry 0.special should be true or false, not 1");
  requireError(
      [&] {
        attnlab::loadByteLevelBpe(dir.write(
            "p.json",
            withReplaced(false, "\"post_processor\": {", "\"post_processor\": 5, \"x\": {")));
      },
      ErrorCode::kInvalidInput, "post_processor 5 is not supported");

  const auto tok = tinyBpe();
  requireError([&] { tok->encode("a", "b"sv); }, ErrorCode::kInvalidArgument,
               "sentence pairs need a BERT-family model");
  requireError([&] { tok->encode(""); }, ErrorCode::kInvalidInput, "empty");
  requireError([&] { tok->encode("ab\xED\xA0\x80"); }, ErrorCode::kInvalidInput,
               "invalid UTF-8 at byte offset 2");
}

// ---------------------------------------------------------------------------------------------
// Real tokenizers against HuggingFace

namespace {

struct GptCase {
  std::string_view text;
  Ids ids;
};

/// tests/data/models/tiny-gpt2's tokenizer.json encoded by HuggingFace tokenizers.
const std::vector<GptCase> kTinyGpt2Cases = {
    {"Attention lets every token look at every other token."sv,
     {33, 84, 687, 369, 273, 328, 83, 470, 400, 419, 322, 470, 617, 400, 14}},
    {"The cat sat on the mat because it was tired."sv,
     {335, 307, 536, 286, 260, 548, 649, 579, 346, 281, 388, 705, 68, 14}},
    {"I'm sure they'll say we've done what's right, don't you?"sv,
     {41,  7,   77,  535, 270, 260, 89,  7,  288, 261, 314, 538, 7, 394,
      291, 640, 333, 264, 575, 331, 312, 12, 291, 306, 576, 442, 31}},
    {"IT'S LOUD 'RE 'Ll"sv, {41, 52, 7, 51, 606, 47, 53, 36, 221, 7, 50, 37, 221, 7, 44, 76}},
    {"Numbers: 12345 678.90 and 2024-11-29."sv,
     {46, 566, 83,  26,  348, 18, 19, 20, 21, 221, 22, 23, 24, 14,
      25, 16,  275, 484, 16,  18, 20, 13, 17, 17,  13, 18, 25, 14}},
    {"\u4F60\u597D\uFF0C\u4E16\u754C\uFF01"sv,
     {600, 255, 162, 99, 122, 340, 310, 245, 164, 244, 235, 330, 224}},
    {"emoji \U0001F600 \U0001F468\u200D\U0001F469\u200D\U0001F467 \U0001F1EB\U0001F1F7"sv,
     {69,  477, 74,  73,  752, 223, 561, 102, 715, 240,
      103, 715, 240, 101, 332, 230, 105, 304, 230, 116}},
    {"tabs\011and\012newlines\015\012  and   multiple    spaces.  "sv,
     {84,  515, 83,  198, 475, 199, 78,  69,  87,  76,  274, 272, 202, 199, 221, 275,
      221, 221, 280, 523, 84,  451, 316, 221, 221, 221, 490, 327, 272, 14,  221, 221}},
    {"Caf\u00E9 na\u00EFve \u201Cquoted\u201D \u2014 wait\u2026"sv,
     {35,  65,  70,  128, 103, 284, 65,  128, 108, 394, 317,
      478, 298, 296, 290, 221, 266, 243, 615, 285, 266, 100}},
    {"<|endoftext|>Next document<|endoftext|>"sv, {0, 46, 69, 88, 84, 291, 79, 67, 371, 377, 0}},
    {"a  b   c\012\012d \u00A0e\u3000f"sv,
     {65, 221, 271, 221, 221, 269, 199, 199, 68, 221, 127, 255, 69, 315, 223, 70}},
    {"x  \012  y"sv, {88, 221, 221, 199, 221, 360}},
    {"  leading and trailing  "sv, {221, 273, 69, 350, 295, 275, 257, 454, 408, 295, 221, 221}},
    {"e\u0301\u0301 ab\u0301c"sv, {69, 137, 224, 137, 224, 259, 66, 137, 224, 67}},
    {"def f(x):\012    return x**2  # comment"sv,
     {68,  69, 70,  277, 8,  88, 9,  26,  199, 221, 221, 221, 367, 84,
      427, 78, 221, 88,  10, 10, 18, 221, 221, 3,   619, 77,  377}},
};

struct BertCase {
  std::string_view text;
  std::optional<std::string_view> pair;
  int first_b;  ///< Index of the first token of type 1; -1 for a single text.
  Ids ids;
};

/// all-MiniLM-L6-v2's tokenizer.json encoded by HuggingFace tokenizers.
const std::vector<BertCase> kMiniLmCases = {
    {"Attention lets every token look at every other token."sv,
     std::nullopt,
     -1,
     {101, 3086, 11082, 2296, 19204, 2298, 2012, 2296, 2060, 19204, 1012, 102}},
    {"The cat sat on the mat because it was tired."sv,
     std::nullopt,
     -1,
     {101, 1996, 4937, 2938, 2006, 1996, 13523, 2138, 2009, 2001, 5458, 1012, 102}},
    {"unaffable"sv, std::nullopt, -1, {101, 14477, 20961, 3468, 102}},
    {"Hello, world!"sv, std::nullopt, -1, {101, 7592, 1010, 2088, 999, 102}},
    {"don't stop \u2014 it's 3.14159 o'clock"sv,
     std::nullopt,
     -1,
     {101, 2123, 1005, 1056, 2644, 1517, 2009, 1005, 1055, 1017, 1012, 15471, 28154, 1051, 1005,
      5119, 102}},
    {"Caf\u00E9 na\u00EFve R\u00C9SUM\u00C9 fa\u00E7ade \u00C5ngstr\u00F6m"sv,
     std::nullopt,
     -1,
     {101, 7668, 15743, 13746, 8508, 17076, 15687, 102}},
    {"Stra\u00DFe, \u00D8resund, \u0130stanbul, \u039F\u0394\u03A5\u03A3\u03A3\u0395\u03A5\u03A3"sv,
     std::nullopt,
     -1,
     {101, 2358, 27807, 1010, 1100, 6072, 8630, 1010, 9960, 1010, 1169, 29722, 29735, 29733, 29733,
      29723, 29735, 29733, 102}},
    {"\u4F60\u597D\uFF0C\u4E16\u754C\uFF01\u4ECA\u5929\u5929\u6C14\u5F88\u597D\u3002"sv,
     std::nullopt,
     -1,
     {101, 100, 100, 1989, 1745, 100, 1986, 100, 1811, 1811, 100, 100, 100, 1636, 102}},
    {"\u65E5\u672C\u8A9E\u306E\u30C6\u30AD\u30B9\u30C8\u3001\u6771\u4EAC\u30BF\u30EF\u30FC"sv,
     std::nullopt,
     -1,
     {101, 1864, 1876, 1950, 1671, 30239, 30227, 30233, 30240, 1635, 1879, 1755, 1709, 30262, 30265,
      102}},
    {"\uD55C\uAD6D\uC5B4 \uBB38\uC7A5\uC785\uB2C8\uB2E4"sv,
     std::nullopt,
     -1,
     {101,   1469,  30006, 30021, 29991, 30014, 30020, 29999, 30008, 1459,  30014, 30021,
      30000, 30006, 30025, 29999, 30019, 30024, 29992, 30019, 29993, 30006, 102}},
    {"\u041F\u0440\u0438\u0432\u0435\u0442, \u043A\u0430\u043A \u0434\u0435\u043B\u0430?"sv,
     std::nullopt,
     -1,
     {101, 1194, 16856, 10325, 25529, 15290, 22919, 1010, 1189, 10260, 23925, 1184, 15290, 29436,
      10260, 1029, 102}},
    {"\u0645\u0631\u062D\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645"sv,
     std::nullopt,
     -1,
     {101, 1295, 17149, 29820, 29816, 25573, 1271, 25573, 23673, 29830, 25573, 23673, 22192, 102}},
    {"\u0939\u093F\u0928\u094D\u0926\u0940 \u092A\u093E\u0920"sv,
     std::nullopt,
     -1,
     {101, 1339, 29877, 29863, 29861, 29878, 100, 102}},
    {"emoji \U0001F600 \U0001F468\u200D\U0001F469\u200D\U0001F467 \U0001F1EB\U0001F1F7 \u2764\uFE0F"sv,
     std::nullopt,
     -1,
     {101, 7861, 29147, 2072, 100, 100, 100, 100, 102}},
    {"tabs\011and\012newlines\015\012  multiple   spaces"sv,
     std::nullopt,
     -1,
     {101, 21628, 2015, 1998, 2047, 12735, 3674, 7258, 102}},
    {"zero\u200Bwidth soft\u00ADhyphen bom\uFEFFx"sv,
     std::nullopt,
     -1,
     {101, 5717, 9148, 11927, 2232, 3730, 10536, 8458, 2368, 8945, 22984, 102}},
    {"null\000char and \uFFFD replacement \007bell"sv,
     std::nullopt,
     -1,
     {101, 19701, 7507, 2099, 1998, 6110, 4330, 102}},
    {"[CLS] literal [SEP] tokens [MASK] here [PAD] [UNK]"sv,
     std::nullopt,
     -1,
     {101, 101, 18204, 102, 19204, 2015, 103, 2182, 0, 100, 102}},
    {"[sep] lower-case is not special"sv,
     std::nullopt,
     -1,
     {101, 1031, 19802, 1033, 2896, 1011, 2553, 2003, 2025, 2569, 102}},
    {"a[SEP]b"sv, std::nullopt, -1, {101, 1037, 102, 1038, 102}},
    {"supercalifragilisticexpialidocious"sv,
     std::nullopt,
     -1,
     {101, 3565, 9289, 10128, 29181, 24411, 4588, 10288, 19312, 21273, 10085, 6313, 102}},
    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa ok"sv,
     std::nullopt,
     -1,
     {101, 100, 7929, 102}},
    {"electroencephalographically antidisestablishmentarianism"sv,
     std::nullopt,
     -1,
     {101, 16175, 10127, 21890, 21197, 20721, 3973, 3424, 10521, 4355, 7875, 13602, 3672, 12199,
      2964, 102}},
    {"https://example.com/path?q=1&r=2 user@example.com"sv,
     std::nullopt,
     -1,
     {101,  16770, 1024, 1013, 1013, 2742, 1012, 4012, 1013, 4130, 1029, 1053,
      1027, 1015,  1004, 1054, 1027, 1016, 5310, 1030, 2742, 1012, 4012, 102}},
    {"#hashtag @mention $100 50% ~tilde^caret"sv,
     std::nullopt,
     -1,
     {101, 1001, 23325, 15900, 1030, 5254, 1002, 2531, 2753, 1003, 1066, 18681, 3207, 1034, 2729,
      2102, 102}},
    {"1,000,000 3.14 2024-11-29 10:30pm"sv, std::nullopt, -1, {101,  1015, 1010, 2199, 1010,
                                                               2199, 1017, 1012, 2403, 16798,
                                                               2549, 1011, 2340, 1011, 2756,
                                                               2184, 1024, 2382, 9737, 102}},
    {"\u201Cquoted\u201D \u00ABguillemets\u00BB wait\u2026"sv,
     std::nullopt,
     -1,
     {101, 1523, 9339, 1524, 1077, 26458, 6216, 11368, 2015, 1090, 3524, 1529, 102}},
    {"\uFB01nancial \u2460 \u00BD x\u00B2 \u216B"sv,
     std::nullopt,
     -1,
     {101, 1984, 7229, 13247, 100, 1092, 1060, 10701, 100, 102}},
    {"e\u0301 vs \u00E9"sv, std::nullopt, -1, {101, 1041, 5443, 1041, 102}},
    {"   "sv, std::nullopt, -1, {101, 102}},
    {""sv, std::nullopt, -1, {101, 102}},
    {"\uFF26\uFF35\uFF2C\uFF2C\uFF37\uFF29\uFF24\uFF34\uFF28 \uFF54\uFF45\uFF58\uFF54"sv,
     std::nullopt,
     -1,
     {101, 100, 100, 102}},
    {"\u01C5emal \u01C8 \u01CA"sv, std::nullopt, -1, {101, 100, 100, 100, 102}},
    {"\u03A9mega \uFB00 \u210C \U0001D400\U0001D401\U0001D402"sv,
     std::nullopt,
     -1,
     {101, 1179, 4168, 3654, 100, 100, 100, 102}},
    {"\u0E01\u0E48\u0E2D\u0E19\u0E2B\u0E19\u0E49\u0E32\u0E19\u0E35\u0E49"sv,
     std::nullopt,
     -1,
     {101, 100, 102}},
    {"U.S.A. e.g. i.e. Mr. O'Neil's"sv, std::nullopt, -1, {101,  1057, 1012, 1055, 1012, 1037,
                                                           1012, 1041, 1012, 1043, 1012, 1045,
                                                           1012, 1041, 1012, 2720, 1012, 1051,
                                                           1005, 6606, 1005, 1055, 102}},
    {"C++ and C# aren't Java; x<y && y>z || !w"sv,
     std::nullopt,
     -1,
     {101,  1039, 1009, 1009, 1998, 1039, 1001, 4995, 1005, 1056, 9262, 1025, 1060,
      1026, 1061, 1004, 1004, 1061, 1028, 1062, 1064, 1064, 999,  1059, 102}},
    {"\U00020000 a\U0002B820b a\U0002B920b"sv,
     std::nullopt,
     -1,
     {101, 100, 100, 1037, 100, 1038, 102}},
    {"What is attention?"sv,
     "Attention is a weighted average of values."sv,
     6,
     {101, 2054, 2003, 3086, 1029, 102, 3086, 2003, 1037, 18215, 2779, 1997, 5300, 1012, 102}},
    {"The quick brown fox jumps over the lazy dog."sv,
     "Le renard brun rapide saute."sv,
     12,
     {101,  1996,  4248, 2829, 4419, 14523, 2058, 1996, 13971, 3899, 1012, 102,
      3393, 14916, 4232, 7987, 4609, 5915,  2063, 7842, 10421, 1012, 102}},
    {"[SEP]"sv, "x [CLS] y"sv, 3, {101, 102, 102, 1060, 101, 1061, 102}},
    {""sv, ""sv, 2, {101, 102, 102}},
};

fs::path testDataDir() {
#ifdef ATTNLAB_TEST_DATA_DIR
  return ATTNLAB_TEST_DATA_DIR;
#else
  return fs::path(__FILE__).parent_path().parent_path() / "data";
#endif
}

}  // namespace

TEST_CASE("bpe: the tiny GPT-2 fixture's tokenizer matches HuggingFace", "[model_tokenizer]") {
  const fs::path dir = testDataDir() / "models/tiny-gpt2";
  // Committed in the repository: required, never skipped.
  REQUIRE(fs::exists(dir / "tokenizer.json"));
  // Both routes: vocab.json + merges.txt (the folder) and tokenizer.json.
  const auto from_folder = attnlab::loadModelTokenizer(dir, "gpt2");
  const auto from_json = attnlab::loadByteLevelBpe(dir / "tokenizer.json");
  CHECK(from_folder->vocabSize() == 800);
  for (const auto& c : kTinyGpt2Cases) {
    CAPTURE(c.text);
    const auto e = from_folder->encode(c.text);
    checkShape(e, *from_folder);
    CHECK(e.ids == c.ids);
    CHECK(from_json->encode(c.text).ids == c.ids);
  }
}

TEST_CASE("wordpiece: all-MiniLM-L6-v2's tokenizer matches HuggingFace", "[model_tokenizer]") {
  const auto dir = attnlab::test::requireMiniLm();
  if (!dir) return;
  const auto tok = attnlab::loadModelTokenizer(*dir, "bert");
  CHECK(tok->vocabSize() == 30522);
  CHECK(tok->kind() == "wordpiece");
  for (const auto& c : kMiniLmCases) {
    CAPTURE(c.text, c.pair.value_or("(none)"));
    const auto e = tok->encode(c.text, c.pair);
    checkShape(e, *tok);
    CHECK(e.ids == c.ids);
    Ids type_ids(e.ids.size(), 0);
    if (c.first_b >= 0) {
      for (std::size_t i = static_cast<std::size_t>(c.first_b); i < type_ids.size(); ++i) {
        type_ids[i] = 1;
      }
    }
    CHECK(e.type_ids == type_ids);
  }
}

}  // namespace attnlab_test_model_tokenizer
