/// \file test_tokenizer.cpp
/// Tokenizer and strict UTF-8 decoding: words, punctuation, CJK, emoji sequences, offsets and
/// invalid input.

#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/tokenizer.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_tokenizer {

namespace {

using Texts = std::vector<std::string>;

/// The token texts of `input`, in order.
Texts texts(std::string_view input) {
  Texts out;
  for (const auto& token : attnlab::tokenize(input)) out.push_back(token.text);
  return out;
}

/// Checks that `input` is rejected by both entry points with kInvalidInput and a one-line message
/// naming `offset`.
void requireInvalidAt(const std::string& input, std::size_t offset) {
  const std::string expected = "invalid UTF-8 at byte offset " + std::to_string(offset) + " ";
  using attnlab::test::ErrorMatches;
  REQUIRE_THROWS_MATCHES(attnlab::tokenize(input), attnlab::Error,
                         ErrorMatches(attnlab::ErrorCode::kInvalidInput, expected));
  REQUIRE_THROWS_MATCHES(attnlab::decodeUtf8(input), attnlab::Error,
                         ErrorMatches(attnlab::ErrorCode::kInvalidInput, expected));
}

}  // namespace

TEST_CASE("tokenize: plain English splits words and punctuation", "[tokenizer]") {
  CHECK(texts("The cat sat on the mat because it was tired.") ==
        Texts{"The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired", "."});
  CHECK(texts("Hello, world!") == Texts{"Hello", ",", "world", "!"});
  CHECK(texts("don't") == Texts{"don", "'", "t"});
  CHECK(texts("pi is 3.14") == Texts{"pi", "is", "3", ".", "14"});
  CHECK(texts("snake_case and CamelCase42") == Texts{"snake_case", "and", "CamelCase42"});
  CHECK(texts("(a+b)*c") == Texts{"(", "a", "+", "b", ")", "*", "c"});
  CHECK(texts("...") == Texts{".", ".", "."});
}

TEST_CASE("tokenize: markup-like text is never interpreted", "[tokenizer]") {
  CHECK(texts("a<b<c") == Texts{"a", "<", "b", "<", "c"});
  CHECK(texts("<b>bold</b>") == Texts{"<", "b", ">", "bold", "<", "/", "b", ">"});
  CHECK(texts("&amp;") == Texts{"&", "amp", ";"});
}

TEST_CASE("tokenize: Unicode punctuation is a token of its own", "[tokenizer]") {
  CHECK(texts("don\u2019t") == Texts{"don", "\u2019", "t"});
  CHECK(texts("\u201Cquoted\u201D \u00ABguillemets\u00BB \u2014 em dash") ==
        Texts{"\u201C", "quoted", "\u201D", "\u00AB", "guillemets", "\u00BB", "\u2014", "em",
              "dash"});
  CHECK(texts("wait\u2026") == Texts{"wait", "\u2026"});
  CHECK(texts("\u00BFQu\u00E9?") == Texts{"\u00BF", "Qu\u00E9", "?"});
  CHECK(texts("\u4F60\u597D\uFF0C\u4E16\u754C\uFF01") ==
        Texts{"\u4F60", "\u597D", "\uFF0C", "\u4E16", "\u754C", "\uFF01"});
  CHECK(texts("\u3001\u3002\uFF1F") == Texts{"\u3001", "\u3002", "\uFF1F"});
  CHECK(texts("5\u20AC \u00A9 x\u00B1y") == Texts{"5", "\u20AC", "\u00A9", "x", "\u00B1", "y"});
}

TEST_CASE("tokenize: each CJK ideograph is a token", "[tokenizer]") {
  CHECK(texts("我爱自然语言处理。") == Texts{"我", "爱", "自", "然", "语", "言", "处", "理", "。"});
  CHECK(texts("我love你") == Texts{"我", "love", "你"});
  CHECK(texts("GPT-4很强") == Texts{"GPT", "-", "4", "很", "强"});
  // Extension B ideograph (4 bytes) and a compatibility ideograph.
  CHECK(texts("\U00020000\uF900") == Texts{"\U00020000", "\uF900"});
  // The ideographic space separates and is dropped.
  CHECK(texts("中\u3000文") == Texts{"中", "文"});
}

