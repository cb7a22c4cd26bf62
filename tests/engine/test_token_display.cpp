// Display labels of tokens that cut UTF-8 characters (attnlab/token_display.hpp): cases worked by
// hand ("我" = E6 88 91, "爱" = E7 88 B1), then the tiny fixtures' and SmolLM2's tokenizers on
// "我爱自然语言处理", whose labels must read as the sentence.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "attnlab/pretrained.hpp"
#include "attnlab/token_display.hpp"
#include "minilm_dir.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_token_display {

using namespace attnlab;
using namespace attnlab::test;
namespace fs = std::filesystem;

namespace {

using Strings = std::vector<std::string>;
const std::string kCut = "\u22EF";  // ⋯
const std::string kSentence = "我爱自然语言处理";

/// The display labels of tokens given as bytes, each token's own label its byteLabel.
std::vector<TokenDisplay> show(const Strings& bytes, std::vector<bool> opaque = {}) {
  Strings labels;
  for (const std::string& b : bytes) labels.push_back(byteLabel(b));
  if (opaque.empty()) opaque.assign(bytes.size(), false);
  return displayTokens(bytes, labels, opaque);
}

Strings labelsOf(const std::vector<TokenDisplay>& shown) {
  Strings out;
  for (const TokenDisplay& d : shown) out.push_back(d.label);
  return out;
}

/// The labels read in order with the cut markers left out.
std::string readAloud(const std::vector<TokenDisplay>& shown) {
  std::string text;
  for (const TokenDisplay& d : shown) {
    std::string label = d.label;
    for (std::size_t at; (at = label.find(kCut)) != std::string::npos;)
      label.erase(at, kCut.size());
    text += label;
  }
  return text;
}

bool samePiece(const CharacterPiece& p, const std::string& character, int part, int parts,
               const std::string& bytes) {
  return p.character == character && p.part == part && p.parts == parts && p.bytes == bytes;
}


}  // namespace

TEST_CASE("a 3-byte character cut 2 + 1 is written on the token that completes it",
          "[token_display]") {
  const auto shown = show({"\xE6\x88", "\x91"});
  CHECK(labelsOf(shown) == Strings{kCut, kCut + "我"});
  REQUIRE(shown[0].pieces.size() == 1);
  CHECK(samePiece(shown[0].pieces[0], "我", 1, 2, "\xE6\x88"));
  REQUIRE(shown[1].pieces.size() == 1);
  CHECK(samePiece(shown[1].pieces[0], "我", 2, 2, "\x91"));
  CHECK(hexBytes(shown[0].pieces[0].bytes) == "E6 88");
}

TEST_CASE("a 3-byte character cut 1 + 2 and 1 + 1 + 1", "[token_display]") {
  const auto one_two = show({"\xE6", "\x88\x91"});
  CHECK(labelsOf(one_two) == Strings{kCut, kCut + "我"});
  CHECK(samePiece(one_two[1].pieces.at(0), "我", 2, 2, "\x88\x91"));
  const auto three = show({"\xE6", "\x88", "\x91"});
  CHECK(labelsOf(three) == Strings{kCut, kCut, kCut + "我"});
  CHECK(samePiece(three[0].pieces.at(0), "我", 1, 3, "\xE6"));
  CHECK(samePiece(three[1].pieces.at(0), "我", 2, 3, "\x88"));
  CHECK(samePiece(three[2].pieces.at(0), "我", 3, 3, "\x91"));
  CHECK(readAloud(three) == "我");
}

