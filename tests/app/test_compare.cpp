// Issue 15's views through attention-lab-cli in-process: the cost table against hand-computed
// numbers, difference maps (.npy = A − B of two separate runs), attention rollout against the
// layers' weights, sweeps (GIF decoded by giflib, PNG frames), and their refusals (exit 2).

#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli.hpp"
#include "options/options.hpp"
#include "options/variants.hpp"
#include "run/run.hpp"
#include "animation/animation.hpp"
#include "views/heatmap.hpp"
#include "views/run_maps.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_compare {

namespace {

struct Run {
  int code = -1;
  std::string out, err;
};

Run cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Run r;
  r.code = attnlab::cli::run(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

void requireOk(const std::vector<std::string>& args) {
  const Run r = cli(args);
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
}

// Exit 2 with exactly one line on stderr containing `needle`.
void requireUsage(const std::vector<std::string>& args, const std::string& needle) {
  const Run r = cli(args);
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 2);
  CHECK(r.err.find(needle) != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

/// A float32 NPY file: shape and data.
struct Npy {
  std::vector<int> shape;
  std::vector<float> data;
};

Npy readNpy(const std::string& path) {
  QFile f(QString::fromStdString(path));
  REQUIRE(f.open(QIODevice::ReadOnly));
  const QByteArray bytes = f.readAll();
  const int open = bytes.indexOf("'shape': (") + 10;
  const int close = bytes.indexOf(')', open);
  Npy npy;
  for (const QByteArray& part : bytes.mid(open, close - open).split(','))
    if (!part.trimmed().isEmpty()) npy.shape.push_back(part.trimmed().toInt());
  const int header =
      10 + (static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8));
  npy.data.resize(static_cast<std::size_t>(bytes.size() - header) / 4);
  std::memcpy(npy.data.data(), bytes.constData() + header, npy.data.size() * 4);
  return npy;
}

const std::string kCat = "The cat sat on the mat because it was tired.";
const std::string kTinyGpt2 = std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-gpt2";
const std::string kTinyLlama = std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-llama";

}  // namespace

TEST_CASE("cost: the JSON against numbers worked out by hand (d_model 512, 8 heads, 2 K/V heads)",
          "[cli][cost]") {
  QTemporaryDir dir;
  const std::string json = dir.path().toStdString() + "/cost.json";
  const Run r = cli({"cost", "--n", "128,1024,8192", "--d-model", "512", "--heads", "8",
                     "--kv-heads", "2", "--out", json});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("| 1024 |") != std::string::npos);
  QFile f(QString::fromStdString(json));
  REQUIRE(f.open(QIODevice::ReadOnly));
  const auto j = nlohmann::json::parse(f.readAll().toStdString());
  CHECK(j["d_k"] == 64);
  CHECK(j["kv_heads"] == 2);
  // 4·512² = 1 048 576 (seed); with 2 K/V heads 512·(512 + 2·128) + 512·512 = 655 360.
  CHECK(j["seed_parameters"].get<double>() == 1048576.0);
  CHECK(j["parameters"].get<double>() == 655360.0);
  CHECK(j["seed_crossover_n"] == 1024);
  CHECK(j["crossover_n"].get<double>() == Approx(640.0));  // 512·1280 / 1024
  const auto& row = j["rows"][0];
  CHECK(row["n"] == 128);
  // 2·128·512·(512 + 128 + 128) + 2·128·512·512 = 100 663 296 + 67 108 864.
  CHECK(row["projection_flops"].get<double>() == 167772160.0);
  // 4·8·128²·64 = 33 554 432 = 2 × the seed's 2·n²·d = 16 777 216 multiply–adds.
  CHECK(row["attention_flops"].get<double>() == 33554432.0);
  CHECK(row["seed_attention_macs"].get<double>() == 16777216.0);
  CHECK(row["seed_projection_macs"].get<double>() == 134217728.0);  // 4·128·512²
  // KV cache at 128 tokens: 128·G·128·4 = 65 536·G.
  CHECK(row["kv_cache_bytes"].get<double>() == 131072.0);
  CHECK(row["kv_cache_bytes_mha"].get<double>() == 524288.0);
  CHECK(row["kv_cache_bytes_mqa"].get<double>() == 65536.0);
  // P at 8192 tokens: 8·8192²·4 = 2 GiB.
  CHECK(j["rows"][2]["score_matrix_bytes"].get<double>() == 2147483648.0);
}

