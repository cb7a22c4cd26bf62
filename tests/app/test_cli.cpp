// attention-lab-cli run in-process: every subcommand and format, and the usage errors.

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attnlab/backend.hpp"
#include "cli/cli.hpp"
#include "cli_test_support.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_cli {

namespace {

using attnlab::test::CliResult;
using attnlab::test::runCli;

QByteArray readFile(const std::string& path) {
  QFile f(QString::fromStdString(path));
  REQUIRE(f.open(QIODevice::ReadOnly));
  return f.readAll();
}

using attnlab::test::requireUsageError;

const std::string kCat = "The cat sat on the mat because it was tired.";

}  // namespace

TEST_CASE("compute prints JSON with tokens, heads, weights and stats", "[cli][compute]") {
  const CliResult r = runCli({"compute", "--text", kCat, "--heads", "4", "--d-model", "32",
                              "--backend", "cpu"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["backend"] == "cpu");
  CHECK(j["mechanism"] == "scaled");
  CHECK(j["attention"] == "self");
  CHECK(j["d_k"] == 8);
  REQUIRE(j["query_tokens"].size() == 11);
  CHECK(j["query_tokens"][10] == ".");
  CHECK(j["key_tokens"] == j["query_tokens"]);
  REQUIRE(j["heads"].size() == 4);
  const auto& w = j["heads"][3]["weights"];
  REQUIRE(w.size() == 11);
  REQUIRE(w[0].size() == 11);
  double sum = 0;
  for (const auto& x : w[5]) sum += x.get<double>();
  CHECK(std::abs(sum - 1.0) < 1e-6);
  CHECK(j["stats"]["entropy"].size() == 4);
  CHECK(j["stats"]["jacobian_norm"][0].size() == 11);
  CHECK(j["output"].size() == 11);
  CHECK(j["output"][0].size() == 32);
  CHECK_FALSE(j.contains("fallback_reason"));
}

TEST_CASE("compute: cross-attention, causal, fallback reason", "[cli][compute]") {
  const CliResult cross = runCli({"compute", "--text", "Le chat dort .", "--source",
                                  "The cat sleeps", "--heads", "2", "--d-model", "16"});
  REQUIRE(cross.code == 0);
  const auto j = nlohmann::json::parse(cross.out);
  CHECK(j["attention"] == "cross");
  CHECK(j["heads"][0]["weights"].size() == 4);     // n_target rows
  CHECK(j["heads"][0]["weights"][0].size() == 3);  // n_source columns
  // auto: OpenCL when a device builds the kernels (PoCL here), otherwise the CPU saying why.
  if (attnlab::listOpenClDevices().empty()) {
    CHECK(j["backend"] == "cpu");
    CHECK(j.contains("fallback_reason"));
  } else {
    CHECK(j["backend"] == "opencl");
    CHECK_FALSE(j.contains("fallback_reason"));
  }

  const CliResult causal = runCli({"compute", "--causal", "--heads", "1", "--d-model", "8",
                                   "--backend", "cpu"});
  REQUIRE(causal.code == 0);
  const auto c = nlohmann::json::parse(causal.out);
  CHECK(c["mask"]["causal"] == true);
  CHECK(c["heads"][0]["weights"][0][1] == 0.0);
  CHECK(c["heads"][0]["weights"][0][0] == 1.0);
}

TEST_CASE("render writes every format", "[cli][render]") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const std::string base = dir.path().toStdString() + "/";

  SECTION("PNG of one head at the asked size and scale") {
    const std::string path = base + "head.png";
    const CliResult r = runCli({"render", "--text", kCat, "--head", "2", "--out", path,
                                "--width", "640", "--height", "480", "--scale", "2"});
    REQUIRE(r.code == 0);
    CHECK(r.out == path + "\n");
    const QByteArray bytes = readFile(path);
    REQUIRE(bytes.startsWith("\x89PNG\r\n\x1a\n"));
    const QImage image(QString::fromStdString(path));
    CHECK(image.width() == 1280);
    CHECK(image.height() == 960);
  }
  SECTION("PNG grid of all heads") {
    const std::string path = base + "heads.png";
    const CliResult r = runCli({"render", "--text", kCat, "--mechanism", "scaled", "--heads",
                                "8", "--d-model", "64", "--head", "all", "--out", path});
    REQUIRE(r.code == 0);
    const QImage image(QString::fromStdString(path));
    CHECK(image.width() > 600);
    CHECK(image.height() > 400);
  }
  SECTION("SVG is vector") {
    const std::string path = base + "heads.svg";
    REQUIRE(runCli({"render", "--out", path}).code == 0);
    const QByteArray svg = readFile(path);
    CHECK(svg.contains("<svg"));
    CHECK((svg.contains("<path") || svg.contains("<polyline") || svg.contains("<rect")));
  }
  SECTION("PDF") {
    const std::string path = base + "head.pdf";
    REQUIRE(runCli({"render", "--head", "0", "--out", path}).code == 0);
    CHECK(readFile(path).startsWith("%PDF"));
  }
  SECTION("CSV holds the raw weights") {
    const std::string path = base + "head.csv";
    REQUIRE(runCli({"render", "--text", "a b c", "--head", "1", "--out", path}).code == 0);
    const QByteArray csv = readFile(path);
    CHECK(csv.startsWith("head,query,query_token,key,key_token,score,weight,masked\n"));
    CHECK(csv.count('\n') == 1 + 9);
  }
  SECTION("NPY holds [h, n_q, n_k] float32, readable by numpy.load") {
    const std::string path = base + "weights.npy";
    REQUIRE(runCli({"render", "--text", "a b c", "--heads", "2", "--d-model", "8", "--out",
                    path}).code == 0);
    const QByteArray npy = readFile(path);
    REQUIRE(npy.startsWith("\x93NUMPY"));
    CHECK(npy.contains("'shape': (2, 3, 3)"));
  }
}

