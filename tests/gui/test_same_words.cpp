/// \file test_same_words.cpp
/// Issue 21: one run pipeline, one set of words. The same bad inputs go through every caller of
/// run::Session — attention-lab-cli compute, render --diff, sweep, the window's compute worker and
/// a lesson's live numbers — and each refuses them with the same line.

#include <QTemporaryDir>
#include <QtTest>
#include <sstream>

#include "cli/cli.hpp"
#include "compute_worker.hpp"
#include "lessons/lesson.hpp"
#include "options/options.hpp"
#include "run/run.hpp"

namespace {

using attnlab::options::Options;

/// Settings (window options, no command) that parse but that the run pipeline refuses, with the
/// line every caller must give.
struct BadCase {
  QStringList args;
  QString words;
  bool pictures = true;  ///< Also render --diff and sweep (false: options only compute and the window take).
};

QString tinyGpt2() { return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/models/tiny-gpt2"); }

std::vector<BadCase> badCases() {
  const QString gpt2 = tinyGpt2();
  return {
      {{"--text", ""}, "the text is empty"},
      {{"--text", "   "}, "the text has no tokens (only white space)"},
      {{"--model", gpt2, "--layer", "7"}, "--layer 7 does not exist: tiny-gpt2 has layers 0–1 (or use all)"},
      {{"--model", gpt2, "--pair", "it sat"}, "sentence pairs need a BERT-family model; tiny-gpt2 is gpt2"},
      {{"--model", gpt2, "--text", ""}, "the text is empty"},
      {{"--model", QStringLiteral(ATTNLAB_TEST_DATA_DIR "/models/tiny-llama"), "--text",
        QStringLiteral("cat ").repeated(80)},
       ""},  // "the text has N tokens; tiny-llama reads at most 64 (its context length)"
      {{"--model", QStringLiteral(ATTNLAB_TEST_DATA_DIR "/models/no-such-model")}, ""},
      {{"--model", gpt2, "--ablate", "2.0"}, "--ablate: layer 2 does not exist: tiny-gpt2 has layers 0–1"},
      {{"--model", gpt2, "--ablate", "1.9"}, "--ablate: head 9 does not exist: tiny-gpt2 has heads 0–3"},
      {{"--model", gpt2, "--dla", "--target", "the cat sat"}, "", false},  // "--target: … is 4 tokens …"
      {{"--model", gpt2, "--text", "the cat sat", "--patch-from", "a"}, "", false},  // two lengths
  };
}

std::vector<std::string> raw(const QStringList& args) {
  std::vector<std::string> out;
  for (const QString& a : args) out.push_back(a.toUtf8().toStdString());
  return out;
}

/// The one line attention-lab-cli prints for args, without its "attention-lab-cli: " prefix.
QString cliLine(const QStringList& args) {
  std::ostringstream out, err;
  const int code = attnlab::cli::run(raw(args), out, err);
  if (code == 0) return QStringLiteral("(exit 0)");
  QString line = QString::fromStdString(err.str()).trimmed();
  const QString prefix = QStringLiteral("attention-lab-cli: ");
  if (line.startsWith(prefix)) line = line.mid(prefix.size());
  return line;
}

}  // namespace

class SameWords : public QObject {
  Q_OBJECT
 private slots:
  void everyCallerRefusesWithTheSameLine() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    attnlab::gui::ComputeController controller;
    attnlab::run::Session lesson_session;
    for (const BadCase& c : badCases()) {
      const QString compute = cliLine(QStringList{"compute"} + c.args);
      if (!c.words.isEmpty()) QCOMPARE(compute, c.words);
      QVERIFY2(compute != QStringLiteral("(exit 0)"), qPrintable(c.args.join(' ')));
      // render --diff: A is refused before B is computed, in the same words.
      if (c.pictures)
        QCOMPARE(cliLine(QStringList{"render"} + c.args +
                         QStringList{"--diff", "--no-scale", "--out", dir.filePath("d.png")}),
                 compute);
      // sweep: every frame goes through the same run.
      if (c.pictures)
        QCOMPARE(cliLine(QStringList{"sweep"} + c.args +
                         QStringList{"--param", "temperature", "--values", "1,2", "--out",
                                     dir.filePath("s.gif")}),
                 compute);
      // The window's worker.
      const Options window = attnlab::options::parse(raw(c.args), attnlab::options::kWindow);
      QSignalSpy ready(&controller, &attnlab::gui::ComputeController::resultReady);
      controller.request(window.lab);
      QVERIFY(ready.wait(20000));
      const auto result = ready.takeFirst().at(0).value<attnlab::gui::ResultPtr>();
      QVERIFY(result->failed());
      QCOMPARE(result->error.english(), compute);
      // A lesson's live numbers.
      QString lesson;
      try {
        (void)attnlab::lessons::quantities(QStringList{"n_tokens"}, window, lesson_session);
        lesson = QStringLiteral("(computed)");
      } catch (const attnlab::options::OptionError& e) {
        lesson = e.message().english();
      } catch (const std::exception& e) {
        lesson = QString::fromStdString(e.what());
      }
      QCOMPARE(lesson, compute);
    }
  }
};

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  SameWords test;
  return QTest::qExec(&test, argc, argv);
}

#include "test_same_words.moc"