TEST_CASE("cost: a picture, a CSV, measured times, and the refusals", "[cli][cost]") {
  QTemporaryDir dir;
  const std::string d = dir.path().toStdString();
  requireOk(
      {"cost", "--n", "128,1024", "--d-model", "256", "--heads", "4", "--out", d + "/cost.png"});
  const QImage image(QString::fromStdString(d + "/cost.png"));
  CHECK(image.width() == 900);
  CHECK(image.height() == 820);
  requireOk({"cost", "--n", "16,32", "--d-model", "32", "--heads", "2", "--measure", "--backend",
             "cpu", "--out", d + "/m.csv"});
  QFile csv(QString::fromStdString(d + "/m.csv"));
  REQUIRE(csv.open(QIODevice::ReadOnly));
  const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].endsWith("cpu_reference_ms"));
  CHECK(lines[1].split(',').last().toDouble() > 0);  // measured, not timed against anything
  requireUsage({"cost", "--heads", "8", "--kv-heads", "3"},
               "--kv-heads (3) must divide --heads (8)");
  requireUsage({"cost", "--n", "0"}, "--n must be between 1 and 1048576 (got 0)");
  requireUsage({"cost", "--out", d + "/cost.txt"}, "unknown format '.txt'");
  requireUsage({"cost", "--model", kTinyGpt2, "--kv-heads", "2"},
               "--kv-heads does not apply with --model");
}

