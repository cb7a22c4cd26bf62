/// \file test_exercise_window.cpp
/// The window under a few thousand random but valid interactions in one fixed-seed sequence
/// (std::mt19937 seeded with kSeed): typing English, Chinese and emoji, short and long, into the
/// text fields; stepping spin boxes and moving sliders within their ranges; choosing combo entries;
/// toggling check boxes; clicking heads and going back; switching to the tiny GPT-2 and Llama
/// models of tests/data/models and back; opening lessons and stepping through them; switching
/// the language (en ⇄ zh_CN); resizing the window (1024×768, 800×600 …); presentation mode on
/// and off. Every kCheckpointEvery interactions, and at the end, it waits until the window is idle
/// and checks that the picture finished: the window reports pictureReady, the status line says
/// no "…" (Computing…, Loading…, Cancelling…), the cancel button is hidden and the heads view
/// shows a drawn map.
///
/// Widgets are found by objectName (or by type inside a named dock); nothing is read through
/// MainWindow's accessors. ATTNLAB_EXERCISE_STEPS overrides the interaction count (default
/// kDefaultSteps, what the release suite runs; the asan preset runs 1000, the tsan preset 250;
/// the times on 2 shared cores are in docs/benchmarks.md, "The random-interaction test's time").

#include <qcustomplot.h>

#include <QAbstractSpinBox>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QTextBoundaryFinder>
#include <QtTest>
#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include "analysis_panel.hpp"
#include "main_window.hpp"
#include "window_test_support.hpp"

using attnlab::gui::MainWindow;

namespace {

constexpr unsigned kSeed = 20261201;
constexpr int kDefaultSteps = 800;
constexpr int kCheckpointEvery = 250;
/// How long one checkpoint may wait for the window to become idle (a model load under ASan);
/// ATTNLAB_GUI_WAIT_MS overrides it (the sanitizer presets set it).
constexpr int kIdleTimeoutMs = 90000;
/// The first and the longest wait between two nudges of waitIdle.
constexpr int kFirstNudgeWaitMs = 2000;
constexpr int kLongestNudgeWaitMs = 16000;

const QStringList kShortTexts = {
    QStringLiteral("The cat sat on the mat because it was tired."),
    QStringLiteral("attention is all you need"),
    QStringLiteral("a"),
    QStringLiteral("Hello, world!"),
    QStringLiteral("我爱自然语言处理。"),
    QStringLiteral("注意力机制很有趣"),
    QStringLiteral("猫坐在垫子上，因为它累了。"),
    QStringLiteral("😀 👍🏽 🇫🇷 👨‍👩‍👧"),
    QStringLiteral("I ❤️ 🍕 and 拉面 🍜"),
    QStringLiteral("x = 12345; y = x * 2"),
};
const QStringList kWords = {
    QStringLiteral("the"),  QStringLiteral("cat"),  QStringLiteral("sat"),   QStringLiteral("on"),
    QStringLiteral("mat"),  QStringLiteral("我"),   QStringLiteral("爱"),    QStringLiteral("你"),
    QStringLiteral("😀"),   QStringLiteral("🇫🇷"), QStringLiteral("query"), QStringLiteral("key"),
    QStringLiteral("value"), QStringLiteral("头"),  QStringLiteral("42"),    QStringLiteral("softmax"),
};

class Exercise {
 public:
  explicit Exercise(MainWindow& window) : window_(window), rng_(kSeed) {}

  int below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  /// Sends `text` one grapheme cluster per key event, as an input method delivers it.
  static void type(QPlainTextEdit* edit, const QString& text) {
    QTextBoundaryFinder finder(QTextBoundaryFinder::Grapheme, text);
    qsizetype start = 0;
    for (qsizetype end = finder.toNextBoundary(); end != -1; end = finder.toNextBoundary()) {
      QTest::sendKeyEvent(QTest::Click, edit, Qt::Key_unknown, text.mid(start, end - start), Qt::NoModifier);
      start = end;
    }
  }

  QString longText() {
    QStringList words;
    const int n = 50 + below(400);
    for (int i = 0; i < n; ++i) words << kWords[below(static_cast<int>(kWords.size()))];
    return words.join(QLatin1Char(' '));
  }

  /// The widgets of `T` inside the inputs dock that a user can reach now.
  template <typename T>
  std::vector<T*> reachable() const {
    std::vector<T*> out;
    auto* dock = window_.findChild<QDockWidget*>(QStringLiteral("inputsDock"));
    if (!dock || !dock->isVisible()) return out;
    for (T* w : dock->findChildren<T*>()) {
      if (w->isVisible() && w->isEnabled()) out.push_back(w);
    }
    return out;
  }

