// Issue 13 on the command line: `decode` (KV-cache steps, the cache bugs, its picture, its
// refusals) and the head-similarity matrix of `compute` and `render --plot head-similarity`.

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli.hpp"
#include "cli_test_support.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_cli_decode {

namespace {

using attnlab::test::CliResult;
using attnlab::test::requireRefused;
using attnlab::test::runCli;
using attnlab::test::runJson;

using attnlab::test::kCat;  // 11 tokens

}  // namespace

TEST_CASE("CLI decode: one step per token, the cache's bytes, equal to the full causal pass",
          "[cli][decode]") {
  const auto j = runJson({"decode", "--text", kCat, "--heads", "8", "--kv-heads", "2"});
  REQUIRE(j["steps"].size() == 11);
  // d_k = d_v = 64 / 8 = 8; step t caches t + 1 tokens: G·(t + 1)·(8 + 8)·4 = 128·(t + 1) bytes,
  // multi-head 512·(t + 1).
  for (int t = 0; t < 11; ++t) {
    CHECK(j["steps"][t]["step"] == t);
    CHECK(j["steps"][t]["cache_length"] == t + 1);
    CHECK(j["steps"][t]["cache_bytes"] == 128 * (t + 1));
    CHECK(j["steps"][t]["mha_cache_bytes"] == 512 * (t + 1));
    CHECK(j["steps"][t]["ms"].get<double>() >= 0);
  }
  CHECK(j["steps"][1]["token"] == "cat");
  CHECK(j["cache_bug"] == "none");
  CHECK(j["first_diff_step"].is_null());
  CHECK(j["max_abs_diff"].get<double>() <= 1e-6);
  // The JSON ends with "max_abs_diff".
  const CliResult r = runCli({"decode", "--text", kCat});
  CHECK(r.out.rfind("\"max_abs_diff\":") > r.out.rfind("\"steps\":"));
  // A sliding window of 3 keeps the cache at 3 entries.
  const auto w = runJson({"decode", "--text", kCat, "--window", "3"});
  CHECK(w["steps"][10]["cache_length"] == 3);
  CHECK(w["max_abs_diff"].get<double>() <= 1e-6);
}

TEST_CASE("CLI decode --cache-bug: rows differ from the bug's step on, not before", "[cli][decode]") {
  const std::string bug = GENERATE("skip", "duplicate");
  const auto j = runJson({"decode", "--text", kCat, "--cache-bug", bug, "--bug-step", "4"});
  CHECK(j["cache_bug"] == bug);
  CHECK(j["bug_step"] == 4);
  CHECK(j["first_diff_step"] == 4);
  for (int t = 0; t < 4; ++t) CHECK(j["steps"][t]["max_abs_diff"].get<double>() <= 1e-6);
  CHECK(j["steps"][4]["max_abs_diff"].get<double>() > 1e-3);
  CHECK(j["steps"][4]["cache_length"] == (bug == "skip" ? 4 : 6));
  // Without --bug-step the bug strikes at the middle token, 11 / 2 = 5.
  CHECK(runJson({"decode", "--text", kCat, "--cache-bug", bug})["first_diff_step"] == 5);
}

TEST_CASE("CLI decode draws the decoded rows", "[cli][decode]") {
  QTemporaryDir dir;
  const std::string png = dir.filePath("decode.png").toStdString();
  const CliResult r = runCli({"decode", "--text", kCat, "--cache-bug", "duplicate", "--head", "0", "--out", png});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const QImage image(QString::fromStdString(png));
  CHECK(image.width() >= 500);
}