TEST_CASE("a token holding one and a half characters", "[token_display]") {
  // 我 whole and the first byte of 爱, then the rest of 爱.
  const auto shown = show({"\xE6\x88\x91\xE7", "\x88\xB1"});
  CHECK(labelsOf(shown) == Strings{"我" + kCut, kCut + "爱"});
  REQUIRE(shown[0].pieces.size() == 1);
  CHECK(samePiece(shown[0].pieces[0], "爱", 1, 2, "\xE7"));
  // The other way round: the end of 我 and the whole of 爱 in one token.
  const auto other = show({"\xE6\x88", "\x91\xE7\x88\xB1"});
  CHECK(labelsOf(other) == Strings{kCut, kCut + "我爱"});
  // A token that ends one cut character and starts another: a marker at both edges.
  const auto both = show({"\xE6", "\x88\x91\xE7", "\x88\xB1"});
  CHECK(labelsOf(both) == Strings{kCut, kCut + "我" + kCut, kCut + "爱"});
  REQUIRE(both[1].pieces.size() == 2);
  CHECK(samePiece(both[1].pieces[0], "我", 2, 2, "\x88\x91"));
  CHECK(samePiece(both[1].pieces[1], "爱", 1, 2, "\xE7"));
  CHECK(readAloud(both) == "我爱");
}

TEST_CASE("tokens of whole characters keep their own labels", "[token_display]") {
  const Strings labels{"Hello", "\u2423world", "##ing", "<|endoftext|>", "我"};
  const auto shown = displayTokens({"Hello", " world", "ing", "<|endoftext|>", "我"}, labels,
                                   {false, false, false, true, false});
  CHECK(labelsOf(shown) == labels);
  for (const TokenDisplay& d : shown) CHECK(d.pieces.empty());
  // 4-byte characters and emoji cut 1 + 2 + 1: the middle token is one marker.
  const auto emoji = show({"\xF0", "\x9F\x98", "\x80"});
  CHECK(labelsOf(emoji) == Strings{kCut, kCut, kCut + "😀"});
}

TEST_CASE("bytes that never make a character stay \\xNN", "[token_display]") {
  // A lone continuation byte, an invalid lead, a character left unfinished at the text's end.
  CHECK(labelsOf(show({"\x80", "\xFF"})) == Strings{"\\x80", "\\xFF"});
  CHECK(labelsOf(show({"a\xE6\x88"})) == Strings{"a\\xE6\\x88"});
  // Invalid bytes beside a cut character: the character still reads.
  CHECK(labelsOf(show({"\xFF\xE6", "\x88\x91\x80"})) == Strings{"\\xFF" + kCut, kCut + "我\\x80"});
  // A surrogate's encoding (ED A0 80) is not a character.
  CHECK(labelsOf(show({"\xED", "\xA0\x80"})) == Strings{"\\xED", "\\xA0\\x80"});
  // A special token between the bytes: no character crosses it.
  const auto special = displayTokens({"\xE6", "<s>", "\x88\x91"}, {"\\xE6", "<s>", "\\x88\\x91"},
                                     {false, true, false});
  CHECK(labelsOf(special) == Strings{"\\xE6", "<s>", "\\x88\\x91"});
  // An encoding made from ids alone (no bytes) keeps its labels.
  CHECK(labelsOf(displayTokens({}, {"12", "7"}, {false, false})) == Strings{"12", "7"});
}

TEST_CASE("a predicted token on its own: whole characters, or the start of one",
          "[token_display]") {
  const TokenDisplay comma = displayToken("\xEF\xBC\x8C", "，");
  CHECK(comma.label == "，");
  CHECK(comma.pieces.empty());
  const TokenDisplay start = displayToken("\xEF\xBC", "\\xEF\\xBC");
  CHECK(start.label == kCut);
  REQUIRE(start.pieces.size() == 1);
  CHECK(samePiece(start.pieces[0], "", 1, 0, "\xEF\xBC"));
  CHECK(displayToken(" a\xE7", "\u2423a\\xE7").label == "\u2423a" + kCut);
  // Continuation bytes with nothing before them are not a character.
  CHECK(displayToken("\x88", "\\x88").label == "\\x88");
  CHECK(displayToken("\x88", "\\x88").pieces.empty());
}

