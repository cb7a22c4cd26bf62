/// \file test_text_bytes.cpp
/// The text's bytes reach the tokenizer unchanged (issue 22, report 2): every path from the
/// command line (--text, --source, --pair), the stored settings, a reparsed command line (sweep,
/// --diff, lessons) and the CLI's model and synthetic runs keeps a leading U+FEFF, noncharacters,
/// U+0000, CR line ends, lone combining marks and NFC / NFD forms as given; invalid UTF-8 is still
/// refused. The ids are HuggingFace tokenizers' (tests/data/tokenizers/added-token-flags.json,
/// tests/reference/make_tokenizer_flag_goldens.py).

#include <QSettings>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "options/options.hpp"
#include "options/utf8_text.hpp"
#include "options/variants.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_text_bytes {

namespace {

using namespace attnlab;
using attnlab::test::CliResult;
using attnlab::test::runCli;
using Ids = std::vector<int>;

const std::string kData = ATTNLAB_TEST_DATA_DIR;
const std::string kBom = "\xEF\xBB\xBF";

/// Texts whose bytes a Qt conversion could alter.
const std::vector<std::string> kTexts = {
    kBom + "start",                          // QString::fromUtf8 drops one leading U+FEFF
    kBom,                                    // a lone BOM: a character, not an empty text
    kBom + kBom + "x",                       // two: the second must survive too
    "a" + kBom + "b",                        // inside the text
    "\xEF\xBF\xBE\xEF\xBF\xBF\xEF\xB7\x90",  // noncharacters U+FFFE, U+FFFF, U+FDD0
    std::string("a\0b", 3),                  // U+0000 (not from argv, which cannot hold it)
    "\xCC\x81",                              // a lone combining acute
    "a\r\nb\rc\n",                           // CR LF, CR, LF
    "caf\xC3\xA9 cafe\xCC\x81",              // NFC and NFD: never normalised
    "\xC3\x85 A\xCC\x8A",                    // Å precomposed and decomposed
    "\xE2\x80\xA8\xE2\x80\xA9",              // U+2028, U+2029
    "\xC2\xA0nbsp",                          // U+00A0
    "\xF4\x8F\xBF\xBF",                      // U+10FFFF
};

std::string utf8(const QString& s) { return s.toUtf8().toStdString(); }

/// tokenizers' ids for `text` in the golden's variant `name`.
Ids goldenIds(const std::string& name, const std::string& text) {
  std::ifstream in(kData + "/tokenizers/added-token-flags.json");
  const auto golden = nlohmann::json::parse(in);
  for (const auto& v : golden.at("variants")) {
    if (v.at("name") != name) continue;
    for (const auto& c : v.at("cases"))
      if (c.at("text") == text) return c.at("ids").get<Ids>();
  }
  FAIL("no golden for " << nlohmann::json(text).dump() << " in " << name);
  return {};
}

}  // namespace

TEST_CASE("fromUtf8Exact keeps every character, a leading U+FEFF included", "[options][text]") {
  for (const std::string& text : kTexts) {
    INFO(nlohmann::json(text).dump());
    CHECK(utf8(options::fromUtf8Exact(text)) == text);
  }
  // What the fix is for: Qt's own conversion drops the first U+FEFF.
  CHECK(utf8(QString::fromStdString(kBom + "start")) == "start");
  CHECK(options::fromUtf8Exact(kBom).size() == 1);
}

TEST_CASE("parse keeps the bytes of --text, --source and --pair, and through toArguments",
          "[options][text]") {
  for (const std::string& text : kTexts) {
    INFO(nlohmann::json(text).dump());
    const options::Options o =
        options::parse({"compute", "--text", text, "--source", text + "!"}, 0);
    CHECK(utf8(o.lab.text) == text);
    CHECK(utf8(o.lab.source) == text + "!");
    const options::Options p = options::parse({"compute", "--text=" + text}, 0);
    CHECK(utf8(p.lab.text) == text);
    // A command line written back and read again (sweep frames, --diff, lessons, the window's
    // "copy as command line") gives the same bytes.
    std::vector<std::string> again;
    for (const QString& a : options::toArguments(o)) again.push_back(utf8(a));
    const options::Options q = options::parse(again, 0);
    CHECK(utf8(q.lab.text) == text);
    CHECK(utf8(q.lab.source) == text + "!");
  }
  const options::Options pair =
      options::parse({"compute", "--model", kData + "/models/tiny-gpt2", "--pair", kBom + "p"}, 0);
  REQUIRE(pair.lab.pair);
  CHECK(utf8(*pair.lab.pair) == kBom + "p");
}