TEST_CASE("CLI decode: the picture's max |Δ| is of the weights it shows, inside its colour bar",
          "[cli][decode]") {
  // The case: the overall difference (0.326, the outputs') is not what the Δ map shows.
  const std::string bug = GENERATE("skip", "duplicate");
  QTemporaryDir dir;
  const std::string svg = dir.filePath("decode.svg").toStdString();
  const CliResult r = runCli({"decode", "--cache-bug", bug, "--bug-step", "4", "--heads", "4",
                              "--head", "all", "--out", svg});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const double weights = j["max_weight_diff"], outputs = j["max_output_diff"];
  CHECK(j["max_abs_diff"].get<double>() == std::max(weights, outputs));
  CHECK(outputs > weights);  // so a title mixing them in would be outside the bar
  // The SVG's text, its pieces joined.
  QFile file(QString::fromStdString(svg));
  REQUIRE(file.open(QIODevice::ReadOnly));
  QString text = QString::fromUtf8(file.readAll());
  text.replace(QRegularExpression(QStringLiteral(">\\s+<")), QStringLiteral("><"));
  text.replace(QRegularExpression(QStringLiteral("<[^>]*>")), QString());
  INFO(text.toStdString());
  const QString said = QStringLiteral("weights: max |Δ| %1)").arg(weights, 0, 'g', 3);
  CHECK(text.contains(said));
  CHECK(!text.contains(QString::number(outputs, 'g', 3)));
  // The colour bar runs from −m to +m (its largest tick) with m ≥ the weights' max |Δ|.
  double top = 0;
  auto ticks = QRegularExpression(QStringLiteral("\\+(\\d\\.\\d+)")).globalMatch(text);
  while (ticks.hasNext()) top = std::max(top, ticks.next().captured(1).toDouble());
  CHECK(top >= weights);
  CHECK(top < outputs);
}

TEST_CASE("CLI decode refuses what it cannot decode with one line", "[cli][decode]") {
  requireRefused({"decode", "--source", "Le chat", "--text", "the cat"}, "decode reads one text token by token: --source (cross-attention) does not apply", false);
  requireRefused({"compute", "--cache-bug", "skip"}, "--cache-bug does not apply to the compute command", false);
  requireRefused({"render", "--cache-bug", "skip", "--out", "x.png"}, "--cache-bug does not apply to the render command", false);
  requireRefused({"decode", "--cache-bug", "twice"}, "--cache-bug must be none, skip or duplicate", false);
  requireRefused({"decode", "--bug-step", "2"}, "--bug-step needs --cache-bug skip or duplicate", false);
  requireRefused({"decode", "--text", kCat, "--cache-bug", "skip", "--bug-step", "11"}, "--bug-step 11 is past the text's last token (10)", false);
  requireRefused({"decode", "--mechanism", "additive"}, "not additive", false);
  requireRefused({"decode", "--global", "2"}, "--global does not apply", false);
  requireRefused({"decode", "--precision", "fp16"}, "decode computes the float32 stable softmax of inference: --precision does not apply", false);
  requireRefused({"decode", "--dropout", "0.1"}, "--dropout does not apply", false);
  requireRefused({"decode", "--mechanism", "linear"}, "not linear", false);
  requireRefused({"decode", "--out", "x.csv"}, "unknown format '.csv'", false);
}

TEST_CASE("CLI head similarity: h × h, symmetric, zero diagonal, per layer of a model",
          "[cli][head_similarity]") {
  const auto j = runJson({"compute", "--text", kCat, "--heads", "4", "--backend", "cpu"});
  const auto& s = j["head_similarity"];
  REQUIRE(s["jsd"].size() == 4);
  for (int a = 0; a < 4; ++a) {
    CHECK(s["jsd"][a][a] == 0.0);
    for (int b = 0; b < 4; ++b) {
      CHECK(s["jsd"][a][b] == s["jsd"][b][a]);
      CHECK(s["jsd"][a][b].get<double>() <= std::log(2.0));
    }
  }
  CHECK(s["threshold"] == 0.01);
  CHECK(s["near_duplicates"].is_array());
  const std::string tiny = std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-gpt2";
  const auto m = runJson({"compute", "--model", tiny, "--text", "hello world", "--backend", "cpu"});
  REQUIRE(m["layers"].size() == 2);
  for (const auto& layer : m["layers"]) CHECK(layer["head_similarity"]["jsd"].size() == m["h"].get<std::size_t>());
}

TEST_CASE("CLI render --plot head-similarity draws the matrix", "[cli][head_similarity]") {
  QTemporaryDir dir;
  const std::string png = dir.filePath("similarity.png").toStdString();
  const CliResult r = runCli({"render", "--plot", "head-similarity", "--backend", "cpu", "--out", png});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const QImage image(QString::fromStdString(png));
  CHECK(image.width() == 720);
  CHECK(image.height() == 640);
}

}  // namespace attnlab_test_cli_decode