TEST_CASE("tokenize: kana and hangul are one token per character", "[tokenizer]") {
  CHECK(texts("ひらがなカタカナ") == Texts{"ひ", "ら", "が", "な", "カ", "タ", "カ", "ナ"});
  // ka + combining voiced sound mark stays one token.
  CHECK(texts("\u304B\u3099\u3044") == Texts{"\u304B\u3099", "\u3044"});
  CHECK(texts("한국어 문장") == Texts{"한", "국", "어", "문", "장"});
  // Conjoining jamo: HIEUH + A + NIEUN form one syllable, then a new leading consonant.
  CHECK(texts("\u1112\u1161\u11AB\u1100\u1173") == Texts{"\u1112\u1161\u11AB", "\u1100\u1173"});
  CHECK(texts("\uD55C\u11AB") == Texts{"\uD55C\u11AB"});  // LVT syllable + T jamo
}

TEST_CASE("tokenize: accented and non-Latin words stay whole", "[tokenizer]") {
  CHECK(texts("café naïve") == Texts{"café", "naïve"});
  // Decomposed: e + U+0301 COMBINING ACUTE ACCENT.
  CHECK(texts("cafe\u0301 nai\u0308ve") == Texts{"cafe\u0301", "nai\u0308ve"});
  CHECK(texts("Straße Øresund ŁÓDŹ") == Texts{"Straße", "Øresund", "ŁÓDŹ"});
  CHECK(texts("Καλημέρα κόσμε") == Texts{"Καλημέρα", "κόσμε"});
  CHECK(texts("Привет, мир!") == Texts{"Привет", ",", "мир", "!"});
  CHECK(texts("مرحبا بالعالم") == Texts{"مرحبا", "بالعالم"});
  CHECK(texts("שָׁלוֹם עולם") == Texts{"שָׁלוֹם", "עולם"});
  CHECK(texts("नमस्ते दुनिया।") == Texts{"नमस्ते", "दुनिया", "।"});
  CHECK(texts("สวัสดีครับ") == Texts{"สวัสดีครับ"});
  CHECK(texts("x² H₂O") == Texts{"x²", "H₂O"});
  CHECK(texts("ＡＢＣ１２３") == Texts{"ＡＢＣ１２３"});
}

TEST_CASE("tokenize: emoji sequences stay whole", "[tokenizer][emoji]") {
  SECTION("ZWJ sequences") {
    CHECK(texts("👨‍👩‍👧‍👦") == Texts{"👨‍👩‍👧‍👦"});
    CHECK(texts("👩‍💻 codes") == Texts{"👩‍💻", "codes"});
    CHECK(texts("👩🏽‍💻") == Texts{"👩🏽‍💻"});
    CHECK(texts("🏳️‍🌈") == Texts{"🏳️‍🌈"});
    CHECK(texts("👩‍❤️‍👨") == Texts{"👩‍❤️‍👨"});
  }
  SECTION("skin-tone modifiers") {
    CHECK(texts("👍🏽") == Texts{"👍🏽"});
    CHECK(texts("👋🏻👋🏿") == Texts{"👋🏻", "👋🏿"});
    CHECK(texts("🏽") == Texts{"🏽"});  // a lone modifier is still a token
  }
  SECTION("regional-indicator flags") {
    CHECK(texts("🇨🇳") == Texts{"🇨🇳"});
    CHECK(texts("🇨🇳🇺🇸") == Texts{"🇨🇳", "🇺🇸"});
    CHECK(texts("🇨🇳🇺") == Texts{"🇨🇳", "🇺"});
    CHECK(texts("go🇫🇷!") == Texts{"go", "🇫🇷", "!"});
  }
  SECTION("keycaps") {
    CHECK(texts("1️⃣") == Texts{"1️⃣"});
    CHECK(texts("#️⃣*️⃣") == Texts{"#️⃣", "*️⃣"});
    CHECK(texts("a1️⃣2") == Texts{"a", "1️⃣", "2"});
    CHECK(texts("1\u20E3") == Texts{"1\u20E3"});  // unqualified keycap
  }
  SECTION("variation selectors") {
    CHECK(texts("❤️") == Texts{"❤️"});
    CHECK(texts("I❤️NY") == Texts{"I", "❤️", "NY"});
    CHECK(texts("\u2764\uFE0E\u2764") == Texts{"\u2764\uFE0E", "\u2764"});
  }
  SECTION("tag sequences") {
    const std::string england = "🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F";
    CHECK(texts(england + "🏴") == Texts{england, "🏴"});
  }
  SECTION("emoji next to words") {
    CHECK(texts("hi👋") == Texts{"hi", "👋"});
    CHECK(texts("🔥🔥") == Texts{"🔥", "🔥"});
    CHECK(texts("ok👍🏽thanks") == Texts{"ok", "👍🏽", "thanks"});
    CHECK(texts("我😀你") == Texts{"我", "😀", "你"});
  }
}