  void editText() {
    std::vector<QPlainTextEdit*> edits;
    for (QPlainTextEdit* e : reachable<QPlainTextEdit>()) {
      // The source (cross-attention) and the pair less often than the text.
      if (e->objectName() == QLatin1String("text") || chance(0.25)) edits.push_back(e);
    }
    if (edits.empty()) return;
    QPlainTextEdit* edit = edits[below(static_cast<int>(edits.size()))];
    edit->setFocus();
    const bool main_text = edit->objectName() == QLatin1String("text");
    switch (below(6)) {
      case 0:  // replace with a short sentence, typed
        QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
        type(edit, kShortTexts[below(static_cast<int>(kShortTexts.size()))]);
        break;
      case 1:  // append a word
        edit->moveCursor(QTextCursor::End);
        type(edit, QLatin1Char(' ') + kWords[below(static_cast<int>(kWords.size()))]);
        break;
      case 2:  // backspace a few characters (never the whole sentence of the text field)
        edit->moveCursor(QTextCursor::End);
        for (int i = below(4) + 1; i > 0 && (!main_text || edit->toPlainText().size() > 3); --i)
          QTest::keyClick(edit, Qt::Key_Backspace);
        break;
      case 3:  // a long text, pasted
        if (main_text) {
          edit->setPlainText(longText());
        } else {
          edit->clear();  // the source or pair off again
        }
        break;
      default:  // type a word in the middle
        edit->moveCursor(QTextCursor::Start);
        for (int i = below(5); i > 0; --i) QTest::keyClick(edit, Qt::Key_Right);
        type(edit, kWords[below(static_cast<int>(kWords.size()))] + QLatin1Char(' '));
        break;
    }
  }

  /// Steps a spin box; heads and d_model (the spin boxes whose ranges are the option table's 1–64
  /// and 1–4096) mostly keep heads dividing d_model, d_model ≤ 256 so that a run stays small.
  void stepSpin() {
    auto spins = reachable<QAbstractSpinBox>();
    if (spins.empty()) return;
    QAbstractSpinBox* spin = spins[below(static_cast<int>(spins.size()))];
    auto* ints = qobject_cast<QSpinBox*>(spin);
    if (ints && ints->maximum() == 4096 && ints->minimum() == 1 && ints->objectName().isEmpty()) {
      // d_model: a multiple of heads (found beside it), up to 256.
      const int heads = headsValue();
      const int multiple = heads * (1 + below(std::max(1, 256 / heads)));
      ints->setValue(chance(0.05) ? ints->value() + 1 : multiple);
      return;
    }
    if (ints && ints->maximum() == 64 && ints->minimum() == 1 && ints->objectName().isEmpty()) {
      const int d_model = dModelValue();
      std::vector<int> divisors;
      for (int h = 1; h <= std::min(16, d_model); ++h)
        if (d_model % h == 0) divisors.push_back(h);
      ints->setValue(chance(0.05) ? ints->value() + 1 : divisors[below(static_cast<int>(divisors.size()))]);
      return;
    }
    if (ints && ints->value() > 256) {
      spin->stepBy(-1 - below(8));
      return;
    }
    spin->stepBy(below(7) - 3);
  }

  int spinValue(int max) const {
    for (QSpinBox* s : window_.findChild<QDockWidget*>(QStringLiteral("inputsDock"))->findChildren<QSpinBox*>())
      if (s->minimum() == 1 && s->maximum() == max && s->objectName().isEmpty()) return s->value();
    return 1;
  }
  int headsValue() const { return spinValue(64); }
  int dModelValue() const { return spinValue(4096); }

  void moveSlider() {
    auto sliders = reachable<QSlider>();
    if (sliders.empty()) return;
    QSlider* slider = sliders[below(static_cast<int>(sliders.size()))];
    if (chance(0.5)) {
      slider->triggerAction(chance(0.5) ? QAbstractSlider::SliderSingleStepAdd : QAbstractSlider::SliderSingleStepSub);
    } else {
      slider->setValue(slider->minimum() + below(slider->maximum() - slider->minimum() + 1));
    }
  }

  static bool separator(QComboBox* combo, int index) {
    return combo->itemData(index, Qt::AccessibleDescriptionRole).toString() == QLatin1String("separator");
  }

  void choose(QComboBox* combo) {
    if (combo->count() < 2) return;
    int index = below(combo->count());
    if (index == combo->currentIndex() || separator(combo, index)) return;
    combo->setCurrentIndex(index);
    emit combo->activated(index);  // what a choice in the popup sends besides currentIndexChanged
  }

  void chooseCombo() {
    std::vector<QComboBox*> combos;
    for (QComboBox* c : reachable<QComboBox>())
      if (c->objectName() != QLatin1String("modelSource")) combos.push_back(c);
    if (!combos.empty()) choose(combos[below(static_cast<int>(combos.size()))]);
  }

