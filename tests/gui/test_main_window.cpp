/// \file test_main_window.cpp
/// The window, driven in-process on the offscreen platform: heatmaps per head labelled with the
/// tokens, the scaling toggle and the saturation marker, cross-attention shapes, every export,
/// stale results, square cells and labels that never overlap (the window's layout JSON) at many
/// lengths in both languages and layouts, the Chinese interface, and a pretrained
/// model folder (tests/data/models/tiny-gpt2: 2 layers × 4 heads): the model view, the layer
/// selector, thumbnails enlarging their (layer, head), a folder that does not load, the
/// special-token filter, the exports and the remembered folder.

#include <qcustomplot.h>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QJsonArray>
#include <QJsonObject>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <algorithm>
#include <limits>

#include "attnlab/backend.hpp"
#include "attnlab/error.hpp"
#include "attnlab/tokenizer.hpp"
#include "options/options.hpp"
#include "main_window.hpp"
#include "variants_box.hpp"
#include "options/lab_settings.hpp"
#include "views/text.hpp"
#include "window_test_support.hpp"

using attnlab::gui::ExportTarget;
using attnlab::options::LabSettings;
using attnlab::gui::MainWindow;
using attnlab::test::cellText;
using attnlab::test::named;
namespace gui = attnlab::gui;
using attnlab::gui::VariantsBox;
using attnlab::gui::WindowOptions;
namespace views = attnlab::views;