TEST_CASE("tokenize: white space and invisible characters", "[tokenizer]") {
  CHECK(attnlab::tokenize("").empty());
  CHECK(attnlab::tokenize(" ").empty());
  CHECK(attnlab::tokenize(" \t\r\n\v\f\u00A0\u3000\u2003\u2028\u0085").empty());
  CHECK(texts("a\u00A0b\u2009c\u3000d") == Texts{"a", "b", "c", "d"});
  // A leading U+FEFF is a character of the text like any other (issue 22): a token of its own.
  CHECK(texts("\uFEFFstart") == Texts{"\uFEFF", "start"});
  CHECK(texts("\uFEFF") == Texts{"\uFEFF"});
  CHECK(texts("a \uFEFF\uFEFFb") == Texts{"a", "\uFEFF\uFEFF", "b"});
  CHECK(texts("a\uFEFFb") == Texts{"a\uFEFFb"});
  CHECK(texts("one\u200Btwo") == Texts{"one", "two"});          // zero width space separates
  CHECK(texts("co\u00ADoperate") == Texts{"co\u00ADoperate"});  // soft hyphen stays inside
  // Controls separate and are dropped.
  CHECK(texts("a\x01\x62\x1B") == Texts{"a", "b"});
  // Extenders with nothing to extend are kept together as one token.
  CHECK(texts("\u200D\uFE0F") == Texts{"\u200D\uFE0F"});
}

TEST_CASE("tokenize: byte and code-point offsets", "[tokenizer]") {
  // H i _ 我 😀 é !  (我: 3 bytes, 😀: 4 bytes, é: 2 bytes)
  const std::string input = "Hi \u6211\U0001F600\u00E9!";
  const auto tokens = attnlab::tokenize(input);
  REQUIRE(tokens.size() == 5);

  struct Expected {
    const char* text;
    std::size_t byte_begin, byte_end, char_begin, char_end;
  };
  const Expected expected[] = {
      {"Hi", 0, 2, 0, 2},       {"\u6211", 3, 6, 3, 4}, {"\U0001F600", 6, 10, 4, 5},
      {"\u00E9", 10, 12, 5, 6}, {"!", 12, 13, 6, 7},
  };
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    CAPTURE(i);
    CHECK(tokens[i].text == expected[i].text);
    CHECK(tokens[i].byte_begin == expected[i].byte_begin);
    CHECK(tokens[i].byte_end == expected[i].byte_end);
    CHECK(tokens[i].char_begin == expected[i].char_begin);
    CHECK(tokens[i].char_end == expected[i].char_end);
  }

  SECTION("offsets are consistent for a messy mix") {
    const std::string mixed =
        "  The 👨‍👩‍👧‍👦 said “cafe\u0301” — 我love你 "
        "🇨🇳🇺🇸 1️⃣ a<b ❤️ x\t";
    const auto all = attnlab::tokenize(mixed);
    REQUIRE(all.size() == 18);
    std::size_t previous_byte_end = 0;
    std::size_t previous_char_end = 0;
    for (const auto& token : all) {
      CAPTURE(token.text);
      CHECK(token.byte_begin >= previous_byte_end);
      CHECK(token.char_begin >= previous_char_end);
      CHECK(token.byte_end > token.byte_begin);
      CHECK(mixed.substr(token.byte_begin, token.byte_end - token.byte_begin) == token.text);
      CHECK(attnlab::decodeUtf8(mixed.substr(0, token.byte_begin)).size() == token.char_begin);
      CHECK(attnlab::decodeUtf8(token.text).size() == token.char_end - token.char_begin);
      previous_byte_end = token.byte_end;
      previous_char_end = token.char_end;
    }
  }
}