  void toggleCheck() {
    auto checks = reachable<QCheckBox>();
    if (!checks.empty()) checks[below(static_cast<int>(checks.size()))]->click();
  }

  /// Synthetic lab ⇄ the tiny GPT-2 ⇄ the tiny Llama (the presets this test points at them) ⇄ the
  /// bundled translators.
  void switchModel() {
    auto* combo = window_.findChild<QComboBox*>(QStringLiteral("modelSource"));
    if (combo && combo->isEnabled()) choose(combo);
  }

  void clickHead() {
    auto* grid = window_.findChild<QCustomPlot*>(QStringLiteral("gridPlot"));
    if (grid && grid->isVisible() && grid->width() > 0 && grid->height() > 0 && chance(0.6)) {
      QTest::mouseClick(grid, Qt::LeftButton, {}, QPoint(below(grid->width()), below(grid->height())));
    } else {
      QTest::keyClick(&window_, Qt::Key_Escape);  // back to the grid (or cancel a forward pass)
    }
  }

  void lessonStep() {
    auto* dock = window_.findChild<QDockWidget*>(QStringLiteral("lessonDock"));
    if (!dock || !dock->isVisible() || chance(0.2)) {
      std::vector<QAction*> lessons;
      for (QAction* a : window_.findChildren<QAction*>())
        if (a->objectName().startsWith(QLatin1String("lesson-"))) lessons.push_back(a);
      if (!lessons.empty()) lessons[below(static_cast<int>(lessons.size()))]->trigger();
      return;
    }
    const char* names[] = {"lessonNext", "lessonNext", "lessonPrevious", "lessonLeave"};
    auto* button = window_.findChild<QAbstractButton*>(QLatin1String(names[below(4)]));
    if (button && button->isVisible() && button->isEnabled()) button->click();
  }

  QAction* actionWithText(const QString& text) const {
    for (QAction* a : window_.findChildren<QAction*>())
      if (a->text() == text) return a;
    return nullptr;
  }
  QAction* presentationAction() const {
    for (QAction* a : window_.findChildren<QAction*>())
      if (a->shortcut() == QKeySequence(Qt::Key_F5)) return a;
    return nullptr;
  }

  void switchLanguage() {
    chinese_ = !chinese_;
    if (QAction* a = actionWithText(chinese_ ? QStringLiteral("简体中文") : QStringLiteral("English"))) a->trigger();
  }

  void togglePresentation() {
    if (QAction* a = presentationAction()) a->trigger();
  }

  void resizeWindow() {
    static const QSize sizes[] = {{1024, 768}, {800, 600}, {1500, 920}, {1280, 800}, {1920, 1080}, {900, 700}};
    window_.resize(sizes[below(6)]);
  }

  /// One random interaction.
  void step() {
    const int pick = below(100);
    if (pick < 22) editText();
    else if (pick < 40) stepSpin();
    else if (pick < 52) moveSlider();
    else if (pick < 66) chooseCombo();
    else if (pick < 78) toggleCheck();
    else if (pick < 84) clickHead();
    else if (pick < 88) switchModel();
    else if (pick < 93) lessonStep();
    else if (pick < 95) switchLanguage();
    else if (pick < 98) resizeWindow();
    else togglePresentation();
    QCoreApplication::processEvents();
    if (chance(0.3)) QTest::qWait(1 + below(20));  // results arrive while the next input comes
  }

  /// Leaves presentation mode (the window's size is the screen's there), then waits until the
  /// window says its picture is ready with nothing computing: a 1-px resize makes it lay out and
  /// report readiness again whenever nothing is in flight (a rejected input, for one, leaves the
  /// last picture on screen without a new pictureReady). Each nudge lays the window out again and
  /// restarts its redraw, so the nudges come further and further apart (2 s, 4 s … at most 16 s):
  /// at a fixed interval, a redraw slower than it (a long text's grid under a sanitizer on a busy
  /// machine) would be restarted again and again and never finish.
  bool waitIdle(QSignalSpy& ready) {
    if (QAction* a = presentationAction(); a && a->isChecked()) a->trigger();
    QTest::qWait(250);  // past the typing debounce: the newest settings are requested
    const int timeout_ms = qEnvironmentVariableIntValue("ATTNLAB_GUI_WAIT_MS") > 0
                               ? qEnvironmentVariableIntValue("ATTNLAB_GUI_WAIT_MS")
                               : kIdleTimeoutMs;
    QElapsedTimer timer;
    timer.start();
    nudges_ = 0;
    for (int wait_ms = kFirstNudgeWaitMs; timer.elapsed() < timeout_ms;
         wait_ms = std::min(2 * wait_ms, kLongestNudgeWaitMs)) {
      window_.resize(window_.width() + (nudge_ ? 1 : -1), window_.height());
      nudge_ = !nudge_;
      ++nudges_;
      if (ready.wait(static_cast<int>(std::min<qint64>(wait_ms, timeout_ms - timer.elapsed()) + 1))) return true;
    }
    return false;
  }
  /// How many nudges the last waitIdle made.
  int nudges() const { return nudges_; }

