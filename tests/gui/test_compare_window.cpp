/// \file test_compare_window.cpp
/// Issue 15's views in the window, driven in-process on the offscreen platform: "Compare with…"
/// (A − B on the grid and the enlarged head, refusals inline), the attention rollout view of a
/// model, the play buttons of d_k and the temperature, the cost panel (English and 中文), and the
/// sweep export through the command line's writer.

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolButton>
#include <QSignalSpy>
#include <QtTest>
#include <sstream>

#include "options/variants.hpp"
#include "run/run.hpp"
#include "animation/sweep.hpp"
#include "main_window.hpp"
#include "sweep_export.hpp"
#include "animation/animation.hpp"
#include "window_test_support.hpp"

using attnlab::gui::MainWindow;
using attnlab::test::cellText;
using attnlab::test::named;
namespace gui = attnlab::gui;
using attnlab::gui::WindowOptions;
using attnlab::options::LabSettings;
namespace views = attnlab::views;

namespace {

constexpr int kWaitMs = 20000;

using attnlab::test::testOptions;

bool waitFor(MainWindow& window, const LabSettings& settings) {
  return attnlab::test::waitFor(window, settings, kWaitMs);
}

QString titleOf(QCustomPlot* plot) {
  for (const QJsonValue& v : views::layoutJson(*plot)["texts"].toArray())
    if (v.toObject()["role"].toString() == QLatin1String("title"))
      return v.toObject()["text"].toString().replace(QLatin1Char('\n'), QStringLiteral(" · "));
  return {};
}

/// Smallest and largest cell of every map on plot.
std::pair<double, double> cellRange(QCustomPlot* plot) {
  double lo = 1e9, hi = -1e9;
  for (int k = 0; k < plot->plottableCount(); ++k) {
    auto* map = qobject_cast<QCPColorMap*>(plot->plottable(k));
    if (!map) continue;
    for (int x = 0; x < map->data()->keySize(); ++x)
      for (int y = 0; y < map->data()->valueSize(); ++y) {
        const double v = map->data()->cell(x, y);
        if (std::isnan(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
  }
  return {lo, hi};
}

QString tinyGpt2() { return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/models/tiny-gpt2"); }

/// Shows the window on a small synthetic setting (2 heads, d_model 16, "a cat sat") and waits
/// for its picture: what the sweep exports start from.
bool showSmallSetting(MainWindow& window) {
  window.show();
  LabSettings s;
  s.spec.heads = 2;
  s.spec.d_model = 16;
  s.text = QStringLiteral("a cat sat");
  window.setSettings(s);
  return waitFor(window, window.settings());
}

}  // namespace

class CompareWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    attnlab::gui::initResources();
  }

  void compareWithShowsADifferenceOnTheGridAndTheEnlargedHead() {
    MainWindow window(testOptions());
    window.show();
    LabSettings s;
    s.spec.d_k = 64;
    window.setSettings(s);
    QVERIFY(waitFor(window, s));
    window.compareWith(QStringLiteral("--no-scale"));
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::HeadsView>(window, "headsView")->showsDifference(), kWaitMs);
    QVERIFY2(titleOf(named<QCustomPlot>(window, "gridPlot")).contains(QStringLiteral("difference A − B")),
             qPrintable(titleOf(named<QCustomPlot>(window, "gridPlot"))));
    QVERIFY(titleOf(named<QCustomPlot>(window, "gridPlot")).contains(QStringLiteral("max |Δ| = ")));
    QVERIFY(named<gui::HeadsView>(window, "headsView")->gridNote().startsWith(QStringLiteral("Difference A − B")));
    const auto [lo, hi] = cellRange(named<QCustomPlot>(window, "gridPlot"));
    QVERIFY2(lo < -0.05 && hi > 0.05, qPrintable(QStringLiteral("%1 %2").arg(lo).arg(hi)));
    QVERIFY(lo >= -1 && hi <= 1);
    QCOMPARE(views::layoutJson(*named<QCustomPlot>(window, "gridPlot"))["color_scale"].toString(),
             QStringLiteral("difference"));
    named<gui::HeadsView>(window, "headsView")->enlargeHead(2);
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::HeadsView>(window, "headsView")->showsDifference(), kWaitMs);
    QVERIFY(titleOf(named<QCustomPlot>(window, "headPlot")).contains(QStringLiteral("head 2")));
    QVERIFY(cellText(window, 2, 0, 1).contains(QStringLiteral("A − B")));
    // A change of A recomputes B with it: the difference follows d_k.
    LabSettings t = window.settings();
    t.spec.d_k = 8;
    window.setSettings(t);
    QVERIFY(waitFor(window, t));
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::CompareController>(window, "compareController")->matches(t) && named<gui::HeadsView>(window, "headsView")->showsDifference(),
                             kWaitMs);
    // OPTIONS that do not apply: said inline, A drawn as usual.
    window.compareWith(QStringLiteral("--text other"));
    window.showGrid();
    QTRY_VERIFY_WITH_TIMEOUT(
        named<gui::HeadsView>(window, "headsView")->gridNote().contains(QStringLiteral("--diff cannot change --text")), kWaitMs);
    QVERIFY(!named<gui::HeadsView>(window, "headsView")->showsDifference());
    window.compareWith(QString());
    QTRY_VERIFY_WITH_TIMEOUT(titleOf(named<QCustomPlot>(window, "gridPlot")).contains(QStringLiteral("8 heads")),
                             kWaitMs);
  }

  /// A rejected A while comparing: the last picture and its difference stay, and the window says it
  /// is ready (B was computed for the rejected settings, which never match the A on screen, so the
  /// grid said "Computing the comparison…" and pictureReady never came).
  void aRejectedInputKeepsTheComparisonOfThePictureOnScreen() {
    MainWindow window(testOptions());
    QSignalSpy ready(&window, &MainWindow::pictureReady);
    window.show();
    LabSettings s;
    s.spec.d_k = 64;
    window.setSettings(s);
    QVERIFY(waitFor(window, s));
    window.compareWith(QStringLiteral("--no-scale"));
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::HeadsView>(window, "headsView")->showsDifference(), kWaitMs);
    LabSettings bad = window.settings();
    bad.pad_to = 2;  // refused when it runs (the tokens are counted then), B's options accepted
    ready.clear();
    window.setSettings(bad);
    QTRY_VERIFY_WITH_TIMEOUT(!named<gui::InputsPanel>(window, "inputsPanel")->message().isEmpty(), kWaitMs);
    QVERIFY2(ready.wait(kWaitMs) || !ready.isEmpty(), qPrintable(named<gui::HeadsView>(window, "headsView")->gridNote()));
    QVERIFY2(named<gui::HeadsView>(window, "headsView")->showsDifference(), qPrintable(named<gui::HeadsView>(window, "headsView")->gridNote()));
    QVERIFY(named<gui::HeadsView>(window, "headsView")->gridNote().startsWith(QStringLiteral("Difference A − B")));
  }

  void rolloutIsAViewOfTheModel() {
    MainWindow window(testOptions());
    window.show();
    LabSettings s;
    s.model_dir = tinyGpt2();
    s.text = QStringLiteral("the cat sat on the mat");
    s.rollout = true;
    window.setSettings(s);
    QTRY_VERIFY_WITH_TIMEOUT(window.currentResult() && window.currentResult()->rollout, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(named<QCustomPlot>(window, "gridPlot")->plottableCount(), 1, kWaitMs);
    const QString title = titleOf(named<QCustomPlot>(window, "gridPlot"));
    QVERIFY2(title.contains(QStringLiteral("attention rollout through layers 0–1")),
             qPrintable(title));
    QVERIFY(title.contains(QStringLiteral("heads averaged")));
    QVERIFY(named<gui::HeadsView>(window, "headsView")->gridNote().contains(QStringLiteral("Abnar & Zuidema 2020")));
    QVERIFY(named<gui::ModelSource>(window, "modelSourceBox")->rolloutCheck()->isChecked());
    const auto [lo, hi] = cellRange(named<QCustomPlot>(window, "gridPlot"));
    QVERIFY(lo >= 0 && hi <= 1 && hi > 0.2);
  }

  void playButtonsStepThroughTheSweep() {
    MainWindow window(testOptions());
    window.show();
    QVERIFY(waitFor(window, window.settings()));
    named<gui::InputsPanel>(window, "inputsPanel")->dkPlayButton()->click();
    QCOMPARE(named<gui::InputsPanel>(window, "inputsPanel")->playing(), QStringLiteral("d_k"));
    QCOMPARE(named<QSpinBox>(window, "dkSpin")->value(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(named<QSpinBox>(window, "dkSpin")->value(), 2, 3000);
    QTRY_COMPARE_WITH_TIMEOUT(named<QSpinBox>(window, "dkSpin")->value(), 4, 3000);
    named<gui::InputsPanel>(window, "inputsPanel")->dkPlayButton()->click();
    QVERIFY(named<gui::InputsPanel>(window, "inputsPanel")->playing().isEmpty());
    named<gui::InputsPanel>(window, "inputsPanel")->temperaturePlayButton()->click();
    QCOMPARE(named<gui::InputsPanel>(window, "inputsPanel")->temperatureSpin()->value(), 0.125);
    QTRY_COMPARE_WITH_TIMEOUT(named<gui::InputsPanel>(window, "inputsPanel")->temperatureSpin()->value(), 0.25, 3000);
    QVERIFY(window.settings().spec.temperature.has_value());
    named<gui::InputsPanel>(window, "inputsPanel")->temperaturePlayButton()->click();
    QVERIFY(named<gui::InputsPanel>(window, "inputsPanel")->playing().isEmpty());
  }

  void costPanelCountsTheCurrentSetting() {
    MainWindow window(testOptions());
    window.show();
    LabSettings s;
    s.spec.heads = 4;
    s.spec.d_model = 64;
    window.setSettings(s);
    QVERIFY(waitFor(window, window.settings()));
    named<QDockWidget>(window, "costDock")->show();
    QTRY_VERIFY_WITH_TIMEOUT(
        named<gui::CostPanel>(window, "costPanel")->summary()->text().contains(QStringLiteral("n = 11 tokens")), kWaitMs);
    // Multi-head attention: the crossover at 2·d_model = 128.
    QVERIFY2(named<gui::CostPanel>(window, "costPanel")->summary()->text().contains(QStringLiteral("at n = 128")),
             qPrintable(named<gui::CostPanel>(window, "costPanel")->summary()->text()));
    QVERIFY(named<gui::CostPanel>(window, "costPanel")->plot()->graphCount() >= 6);
    named<gui::CostPanel>(window, "costPanel")->kvHeadsCombo()->setCurrentIndex(
        named<gui::CostPanel>(window, "costPanel")->kvHeadsCombo()->findData(1));
    emit named<gui::CostPanel>(window, "costPanel")->kvHeadsCombo()->activated(
        named<gui::CostPanel>(window, "costPanel")->kvHeadsCombo()->currentIndex());
    // One K/V head: 64·(64 + 32) + 64·64 parameters … the crossover at 64·(64 + 32 + 64)/128 = 80.
    QVERIFY2(named<gui::CostPanel>(window, "costPanel")->summary()->text().contains(QStringLiteral("at n = 80")),
             qPrintable(named<gui::CostPanel>(window, "costPanel")->summary()->text()));
    window.setLanguage(QStringLiteral("zh_CN"));
    QVERIFY2(named<gui::CostPanel>(window, "costPanel")->summary()->text().contains(QStringLiteral("个词元")),
             qPrintable(named<gui::CostPanel>(window, "costPanel")->summary()->text()));
    QCOMPARE(named<QDockWidget>(window, "costDock")->windowTitle(), QStringLiteral("注意力的开销"));
    window.setLanguage(QStringLiteral("en"));
  }

  void sweepExportWritesTheCommandLinesGif() {
    MainWindow window(testOptions());
    QVERIFY(showSmallSetting(window));
    QTemporaryDir dir;
    attnlab::options::Options o = window.commandLine(attnlab::options::kSweep);
    o.sweep.param = &attnlab::options::sweptOption(QStringLiteral("temperature"));
    o.sweep.values = {QStringLiteral("0.5"), QStringLiteral("1"), QStringLiteral("2")};
    o.output.out = dir.filePath(QStringLiteral("t.gif"));
    o.output.width = 320;
    o.output.height = 260;
    int reported = 0;
    attnlab::run::Session session;
    const auto frames = attnlab::run::sweepFrames(o, session);
    const auto compute = [&session](const attnlab::options::LabSettings& lab) { return session.run(lab); };
    const attnlab::animation::SweepWritten w =
        attnlab::animation::writeSweep(o, frames, compute, {}, [&reported](int done, int) {
          reported = done;
          return true;
        });
    QCOMPARE(w.frames, 3);
    QCOMPARE(reported, 3);
    const attnlab::animation::GifContents gif = attnlab::animation::readGif(o.output.out);
    QCOMPARE(static_cast<int>(gif.frames.size()), 3);
    QCOMPARE(gif.size, QSize(320, 260));
    // Cancelling leaves no file behind.
    o.output.out = dir.filePath(QStringLiteral("cancelled.gif"));
    QVERIFY_THROWS_EXCEPTION(
        attnlab::options::OptionError,
        attnlab::animation::writeSweep(o, attnlab::run::sweepFrames(o, session), compute, {},
                                       [](int done, int) { return done < 1; }));
    QVERIFY(!QFile::exists(o.output.out));
  }

  void exportSweepDrawsFramesComputedOnAWorker() {
    // File → Export sweep as the user runs it: the dialog's choices, the frames computed on the
    // export's worker thread and drawn here, the GIF written, the status line.
    MainWindow window(testOptions());
    QVERIFY(showSmallSetting(window));
    QTemporaryDir dir;
    const QString gif = dir.filePath(QStringLiteral("t.gif"));
    bool filled = false;
    QTimer::singleShot(0, &window, [&] {
      auto* dialog = qobject_cast<attnlab::gui::SweepDialog*>(QApplication::activeModalWidget());
      if (!dialog) return;
      auto* param = dialog->findChild<QComboBox*>(QStringLiteral("sweepParam"));
      param->setCurrentIndex(param->findData(QStringLiteral("temperature")));
      dialog->findChild<QLineEdit*>(QStringLiteral("sweepValues"))->setText(QStringLiteral("0.5,1,2"));
      dialog->findChild<QLineEdit*>(QStringLiteral("sweepPath"))->setText(gif);
      filled = true;
      dialog->accept();
    });
    const QString said = attnlab::gui::exportSweep(&window, window.commandLine(attnlab::options::kSweep), 0, 2, false);
    QVERIFY(filled);
    QVERIFY2(said.startsWith(QStringLiteral("Wrote 3 frames")), qPrintable(said));
    QCOMPARE(static_cast<int>(attnlab::animation::readGif(gif).frames.size()), 3);
  }
};

QTEST_MAIN(CompareWindowTest)
#include "test_compare_window.moc"
