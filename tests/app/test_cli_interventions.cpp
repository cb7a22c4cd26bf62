// attention-lab-cli's interventions (issue 49): compute's JSON for --ablate, --logit-lens, --dla
// and --patch-from on the tiny Llama and GPT-2; the pictures of render --plot logit-lens, dla and
// patching and the ablated model view; the refusals in one line, the window's too.

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "cli_test_support.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_cli_interventions {

namespace {

using attnlab::test::requireRefused;
using attnlab::test::requireUsageError;
using attnlab::test::runCli;
using attnlab::test::runJson;

const std::string kTiny = std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-llama/tiny-llama.gguf";
const std::string kTinyGpt2 = std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-gpt2";

double sum(const nlohmann::json& v) {
  double s = 0;
  for (const auto& x : v) s += x.get<double>();
  return s;
}

}  // namespace

TEST_CASE("CLI compute --ablate: the next tokens and losses before and after", "[cli][interventions]") {
  const auto j = runJson({"compute", "--model", kTinyGpt2, "--text", "the cat sat on the mat",
                          "--ablate", "1.2,0.0", "--ablation", "mean"});
  const auto& a = j["ablation"];
  CHECK(a["heads"] == nlohmann::json({"1.2", "0.0"}));
  CHECK(a["mode"] == "mean");
  CHECK(a["first_layer"] == 0);
  const auto n = j["input_ids"].size();
  REQUIRE(a["loss_before"].size() == n - 1);
  REQUIRE(a["loss_after"].size() == n - 1);
  CHECK(a["mean_loss_before"].get<double>() == Approx(sum(a["loss_before"]) / double(n - 1)));
  CHECK(a["next_tokens_before"].size() == 5);
  CHECK(a["next_tokens_after"].size() == 5);
  CHECK(a["mean_loss_after"] != a["mean_loss_before"]);  // the heads did something
  // The top-level next tokens are the ablated pass's (the picture's), "after".
  CHECK(j["next_tokens"] == a["next_tokens_after"]);
  // Without --ablate the same text gives "before".
  const auto plain = runJson({"compute", "--model", kTinyGpt2, "--text", "the cat sat on the mat"});
  CHECK(plain["next_tokens"] == a["next_tokens_before"]);
  CHECK(!plain.contains("ablation"));
}

TEST_CASE("CLI compute --logit-lens and --dla: one row per layer; the parts sum to the logit",
          "[cli][interventions]") {
  const auto j = runJson({"compute", "--model", kTiny, "--text", "the cat sat on the mat",
                          "--logit-lens", "--dla"});
  const auto layers = j["layers_total"].get<std::size_t>();
  REQUIRE(j["logit_lens"].size() == layers);
  const auto& last = j["logit_lens"].back()["positions"].back();
  CHECK(last["id"] == j["next_tokens"][0]["id"]);
  CHECK(last["final_rank"] == 0);
  const auto& d = j["dla"];
  CHECK(d["target"]["id"] == j["next_tokens"][0]["id"]);
  CHECK(d["versus"].is_null());
  CHECK(d["heads"].size() == layers);
  CHECK(d["total"].get<double>() == Approx(d["logit"].get<double>()).margin(1e-4));
  CHECK(d["logit"].get<double>() == Approx(j["next_tokens"][0]["logit"].get<double>()).margin(1e-3));
}

TEST_CASE("CLI compute --patch-from: heads × layers and layers × positions recovered", "[cli][interventions]") {
  const auto j = runJson({"compute", "--model", kTinyGpt2, "--text", "the cat sat on the mat",
                          "--patch-from", "the cat sat on a mat"});
  const auto& p = j["patching"];
  CHECK(p["heads"].size() == j["layers_total"]);
  CHECK(p["heads"][0].size() == j["h"]);
  CHECK(p["residual"][0].size() == j["input_ids"].size());
  // The last layer's residual stream at the last position carries everything the logits read.
  CHECK(p["residual"].back().back().get<double>() == Approx(1.0).margin(1e-4));
  CHECK(p["corrupted_labels"].size() == j["input_ids"].size());
}