TEST_CASE("byteLabel shows white space and control characters", "[token_display]") {
  CHECK(byteLabel(" a\n\t") == "\u2423a\u21B5\u21E5");
  CHECK(byteLabel("\x01\x7F") == "\\x01\\x7F");
  CHECK(byteLabel("\xC2\x85\xC2\xA0") == "\\xC2\\x85\xC2\xA0");  // C1 control; no-break space
  CHECK(hexBytes("\x01\xAB") == "01 AB");
  CHECK(hexBytes("") == "");
}

TEST_CASE("the tiny Llama's byte-level BPE: the Chinese sentence reads", "[token_display]") {
  const auto model =
      PretrainedModel::load(fs::path(ATTNLAB_TEST_DATA_DIR) / "models/tiny-llama/tiny-llama.gguf");
  const Encoding e = model->encode(kSentence, std::nullopt);
  REQUIRE(e.bytes.size() == e.ids.size());
  const auto shown = displayTokens(e);
  CHECK(readAloud(shown) == kSentence);
  for (const TokenDisplay& d : shown) CHECK(d.label.find("\\x") == std::string::npos);
  // The bytes of the tokens are the text's.
  std::string bytes;
  for (std::size_t i = 0; i < e.bytes.size(); ++i) {
    if (!e.special[i]) bytes += e.bytes[i];
  }
  CHECK(bytes == kSentence);
}

TEST_CASE("SmolLM2's labels of 我爱自然语言处理 read as the sentence", "[token_display][smollm2]") {
  const auto path = attnlab::test::requireSmolLm2();
  if (!path) return;
  const auto model = PretrainedModel::load(*path);
  const Encoding e = model->encode(kSentence, std::nullopt);
  REQUIRE(e.ids.size() == 17);              // 8 characters cut into 17 byte-level tokens
  CHECK(e.labels.front() == "\\xE6\\x88");  // the raw label is kept
  const auto shown = displayTokens(e);
  CHECK(readAloud(shown) == kSentence);
  CHECK(shown[0].label == kCut);
  CHECK(shown[1].label == kCut + "我");
  CHECK(shown.back().label == "理");
  for (const TokenDisplay& d : shown) CHECK(d.label.find("\\x") == std::string::npos);
  REQUIRE(shown[0].pieces.size() == 1);
  CHECK(samePiece(shown[0].pieces[0], "我", 1, 2, "\xE6\x88"));
}

TEST_CASE("any bytes cut anywhere: the labels read as the bytes' own label", "[token_display]") {
  // Characters of 1–4 bytes, invalid and lone continuation bytes, cut at random places.
  const int seed = GENERATE(range(0, 200));
  std::mt19937 rng(static_cast<unsigned>(seed));
  const std::vector<std::string> pieces{"a", " ",    "\n",   "é",        "我",
                                        "😀", "\x80", "\xFF", "\xE6\x88", "\xC2\x85"};
  std::string text;
  const int n = std::uniform_int_distribution<int>(1, 12)(rng);
  for (int i = 0; i < n; ++i)
    text += pieces[std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(rng)];
  Strings tokens;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length =
        std::min(text.size() - at, std::uniform_int_distribution<std::size_t>(1, 4)(rng));
    tokens.push_back(text.substr(at, length));
    at += length;
  }
  CAPTURE(seed, hexBytes(text));
  const auto shown = show(tokens);
  REQUIRE(shown.size() == tokens.size());
  CHECK(readAloud(shown) == byteLabel(text));
  for (const TokenDisplay& d : shown) {
    CHECK(!d.label.empty());
    CHECK(d.pieces.size() <= 2);
    for (const CharacterPiece& p : d.pieces) {
      CHECK(p.parts >= 2);
      CHECK(p.part >= 1);
      CHECK(p.part <= p.parts);
      CHECK(!p.bytes.empty());
    }
  }
}

}  // namespace attnlab_test_token_display
