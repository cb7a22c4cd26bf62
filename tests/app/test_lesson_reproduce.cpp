/// \file test_lesson_reproduce.cpp
/// The lecture pack's "reproduce" lines run as printed (issue 26, item 8): every lesson is
/// exported, each step's line is read back from index.html and run by bash at a repository-like
/// root (scripts/ beside it, attention-lab-cli on the PATH), and the figure it writes must equal
/// the pack's. The lines of the MiniLM and SmolLM2 steps run in test cases of their own, skipped
/// (with the reason) when the model is not fetched (--model minilm reads the fetched copy).

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
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

/// Runs `line` with bash in a fresh folder that holds scripts/ (the repository's), with
/// attention-lab-cli on the PATH, and checks that it succeeds and writes the figure the pack
/// holds (`pack`/NAME.png for the line's --out NAME.png), pixel for pixel when `same_figure`.
void runLine(const Line& line, const QString& pack, bool same_figure) {
  INFO("step " << s(line.step) << ": " << s(line.text));
  REQUIRE(line.text.startsWith(QLatin1String("attention-lab-cli ")));
  const qsizetype out = line.text.lastIndexOf(QLatin1String(" --out "));
  REQUIRE(out > 0);
  const QString name = line.text.mid(out + 7).trimmed();
  QTemporaryDir root;
  REQUIRE(QFile::link(QStringLiteral(ATTNLAB_SOURCE_DIR "/scripts"),
                      root.filePath(QStringLiteral("scripts"))));
  QProcess bash;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("PATH"), QFileInfo(QStringLiteral(ATTNLAB_CLI_BINARY)).absolutePath() +
                                         QLatin1Char(':') + env.value(QStringLiteral("PATH")));
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  bash.setProcessEnvironment(env);
  bash.setWorkingDirectory(root.path());
  bash.start(QStringLiteral("bash"), {QStringLiteral("-c"), line.text});
  REQUIRE(bash.waitForFinished(300000));
  INFO("stderr: " << bash.readAllStandardError().toStdString());
  REQUIRE(bash.exitStatus() == QProcess::NormalExit);
  REQUIRE(bash.exitCode() == 0);
  const QImage made(root.filePath(name));
  REQUIRE(!made.isNull());
  const QImage expected(QDir(pack).filePath(name));
  REQUIRE(!expected.isNull());
  CHECK(made.size() == expected.size());
  if (same_figure) CHECK(made == expected);
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

}  // namespace attnlab_test_lesson_reproduce
