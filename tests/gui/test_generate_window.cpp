/// \file test_generate_window.cpp
/// The window's Generate control (issue 24, item 2) on the tiny Llama, driven in-process on the
/// offscreen platform: Generate reads Stop while it runs, 4 tokens come out as the engine's
/// generate() gives them (the CLI's generate), the rows on screen equal one full forward pass over
/// the tokens read within 1e-5, the decoding dock steps through the real cache (length and bytes),
/// and a prompt beyond the context is refused inline in the engine's words. The sampling and cache
/// choices take the CLI's limits, refuse in the CLI's words and generate the CLI's tokens; the
/// head role chosen is kept for the next start and brings the Analysis dock to the front. With
/// the fetched models (the CTest entries gui_generate_real_minilm and gui_generate_real_smollm2):
/// BERT is refused inline, and SmolLM2's model view scrolls to the chosen role's top head.

#include <qcustomplot.h>

#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QTabBar>
#include <QTemporaryDir>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QtTest>
#include <cmath>

#include "attnlab/backend.hpp"
#include "attnlab/generate.hpp"
#include "decode_panel.hpp"
#include "fetched_models.hpp"
#include "generate_box.hpp"
#include "main_window.hpp"
#include "model_source.hpp"
#include "options/generate_choices.hpp"
#include "views/heatmap.hpp"
#include "views/heatmap_paint.hpp"
#include "window_test_support.hpp"

using attnlab::test::named;
namespace gui = attnlab::gui;
using attnlab::options::LabSettings;

namespace {

constexpr int kWaitMs = 20000;

QString data(const char* path) {
  return QDir::cleanPath(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/") + QLatin1String(path));
}

/// The CLI's one line for `generate` with these arguments (empty when it accepts them).
QString cliRefusal(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"generate"};
  all.insert(all.end(), args.begin(), args.end());
  try {
    attnlab::options::parse(all, 0);
  } catch (const attnlab::options::OptionError& e) {
    return e.message().translated();
  }
  return {};
}

/// Shows the model at `dir` with `text` and waits for its picture.
bool showModel(gui::MainWindow& window, const QString& dir, const QString& text) {
  LabSettings lab = window.settings();
  lab.model_dir = dir;
  lab.text = text;
  lab.hide_special = false;
  window.setSettings(lab);
  return attnlab::test::waitFor(window, window.settings(), kWaitMs, 150);
}

/// True when dock is shown and, where it shares a tab bar with other docks, its tab is the current.
bool inFront(const QMainWindow& window, const QDockWidget* dock) {
  if (!dock->isVisible()) return false;
  for (const QTabBar* bar : window.findChildren<QTabBar*>()) {
    for (int i = 0; i < bar->count(); ++i)
      if (bar->tabText(i) == dock->windowTitle()) return bar->currentIndex() == i;
  }
  return true;
}

/// The real-model checks run as CTest entries of their own (gui_generate_real_minilm,
/// gui_generate_real_smollm2), each of which counts its missing model as skipped.
bool realModelsWanted() { return qEnvironmentVariableIsSet("ATTNLAB_GUI_REAL_MODELS"); }

}  // namespace

class GenerateWindowTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionLabGenerateTest"));
    QVERIFY(settings_dir_.isValid());  // QSettings in a folder of our own
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings_dir_.path());
  }

  void choicesTakeTheCliLimitsRulesAndTokens() {
    gui::MainWindow window(attnlab::test::testOptions());
    window.resize(1280, 800);
    window.show();
    const QString dir = data("models/tiny-llama");
    QVERIFY(showModel(window, dir, QStringLiteral("the cat sat on")));
    auto* box = named<gui::GenerateBox>(window, "generateBox");
    const auto& table = [](const char* name) { return attnlab::options::option(name, attnlab::options::kGenerate); };
    QCOMPARE(box->temperatureBox()->maximum(), static_cast<double>(table("sample-temperature").max));
    QCOMPARE(box->seedBox()->maximum(), static_cast<double>(table("seed").max));
    QCOMPARE(box->topKBox()->maximum(), static_cast<int>(table("top-k").max));
    QCOMPARE(box->cacheWindowBox()->maximum(), static_cast<int>(table("cache-window").max));
    QCOMPARE(box->sinksBox()->maximum(), static_cast<int>(table("sink-tokens").max));
    auto* button = named<QPushButton>(window, "generateButton");
    auto* message = named<QLabel>(window, "generateMessage");
    const std::string model = dir.toStdString();
    // Refused before anything runs, in the CLI's words.
    const auto refused = [&](const std::vector<std::string>& args) {
      QTest::mouseClick(button, Qt::LeftButton);
      QVERIFY(!box->running());
      std::vector<std::string> cli = {"--model", model, "--text", "the cat sat on"};
      cli.insert(cli.end(), args.begin(), args.end());
      const QString words = cliRefusal(cli);
      QVERIFY(!words.isEmpty());
      QCOMPARE(message->text(), words);
    };
    box->topKBox()->setValue(5);
    refused({"--top-k", "5"});
    box->topKBox()->setValue(0);
    box->seedBox()->setValue(3);
    refused({"--seed", "3"});
    box->seedBox()->setValue(0);
    box->sinksBox()->setValue(2);
    refused({"--sink-tokens", "2"});

    // Sampled, with a cache window and sinks: the tokens the CLI's options give the engine.
    box->temperatureBox()->setValue(0.8);
    box->seedBox()->setValue(3);
    box->topKBox()->setValue(5);
    box->cacheWindowBox()->setValue(4);
    box->sinksBox()->setValue(1);
    box->tokensBox()->setValue(5);
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(box->running());
    QTRY_VERIFY_WITH_TIMEOUT(!box->running(), kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(window.currentResult()->generated && window.currentResult()->generated->steps.size() == 5,
                             kWaitMs);
    const std::vector<std::string> cli = {"generate", "--model", model, "--text", "the cat sat on",
                                          "--max-tokens", "5", "--sample-temperature", "0.8", "--seed", "3",
                                          "--top-k", "5", "--cache-window", "4", "--sink-tokens", "1"};
    const attnlab::options::Options o = attnlab::options::parse(cli, 0);
    const auto engine_model = attnlab::PretrainedModel::load(model);
    const attnlab::Generation g = attnlab::generate(
        *engine_model, engine_model->encode("the cat sat on", std::nullopt), attnlab::options::generateOptions(o.generate, o.lab));
    QCOMPARE(window.currentResult()->generated->ids, g.ids);
    QCOMPARE(window.currentResult()->generated->steps.back().cache_length, g.steps.back().cache_length);
    QCOMPARE(g.steps.back().cache_length, 5);  // the window's last 4 and the sink
  }

  void headRoleIsKeptAndRaisesTheAnalysis() {
    QSettings().clear();
    gui::WindowOptions options = attnlab::test::testOptions();
    options.persist = true;
    {
      gui::MainWindow window(options);
      window.resize(1280, 720);
      window.show();
      QVERIFY(showModel(window, data("models/tiny-llama"), QStringLiteral("the cat sat on the mat")));
      // The narrow arrangement (1280 × 720): the Analysis dock behind the Inputs' tab.
      auto* inputs = named<QDockWidget>(window, "inputsDock");
      auto* analysis = named<QDockWidget>(window, "analysisDock");
      window.tabifyDockWidget(inputs, analysis);
      inputs->raise();
      QTRY_VERIFY(!inFront(window, analysis));
      QComboBox* role = named<gui::ModelSource>(window, "modelSourceBox")->headRoleCombo();
      role->setCurrentIndex(role->findData(static_cast<int>(attnlab::HeadRole::kPreviousToken)));
      QTRY_VERIFY_WITH_TIMEOUT(window.currentResult() && window.currentResult()->head_roles, kWaitMs);
      QTRY_VERIFY(inFront(window, analysis));  // the top heads' list in front
      window.close();
    }
    QCOMPARE(QSettings().value(QStringLiteral("ui/head_role")).toString(), QStringLiteral("previous-token"));
    options.restore_settings = true;
    gui::MainWindow again(options);
    again.show();
    QCOMPARE(named<gui::ModelSource>(again, "modelSourceBox")->headRole(), attnlab::HeadRole::kPreviousToken);
    QVERIFY(again.settings().head_roles);
    QSettings().clear();
  }

  void bertIsRefusedInline() {
    if (!realModelsWanted()) QSKIP("runs as a CTest entry of its own (gui_generate_real_*)");
    const auto dir = attnlab::test::miniLmDir();
    if (!dir) {
      std::printf("ATTNLAB_TEST_SKIPPED: all-MiniLM-L6-v2 not found (run scripts/fetch-model)\n");
      QSKIP("all-MiniLM-L6-v2 not found");
    }
    gui::MainWindow window(attnlab::test::testOptions());
    window.show();
    QVERIFY(showModel(window, QString::fromStdString(dir->string()), QStringLiteral("the cat sat on the mat")));
    const gui::ResultPtr shown = window.currentResult();
    auto* box = named<gui::GenerateBox>(window, "generateBox");
    QVERIFY(box->isEnabled());
    QTest::mouseClick(named<QPushButton>(window, "generateButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!box->running(), kWaitMs);
    // The engine's words, as the CLI prints them; the picture stays.
    const auto model = attnlab::PretrainedModel::load(dir->string());
    QString engine;
    try {
      attnlab::generate(*model, model->encode("the cat sat on the mat", std::nullopt), attnlab::GenerateOptions{});
    } catch (const std::exception& e) {
      engine = QString::fromStdString(e.what());
    }
    QVERIFY(!engine.isEmpty());
    QCOMPARE(named<QLabel>(window, "generateMessage")->text(), engine);
    QCOMPARE(window.currentResult(), shown);
  }

  void smolLm2RoleScrollsToItsTopHead() {
    if (!realModelsWanted()) QSKIP("runs as a CTest entry of its own (gui_generate_real_*)");
    const QString file = QDir::home().filePath(QStringLiteral(".cache/attention-lab/models/SmolLM2-135M-Instruct.Q4_1.gguf"));
    const QString env = qEnvironmentVariable("ATTNLAB_SMOLLM2_GGUF");
    const QString model = !env.isEmpty() ? env : file;
    if (!QFileInfo::exists(model)) {
      std::printf("ATTNLAB_TEST_SKIPPED: SmolLM2-135M-Instruct not found (run scripts/fetch-model smollm2)\n");
      QSKIP("SmolLM2 not found");
    }
    gui::MainWindow window(attnlab::test::testOptions());
    window.resize(1280, 720);
    window.show();
    QVERIFY(showModel(window, model, QStringLiteral("the cat sat on the mat")));
    auto* scroll = named<QScrollArea>(window, "gridScroll");
    QComboBox* role = named<gui::ModelSource>(window, "modelSourceBox")->headRoleCombo();
    // 30 layers scroll down, 9 heads fit across (72 px thumbnails at 1280 × 720, 42 at 1024 × 768).
    for (const QSize size : {QSize(1280, 720), QSize(1024, 768)}) {
      window.resize(size);
      role->setCurrentIndex(role->findData(-1));
      QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs, 150));
      QVERIFY(scroll->verticalScrollBar()->maximum() > 0);  // 30 layers do not fit: they scroll
      scroll->verticalScrollBar()->setValue(0);
      role->setCurrentIndex(role->findData(static_cast<int>(attnlab::HeadRole::kInduction)));
      QTRY_VERIFY_WITH_TIMEOUT(window.currentResult() && window.currentResult()->head_roles, 60000);
      QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs, 150));
      const attnlab::HeadScore best = window.currentResult()->head_roles->top(attnlab::HeadRole::kInduction, 1).front();
      const auto* decor = attnlab::views::decorOf(*named<QCustomPlot>(window, "gridPlot"));
      QVERIFY(decor);
      const int heads = window.currentResult()->attention(0).heads();
      const QRectF cells = decor->layout().maps.at(static_cast<std::size_t>(best.layer * heads + best.head)).cells;
      const QRect view(scroll->horizontalScrollBar()->value(), scroll->verticalScrollBar()->value(),
                       scroll->viewport()->width(), scroll->viewport()->height());
      QVERIFY2(view.contains(cells.toAlignedRect()),
               qPrintable(QStringLiteral("%1×%2: layer %3 head %4 at x %5–%6, y %7–%8; view x %9–%10, y %11–%12")
                              .arg(size.width()).arg(size.height()).arg(best.layer).arg(best.head)
                              .arg(cells.left()).arg(cells.right()).arg(cells.top()).arg(cells.bottom())
                              .arg(view.left()).arg(view.right()).arg(view.top()).arg(view.bottom())));
    }
  }
  void generatesStepByStepLikeTheEngine() {
    gui::MainWindow window(attnlab::test::testOptions());
    window.resize(1280, 800);
    window.show();
    LabSettings lab = window.settings();
    lab.model_dir = data("models/tiny-llama");
    lab.text = QStringLiteral("the cat sat on");
    lab.hide_special = false;
    window.setSettings(lab);
    QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs, 150));

    auto* box = named<gui::GenerateBox>(window, "generateBox");
    QVERIFY(box->isEnabled());
    named<QSpinBox>(window, "generateTokens")->setValue(4);
    auto* button = named<QPushButton>(window, "generateButton");
    QCOMPARE(button->text(), QStringLiteral("Generate"));
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(box->running());
    QCOMPARE(button->text(), QStringLiteral("Stop"));
    QTRY_VERIFY_WITH_TIMEOUT(!box->running(), kWaitMs);
    QCOMPARE(button->text(), QStringLiteral("Generate"));
    QTRY_VERIFY_WITH_TIMEOUT(window.currentResult()->generated &&
                                 window.currentResult()->generated->steps.size() == 4,
                             kWaitMs);
    const gui::ResultPtr shown = window.currentResult();

    // The engine's generate() on the same prompt (what the CLI's generate prints).
    const auto model = attnlab::PretrainedModel::load(lab.model_dir.toStdString());
    const attnlab::Encoding prompt = model->encode("the cat sat on", std::nullopt);
    attnlab::GenerateOptions go;
    go.max_tokens = 4;
    const attnlab::Generation g = attnlab::generate(*model, prompt, go);
    QCOMPARE(shown->generated->ids, g.ids);
    QCOMPARE(shown->generated->steps.size(), g.steps.size());

    // The rows on screen (prompt block + 3 generated rows) against one full pass over them.
    const int n = static_cast<int>(prompt.ids.size()) + 3;
    QCOMPARE(shown->attention(0).nQ(), n);
    attnlab::Encoding all;
    all.ids.assign(g.ids.begin(), g.ids.begin() + n);
    const auto backend = attnlab::makeCpuBackend();
    const attnlab::ModelRun full = model->runIds(all, attnlab::ModelRunOptions{}, *backend);
    QCOMPARE(shown->entries(), static_cast<int>(full.attention.size()));
    double worst = 0;
    for (int l = 0; l < shown->entries(); ++l) {
      const attnlab::Tensor3& a = shown->attention(l).weights;
      const attnlab::Tensor3& b = full.attention[static_cast<std::size_t>(l)].weights;
      for (int h = 0; h < a.h; ++h)
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j) worst = std::max(worst, std::fabs(double(a(h, i, j)) - b(h, i, j)));
    }
    QVERIFY2(worst <= 1e-5, qPrintable(QStringLiteral("max |Δ| %1").arg(worst)));

    // The decoding dock steps from the prompt block to the last row, with the real cache.
    named<QDockWidget>(window, "decodeDock")->show();
    auto* panel = named<gui::DecodePanel>(window, "decodePanel");
    QCOMPARE(panel->slider()->minimum(), static_cast<int>(prompt.ids.size()) - 1);
    QCOMPARE(panel->slider()->maximum(), n - 1);
    panel->slider()->setValue(panel->slider()->minimum());
    QCOMPARE(panel->revealedRows(), static_cast<int>(prompt.ids.size()));
    const attnlab::ModelConfig& c = model->config();
    QCOMPARE(static_cast<int>(panel->cacheView()->entryTokens().size()),
             g.steps[0].cache_length);
    panel->slider()->setValue(n - 1);
    QVERIFY2(panel->cacheLabel()->text().contains(QString::number(g.steps[3].cache_length) + QStringLiteral(" entries")),
             qPrintable(panel->cacheLabel()->text()));
    QCOMPARE(g.steps[3].cache_bytes,
             static_cast<long long>(g.steps[3].cache_length) * 2 * c.layers * c.resolvedKvHeads() * c.dK() * 4);

    // A prompt beyond the context (64 tokens): refused inline in the engine's words, which the
    // CLI prints; the generated picture stays.
    lab = window.settings();
    lab.text = QStringLiteral("cat ").repeated(80);
    window.setSettings(lab);
    QTest::mouseClick(button, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!box->running(), kWaitMs);
    auto* message = named<QLabel>(window, "generateMessage");
    QVERIFY2(message->text().contains(QStringLiteral("reads at most 64")), qPrintable(message->text()));
    QCOMPARE(window.currentResult(), shown);

    lab.text = QStringLiteral("the cat sat on");
    window.setSettings(lab);
    QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs, 150));
    // Issue 50: under a cache window the evicted keys are masked in the picture (grey, said so in
    // the legend) and grey in the dock's cache, not drawn as weights of 0.
    named<QSpinBox>(window, "generateCacheWindow")->setValue(3);
    named<QSpinBox>(window, "generateSinks")->setValue(1);
    named<QSpinBox>(window, "generateTokens")->setValue(5);
    QTest::mouseClick(button, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!box->running() && window.currentResult()->generated &&
                                 window.currentResult()->generated->steps.size() == 5,
                             kWaitMs);
    {
      const attnlab::AttentionResult& grown = window.currentResult()->attention(0);
      const attnlab::MaskPattern pattern = grown.pattern();
      const int last = grown.nQ() - 1;
      QVERIFY(pattern.visible(last, 0) && !pattern.visible(last, 1) && pattern.visible(last, last - 2));
      QTest::qWait(100);  // the replot
      QString notes;
      for (const QJsonValue t : attnlab::views::layoutJson(*named<QCustomPlot>(window, "gridPlot"))["texts"].toArray())
        notes += t.toObject()["text"].toString() + QLatin1Char('\n');
      // (The panel elides a long note; the whole line is checked in the CLI's picture.)
      QVERIFY2(notes.contains(QStringLiteral("grey = masked: ")), qPrintable(notes));  // not "(causal: …" alone
      panel->slider()->setValue(panel->slider()->maximum());
      const auto& steps = window.currentResult()->generated->steps;
      QCOMPARE(static_cast<int>(panel->cacheView()->entryTokens().size()), steps.back().cache_length);
      QVERIFY(panel->cacheLabel()->text().contains(QStringLiteral("Grey: evicted")));
    }
  }

 private:
  QTemporaryDir settings_dir_;
};

QTEST_MAIN(GenerateWindowTest)
#include "test_generate_window.moc"