TEST_CASE("invalid UTF-8 is still refused, surrogates included", "[options][text]") {
  for (const std::string& bad : {std::string("ab\xED\xA0\x80"), std::string("\xC0\xAF"),
                                 std::string("\xEF\xBB"), std::string("\xFF")}) {
    INFO(nlohmann::json::binary({bad.begin(), bad.end()}).dump());
    const CliResult r = runCli({"compute", "--text", bad});
    CHECK(r.code == 2);
    CHECK(r.err.find("the text: invalid UTF-8 at byte offset") != std::string::npos);
  }
}

TEST_CASE("stored settings keep the text's bytes", "[options][text]") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  for (const std::string& text : kTexts) {
    INFO(nlohmann::json(text).dump());
    options::LabSettings lab;
    lab.text = options::fromUtf8Exact(text);
    {
      QSettings store(dir.filePath("store.ini"), QSettings::IniFormat);
      options::saveSettings(store, lab);
    }
    QSettings store(dir.filePath("store.ini"), QSettings::IniFormat);
    CHECK(utf8(options::loadSettings(store).text) == text);
  }
}

TEST_CASE("compute --model: a leading U+FEFF gives tokenizers' ids; a lone one is a token",
          "[cli][model][text]") {
  const std::string llama = kData + "/models/tiny-llama";
  const std::string gpt2 = kData + "/models/tiny-gpt2";
  for (const std::string& text :
       {kBom + "start", kBom, kBom + kBom + "x", "a" + kBom + "b",
        std::string("\xEF\xBF\xBE\xEF\xBF\xBF\xEF\xB7\x90"), std::string("\xCC\x81"),
        std::string("a\r\nb\rc\n"), std::string("caf\xC3\xA9 cafe\xCC\x81")}) {
    INFO(nlohmann::json(text).dump());
    for (const auto& [folder, variant] :
         {std::pair{llama, std::string("plain")}, std::pair{gpt2, std::string("gpt2 bytes")}}) {
      const CliResult r = runCli(
          {"compute", "--model", folder, "--layer", "0", "--text", text, "--backend", "cpu"});
      INFO(folder << ": " << r.err);
      REQUIRE(r.code == 0);
      CHECK(nlohmann::json::parse(r.out)["input_ids"].get<Ids>() == goldenIds(variant, text));
    }
  }
  // The GGUF of the same weights reads its vocabulary from the file's metadata.
  const CliResult g = runCli({"compute", "--model", llama + "/tiny-llama.gguf", "--layer", "0",
                              "--text", kBom + "start", "--backend", "cpu"});
  REQUIRE(g.code == 0);
  CHECK(nlohmann::json::parse(g.out)["input_ids"].get<Ids>() == goldenIds("plain", kBom + "start"));
}

TEST_CASE("compute (synthetic): a leading U+FEFF is a token of the sentence", "[cli][text]") {
  const CliResult r = runCli(
      {"compute", "--text", kBom + "start", "--heads", "1", "--d-model", "8", "--backend", "cpu"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["query_tokens"] == nlohmann::json::array({kBom, "start"}));
  const CliResult lone =
      runCli({"compute", "--text", kBom, "--heads", "1", "--d-model", "8", "--backend", "cpu"});
  INFO(lone.err);
  REQUIRE(lone.code == 0);
  CHECK(nlohmann::json::parse(lone.out)["query_tokens"] == nlohmann::json::array({kBom}));
}

TEST_CASE("render --diff and sweep frames keep a leading U+FEFF in the text", "[options][text]") {
  const options::Options o = options::parse(
      {"render", "--text", kBom + "start", "--diff", "--no-scale", "--out", "x.png"}, 0);
  CHECK(utf8(options::secondSetting(o).lab.text) == kBom + "start");
  const options::Options sweep = options::parse(
      {"sweep", "--text", kBom + "start", "--param", "d-k", "--values", "4,8", "--out", "x.gif"},
      0);
  const std::vector<options::SweepFrame> frames = options::sweepFrames(sweep, 0);
  REQUIRE(frames.size() == 2);
  for (const options::SweepFrame& f : frames) CHECK(utf8(f.options.lab.text) == kBom + "start");
}

}  // namespace attnlab_test_text_bytes
