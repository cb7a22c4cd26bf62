#pragma once
/// \file compute_worker.hpp
/// The window's computation off the GUI thread. ComputeController (GUI thread) numbers every
/// request with a generation; ComputeWorker (its own QThread) skips requests that a newer one has
/// already superseded, keeps one SyntheticModel and one backend between requests, and returns
/// immutable ComputeResults; the controller forwards only the newest and drops stale ones.
/// SaturationCache runs the Monte-Carlo saturation curves on a thread pool, once per (n_k, seed).

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThread>
#include <QThreadPool>
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "attnlab/backend.hpp"
#include "attnlab/saturation.hpp"
#include "attnlab/synthetic.hpp"
#include "lab_settings.hpp"

namespace attnlab::gui {

/// Bins of the histogram of one run's scores (every head, every visible cell).
struct ScoreHistogram {
  double lo = 0;              ///< Left edge of bin 0 (score units, after the scale).
  double hi = 0;              ///< Right edge of the last bin.
  std::vector<double> count;  ///< Cells per bin.
};

/// One finished request: the run and what the panels draw from it, computed on the worker so the
/// GUI thread only copies numbers into plots. Immutable once emitted.
struct ComputeResult {
  quint64 generation = 0;     ///< The request's number (see ComputeController::request).
  LabSettings settings;       ///< What was asked for.
  QString error;              ///< Non-empty: the one-line reason nothing was computed.
  AttentionSpec spec;         ///< The resolved spec (valid when error is empty).
  LabRun run;                 ///< Tokens, scores, weights [h, n_q, n_k], statistics, output.
  QStringList query_tokens;   ///< run.query_tokens as QStrings (rows).
  QStringList key_tokens;     ///< run.key_tokens as QStrings (columns).
  std::vector<double> row_entropy;      ///< Per query row, entropy in nats averaged over heads.
  std::vector<double> row_max_entropy;  ///< Per query row, ln(visible keys): the uniform row.
  ScoreHistogram histogram;   ///< Scores of every head and visible cell.
  double max_weight = 0;      ///< Largest weight over all heads (what the maps plot at most).
  double model_ms = 0;        ///< Time spent drawing new weights (0 when the model was reused).
  double total_ms = 0;        ///< Worker time for this request, ms.
};
/// Results travel between threads as shared immutable objects.
using ResultPtr = std::shared_ptr<const ComputeResult>;

/// Lives on the worker thread; receives requests through ComputeController.
class ComputeWorker : public QObject {
  Q_OBJECT
 public:
  /// latest: the newest generation requested, written by the GUI thread.
  explicit ComputeWorker(std::shared_ptr<std::atomic<quint64>> latest);

  /// Computes one request unless a newer one exists (then returns at once, emitting nothing).
  /// Never throws: failures become a result with `error` set.
  void compute(quint64 generation, const attnlab::gui::LabSettings& settings);

 signals:
  /// A request finished (successfully or with an error).
  void finished(attnlab::gui::ResultPtr result);

 private:
  Backend& backendFor(const LabSettings& settings);

  std::shared_ptr<std::atomic<quint64>> latest_;
  std::unique_ptr<SyntheticModel> model_;  // rebuilt only when sameWeights() is false
  std::unique_ptr<Backend> backend_;
  QString backend_key_;
};

/// The GUI-thread side: owns the worker thread, numbers requests, drops stale results.
class ComputeController : public QObject {
  Q_OBJECT
 public:
  explicit ComputeController(QObject* parent = nullptr);
  ~ComputeController() override;

  /// Queues a computation of settings and returns its generation (1, 2, …); any older request
  /// still queued is skipped and any older result arriving later is dropped.
  quint64 request(const LabSettings& settings);
  /// The newest generation handed out.
  quint64 generation() const { return generation_; }
  /// Results dropped because a newer request existed when they arrived.
  int droppedCount() const { return dropped_; }
  /// Lists the OpenCL devices on the worker thread (one thread touches OpenCL, so listing never
  /// races a backend being set up) and emits devicesListed.
  void listDevices();
  /// True while the newest request has not produced a result.
  bool busy() const { return delivered_ != generation_; }
  /// Delivers result through resultReady when it is the newest request's, else drops it
  /// (counted by droppedCount). Returns whether it was delivered. Called for every worker result;
  /// public so tests can feed stale results.
  bool accept(const ResultPtr& result);

 signals:
  /// The newest request's result (GUI thread).
  void resultReady(attnlab::gui::ResultPtr result);
  /// "name (platform)" of every OpenCL device, in listOpenClDevices order (GUI thread).
  void devicesListed(QStringList devices);

 private:
  QThread thread_;
  ComputeWorker* worker_ = nullptr;  // lives on thread_, deleted when it finishes
  std::shared_ptr<std::atomic<quint64>> latest_;
  quint64 generation_ = 0;
  quint64 delivered_ = 0;
  int dropped_ = 0;
};

/// The Monte-Carlo saturation curves (saturationMonteCarlo over d_k = 1 … 1024) for n_k keys,
/// computed on a one-thread pool and cached per (n_k, seed): they do not change with d_k or the
/// scaling, so dragging the slider only moves the marker.
class SaturationCache : public QObject {
  Q_OBJECT
 public:
  explicit SaturationCache(QObject* parent = nullptr);
  ~SaturationCache() override;

  /// The cached curves for (n_k, seed), or null; when missing, starts computing them (only the
  /// most recently wanted key is computed next) and emits ready() when done.
  std::shared_ptr<const SaturationAnalysis> get(int n_k, std::uint64_t seed);
  /// Rows drawn per d_k for n_k keys: 2000 for short rows, fewer (≥ 200) for long ones.
  static int samplesFor(int n_k);

 signals:
  /// Curves for (n_k, seed) are now cached.
  void ready(int n_k, quint64 seed);

 private:
  void startNext();

  using Key = std::pair<int, std::uint64_t>;
  std::map<Key, std::shared_ptr<const SaturationAnalysis>> cache_;
  std::optional<Key> wanted_;
  std::optional<Key> running_;
  QThreadPool pool_;
};

}  // namespace attnlab::gui

Q_DECLARE_METATYPE(attnlab::gui::ResultPtr)
Q_DECLARE_METATYPE(attnlab::gui::LabSettings)