namespace {

constexpr int kWaitMs = 15000;

using attnlab::test::testOptions;

/// Waits until the window shows a result for exactly `settings` (and nothing is pending).
bool waitFor(MainWindow& window, const LabSettings& settings) {
  return attnlab::test::waitFor(window, settings, kWaitMs);
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

/// The tick labels of map `map` of plot's heatmap, by role ("query_label", "key_label").
QStringList tickLabels(QCustomPlot* plot, const char* role, int map = 0) {
  QStringList labels;
  for (const QJsonValue& v : views::layoutJson(*plot)["texts"].toArray()) {
    const QJsonObject t = v.toObject();
    if (t["role"].toString() == QLatin1String(role) && t["map"].toInt() == map) labels << t["text"].toString();
  }
  return labels;
}

QRectF rectOf(const QJsonObject& o) {
  return QRectF(o["x"].toDouble(), o["y"].toDouble(), o["width"].toDouble(), o["height"].toDouble());
}

/// A text of n tokens (English words, or Chinese characters).
QString textOf(int n, bool chinese) {
  const QString zh = QString::fromUtf8("我爱自然语言处理。注意力机制很有趣");
  const QStringList words = QStringLiteral("attention lets every token look at each other one").split(QLatin1Char(' '));
  QStringList out;
  for (int i = 0; i < n; ++i) out << (chinese ? QString(zh.at(i % zh.size())) : words.at(i % words.size()));
  return out.join(chinese ? QString() : QStringLiteral(" "));
}

/// Square cells drawn where laid out, texts inside the window and apart, for every heatmap the
/// window shows (its layout JSON, as --layout-json writes it). Returns the first map's cell.
double checkLayout(MainWindow& window, bool verbose = true) {
  const QJsonObject layout = window.layoutJson();
  const QRectF bounds(0, 0, window.width(), window.height());
  double cell = 0;
  for (const QJsonValue& heatmap : layout["heatmaps"].toArray()) {
    for (const QJsonValue& v : heatmap.toObject()["maps"].toArray()) {
      const QJsonObject m = v.toObject();
      if (cell == 0) cell = m["cell_width"].toDouble();
      if (std::abs(m["cell_width"].toDouble() / m["cell_height"].toDouble() - 1) > 0.1) {
        const QJsonObject canvas = heatmap.toObject()["canvas"].toObject();
        QCustomPlot* plot = window.findChild<QCustomPlot*>(heatmap.toObject()["plot"].toString());
        if (verbose) qWarning("cell %g x %g; %s laid out for %d x %d, now %d x %d", m["cell_width"].toDouble(),
                 m["cell_height"].toDouble(), qPrintable(heatmap.toObject()["plot"].toString()),
                 canvas["width"].toInt(), canvas["height"].toInt(), plot->width(), plot->height());
        return -1;
      }
      if (rectOf(m["drawn"].toObject()) != rectOf(m)) return -2;
    }
    const QJsonArray texts = heatmap.toObject()["texts"].toArray();
    for (int a = 0; a < texts.size(); ++a) {
      const QRectF ra = rectOf(texts[a].toObject());
      if (!bounds.adjusted(-1, -1, 1, 1).contains(ra)) {
        if (verbose) qWarning("outside %g x %g: %s at %g, %g (%g x %g)", bounds.width(), bounds.height(),
                 qPrintable(texts[a].toObject()["text"].toString()), ra.x(), ra.y(), ra.width(), ra.height());
        return -3;
      }
      for (int b = a + 1; b < texts.size(); ++b) {
        if (attnlab::views::overlaps(ra, rectOf(texts[b].toObject()))) {
          if (verbose) qWarning("'%s' overlaps '%s'", qPrintable(texts[a].toObject()["text"].toString()),
                   qPrintable(texts[b].toObject()["text"].toString()));
          return -4;
        }
      }
    }
  }
  return cell;
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

/// The tiny GPT-2 kept in the repository (2 layers, 4 heads, d_model 64, vocabulary of 800).
QString tinyGpt2() {
  return QDir::cleanPath(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/models/tiny-gpt2"));
}

/// Waits until the newest request's result is on screen and the grid's layout has settled.
bool waitForModel(MainWindow& window) {
  if (!waitFor(window, window.settings())) return false;
  QTest::qWait(150);  // the model view fits its size to square thumbnails: one more layout pass
  return true;
}

/// A model folder whose config.json names an architecture the engine does not have.
void writeT5Folder(const QString& dir) {
  QFile config(QDir(dir).filePath(QStringLiteral("config.json")));
  QVERIFY(config.open(QIODevice::WriteOnly));
  config.write(R"({"model_type": "t5", "d_model": 64, "num_heads": 4, "num_layers": 2})");
}

/// A picture's title: a heatmap's title text, else (the side panels) the title element.
QString titleOf(QCustomPlot* plot) {
  for (const QJsonValue& v : views::layoutJson(*plot)["texts"].toArray()) {
    if (v.toObject()["role"].toString() == QLatin1String("title"))
      return v.toObject()["text"].toString().replace(QLatin1Char('\n'), QStringLiteral(" · "));
  }
  for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
    if (auto* text = qobject_cast<QCPTextElement*>(element)) return QString(text->text()).replace(QLatin1Char('\n'), QStringLiteral(" "));
  }
  return {};
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
    named<QPlainTextEdit>(window, "text")->clear();
    QTest::keyClicks(named<QPlainTextEdit>(window, "text"), QStringLiteral("Attention is all you need"));
    LabSettings expected = window.settings();
    QCOMPARE(expected.text, QStringLiteral("Attention is all you need"));
    QVERIFY(waitFor(window, expected));
    QCustomPlot* grid = named<QCustomPlot>(window, "gridPlot");
    QCOMPARE(grid->plottableCount(), 8);
    for (int k = 0; k < 8; ++k) {
      QCPColorMap* map = mapOf(grid, k);
      QVERIFY(map);
      QCOMPARE(map->data()->keySize(), 5);
      QCOMPARE(map->data()->valueSize(), 5);
    }
    // Every token labelled: queries left of the first column, keys above the first row.
    const QStringList words{"Attention", "is", "all", "you", "need"};
    QCOMPARE(tickLabels(grid, "key_label", 0), words);
    QCOMPARE(tickLabels(grid, "query_label", 0), words);
    QVERIFY(named<gui::HeadsView>(window, "headsView")->gridNote().contains(QStringLiteral("5 query tokens")));
    QVERIFY(cellText(window, 0, 0, 4).startsWith(
        QStringLiteral("head 0 · query 0 'Attention' → key 4 'need': weight ")));
  }

  void scalingToggleChangesMaxWeightAndMovesMarker() {
    MainWindow window(testOptions());
    window.show();
    LabSettings s;
    s.spec.d_k = 512;
    window.setSettings(s);
    QVERIFY(waitFor(window, s));
    QTRY_VERIFY_WITH_TIMEOUT(firstItem<QCPItemStraightLine>(named<QCustomPlot>(window, "saturationPlot")), kWaitMs);
    const double scaled_max = maxCell(named<QCustomPlot>(window, "gridPlot"));
    const double scaled_marker_y =
        firstItem<QCPItemTracer>(named<QCustomPlot>(window, "saturationPlot"))->position->coords().y();
    QCOMPARE(firstItem<QCPItemStraightLine>(named<QCustomPlot>(window, "saturationPlot"))->point1->coords().x(), 512.0);

    named<QAction>(window, "scalingAction")->trigger();  // the Ctrl+K shortcut's action
    QVERIFY(!named<QCheckBox>(window, "scaling")->isChecked());
    s.spec.mechanism = attnlab::Mechanism::kDot;
    QVERIFY(waitFor(window, s));
    const double unscaled_max = maxCell(named<QCustomPlot>(window, "gridPlot"));
    const double unscaled_marker_y =
        firstItem<QCPItemTracer>(named<QCustomPlot>(window, "saturationPlot"))->position->coords().y();
    qInfo("max plotted weight at d_k = 512: scaled %.3f, unscaled %.3f", scaled_max, unscaled_max);
    QVERIFY(unscaled_max > scaled_max + 0.2);
    QVERIFY(unscaled_max > 0.95);  // saturated: one-hot rows
    QVERIFY(std::abs(unscaled_marker_y - scaled_marker_y) > 0.1);

    named<QAction>(window, "dkDownAction")->trigger();  // d_k 512 → 256: the marker follows at once
    QCOMPARE(named<QSpinBox>(window, "dkSpin")->value(), 256);
    QTRY_COMPARE_WITH_TIMEOUT(
        firstItem<QCPItemStraightLine>(named<QCustomPlot>(window, "saturationPlot"))->point1->coords().x(), 256.0,
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
    QVERIFY(waitFor(window, window.settings()));
    const int n_source = tokenCount(s.source), n_target = tokenCount(s.text);
    QVERIFY(n_source != n_target);
    QCPColorMap* map = mapOf(named<QCustomPlot>(window, "gridPlot"), 0);
    QCOMPARE(map->data()->keySize(), n_source);    // columns: keys from the source
    QCOMPARE(map->data()->valueSize(), n_target);  // rows: queries from the target
    QCOMPARE(tickLabels(named<QCustomPlot>(window, "gridPlot"), "key_label").first(), QStringLiteral("The"));
    QCOMPARE(tickLabels(named<QCustomPlot>(window, "gridPlot"), "query_label").first(), QStringLiteral("Le"));
    // The enlarged head names the axes for a lecturer: query (target), key (source).
    named<gui::HeadsView>(window, "headsView")->enlargeHead(0);
    QTest::qWait(30);
    QStringList axes;
    for (const QJsonValue& v : views::layoutJson(*named<QCustomPlot>(window, "headPlot"))["texts"].toArray())
      if (v.toObject()["role"].toString() == QLatin1String("axis_title")) axes << v.toObject()["text"].toString();
    QCOMPARE(axes, (QStringList{"key (source)", "query (target)"}));
    QCOMPARE(window.currentResult()->run.attention.nQ(), n_target);
    QCOMPARE(window.currentResult()->run.attention.nK(), n_source);
  }

  void everyExportWritesValidFiles() {
    MainWindow window(testOptions());
    window.show();
    QVERIFY(waitFor(window, window.settings()));
    QTRY_VERIFY_WITH_TIMEOUT(firstItem<QCPItemStraightLine>(named<QCustomPlot>(window, "saturationPlot")), kWaitMs);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::pair<ExportTarget, QString> targets[] = {{ExportTarget::kCurrentHead, "head"},
                                                        {ExportTarget::kAllHeads, "heads"},
                                                        {ExportTarget::kSaturation, "saturation"}};
    for (const auto& [target, name] : targets) {
      const QString png = dir.filePath(name + ".png");
      named<gui::ExportController>(window, "exportController")->exportImage(target, png, {640, 480, 2.0});
      const QImage image(png);
      QVERIFY2(!image.isNull(), qPrintable(png));
      QCOMPARE(image.size(), QSize(1280, 960));

      const QString svg = dir.filePath(name + ".svg");
      named<gui::ExportController>(window, "exportController")->exportImage(target, svg, named<gui::ExportController>(window, "exportController")->defaultSize(target));
      QSvgRenderer renderer(svg);
      QVERIFY2(renderer.isValid(), qPrintable(svg));

      const QString pdf = dir.filePath(name + ".pdf");
      named<gui::ExportController>(window, "exportController")->exportImage(target, pdf, named<gui::ExportController>(window, "exportController")->defaultSize(target));
      QFile file(pdf);
      QVERIFY(file.open(QIODevice::ReadOnly));
      const QByteArray bytes = file.readAll();
      QVERIFY2(bytes.startsWith("%PDF-") && bytes.contains("%%EOF"), qPrintable(pdf));
    }
    named<gui::ExportController>(window, "exportController")->exportMatrices(dir.filePath("all.csv"), -1);
    QFile csv(dir.filePath("all.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QVERIFY(csv.readLine().startsWith("head,query,query_token,key,key_token,score,weight,masked"));
    named<gui::ExportController>(window, "exportController")->exportMatrices(dir.filePath("all.npy"), -1);
    QFile npy(dir.filePath("all.npy"));
    QVERIFY(npy.open(QIODevice::ReadOnly));
    const QByteArray header = npy.read(128);
    QVERIFY(header.startsWith("\x93NUMPY"));
    QVERIFY(header.contains("(8, 11, 11)"));
    // File → Export → Interactive page: the page render --out FILE.html writes, its words in the
    // language asked for (the browser test: tests/app/html_export.py).
    const long long bytes = named<gui::ExportController>(window, "exportController")->exportHtml(dir.filePath("all.html"), "zh_CN");
    QFile html(dir.filePath("all.html"));
    QVERIFY(html.open(QIODevice::ReadOnly));
    const QByteArray page = html.readAll();
    QCOMPARE(page.size(), bytes);
    QVERIFY(page.contains("<html lang=\"zh-CN\">"));
    QVERIFY(page.contains("\"heads\":8"));
    QVERIFY(page.contains("\"nq\":11"));
    // A bad path is an error, not a crash.
    QVERIFY_THROWS_EXCEPTION(attnlab::Error,
                             named<gui::ExportController>(window, "exportController")->exportImage(ExportTarget::kAllHeads,
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
    QTRY_VERIFY_WITH_TIMEOUT(!named<gui::InputsPanel>(window, "inputsPanel")->message().isEmpty(), kWaitMs);
    QCOMPARE(window.currentResult(), good);
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), 8);
    s.text = QStringLiteral("fine again");
    s.setCausal(true);
    s.source = QStringLiteral("with a source");  // causal + cross is invalid
    window.setSettings(s);
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::InputsPanel>(window, "inputsPanel")->message().contains(QStringLiteral("causal")), kWaitMs);
    QCOMPARE(window.currentResult(), good);
    // The command line's words for the command line's limits.
    s = LabSettings{};
    s.text = QString(5000, QLatin1Char('a')).replace(QLatin1String("a"), QLatin1String("a "));
    window.setSettings(s);
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::InputsPanel>(window, "inputsPanel")->message().contains(QStringLiteral("at most 4096 per side")), kWaitMs);
    QCOMPARE(window.currentResult(), good);
  }

  void variantsGroupSetsTheSameFieldsAndRefusesInTheSameWords() {
    MainWindow window(testOptions());
    window.show();
    QVERIFY(waitFor(window, window.settings()));
    const auto good = window.currentResult();
    VariantsBox* variants = named<gui::InputsPanel>(window, "inputsPanel")->variants();
    QVERIFY(variants);
    // 8 heads: K/V heads offered are the divisors 8, 4, 2, 1.
    QCOMPARE(variants->kvHeadsCombo()->count(), 4);
    variants->kvHeadsCombo()->setCurrentIndex(variants->kvHeadsCombo()->findData(2));
    variants->windowSpin()->setValue(4);
    variants->positionsCombo()->setCurrentIndex(
        variants->positionsCombo()->findData(static_cast<int>(attnlab::Positions::kRope)));
    LabSettings s = window.settings();
    QCOMPARE(s.spec.kv_heads, 2);
    QCOMPARE(s.spec.window, 4);
    QVERIFY(s.spec.positions == attnlab::Positions::kRope);
    QVERIFY(waitFor(window, s));
    // The head grid frames the two K/V groups; the title names the variant.
    const QJsonObject layout = views::layoutJson(*named<QCustomPlot>(window, "gridPlot"));
    const QJsonArray maps = layout["maps"].toArray();
    QCOMPARE(maps.size(), 8);
    for (int k = 0; k < 8; ++k) QCOMPARE(maps[k].toObject()["kv_head"].toInt(), k / 4);
    QString title;
    for (const QJsonValue& v : layout["texts"].toArray())
      if (v.toObject()["role"].toString() == QLatin1String("title")) title += v.toObject()["text"].toString();
    QVERIFY(title.contains(QStringLiteral("GQA 8 q / 2 kv")));
    // A stride without a window: refused inline with the command line's words, picture kept.
    variants->windowSpin()->setValue(0);
    QVERIFY(waitFor(window, window.settings()));
    const auto with_variants = window.currentResult();
    variants->strideSpin()->setValue(3);
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::InputsPanel>(window, "inputsPanel")->message().contains(
                                 QStringLiteral("--stride adds keys to a sliding window: set --window too")),
                             kWaitMs);
    QCOMPARE(window.currentResult(), with_variants);
    variants->strideSpin()->setValue(0);
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::InputsPanel>(window, "inputsPanel")->message().isEmpty(), kWaitMs);
    (void)good;
  }

  void clickingEnlargesAHeadAndShowsTheRow() {
    MainWindow window(testOptions());
    window.show();
    QVERIFY(waitFor(window, window.settings()));
    named<gui::HeadsView>(window, "headsView")->enlargeHead(3);
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->enlargedHead(), 3);
    QCOMPARE(named<QCustomPlot>(window, "headPlot")->plottableCount(), 1);
    QCOMPARE(named<QCustomPlot>(window, "headPlot")->plottable(0)->name(), QStringLiteral("head 3"));
    named<gui::HeadsView>(window, "headsView")->selectRow(6);  // "because"
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->selectedRow(), 6);
    QTest::qWait(20);
    QCPBars* bars = nullptr;
    for (int k = 0; k < named<QCustomPlot>(window, "rowPlot")->plottableCount(); ++k)
      bars = bars ? bars : qobject_cast<QCPBars*>(named<QCustomPlot>(window, "rowPlot")->plottable(k));
    QVERIFY(bars);
    QCOMPARE(bars->data()->size(), 11);
    double sum = 0;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
      sum += it->value;
    QVERIFY(std::abs(sum - 1.0) < 1e-4);
    // A click on a grid cell enlarges that head with the clicked row selected.
    window.showGrid();
    // Where the layout put map 1's cell (query 4, key 2): the centre of that cell.
    const QJsonObject m = views::layoutJson(*named<QCustomPlot>(window, "gridPlot"))["maps"].toArray().at(1).toObject();
    const double c = m["cell_width"].toDouble();
    const QPointF cell(m["x"].toDouble() + 2.5 * c, m["y"].toDouble() + 4.5 * c);
    QTest::mouseClick(named<QCustomPlot>(window, "gridPlot"), Qt::LeftButton, {}, cell.toPoint());
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->enlargedHead(), 1);
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->selectedRow(), 4);
  }

  void longInputShowsAnOverview() {
    MainWindow window(testOptions());
    window.resize(1500, 920);
    window.show();
    LabSettings s;
    QStringList words;
    for (int i = 0; i < 600; ++i) words << QStringLiteral("w%1").arg(i % 40);
    s.text = words.join(QLatin1Char(' '));
    window.setSettings(s);
    QVERIFY(waitFor(window, window.settings()));
    QVERIFY2(named<gui::HeadsView>(window, "headsView")->gridNote().startsWith(QStringLiteral("Overview: 600 query tokens")), qPrintable(named<gui::HeadsView>(window, "headsView")->gridNote()));
    const QJsonObject layout = views::layoutJson(*named<QCustomPlot>(window, "gridPlot"));
    QVERIFY(layout["maps"].toArray().at(0).toObject()["block"].toInt() > 1);
    QCOMPARE(layout["color_scale"].toString(), QStringLiteral("log"));
    // Hover names exact tokens inside a block.
    QVERIFY(cellText(window, 0, 123, 456).contains(QStringLiteral("query 123 'w3' → key 456 'w16'")));
  }

  void cellsSquareAndLabelsApartAtEveryLength() {
    // The window's --layout-json: n ∈ {3, 11, 17 (Chinese), 60, 500}, English and 中文, the
    // normal layout and presentation mode.
    MainWindow window(testOptions());
    window.resize(1500, 920);
    window.show();
    for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
      window.setLanguage(language);
      for (int n : {3, 11, 17, 60, 500}) {
        LabSettings s;
        s.text = textOf(n, n == 17);
        window.setSettings(s);
        QVERIFY(waitFor(window, window.settings()));
        QCOMPARE(window.currentResult()->attention().nQ(), n);
        // Replots run one plot per event-loop pass: wait for the layout to be on screen.
        const auto settled = [&window] {
          double cell = -1;
          for (int i = 0; i < 300 && (cell = checkLayout(window, false)) <= 0; ++i) QTest::qWait(10);
          return cell > 0 ? cell : checkLayout(window, true);
        };
        const double grid = settled();
        QVERIFY2(grid > 0, qPrintable(QStringLiteral("grid layout check %1 at n = %2").arg(grid).arg(n)));
        qInfo("%s, %d tokens: grid cell %.1f px", qPrintable(language), n, grid);
        window.setPresentationMode(true);
        QVERIFY(named<gui::HeadsView>(window, "headsView")->enlargedHead() >= 0);
        const double head = settled();
        QVERIFY2(head > 0, qPrintable(QStringLiteral("presentation layout check %1 at n = %2").arg(head).arg(n)));
        qInfo("%s, %d tokens: presentation cell %.1f px", qPrintable(language), n, head);
        window.setPresentationMode(false);
        window.showGrid();
        window.resize(1500, 920);  // offscreen full screen forgets the size before it
      }
    }
    window.setLanguage(QStringLiteral("en"));
  }

  void openingAModelShowsEveryLayerAndHead() {
    MainWindow window(testOptions());
    window.show();
    QVERIFY(waitFor(window, window.settings()));
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(tinyGpt2());  // what File → Open model… calls after its dialog
    QCOMPARE(named<gui::ModelSource>(window, "modelSourceBox")->dir(), tinyGpt2());
    QVERIFY(waitForModel(window));
    const auto shown = window.currentResult();
    QVERIFY(shown->model);
    QCOMPARE(shown->model->name, QStringLiteral("tiny-gpt2"));
    QCOMPARE(shown->entries(), 2);
    QVERIFY(named<gui::HeadsView>(window, "headsView")->modelView());
    // Layers × heads thumbnails, rows = queries and columns = keys of the model's own tokens.
    const int n = shown->attention(0).nQ();
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), 2 * 4);
    for (int k = 0; k < 8; ++k) {
      QCOMPARE(mapOf(named<QCustomPlot>(window, "gridPlot"), k)->data()->keySize(), n);
      QCOMPARE(mapOf(named<QCustomPlot>(window, "gridPlot"), k)->data()->valueSize(), n);
    }
    QVERIFY(titleOf(named<QCustomPlot>(window, "gridPlot")).contains(QStringLiteral("tiny-gpt2")));
    // The model decides the shapes: the synthetic inputs are disabled and show its values.
    QVERIFY(!named<QSpinBox>(window, "dkSpin")->isEnabled());
    QCOMPARE(named<QSpinBox>(window, "dkSpin")->value(), 16);  // 64 / 4
    QVERIFY(named<QCheckBox>(window, "scaling")->isEnabled());
    QVERIFY(!named<QPlainTextEdit>(window, "pair")->isEnabled());   // GPT-2 reads one text
    QCOMPARE(named<QComboBox>(window, "layer")->count(), 3);  // all layers, layer 0, layer 1
    // GPT-2 is causal: keys after the query are masked (NaN cells) in every thumbnail.
    QVERIFY(std::isnan(mapOf(named<QCustomPlot>(window, "gridPlot"), 0)->data()->cell(n - 1, 0)));

    // Typing recomputes on the worker as before.
    named<QPlainTextEdit>(window, "text")->clear();
    QTest::keyClicks(named<QPlainTextEdit>(window, "text"), QStringLiteral("hello world"));
    QVERIFY(waitForModel(window));
    QCOMPARE(window.currentResult()->settings.text, QStringLiteral("hello world"));
    QVERIFY(window.currentResult()->attention(0).nQ() != n);

    // The scaling toggle still applies to a real model.
    const double scale = window.currentResult()->attention(0).scale;
    named<QAction>(window, "scalingAction")->trigger();
    QVERIFY(waitForModel(window));
    QCOMPARE(window.currentResult()->attention(0).scale, 1.0);
    QVERIFY(std::abs(scale - 0.25) < 1e-6);  // 1/√16

    // And back to the synthetic lab, with its own d_k.
    named<QAction>(window, "syntheticAction")->trigger();
    QVERIFY(named<gui::ModelSource>(window, "modelSourceBox")->dir().isEmpty());
    QVERIFY(waitFor(window, window.settings()));
    QVERIFY(!window.currentResult()->model);
    QVERIFY(named<QSpinBox>(window, "dkSpin")->isEnabled());
    QCOMPARE(named<QSpinBox>(window, "dkSpin")->value(), 8);
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), 8);
  }

  void layerSelectorSwitchesBetweenModelViewAndHeadGrid() {
    MainWindow window(testOptions());
    window.show();
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(tinyGpt2());
    QVERIFY(waitForModel(window));
    QVERIFY(named<gui::HeadsView>(window, "headsView")->modelView());
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), 8);

    named<QComboBox>(window, "layer")->setCurrentIndex(named<QComboBox>(window, "layer")->findData(1));  // "Layer 1"
    QCOMPARE(named<gui::ModelSource>(window, "modelSourceBox")->layer().value_or(-1), 1);
    QVERIFY(waitForModel(window));
    QVERIFY(!named<gui::HeadsView>(window, "headsView")->modelView());
    QCOMPARE(window.currentResult()->entries(), 1);
    QCOMPARE(window.currentResult()->layerIndices().front(), 1);
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), 4);  // one layer's heads, with token labels
    QVERIFY(!tickLabels(named<QCustomPlot>(window, "gridPlot"), "key_label").isEmpty());
    QVERIFY2(titleOf(named<QCustomPlot>(window, "gridPlot")).startsWith(QStringLiteral("tiny-gpt2 · layer 1 · 4 heads")),
             qPrintable(titleOf(named<QCustomPlot>(window, "gridPlot"))));
    QVERIFY(cellText(window, 2, 1, 0).startsWith(QStringLiteral("layer 1 · head 2 · query 1")));

    named<QComboBox>(window, "layer")->setCurrentIndex(0);  // "All layers"
    QCOMPARE(named<gui::ModelSource>(window, "modelSourceBox")->layer().value_or(-1), -1);
    QVERIFY(waitForModel(window));
    QVERIFY(named<gui::HeadsView>(window, "headsView")->modelView());
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), 8);
  }

  void clickingAThumbnailEnlargesThatLayerAndHead() {
    MainWindow window(testOptions());
    window.resize(1500, 920);
    window.show();
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(tinyGpt2());
    QVERIFY(waitForModel(window));
    const int h = 4;
    // Plottable r·h + k is layer r, head k: layer 1, head 2 is number 6.
    const QJsonObject m = views::layoutJson(*named<QCustomPlot>(window, "gridPlot"))["maps"].toArray().at(1 * h + 2).toObject();
    const double c = m["cell_width"].toDouble();
    const QPointF cell(m["x"].toDouble() + 1.5 * c, m["y"].toDouble() + 2.5 * c);
    QTest::mouseClick(named<QCustomPlot>(window, "gridPlot"), Qt::LeftButton, {}, cell.toPoint());
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->enlargedLayer(), 1);
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->enlargedHead(), 2);
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->selectedRow(), 2);
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->focusLayer(), 1);
    QCOMPARE(named<QCustomPlot>(window, "headPlot")->plottableCount(), 1);
    QCOMPARE(named<QCustomPlot>(window, "headPlot")->plottable(0)->name(), QStringLiteral("head 2"));
    QVERIFY2(titleOf(named<QCustomPlot>(window, "headPlot")).contains(QStringLiteral("layer 1")),
             qPrintable(titleOf(named<QCustomPlot>(window, "headPlot"))));
    // The enlarged map holds exactly layer 1, head 2's weights.
    const attnlab::AttentionResult& layer1 = window.currentResult()->attention(1);
    QCPColorMapData* data = mapOf(named<QCustomPlot>(window, "headPlot"), 0)->data();
    QCOMPARE(data->keySize(), layer1.nK());
    QCOMPARE(data->cell(0, 2), static_cast<double>(layer1.weights(2, 2, 0)));
    // The side panels follow the enlarged layer; back to the model view with Escape.
    QTRY_VERIFY_WITH_TIMEOUT(titleOf(named<QCustomPlot>(window, "entropyPlot")).contains(QStringLiteral("layer 1")),
                             kWaitMs);
    QTest::keyClick(&window, Qt::Key_Escape);
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->enlargedLayer(), -1);
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->focusLayer(), 0);
    // enlargeLayerHead is the same path without the mouse; a layer that is not shown is ignored.
    named<gui::HeadsView>(window, "headsView")->enlargeLayerHead(0, 3);
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->enlargedLayer(), 0);
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->enlargedHead(), 3);
    window.showGrid();
    named<gui::HeadsView>(window, "headsView")->enlargeLayerHead(5, 0);
    QCOMPARE(named<gui::HeadsView>(window, "headsView")->enlargedLayer(), -1);
  }

  void brokenModelFolderShowsInlineErrorAndKeepsPicture() {
    MainWindow window(testOptions());
    window.show();
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(tinyGpt2());
    QVERIFY(waitForModel(window));
    const int maps = named<QCustomPlot>(window, "gridPlot")->plottableCount();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeT5Folder(dir.path());
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(dir.path());
    QTRY_VERIFY_WITH_TIMEOUT(!named<gui::ModelSource>(window, "modelSourceBox")->message().isEmpty(), kWaitMs);
    QVERIFY2(named<gui::ModelSource>(window, "modelSourceBox")->message().contains(QStringLiteral("t5")),
             qPrintable(named<gui::ModelSource>(window, "modelSourceBox")->message()));
    // The window goes back to the model on screen; its picture stays.
    QCOMPARE(named<gui::ModelSource>(window, "modelSourceBox")->dir(), tinyGpt2());
    QVERIFY(waitForModel(window));
    QCOMPARE(window.currentResult()->model->name, QStringLiteral("tiny-gpt2"));
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), maps);
    QVERIFY(!named<gui::ModelSource>(window, "modelSourceBox")->message().isEmpty());  // still said, until the next choice

    // A folder without config.json, from the synthetic lab: the lab stays.
    named<gui::ModelSource>(window, "modelSourceBox")->showSynthetic();
    QVERIFY(named<gui::ModelSource>(window, "modelSourceBox")->message().isEmpty());
    QVERIFY(waitFor(window, window.settings()));
    QTemporaryDir empty;
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(empty.path());
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::ModelSource>(window, "modelSourceBox")->message().contains(QStringLiteral("config.json")),
                             kWaitMs);
    QVERIFY(named<gui::ModelSource>(window, "modelSourceBox")->dir().isEmpty());
    QVERIFY(waitFor(window, window.settings()));
    QVERIFY(!window.currentResult()->model);
  }

  void hidingSpecialTokensDropsTheirRowsAndColumns() {
    MainWindow window(testOptions());
    window.show();
    LabSettings s = window.settings();
    s.model_dir = tinyGpt2();
    s.layer = 0;
    s.text = QStringLiteral("<|endoftext|>the cat sat");  // <|endoftext|> is GPT-2's special token
    window.setSettings(s);
    QVERIFY(waitForModel(window));
    const auto all = window.currentResult();
    const int n = all->attention(0).nQ();
    QVERIFY(all->model_run->encoding.special.front());
    QCOMPARE(mapOf(named<QCustomPlot>(window, "gridPlot"), 0)->data()->keySize(), n);
    QVERIFY(!named<gui::HeadsView>(window, "headsView")->gridNote().contains(QStringLiteral("special tokens hidden")));

    named<QCheckBox>(window, "hideSpecial")->setChecked(true);
    QVERIFY(waitForModel(window));
    const auto filtered = window.currentResult();
    QVERIFY(filtered->special_hidden);
    QCOMPARE(filtered->attention(0).nQ(), n - 1);
    QCOMPARE(mapOf(named<QCustomPlot>(window, "gridPlot"), 0)->data()->keySize(), n - 1);
    QCOMPARE(mapOf(named<QCustomPlot>(window, "gridPlot"), 0)->data()->valueSize(), n - 1);
    QVERIFY(!filtered->query_tokens.contains(QStringLiteral("<|endoftext|>")));
    QVERIFY(named<gui::HeadsView>(window, "headsView")->gridNote().contains(QStringLiteral("weights not renormalised")));
    QVERIFY(titleOf(named<QCustomPlot>(window, "gridPlot")).contains(QStringLiteral("special tokens hidden")));
    // Not renormalised: the weights are the model's, the special column left out.
    QCOMPARE(filtered->attention(0).weights(1, 1, 0), all->attention(0).weights(1, 2, 1));
    // The same forward pass: toggling the filter does not rerun the model.
    QCOMPARE(filtered->model_run, all->model_run);
  }

  void modelExportsWriteEveryLayer() {
    MainWindow window(testOptions());
    window.show();
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(tinyGpt2());
    QVERIFY(waitForModel(window));
    const int n = window.currentResult()->attention(0).nQ();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    named<gui::ExportController>(window, "exportController")->exportMatrices(dir.filePath("layers.npy"), -1);
    QFile npy(dir.filePath("layers.npy"));
    QVERIFY(npy.open(QIODevice::ReadOnly));
    QVERIFY2(npy.read(128).contains(QStringLiteral("(2, 4, %1, %1)").arg(n).toLatin1()),
             "NPY shape [L, h, n, n]");
    named<gui::ExportController>(window, "exportController")->exportMatrices(dir.filePath("layers.csv"), -1);
    QFile csv(dir.filePath("layers.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QVERIFY(csv.readLine().startsWith("layer,head,query,query_token,key,key_token"));
    // The interactive page of the model view holds every layer.
    named<gui::ExportController>(window, "exportController")->exportHtml(dir.filePath("layers.html"), "en");
    QFile html(dir.filePath("layers.html"));
    QVERIFY(html.open(QIODevice::ReadOnly));
    QCOMPARE(html.readAll().count("\"index\":"), 2);
    for (const QString& suffix :
         {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
      const QString path = dir.filePath(QStringLiteral("layers.") + suffix);
      named<gui::ExportController>(window, "exportController")->exportImage(ExportTarget::kAllHeads, path,
                         named<gui::ExportController>(window, "exportController")->defaultSize(ExportTarget::kAllHeads));
      QVERIFY2(QFileInfo(path).size() > 1000, qPrintable(path));
    }
    const views::ImageSize grid = named<gui::ExportController>(window, "exportController")->defaultSize(ExportTarget::kAllHeads);
    QCOMPARE(QImage(dir.filePath("layers.png")).size(), QSize(grid.width, grid.height));
    named<gui::ExportController>(window, "exportController")->exportImage(ExportTarget::kSaturation, dir.filePath("saturation.png"), {640, 480, 1.0});
    QVERIFY(!QImage(dir.filePath("saturation.png")).isNull());

    // One layer: the synthetic shapes, [h, n, n].
    named<gui::ModelSource>(window, "modelSourceBox")->setLayer(1);
    QVERIFY(waitForModel(window));
    named<gui::ExportController>(window, "exportController")->exportMatrices(dir.filePath("layer1.npy"), -1);
    QFile one(dir.filePath("layer1.npy"));
    QVERIFY(one.open(QIODevice::ReadOnly));
    QVERIFY(one.read(128).contains(QStringLiteral("(4, %1, %1)").arg(n).toLatin1()));
    named<gui::HeadsView>(window, "headsView")->enlargeHead(3);
    named<gui::ExportController>(window, "exportController")->exportImage(ExportTarget::kCurrentHead, dir.filePath("head.png"), {500, 500, 1.0});
    QVERIFY(!QImage(dir.filePath("head.png")).isNull());
  }

  void rememberedModelFolderReopensOrFallsBack() {
    QTemporaryDir broken;
    QVERIFY(broken.isValid());
    writeT5Folder(broken.path());
    for (const QString& folder : {tinyGpt2(), broken.path()}) {
      {
        QSettings store;
        LabSettings s;
        s.model_dir = folder;
        attnlab::options::saveSettings(store, s);
      }
      WindowOptions options = testOptions();
      options.restore_settings = true;  // read the stored inputs; persist stays off
      MainWindow window(options);
      window.show();
      if (folder == tinyGpt2()) {
        QCOMPARE(named<gui::ModelSource>(window, "modelSourceBox")->dir(), folder);
        QVERIFY(waitForModel(window));
        QVERIFY(window.currentResult()->model);
        QVERIFY(named<gui::ModelSource>(window, "modelSourceBox")->message().isEmpty());
      } else {
        // Says so inline and shows the synthetic lab instead.
        QTRY_VERIFY_WITH_TIMEOUT(!named<gui::ModelSource>(window, "modelSourceBox")->message().isEmpty(), kWaitMs);
        QVERIFY(named<gui::ModelSource>(window, "modelSourceBox")->message().contains(QStringLiteral("synthetic lab")));
        QVERIFY(named<gui::ModelSource>(window, "modelSourceBox")->dir().isEmpty());
        QVERIFY(waitFor(window, window.settings()));
        QVERIFY(!window.currentResult()->model);
      }
    }
    QSettings().clear();
  }

  void commandLineTakesModelOptions() {
    const auto o = attnlab::options::parse(
        {"--model", tinyGpt2().toStdString(), "--layer", "1", "--hide-special", "--no-scale"},
        attnlab::options::kWindow);
    QCOMPARE(o.lab.model_dir, tinyGpt2());
    QCOMPARE(o.lab.layer.value_or(-5), 1);
    QVERIFY(o.lab.hide_special);
    QVERIFY(!o.lab.scaled());
    const auto all = attnlab::options::parse({"--model=tests", "--layer=all"}, attnlab::options::kWindow);
    QVERIFY(!all.lab.layer);
    QVERIFY(QFileInfo(all.lab.model_dir).isAbsolute());
  }

  void anOpenClDeviceThatIsNotThereIsSaidNotSwapped() {
    MainWindow window(testOptions());
    window.show();
    QVERIFY(waitFor(window, window.settings()));
    auto* backend = window.findChild<QComboBox*>(QStringLiteral("backend"));
    QVERIFY(backend);
    // Once the devices are listed, asking for device 99 keeps that request in the box.
    QTRY_VERIFY_WITH_TIMEOUT(backend->count() > 2 || !attnlab::listOpenClDevices().size(),
                             kWaitMs);
    LabSettings s = window.settings();
    s.backend = attnlab::options::BackendKind::kOpenCl;
    s.device = 99;
    window.setSettings(s);
    QCOMPARE(backend->currentData().toString(), QStringLiteral("opencl:99"));
    QVERIFY(backend->currentText().contains(QStringLiteral("not found")));
    QVERIFY(window.settings().backend == attnlab::options::BackendKind::kOpenCl);
    QCOMPARE(window.settings().device, 99);
    if (!attnlab::listOpenClDevices().empty()) {
      // With devices present, a wrong index is an error beside the input, as on the command line.
      QTRY_VERIFY_WITH_TIMEOUT(named<gui::InputsPanel>(window, "inputsPanel")->message().contains(QStringLiteral("OpenCL device 99")),
                               kWaitMs);
    } else {
      // Without any, the CPU answers and says why.
      QVERIFY(waitFor(window, window.settings()));
      QVERIFY(!window.currentResult()->attention().fallback_reason.empty());
    }
  }

  // Issue 11: an OpenCL failure is kept and reported with every result until the user asks to
  // try again. Runs as its own CTest entry (gui_retry_opencl: it sets ATTNLAB_KERNEL_DIR for the
  // whole process), which reports "Skipped" when there is no OpenCL device.
  void retryOpenClAfterAFailedBuild() {
    if (!qEnvironmentVariableIsSet("ATTNLAB_GUI_RETRY_TEST")) QSKIP("runs as the CTest entry gui_retry_opencl");
    if (attnlab::listOpenClDevices().empty()) {
      std::printf("ATTNLAB_TEST_SKIPPED: no OpenCL device\n");
      return;
    }
    QTemporaryDir kernels;
    QVERIFY(kernels.isValid());
    const QDir source(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/../../kernels"));
    const QStringList files = source.entryList({QStringLiteral("*.cl")}, QDir::Files);
    QVERIFY(!files.isEmpty());
    auto write = [&](bool broken) {
      for (const QString& file : files) {
        QFile in(source.filePath(file));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QFile out(kernels.filePath(file));
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(in.readAll());
        if (broken) out.write("\nthis line is not OpenCL C\n");
      }
    };
    write(true);
    qputenv("ATTNLAB_KERNEL_DIR", kernels.path().toUtf8());
    MainWindow window(testOptions());
    window.show();
    auto* retry = window.findChild<QPushButton*>(QStringLiteral("retryOpenCl"));
    QVERIFY(retry);
    auto* in_use = window.findChild<QLabel*>(QStringLiteral("backendInUse"));
    QVERIFY(in_use);
    // auto builds in the background: results come from the CPU, then say why OpenCL failed.
    LabSettings s = window.settings();
    for (int i = 0; i < 600 && !retry->isVisible(); ++i) {
      s.seed = s.seed + 1;  // a new request each time, so the backend is asked again
      window.setSettings(s);
      QVERIFY(waitFor(window, s));
      if (!retry->isVisible()) QTest::qWait(200);
    }
    QVERIFY2(retry->isVisible(), qPrintable(in_use->text()));
    QVERIFY2(in_use->toolTip().contains(QStringLiteral("clBuildProgram")), qPrintable(in_use->toolTip()));
    // Fixed kernels and Retry: the kept failure is forgotten and the programs build again.
    write(false);
    QTest::mouseClick(retry, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!window.controller().busy(), kWaitMs);
    QTest::qWait(50);
    QVERIFY2(!retry->isVisible(), qPrintable(in_use->text()));
    for (int i = 0; i < 600 && window.currentResult()->attention().backend != "opencl"; ++i) {
      QTest::qWait(200);
      s.seed = s.seed + 1;
      window.setSettings(s);
      QVERIFY(waitFor(window, s));
    }
    QCOMPARE(QString::fromStdString(window.currentResult()->attention().backend), QStringLiteral("opencl"));
    qunsetenv("ATTNLAB_KERNEL_DIR");
  }

  void switchingToChineseChangesTheMenus() {
    MainWindow window(testOptions());
    window.show();
    QCOMPARE(named<QMenu>(window, "fileMenu")->title(), QStringLiteral("&File"));
    window.setLanguage(QStringLiteral("zh_CN"));
    QCOMPARE(window.language(), QStringLiteral("zh_CN"));
    QCOMPARE(named<QMenu>(window, "fileMenu")->title(), QStringLiteral("文件(&F)"));
    QCOMPARE(named<QAction>(window, "scalingAction")->text(), QStringLiteral("切换 1/√d_k 缩放"));
    QCOMPARE(named<QAction>(window, "openModelAction")->text(), QStringLiteral("打开模型…"));
    QCOMPARE(named<QComboBox>(window, "layer")->itemText(0), QStringLiteral("全部层（模型视图）"));
    QCOMPARE(named<QCheckBox>(window, "hideSpecial")->text(),
             QStringLiteral("隐藏特殊词元"));
    // The examples too (their titles in examples.json, in both languages); the rollout's "&"
    // shown, not taken as a mnemonic.
    QCOMPARE(named<QAction>(window, "chinese")->text(), QStringLiteral("中文：小猫的句子"));
    QCOMPARE(named<QAction>(window, "cat")->text(), QStringLiteral("小猫与“它”（指代消解）"));
    QVERIFY(named<QCheckBox>(window, "rollout")->text().contains(QStringLiteral("Abnar && Zuidema")));
    // Every word, the backend line and the inline message included.
    QVERIFY(waitFor(window, window.settings()));
    auto* in_use = window.findChild<QLabel*>(QStringLiteral("backendInUse"));
    QVERIFY(in_use);
    QVERIFY2(in_use->text().startsWith(QStringLiteral("正在使用")), qPrintable(in_use->text()));
    QVERIFY2(!in_use->text().contains(QStringLiteral("computed on the CPU")), qPrintable(in_use->text()));
    LabSettings s = window.settings();
    s.text = QStringLiteral("  ");
    window.setSettings(s);
    QTRY_VERIFY_WITH_TIMEOUT(!named<gui::InputsPanel>(window, "inputsPanel")->message().isEmpty(), kWaitMs);
    QVERIFY2(!named<gui::InputsPanel>(window, "inputsPanel")->message().contains(QStringLiteral("only white space")), qPrintable(named<gui::InputsPanel>(window, "inputsPanel")->message()));
    QVERIFY2(titleOf(named<QCustomPlot>(window, "gridPlot")).contains(QStringLiteral("个头")), qPrintable(titleOf(named<QCustomPlot>(window, "gridPlot"))));
    window.setLanguage(QStringLiteral("en"));
    QCOMPARE(named<QMenu>(window, "fileMenu")->title(), QStringLiteral("&File"));
    QCOMPARE(named<QAction>(window, "chinese")->text(), QStringLiteral("Chinese: the cat sentence"));
    QVERIFY(named<QCheckBox>(window, "rollout")->text().contains(QStringLiteral("Abnar && Zuidema")));
  }
};

QTEST_MAIN(MainWindowTest)
#include "test_main_window.moc"
