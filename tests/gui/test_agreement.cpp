/// \file test_agreement.cpp
/// Issue 48: one run library for every mode. The same settings go through the window (its
/// decoding dock, Generate box, cost panel and saturation panel), attention-lab-cli (decode,
/// generate, cost, saturation) and a lesson's live numbers, and all three give the same numbers —
/// and, for a setting a mode refuses, the same words.

#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis_panel.hpp"
#include "attnlab/cost.hpp"
#include "cli/cli.hpp"
#include "cost_panel.hpp"
#include "decode_panel.hpp"
#include "generate_box.hpp"
#include "lessons/lesson.hpp"
#include "lessons/quantities.hpp"
#include "main_window.hpp"
#include "options/options.hpp"
#include "run/run.hpp"
#include "window_test_support.hpp"

using attnlab::test::named;
namespace gui = attnlab::gui;
using attnlab::options::LabSettings;
using attnlab::options::Options;

namespace {

constexpr int kWaitMs = 30000;
const QString kCat = QStringLiteral("The cat sat on the mat because it was tired.");  // 11 tokens

QString tinyLlama() {
  return QDir::cleanPath(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/models/tiny-llama"));
}

std::vector<std::string> raw(const QStringList& args) {
  std::vector<std::string> out;
  for (const QString& a : args) out.push_back(a.toUtf8().toStdString());
  return out;
}

/// attention-lab-cli with args: its exit status and its stdout, or its one line on stderr.
struct Cli {
  int code = -1;
  std::string out, err;
};
Cli cli(const QStringList& args) {
  std::ostringstream out, err;
  Cli r;
  r.code = attnlab::cli::run(raw(args), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}
nlohmann::json cliJson(const QStringList& args) {
  const Cli r = cli(args);
  if (r.code != 0) qFatal("CLI %s: %s", qPrintable(args.join(' ')), r.err.c_str());
  return nlohmann::json::parse(r.out);
}

/// The window's settings for a command line's options (the window's parser: its rules).
Options windowOptions(const QStringList& args) {
  return attnlab::options::parse(raw(args), attnlab::options::kWindow);
}

/// A lesson's live numbers for these options, through a session of its own.
std::map<QString, QString> lessonNumbers(const QStringList& names, const Options& o) {
  attnlab::run::Session session;
  return attnlab::lessons::quantities(names, o, session);
}

QString bytes(double b) { return QString::fromStdString(attnlab::humanCount(b, "B")); }

}  // namespace

class Agreement : public QObject {
  Q_OBJECT
 private slots:
  void decodeGivesTheSameNumbersEverywhere() {
    const QStringList lab = {"--text", kCat, "--heads", "4", "--kv-heads", "2", "--causal"};
    // The CLI.
    const nlohmann::json j = cliJson(QStringList{"decode"} + lab +
                                     QStringList{"--cache-bug", "duplicate", "--bug-step", "4"});
    // The window's decoding dock.
    gui::MainWindow window(attnlab::test::testOptions());
    window.show();
    const Options o = windowOptions(lab);
    window.setSettings(o.lab);
    QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs));
    named<QDockWidget>(window, "decodeDock")->show();
    auto* panel = named<gui::DecodePanel>(window, "decodePanel");
    panel->setCacheBug(attnlab::CacheBug::kDuplicate, 4);
    QTRY_VERIFY_WITH_TIMEOUT(panel->decoded() != nullptr, kWaitMs);
    const attnlab::DecodeResult& d = *panel->decoded();
    QCOMPARE(d.first_diff_step, j["first_diff_step"].get<int>());
    QCOMPARE(d.max_weight_diff, j["max_weight_diff"].get<double>());
    QCOMPARE(d.max_output_diff, j["max_output_diff"].get<double>());
    QCOMPARE(static_cast<long long>(d.steps.back().cache_bytes),
             j["steps"].back()["cache_bytes"].get<long long>());
    QCOMPARE(static_cast<long long>(d.steps.back().mha_cache_bytes),
             j["steps"].back()["mha_cache_bytes"].get<long long>());
    // A lesson's numbers.
    Options with_bug = o;
    with_bug.decode.cache_bug = attnlab::CacheBug::kDuplicate;
    with_bug.decode.bug_step = 4;
    const auto numbers =
        lessonNumbers({"decode_weight_diff", "decode_output_diff", "decode_first_diff_step",
                       "decode_cache_bytes", "decode_mha_bytes"},
                      with_bug);
    QCOMPARE(numbers.at("decode_weight_diff"),
             attnlab::lessons::formatNumber(j["max_weight_diff"].get<double>()));
    QCOMPARE(numbers.at("decode_output_diff"),
             attnlab::lessons::formatNumber(j["max_output_diff"].get<double>()));
    QCOMPARE(numbers.at("decode_first_diff_step"), QStringLiteral("4"));
    QCOMPARE(numbers.at("decode_cache_bytes"),
             bytes(j["steps"].back()["cache_bytes"].get<double>()));
    QCOMPARE(numbers.at("decode_mha_bytes"),
             bytes(j["steps"].back()["mha_cache_bytes"].get<double>()));

    // Half precision: the CLI refuses it, the window's dock refuses it in the same words (it used
    // to decode fp32 and compare with an fp16 run), and the lesson has no number for it.
    const QStringList fp16 = lab + QStringList{"--precision", "fp16"};
    const Cli refused = cli(QStringList{"decode"} + fp16 + QStringList{"--cache-bug", "skip"});
    QCOMPARE(refused.code, 2);
    const QString words = QString::fromStdString(refused.err)
                              .trimmed()
                              .mid(QStringLiteral("attention-lab-cli: ").size());
    QCOMPARE(
        words,
        QStringLiteral(
            "decode computes the float32 stable softmax of inference: --precision does not apply"));
    window.setSettings(windowOptions(fp16).lab);
    QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs));
    panel->setCacheBug(attnlab::CacheBug::kSkip);
    QVERIFY(panel->errorLabel()->isVisible());
    QCOMPARE(panel->errorLabel()->text(), words);
    Options lesson_fp16 = windowOptions(fp16);
    lesson_fp16.decode.cache_bug = attnlab::CacheBug::kSkip;
    QCOMPARE(lessonNumbers({"decode_weight_diff"}, lesson_fp16).at("decode_weight_diff"),
             QStringLiteral("—"));
  }

  void generateGivesTheSameTokensEverywhere() {
    const QString prompt = QStringLiteral("the cat sat on");
    const nlohmann::json j =
        cliJson({"generate", "--model", tinyLlama(), "--text", prompt, "--max-tokens", "8"});
    // The window's Generate box.
    gui::MainWindow window(attnlab::test::testOptions());
    window.show();
    LabSettings s = window.settings();
    s.model_dir = tinyLlama();
    s.text = prompt;
    window.setSettings(s);
    QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs, 150));
    auto* box = named<gui::GenerateBox>(window, "generateBox");
    box->tokensBox()->setValue(8);
    QTest::mouseClick(named<QPushButton>(window, "generateButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!box->running(), kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(window.currentResult() && window.currentResult()->generated, kWaitMs);
    const attnlab::Generation& g = *window.currentResult()->generated;
    QCOMPARE(g.steps.size(), j["steps"].size());
    std::string text;
    for (std::size_t k = 0; k < g.steps.size(); ++k) {
      QCOMPARE(g.steps[k].token.id, j["steps"][k]["id"].get<int>());
      QCOMPARE(g.steps[k].token.probability, j["steps"][k]["probability"].get<double>());
      QCOMPARE(g.steps[k].cache_bytes, j["steps"][k]["cache_bytes"].get<long long>());
      text += g.steps[k].token.bytes;
    }
    const std::vector<int> generated(
        g.ids.begin() + static_cast<std::ptrdiff_t>(g.prompt.ids.size()), g.ids.end());
    QCOMPARE(generated, j["generated_ids"].get<std::vector<int>>());
    // The lesson's {generated_text}: the same eight tokens.
    const Options o = windowOptions({"--model", tinyLlama(), "--text", prompt});
    QCOMPARE(lessonNumbers({"generated_text"}, o).at("generated_text"),
             QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())));
  }

  void costCountsTheSameLayerEverywhere() {
    // The lab's K/V heads and d_v count (the window's panel used to ignore both), and a model's
    // shape read from its folder's config.json.
    const QStringList lab = {"--heads", "8", "--d-model", "512", "--kv-heads", "2", "--d-v", "32"};
    for (const QStringList& setting : {lab, QStringList{"--model", tinyLlama()}}) {
      QTemporaryDir dir;
      const QString json = dir.filePath(QStringLiteral("cost.json"));
      QCOMPARE(cli(QStringList{"cost"} + setting + QStringList{"--out", json}).code, 0);
      QFile file(json);
      QVERIFY(file.open(QIODevice::ReadOnly));
      const nlohmann::json j = nlohmann::json::parse(file.readAll().toStdString());
      // The window's cost panel.
      gui::MainWindow window(attnlab::test::testOptions());
      window.show();
      window.setSettings(windowOptions(setting + QStringList{"--text", kCat}).lab);
      QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs, 150));
      named<QDockWidget>(window, "costDock")->show();
      auto* panel = named<gui::CostPanel>(window, "costPanel");
      QTRY_VERIFY_WITH_TIMEOUT(panel->table().rows.size() == j["rows"].size(), kWaitMs);
      const attnlab::results::CostTable& t = panel->table();
      QCOMPARE(t.shape.resolvedKvHeads(), j["kv_heads"].get<int>());
      QCOMPARE(t.shape.resolvedDv(), j["d_v"].get<int>());
      QCOMPARE(t.shape.layers, j["layers"].get<int>());
      QCOMPARE(t.crossover, j["crossover_n"].get<double>());
      for (std::size_t i = 0; i < t.rows.size(); ++i) {
        QCOMPARE(t.n[i], j["rows"][i]["n"].get<int>());
        QCOMPARE(t.rows[i].score_matrix_bytes, j["rows"][i]["score_matrix_bytes"].get<double>());
        QCOMPARE(t.rows[i].kv_cache_bytes, j["rows"][i]["kv_cache_bytes"].get<double>());
        QCOMPARE(t.rows[i].attentionFlops(), j["rows"][i]["attention_flops"].get<double>());
      }
      // A lesson's numbers: the KV cache and P at 8192 tokens, the crossover.
      const auto numbers =
          lessonNumbers({"kv_bytes_long", "p_bytes_long", "crossover_n"}, windowOptions(setting));
      const nlohmann::json& last = j["rows"].back();
      QCOMPARE(last["n"].get<int>(), 8192);
      QCOMPARE(numbers.at("kv_bytes_long"), bytes(last["kv_cache_bytes"].get<double>()));
      QCOMPARE(numbers.at("p_bytes_long"), bytes(last["score_matrix_bytes"].get<double>()));
      QCOMPARE(numbers.at("crossover_n"),
               QString::number(std::lround(j["crossover_n"].get<double>())));
    }
  }

  void saturationDrawsTheSameCurvesEverywhere() {
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("saturation.csv"));
    QCOMPARE(cli({"saturation", "--text", kCat, "--out", csv}).code, 0);
    // source,scaling,n_k,d_k,score_variance,mean_max_weight,mean_norm_entropy,mean_jacobian_norm
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
    std::map<std::pair<QString, int>, double> cli_max_weight;
    for (const QByteArray& line : file.readAll().split('\n')) {
      const QList<QByteArray> f = line.split(',');
      if (f.size() < 8 || f[0] != "monte_carlo") continue;
      QCOMPARE(f[2].toInt(), 11);  // as many keys as the sentence
      cli_max_weight[{QString::fromLatin1(f[1]), f[3].toInt()}] = f[5].toDouble();
    }
    QCOMPARE(cli_max_weight.size(), std::size_t{22});  // d_k 1 … 1024, scaled and unscaled
    // The window's saturation panel, for the same sentence and seed.
    gui::MainWindow window(attnlab::test::testOptions());
    window.show();
    const Options o = windowOptions({"--text", kCat});
    window.setSettings(o.lab);
    QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs));
    auto* panel = named<gui::AnalysisPanel>(window, "analysisPanel");
    std::shared_ptr<const attnlab::SaturationAnalysis> curves;
    QTRY_VERIFY_WITH_TIMEOUT((curves = panel->curves(11, o.lab.seed)) != nullptr, kWaitMs);
    for (const auto* curve : {&curves->scaled, &curves->unscaled}) {
      const QString scaling =
          curve == &curves->scaled ? QStringLiteral("scaled") : QStringLiteral("unscaled");
      for (const attnlab::SaturationPoint& p : *curve) {
        const double want = cli_max_weight.at({scaling, p.d_k});
        QVERIFY2(
            std::abs(p.mean_max_weight - want) <= 1e-8 * std::max(1.0, want),  // the CSV's 9 digits
            qPrintable(QStringLiteral("%1 d_k %2").arg(scaling).arg(p.d_k)));
      }
    }
    // A lesson's numbers at the text's d_k (64 / 8 = 8), two decimals as its caption shows them.
    const auto numbers = lessonNumbers({"max_weight_scaled", "max_weight_unscaled"}, o);
    QCOMPARE(numbers.at("max_weight_scaled"),
             QString::number(cli_max_weight.at({QStringLiteral("scaled"), 8}), 'f', 2));
    QCOMPARE(numbers.at("max_weight_unscaled"),
             QString::number(cli_max_weight.at({QStringLiteral("unscaled"), 8}), 'f', 2));
  }
};

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  Agreement test;
  return QTest::qExec(&test, argc, argv);
}

#include "test_agreement.moc"