TEST_CASE("CLI render --plot logit-lens, dla, patching and the ablated model view", "[cli][interventions]") {
  QTemporaryDir dir;
  for (const std::string plot : {"logit-lens", "dla", "patching"}) {
    INFO(plot);
    const std::string png = (dir.path() + "/" + QString::fromStdString(plot) + ".png").toStdString();
    std::vector<std::string> args{"render", "--model", kTinyGpt2, "--text", "the cat sat on the mat",
                                  "--plot", plot, "--out", png};
    if (plot == "patching") args.insert(args.end(), {"--patch-from", "the cat sat on a mat"});
    const auto r = runCli(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
    const QImage image(QString::fromStdString(png));
    CHECK(image.width() >= 600);
  }
  const std::string png = (dir.path() + "/ablated.png").toStdString();
  const auto r = runCli({"render", "--model", kTinyGpt2, "--ablate", "1.1", "--out", png});
  INFO(r.err);
  CHECK(r.code == 0);
}

TEST_CASE("CLI render --out FILE.html: the ablation's line and the lens and attribution as tables",
          "[cli][interventions][html]") {
  QTemporaryDir dir;
  const std::string html = (dir.path() + "/iv.html").toStdString();
  const auto r = runCli({"render", "--model", kTinyGpt2, "--text", "the cat sat on the mat", "--ablate",
                         "1.1", "--logit-lens", "--dla", "--out", html});
  INFO(r.err);
  REQUIRE(r.code == 0);
  QFile file(QString::fromStdString(html));
  REQUIRE(file.open(QIODevice::ReadOnly));
  const std::string page = file.readAll().toStdString();
  const std::string open = "<script id=\"attnlab-data\" type=\"application/json\">";
  const auto begin = page.find(open);
  REQUIRE(begin != std::string::npos);
  const auto end = page.find("</script>", begin);
  const auto data = nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
  const auto& view = data["views"][0];
  REQUIRE(view["notes"].size() == 1);
  CHECK(view["notes"][0].get<std::string>().rfind("ablated (zero): 1.1 · next token", 0) == 0);
  REQUIRE(view["tables"].size() == 2);  // the logit lens, the attribution
  CHECK(view["tables"][0]["rows"].size() == 2);     // tiny-gpt2's layers
  CHECK(view["tables"][0]["columns"].size() == 7);  // its tokens: t · he · ␣cat · ␣sat · ␣on · ␣the · ␣mat
  CHECK(view["tables"][1]["columns"].back() == "MLP");
  requireUsageError({"render", "--model", kTinyGpt2, "--logit-lens", "--out", "x.png"},
                    "--logit-lens and --dla go into an .html page (--out FILE.html); for a picture use "
                    "--plot logit-lens or --plot dla");
}

TEST_CASE("CLI interventions refuse bad input in one line, the window in the same words",
          "[cli][interventions]") {
  requireRefused({"compute", "--model", kTinyGpt2, "--ablate", "1"},
                 "--ablate: \"1\" is not LAYER.HEAD (e.g. 3.7)");
  requireRefused({"compute", "--model", kTinyGpt2, "--ablate", "0.1,x.2"},
                 "--ablate: \"x.2\" is not LAYER.HEAD (e.g. 3.7)");
  requireRefused({"compute", "--model", kTinyGpt2, "--ablation", "uniform"},
                 "--ablation says how to ablate: add --ablate L.H (e.g. --ablate 3.7)");
  requireRefused({"compute", "--model", kTinyGpt2, "--target", " cat"},
                 "--target and --versus name the logit measured: add --dla, --plot dla or --patch-from TEXT");
  requireRefused({"render", "--plot", "dla", "--out", "x.png"},
                 "--plot dla reads a model's residual stream: add --model DIR or FILE.gguf", false);
  requireRefused({"render", "--model", kTinyGpt2, "--plot", "patching", "--out", "x.png"},
                 "--plot patching needs the corrupted prompt: add --patch-from TEXT", false);
  // Checked against the model once it is loaded.
  requireUsageError({"compute", "--model", kTinyGpt2, "--ablate", "2.0"},
                    "--ablate: layer 2 does not exist: tiny-gpt2 has layers 0–1");
  requireUsageError({"compute", "--model", kTinyGpt2, "--ablate", "0.4"},
                    "--ablate: head 4 does not exist: tiny-gpt2 has heads 0–3");
  requireUsageError({"compute", "--model", kTinyGpt2, "--dla", "--target", "the cat"},
                    "--target: \"the cat\" is 3 tokens for tiny-gpt2 (t · he · ␣cat); give one token");
  requireUsageError({"compute", "--model", kTinyGpt2, "--text", "the cat", "--patch-from", "a"},
                    "the two prompts must have the same number of tokens (3 and 1): --text and "
                    "--patch-from differ in length");
}

}  // namespace attnlab_test_cli_interventions