TEST_CASE("diff: the NPY equals A − B of two separate runs (scaled − unscaled, heads, causal, T)",
          "[cli][diff]") {
  QTemporaryDir dir;
  const std::string d = dir.path().toStdString();
  const std::vector<std::string> base = {"render",    "--text", kCat,        "--heads", "4",
                                         "--d-model", "64",     "--backend", "cpu"};
  auto with = [&base](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  auto checkDifference = [](const Npy& delta, const Npy& a, const Npy& b) {
    REQUIRE(delta.shape == a.shape);
    REQUIRE(delta.data.size() == a.data.size());
    double largest = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i) {
      CHECK(delta.data[i] == Approx(a.data[i] - b.data[i]).margin(1e-7));
      largest = std::max(largest, std::fabs(static_cast<double>(delta.data[i])));
    }
    return largest;
  };
  SECTION("scaled − unscaled at d_k = 64") {
    requireOk(with({"--d-k", "64", "--diff", "--no-scale", "--out", d + "/delta.npy"}));
    requireOk(with({"--d-k", "64", "--out", d + "/a.npy"}));
    requireOk(with({"--d-k", "64", "--no-scale", "--out", d + "/b.npy"}));
    const Npy delta = readNpy(d + "/delta.npy");
    CHECK(delta.shape == std::vector<int>{4, 11, 11});
    CHECK(checkDifference(delta, readNpy(d + "/a.npy"), readNpy(d + "/b.npy")) > 0.1);
    // The same backwards: unscaled − scaled is −Δ.
    requireOk(with(
        {"--d-k", "64", "--no-scale", "--diff", "--mechanism scaled", "--out", d + "/back.npy"}));
    const Npy back = readNpy(d + "/back.npy");
    for (std::size_t i = 0; i < back.data.size(); ++i)
      CHECK(back.data[i] == Approx(-delta.data[i]).margin(1e-7));
  }
  SECTION("head 0 − head 3 of one run") {
    requireOk(with({"--head", "0", "--diff", "--head 3", "--out", d + "/heads.npy"}));
    requireOk(with({"--out", d + "/all.npy"}));
    const Npy delta = readNpy(d + "/heads.npy"), all = readNpy(d + "/all.npy");
    CHECK(delta.shape == std::vector<int>{11, 11});
    for (int i = 0; i < 121; ++i)
      CHECK(delta.data[i] == Approx(all.data[i] - all.data[3 * 121 + i]).margin(1e-7));
  }
  SECTION("causal − not, and two temperatures") {
    requireOk(with({"--causal", "--diff", "--no-causal", "--out", d + "/causal.npy"}));
    requireOk(with({"--causal", "--out", d + "/a.npy"}));
    requireOk(with({"--out", d + "/b.npy"}));
    checkDifference(readNpy(d + "/causal.npy"), readNpy(d + "/a.npy"), readNpy(d + "/b.npy"));
    requireOk(with({"--temperature", "0.5", "--diff", "--temperature 2", "--out", d + "/t.npy"}));
    requireOk(with({"--temperature", "0.5", "--out", d + "/ta.npy"}));
    requireOk(with({"--temperature", "2", "--out", d + "/tb.npy"}));
    checkDifference(readNpy(d + "/t.npy"), readNpy(d + "/ta.npy"), readNpy(d + "/tb.npy"));
  }
  SECTION("pictures and CSV with both settings and the difference") {
    requireOk(with({"--d-k", "64", "--diff", "--no-scale", "--out", d + "/delta.png"}));
    CHECK(QImage(QString::fromStdString(d + "/delta.png")).width() > 500);
    requireOk(with({"--head", "1", "--diff", "--no-scale", "--out", d + "/delta.csv"}));
    QFile f(QString::fromStdString(d + "/delta.csv"));
    REQUIRE(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    CHECK(lines[0] ==
          "head_a,head_b,query,query_token,key,key_token,weight_a,weight_b,difference,masked");
    CHECK(lines.size() == 1 + 121);
    const QList<QByteArray> cells = lines[5].split(',');
    CHECK(cells[0] == "1");
    CHECK(cells[8].toDouble() == Approx(cells[6].toDouble() - cells[7].toDouble()).margin(1e-6));
  }
}

TEST_CASE("diff: two layers of a model, every layer, two models of the same tokenizer",
          "[cli][diff][model]") {
  QTemporaryDir dir;
  const std::string d = dir.path().toStdString();
  requireOk({"render", "--model", kTinyGpt2, "--text", "the cat sat", "--layer", "0", "--diff",
             "--layer 1", "--out", d + "/layers.npy"});
  requireOk({"render", "--model", kTinyGpt2, "--text", "the cat sat", "--out", d + "/all.npy"});
  const Npy layers = readNpy(d + "/layers.npy"), all = readNpy(d + "/all.npy");
  REQUIRE(all.shape.size() == 4);
  const std::size_t per_layer = all.data.size() / 2;
  CHECK(layers.shape == std::vector<int>{all.shape[1], all.shape[2], all.shape[3]});
  for (std::size_t i = 0; i < per_layer; ++i)
    CHECK(layers.data[i] == Approx(all.data[i] - all.data[per_layer + i]).margin(1e-7));
  requireOk({"render", "--model", kTinyGpt2, "--text", "the cat sat", "--diff", "--no-scale",
             "--out", d + "/grid.npy"});
  CHECK(readNpy(d + "/grid.npy").shape == all.shape);
  requireOk({"render", "--model", kTinyGpt2, "--text", "the cat sat", "--diff", "--no-scale",
             "--out", d + "/grid.png"});
  // The tiny Llama's folder and its GGUF file hold the same weights and tokenizer.
  requireOk({"render", "--model", kTinyLlama, "--text", "hello world", "--layer", "1", "--diff",
             "--model " + kTinyLlama + "/tiny-llama.gguf", "--out", d + "/models.npy"});
  for (float x : readNpy(d + "/models.npy").data) CHECK(std::fabs(x) < 1e-5f);
  // Digits: GPT-2's BPE keeps "␣1", the Llama's pre-tokenizer splits every digit (11 against 13).
  requireUsage({"render", "--model", kTinyGpt2, "--text", "the cat sat 12345 😀", "--layer", "0",
                "--diff", "--model " + kTinyLlama, "--out", d + "/x.npy"},
               "different tokens");
}

TEST_CASE("diff: refusals name the problem", "[cli][diff]") {
  QTemporaryDir dir;
  const std::string out = dir.path().toStdString() + "/x.png";
  requireUsage({"render", "--diff", "--text other", "--out", out}, "--diff cannot change --text");
  requireUsage({"render", "--diff", "", "--out", out}, "--diff needs the second setting's options");
  requireUsage({"render", "--diff", "--head 9", "--out", out},
               "--head must be between 0 and 7 (got 9)");
  requireUsage({"render", "--diff", "--out y.png", "--out", out}, "--diff cannot set --out");
  requireUsage({"render", "--diff", "--bogus", "--out", out}, "--diff: unknown option '--bogus'");
  requireUsage({"render", "--diff", "--head 3", "--out", out}, "A shows 8 heads and B 1");
  requireUsage({"render", "--diff", "--no-scale", "--plot", "entropy", "--out", out},
               "--diff draws a heatmap");
}

TEST_CASE("rollout: the picture's matrix is the layers' rollout, rows sum to 1, causal",
          "[cli][rollout]") {
  QTemporaryDir dir;
  const std::string d = dir.path().toStdString();
  requireOk({"render", "--model", kTinyGpt2, "--text", "the cat sat on", "--rollout", "--out",
             d + "/r.npy"});
  requireOk({"render", "--model", kTinyGpt2, "--text", "the cat sat on", "--out", d + "/all.npy"});
  const Npy r = readNpy(d + "/r.npy"), all = readNpy(d + "/all.npy");
  const int layers = all.shape[0], h = all.shape[1], n = all.shape[2];
  REQUIRE(r.shape == std::vector<int>{n, n});
  // Abnar & Zuidema 2020 from the NPY of every layer: ½·mean over heads + ½·I, rows renormalised,
  // multiplied layer after layer.
  std::vector<double> rollout;
  for (int l = 0; l < layers; ++l) {
    std::vector<double> a(static_cast<std::size_t>(n) * n, 0.0);
    for (int k = 0; k < h; ++k)
      for (int i = 0; i < n * n; ++i)
        a[i] += 0.5 / h * all.data[((static_cast<std::size_t>(l) * h + k) * n * n) + i];
    for (int i = 0; i < n; ++i) {
      a[i * n + i] += 0.5;
      double sum = 0;
      for (int j = 0; j < n; ++j) sum += a[i * n + j];
      for (int j = 0; j < n; ++j) a[i * n + j] /= sum;
    }
    if (l == 0) {
      rollout = a;
      continue;
    }
    std::vector<double> next(static_cast<std::size_t>(n) * n, 0.0);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j) next[i * n + j] += a[i * n + k] * rollout[k * n + j];
    rollout = next;
  }
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (int j = 0; j < n; ++j) {
      CHECK(r.data[i * n + j] == Approx(rollout[i * n + j]).margin(1e-6));
      if (j > i) CHECK(r.data[i * n + j] == 0.0f);
      sum += r.data[i * n + j];
    }
    CHECK(sum == Approx(1.0).margin(1e-5));
  }
  requireOk({"render", "--model", kTinyGpt2, "--text", "the cat sat on", "--rollout", "--out",
             d + "/r.png"});
  const Run json =
      cli({"compute", "--model", kTinyGpt2, "--text", "the cat", "--rollout", "--layer", "0"});
  REQUIRE(json.code == 0);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["rollout"]["last_layer"] == 0);
  CHECK(j["rollout"]["matrix"].size() == j["rollout"]["tokens"].size());
  requireUsage({"render", "--rollout", "--out", d + "/x.png"},
               "--rollout applies to a pretrained model");
  requireUsage({"render", "--model", kTinyGpt2, "--rollout", "--layer", "0", "--head", "1", "--out",
                d + "/x.png"},
               "--rollout averages the heads");
}

