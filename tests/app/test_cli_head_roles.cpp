// compute --head-roles and render --plot head-roles (attnlab/head_roles.hpp) on the tiny models:
// the JSON's keys, shapes and ranges, the picture, and the refusals (exit 2, one line).

#include <QImage>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "cli_test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_cli_head_roles {

namespace {

using attnlab::test::CliResult;
using attnlab::test::runCli;

const std::string kData = ATTNLAB_TEST_DATA_DIR;
const std::string kTinyLlama = kData + "/models/tiny-llama/tiny-llama.gguf";
const std::string kTinyGpt2 = kData + "/models/tiny-gpt2";

using attnlab::test::requireUsageError;

}  // namespace

TEST_CASE("compute --head-roles adds every head's role scores", "[cli][model][head_roles]") {
  for (const std::string& model : {kTinyLlama, kTinyGpt2}) {
    INFO(model);
    const CliResult r = runCli({"compute", "--model", model, "--text", "hello", "--layer", "0",
                                "--head-roles"});
    INFO("stderr: " << r.err);
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j.contains("head_roles"));
    const auto& h = j["head_roles"];
    const int layers = h["layers"], heads = h["h"];
    CHECK(layers == j["layers_total"]);
    CHECK(heads == j["h"]);
    const auto& s = h["sequence"];
    CHECK(s["seed"] == 2022);
    const int period = s["period"], prefix = s["prefix"], suffix = s["suffix"];
    CHECK(s["length"] == prefix + 2 * period + suffix);
    CHECK(s["ids"].size() == static_cast<std::size_t>(s["length"].get<int>()));
    CHECK(h["local_distance"] == 3);
    const std::vector<std::string> names{"previous-token", "duplicate-token", "induction",
                                         "sink",           "local",           "broad"};
    REQUIRE(h["roles"].size() == names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto& role = h["roles"][i];
      CHECK(role["role"] == names[i]);
      CHECK(h["definitions"].contains(names[i]));
      REQUIRE(role["scores"].size() == static_cast<std::size_t>(layers));
      double best = 0;
      for (const auto& row : role["scores"]) {
        REQUIRE(row.size() == static_cast<std::size_t>(heads));
        for (const auto& x : row) {
          CHECK(x.get<double>() >= 0.0);
          CHECK(x.get<double>() <= 1.0);
          best = std::max(best, x.get<double>());
        }
      }
      REQUIRE(role["top"].size() == std::min<std::size_t>(5, layers * heads));
      CHECK(role["top"][0]["score"].get<double>() == best);
      CHECK(role["median"].get<double>() <= best);
    }
  }
  // Without the flag, no head roles.
  const CliResult plain = runCli({"compute", "--model", kTinyLlama, "--text", "hello", "--layer", "0"});
  REQUIRE(plain.code == 0);
  CHECK_FALSE(nlohmann::json::parse(plain.out).contains("head_roles"));
}

TEST_CASE("render --plot head-roles draws the layers × heads matrices", "[cli][render][head_roles]") {
  QTemporaryDir dir;
  const std::string out = dir.filePath("roles.png").toStdString();
  const CliResult r = runCli({"render", "--model", kTinyLlama, "--plot", "head-roles", "--out", out});
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  const QImage image(QString::fromStdString(out));
  REQUIRE_FALSE(image.isNull());
  CHECK(image.width() > image.height());  // six panels side by side
}

TEST_CASE("head roles refusals: one line, exit 2", "[cli][errors][head_roles]") {
  requireUsageError({"compute", "--text", "hi", "--head-roles"},
                    "--head-roles applies to a pretrained model; add --model DIR");
  requireUsageError({"render", "--text", "hi", "--plot", "head-roles", "--out", "/tmp/a.png"},
                    "--plot head-roles scores a model's heads: add --model DIR or FILE.gguf");
  requireUsageError({"render", "--model", kTinyLlama, "--plot", "head-roles", "--head", "0",
                     "--out", "/tmp/a.png"},
                    "--plot head-roles draws every head of every layer: leave out --head");
  requireUsageError({"compute", "--model", kTinyLlama, "--rollout", "--head-roles"},
                    "--head-roles scores the heads, --rollout averages them");
  requireUsageError({"render", "--model", kTinyLlama, "--head-roles", "--out", "/tmp/a.png"},
                    "--head-roles does not apply to the render command");
}

}  // namespace attnlab_test_cli_head_roles
