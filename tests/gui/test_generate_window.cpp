/// \file test_generate_window.cpp
/// The window's Generate control (issue 24, item 2) on the tiny Llama, driven in-process on the
/// offscreen platform: Generate reads Stop while it runs, 4 tokens come out as the engine's
/// generate() gives them (the CLI's generate), the rows on screen equal one full forward pass over
/// the tokens read within 1e-5, the decoding dock steps through the real cache (length and bytes),
/// and a prompt beyond the context is refused inline in the engine's words.

#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QtTest>
#include <cmath>

#include "attnlab/backend.hpp"
#include "attnlab/generate.hpp"
#include "decode_panel.hpp"
#include "generate_box.hpp"
#include "main_window.hpp"
#include "window_test_support.hpp"

using attnlab::test::named;
namespace gui = attnlab::gui;
using attnlab::options::LabSettings;

namespace {

constexpr int kWaitMs = 20000;

QString data(const char* path) {
  return QDir::cleanPath(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/") + QLatin1String(path));
}

}  // namespace

class GenerateWindowTest : public QObject {
  Q_OBJECT
 private slots:
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
  }
};

QTEST_MAIN(GenerateWindowTest)
#include "test_generate_window.moc"