TEST_CASE("sweep: a GIF of d_k with one decodable frame per value, PNG frames, refusals",
          "[cli][sweep]") {
  QTemporaryDir dir;
  const std::string d = dir.path().toStdString();
  const std::vector<std::string> base = {"sweep",   "--param",  "d_k",       "--text", "a cat sat",
                                         "--heads", "2",        "--d-model", "16",     "--width",
                                         "360",     "--height", "300"};
  auto with = [&base](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  requireOk(with({"--values", "1,2,4,...,64", "--delay", "250", "--out", d + "/dk.gif"}));
  const attnlab::animation::GifContents gif =
      attnlab::animation::readGif(QString::fromStdString(d + "/dk.gif"));
  CHECK(gif.size == QSize(360, 300));
  REQUIRE(gif.frames.size() == 7);  // 1, 2, 4, 8, 16, 32, 64
  CHECK(gif.loops);
  for (std::size_t f = 0; f < gif.frames.size(); ++f) {
    CHECK(gif.delays_ms[f] == 250);
    // Each frame decodes to a picture: white margins, dark text, coloured cells.
    const QImage& image = gif.frames[f];
    CHECK(image.pixelColor(2, 2) == QColor(Qt::white));
    int coloured = 0;
    for (int y = 0; y < image.height(); y += 4)
      for (int x = 0; x < image.width(); x += 4)
        if (image.pixelColor(x, y).saturation() > 100) ++coloured;
    CHECK(coloured > 200);
  }
  CHECK(gif.frames.front() != gif.frames.back());
  requireOk(with({"--values", "1,8", "--out", d + "/frames/"}));
  CHECK(QDir(QString::fromStdString(d + "/frames")).entryList(QDir::Files) ==
        QStringList{"frame_000.png", "frame_001.png"});
  requireOk({"sweep", "--param", "layer", "--model", kTinyGpt2, "--text", "the cat", "--out",
             d + "/layers/"});
  CHECK(QDir(QString::fromStdString(d + "/layers")).entryList(QDir::Files).size() == 2);
  if (attnlab::animation::ffmpegProgram().isEmpty()) {
    WARN("ffmpeg not installed: the .mp4 output is skipped; checking its refusal instead");
    requireUsage(with({"--values", "1,2", "--out", d + "/s.mp4"}),
                 "an MP4 needs ffmpeg, which is not installed");
  } else {
    requireOk(with({"--values", "1,2", "--out", d + "/s.mp4"}));
    CHECK(QFile(QString::fromStdString(d + "/s.mp4")).size() > 0);
  }
  requireUsage(with({"--values", "8", "--out", d + "/x.gif"}),
               "a sweep needs at least two values (got 1)");
  requireUsage(with({"--values", "8,2048", "--out", d + "/x.gif"}),
               "--d-k must be between 1 and 1024 (got 2048)");
  requireUsage({"sweep", "--param", "bogus", "--out", d + "/x.gif"},
               "--param bogus: no such option");
  requireUsage({"sweep", "--param", "window", "--out", d + "/x.gif"},
               "--param window needs --values LIST");
  requireUsage({"sweep", "--param", "text", "--out", d + "/x.gif"}, "--param text cannot be swept");
  requireUsage({"sweep", "--param", "seed", "--out", d + "/x.gif"},
               "--param seed needs --values LIST");
  requireUsage({"sweep", "--values", "1,2", "--out", d + "/x.gif"}, "--param NAME is required");
  requireUsage(with({"--out", d + "/x.png"}), "unknown format '.png'");
  requireUsage({"sweep", "--param", "layer", "--values", "0,1", "--out", d + "/x.gif"},
               "--layer applies to a pretrained model; add --model DIR");
}

TEST_CASE("variants: OPTIONS split like a shell, '...' continues a pattern, B = A with OPTIONS",
          "[options]") {
  using namespace attnlab::options;
  CHECK(splitOptions("--head 3 --text 'a b'") == QStringList{"--head", "3", "--text", "a b"});
  const OptionSpec& dk = sweptOption("d_k");
  CHECK(dk.name == "d-k");
  CHECK(expandValues({"1", "2", "4", "...", "64"}, dk) ==
        QStringList{"1", "2", "4", "8", "16", "32", "64"});
  CHECK(expandValues({"1", "2", "...", "5"}, dk) == QStringList{"1", "2", "3", "4", "5"});
  const OptionSpec& t = sweptOption("temperature");
  CHECK(expandValues({"0.5", "1", "...", "2.5"}, t) == QStringList{"0.5", "1", "1.5", "2", "2.5"});
  CHECK(defaultSweepValues(dk, 0).size() == 11);
  CHECK_THROWS_AS(expandValues({"1", "...", "5"}, dk), OptionError);
  const Options a = parse({"render", "--causal", "--no-scale", "--head", "2", "--diff",
                           "--no-causal --mechanism scaled", "--out", "/tmp/x.png"},
                          0);
  const Options b = secondSetting(a);
  CHECK_FALSE(b.lab.causal());
  CHECK(b.lab.spec.mechanism == attnlab::Mechanism::kScaled);
  CHECK(b.head == 2);
  CHECK(b.diff.isEmpty());
}

TEST_CASE("sweep frames say their parameter once, first", "[sweep]") {
  namespace views = attnlab::views;
  attnlab::run::Session session;
  const auto titleOf = [&](const std::string& param, const QString& value,
                           attnlab::options::LabSettings lab) {
    const views::RunMaps maps = views::mapsOf(session.run(lab), std::nullopt);
    QCustomPlot plot;
    plot.setViewport(QRect(0, 0, 900, 700));
    views::setCanvasSize(plot, QSize(900, 700));
    const QString lead = views::sweepLead(attnlab::options::option(param), value, maps.label.spec);
    views::drawMaps(plot, maps, {}, {lead, QStringLiteral("1/2")});
    for (const QJsonValue& v : views::layoutJson(plot)["texts"].toArray())
      if (v.toObject()["role"].toString() == QLatin1String("title"))
        return v.toObject()["text"].toString().replace(QLatin1Char('\n'), QStringLiteral(" · "));
    return QString();
  };
  attnlab::options::LabSettings lab;
  lab.spec.temperature = 0.1;
  const QString t = titleOf("temperature", QStringLiteral("0.10"), lab);
  INFO(t.toStdString());
  CHECK(t.startsWith(QStringLiteral("T = 0.1 · 1/2 · ")));
  CHECK(t.count(QStringLiteral("T = 0.1")) == 1);
  CHECK(t.contains(QStringLiteral("dot-product")));
  lab = {};
  lab.spec.d_k = 64;
  const QString d = titleOf("d-k", QStringLiteral("64"), lab);
  INFO(d.toStdString());
  CHECK(d.startsWith(QStringLiteral("d_k = 64 · 1/2 · ")));
  CHECK(d.count(QStringLiteral("d_k = 64")) == 1);
  lab = {};
  lab.spec.heads = 4;
  const QString h = titleOf("heads", QStringLiteral("4"), lab);
  INFO(h.toStdString());
  CHECK(h.count(QStringLiteral("4 heads")) == 1);
  CHECK(!h.contains(QStringLiteral("heads = 4")));
}

}  // namespace attnlab_test_compare
