/// \file test_token_labels.cpp
/// Characters through byte-level tokenizers (issue 26, item 5): the tiny Llama's byte-level BPE
/// cuts every character of "我爱自然语言处理" into byte tokens; the run, the pictures' labels,
/// the hover text, the CSV and JSON exports and the rollout's files all read as the sentence
/// while keeping the raw tokens.

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_test_support.hpp"
#include "run/run.hpp"
#include "test_support.hpp"
#include "views/token_text.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_token_labels {

namespace {

using attnlab::test::runCli;
using attnlab::test::runJson;

const std::string kTinyLlama =
    std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-llama/tiny-llama.gguf";
const std::string kSentence = "我爱自然语言处理";
const QString kCut = QStringLiteral("⋯");

std::string s(const QString& text) { return text.toStdString(); }

/// Labels read in order, the cut markers left out.
QString readAloud(const QStringList& labels) {
  QString text = labels.join(QString());
  return text.remove(kCut);
}

QStringList fromJson(const nlohmann::json& array) {
  QStringList out;
  for (const auto& v : array) out << QString::fromStdString(v.get<std::string>());
  return out;
}

/// The lines of a CSV file (no field here holds a line break).
QStringList csvLines(const QString& path) {
  QFile file(path);
  REQUIRE(file.open(QIODevice::ReadOnly));
  return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

}  // namespace

TEST_CASE("a model's run shows display labels and keeps the raw tokens", "[token_labels]") {
  attnlab::run::Session session;
  attnlab::options::LabSettings settings;
  settings.model_dir = QString::fromStdString(kTinyLlama);
  settings.text = QString::fromStdString(kSentence);
  settings.layer = 0;
  const auto r = session.run(settings);
  REQUIRE(r->token_display.size() == static_cast<std::size_t>(r->query_tokens.size()));
  CHECK(readAloud(r->query_tokens) == QString::fromStdString(kSentence));
  CHECK(r->key_tokens == r->query_tokens);
  for (const QString& label : r->query_tokens) CHECK(!label.contains(QStringLiteral("\\x")));
  // The raw labels stay where the files read them: "\xE6" for the first byte of 我.
  CHECK(r->run.query_tokens.front().text == "\\xE6");
  CHECK(r->query_tokens.front() == kCut);
  CHECK(r->displayLabels().front() == s(kCut));
  // A hover names the character, the part and the bytes.
  const attnlab::TokenDisplay& first = r->token_display.front();
  CHECK(s(attnlab::views::hoverTokenText(r->query_tokens.front(), &first)) ==
        "'⋯' 我 (part 1 of 3: E6)");
  const int last = static_cast<int>(r->query_tokens.size()) - 1;
  CHECK(s(attnlab::views::hoverTokenText(r->query_tokens[last], &r->token_display.back())) ==
        "'⋯理' 理 (part 3 of 3: 86)");
  // The synthetic lab has no displays: its tokens are whole text pieces.
  attnlab::options::LabSettings lab;
  lab.text = QString::fromStdString(kSentence);
  const auto synthetic = session.run(lab);
  CHECK(synthetic->token_display.empty());
  CHECK(synthetic->query_tokens.size() == 8);
  CHECK(s(attnlab::views::hoverTokenText(synthetic->query_tokens.front(), nullptr)) == "'我'");
}

TEST_CASE("compute JSON: display labels beside the raw tokens, next tokens too",
          "[token_labels][cli]") {
  const auto j = runJson({"compute", "--model", kTinyLlama, "--text", kSentence, "--layer", "0"});
  REQUIRE(j["labels"].size() == j["tokens"].size());
  CHECK(readAloud(fromJson(j["labels"])) == QString::fromStdString(kSentence));
  CHECK(j["tokens"][0] == "\\xE6");  // the raw label is kept
  CHECK(j["labels"][0] == s(kCut));
  CHECK(j["labels"][2] == s(kCut + QStringLiteral("我")));
  REQUIRE(!j["next_tokens"].empty());
  // Each prediction has its display label beside its raw one (the tiny model's random weights
  // predict bytes of any kind; the cases are worked by hand in test_token_display.cpp).
  for (const auto& t : j["next_tokens"]) {
    INFO(t.dump());
    REQUIRE(t.contains("label"));
    CHECK(!t["label"].get<std::string>().empty());
    CHECK(t.contains("token"));
  }
}

TEST_CASE("CSV of a model: query_label and key_label beside the raw tokens",
          "[token_labels][cli]") {
  QTemporaryDir dir;
  const QString csv = dir.filePath(QStringLiteral("a.csv"));
  const auto r = runCli({"render", "--model", kTinyLlama, "--text", kSentence, "--layer", "0",
                         "--head", "0", "--out", s(csv)});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const QStringList lines = csvLines(csv);
  CHECK(
      lines.front() ==
      QStringLiteral(
          "layer,head,query,query_token,key,key_token,score,weight,masked,query_label,key_label"));
  // Row 2 (the byte that completes 我) against key 0 (its first byte).
  bool found = false;
  for (const QString& line : lines) {
    if (!line.startsWith(QStringLiteral("0,0,2,"))) continue;
    const QStringList f = line.split(QLatin1Char(','));
    if (f[4] != QStringLiteral("0")) continue;
    found = true;
    CHECK(f[3] == QStringLiteral("\\x91"));
    CHECK(f[5] == QStringLiteral("\\xE6"));
    CHECK(f[9] == QStringLiteral("⋯我"));
    CHECK(f[10] == kCut);
  }
  CHECK(found);
}

TEST_CASE("the rollout's CSV and JSON keep the raw tokens and add the labels",
          "[token_labels][cli]") {
  QTemporaryDir dir;
  const QString csv = dir.filePath(QStringLiteral("r.csv"));
  const auto r =
      runCli({"render", "--model", kTinyLlama, "--text", kSentence, "--rollout", "--out", s(csv)});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const QStringList lines = csvLines(csv);
  CHECK(lines.front() ==
        QStringLiteral("query,query_token,key,key_token,rollout,query_label,key_label"));
  CHECK(lines[1].startsWith(QStringLiteral("0,\"\\xE6\",0,\"\\xE6\",")));
  CHECK(lines[1].endsWith(QStringLiteral(",\"⋯\",\"⋯\"")));
  const auto j = runJson({"compute", "--model", kTinyLlama, "--text", kSentence, "--rollout"});
  REQUIRE(j["rollout"]["labels"].size() == j["rollout"]["tokens"].size());
  CHECK(j["rollout"]["tokens"][0] == "\\xE6");
  CHECK(readAloud(fromJson(j["rollout"]["labels"])) == QString::fromStdString(kSentence));
}

TEST_CASE("the pictures' axis labels read as the sentence", "[token_labels][cli]") {
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("a.png"));
  const QString layout = dir.filePath(QStringLiteral("a.json"));
  const auto r = runCli({"render", "--model", kTinyLlama, "--text", kSentence, "--layer", "1",
                         "--head", "0", "--out", s(png), "--layout-json", s(layout)});
  INFO(r.err);
  REQUIRE(r.code == 0);
  QFile file(layout);
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
  std::map<int, QString> query_at, key_at;  // by token index
  for (const QJsonValue& v : json["texts"].toArray()) {
    const QJsonObject t = v.toObject();
    if (t["role"].toString() == QLatin1String("query_label"))
      query_at[t["index"].toInt()] = t["text"].toString();
    if (t["role"].toString() == QLatin1String("key_label"))
      key_at[t["index"].toInt()] = t["text"].toString();
  }
  QStringList queries, keys;
  for (const auto& [i, text] : query_at) queries << text;
  for (const auto& [i, text] : key_at) keys << text;
  // Every token labelled here (22 tokens in a 1000-px picture), in order.
  REQUIRE(queries.size() == 22);
  CHECK(readAloud(queries) == QString::fromStdString(kSentence));
  CHECK(readAloud(keys) == QString::fromStdString(kSentence));
  for (const QString& label : queries + keys) CHECK(!label.contains(QStringLiteral("\\x")));
}

