/// \file test_lesson_window.cpp
/// Issue 16's lessons in the window, driven in-process on the offscreen platform with the small
/// lessons of tests/data/lessons/window (ATTNLAB_LESSON_DIR): opening a lesson applies step 1,
/// Next/Previous and Page Down/Up move and re-apply the steps, the user's own changes keep the
/// panel and its live numbers, each step opens its view, a model that is not fetched is said
/// inline, the position is remembered, presentation mode keeps the panel in large type, and the
/// Chinese interface shows the Chinese captions.

#include <qcustomplot.h>

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include "analysis_panel.hpp"
#include "comparison.hpp"
#include "heads_view.hpp"
#include "lesson_controller.hpp"
#include "lesson_panel.hpp"
#include "main_window.hpp"
#include "options/options.hpp"
#include "window_test_support.hpp"

using attnlab::gui::LessonController;
using attnlab::gui::MainWindow;
using attnlab::test::cellText;
using attnlab::test::named;
namespace gui = attnlab::gui;
using attnlab::gui::WindowOptions;
using attnlab::options::LabSettings;
using attnlab::test::testOptions;

namespace {

// ATTNLAB_GUI_WAIT_MS: a longer wait under a sanitizer (the tsan preset sets it).
const int kWaitMs = qEnvironmentVariableIntValue("ATTNLAB_GUI_WAIT_MS") > 0
                        ? qEnvironmentVariableIntValue("ATTNLAB_GUI_WAIT_MS") : 20000;

/// Waits for the result of the window's settings; says why not (the inline message) on a timeout.
bool waitForShown(MainWindow& window) {
  if (attnlab::test::waitFor(window, window.settings(), kWaitMs)) return true;
  attnlab::options::Options asked, shown;
  asked.command = shown.command = attnlab::options::kRender;
  asked.lab = window.settings();
  if (window.currentResult()) shown.lab = window.currentResult()->settings;
  qWarning("no result for the settings on screen (%s; shown: %s; busy %d); input message: %s",
           qPrintable(attnlab::options::toArguments(asked).join(QLatin1Char(' '))),
           qPrintable(attnlab::options::toArguments(shown).join(QLatin1Char(' '))), window.controller().busy(),
           qPrintable(named<gui::InputsPanel>(window, "inputsPanel")->message()));
  return false;
}

/// The caption once the live numbers of the picture on screen are in.
QString settledCaption(MainWindow& window) {
  QElapsedTimer timer;
  timer.start();
  while (timer.elapsed() < kWaitMs && (named<gui::LessonController>(window, "lessonController")->numbersPending() || window.controller().busy()))
    QTest::qWait(10);
  return named<gui::LessonController>(window, "lessonController")->panel()->captionLabel()->text();
}

/// The number after `before` in text ("mean max weight now 0.94" → 0.94); −1 when absent.
double numberAfter(const QString& text, const QString& before) {
  const QRegularExpression re(QRegularExpression::escape(before) + QStringLiteral("\\s*([0-9]+(?:\\.[0-9]+)?)"));
  const QRegularExpressionMatch m = re.match(text);
  return m.hasMatch() ? m.captured(1).toDouble() : -1;
}

/// True when every text label of the panel wraps inside the panel: as wide as the scroll area's
/// viewport at most, and as tall as its wrapped text needs (nothing clipped).
bool panelTextFits(attnlab::gui::LessonPanel* panel) {
  const int viewport = panel->scrollArea()->viewport()->width();
  for (QLabel* label : {panel->titleLabel(), panel->captionLabel(), panel->tryLabel()}) {
    if (!label->isVisible()) continue;
    if (label->width() > viewport) return false;
    if (label->height() < label->heightForWidth(label->width())) return false;
  }
  return panel->scrollArea()->horizontalScrollBar()->maximum() == 0;
}

}  // namespace

class LessonWindowTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    attnlab::gui::initResources();
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionLabLessonTest"));
    // QSettings in a folder of our own.
    QVERIFY(settings_dir_.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings_dir_.path());
    if (qEnvironmentVariableIsSet("ATTNLAB_GUI_REAL_LESSONS")) return;  // the compiled-in lessons
    // The test lessons, before anything reads the lesson list, and no model fetched: an empty
    // cache and none of the variables that name a fetched model (scripts/test sets them).
    qputenv("ATTNLAB_LESSON_DIR", QByteArrayLiteral(ATTNLAB_TEST_DATA_DIR "/lessons/window"));
    QVERIFY(models_dir_.isValid());
    qputenv("ATTNLAB_MODEL_CACHE", models_dir_.path().toUtf8());
    qunsetenv("ATTNLAB_MINILM_DIR");
    qunsetenv("ATTNLAB_SMOLLM2_GGUF");
  }

  void startOptionNamesALessonStep() {
    // The option table takes --lesson for the window; the lesson library refuses what is unknown.
    const auto o = attnlab::options::parse({"--lesson", "first:2"}, attnlab::options::kWindow);
    QCOMPARE(o.window.lesson, QStringLiteral("first:2"));
    QCOMPARE(LessonController::resolve(QStringLiteral("first")).second, 0);
    QCOMPARE(LessonController::resolve(QStringLiteral("first:3")).second, 2);
    QCOMPARE(LessonController::resolve(QStringLiteral("first:unscaled")).second, 1);
    try {
      LessonController::resolve(QStringLiteral("nope"));
      QFAIL("no error");
    } catch (const std::exception& e) {
      QVERIFY2(QString::fromUtf8(e.what()).startsWith(QStringLiteral("unknown lesson 'nope'")), e.what());
    }
    try {
      LessonController::resolve(QStringLiteral("first:4"));
      QFAIL("no error");
    } catch (const attnlab::options::OptionError& e) {
      QCOMPARE(e.message().english(), QStringLiteral("lesson 'first' has no step '4' (use 1 to 3 or a step id)"));
    }
  }

  void lessonMenuOpensStepOneAndStepsReapply() {
    MainWindow window(testOptions());
    window.show();
    QVERIFY(waitForShown(window));
    LessonController* lessons = named<gui::LessonController>(window, "lessonController");
    auto* panel = lessons->panel();
    // The menu lists the lessons in course order by title.
    QMenu* menu = lessons->menu();
    QVERIFY(window.menuBar()->actions().contains(menu->menuAction()));
    QCOMPARE(menu->actions().at(0)->text(), QStringLiteral("1. First steps"));
    QCOMPARE(menu->actions().at(1)->text(), QStringLiteral("2. Second lesson"));
    QVERIFY(!lessons->nextAction()->isEnabled());  // no lesson: Page Down is the sliders' again

    menu->actions().at(0)->trigger();
    QVERIFY(lessons->active());
    QVERIFY(lessons->dock()->isVisible());
    QCOMPARE(window.settings().spec.d_k, 8);
    QCOMPARE(window.settings().spec.heads, 2);
    QVERIFY(window.settings().scaled());
    QCOMPARE(panel->titleLabel()->text(), QStringLiteral("First steps"));
    QCOMPARE(panel->stepLabel()->text(), QStringLiteral("Step 1 of 3"));
    QCOMPARE(panel->tryLabel()->text(), QStringLiteral("Move the d_k slider."));
    QVERIFY(!panel->previousButton()->isEnabled());
    QVERIFY(waitForShown(window));
    QString caption = settledCaption(window);
    QVERIFY2(caption.startsWith(QStringLiteral("d_k is 8 now; mean max weight now 0.")), qPrintable(caption));

    // Next (the button): step 2's settings, its head enlarged, its saturation plot.
    panel->nextButton()->click();
    QCOMPARE(lessons->step(), 1);
    QCOMPARE(window.settings().spec.d_k, 64);
    QVERIFY(!window.settings().scaled());
    QVERIFY(waitForShown(window));
    QTRY_COMPARE_WITH_TIMEOUT(named<gui::HeadsView>(window, "headsView")->enlargedHead(), 1, kWaitMs);
    QVERIFY(named<QCustomPlot>(window, "saturationPlot")->isVisible());
    QCOMPARE(panel->stepLabel()->text(), QStringLiteral("Step 2 of 3"));

    // Page Down with the focus in the heatmap: step 3 opens the cost dock.
    named<QCustomPlot>(window, "headPlot")->setFocus();
    QTest::keyClick(named<QCustomPlot>(window, "headPlot"), Qt::Key_PageDown);
    QCOMPARE(lessons->step(), 2);
    QCOMPARE(window.settings().spec.d_k, 16);
    QVERIFY(window.settings().scaled());
    QVERIFY(named<QDockWidget>(window, "costDock")->isVisible());
    QVERIFY(!panel->nextButton()->isEnabled());
    QVERIFY(waitForShown(window));
    QTRY_COMPARE_WITH_TIMEOUT(named<gui::HeadsView>(window, "headsView")->enlargedHead(), -1, kWaitMs);  // no --head: the grid

    // The user changes a control: the panel stays, its numbers follow.
    named<QSpinBox>(window, "dkSpin")->setValue(4);
    QVERIFY(waitForShown(window));
    QVERIFY(lessons->active());
    QCOMPARE(lessons->step(), 2);
    // Page Up twice: back to step 1, whose settings apply again; the cost dock the lesson opened closes.
    QTest::keyClick(named<QCustomPlot>(window, "gridPlot"), Qt::Key_PageUp);
    QTest::keyClick(named<QCustomPlot>(window, "gridPlot"), Qt::Key_PageUp);
    QCOMPARE(lessons->step(), 0);
    QCOMPARE(window.settings().spec.d_k, 8);
    QVERIFY(!named<QDockWidget>(window, "costDock")->isVisible());
    QVERIFY(waitForShown(window));
    caption = settledCaption(window);
    QVERIFY2(caption.startsWith(QStringLiteral("d_k is 8 now")), qPrintable(caption));

    // Leave: the panel closes, the settings stay, Page Down takes no key.
    panel->leaveButton()->click();
    QVERIFY(!lessons->active());
    QVERIFY(!lessons->dock()->isVisible());
    QCOMPARE(window.settings().spec.d_k, 8);
    QVERIFY(!lessons->nextAction()->isEnabled());
    QVERIFY(lessons->continueAction()->isVisible());
    QCOMPARE(lessons->continueAction()->text(), QStringLiteral("Continue lesson “First steps” at step 1"));
  }

  void captionNumbersFollowTheUsersChanges() {
    MainWindow window(testOptions());
    window.show();
    named<gui::LessonController>(window, "lessonController")->open(QStringLiteral("first"));
    QVERIFY(waitForShown(window));
    const QString before = settledCaption(window);
    const double scaled = numberAfter(before, QStringLiteral("mean max weight now"));
    QVERIFY2(scaled > 0 && scaled <= 1, qPrintable(before));
    // d_k 512 without the scale: the softmax saturates, the caption says so with the new numbers.
    named<QCheckBox>(window, "scaling")->setChecked(false);
    named<QSpinBox>(window, "dkSpin")->setValue(512);
    QVERIFY(waitForShown(window));
    // The two changes may reach the worker as two runs (the spin box's debounce): wait for the
    // caption of the second.
    QTRY_VERIFY_WITH_TIMEOUT(settledCaption(window).startsWith(QStringLiteral("d_k is 512 now")), kWaitMs);
    const QString after = settledCaption(window);
    QVERIFY2(after.startsWith(QStringLiteral("d_k is 512 now")), qPrintable(after));
    const double unscaled = numberAfter(after, QStringLiteral("mean max weight now"));
    QVERIFY2(unscaled > scaled, qPrintable(before + QStringLiteral(" → ") + after));
  }

  void stepsOpenTheirViews() {
    MainWindow window(testOptions());
    window.show();
    LessonController* lessons = named<gui::LessonController>(window, "lessonController");
    // A compare step: A − B with B = its options; the next step stops comparing.
    lessons->open(QStringLiteral("second"), 0);
    QVERIFY(named<gui::CompareController>(window, "compareController")->active());
    QCOMPARE(named<gui::CompareController>(window, "compareController")->options(), QStringLiteral("--no-scale"));
    QVERIFY(waitForShown(window));
    // A step whose model is not fetched: says what to run, shows the synthetic lab meanwhile.
    lessons->next();
    QVERIFY(!named<gui::CompareController>(window, "compareController")->active());
    QLabel* message = lessons->panel()->messageLabel();
    QVERIFY(message->isVisible());
    QVERIFY2(message->text().contains(QStringLiteral("attention-lab-cli fetch-model minilm")), qPrintable(message->text()));
    QVERIFY2(message->text().contains(QStringLiteral("synthetic lab")), qPrintable(message->text()));
    // The panel offers the fetch (File → Get models… runs it; here only the request is checked).
    QPushButton* fetch = lessons->panel()->fetchButton();
    QVERIFY(fetch->isVisible());
    QCOMPARE(fetch->text(), QStringLiteral("Get minilm…"));
    QObject::disconnect(lessons, &gui::LessonController::fetchRequested, nullptr, nullptr);
    QSignalSpy requested(lessons, &gui::LessonController::fetchRequested);
    fetch->click();
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.first().at(0).toString(), QStringLiteral("minilm"));
    QVERIFY(named<gui::ModelSource>(window, "modelSourceBox")->dir().isEmpty());
    QCOMPARE(window.settings().text, QStringLiteral("the cat sat"));
    QVERIFY(waitForShown(window));
    // The decoding step opens the KV-cache dock; the note is gone.
    lessons->next();
    QVERIFY(named<QDockWidget>(window, "decodeDock")->isVisible());
    QVERIFY(!message->isVisible());
    QVERIFY(!fetch->isVisible());
    QVERIFY(window.settings().causal());
    QVERIFY(waitForShown(window));
    lessons->leave();
    QVERIFY(!named<QDockWidget>(window, "decodeDock")->isVisible());
  }

  void analysisStepBringsItsPlotForward() {
    // Issue 50: a step about the saturation plot shows it alone, beside the heads at the window's
    // height, not behind the inputs' tab; leaving puts the panel back with every plot.
    MainWindow window(testOptions());
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* analysis = named<QDockWidget>(window, "analysisDock");
    QVERIFY(!window.tabifiedDockWidgets(analysis).isEmpty());  // a tab beside the inputs
    LessonController* lessons = named<gui::LessonController>(window, "lessonController");
    lessons->open(QStringLiteral("first"), 1);
    QVERIFY(waitForShown(window));
    auto* saturation = named<QCustomPlot>(window, "saturationPlot");
    QVERIFY(saturation->isVisible());
    QVERIFY(!named<QCustomPlot>(window, "entropyPlot")->isVisible());
    QVERIFY(window.tabifiedDockWidgets(analysis).isEmpty());
    // The window's full height (the share of its width on real screens: check_screens.py; the
    // offscreen default screen here is 800 px wide).
    QTRY_VERIFY2(saturation->height() * 3 >= window.height() * 2,
                 qPrintable(QStringLiteral("%1 of %2").arg(saturation->height()).arg(window.height())));
    lessons->leave();
    QVERIFY(!window.tabifiedDockWidgets(analysis).isEmpty());  // back beside the inputs
    QVERIFY(!named<QCustomPlot>(window, "entropyPlot")->isHidden());
  }


  void positionIsRemembered() {
    QSettings().clear();
    WindowOptions options = testOptions();
    options.persist = true;  // into settings_dir_
    {
      MainWindow window(options);
      window.show();
      named<gui::LessonController>(window, "lessonController")->open(QStringLiteral("first"), 1);
      QVERIFY(waitForShown(window));
      named<QSpinBox>(window, "dkSpin")->setValue(128);  // the user's own change after the step
      QVERIFY(waitForShown(window));
      window.close();
    }
    QCOMPARE(QSettings().value(QStringLiteral("lesson/name")).toString(), QStringLiteral("first"));
    QCOMPARE(QSettings().value(QStringLiteral("lesson/step")).toInt(), 2);
    QVERIFY(QSettings().value(QStringLiteral("lesson/open")).toBool());
    options.restore_settings = true;
    {
      // Next start: the lesson is open at its step, with the user's last settings.
      MainWindow window(options);
      window.show();
      QVERIFY(named<gui::LessonController>(window, "lessonController")->active());
      QCOMPARE(named<gui::LessonController>(window, "lessonController")->step(), 1);
      QCOMPARE(window.settings().spec.d_k, 128);
      QVERIFY(waitForShown(window));
      named<gui::LessonController>(window, "lessonController")->leave();
      window.close();
    }
    QVERIFY(!QSettings().value(QStringLiteral("lesson/open")).toBool());
    {
      // Left: not reopened, but Lessons → Continue goes back to the step, with its settings.
      MainWindow window(options);
      window.show();
      QVERIFY(!named<gui::LessonController>(window, "lessonController")->active());
      QAction* resume = named<gui::LessonController>(window, "lessonController")->continueAction();
      QVERIFY(resume->isVisible());
      QCOMPARE(resume->text(), QStringLiteral("Continue lesson “First steps” at step 2"));
      resume->trigger();
      QVERIFY(named<gui::LessonController>(window, "lessonController")->active());
      QCOMPARE(named<gui::LessonController>(window, "lessonController")->step(), 1);
      QCOMPARE(window.settings().spec.d_k, 64);
      QVERIFY(waitForShown(window));
    }
    QSettings().clear();
  }

  void presentationModeKeepsThePanelInLargeType() {
    WindowOptions options = testOptions();
    options.presentation = true;
    options.lesson = QStringLiteral("first:2");
    MainWindow window(options);
    window.show();
    LessonController* lessons = named<gui::LessonController>(window, "lessonController");
    auto* panel = lessons->panel();
    QVERIFY(window.presentationMode());
    QVERIFY(!window.menuBar()->isVisible());
    QVERIFY(lessons->dock()->isVisible());
    QVERIFY(panel->large());
    QCOMPARE(lessons->step(), 1);
    QVERIFY(waitForShown(window));
    // Step 2 shows the saturation plot: the analysis panel stays in presentation mode for it.
    QTRY_VERIFY_WITH_TIMEOUT(named<QCustomPlot>(window, "saturationPlot")->isVisible(), kWaitMs);
    const double large = panel->captionLabel()->font().pointSizeF();
    // Keyboard only: Page Down from the heatmap.
    QTest::keyClick(named<QCustomPlot>(window, "headPlot"), Qt::Key_PageDown);
    QCOMPARE(lessons->step(), 2);
    QVERIFY(!named<gui::AnalysisPanel>(window, "analysisPanel")->isVisible());  // the cost step: the heads and the cost dock
    QVERIFY(waitForShown(window));
    // Long captions wrap inside the panel at a projector's sizes.
    for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      window.resize(size);
      QTest::qWait(50);
      QVERIFY2(panelTextFits(panel), qPrintable(QStringLiteral("%1×%2").arg(size.width()).arg(size.height())));
    }
    window.setPresentationMode(false);
    QVERIFY(!panel->large());
    QVERIFY(panel->captionLabel()->font().pointSizeF() < large);
    QVERIFY(lessons->dock()->isVisible());
    QVERIFY(panelTextFits(panel));
  }

  void chineseInterfaceShowsChineseCaptions() {
    WindowOptions options = testOptions();
    options.language = QStringLiteral("zh_CN");
    MainWindow window(options);
    window.show();
    named<gui::LessonController>(window, "lessonController")->open(QStringLiteral("first"));
    auto* panel = named<gui::LessonController>(window, "lessonController")->panel();
    QCOMPARE(named<gui::LessonController>(window, "lessonController")->menu()->actions().at(0)->text(), QStringLiteral("1. 第一步"));
    QCOMPARE(panel->titleLabel()->text(), QStringLiteral("第一步"));
    QCOMPARE(panel->tryLabel()->text(), QStringLiteral("拖动 d_k 滑块。"));
    QVERIFY(waitForShown(window));
    QString caption = settledCaption(window);
    QVERIFY2(caption.startsWith(QStringLiteral("现在 d_k 为 8；平均最大权重现在为 0.")), qPrintable(caption));
    QVERIFY2(!panel->stepLabel()->text().contains(QStringLiteral("Step")), qPrintable(panel->stepLabel()->text()));
    QVERIFY2(!panel->nextButton()->text().contains(QStringLiteral("Next")), qPrintable(panel->nextButton()->text()));
    // The language switches the caption with it.
    window.setLanguage(QStringLiteral("en"));
    caption = settledCaption(window);
    QVERIFY2(caption.startsWith(QStringLiteral("d_k is 8 now")), qPrintable(caption));
    QCOMPARE(panel->titleLabel()->text(), QStringLiteral("First steps"));
  }

  // Every step of the compiled-in lessons, in the Chinese window: applied without a refused
  // setting, computed, its caption's numbers filled in. Runs as the CTest entry gui_lesson_steps
  // (the other functions read the test lessons of ATTNLAB_LESSON_DIR). A step whose model is not
  // fetched shows the synthetic lab and says so; that is accepted here.
  void everyLessonStepAppliesInTheWindow() {
    if (!qEnvironmentVariableIsSet("ATTNLAB_GUI_REAL_LESSONS")) QSKIP("runs as the CTest entry gui_lesson_steps");
    WindowOptions options = testOptions();
    options.language = QStringLiteral("zh_CN");
    MainWindow window(options);
    window.show();
    QStringList rejected;
    connect(&window, &MainWindow::inputRejected, this, [&rejected](const QString& line) { rejected << line; });
    auto* panel = named<gui::LessonController>(window, "lessonController")->panel();
    int steps = 0;
    for (const attnlab::lessons::Lesson& lesson : attnlab::lessons::all()) {
      for (int i = 0; i < static_cast<int>(lesson.steps.size()); ++i, ++steps) {
        const QString where = QStringLiteral("%1:%2").arg(lesson.name).arg(i + 1);
        named<gui::LessonController>(window, "lessonController")->open(lesson.name, i);
        QCOMPARE(panel->titleLabel()->text(), lesson.title.zh_CN);
        const QString note = panel->messageLabel()->text();
        // Notes a step may carry: a model to fetch; never "not applied".
        QVERIFY2(!note.contains(QStringLiteral("未能应用")), qPrintable(where + QStringLiteral(": ") + note));
        QVERIFY2(waitForShown(window), qPrintable(where));
        const QString caption = settledCaption(window);
        QVERIFY2(!caption.isEmpty() && !panel->messageLabel()->text().contains(QStringLiteral("无法计算")),
                 qPrintable(where + QStringLiteral(": ") + caption + panel->messageLabel()->text()));
        QVERIFY2(rejected.isEmpty(), qPrintable(where + QStringLiteral(": ") + rejected.join(QLatin1Char('|'))));
      }
    }
    qInfo("%d lessons, %d steps applied", static_cast<int>(attnlab::lessons::all().size()), steps);
    QVERIFY(steps >= 40);
  }

 private:
  QTemporaryDir settings_dir_;
  QTemporaryDir models_dir_;
};

QTEST_MAIN(LessonWindowTest)
#include "test_lesson_window.moc"