  /// The status line (the status bar's first label; it has no objectName).
  QLabel* statusLine() const {
    const auto labels = window_.statusBar()->findChildren<QLabel*>();
    return labels.isEmpty() ? nullptr : labels.first();
  }

  bool headsDrawn() const {
    for (const char* name : {"gridPlot", "headPlot"}) {
      auto* plot = window_.findChild<QCustomPlot*>(QLatin1String(name));
      if (plot && plot->isVisible() && plot->plottableCount() > 0) return true;
    }
    return false;
  }

 private:
  MainWindow& window_;
  std::mt19937 rng_;
  bool chinese_ = false;
  bool nudge_ = false;
  int nudges_ = 0;
};

}  // namespace

class ExerciseWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // The model presets point at the repository's tiny models, so the model choice switches to
    // them like to a fetched model (and no 100 MB model loads here).
    const QString models = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/models");
    qputenv("ATTNLAB_MINILM_DIR", (models + QStringLiteral("/tiny-gpt2")).toUtf8());
    qputenv("ATTNLAB_SMOLLM2_GGUF", (models + QStringLiteral("/tiny-llama/tiny-llama.gguf")).toUtf8());
  }

  void randomInteractions() {
    const int steps = qEnvironmentVariableIsSet("ATTNLAB_EXERCISE_STEPS")
                          ? qEnvironmentVariableIntValue("ATTNLAB_EXERCISE_STEPS")
                          : kDefaultSteps;
    MainWindow window(attnlab::test::testOptions());
    QSignalSpy ready(&window, &MainWindow::pictureReady);
    window.resize(1024, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    Exercise exercise(window);
    QVERIFY(exercise.waitIdle(ready));
    QElapsedTimer timer;
    timer.start();
    for (int i = 1; i <= steps; ++i) {
      exercise.step();
      if (i % kCheckpointEvery != 0 && i != steps) continue;
      QElapsedTimer wait;
      wait.start();
      const bool idle = exercise.waitIdle(ready);
      qInfo("interaction %d at %.1f s: %s after %.1f s, %d nudges (%s)", i, timer.elapsed() / 1000.0,
            idle ? "idle" : "NOT idle", wait.elapsed() / 1000.0, exercise.nudges(),
            qPrintable(exercise.statusLine() ? exercise.statusLine()->text() : QString()));
      if (!idle) {
        // What the window waits for (MainWindow::checkReady): the worker, the comparison, the curves.
        auto* compare = window.findChild<attnlab::gui::CompareController*>(QStringLiteral("compareController"));
        auto* heads = window.findChild<attnlab::gui::HeadsView*>(QStringLiteral("headsView"));
        auto* analysis = window.findChild<attnlab::gui::AnalysisPanel*>(QStringLiteral("analysisPanel"));
        const auto shown = window.currentResult();
        qInfo("analysis visible %d, curves shown %d, curves cached %d, n_k %d",
              analysis ? analysis->isVisible() : -1, analysis ? analysis->curvesShown() : -1,
              analysis && shown ? analysis->curves(shown->attention(0).nK(), shown->settings.seed) != nullptr : -1,
              shown ? shown->attention(0).nK() : -1);
        qInfo("busy %d, comparing '%s' (error '%s', B %s, difference %d, failed %d), shown %d",
              window.controller().busy(), compare ? qPrintable(compare->options()) : "?",
              compare ? qPrintable(compare->error().english()) : "?",
              compare && compare->result() ? "there" : "none", heads ? heads->showsDifference() : -1,
              heads ? heads->comparisonFailed() : -1, window.currentResult() != nullptr);
      }
      QVERIFY2(idle, qPrintable(QStringLiteral("not idle after interaction %1").arg(i)));
      QLabel* status = exercise.statusLine();
      QVERIFY(status);
      // The whole line (the label elides what does not fit, and keeps the whole as its tooltip).
      QVERIFY2(!status->toolTip().endsWith(QChar(0x2026)),
               qPrintable(QStringLiteral("after interaction %1 the status says %2").arg(i).arg(status->toolTip())));
      auto* cancel = window.findChild<QPushButton*>(QStringLiteral("cancelComputation"));
      QVERIFY(cancel && !cancel->isVisible());
      QVERIFY2(exercise.headsDrawn(), qPrintable(QStringLiteral("no map drawn after interaction %1").arg(i)));
    }
    qInfo("%d interactions in %.1f s", steps, timer.elapsed() / 1000.0);
  }
};

QTEST_MAIN(ExerciseWindowTest)
#include "test_exercise_window.moc"
