/// \file test_lesson_reproduce.cpp
/// The lecture pack's "reproduce" lines run as printed (issue 26, item 8): every lesson is
/// exported, each step's line is read back from index.html and run by bash at a repository-like
/// root (scripts/ beside it, attention-lab-cli on the PATH), and the figure it writes must equal
/// the pack's. The lines of the MiniLM and SmolLM2 steps run in test cases of their own, skipped
/// (with the reason) when scripts/fetch-model has not fetched the model.

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
#include "test_support.hpp"

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

/// fetch-model's cache ($ATTNLAB_MODEL_CACHE, else
/// ${XDG_CACHE_HOME:-~/.cache}/attention-lab/models).
QString fetchCache() {
  QString cache = qEnvironmentVariable("ATTNLAB_MODEL_CACHE");
  if (cache.isEmpty()) {
    QString base = qEnvironmentVariable("XDG_CACHE_HOME");
    if (base.isEmpty()) base = QDir::homePath() + QStringLiteral("/.cache");
    cache = base + QStringLiteral("/attention-lab/models");
  }
  return cache;
}

/// The lines of lesson `lesson` whose model is `which` ("minilm", "smollm2"), run as printed;
/// skipped with the reason when fetch-model has no copy of the model (`file` in its cache).
void runModelLines(const QString& which, const QString& file) {
  const QString cached = fetchCache() + QLatin1Char('/') + file;
  if (!QFileInfo::exists(cached)) {
    const std::string reason =
        s(QStringLiteral("%1 is not in fetch-model's cache (%2): run scripts/fetch-model %3")
              .arg(file, fetchCache(), which));
    if (attnlab::test::inCi()) FAIL(reason);
    attnlab::test::skipTest(reason);
    return;
  }
  QTemporaryDir pack;
  exportLesson(QStringLiteral("heads"), pack.path());
  // The figure is the same when the pack read the copy the line fetches.
  const bool same =
      QFileInfo(attnlab::lessons::fetchedModel(QLatin1Char('@') + which)).canonicalFilePath() ==
      QFileInfo(cached).canonicalFilePath();
  int ran = 0;
  for (const Line& line : reproduceLines(pack.filePath(QStringLiteral("index.html")))) {
    if (!line.text.contains(QStringLiteral("\"$(scripts/fetch-model %1)\"").arg(which))) continue;
    runLine(line, pack.path(), same);
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
      if (line.text.contains(QStringLiteral("fetch-model"))) continue;  // the model cases below
      runLine(line, pack.path(), true);
      ++ran;
    }
  }
  CHECK(ran >= 37);  // 40 steps, 3 of them on a model
}

TEST_CASE("the lecture pack's MiniLM lines run as printed", "[lessons][reproduce][minilm]") {
  runModelLines(QStringLiteral("minilm"), QStringLiteral("all-MiniLM-L6-v2/model.safetensors"));
}

TEST_CASE("the lecture pack's SmolLM2 line runs as printed", "[lessons][reproduce][smollm2]") {
  runModelLines(QStringLiteral("smollm2"), QStringLiteral("SmolLM2-135M-Instruct.Q4_1.gguf"));
}
