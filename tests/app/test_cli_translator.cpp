// attention-lab-cli on the trained translators (issue 23): --model NAME resolved to the bundled
// folder, compute's JSON (steps, output, attention), render's pictures and files, --plot
// training, and the refusals (exit 2, one line naming the problem).

#include <QFileInfo>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QImage>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_test_support.hpp"
#include "test_support.hpp"
#include "options/bundled_models.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_cli_translator {

namespace {

using attnlab::test::CliResult;
using attnlab::test::runCli;
using attnlab::test::runJson;

bool bundled() {
  for (const char* name : {"dates-additive", "dates-transformer", "dates-transformer-unscaled"})
    if (!attnlab::options::findBundledModel(QString::fromLatin1(name))) return false;
  return true;
}

using attnlab::test::requireUsageError;

}  // namespace

TEST_CASE("compute --model dates-additive: the steps, the output and the additive attention",
          "[cli][translator]") {
  if (!bundled()) {
    attnlab::test::skipTest("the bundled translators are missing (resources/models)");
    return;
  }
  const auto j = runJson({"compute", "--model", "dates-additive", "--source", "2021年3月3日"});
  CHECK(j["model"] == "dates-additive");
  CHECK(j["mechanism"] == "additive");
  CHECK(j["source_chars"].size() == 9);
  const auto& steps = j["steps"];
  REQUIRE(steps.size() == j["target_ids"].size());
  REQUIRE(!steps.empty());
  CHECK(steps[0]["input_token"] == "<s>");
  std::string output;
  for (const auto& s : steps) {
    REQUIRE(s["top"].size() == 5);
    CHECK(s["top"][0]["probability"].get<double>() >= s["top"][4]["probability"].get<double>());
    CHECK(s["token"] == s["top"][0]["token"]);  // greedy: the most probable
    if (s["token"] != "</s>") output += s["token"].get<std::string>();
  }
  CHECK(output == j["output"]);
  const auto& w = j["attention"]["additive"]["heads"][0]["weights"];
  REQUIRE(w.size() == steps.size());
  for (const auto& row : w) {
    REQUIRE(row.size() == 9);
    double sum = 0;
    for (const auto& v : row) sum += v.get<double>();
    CHECK(sum == Approx(1.0).margin(1e-5));
  }
  // Teacher forcing: the target given is what the steps output.
  const auto forced = runJson({"compute", "--model", "dates-additive", "--source", "2021年3月3日",
                               "--text", "1999-12-31"});
  CHECK(forced["forced"] == true);
  CHECK(forced["output"] == "1999-12-31");
  CHECK(forced["steps"].size() == 11);
}

TEST_CASE("compute --model dates-transformer: every layer's encoder, decoder and cross-attention",
          "[cli][translator]") {
  if (!bundled()) {
    attnlab::test::skipTest("the bundled translators are missing (resources/models)");
    return;
  }
  const auto j = runJson({"compute", "--model", "dates-transformer", "--source", "3 March 2021",
                          "--temperature", "2"});
  const int layers = j["config"]["decoder_layers"], heads = j["config"]["heads"];
  const std::size_t t = j["steps"].size();
  REQUIRE(j["attention"]["cross"].size() == static_cast<std::size_t>(layers));
  const auto& cross = j["attention"]["cross"][0];
  CHECK(cross["scale"].get<double>() == Approx(0.5));
  REQUIRE(cross["heads"].size() == static_cast<std::size_t>(heads));
  CHECK(cross["heads"][0]["weights"].size() == t);
  CHECK(cross["heads"][0]["weights"][0].size() == 12);
  CHECK(j["attention"]["decoder_self"][0]["causal"] == true);
  CHECK(j["attention"]["encoder_self"][0]["heads"][0]["weights"].size() == 12);
}

