/// \file test_decode_window.cpp
/// Issue 13's step mode in the window, driven in-process on the offscreen platform: the KV-cache
/// decoding dock reveals rows one step at a time (covers over the rows not decoded yet), shows the
/// cache's bytes with GQA and without, plays to the end, says why when the mask is not causal,
/// and speaks 中文.

#include <qcustomplot.h>

#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QtTest>

#include "heads_view.hpp"
#include "main_window.hpp"

using attnlab::gui::MainWindow;
using attnlab::gui::WindowOptions;
using attnlab::options::LabSettings;

namespace {

constexpr int kWaitMs = 20000;

WindowOptions testOptions() {
  WindowOptions options;
  options.restore_settings = false;
  options.persist = false;
  options.language = QStringLiteral("en");
  return options;
}

bool waitFor(MainWindow& window, const LabSettings& settings) {
  QElapsedTimer timer;
  timer.start();
  while (timer.elapsed() < kWaitMs) {
    const auto shown = window.currentResult();
    if (shown && shown->settings == settings && !window.controller().busy()) {
      QTest::qWait(30);
      return true;
    }
    QTest::qWait(10);
  }
  return false;
}

/// Items on plot that are QCPItemRects with the covers' light fill.
int covers(QCustomPlot* plot) {
  int count = 0;
  for (int i = 0; i < plot->itemCount(); ++i)
    if (auto* rect = qobject_cast<QCPItemRect*>(plot->item(i)))
      if (rect->brush().color() == QColor(0xf4, 0xf4, 0xf4)) ++count;
  return count;
}

}  // namespace

class DecodeWindowTest : public QObject {
  Q_OBJECT
 private slots:
  void stepsRevealRowsAndCountTheCache() {
    MainWindow window(testOptions());
    window.show();
    LabSettings s;
    s.heads = 4;
    s.d_model = 64;
    s.kv_heads = 2;
    s.causal = true;
    window.setSettings(s);
    QVERIFY(waitFor(window, window.settings()));
    auto* panel = window.decodePanel();
    // Hidden dock: every row shows.
    QCOMPARE(panel->revealedRows(), -1);
    window.decodeDock()->show();
    QTRY_COMPARE_WITH_TIMEOUT(panel->revealedRows(), 11, kWaitMs);  // the slider starts at the end
    panel->slider()->setValue(4);
    QCOMPARE(panel->revealedRows(), 5);
    QCOMPARE(window.heads()->revealedRows(), 5);
    QTest::qWait(100);
    QCOMPARE(covers(window.gridPlot()), 4);  // one per head
    // d_k = d_v = 16; 5 entries × 2 K/V heads × 32 floats × 4 bytes = 1 280 bytes; MHA 2 560.
    const QString text = panel->cacheLabel()->text();
    QVERIFY2(text.contains(QStringLiteral("= 1 280 bytes")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("2 560 bytes")), qPrintable(text));
    // Play from the start to the end.
    panel->slider()->setValue(panel->slider()->maximum());
    panel->playButton()->click();
    QCOMPARE(panel->slider()->value(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(panel->slider()->value(), 10, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(panel->playButton()->text(), QStringLiteral("Play"), kWaitMs);
    QCOMPARE(covers(window.gridPlot()), 0);
    window.setLanguage(QStringLiteral("zh_CN"));
    QCOMPARE(window.decodeDock()->windowTitle(), QStringLiteral("KV 缓存解码"));
    QVERIFY2(panel->cacheLabel()->text().contains(QStringLiteral("字节")), qPrintable(panel->cacheLabel()->text()));
    window.setLanguage(QStringLiteral("en"));
    // Not causal: the panel says why and every row shows.
    s.causal = false;
    window.setSettings(s);
    QVERIFY(waitFor(window, window.settings()));
    QTRY_COMPARE_WITH_TIMEOUT(panel->revealedRows(), -1, kWaitMs);
    QVERIFY(!panel->slider()->isEnabled());
  }

  void decodeStepOptionOpensTheDock() {
    WindowOptions options = testOptions();
    options.settings.causal = true;
    options.decode_step = 3;  // --decode-step 3
    MainWindow window(options);
    window.show();
    QVERIFY(waitFor(window, window.settings()));
    QTRY_VERIFY_WITH_TIMEOUT(window.decodeDock()->isVisible(), kWaitMs);
    QCOMPARE(window.decodePanel()->slider()->value(), 3);
    QTRY_COMPARE_WITH_TIMEOUT(window.heads()->revealedRows(), 4, kWaitMs);
    // The command line refuses a step outside the table's range in its words.
    try {
      attnlab::options::parse({"--decode-step", "-1"}, attnlab::options::kWindow);
      QFAIL("no error");
    } catch (const attnlab::options::OptionError& e) {
      QCOMPARE(e.message().english(), QStringLiteral("--decode-step must be between 0 and 4095 (got -1)"));
    }
  }
};

QTEST_MAIN(DecodeWindowTest)
#include "test_decode_window.moc"
