/// \file test_main_window.cpp
/// The window, driven in-process on the offscreen platform: heatmaps per head labelled with the
/// tokens, the scaling toggle and the saturation marker, cross-attention shapes, every export,
/// stale results, the event loop while d_k is dragged, and the Chinese interface.

#include <qcustomplot.h>

#include <QAction>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <algorithm>
#include <limits>

#include "attnlab/error.hpp"
#include "attnlab/tokenizer.hpp"
#include "main_window.hpp"

using attnlab::gui::ExportTarget;
using attnlab::gui::LabSettings;
using attnlab::gui::MainWindow;
using attnlab::gui::WindowOptions;

namespace {

constexpr int kWaitMs = 15000;

WindowOptions testOptions() {
  WindowOptions options;
  options.restore_settings = false;
  options.persist = false;
  options.language = QStringLiteral("en");
  return options;
}

/// Waits until the window shows a result for exactly `settings` (and nothing is pending).
bool waitFor(MainWindow& window, const LabSettings& settings) {
  QElapsedTimer timer;
  timer.start();
  while (timer.elapsed() < kWaitMs) {
    const auto shown = window.currentResult();
    if (shown && shown->settings == settings && !window.controller().busy()) {
      QTest::qWait(30);  // let the queued replots run
      return true;
    }
    QTest::qWait(10);
  }
  return false;
}

QCPColorMap* mapOf(QCustomPlot* plot, int k) { return qobject_cast<QCPColorMap*>(plot->plottable(k)); }

double maxCell(QCustomPlot* plot) {
  double best = 0;
  for (int k = 0; k < plot->plottableCount(); ++k) {
    QCPColorMapData* data = mapOf(plot, k)->data();
    for (int x = 0; x < data->keySize(); ++x)
      for (int y = 0; y < data->valueSize(); ++y) {
        const double v = data->cell(x, y);
        if (!std::isnan(v)) best = std::max(best, v);
      }
  }
  return best;
}

QStringList tickLabels(QCPAxis* axis) {
  auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
  return ticker ? QStringList(ticker->ticks().values()) : QStringList();
}

template <class T>
T* firstItem(QCustomPlot* plot) {
  for (int i = 0; i < plot->itemCount(); ++i)
    if (auto* item = qobject_cast<T*>(plot->item(i))) return item;
  return nullptr;
}

int tokenCount(const QString& text) {
  return static_cast<int>(attnlab::tokenize(text.toStdString()).size());
}

}  // namespace

class MainWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    attnlab::gui::initResources();
  }

  void typingGivesOneLabelledHeatmapPerHead() {
    MainWindow window(testOptions());
    window.show();
    window.textEdit()->clear();
    QTest::keyClicks(window.textEdit(), QStringLiteral("Attention is all you need"));
    LabSettings expected = window.settings();
    QCOMPARE(expected.text, QStringLiteral("Attention is all you need"));
    QVERIFY(waitFor(window, expected));
    QCustomPlot* grid = window.gridPlot();
    QCOMPARE(grid->plottableCount(), 8);
    for (int k = 0; k < 8; ++k) {
      QCPColorMap* map = mapOf(grid, k);
      QVERIFY(map);
      QCOMPARE(map->data()->keySize(), 5);
      QCOMPARE(map->data()->valueSize(), 5);
      const QStringList keys = tickLabels(map->keyAxis());
      const QStringList queries = tickLabels(map->valueAxis());
      QCOMPARE(keys, (QStringList{"Attention", "is", "all", "you", "need"}));
      QCOMPARE(queries, keys);
    }
    QVERIFY(window.gridNote().contains(QStringLiteral("5 query tokens")));
    QVERIFY(window.cellText(0, 0, 4).startsWith(
        QStringLiteral("head 0 · query 0 'Attention' → key 4 'need': weight ")));
  }

  void scalingToggleChangesMaxWeightAndMovesMarker() {
    MainWindow window(testOptions());
    window.show();
    LabSettings s;
    s.d_k = 512;
    window.setSettings(s);
    QVERIFY(waitFor(window, s));
    QTRY_VERIFY_WITH_TIMEOUT(firstItem<QCPItemStraightLine>(window.saturationPlot()), kWaitMs);
    const double scaled_max = maxCell(window.gridPlot());
    const double scaled_marker_y =
        firstItem<QCPItemTracer>(window.saturationPlot())->position->coords().y();
    QCOMPARE(firstItem<QCPItemStraightLine>(window.saturationPlot())->point1->coords().x(), 512.0);

    window.scalingAction()->trigger();  // the Ctrl+K shortcut's action
    QVERIFY(!window.scalingCheck()->isChecked());
    s.scaled = false;
    QVERIFY(waitFor(window, s));
    const double unscaled_max = maxCell(window.gridPlot());
    const double unscaled_marker_y =
        firstItem<QCPItemTracer>(window.saturationPlot())->position->coords().y();
    qInfo("max plotted weight at d_k = 512: scaled %.3f, unscaled %.3f", scaled_max, unscaled_max);
    QVERIFY(unscaled_max > scaled_max + 0.2);
    QVERIFY(unscaled_max > 0.95);  // saturated: one-hot rows
    QVERIFY(std::abs(unscaled_marker_y - scaled_marker_y) > 0.1);

    window.dkDownAction()->trigger();  // d_k 512 → 256: the marker follows at once
    QCOMPARE(window.dkSpin()->value(), 256);
    QTRY_COMPARE_WITH_TIMEOUT(
        firstItem<QCPItemStraightLine>(window.saturationPlot())->point1->coords().x(), 256.0,
        kWaitMs);
  }

  void crossAttentionGivesTargetBySourceMap() {
    MainWindow window(testOptions());
    window.resize(1500, 920);  // labels are thinned to what fits on screen: give them room
    window.show();
    LabSettings s;
    s.source = QStringLiteral("The cat sat on the mat.");
    s.text = QStringLiteral("Le chat était assis sur le tapis.");
    window.setSettings(s);
    QVERIFY(waitFor(window, s));
    const int n_source = tokenCount(s.source), n_target = tokenCount(s.text);
    QVERIFY(n_source != n_target);
    QCPColorMap* map = mapOf(window.gridPlot(), 0);
    QCOMPARE(map->data()->keySize(), n_source);    // columns: keys from the source
    QCOMPARE(map->data()->valueSize(), n_target);  // rows: queries from the target
    // On a small screen labels are thinned and carry their position ("#0 The").
    QVERIFY(tickLabels(map->keyAxis()).first().endsWith(QStringLiteral("The")));
    QVERIFY(tickLabels(map->valueAxis()).first().endsWith(QStringLiteral("Le")));
    QCOMPARE(window.currentResult()->run.attention.nQ(), n_target);
    QCOMPARE(window.currentResult()->run.attention.nK(), n_source);
  }

  void everyExportWritesValidFiles() {
    MainWindow window(testOptions());
    window.show();
    QVERIFY(waitFor(window, window.settings()));
    QTRY_VERIFY_WITH_TIMEOUT(firstItem<QCPItemStraightLine>(window.saturationPlot()), kWaitMs);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::pair<ExportTarget, QString> targets[] = {{ExportTarget::kCurrentHead, "head"},
                                                        {ExportTarget::kAllHeads, "heads"},
                                                        {ExportTarget::kSaturation, "saturation"}};
    for (const auto& [target, name] : targets) {
      const QString png = dir.filePath(name + ".png");
      window.exportImage(target, png, {640, 480, 2.0});
      const QImage image(png);
      QVERIFY2(!image.isNull(), qPrintable(png));
      QCOMPARE(image.size(), QSize(1280, 960));

      const QString svg = dir.filePath(name + ".svg");
      window.exportImage(target, svg, window.defaultExportSize(target));
      QSvgRenderer renderer(svg);
      QVERIFY2(renderer.isValid(), qPrintable(svg));

      const QString pdf = dir.filePath(name + ".pdf");
      window.exportImage(target, pdf, window.defaultExportSize(target));
      QFile file(pdf);
      QVERIFY(file.open(QIODevice::ReadOnly));
      const QByteArray bytes = file.readAll();
      QVERIFY2(bytes.startsWith("%PDF-") && bytes.contains("%%EOF"), qPrintable(pdf));
    }
    window.exportMatrices(dir.filePath("all.csv"), -1);
    QFile csv(dir.filePath("all.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QVERIFY(csv.readLine().startsWith("head,query,query_token,key,key_token,score,weight,masked"));
    window.exportMatrices(dir.filePath("all.npy"), -1);
    QFile npy(dir.filePath("all.npy"));
    QVERIFY(npy.open(QIODevice::ReadOnly));
    const QByteArray header = npy.read(128);
    QVERIFY(header.startsWith("\x93NUMPY"));
    QVERIFY(header.contains("(8, 11, 11)"));
    // A bad path is an error, not a crash.
    QVERIFY_THROWS_EXCEPTION(attnlab::Error,
                             window.exportImage(ExportTarget::kAllHeads,
                                                dir.filePath("missing/folder/x.png"),
                                                {400, 300, 1.0}));
  }

  void staleResultsAreDropped() {
    MainWindow window(testOptions());
    window.show();
    QVERIFY(waitFor(window, window.settings()));
    // Three requests in a row: only the last one's result reaches the screen.
    LabSettings s = window.settings();
    for (const char* text : {"first sentence here", "second one", "the third and last"}) {
      s.text = QString::fromUtf8(text);
      window.setSettings(s);
    }
    QVERIFY(waitFor(window, s));
    QCOMPARE(window.currentResult()->settings.text, QStringLiteral("the third and last"));
    QCOMPARE(window.currentResult()->generation, window.controller().generation());
    // A result of an older request arriving now is dropped, and the picture stays.
    auto stale = std::make_shared<attnlab::gui::ComputeResult>(*window.currentResult());
    stale->generation = window.controller().generation() - 1;
    stale->settings.text = QStringLiteral("stale");
    const int dropped = window.controller().droppedCount();
    const int shown = window.resultsShown();
    QVERIFY(!window.controller().accept(stale));
    QCOMPARE(window.controller().droppedCount(), dropped + 1);
    QTest::qWait(50);
    QCOMPARE(window.resultsShown(), shown);
    QCOMPARE(window.currentResult()->settings.text, QStringLiteral("the third and last"));
  }

  void badInputShowsInlineMessageAndKeepsPicture() {
    MainWindow window(testOptions());
    window.show();
    QVERIFY(waitFor(window, window.settings()));
    const auto good = window.currentResult();
    LabSettings s = window.settings();
    s.text = QStringLiteral("   ");
    window.setSettings(s);
    QTRY_VERIFY_WITH_TIMEOUT(!window.inputMessage().isEmpty(), kWaitMs);
    QCOMPARE(window.currentResult(), good);
    QCOMPARE(window.gridPlot()->plottableCount(), 8);
    s.text = QStringLiteral("fine again");
    s.causal = true;
    s.source = QStringLiteral("with a source");  // causal + cross is invalid
    window.setSettings(s);
    QTRY_VERIFY_WITH_TIMEOUT(window.inputMessage().contains(QStringLiteral("causal")), kWaitMs);
    QCOMPARE(window.currentResult(), good);
  }

  void clickingEnlargesAHeadAndShowsTheRow() {
    MainWindow window(testOptions());
    window.show();
    QVERIFY(waitFor(window, window.settings()));
    window.enlargeHead(3);
    QCOMPARE(window.enlargedHead(), 3);
    QCOMPARE(window.headPlot()->plottableCount(), 1);
    QCOMPARE(window.headPlot()->plottable(0)->name(), QStringLiteral("head 3"));
    window.selectRow(6);  // "because"
    QCOMPARE(window.selectedRow(), 6);
    QTest::qWait(20);
    QCPBars* bars = nullptr;
    for (int k = 0; k < window.rowPlot()->plottableCount(); ++k)
      bars = bars ? bars : qobject_cast<QCPBars*>(window.rowPlot()->plottable(k));
    QVERIFY(bars);
    QCOMPARE(bars->data()->size(), 11);
    double sum = 0;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
      sum += it->value;
    QVERIFY(std::abs(sum - 1.0) < 1e-4);
    // A click on a grid cell enlarges that head with the clicked row selected.
    window.showGrid();
    QTest::qWait(30);
    QCPColorMap* map = mapOf(window.gridPlot(), 1);
    const QPointF cell(map->keyAxis()->coordToPixel(2), map->valueAxis()->coordToPixel(4));
    QTest::mouseClick(window.gridPlot(), Qt::LeftButton, {}, cell.toPoint());
    QCOMPARE(window.enlargedHead(), 1);
    QCOMPARE(window.selectedRow(), 4);
  }

  void longInputShowsAnOverview() {
    MainWindow window(testOptions());
    window.show();
    LabSettings s;
    QStringList words;
    for (int i = 0; i < 90; ++i) words << QStringLiteral("w%1").arg(i);
    s.text = words.join(QLatin1Char(' '));
    window.setSettings(s);
    QVERIFY(waitFor(window, s));
    QVERIFY(window.gridNote().startsWith(QStringLiteral("Overview: 90 query tokens")));
  }

  void draggingDkNeverStallsTheEventLoop() {
    MainWindow window(testOptions());
    window.resize(1500, 920);
    window.show();
    LabSettings s;
    QStringList words;
    const QStringList vocabulary = QStringLiteral(
        "attention lets every token look at every other token and decide how much each one "
        "matters while the softmax saturates when the scores grow with the width of the keys")
                                       .split(QLatin1Char(' '));
    for (int i = 0; i < 256; ++i) words << vocabulary.at(i % vocabulary.size());
    s.text = words.join(QLatin1Char(' '));
    s.heads = 8;
    s.d_k = 64;
    window.setSettings(s);
    QVERIFY(waitFor(window, s));
    QCOMPARE(window.currentResult()->run.attention.nQ(), 256);
    QTRY_VERIFY_WITH_TIMEOUT(firstItem<QCPItemStraightLine>(window.saturationPlot()), kWaitMs);

    // A 2 ms ticker measures the gaps between event-loop passes while a "drag" moves the slider
    // every 30 ms through 1 … 1024 and back, as a mouse would, for about three seconds.
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0, worst = 0;
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    ticker.setInterval(2);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
      const qint64 now = clock.nsecsElapsed();
      if (last > 0) worst = std::max(worst, now - last);
      last = now;
    });
    const int path[] = {6, 7, 8, 9, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5};
    int step = 0;
    const int steps = 100;
    QTimer drag;
    drag.setInterval(30);
    window.dkSlider()->setSliderDown(true);
    QObject::connect(&drag, &QTimer::timeout, [&] {
      window.dkSlider()->setValue(path[step % std::size(path)]);
      if (++step == steps) drag.stop();
    });
    last = clock.nsecsElapsed();
    ticker.start();
    drag.start();
    QTRY_VERIFY_WITH_TIMEOUT(step == steps, 20000);
    window.dkSlider()->setSliderDown(false);
    s.d_k = 1 << path[(steps - 1) % std::size(path)];
    QVERIFY(waitFor(window, s));  // the last setting's maps arrive; still measuring
    QTest::qWait(100);
    ticker.stop();
    const double worst_ms = worst / 1e6;
    qInfo("d_k drag, 256 tokens, 8 heads: %d slider moves, %d results drawn, worst event-loop "
          "gap %.1f ms",
          steps, window.resultsShown(), worst_ms);
    QVERIFY2(worst_ms < 50.0, qPrintable(QStringLiteral("worst gap %1 ms").arg(worst_ms)));
  }

  void switchingToChineseChangesTheMenus() {
    MainWindow window(testOptions());
    window.show();
    QCOMPARE(window.fileMenu()->title(), QStringLiteral("&File"));
    window.setLanguage(QStringLiteral("zh_CN"));
    QCOMPARE(window.language(), QStringLiteral("zh_CN"));
    QCOMPARE(window.fileMenu()->title(), QStringLiteral("文件(&F)"));
    QCOMPARE(window.scalingAction()->text(), QStringLiteral("切换 1/√d_k 缩放"));
    window.setLanguage(QStringLiteral("en"));
    QCOMPARE(window.fileMenu()->title(), QStringLiteral("&File"));
  }
};

QTEST_MAIN(MainWindowTest)
#include "test_main_window.moc"
