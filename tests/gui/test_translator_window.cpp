/// \file test_translator_window.cpp
/// The trained translators in the window (issue 23, item 4), driven in-process on the offscreen
/// platform: a bundled translator chosen from the model list keeps LabSettings::translator when the
/// window rebuilds its settings, its date goes in the source field and "2021-03-03" comes out as
/// an output × source map; the decoding dock reveals the output rows one at a time; the knobs that
/// do not apply are greyed with the command line's words, the Transformer's scaling and attention
/// choice act; the lab's texts come back with the lab; the training curves are a dock.

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSlider>
#include <QtTest>

#include "decode_panel.hpp"
#include "heads_view.hpp"
#include "main_window.hpp"
#include "model_source.hpp"
#include "options/bundled_models.hpp"
#include "options/options.hpp"
#include "views/heatmap.hpp"
#include "window_test_support.hpp"

using attnlab::test::named;
namespace gui = attnlab::gui;
using attnlab::options::LabSettings;

namespace {

constexpr int kWaitMs = 20000;

/// Chooses the model list's entry for `dir` as a click would (QComboBox::activated).
void choose(gui::MainWindow& window, const QString& dir) {
  auto* combo = named<QComboBox>(window, "modelSource");
  const int index = combo->findData(dir);
  QVERIFY2(index >= 0, qPrintable(QStringLiteral("%1 is not in the model list").arg(dir)));
  combo->setCurrentIndex(index);
  emit combo->activated(index);
}

/// Waits for a translator's result of the window's current settings.
bool waitForTranslation(gui::MainWindow& window) {
  const bool shown = attnlab::test::waitFor(window, window.settings(), kWaitMs, 50);
  return shown && window.currentResult()->translator != nullptr;
}

QString output(const gui::MainWindow& window) {
  return QString::fromStdString(window.currentResult()->translator->translation->output);
}

}  // namespace

