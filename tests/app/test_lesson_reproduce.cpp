/// \file test_lesson_reproduce.cpp
/// The lecture pack's "reproduce" lines run as printed (issue 26, item 8): every lesson is
/// exported, each step's line is read back from index.html and run by bash at a repository-like
/// root (scripts/ beside it, attention-lab-cli on the PATH), and the figure it writes must equal
/// the pack's. The lines of the MiniLM and SmolLM2 steps run in test cases of their own, skipped
/// (with the reason) when the model is not fetched (--model minilm reads the fetched copy).
/// The command lines that the steps' "Try this" and captions quote run too (issue 50).

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <catch2/catch.hpp>
#include <sstream>
#include <vector>

#include "cli/cli.hpp"
#include "lessons/lesson.hpp"
#include "options/model_manifest.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_lesson_reproduce {

namespace {

std::string s(const QString& text) { return text.toStdString(); }

/// One step's reproduce line as the page prints it.
struct Line {
  QString step;  ///< The step's anchor ("heads-heads-minilm").
  QString text;  ///< "attention-lab-cli render … --out 13-03-heads-minilm.png".
};

/// The reproduce lines of a pack's index.html, in page order.
std::vector<Line> reproduceLines(const QString& index) {
  QFile file(index);
  REQUIRE(file.open(QIODevice::ReadOnly));
  QXmlStreamReader xml(file.readAll());
  std::vector<Line> lines;
  QString step;
  while (!xml.atEnd()) {
    if (xml.readNext() != QXmlStreamReader::StartElement) continue;
    const QXmlStreamAttributes a = xml.attributes();
    if (a.value(QStringLiteral("class")) == QLatin1String("step"))
      step = a.value(QStringLiteral("id")).toString();
    if (xml.name() == QLatin1String("code")) {
      const QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
      lines.push_back({step, text});
    }
  }
  REQUIRE(!xml.hasError());
  return lines;
}

/// The lesson pack of `lesson` in `dir` (in-process, as a teacher exports it).
void exportLesson(const QString& lesson, const QString& dir) {
  std::ostringstream out, err;
  const int code = attnlab::cli::run({"lesson", "export", s(lesson), "--out", s(dir)}, out, err);
  INFO("stderr: " << err.str());
  REQUIRE(code == 0);
}

/// Runs `command` with bash in `root`, a fresh folder given scripts/ (the repository's), with
/// attention-lab-cli on the PATH, and checks that it exits 0.
void runInRoot(const QString& command, const QTemporaryDir& root) {
  REQUIRE(QFile::link(QStringLiteral(ATTNLAB_SOURCE_DIR "/scripts"),
                      root.filePath(QStringLiteral("scripts"))));
  QProcess bash;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("PATH"), QFileInfo(QStringLiteral(ATTNLAB_CLI_BINARY)).absolutePath() +
                                         QLatin1Char(':') + env.value(QStringLiteral("PATH")));
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  bash.setProcessEnvironment(env);
  bash.setWorkingDirectory(root.path());
  bash.setStandardOutputFile(QProcess::nullDevice());  // a model's JSON can be megabytes
  bash.start(QStringLiteral("bash"), {QStringLiteral("-c"), command});
  REQUIRE(bash.waitForFinished(300000));
  INFO("stderr: " << bash.readAllStandardError().toStdString());
  REQUIRE(bash.exitStatus() == QProcess::NormalExit);
  REQUIRE(bash.exitCode() == 0);
}

/// Runs `line` with bash at a repository-like root (runInRoot) and checks that it writes the
/// figure the pack holds (`pack`/NAME.png for the line's --out NAME.png), pixel for pixel when
/// `same_figure`.
void runLine(const Line& line, const QString& pack, bool same_figure) {
  INFO("step " << s(line.step) << ": " << s(line.text));
  REQUIRE(line.text.startsWith(QLatin1String("attention-lab-cli ")));
  const qsizetype out = line.text.lastIndexOf(QLatin1String(" --out "));
  REQUIRE(out > 0);
  const QString name = line.text.mid(out + 7).trimmed();
  QTemporaryDir root;
  runInRoot(line.text, root);
  const QImage made(root.filePath(name));
  REQUIRE(!made.isNull());
  const QImage expected(QDir(pack).filePath(name));
  REQUIRE(!expected.isNull());
  CHECK(made.size() == expected.size());
  if (same_figure) CHECK(made == expected);
}

/// The command lines a lesson text quotes: from "attention-lab-cli " to the end of the --out
/// argument that ends it (the sentence goes on after it); quoted arguments keep their spaces.
QStringList quotedCommands(const QString& text) {
  static const QRegularExpression command(
      QStringLiteral(R"re(attention-lab-cli (?:[^"]|"[^"]*")*?--out [^\s"]+\.(?:png|svg|pdf))re"));
  QStringList commands;
  for (auto it = command.globalMatch(text); it.hasNext();) commands << it.next().captured(0);
  return commands;
}

