/// \file test_decode_window.cpp
/// Issue 13's step mode in the window, driven in-process on the offscreen platform: the KV-cache
/// decoding dock reveals rows one step at a time (covers over the rows not decoded yet), shows the
/// cache's bytes with GQA and without, plays to the end, says why when the mask is not causal,
/// and speaks 中文; a cache bug (issue 16, lesson 9) shows the decoded rows, says where they first
/// differ from the full causal computation and draws the repeated entry twice or the lost one as a
/// gap; a lesson step with a cache bug sets it.

#include <qcustomplot.h>

#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QComboBox>
#include <QSlider>
#include <QSpinBox>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "heads_view.hpp"
#include "lesson_controller.hpp"
#include "main_window.hpp"
#include "window_test_support.hpp"

using attnlab::gui::MainWindow;
using attnlab::test::cellText;
using attnlab::test::named;
namespace gui = attnlab::gui;
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

/// max |a − b| over the weights of row i, every head.
double rowDiff(const attnlab::AttentionResult& a, const attnlab::AttentionResult& b, int i) {
  double diff = 0;
  for (int h = 0; h < a.heads(); ++h)
    for (int j = 0; j < a.weights.cols; ++j)
      diff = std::max(diff, std::abs(static_cast<double>(a.weights.row(h, i)[j]) - b.weights.row(h, i)[j]));
  return diff;
}

int entriesOf(const attnlab::gui::CacheView* view, int token) {
  const std::vector<int> tokens = view->entryTokens();
  return static_cast<int>(std::count(tokens.begin(), tokens.end(), token));
}

}  // namespace