TEST_CASE("decodeUtf8: valid input", "[tokenizer][utf8]") {
  CHECK(attnlab::decodeUtf8("").empty());
  CHECK(attnlab::decodeUtf8("a\u00E9\u6211\U0001F600") ==
        std::u32string{U'a', 0xE9, 0x6211, 0x1F600});
  // Boundaries of each sequence length and around the surrogate gap.
  CHECK(attnlab::decodeUtf8("\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xED\x9F\xBF\xEE\x80\x80\xEF\xBF"
                            "\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF") ==
        std::u32string{0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF});
  CHECK(attnlab::decodeUtf8(std::string("a\0b", 3)) == std::u32string{U'a', 0, U'b'});
}

TEST_CASE("decodeUtf8 and tokenize reject invalid UTF-8 with its byte offset",
          "[tokenizer][utf8]") {
  SECTION("stray continuation bytes") {
    requireInvalidAt("\x80", 0);
    requireInvalidAt("abc\x80", 3);
    requireInvalidAt("caf\xC3\xA9\xA9", 5);
  }
  SECTION("overlong forms and never-used lead bytes") {
    requireInvalidAt("\xC0\xAF", 0);
    requireInvalidAt("ab\xC1\xBF", 2);
    requireInvalidAt("\xE0\x80\xAF", 0);
    requireInvalidAt("x\xE0\x9F\xBF", 1);
    requireInvalidAt("x\xF0\x80\x80\xAF", 1);
    requireInvalidAt("\xF0\x8F\xBF\xBF", 0);
  }
  SECTION("surrogates") {
    requireInvalidAt("hello\xED\xA0\x80", 5);
    requireInvalidAt("\xED\xBF\xBF", 0);
  }
  SECTION("above U+10FFFF and bytes F5..FF") {
    requireInvalidAt("\xF4\x90\x80\x80", 0);
    requireInvalidAt("\xF5\x80\x80\x80", 0);
    requireInvalidAt("ok \xFE", 3);
    requireInvalidAt("\xFF", 0);
  }
  SECTION("truncated sequences") {
    requireInvalidAt("abcdefg\xE6\x88", 7);
    requireInvalidAt("\xF0\x9F\x98", 0);
    requireInvalidAt("\xC3", 0);
    requireInvalidAt("\xC3\x41", 0);  // C3 then "A"
    requireInvalidAt("\u6211\xE6\x88\x41", 3);
    requireInvalidAt("\xF0\x9F\x20", 0);
  }
  SECTION("the first bad sequence is reported") { requireInvalidAt("ok\xC0\x80\xFF", 2); }
  SECTION("matcher form") {
    REQUIRE_THROWS_AS(attnlab::tokenize("tired\xFF"), attnlab::Error);
    REQUIRE_THROWS_WITH(attnlab::tokenize("tired\xFF"),
                        Catch::Contains("invalid UTF-8 at byte offset 5"));
  }
}

}  // namespace attnlab_test_tokenizer