TEST_CASE("NPY output loads in numpy", "[cli][render][numpy]") {
  // Debian's python3-numpy (scripts/setup installs it); without it the test reports a skip.
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) {
    attnlab::test::skipTest("numpy is not installed (python3-numpy): numpy.load cannot be tried");
    return;
  }
  QTemporaryDir dir;
  const std::string path = dir.path().toStdString() + "/weights.npy";
  REQUIRE(runCli({"render", "--text", "a b c", "--heads", "2", "--d-model", "8", "--out",
                  path}).code == 0);
  const std::string cmd = "/usr/bin/python3 -c \"import numpy as np; a = np.load('" + path +
                          "'); assert a.shape == (2, 3, 3) and a.dtype == np.float32; "
                          "assert abs(a.sum(axis=2) - 1).max() < 1e-6\"";
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("saturation writes a plot and a CSV", "[cli][saturation]") {
  QTemporaryDir dir;
  const std::string png = dir.path().toStdString() + "/sat.png";
  const CliResult r = runCli({"saturation", "--d-k", "1,4,16,64,256", "--samples", "200",
                              "--out", png, "--width", "700", "--height", "500"});
  REQUIRE(r.code == 0);
  const QImage image(QString::fromStdString(png));
  CHECK(image.width() == 700);
  CHECK(image.height() == 500);
  const std::string csv = dir.path().toStdString() + "/sat.csv";
  REQUIRE(runCli({"saturation", "--d-k", "8,512", "--samples", "100", "--no-scale", "--text",
                  kCat, "--out", csv}).code == 0);
  const QByteArray text = readFile(csv);
  CHECK(text.startsWith("source,scaling,n_k,d_k,"));
  CHECK(text.contains("monte_carlo,unscaled,11,512,"));
  CHECK(text.contains("sentence,scaled,11,8,"));
  const std::string svg = dir.path().toStdString() + "/sat.svg";
  REQUIRE(runCli({"saturation", "--samples", "50", "--out", svg}).code == 0);
  CHECK(readFile(svg).contains("<svg"));
}