class DecodeWindowTest : public QObject {
  Q_OBJECT
 private slots:
  void stepsRevealRowsAndCountTheCache() {
    MainWindow window(testOptions());
    window.show();
    LabSettings s;
    s.spec.heads = 4;
    s.spec.d_model = 64;
    s.spec.kv_heads = 2;
    s.setCausal(true);
    window.setSettings(s);
    QVERIFY(waitFor(window, window.settings()));
    auto* panel = named<gui::DecodePanel>(window, "decodePanel");
    // Hidden dock: every row shows.
    QCOMPARE(panel->revealedRows(), -1);
    named<QDockWidget>(window, "decodeDock")->show();
    QTRY_COMPARE_WITH_TIMEOUT(panel->revealedRows(), 11, kWaitMs);  // the slider starts at the end
    panel->slider()->setValue(4);
    QCOMPARE(panel->revealedRows(), 5);
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->revealedRows(), 5);
    QTest::qWait(100);
    QCOMPARE(covers(named<QCustomPlot>(window, "gridPlot")), 4);  // one per head
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
    QCOMPARE(covers(named<QCustomPlot>(window, "gridPlot")), 0);
    window.setLanguage(QStringLiteral("zh_CN"));
    QCOMPARE(named<QDockWidget>(window, "decodeDock")->windowTitle(), QStringLiteral("KV 缓存解码"));
    QVERIFY2(panel->cacheLabel()->text().contains(QStringLiteral("字节")), qPrintable(panel->cacheLabel()->text()));
    window.setLanguage(QStringLiteral("en"));
    // Not causal: the panel says why and every row shows.
    s.setCausal(false);
    window.setSettings(s);
    QVERIFY(waitFor(window, window.settings()));
    QTRY_COMPARE_WITH_TIMEOUT(panel->revealedRows(), -1, kWaitMs);
    QVERIFY(!panel->slider()->isEnabled());
  }

  void decodeStepOptionOpensTheDock() {
    WindowOptions options = testOptions();
    options.settings.setCausal(true);
    options.decode_step = 3;  // --decode-step 3
    MainWindow window(options);
    window.show();
    QVERIFY(waitFor(window, window.settings()));
    QTRY_VERIFY_WITH_TIMEOUT(named<QDockWidget>(window, "decodeDock")->isVisible(), kWaitMs);
    QCOMPARE(named<gui::DecodePanel>(window, "decodePanel")->slider()->value(), 3);
    QTRY_COMPARE_WITH_TIMEOUT(named<gui::HeadsView>(window, "headsView")->revealedRows(), 4, kWaitMs);
    // The command line refuses a step outside the table's range in its words.
    try {
      attnlab::options::parse({"--decode-step", "-1"}, attnlab::options::kWindow);
      QFAIL("no error");
    } catch (const attnlab::options::OptionError& e) {
      QCOMPARE(e.message().english(), QStringLiteral("--decode-step must be between 0 and 4095 (got -1)"));
    }
  }

  void cacheBugsShowWhereRowsGoWrong() {
    MainWindow window(testOptions());
    window.show();
    LabSettings s;  // the cat sentence, 11 tokens
    s.spec.heads = 4;
    s.spec.d_model = 64;
    s.spec.kv_heads = 2;
    s.setCausal(true);
    window.setSettings(s);
    QVERIFY(waitFor(window, window.settings()));
    named<QDockWidget>(window, "decodeDock")->show();
    auto* panel = named<gui::DecodePanel>(window, "decodePanel");
    const auto full = window.currentResult();
    QCOMPARE(panel->bugStepBox()->value(), 5);  // the middle token, as the command line
    panel->bugStepBox()->setValue(4);
    panel->bugCombo()->setCurrentIndex(2);  // duplicate
    QTRY_VERIFY_WITH_TIMEOUT(panel->decoded() && named<gui::HeadsView>(window, "headsView")->result() != full, kWaitMs);
    const attnlab::AttentionResult& decoded = named<gui::HeadsView>(window, "headsView")->result()->attention(0);
    for (int i = 0; i < 4; ++i) QVERIFY2(rowDiff(decoded, full->attention(0), i) <= 1e-6, qPrintable(QString::number(i)));
    QVERIFY(rowDiff(decoded, full->attention(0), 4) > 1e-3);
    QCOMPARE(panel->decoded()->first_diff_step, 4);
    panel->slider()->setValue(3);
    QVERIFY2(panel->stepLabel()->text().contains(QStringLiteral("Row 3 equals the full causal computation")),
             qPrintable(panel->stepLabel()->text()));
    QCOMPARE(entriesOf(panel->cacheView(), 3), 1);
    panel->slider()->setValue(4);
    QVERIFY2(panel->stepLabel()->text().contains(QStringLiteral("Row 4 differs from the full causal computation")),
             qPrintable(panel->stepLabel()->text()));
    QVERIFY(panel->stepLabel()->text().contains(QStringLiteral("from row 4 on")));
    QVERIFY(panel->stepLabel()->text().contains(QStringLiteral("cached twice")));
    QCOMPARE(entriesOf(panel->cacheView(), 4), 2);  // the repeated entry, twice
    QCOMPARE(panel->cacheView()->entryTokens().size(), std::size_t{6});
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->revealedRows(), 5);  // the slider still reveals rows
    // Skip: the entry is a gap.
    panel->bugCombo()->setCurrentIndex(1);
    QTRY_VERIFY_WITH_TIMEOUT(panel->decoded() && panel->decoded()->bug == attnlab::CacheBug::kSkip, kWaitMs);
    QCOMPARE(entriesOf(panel->cacheView(), 4), 0);
    QCOMPARE(panel->cacheView()->gapToken(), 4);
    QVERIFY(panel->stepLabel()->text().contains(QStringLiteral("never cached")));
    QVERIFY(rowDiff(named<gui::HeadsView>(window, "headsView")->result()->attention(0), full->attention(0), 3) <= 1e-6);
    QVERIFY(rowDiff(named<gui::HeadsView>(window, "headsView")->result()->attention(0), full->attention(0), 4) > 1e-3);
    // A step past the last token: the command line's words, the last picture kept.
    const auto kept = named<gui::HeadsView>(window, "headsView")->result();
    panel->bugStepBox()->setValue(40);
    QVERIFY(panel->errorLabel()->isVisible());
    QCOMPARE(panel->errorLabel()->text(), QStringLiteral("--bug-step 40 is past the text's last token (10)"));
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->result(), kept);
    panel->bugStepBox()->setValue(4);
    QVERIFY(!panel->errorLabel()->isVisible());
    // None: the run itself again.
    panel->bugCombo()->setCurrentIndex(0);
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->result(), window.currentResult());
    QVERIFY(!panel->decoded());
    QCOMPARE(entriesOf(panel->cacheView(), 4), 1);
    QVERIFY(!panel->stepLabel()->text().contains(QStringLiteral("Row 4")));
  }

  void lessonStepSetsTheCacheBug() {
    MainWindow window(testOptions());
    window.show();
    named<gui::LessonController>(window, "lessonController")->open(QStringLiteral("kvcache"), 3);  // step 4: duplicate
    QTRY_VERIFY_WITH_TIMEOUT(named<QDockWidget>(window, "decodeDock")->isVisible(), kWaitMs);
    QCOMPARE(named<gui::DecodePanel>(window, "decodePanel")->cacheBug(), attnlab::CacheBug::kDuplicate);
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::DecodePanel>(window, "decodePanel")->decoded() != nullptr, kWaitMs);
    named<gui::LessonController>(window, "lessonController")->open(QStringLiteral("kvcache"), 0);  // a correct cache again
    QCOMPARE(named<gui::DecodePanel>(window, "decodePanel")->cacheBug(), attnlab::CacheBug::kNone);
  }
};

QTEST_MAIN(DecodeWindowTest)
#include "test_decode_window.moc"
