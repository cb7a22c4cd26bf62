// attention-lab-cli generate and decode --model (issue 24): the JSON's keys and order, the rows'
// shapes, the picture, and the refusals in one line.

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "cli_test_support.hpp"
#include "test_support.hpp"
#include "views/picture.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_cli_generate {

namespace {

using attnlab::test::requireRefused;
using attnlab::test::runCli;
using attnlab::test::runJson;

const std::string kTiny = std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-llama";
const std::string kTinyGpt2 = std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-gpt2";

}  // namespace

TEST_CASE("CLI generate: steps with rows over the growing cache, a picture", "[cli][generate]") {
  QTemporaryDir dir;
  const std::string png = (dir.path() + "/g.png").toStdString();
  const auto j = runJson({"generate", "--model", kTiny, "--text", "the cat sat", "--max-tokens", "4",
                          "--out", png});
  CHECK(j["command"] == "generate");
  CHECK(j["sampling"] == "greedy");
  CHECK(j["cache"] == "full");
  const auto n_p = j["prompt_ids"].size();
  REQUIRE(j["steps"].size() == 4);
  for (std::size_t k = 0; k < 4; ++k) {
    const auto& s = j["steps"][k];
    CHECK(s["position"] == n_p - 1 + k);
    CHECK(s["cache_length"] == n_p + k);
    CHECK(s["cache_bytes"] == (n_p + k) * j["kv_cache_bytes_per_token"].get<long long>());
    REQUIRE(s["attention"].size() == j["layers"]);
    REQUIRE(s["attention"][0].size() == j["heads"]);
    REQUIRE(s["attention"][0][0].size() == n_p + k);
    double sum = 0;
    for (const auto& w : s["attention"][0][0]) sum += w.get<double>();
    CHECK(std::abs(sum - 1) < 1e-5);
    CHECK(s["top"].size() == 5);
    CHECK(s["top"][0]["id"] == s["id"]);  // greedy: the most probable
  }
  CHECK(j["generated_ids"].size() == 4);
  CHECK(j["stop"] == "max_tokens");
  CHECK(QFileInfo(QString::fromStdString(png)).size() > 1000);
  // Keys in the documented order (docs/cli.md, the stable contract): the raw text.
  const auto r = runCli({"generate", "--model", kTiny, "--max-tokens", "2", "--layer", "1"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\"command\"") < r.out.find("\"steps\""));
  CHECK(r.out.find("\"steps\"") < r.out.find("\"stop\""));
  CHECK(r.out.rfind("\"tokens_per_s\"") > r.out.rfind("\"total_ms\""));
  CHECK(nlohmann::json::parse(r.out)["steps"][0]["attention"].size() == 1);  // --layer 1 only
  // Sampling with a seed reproduces; GPT-2 generates too.
  const std::vector<std::string> sample = {"generate", "--model", kTinyGpt2, "--max-tokens", "5",
                                           "--sample-temperature", "1.5", "--seed", "3"};
  CHECK(runJson(sample)["generated_ids"] == runJson(sample)["generated_ids"]);
}

TEST_CASE("CLI generate --cache-window: evicted keys drawn grey, said so in the legend",
          "[cli][generate][picture]") {
  // Issue 50: evicted keys were drawn in the colour of weight 0.
  QTemporaryDir dir;
  const QString png = dir.path() + "/g.png", json = dir.path() + "/g.json";
  const auto j = runJson({"generate", "--model", kTiny, "--text", "the cat sat on the mat", "--max-tokens",
                          "6", "--cache-window", "3", "--sink-tokens", "1", "--out", png.toStdString(),
                          "--layout-json", json.toStdString()});
  CHECK(j["cache"] == "window 3 + 1 sink");
  QFile file(json);
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QJsonObject layout = QJsonDocument::fromJson(file.readAll()).object();
  const QImage image(png);
  REQUIRE(!image.isNull());
  const QJsonObject map = layout["maps"].toArray().at(0).toObject();
  const int n = map["n_q"].toInt();
  REQUIRE(n >= 6);
  REQUIRE(map["block"].toInt() == 1);
  const double scale = layout["scale"].toDouble(1.0), cell = map["cell_width"].toDouble();
  // A quarter into the cell: its centre may carry the printed weight.
  const auto at = [&](int row, int column) {
    return image.pixelColor(static_cast<int>(scale * (map["x"].toDouble() + (column + 0.25) * cell)),
                            static_cast<int>(scale * (map["y"].toDouble() + (row + 0.25) * cell)));
  };
  const QColor grey = attnlab::views::kMaskedColor;
  const auto isGrey = [&](const QColor& c) {
    return std::abs(c.red() - grey.red()) + std::abs(c.green() - grey.green()) + std::abs(c.blue() - grey.blue()) < 8;
  };
  // The last query i = n − 1 keeps the sink (key 0) and keys i − 2 … i; key 1 is evicted.
  CHECK(isGrey(at(n - 1, 1)));
  CHECK(!isGrey(at(n - 1, 0)));
  CHECK(!isGrey(at(n - 1, n - 1)));
  CHECK(isGrey(at(0, 1)));  // a later key: causal
  bool said = false;
  for (const QJsonValue& t : layout["texts"].toArray())
    said = said || t.toObject()["text"].toString().contains(QStringLiteral("evicted (it keeps the last 3 tokens and the first 1)"));
  CHECK(said);
}