TEST_CASE("info lists the backends", "[cli][info]") {
  const CliResult r = runCli({"info"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("cpu") != std::string::npos);
  CHECK(r.out.find("opencl") != std::string::npos);
}

TEST_CASE("bad input exits 2 with one line naming the problem", "[cli][errors]") {
  QTemporaryDir dir;
  const std::string out = dir.path().toStdString() + "/x.png";
  requireUsageError({"compute", "--text", ""}, "the text is empty");
  requireUsageError({"compute", "--text", "   \t "}, "only white space");
  requireUsageError({"compute", "--text", "caf\xc3"}, "invalid UTF-8 at byte offset 3");
  requireUsageError({"compute", "--heads", "3", "--d-model", "64"},
                    "heads (3) must divide d_model (64)");
  requireUsageError({"compute", "--mechanism", "cosine"}, "--mechanism must be additive, dot, scaled or linear (got 'cosine')");
  requireUsageError({"compute", "--d-k", "0"}, "--d-k must be between 1 and");
  requireUsageError({"render", "--out", dir.path().toStdString() + "/no/such/dir/x.png"},
                    "does not exist");
  requireUsageError({"render", "--out", dir.path().toStdString() + "/x.bmp"}, "unknown format");
  requireUsageError({"render"}, "--out FILE is required");
  // Issue 52: the .html page shows the heads; its own refusals name what it does not draw.
  requireUsageError({"render", "--plot", "entropy", "--out", dir.path().toStdString() + "/x.html"},
                    "--plot entropy draws a picture");
  requireUsageError({"render", "--diff", "--no-scale", "--out", dir.path().toStdString() + "/x.html"},
                    "an .html page shows the heads' weights");
  requireUsageError({"lesson", "export", "scale", "--html", "--out", dir.path().toStdString() + "/x.png"},
                    "--out: unknown format '.png' (use .html)");
  requireUsageError({"lesson", "export", "scale", "--html"}, "--out FILE.html is required");
  requireUsageError({"compute", "--causal", "--source", "abc"}, "self-attention only");
  requireUsageError({"compute", "--temperature", "0"}, "--temperature must be > 0");
  requireUsageError({"compute", "--heads", "x"}, "--heads expects a whole number");
  requireUsageError({"compute", "--bogus"}, "unknown option '--bogus'");
  requireUsageError({"frobnicate"}, "unknown command 'frobnicate'");
  requireUsageError({}, "no command given");
  requireUsageError({"render", "--head", "9", "--heads", "8", "--out", out}, "--head must be");
  requireUsageError({"compute", "--model", "/tmp"}, "config.json");
  requireUsageError({"compute", "--layer", "2"}, "--layer applies to a pretrained model; add --model DIR");
  requireUsageError({"saturation", "--d-k", "1,0,4", "--out", out}, "--d-k must be between");
  requireUsageError({"info", "--text", "x"}, "does not apply");
  // One limit, one message (issue 11 item 7): --width up to 16384, and with --scale.
  requireUsageError({"render", "--width", "16385", "--out", out}, "--width must be between 16 and 16384 (got 16385)");
  requireUsageError({"render", "--width", "10000", "--scale", "2", "--out", out},
                    "the image would be 20000 x");
  requireUsageError({"compute", "--lang", "zh_CN"}, "--lang does not apply to the compute command");
  requireUsageError({"compute", "--causal=1"}, "--causal takes no value");
  requireUsageError({"compute", "--text"}, "--text needs a value");
  requireUsageError({"compute", "--seed", "-1"}, "--seed must be between 0 and");
  requireUsageError({"render", "--color-scale", "rainbow", "--out", out},
                    "--color-scale must be auto, linear, log or relative (got 'rainbow')");
  requireUsageError({"render", "--layout-json", dir.path().toStdString() + "/l.json", "--out",
                     dir.path().toStdString() + "/x.npy"}, "--layout-json describes a picture");
  std::string long_text;
  for (int i = 0; i < 4097; ++i) long_text += "w ";
  requireUsageError({"compute", "--text", long_text}, "the text has 4097 tokens; at most 4096 per side are computed");
}

TEST_CASE("compute JSON keeps the matrices up to a size, then says how to get them", "[cli][compute]") {
  // 1100 tokens × 1100 keys × 1 head = 1.21 M cells, above the 1 M (2^20) limit.
  std::string text;
  for (int i = 0; i < 1100; ++i) text.append("w").append(std::to_string(i % 50)).append(" ");
  const CliResult big = runCli({"compute", "--text", text, "--heads", "1", "--d-model", "8", "--backend", "cpu"});
  REQUIRE(big.code == 0);
  CHECK(big.out.size() < 2'000'000);  // tokens and statistics only
  const auto j = nlohmann::json::parse(big.out);
  CHECK(j["matrices"]["included"] == false);
  CHECK(j["matrices"]["cells"] == 1100 * 1100);
  CHECK(j["matrices"]["limit"] == 1 << 20);
  CHECK(j["matrices"]["note"].get<std::string>().find("render --out FILE.npy") != std::string::npos);
  CHECK_FALSE(j["heads"][0].contains("weights"));
  CHECK_FALSE(j.contains("output"));
  CHECK(j["stats"]["entropy"][0].size() == 1100);
  CHECK(j["query_tokens"].size() == 1100);
  // --full keeps everything.
  const CliResult full = runCli({"compute", "--text", text, "--heads", "1", "--d-model", "8", "--backend", "cpu", "--full"});
  REQUIRE(full.code == 0);
  const auto k = nlohmann::json::parse(full.out);
  CHECK(k["matrices"]["included"] == true);
  CHECK(k["heads"][0]["weights"].size() == 1100);
  // Small runs always carry them.
  const auto small = nlohmann::json::parse(runCli({"compute", "--text", kCat}).out);
  CHECK(small["matrices"]["included"] == true);
  CHECK(small["heads"][0]["weights"].size() == 11);
}

TEST_CASE("render --plot entropy|histogram: the window's analysis plots", "[cli][render]") {
  QTemporaryDir dir;
  const std::string png = dir.path().toStdString() + "/entropy.png";
  REQUIRE(runCli({"render", "--plot", "entropy", "--out", png, "--width", "700", "--height", "400"}).code == 0);
  CHECK(QImage(QString::fromStdString(png)).size() == QSize(700, 400));
  const std::string svg = dir.path().toStdString() + "/histogram.svg";
  REQUIRE(runCli({"render", "--plot", "histogram", "--out", svg}).code == 0);
  CHECK(readFile(svg).contains("Histogram of the scores"));
  requireUsageError({"render", "--plot", "entropy", "--out", dir.path().toStdString() + "/x.csv"},
                    "--plot entropy draws a picture");
  const std::string tiny = std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-gpt2";
  requireUsageError({"render", "--model", tiny, "--plot", "histogram", "--out", png},
                    "--plot histogram needs one layer: add --layer L");
  REQUIRE(runCli({"render", "--model", tiny, "--layer", "1", "--plot", "histogram", "--out", png}).code == 0);
}

TEST_CASE("render --layout-json, --color-scale and --pool", "[cli][render]") {
  QTemporaryDir dir;
  const std::string png = dir.path().toStdString() + "/heads.png";
  const std::string json = dir.path().toStdString() + "/heads.json";
  REQUIRE(runCli({"render", "--text", kCat, "--out", png, "--layout-json", json, "--color-scale", "relative"}).code == 0);
  const auto layout = nlohmann::json::parse(readFile(json).toStdString());
  CHECK(layout["image"] == png);
  CHECK(layout["color_scale"] == "relative");
  const QImage image(QString::fromStdString(png));
  CHECK(layout["canvas"]["width"] == image.width());
  REQUIRE(layout["maps"].size() == 8);
  for (const auto& map : layout["maps"]) {
    CHECK(map["cell_width"] == map["cell_height"]);
    CHECK(map["drawn"]["width"] == map["width"]);  // QCustomPlot drew the cells where laid out
  }
  std::string text;
  for (int i = 0; i < 2000; ++i) text.append("w").append(std::to_string(i % 97)).append(" ");
  REQUIRE(runCli({"render", "--text", text, "--heads", "2", "--d-model", "16", "--head", "1", "--pool", "mean",
                  "--out", png, "--layout-json", json}).code == 0);
  const auto overview = nlohmann::json::parse(readFile(json).toStdString());
  CHECK(overview["pool"] == "mean");
  CHECK(overview["maps"][0]["block"] > 1);
  CHECK(overview["color_scale"] == "log");
}

namespace {
const std::string kTinyGpt2 = std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-gpt2";

/// Reads an NPY file's shape (the header's 'shape': (…) tuple).
std::vector<int> npyShape(const std::string& path) {
  const QByteArray bytes = readFile(path);
  const int open = bytes.indexOf("'shape': (") + 10;
  const int close = bytes.indexOf(')', open);
  std::vector<int> shape;
  for (const QByteArray& part : bytes.mid(open, close - open).split(','))
    if (!part.trimmed().isEmpty()) shape.push_back(part.trimmed().toInt());
  return shape;
}
}  // namespace

TEST_CASE("model: a real forward pass's layers in JSON, NPY, CSV and pictures", "[cli][model]") {
  QTemporaryDir dir;
  const std::string d = dir.path().toStdString();

  SECTION("compute: every layer, or one") {
    const CliResult all = runCli({"compute", "--model", kTinyGpt2, "--text", "the cat sat"});
    INFO(all.err);
    REQUIRE(all.code == 0);
    const auto j = nlohmann::json::parse(all.out);
    CHECK(j["model"] == "tiny-gpt2");
    CHECK(j["model_type"] == "gpt2");
    CHECK(j["layer"] == "all");
    CHECK(j["mask"]["causal"] == true);
    CHECK(j["layers"].size() == 2);
    CHECK(j["h"] == 4);
    const std::size_t n = j["input_ids"].size();
    CHECK(j["tokens"].size() == n);
    CHECK(j["layers"][1]["heads"][3]["weights"].size() == n);

    const CliResult one = runCli({"compute", "--model", kTinyGpt2, "--text", "the cat sat", "--layer", "1",
                                  "--no-scale"});
    REQUIRE(one.code == 0);
    const auto k = nlohmann::json::parse(one.out);
    CHECK(k["layer"] == 1);
    CHECK(k["mechanism"] == "dot");
    CHECK_FALSE(k.contains("layers"));
    REQUIRE(k["heads"].size() == 4);
    CHECK(k["stats"]["entropy"].size() == 4);
  }
  SECTION("NPY of every layer is [L, h, n, n]; --hide-special drops <|endoftext|>") {
    const std::string npy = d + "/all.npy";
    REQUIRE(runCli({"render", "--model", kTinyGpt2, "--text", "the cat<|endoftext|>sat", "--out", npy}).code == 0);
    const std::vector<int> shape = npyShape(npy);
    REQUIRE(shape.size() == 4);
    CHECK(shape[0] == 2);
    CHECK(shape[1] == 4);
    const std::string hidden = d + "/hidden.npy";
    REQUIRE(runCli({"render", "--model", kTinyGpt2, "--text", "the cat<|endoftext|>sat", "--hide-special",
                    "--layer", "0", "--head", "1", "--out", hidden}).code == 0);
    CHECK(npyShape(hidden) == std::vector<int>{shape[2] - 1, shape[3] - 1});
  }
  SECTION("CSV has a layer column and one line per (layer, head, query, key)") {
    const std::string csv = d + "/all.csv";
    REQUIRE(runCli({"render", "--model", kTinyGpt2, "--text", "a b", "--out", csv}).code == 0);
    const QList<QByteArray> lines = readFile(csv).trimmed().split('\n');
    CHECK(lines.front() ==
          "layer,head,query,query_token,key,key_token,score,weight,masked,query_label,key_label");
    CHECK(lines.size() == 1 + 2 * 4 * 2 * 2);  // 2 layers × 4 heads × ("a", "␣b")²
  }
  SECTION("bad combinations exit 2 with one line") {
    requireUsageError({"compute", "--model", kTinyGpt2, "--heads", "4"}, "--heads does not apply with --model");
    requireUsageError({"compute", "--model", kTinyGpt2, "--source", "x"}, "--pair");
    requireUsageError({"compute", "--model", kTinyGpt2, "--layer", "2"},
                      "--layer 2 does not exist: tiny-gpt2 has layers 0–1 (or use all)");
    requireUsageError({"compute", "--model", kTinyGpt2, "--layer", "-1"},
                      "--layer -1 does not exist: tiny-gpt2 has layers 0–1 (or use all)");
    requireUsageError({"compute", "--model", kTinyGpt2, "--pair", "b"}, "sentence pairs need a BERT-family model");
    requireUsageError({"compute", "--model", kTinyGpt2, "--mechanism", "additive"}, "dot-product attention");
    requireUsageError({"compute", "--model", d + "/none"}, "model folder " + d + "/none does not exist");
    requireUsageError({"compute", "--model", d + "/none.gguf"}, "GGUF file " + d + "/none.gguf does not exist");
    // GPT-2's byte-level BPE reads white space as tokens; only "" is no text for it.
    requireUsageError({"compute", "--model", kTinyGpt2, "--text", ""}, "the text is empty");
    requireUsageError({"render", "--model", kTinyGpt2, "--head", "0", "--out", d + "/h.npy"},
                      "--head N needs one layer");
  }
}

TEST_CASE("model all-MiniLM-L6-v2: render --layer all shows 72 heads", "[cli][model][minilm]") {
  const char* env = std::getenv("ATTNLAB_MINILM_DIR");
  if (env == nullptr || !QFile::exists(QString::fromUtf8(env) + "/model.safetensors")) {
    attnlab::test::skipTest("all-MiniLM-L6-v2 not found (scripts/test sets ATTNLAB_MINILM_DIR)");
    return;
  }
  QTemporaryDir dir;
  const std::string png = dir.path().toStdString() + "/model.png";
  const CliResult r = runCli({"render", "--model", env, "--layer", "all", "--text", kCat, "--out", png});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const QImage image(QString::fromStdString(png));
  CHECK(image.width() > 1000);
  const std::string npy = dir.path().toStdString() + "/model.npy";
  REQUIRE(runCli({"render", "--model", env, "--text", kCat, "--out", npy}).code == 0);
  CHECK(npyShape(npy) == std::vector<int>{6, 12, 13, 13});  // [CLS] + 11 words + . + [SEP] = 13
  const CliResult pair = runCli({"compute", "--model", env, "--text", "a cat", "--pair", "it sat", "--layer", "0"});
  REQUIRE(pair.code == 0);
  const auto j = nlohmann::json::parse(pair.out);
  CHECK(j["tokens"] == nlohmann::json({"[CLS]", "a", "cat", "[SEP]", "it", "sat", "[SEP]"}));
  CHECK(j["token_type_ids"] == nlohmann::json({0, 0, 0, 0, 1, 1, 1}));
}

}  // namespace attnlab_test_cli