class TranslatorWindowTest : public QObject {
  Q_OBJECT
 private slots:
  void chosenTranslatorGeneratesTheDateStepByStep() {
    const QString additive = attnlab::options::findBundledModel(QStringLiteral("dates-additive")).value_or(QString());
    QVERIFY(!additive.isEmpty());
    gui::MainWindow window(attnlab::test::testOptions());
    window.resize(1280, 720);
    window.show();
    QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs));
    const QString cat = window.settings().text;

    // The list's translator: the flag survives the window's settings, a date is the source.
    choose(window, additive);
    QVERIFY(window.settings().translator);
    QVERIFY(waitForTranslation(window));
    QCOMPARE(output(window), QStringLiteral("2021-03-03"));
    QCOMPARE(named<QPlainTextEdit>(window, "source")->toPlainText(), QStringLiteral("March 3rd, 2021"));
    QVERIFY(named<QPlainTextEdit>(window, "source")->isVisibleTo(&window));
    QVERIFY(!named<QPlainTextEdit>(window, "pair")->isVisibleTo(&window));

    // Another source typed: rows = the 10 characters + </s>, columns = the source's 9.
    named<QPlainTextEdit>(window, "source")->setPlainText(QStringLiteral("2021年3月3日"));
    QTRY_VERIFY_WITH_TIMEOUT(waitForTranslation(window) && window.currentResult()->settings.source ==
                                                               QStringLiteral("2021年3月3日"),
                             kWaitMs);
    const gui::ResultPtr shown = window.currentResult();
    QCOMPARE(output(window), QStringLiteral("2021-03-03"));
    QCOMPARE(shown->attention(0).nQ(), 11);
    QCOMPARE(shown->attention(0).nK(), 9);
    QCOMPARE(shown->key_tokens.join(QString()), QStringLiteral("2021年3月3日"));
    QCOMPARE(shown->query_tokens.last(), QStringLiteral("</s>"));
    // The title names the model and says d_a, the additive attention's width (not d_k).
    QString title;
    for (const QJsonValue t : attnlab::views::layoutJson(*named<QCustomPlot>(window, "gridPlot"))["texts"].toArray())
      title += t.toObject()["text"].toString() + QLatin1Char('\n');
    QVERIFY2(title.contains(QStringLiteral("dates-additive")) && title.contains(QStringLiteral("d_a = 64")) &&
                 !title.contains(QStringLiteral("d_k = ")),
             qPrintable(title));

    // Issue 50: the saturation plot marks no "d_k = 64 (scaled)" for additive attention.
    named<QDockWidget>(window, "analysisDock")->show();
    named<QDockWidget>(window, "analysisDock")->raise();
    {
      auto* saturation = named<QCustomPlot>(window, "saturationPlot");
      QTRY_VERIFY_WITH_TIMEOUT(saturation->graphCount() >= 6, kWaitMs);  // the curves drawn
      for (int i = 0; i < saturation->itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(saturation->item(i));
        QVERIFY2(!text || !text->visible() || !text->text().startsWith(QStringLiteral("d_k = ")),
                 qPrintable(text ? text->text() : QString()));
      }
    }

    // The knobs: no 1/√d_k to switch off, no causal mask, the command line's words as tooltips.
    auto* scaling = named<QCheckBox>(window, "scaling");
    QVERIFY(!scaling->isEnabled());
    QVERIFY(scaling->toolTip().contains(QStringLiteral("dates-additive uses additive attention: there is no 1/√d_k to switch off")));
    QVERIFY(named<QCheckBox>(window, "causal")->toolTip().contains(QStringLiteral("its decoder self-attention is causal already")));
    QVERIFY(!named<QComboBox>(window, "translatorAttention")->isEnabled());

    // Step by step: the dock opened with the translator; each step reveals one more row.
    auto* dock = named<QDockWidget>(window, "decodeDock");
    QTRY_VERIFY_WITH_TIMEOUT(dock->isVisible(), kWaitMs);
    QCOMPARE(dock->windowTitle(), QStringLiteral("Translation step by step"));
    auto* panel = named<gui::DecodePanel>(window, "decodePanel");
    if (panel->playButton()->text() == QStringLiteral("Pause")) panel->togglePlay();  // the first playback
    auto* heads = named<gui::HeadsView>(window, "headsView");
    panel->slider()->setValue(0);
    QCOMPARE(panel->revealedRows(), 1);
    QCOMPARE(heads->revealedRows(), 1);
    QVERIFY(panel->stepLabel()->text().contains(QStringLiteral("writes “2”")));
    for (int row = 1; row < 11; ++row) {
      panel->slider()->setValue(row);
      QCOMPARE(heads->revealedRows(), row + 1);
    }
    QVERIFY(panel->stepLabel()->text().contains(QStringLiteral("“2021-03-03”")));
    QCOMPARE(panel->slider()->maximum(), 10);

    // The Transformer: its scaling acts, its attention choice acts (decoder self: outputs × inputs).
    choose(window, attnlab::options::findBundledModel(QStringLiteral("dates-transformer")).value_or(QString()));
    QVERIFY(waitForTranslation(window));
    QCOMPARE(window.currentResult()->entries(), 2);  // the model view: 2 layers × 4 heads
    QVERIFY(heads->modelView());
    {
      // Issue 50: the model view's thumbnails carry the tokens (the first column's rows, the
      // first row's columns), not only a footnote, where their cells are large enough for them.
      window.resize(1600, 1000);
      QTest::qWait(300);  // the model view's replot at its new size
      int query_labels = 0, key_labels = 0;
      for (const QJsonValue t : attnlab::views::layoutJson(*named<QCustomPlot>(window, "gridPlot"))["texts"].toArray()) {
        query_labels += t.toObject()["role"].toString() == QStringLiteral("query_label");
        key_labels += t.toObject()["role"].toString() == QStringLiteral("key_label");
      }
      // Every token of the first column's and the first row's thumbnails (11 rows, 9 columns).
      QVERIFY2(query_labels >= 2 * 11 && query_labels % 11 == 0 && key_labels >= 2 * 9 && key_labels % 9 == 0,
               qPrintable(QStringLiteral("%1 query labels, %2 key labels").arg(query_labels).arg(key_labels)));
      window.resize(1280, 720);
    }
    QVERIFY(scaling->isEnabled() && scaling->isChecked());
    scaling->setChecked(false);
    QTRY_VERIFY_WITH_TIMEOUT(waitForTranslation(window) && window.currentResult()->spec.mechanism ==
                                                               attnlab::Mechanism::kDot,
                             kWaitMs);
    auto* attention = named<QComboBox>(window, "translatorAttention");
    QVERIFY(attention->isEnabled());
    attention->setCurrentIndex(attention->findData(static_cast<int>(attnlab::options::TranslatorAttention::kDecoderSelf)));
    QTRY_VERIFY_WITH_TIMEOUT(waitForTranslation(window) && window.currentResult()->settings.translator_attention ==
                                                               attnlab::options::TranslatorAttention::kDecoderSelf,
                             kWaitMs);
    QCOMPARE(window.currentResult()->key_tokens.first(), QStringLiteral("<s>"));

    // Back to the lab: its sentence comes back, the source is empty again.
    choose(window, QString());
    QVERIFY(!window.settings().translator);
    QCOMPARE(window.settings().text, cat);
    QVERIFY(window.settings().source.isEmpty());
  }

  void startsWithATranslatorFromTheCommandLine() {
    // attention-lab --model dates-additive --source "2021年3月3日": generated, then back to the lab.
    gui::WindowOptions options = attnlab::test::testOptions();
    options.settings = attnlab::options::parse({"--model", "dates-additive", "--source", "2021年3月3日"},
                                               attnlab::options::kWindow)
                           .lab;
    gui::MainWindow window(options);
    window.resize(1280, 720);
    window.show();
    QVERIFY(window.settings().translator);
    QVERIFY(waitForTranslation(window));
    QCOMPARE(output(window), QStringLiteral("2021-03-03"));
    QCOMPARE(window.currentResult()->key_tokens.size(), 9);
    // Issue 50: the step-by-step dock is there from the start too, and the picture names the
    // tokens on its axes (rows: the output's 11, columns: the source's 9).
    QTRY_VERIFY_WITH_TIMEOUT(named<QDockWidget>(window, "decodeDock")->isVisible(), kWaitMs);
    int query_labels = 0, key_labels = 0;
    for (const QJsonValue t : attnlab::views::layoutJson(*named<QCustomPlot>(window, "gridPlot"))["texts"].toArray()) {
      query_labels += t.toObject()["role"].toString() == QStringLiteral("query_label");
      key_labels += t.toObject()["role"].toString() == QStringLiteral("key_label");
    }
    QCOMPARE(query_labels, 11);
    QCOMPARE(key_labels, 9);
    choose(window, QString());
    QCOMPARE(window.settings().text, QString::fromUtf8(attnlab::options::kDefaultText));
    QVERIFY(window.settings().source.isEmpty());
    QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs));
    QVERIFY(window.currentResult()->translator == nullptr);
  }

  void trainingCurvesAreADock() {
    gui::MainWindow window(attnlab::test::testOptions());
    window.resize(1280, 720);
    window.show();
    auto* dock = named<QDockWidget>(window, "trainingDock");
    QVERIFY(!dock->isVisible());
    named<QAction>(window, "trainingAction")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(dock->isVisible(), kWaitMs);
    auto* plot = named<QCustomPlot>(window, "trainingPlot");
    QTRY_COMPARE_WITH_TIMEOUT(plot->graphCount(), 2, kWaitMs);  // scaled and unscaled runs
    QVERIFY(plot->graph(0)->name().startsWith(QStringLiteral("dates-transformer:")));
    QVERIFY(plot->graph(1)->name().startsWith(QStringLiteral("dates-transformer-unscaled:")));
    QVERIFY(!named<QLabel>(window, "trainingMessage")->isVisible());
  }
};

QTEST_MAIN(TranslatorWindowTest)
#include "test_translator_window.moc"