namespace {

/// The blank band under everything drawn in a render's layout JSON (the grid is centred, so the
/// band over it is as tall), px.
double blankBand(const QString& layout_path) {
  QFile file(layout_path);
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
  double bottom = 0;
  for (const char* key : {"maps", "texts"}) {
    for (const QJsonValue& v : json[QLatin1String(key)].toArray())
      bottom = std::max(bottom, v.toObject()["y"].toDouble() + v.toObject()["height"].toDouble());
  }
  return json["canvas"].toObject()["height"].toDouble() - bottom;
}

}  // namespace

TEST_CASE("the model view's PNG has no blank band above and below its grid",
          "[token_labels][cli]") {
  const char* gguf = std::getenv("ATTNLAB_SMOLLM2_GGUF");
  if (gguf == nullptr || *gguf == '\0') {
    attnlab::test::skipTest(
        "SmolLM2-135M-Instruct not found (scripts/test sets ATTNLAB_SMOLLM2_GGUF)");
    return;
  }
  // 30 layers × 9 heads of 11 tokens: the width sets the thumbnails; the height follows them
  // (it was 2970 px, with 174 px blank above the grid and below the notes).
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("all.png"));
  const QString layout = dir.filePath(QStringLiteral("all.json"));
  const auto r = runCli({"render", "--model", gguf, "--out", s(png), "--layout-json", s(layout)});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(blankBand(layout) < 20);
}

}  // namespace attnlab_test_token_labels