TEST_CASE("CLI decode --model: log-probabilities under each cache policy", "[cli][generate]") {
  const auto j = runJson({"decode", "--model", kTiny, "--text", "the cat sat on the mat and the dog",
                          "--cache-window", "2,4", "--sink-tokens", "0,1"});
  REQUIRE(j["scores"].size() == 5);  // full, then 2 windows × 2 sink counts
  CHECK(j["scores"][0]["cache"] == "full");
  CHECK(j["scores"][4]["cache"] == "window 4 + 1 sink");
  CHECK(j["scores"][0]["log_probs"].size() == j["input_ids"].size() - 1);
  for (const auto& s : j["scores"]) {
    CHECK(s["perplexity"].get<double>() > 1);
    CHECK(std::abs(std::exp(-s["mean_log_prob"].get<double>()) - s["perplexity"].get<double>()) < 1e-6);
  }
  CHECK(j["top_sink_heads"].size() == 5);
}

TEST_CASE("CLI generate: --sample-temperature 0 with --seed is greedy, as asked", "[cli][generate]") {
  const auto greedy = runJson({"generate", "--model", kTiny, "--text", "the cat", "--max-tokens", "3"});
  const auto seeded = runJson({"generate", "--model", kTiny, "--text", "the cat", "--max-tokens", "3",
                               "--sample-temperature", "0", "--seed", "7"});
  CHECK(seeded["sampling"] == "greedy");
  CHECK(seeded["generated_ids"] == greedy["generated_ids"]);
}

TEST_CASE("CLI --help: every option apart from its help; a command's --help lists its own options",
          "[cli][generate]") {
  // Issue 50: "--sample-temperature Tgenerate: …" ran together, and there was no per-command help.
  const auto all = runCli({"--help"});
  REQUIRE(all.code == 0);
  CHECK(all.out.find("--sample-temperature T  generate:") != std::string::npos);
  for (std::size_t at = all.out.find("\n  --"); at != std::string::npos; at = all.out.find("\n  --", at + 1)) {
    // "  --name VALUE" then at least two spaces before the help.
    const std::size_t end = all.out.find('\n', at + 1);
    const std::string line = all.out.substr(at + 1, end - at - 1);
    INFO(line);
    const std::size_t name_end = line.find(' ', 4);
    const std::size_t gap = line.find("  ", 4);
    CHECK(gap != std::string::npos);
    CHECK(gap >= name_end);
  }
  const auto generate = runCli({"generate", "--help"});
  REQUIRE(generate.code == 0);
  CHECK(generate.out.find("attention-lab-cli generate --model M") != std::string::npos);
  CHECK(generate.out.find("--max-tokens N") != std::string::npos);
  CHECK(generate.out.find("--sink-tokens") != std::string::npos);
  CHECK(generate.out.find("attention-lab-cli render") == std::string::npos);
  CHECK(generate.out.find("--cache-bug") == std::string::npos);  // decode's
  CHECK(generate.out.find("--param") == std::string::npos);      // sweep's
  CHECK(generate.out.find("[generate]") == std::string::npos);   // every option here is generate's
  CHECK(generate.out.size() < all.out.size() / 2);
}

TEST_CASE("CLI generate and decode --model refuse with one line", "[cli][generate]") {
  requireRefused({"generate", "--text", "hi"}, "generate runs a pretrained model: add --model DIR|FILE", false);
  requireRefused({"generate", "--model", kTiny, "--cache-window", "4,8"}, "generate keeps one KV cache: --cache-window takes one number", false);
  requireRefused({"generate", "--model", kTiny, "--top-k", "3"}, "--top-k applies when sampling: add --sample-temperature T", false);
  requireRefused({"generate", "--model", kTiny, "--seed", "3"}, "--seed draws the samples: add --sample-temperature T", false);
  // A seed past the limit is out of range, said with the limit (2^53), even past 64 bits.
  requireRefused({"generate", "--model", kTiny, "--sample-temperature", "1", "--seed", "18446744073709551615"},
                 "--seed must be between 0 and 2^53 (9007199254740992) (got 18446744073709551615)", false);
  requireRefused({"generate", "--model", kTiny, "--sample-temperature", "1", "--seed", "9007199254740993"},
                 "--seed must be between 0 and 2^53 (9007199254740992) (got 9007199254740993)", false);
  requireRefused({"generate", "--model", kTiny, "--sink-tokens", "4"}, "--sink-tokens needs --cache-window W (the full cache keeps every token)", false);
  requireRefused({"generate", "--model", kTiny, "--mechanism", "linear"}, "generate takes the model's softmax attention, dot or scaled, not linear", false);
  requireRefused({"generate", "--model", kTiny, "--max-tokens", "0"}, "--max-tokens must be between 1 and 4096 (got 0)", false);
  requireRefused({"generate", "--model", kTiny, "--heads", "4"}, "--heads does not apply to the generate command", false);
  requireRefused({"decode", "--model", kTiny, "--layer", "1"}, "decode --model scores the text through every layer: --layer does not apply", false);
  requireRefused({"decode", "--cache-window", "3"}, "--cache-window applies to a pretrained model; add --model DIR", false);
  requireRefused({"decode", "--model", kTiny, "--cache-bug", "skip"}, "--cache-bug does not apply with --model", false);
  std::string long_text;
  for (int i = 0; i < 80; ++i) long_text += "cat ";
  requireRefused({"generate", "--model", kTiny, "--text", long_text}, "tokens; tiny-llama reads at most 64", false);
}

}  // namespace attnlab_test_cli_generate