TEST_CASE("render --model dates-additive / dates-transformer: pictures, CSV, NPY, --plot training",
          "[cli][translator]") {
  if (!bundled()) {
    attnlab::test::skipTest("the bundled translators are missing (resources/models)");
    return;
  }
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const std::string base = dir.path().toStdString() + "/";
  for (const std::vector<std::string>& extra :
       std::vector<std::vector<std::string>>{{"--model", "dates-additive", "--out", base + "a.png"},
                                             {"--model", "dates-additive", "--out", base + "a.csv"},
                                             {"--model", "dates-transformer", "--out", base + "t.png"},
                                             {"--model", "dates-transformer", "--attention", "encoder-self",
                                              "--layer", "1", "--head", "2", "--out", base + "e.svg"},
                                             {"--model", "dates-transformer", "--out", base + "t.npy"}}) {
    std::vector<std::string> args{"render", "--source", "March 3rd, 2021"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = runCli(args);
    INFO(args.back() << ": " << r.err);
    REQUIRE(r.code == 0);
    CHECK(QFileInfo(QString::fromStdString(args.back())).size() > 0);
  }
  const QImage image(QString::fromStdString(base + "a.png"));
  CHECK(image.width() > 300);
  // Issue 50: the unscaled translator's wrong date says that this model is the 25 % one; the
  // translators that get every date right say nothing of the kind.
  const auto titleOf = [&](const std::string& model) {
    const std::string json = base + model + ".json";
    const CliResult r = runCli({"render", "--source", "March 3rd, 2021", "--model", model, "--out",
                                base + model + ".png", "--layout-json", json});
    REQUIRE(r.code == 0);
    QFile file(QString::fromStdString(json));
    REQUIRE(file.open(QIODevice::ReadOnly));
    QString title;
    for (const QJsonValue& t : QJsonDocument::fromJson(file.readAll()).object()["texts"].toArray())
      if (t.toObject()["role"].toString() == QStringLiteral("title")) title += t.toObject()["text"].toString();
    return title;
  };
  CHECK(titleOf("dates-transformer-unscaled").contains(QStringLiteral("it writes 25 % of held-out dates right")));
  CHECK(!titleOf("dates-transformer").contains(QStringLiteral("held-out")));
  const CliResult training = runCli({"render", "--plot", "training", "--out", base + "training.png"});
  INFO(training.err);
  REQUIRE(training.code == 0);
  CHECK(QImage(QString::fromStdString(base + "training.png")).width() == 900);
}

TEST_CASE("translators refuse what they cannot vary and bad input, in one line (exit 2)",
          "[cli][translator]") {
  if (!bundled()) {
    attnlab::test::skipTest("the bundled translators are missing (resources/models)");
    return;
  }
  const std::vector<std::string> a{"compute", "--model", "dates-additive", "--source", "3 March 2021"};
  auto with = [&](std::vector<std::string> base, const std::vector<std::string>& more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
  };
  requireUsageError(with(a, {"--no-scale"}), "dates-additive uses additive attention: there is no 1/√d_k to switch off");
  requireUsageError(with(a, {"--heads", "2"}), "--heads does not apply to a trained translator");
  requireUsageError(with(a, {"--causal"}), "its decoder self-attention is causal already");
  requireUsageError(with(a, {"--attention", "encoder-self"}), "--attention encoder-self does not apply to dates-additive");
  requireUsageError(with(a, {"--text", "2021-03-0x"}), "'x' (U+0078) at position 9 is not in dates-additive's target vocabulary");
  requireUsageError({"compute", "--model", "dates-additive", "--source", "3 March 2021 and some more text"},
                    "characters; dates-additive reads at most");
  requireUsageError({"compute", "--model", "dates-additive", "--source", "3 March 2021 €"},
                    "'€' (U+20AC) at position 13 is not in dates-additive's source vocabulary");
  requireUsageError({"compute", "--model", "dates-additive"}, "a translator reads --source TEXT");
  // generate, cost and decode do not run a translator: one line naming what does (not --source).
  requireUsageError({"generate", "--model", "dates-additive", "--text", "2021"},
                    "dates-additive is a trained translator: the generate command does not run it; use compute or render with --source TEXT");
  requireUsageError({"cost", "--model", "dates-transformer", "--source", "3 March 2021"},
                    "dates-transformer is a trained translator: the cost command does not run it");
  requireUsageError({"compute", "--model", "dates-transformer", "--source", "3 March 2021", "--mechanism", "additive"},
                    "--mechanism additive does not apply to dates-transformer");
  requireUsageError({"compute", "--model", "dates-transformer-unscaled", "--source", "3 March 2021", "--no-scale"},
                    "dates-transformer-unscaled was trained without 1/√d_k");
  requireUsageError({"compute", "--model", "dates-transformer", "--source", "3 March 2021", "--layer", "7"},
                    "--layer 7 does not exist");
  const CliResult dot = runCli({"compute", "--model", "dates-transformer", "--source", "3 March 2021", "--no-scale"});
  INFO(dot.err);
  CHECK(dot.code == 0);
}

}  // namespace attnlab_test_cli_translator