/// Whether a reproduce line runs a fetched model (--model NAME of the manifest).
bool namesFetchedModel(const QString& text) {
  for (const QString& name : attnlab::options::manifestNames())
    if (text.contains(QStringLiteral("--model %1 ").arg(name))) return true;
  return false;
}

/// The lines of lesson "heads" whose model is `which` ("minilm", "smollm2"), run as printed
/// (--model NAME reads the fetched copy); skipped with the reason when it is not fetched.
void runModelLines(const QString& which) {
  const attnlab::options::ManifestModel* model = attnlab::options::findManifestModel(which);
  REQUIRE(model != nullptr);
  if (attnlab::options::fetchedModelPath(*model).isEmpty()) {
    const std::string reason =
        s(QStringLiteral("%1 is not fetched (%2): run attention-lab-cli fetch-model %3")
              .arg(model->display, attnlab::options::modelPath(*model), which));
    if (attnlab::test::inCi()) FAIL(reason);
    attnlab::test::skipTest(reason);
    return;
  }
  QTemporaryDir pack;
  exportLesson(QStringLiteral("heads"), pack.path());
  int ran = 0;
  for (const Line& line : reproduceLines(pack.filePath(QStringLiteral("index.html")))) {
    if (!line.text.contains(QStringLiteral("--model %1 ").arg(which))) continue;
    runLine(line, pack.path(), true);  // the pack and the line read the same fetched copy
    ++ran;
  }
  CHECK(ran >= 1);
}

}  // namespace

TEST_CASE("every reproduce line of the lecture pack runs as printed (the synthetic lab's)",
          "[lessons][reproduce]") {
  int ran = 0;
  for (const attnlab::lessons::Lesson& lesson : attnlab::lessons::all()) {
    INFO("lesson " << s(lesson.name));
    QTemporaryDir pack;
    exportLesson(lesson.name, pack.path());
    for (const Line& line : reproduceLines(pack.filePath(QStringLiteral("index.html")))) {
      CHECK(!line.text.contains(QStringLiteral("@minilm")));
      CHECK(!line.text.contains(QStringLiteral("@smollm2")));
      // Numbers in their shortest form: "--dropout 0.1", never 0.10000000000000001.
      CHECK(!line.text.contains(QStringLiteral("0000000")));
      if (namesFetchedModel(line.text)) continue;  // the model cases below
      runLine(line, pack.path(), true);
      ++ran;
    }
  }
  CHECK(ran >= 37);  // 40 steps, 3 of them on a model
}

TEST_CASE("the lecture pack's MiniLM lines run as printed", "[lessons][reproduce][minilm]") {
  runModelLines(QStringLiteral("minilm"));
}

TEST_CASE("the lecture pack's SmolLM2 line runs as printed", "[lessons][reproduce][smollm2]") {
  runModelLines(QStringLiteral("smollm2"));
}

TEST_CASE("every command a lesson's Try this or caption quotes runs as printed", "[lessons][try]") {
  // Issue 50: lesson 15's Try this ran --model SmolLM2.gguf (exit 2). Every "attention-lab-cli …
  // --out FILE" of a step's texts, the same in English and Chinese, exits 0 and writes its
  // figure; a line on a fetched model that is not there is skipped with the reason (failed in CI).
  int ran = 0, quoted = 0;
  QStringList missing;
  for (const attnlab::lessons::Lesson& lesson : attnlab::lessons::all()) {
    for (const attnlab::lessons::Step& step : lesson.steps) {
      INFO("lesson " << s(lesson.name) << ", step " << s(step.id));
      QStringList commands;
      for (const attnlab::lessons::Text* text : {&step.try_this, &step.caption}) {
        commands << quotedCommands(text->en);
        CHECK(quotedCommands(text->zh_CN) ==
              quotedCommands(text->en));  // one command, both languages
      }
      for (const QString& command : commands) {
        INFO(s(command));
        ++quoted;
        CHECK(!command.contains(
            QStringLiteral(".gguf")));  // a model by its name, never a file a student lacks
        const std::optional<attnlab::lessons::ModelArgument> model =
            attnlab::lessons::findModelArgument(QProcess::splitCommand(command));
        if (model && attnlab::options::findManifestModel(model->value) &&
            attnlab::lessons::fetchedModel(QLatin1Char('@') + model->value).isEmpty()) {
          missing << model->value;
          continue;
        }
        QTemporaryDir root;
        runInRoot(command, root);
        const QString out = QProcess::splitCommand(command).last();
        CHECK(!QImage(root.filePath(out)).isNull());
        ++ran;
      }
    }
  }
  CHECK(quoted >= 2);  // lesson 15's generate and decode lines
  if (!missing.isEmpty()) {
    missing.removeDuplicates();
    const std::string reason =
        s(QStringLiteral("%1 not fetched (attention-lab-cli fetch-model %1): %2 of %3 "
                         "commands not run")
              .arg(missing.join(QLatin1Char(' ')))
              .arg(quoted - ran)
              .arg(quoted));
    if (attnlab::test::inCi()) FAIL(reason);
    attnlab::test::skipTest(reason);
  }
}

}  // namespace attnlab_test_lesson_reproduce
