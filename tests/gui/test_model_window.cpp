/// \file test_model_window.cpp
/// The window with Llama-family models (issue 14), driven in-process on the offscreen platform:
/// a .gguf file opens like a folder; the model view and one layer's head grid mark the query
/// heads that share a K/V head; the info line gives the KV cache per token with and without GQA;
/// the next-token predictions are under the picture; the fetched models are presets in the model
/// list; File → Open model…'s choice of a file or a folder; and a bad file or a text longer than
/// the context is said inline (translated around the loader's line) while the last picture stays.

#include <qcustomplot.h>

#include <QAction>
#include <QCryptographicHash>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QDockWidget>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "attnlab/model_tokenizer.hpp"
#include "attnlab/pretrained.hpp"
#include "compute_worker.hpp"
#include "export_controller.hpp"
#include "head_roles_panel.hpp"
#include "heads_view.hpp"
#include "inputs_panel.hpp"
#include "main_window.hpp"
#include "model_source.hpp"
#include "options/lab_settings.hpp"
#include "options/utf8_text.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "views/heatmap_paint.hpp"
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

QString data(const char* path) {
  return QDir::cleanPath(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/") + QLatin1String(path));
}
QString tinyLlamaGguf() { return data("models/tiny-llama/tiny-llama.gguf"); }
QString tinyLlamaDir() { return data("models/tiny-llama"); }
QString tinyGpt2() { return data("models/tiny-gpt2"); }
/// [{layer, head}] (out of the test class: moc reads its bodies).
std::vector<attnlab::HeadRef> oneHead(int layer, int head) { return {attnlab::HeadRef{layer, head}}; }
/// True when plot has an item named `name`.
bool hasItem(const QCustomPlot& plot, const QString& name) {
  for (int i = 0; i < plot.itemCount(); ++i)
    if (plot.item(i)->objectName() == name) return true;
  return false;
}

using attnlab::test::testOptions;

/// Waits until the window shows a result for exactly its settings and nothing is pending; the
/// model view then fits its size (one more layout pass).
bool waitForShown(MainWindow& window) {
  return attnlab::test::waitFor(window, window.settings(), kWaitMs, 150);
}

std::vector<QJsonObject> textsWithRole(QCustomPlot* plot, const QString& role) {
  std::vector<QJsonObject> out;
  for (const QJsonValue& v : views::layoutJson(*plot)["texts"].toArray())
    if (v.toObject()["role"].toString() == role) out.push_back(v.toObject());
  return out;
}

QString infoLine(MainWindow& window) {
  auto* label = window.findChild<QLabel*>(QStringLiteral("modelInfo"));
  return label ? label->text() : QString();
}

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(bytes);
}

}  // namespace

class ModelWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void aGgufFileOpensWithItsGroupsMarked() {
    MainWindow window(testOptions());
    window.resize(1500, 920);
    window.show();
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(tinyLlamaGguf());  // what File → Open model… calls after its dialog
    QCOMPARE(named<gui::ModelSource>(window, "modelSourceBox")->dir(), tinyLlamaGguf());
    QVERIFY(waitForShown(window));
    const auto shown = window.currentResult();
    QVERIFY(shown->model);
    QCOMPARE(shown->model->name, QStringLiteral("tiny-llama"));
    QVERIFY(named<gui::HeadsView>(window, "headsView")->modelView());
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), 2 * 4);
    // The model view: one box per K/V head (2), each around its two query heads.
    const QJsonObject layout = views::layoutJson(*named<QCustomPlot>(window, "gridPlot"));
    QCOMPARE(layout["kv_groups"].toArray().size(), 2);
    QCOMPARE(layout["maps"].toArray().at(3).toObject()["kv_head"].toInt(), 1);
    // The info line: K/V heads and the KV cache per token, with and without GQA.
    const QString info = infoLine(window);
    QVERIFY2(info.contains(QStringLiteral("llama, GGUF")), qPrintable(info));
    QVERIFY2(info.contains(QStringLiteral("4 query heads share 2 K/V heads")), qPrintable(info));
    QVERIFY2(info.contains(QStringLiteral(
                 "KV cache 512 bytes per token; multi-head attention would need 1 024")),
             qPrintable(info));
    // The model's predictions under the picture.
    const auto next = textsWithRole(named<QCustomPlot>(window, "gridPlot"), QStringLiteral("next_tokens"));
    QVERIFY(!next.empty());
    QVERIFY(next.front()["text"].toString().startsWith(QStringLiteral("next token (top 5): “")));

    // One layer: each head framed in its group's colour, titled with its K/V head.
    named<gui::ModelSource>(window, "modelSourceBox")->setLayer(1);
    QVERIFY(waitForShown(window));
    QVERIFY(!named<gui::HeadsView>(window, "headsView")->modelView());
    const QJsonObject grid = views::layoutJson(*named<QCustomPlot>(window, "gridPlot"));
    QVERIFY(!grid.contains("kv_groups"));
    QCOMPARE(grid["maps"].toArray().at(2).toObject()["kv_head"].toInt(), 1);
    QCOMPARE(
        textsWithRole(named<QCustomPlot>(window, "gridPlot"), QStringLiteral("panel_title")).at(1)["text"].toString(),
        QStringLiteral("head 1 · K/V 0"));
    QVERIFY(!textsWithRole(named<QCustomPlot>(window, "gridPlot"), QStringLiteral("next_tokens")).empty());
    // Toggling the scaling recomputes the predictions, drawn in place.
    const QString before =
        textsWithRole(named<QCustomPlot>(window, "gridPlot"), QStringLiteral("next_tokens")).front()["text"].toString();
    named<QCheckBox>(window, "scaling")->click();
    QVERIFY(waitForShown(window));
    const QString after =
        textsWithRole(named<QCustomPlot>(window, "gridPlot"), QStringLiteral("next_tokens")).front()["text"].toString();
    QVERIFY2(before != after, qPrintable(after));
    // Enlarged, a head names its K/V head.
    named<gui::HeadsView>(window, "headsView")->enlargeHead(3);
    const auto title = textsWithRole(named<QCustomPlot>(window, "headPlot"), QStringLiteral("title"));
    QVERIFY(!title.empty());
    QVERIFY2(title.front()["text"].toString().contains(QStringLiteral("K/V head 1 of 2")),
             qPrintable(title.front()["text"].toString()));

    // The HuggingFace folder of the same model opens too; multi-head models say so.
    window.showGrid();
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(tinyLlamaDir());
    QVERIFY(waitForShown(window));
    QCOMPARE(window.currentResult()->model->config.format, std::string("safetensors"));
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(tinyGpt2());
    QVERIFY(waitForShown(window));
    QVERIFY2(infoLine(window).contains(QStringLiteral("one K/V head per query head")),
             qPrintable(infoLine(window)));
    QVERIFY(!views::layoutJson(*named<QCustomPlot>(window, "gridPlot")).contains("kv_groups"));
  }

  void theGreyedControlsShowTheModelsValues() {
    // Issue 26: with a model the greyed Inputs and Variants show the model's heads, d_model, d_k,
    // mask, K/V heads, positions and RoPE base (or "from the model"); the synthetic lab's own
    // values come back unchanged with the lab.
    MainWindow window(testOptions());
    window.show();
    LabSettings lab;
    lab.text = QStringLiteral("the cat sat on the mat");
    lab.spec.heads = 6;
    lab.spec.d_model = 96;
    lab.spec.d_k = 32;
    lab.spec.kv_heads = 3;
    lab.spec.positions = attnlab::Positions::kRope;
    lab.spec.rope_base = 500;
    lab.spec.window = 3;
    lab.spec.global_tokens = 1;
    lab.spec.stride = 2;
    lab.spec.precision = attnlab::Precision::kBf16;
    lab.spec.dropout = 0.25;
    lab.seed = 7;
    lab.pad_to = 12;
    lab.pad_mask = false;
    window.setSettings(lab);
    QVERIFY(waitForShown(window));
    QCOMPARE(window.settings(), lab);
    auto text = [&](const char* name) { return named<QAbstractSpinBox>(window, name)->text(); };
    auto combo = [&](const char* name) { return named<QComboBox>(window, name)->currentText(); };
    const char* const greyed[] = {"heads",   "dModel",    "dkSpin",    "causal",  "seed",
                                  "kvHeads", "positions", "ropeBase",  "window",  "global",
                                  "stride",  "padTo",     "precision", "softmax", "dropout"};

    // A Llama (tiny-llama.gguf: 4 heads sharing 2 K/V heads, RoPE base 10000, causal).
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(tinyLlamaGguf());
    QVERIFY(waitForShown(window));
    for (const char* name : greyed) QVERIFY2(!named<QWidget>(window, name)->isEnabled(), name);
    QCOMPARE(text("heads"), QStringLiteral("4"));
    QCOMPARE(text("dModel"), QStringLiteral("64"));
    QCOMPARE(text("dkSpin"), QStringLiteral("16"));
    QVERIFY(named<QCheckBox>(window, "causal")->isChecked());
    QCOMPARE(text("seed"), QStringLiteral("from the model"));
    QCOMPARE(combo("kvHeads"), QStringLiteral("2 (grouped: 2 query heads each)"));
    QCOMPARE(named<QComboBox>(window, "kvHeads")->count(), 3);  // 4, 2, 1
    QCOMPARE(named<QComboBox>(window, "positions")->currentData().toInt(),
             static_cast<int>(attnlab::Positions::kRope));
    QCOMPARE(named<QDoubleSpinBox>(window, "ropeBase")->value(), 10000.0);
    for (const char* name : {"window", "global", "stride", "padTo", "dropout"})
      QCOMPARE(text(name), QStringLiteral("off"));
    QCOMPARE(combo("precision"), QStringLiteral("fp32"));
    QCOMPARE(named<QComboBox>(window, "softmax")->currentData().toInt(),
             static_cast<int>(attnlab::SoftmaxKind::kStable));
    // Nothing of the lab's is lost meanwhile: the settings carry its values.
    LabSettings with_model = lab;
    with_model.model_dir = tinyLlamaGguf();
    QCOMPARE(window.settings(), with_model);

    // A GPT-2 (multi-head, learned positions), in English and Chinese.
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(tinyGpt2());
    QVERIFY(waitForShown(window));
    QCOMPARE(text("heads"), QStringLiteral("4"));
    QCOMPARE(combo("kvHeads"), QStringLiteral("4 (multi-head)"));
    QCOMPARE(combo("positions"), QStringLiteral("learned (from the model)"));
    QCOMPARE(text("ropeBase"), QStringLiteral("none"));
    QVERIFY(named<QCheckBox>(window, "causal")->isChecked());
    window.setLanguage(QStringLiteral("zh_CN"));
    QCOMPARE(combo("kvHeads"), QStringLiteral("4（多头）"));
    QCOMPARE(combo("positions"), QStringLiteral("学习得到（来自模型）"));
    QCOMPARE(text("seed"), QStringLiteral("来自模型"));
    window.setLanguage(QStringLiteral("en"));
    QCOMPARE(text("seed"), QStringLiteral("from the model"));

    // Back to the synthetic lab: its own values, enabled again.
    named<QAction>(window, "syntheticAction")->trigger();
    QVERIFY(waitForShown(window));
    QCOMPARE(window.settings(), lab);
    for (const char* name : greyed) QVERIFY2(named<QWidget>(window, name)->isEnabled(), name);
    QCOMPARE(text("heads"), QStringLiteral("6"));
    QCOMPARE(text("dModel"), QStringLiteral("96"));
    QCOMPARE(text("dkSpin"), QStringLiteral("32"));
    QVERIFY(!named<QCheckBox>(window, "causal")->isChecked());
    QCOMPARE(text("seed"), QStringLiteral("7"));
    QCOMPARE(combo("kvHeads"), QStringLiteral("3 (grouped: 2 query heads each)"));
    QCOMPARE(named<QComboBox>(window, "positions")->count(), 4);  // the model's entry is gone
    QCOMPARE(named<QComboBox>(window, "positions")->currentData().toInt(),
             static_cast<int>(attnlab::Positions::kRope));
    QCOMPARE(named<QDoubleSpinBox>(window, "ropeBase")->value(), 500.0);
    QCOMPARE(text("window"), QStringLiteral("3"));
    QCOMPARE(text("padTo"), QStringLiteral("12"));
    QVERIFY(!named<QCheckBox>(window, "padMask")->isChecked());
    QCOMPARE(combo("precision"), QStringLiteral("bf16"));
  }

  void whileAModelLoadsTheControlsSayFromTheModel() {
    // Before its configuration is known the greyed controls name their source, and the lab's
    // values come back unchanged.
    gui::InputsPanel panel;
    LabSettings lab;
    lab.spec.heads = 4;
    lab.spec.d_k = 16;  // the panel's d_k box always holds one
    lab.spec.kv_heads = 2;
    lab.spec.positions = attnlab::Positions::kAlibi;
    lab.setCausal(true);
    lab.seed = 3;
    panel.setSettings(lab);
    QCOMPARE(panel.settings(), lab);
    QSignalSpy changed(&panel, &gui::InputsPanel::changed);
    panel.setModelMode(true, nullptr);
    const QString from_model = QStringLiteral("from the model");
    for (const char* name : {"heads", "dModel", "dkSpin", "seed"})
      QCOMPARE(named<QAbstractSpinBox>(panel, name)->text(), from_model);
    QCOMPARE(named<QCheckBox>(panel, "causal")->checkState(), Qt::PartiallyChecked);
    QCOMPARE(named<QComboBox>(panel, "kvHeads")->currentText(), from_model);
    QCOMPARE(named<QComboBox>(panel, "positions")->currentText(), from_model);
    QCOMPARE(named<QAbstractSpinBox>(panel, "ropeBase")->text(), from_model);
    QCOMPARE(panel.settings(), lab);
    panel.setModelMode(false, nullptr);
    QCOMPARE(panel.settings(), lab);
    QCOMPARE(named<QAbstractSpinBox>(panel, "heads")->text(), QStringLiteral("4"));
    QCOMPARE(named<QAbstractSpinBox>(panel, "seed")->text(), QStringLiteral("3"));
    QCOMPARE(named<QCheckBox>(panel, "causal")->checkState(), Qt::Checked);
    QCOMPARE(named<QComboBox>(panel, "kvHeads")->currentData().toInt(), 2);
    QCOMPARE(changed.count(), 0);  // showing values is no change of the inputs
  }

  void aBadFileIsSaidInlineAndThePictureStays() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile good(tinyLlamaGguf());
    QVERIFY(good.open(QIODevice::ReadOnly));
    const QByteArray bytes = good.readAll();
    const QString cut = dir.filePath(QStringLiteral("cut.gguf"));
    writeFile(cut, bytes.left(bytes.size() / 2));
    QByteArray versioned = bytes;
    versioned[4] = 9;
    const QString version = dir.filePath(QStringLiteral("version.gguf"));
    writeFile(version, versioned);

    MainWindow window(testOptions());
    window.show();
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(tinyLlamaGguf());
    QVERIFY(waitForShown(window));
    const int maps = named<QCustomPlot>(window, "gridPlot")->plottableCount();
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(version);
    QTRY_VERIFY_WITH_TIMEOUT(!named<gui::ModelSource>(window, "modelSourceBox")->message().isEmpty(), kWaitMs);
    QVERIFY2(named<gui::ModelSource>(window, "modelSourceBox")->message().contains(
                 QStringLiteral("GGUF version 9 is not supported (2 and 3 are)")),
             qPrintable(named<gui::ModelSource>(window, "modelSourceBox")->message()));
    QVERIFY2(named<gui::ModelSource>(window, "modelSourceBox")->message().contains(QStringLiteral("still showing tiny-llama.gguf")),
             qPrintable(named<gui::ModelSource>(window, "modelSourceBox")->message()));
    QCOMPARE(named<gui::ModelSource>(window, "modelSourceBox")->dir(), tinyLlamaGguf());
    QVERIFY(waitForShown(window));
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), maps);

    // In Chinese the sentence around the loader's line is translated.
    window.setLanguage(QStringLiteral("zh_CN"));
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(cut);
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::ModelSource>(window, "modelSourceBox")->message().contains(QStringLiteral("cut.gguf")), kWaitMs);
    QVERIFY2(named<gui::ModelSource>(window, "modelSourceBox")->message().startsWith(QStringLiteral("无法打开模型")),
             qPrintable(named<gui::ModelSource>(window, "modelSourceBox")->message()));
    QCOMPARE(named<gui::ModelSource>(window, "modelSourceBox")->dir(), tinyLlamaGguf());
    QVERIFY(waitForShown(window));
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), maps);

    // A text longer than the context: the CLI's line (translated), the picture kept.
    LabSettings s = window.settings();
    s.text = QStringLiteral("cat ").repeated(80);
    window.setSettings(s);
    QTRY_VERIFY_WITH_TIMEOUT(!named<gui::InputsPanel>(window, "inputsPanel")->message().isEmpty(), kWaitMs);
    QVERIFY2(named<gui::InputsPanel>(window, "inputsPanel")->message().contains(QStringLiteral("tiny-llama")),
             qPrintable(named<gui::InputsPanel>(window, "inputsPanel")->message()));
    QVERIFY2(named<gui::InputsPanel>(window, "inputsPanel")->message().contains(QStringLiteral("64")),
             qPrintable(named<gui::InputsPanel>(window, "inputsPanel")->message()));
    QVERIFY2(!named<gui::InputsPanel>(window, "inputsPanel")->message().contains(QStringLiteral("reads at most")),
             qPrintable(named<gui::InputsPanel>(window, "inputsPanel")->message()));
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), maps);
    window.setLanguage(QStringLiteral("en"));
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::InputsPanel>(window, "inputsPanel")->message().contains(QStringLiteral(
                                 "tiny-llama reads at most 64 (its context length)")),
                             kWaitMs);

    // Back to the lab (a lesson, an example or the command line sets the settings): the model's
    // error and the refused text's go with them.
    QVERIFY(!named<gui::ModelSource>(window, "modelSourceBox")->message().isEmpty());
    LabSettings lab;
    lab.text = QStringLiteral("The cat sat on the mat.");
    window.setSettings(lab);
    QVERIFY(waitForShown(window));
    QVERIFY2(named<gui::ModelSource>(window, "modelSourceBox")->message().isEmpty(),
             qPrintable(named<gui::ModelSource>(window, "modelSourceBox")->message()));
    QVERIFY(named<gui::InputsPanel>(window, "inputsPanel")->message().isEmpty());
    // A bad file with the lab on screen: said, and kept while the lab is shown; the lab chosen
    // again clears it.
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(version);
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::ModelSource>(window, "modelSourceBox")
                                 ->message()
                                 .contains(QStringLiteral("showing the synthetic lab")),
                             kWaitMs);
    QVERIFY(waitForShown(window));
    QVERIFY(named<gui::ModelSource>(window, "modelSourceBox")
                ->message()
                .contains(QStringLiteral("version.gguf")));
    named<gui::ModelSource>(window, "modelSourceBox")->showSynthetic();
    QVERIFY(named<gui::ModelSource>(window, "modelSourceBox")->message().isEmpty());
  }

  void aRunOverTheMemoryBudgetIsRefusedInlineAndThePictureStays() {
    // Issue 27: the run is refused before it starts, in the CLI's words (translated), and the
    // last picture stays.
    MainWindow window(testOptions());
    window.show();
    named<gui::ModelSource>(window, "modelSourceBox")->openFolder(tinyLlamaGguf());
    QVERIFY(waitForShown(window));
    const int maps = named<QCustomPlot>(window, "gridPlot")->plottableCount();
    LabSettings s = window.settings();
    s.memory_budget_gb = 1e-6;  // 1 kB: less than any run keeps
    s.text = QStringLiteral("the cat sat on the mat");  // a new pass (a kept one is reused)
    window.setSettings(s);
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::InputsPanel>(window, "inputsPanel")->message().contains(QStringLiteral("this run would keep")),
                             kWaitMs);
    QVERIFY2(named<gui::InputsPanel>(window, "inputsPanel")->message().contains(QStringLiteral("more than the memory budget of 1 kB")),
             qPrintable(named<gui::InputsPanel>(window, "inputsPanel")->message()));
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), maps);
    window.setLanguage(QStringLiteral("zh_CN"));
    QTRY_VERIFY_WITH_TIMEOUT(named<gui::InputsPanel>(window, "inputsPanel")->message().contains(QStringLiteral("超过内存预算")),
                             kWaitMs);
    QCOMPARE(named<QCustomPlot>(window, "gridPlot")->plottableCount(), maps);
    window.setLanguage(QStringLiteral("en"));
    s.memory_budget_gb.reset();
    window.setSettings(s);
    QVERIFY(waitForShown(window));
    QVERIFY(named<gui::InputsPanel>(window, "inputsPanel")->message().isEmpty());
  }

  void aModelViewOverTheBudgetIsDrawnFromPooledOverviews() {
    // Issue 27: every layer in full would pass the budget, the last layer alone and the pooled
    // overviews fit: the model view draws every layer pooled, the hover reads a block's max and
    // mean, raw data is refused in the CLI's words, and a click on another layer runs it in full.
    // The tiny Gemma 2 has 4 layers: the budget holds 3 (layer 0 in full, one in flight), not 4.
    const QString dir = data("models/tiny-gemma2");
    const auto model = attnlab::PretrainedModel::load(dir.toStdString());
    QString text = QStringLiteral("the");
    while (model->encode(text.toStdString(), std::nullopt).ids.size() < 48) text += QStringLiteral(" cat sat on the mat");
    const int n = static_cast<int>(model->encode(text.toStdString(), std::nullopt).ids.size());
    const int layers = model->config().layers, heads = model->config().heads;
    QVERIFY(layers >= 3);
    attnlab::ModelRunOptions all, first;
    first.layer = 0;
    MainWindow window(testOptions());
    window.show();
    LabSettings s;
    s.model_dir = dir;
    s.text = text;
    s.memory_budget_gb = static_cast<double>(model->memoryNeeds(n, all).total() + model->memoryNeeds(n, first).total()) / 2 / 1e9;
    window.setSettings(s);
    QVERIFY(waitForShown(window));
    QVERIFY2(named<gui::InputsPanel>(window, "inputsPanel")->message().isEmpty(),
             qPrintable(named<gui::InputsPanel>(window, "inputsPanel")->message()));
    const auto shown = window.currentResult();
    QVERIFY(shown->pooled());
    auto* grid = named<QCustomPlot>(window, "gridPlot");
    QCOMPARE(grid->plottableCount(), layers * heads);
    auto* view = named<gui::HeadsView>(window, "headsView");
    QVERIFY2(view->gridNote().contains(QStringLiteral("max and mean of 2 × 2-token blocks")), qPrintable(view->gridNote()));
    QVERIFY(attnlab::views::heatmapBlock(*grid) % 2 == 0);
    // Layer 0, head 1, the block of query 3 and key 1: its max and mean over its visible pairs.
    const QString hover = view->pooledCellText(0, 1, 3, 1);
    QVERIFY2(hover.startsWith(QStringLiteral("layer 0 · head 1 · queries")) && hover.contains(QStringLiteral("max weight")) &&
                 hover.contains(QStringLiteral("visible pairs")),
             qPrintable(hover));
    // Raw data needs every weight: refused with the full run's words.
    QTemporaryDir out;
    try {
      named<gui::ExportController>(window, "exportController")->exportMatrices(out.filePath("all.csv"), -1);
      QFAIL("a pooled view's matrices must be refused");
    } catch (const attnlab::options::OptionError& e) {
      QVERIFY2(e.message().english().contains(QStringLiteral("this run would keep")), qPrintable(e.message().english()));
    }
    // A click on a layer that was pooled runs it in full (--layer 0).
    const QRectF cells = attnlab::views::decorOf(*grid)->layout().maps.front().cells;
    QTest::mouseClick(grid, Qt::LeftButton, Qt::NoModifier, cells.center().toPoint());
    QTRY_VERIFY_WITH_TIMEOUT(window.settings().layer == 0, kWaitMs);
    QVERIFY(waitForShown(window));
    QVERIFY(!window.currentResult()->pooled());
    QCOMPARE(window.currentResult()->layerIndices(), std::vector<int>{0});
  }

  void aCtrlClickAblatesAHeadAndTheNextTokenSaysBeforeAndAfter() {
    // Issue 49: a head of the model view ablated from the window; the run reuses the kept pass,
    // recomputes from the head's layer, crosses the head out and says the next token before →
    // after; Restore all brings the first picture back.
    MainWindow window(testOptions());
    window.show();
    LabSettings s;
    s.model_dir = tinyGpt2();
    s.text = QStringLiteral("the cat sat on the mat");
    window.setSettings(s);
    QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs));  // this text's run, not an earlier one
    const auto before = window.currentResult();
    auto* grid = named<QCustomPlot>(window, "gridPlot");
    const int heads = before->model->config.heads;
    // Layer 1, head 2: map 1·h + 2 of the model view.
    const QRectF cells = attnlab::views::decorOf(*grid)->layout().maps.at(static_cast<std::size_t>(heads + 2)).cells;
    QTest::mouseClick(grid, Qt::LeftButton, Qt::ControlModifier, cells.center().toPoint());
    const std::vector<attnlab::HeadRef> head_1_2 = oneHead(1, 2);
    QTRY_VERIFY_WITH_TIMEOUT(window.settings().ablate == head_1_2, kWaitMs);
    QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs));
    const auto after = window.currentResult();
    QVERIFY(after->interventions);
    QVERIFY(after->interventions->ablated == head_1_2);
    QVERIFY(after->model_run->next_tokens.front().probability != before->model_run->next_tokens.front().probability);
    QVERIFY(named<QDockWidget>(window, "interventionsDock")->isVisible());
    const QString line = named<QLabel>(window, "ablationNext")->text();
    QVERIFY2(line.startsWith(QStringLiteral("ablated (zero): 1.2 · next token")) && line.contains(QStringLiteral("→")),
             qPrintable(line));
    QVERIFY(hasItem(*grid, QStringLiteral("ablatedHeads")));  // the head crossed out
    // Layer 0's attention is the kept pass's, layer 1's was computed again.
    QCOMPARE(after->attention(0).weights.data, before->attention(0).weights.data);
    named<QPushButton>(window, "restoreHeads")->click();
    QTRY_VERIFY_WITH_TIMEOUT(window.settings().ablate.empty(), kWaitMs);
    QVERIFY(attnlab::test::waitFor(window, window.settings(), kWaitMs));
    QCOMPARE(window.currentResult()->model_run->next_tokens.front().probability,
             before->model_run->next_tokens.front().probability);
  }

  void aCancelledForwardPassSaysSoAndKeepsNothingHalfDone() {
    // The worker's progress callback stops a pass whose generation was cancelled, after its
    // first layer; the result says so (translated message), with no run kept.
    auto latest = std::make_shared<std::atomic<quint64>>(1);
    auto cancelled = std::make_shared<std::atomic<quint64>>(1);
    attnlab::gui::ComputeWorker worker(latest, cancelled);
    attnlab::gui::ResultPtr got;
    QObject::connect(&worker, &attnlab::gui::ComputeWorker::finished,
                     [&](const attnlab::gui::ResultPtr& r) { got = r; });
    LabSettings s;
    s.model_dir = tinyLlamaGguf();
    s.text = QStringLiteral("the cat sat");
    s.backend = attnlab::options::BackendKind::kCpu;
    worker.compute(1, s);
    QVERIFY(got);
    QVERIFY(got->failed());
    QCOMPARE(got->error.english(), QStringLiteral("the forward pass was cancelled"));
    QVERIFY(!got->model_run);
    cancelled->store(0);
    worker.compute(1, s);
    QVERIFY(got && !got->failed());
    QVERIFY(got->model_run);
  }

  void charactersCutByTheTokenizerReadInThePictureAndTheHover() {
    // The tiny Llama's byte-level BPE cuts each character of the sentence into byte tokens.
    MainWindow window(testOptions());
    window.show();
    LabSettings s;
    s.model_dir = tinyLlamaGguf();
    s.text = QStringLiteral("我爱自然语言处理");
    s.layer = 0;
    window.setSettings(s);
    QVERIFY(waitForShown(window));
    QString read;
    for (const QString& label : window.currentResult()->query_tokens) read += label;
    QCOMPARE(read.remove(QStringLiteral("⋯")), s.text);
    // Row 2 completes 我 (E6 88 91, one byte per token); key 0 holds its first byte.
    const QString hover = cellText(window, 0, 2, 0);
    QVERIFY2(hover.contains(QStringLiteral("'⋯我' 我 (part 3 of 3: 91)")), qPrintable(hover));
    QVERIFY2(hover.contains(QStringLiteral("'⋯' 我 (part 1 of 3: E6)")), qPrintable(hover));
    QVERIFY2(!hover.contains(QStringLiteral("\\x")), qPrintable(hover));
    // In the picture: every label drawn reads without \xNN.
    for (const QJsonObject& t :
         textsWithRole(named<QCustomPlot>(window, "gridPlot"), QStringLiteral("query_label")))
      QVERIFY2(!t["text"].toString().contains(QStringLiteral("\\x")),
               qPrintable(t["text"].toString()));
  }

  void fetchedModelsArePresets() {
    qputenv("ATTNLAB_MINILM_DIR", tinyGpt2().toUtf8());  // any folder with config.json
    qputenv("ATTNLAB_SMOLLM2_GGUF", tinyLlamaGguf().toUtf8());
    qputenv("ATTNLAB_GEMMA3_GGUF", QByteArray("/nonexistent/gemma.gguf"));  // scripts/test sets it
    const auto presets = attnlab::gui::findModelPresets();
    QCOMPARE(static_cast<int>(presets.size()), 2);
    QCOMPARE(presets[0].path, tinyGpt2());
    QCOMPARE(presets[1].path, tinyLlamaGguf());
    qputenv("ATTNLAB_GEMMA3_GGUF", tinyLlamaGguf().toUtf8());  // any .gguf
    const auto with_gemma = attnlab::gui::findModelPresets();
    QCOMPARE(static_cast<int>(with_gemma.size()), 3);
    QVERIFY(with_gemma[2].name.startsWith(QStringLiteral("Gemma 3 270M")));
    qputenv("ATTNLAB_GEMMA3_GGUF", QByteArray("/nonexistent/gemma.gguf"));
    qputenv("ATTNLAB_SMOLLM2_GGUF", QByteArray("/nonexistent/model.gguf"));
    QCOMPARE(static_cast<int>(attnlab::gui::findModelPresets().size()), 1);
    // The fetch-model cache (the manifest's file and folder names) when no variable names them.
    QTemporaryDir cache;
    QVERIFY(cache.isValid());
    qunsetenv("ATTNLAB_MINILM_DIR");
    qunsetenv("ATTNLAB_SMOLLM2_GGUF");
    qunsetenv("ATTNLAB_GEMMA3_GGUF");
    qputenv("ATTNLAB_MODEL_CACHE", cache.path().toUtf8());
    QCOMPARE(static_cast<int>(attnlab::gui::findModelPresets().size()), 0);
    QVERIFY(QFile::copy(tinyLlamaGguf(),
                        cache.filePath(QStringLiteral("SmolLM2-135M-Instruct.Q4_1.gguf"))));
    QVERIFY(QDir(cache.path()).mkdir(QStringLiteral("all-MiniLM-L6-v2")));
    writeFile(cache.filePath(QStringLiteral("all-MiniLM-L6-v2/model.safetensors")), "{}");  // the manifest's "check"
    const auto cached = attnlab::gui::findModelPresets();
    QCOMPARE(static_cast<int>(cached.size()), 2);
    QVERIFY(cached[1].name.startsWith(QStringLiteral("SmolLM2-135M-Instruct")));

    // The window lists them under the synthetic lab; choosing one opens it — after its SHA-256
    // (issue 51): this copy is the tiny Llama, not SmolLM2's bytes, so it is refused in the
    // CLI's words before anything is read.
    MainWindow window(testOptions());
    window.show();
    QComboBox* combo = named<QComboBox>(window, "modelSource");
    const int at =
        combo->findData(cache.filePath(QStringLiteral("SmolLM2-135M-Instruct.Q4_1.gguf")));
    QCOMPARE(at, 2);
    QVERIFY(combo->itemText(at).startsWith(QStringLiteral("SmolLM2-135M-Instruct")));
    combo->setCurrentIndex(at);
    emit combo->activated(at);
    auto* source = named<gui::ModelSource>(window, "modelSourceBox");
    QTRY_VERIFY_WITH_TIMEOUT(!source->message().isEmpty(), kWaitMs);
    QVERIFY2(source->message().contains(QStringLiteral(
                 "is damaged (its SHA-256 differs from the manifest's): run attention-lab-cli fetch-model smollm2 to fetch it again")),
             qPrintable(source->message()));
    qunsetenv("ATTNLAB_MODEL_CACHE");
  }

  void otherToolsModelsAreOfferedByStore() {
    // Issue 51: a model pulled by Ollama and one in llama.cpp's cache (a temporary home) are in
    // "Attention from" under a heading per store and in File → Models on this computer; choosing
    // one opens it.
    QTemporaryDir home;
    QVERIFY(home.isValid());
    const QByteArray old_home = qgetenv("HOME");
    qputenv("HOME", home.path().toUtf8());
    for (const char* name : {"OLLAMA_MODELS", "HF_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "LLAMA_CACHE"}) qunsetenv(name);
    QFile gguf(tinyLlamaGguf());
    QVERIFY(gguf.open(QIODevice::ReadOnly));
    const QByteArray bytes = gguf.readAll();
    const QString sha = QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    const QString blob = home.filePath(QStringLiteral(".ollama/models/blobs/sha256-") + sha);
    QVERIFY(QDir().mkpath(QFileInfo(blob).path()));
    writeFile(blob, bytes);
    const QString manifest = home.filePath(QStringLiteral(".ollama/models/manifests/registry.ollama.ai/library/tiny/latest"));
    QVERIFY(QDir().mkpath(QFileInfo(manifest).path()));
    writeFile(manifest, QStringLiteral(R"({"layers": [{"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:%1", "size": %2}]})")
                            .arg(sha).arg(bytes.size()).toUtf8());
    QVERIFY(QDir().mkpath(home.filePath(QStringLiteral(".cache/llama.cpp"))));
    QVERIFY(QFile::copy(tinyLlamaGguf(), home.filePath(QStringLiteral(".cache/llama.cpp/org_tiny.gguf"))));

    MainWindow window(testOptions());
    window.show();
    QComboBox* combo = named<QComboBox>(window, "modelSource");
    const int heading = combo->findText(QStringLiteral("Ollama"));
    QVERIFY(heading > 0);
    auto* items = qobject_cast<QStandardItemModel*>(combo->model());
    QVERIFY(items && !items->item(heading)->isEnabled());  // a heading, not a choice
    const int at = combo->findText(QStringLiteral("ollama:tiny:latest"));
    QCOMPARE(at, heading + 1);
    QCOMPARE(combo->itemData(at).toString(), QDir::cleanPath(blob));
    const int cpp = combo->findText(QStringLiteral("org_tiny.gguf"));
    QVERIFY(cpp > at);
    QCOMPARE(combo->itemText(cpp - 1), QStringLiteral("llama.cpp"));

    auto* menu = window.findChild<QMenu*>(QStringLiteral("storedModelsMenu"));
    QVERIFY(menu);
    emit menu->aboutToShow();
    QStringList texts;
    for (QAction* a : menu->actions()) texts << a->text();
    QVERIFY2(texts.contains(QStringLiteral("Ollama")) && texts.contains(QStringLiteral("ollama:tiny:latest")) &&
                 texts.contains(QStringLiteral("llama.cpp")) && texts.contains(QStringLiteral("org_tiny.gguf")),
             qPrintable(texts.join(QStringLiteral(", "))));

    combo->setCurrentIndex(at);
    emit combo->activated(at);
    QVERIFY(waitForShown(window));
    QVERIFY(window.currentResult()->model_run);
    qputenv("HOME", old_home);
  }

  void theTextFieldsKeepTheTextsBytes() {
    // Issue 22: a text given on the command line reaches the model byte for byte — a leading
    // U+FEFF, CR LF, U+00A0, U+2028, NFD — though the field's document turns CR LF into a line
    // break; a text typed into the field keeps U+00A0 and U+2028 (toPlainText() would not).
    const std::string given = "\xEF\xBB\xBFstart a\xC2\xA0" "b\r\nc\xE2\x80\xA8" "cafe\xCC\x81";
    WindowOptions options = testOptions();
    options.settings.model_dir = tinyLlamaDir();
    options.settings.layer = 0;
    options.settings.text = attnlab::options::fromUtf8Exact(given);
    MainWindow window(options);
    window.show();
    QVERIFY(waitForShown(window));
    const auto tokenizer = attnlab::loadModelTokenizer(tinyLlamaDir().toStdString(), "llama");
    const std::vector<int> expected = tokenizer->encode(given).ids;
    QVERIFY(window.currentResult()->model_run);
    QVERIFY(window.currentResult()->model_run->encoding.ids == expected);
    QCOMPARE(window.settings().text.toUtf8().toStdString(), given);

    auto* panel = named<gui::InputsPanel>(window, "inputsPanel");
    const std::string typed = "x\xC2\xA0y\xE2\x80\xA8z\xEF\xBF\xBE";
    panel->textEdit()->setPlainText(attnlab::options::fromUtf8Exact(typed));  // as typed
    QCOMPARE(panel->settings(window.settings()).text.toUtf8().toStdString(), typed);
    QVERIFY(waitForShown(window));
    QVERIFY(window.currentResult()->model_run->encoding.ids == tokenizer->encode(typed).ids);
  }

  void headRolesBadgeTheModelViewAndListTheTopHeads() {
    MainWindow window(testOptions());
    window.show();
    LabSettings s;
    s.model_dir = tinyLlamaGguf();
    s.text = QStringLiteral("the cat sat on the mat");
    window.setSettings(s);
    QVERIFY(waitForShown(window));
    QVERIFY(!window.currentResult()->head_roles);  // only when a role is chosen
    auto* panel = named<gui::HeadRolesPanel>(window, "headRolesPanel");
    QVERIFY(panel->isHidden());
    QComboBox* role = named<gui::ModelSource>(window, "modelSourceBox")->headRoleCombo();
    role->setCurrentIndex(role->findData(static_cast<int>(attnlab::HeadRole::kInduction)));
    QVERIFY(window.settings().head_roles);
    QTRY_VERIFY_WITH_TIMEOUT(window.currentResult() && window.currentResult()->head_roles, kWaitMs);
    QVERIFY(waitForShown(window));
    const auto badges = [&] {
      QCustomPlot* grid = named<QCustomPlot>(window, "gridPlot");
      for (int i = 0; i < grid->itemCount(); ++i)
        if (grid->item(i)->objectName() == QLatin1String("headRoleBadges")) return true;
      return false;
    };
    QVERIFY(badges());
    auto* heads = named<gui::HeadsView>(window, "headsView");
    QVERIFY2(heads->gridNote().contains(QStringLiteral("induction score")), qPrintable(heads->gridNote()));
    // The list: the top 3 heads of each of the six roles, best first; a click enlarges one.
    QVERIFY(!panel->isHidden());
    QTreeWidget* list = panel->list();
    QCOMPARE(list->topLevelItemCount(), 6 * gui::kHeadRolesListed);
    const attnlab::HeadRoles& roles = *window.currentResult()->head_roles;
    const attnlab::HeadScore best = roles.top(attnlab::HeadRole::kInduction, 1).front();
    QTreeWidgetItem* item = list->topLevelItem(2 * gui::kHeadRolesListed);  // induction's first
    QCOMPARE(item->text(1).toInt(), best.layer);
    QCOMPARE(item->text(2).toInt(), best.head);
    emit list->itemClicked(item, 0);
    QTRY_COMPARE_WITH_TIMEOUT(heads->enlargedLayer(), best.layer, kWaitMs);
    QCOMPARE(heads->enlargedHead(), best.head);
    // "none": no badges, the roles computed once are kept by the session but not asked for.
    heads->showGrid();
    role->setCurrentIndex(0);
    QVERIFY(!window.settings().head_roles);
    QTRY_VERIFY_WITH_TIMEOUT(window.currentResult() && !window.currentResult()->head_roles, kWaitMs);
    QVERIFY(waitForShown(window));
    QVERIFY(!badges());
  }

  void openModelTakesAFileOrAFolder() {
    using attnlab::gui::modelPathForSelection;
    QCOMPARE(modelPathForSelection(tinyLlamaGguf()), tinyLlamaGguf());
    QCOMPARE(modelPathForSelection(tinyLlamaDir()), tinyLlamaDir());  // a folder with config.json
    QCOMPARE(modelPathForSelection(tinyLlamaDir() + QStringLiteral("/config.json")),
             tinyLlamaDir());
    QCOMPARE(modelPathForSelection(data("models")), QString());  // no config.json: go into it
    QCOMPARE(modelPathForSelection(QString()), QString());
    MainWindow window(testOptions());
    QCOMPARE(named<QAction>(window, "openModelAction")->text(), QStringLiteral("Open model…"));
    window.setLanguage(QStringLiteral("zh_CN"));
    QCOMPARE(named<QAction>(window, "openModelAction")->text(), QStringLiteral("打开模型…"));
  }
};

QTEST_MAIN(ModelWindowTest)
#include "test_model_window.moc"
