#pragma once
/// \file compute_worker.hpp
/// The window's computation off the GUI thread. ComputeController (GUI thread) numbers every
/// request with a generation; ComputeWorker (its own QThread) skips requests that a newer one has
/// already superseded, keeps one SyntheticModel and one backend between requests, and returns
/// immutable ComputeResults; the controller forwards only the newest and drops stale ones. The
/// worker computes through its run::Session (run/run.hpp: validate, load, check, run — the CLI's
/// pipeline and words); a model folder that fails to load leaves the previous model in place.
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
#include "attnlab/generate.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/saturation.hpp"
#include "attnlab/summary.hpp"
#include "attnlab/synthetic.hpp"
#include "options/lab_settings.hpp"
#include "options/message.hpp"
#include "run/run.hpp"
#include "views/ready_maps.hpp"

namespace attnlab::gui {

using options::LabSettings;

/// A loaded pretrained model, as the window describes it.
using ModelInfo = results::ModelInfo;

/// One finished request: the run (results::Run: settings, spec, tokens, layers, rollout …) and what
/// the panels draw from it, computed on the worker so the GUI thread only copies numbers into
/// plots. Immutable once emitted.
struct ComputeResult : results::Run {
  quint64 generation = 0;     ///< The request's number (see ComputeController::request).
  options::Message error;     ///< Not empty: the one-line reason nothing was computed.
  bool model_error = false;   ///< The error is the model folder's: it did not load.
  std::vector<AttentionSummary> summaries;  ///< One per entry (see attention()).
  double total_ms = 0;        ///< Worker time for this request, ms.
  /// Set when the rows are a generation's (GenerateBox): its prompt block and steps so far, the
  /// rows on screen grownAttention's of all of them.
  std::shared_ptr<const Generation> generated;
  /// The maps of entry 0 filled on the worker for the heads view's plan at request time
  /// (ComputeController::setMapPlan; null without one or when the result does not fit it): the
  /// GUI thread copies them in instead of filling them (views::updateWeights).
  std::shared_ptr<const views::ReadyMaps> ready_maps;

  /// True when nothing was computed (see error).
  bool failed() const { return !error.empty(); }
};
/// Fills result.summaries (summarizeAttention of every entry, the analysis panel's histogram
/// bins): what the worker adds to every run before it is drawn.
void summarize(ComputeResult& result);

/// Results travel between threads as shared immutable objects.
using ResultPtr = std::shared_ptr<const ComputeResult>;

/// Lives on the worker thread; receives requests through ComputeController.
class ComputeWorker : public QObject {
  Q_OBJECT
 public:
  /// latest: the newest generation requested, written by the GUI thread; cancelled: the
  /// generation whose forward pass the user cancelled (0: none), written by the GUI thread.
  ComputeWorker(std::shared_ptr<std::atomic<quint64>> latest,
                std::shared_ptr<std::atomic<quint64>> cancelled);

  /// Computes one request unless a newer one exists (then returns at once, emitting nothing).
  /// Never throws: failures become a result with `error` set.
  /// plan: the heads view's maps, filled for the result too (ComputeResult::ready_maps); may be null.
  void compute(quint64 generation, const attnlab::options::LabSettings& settings,
               std::shared_ptr<const views::MapPlan> plan = nullptr);
  /// Forgets the backend's kept OpenCL failures (Backend::retry) so that its next computation
  /// tries the device and the programs again.
  void retryBackend();

 signals:
  /// A request finished (successfully or with an error).
  void finished(attnlab::gui::ResultPtr result);
  /// Request `generation` starts loading the model folder `dir` (takes a fraction of a second).
  void modelLoading(quint64 generation, QString dir);
  /// Request `generation`'s forward pass has run `done` of `total` layers (sent after each layer
  /// once the pass has run for 0.3 s).
  void progress(quint64 generation, int done, int total);
  /// Request `generation` has read `done` of `total` bytes of a newly loaded model's weights (the
  /// first touch of the mapped file; sent between 64 MB chunks once it has taken 0.3 s).
  void reading(quint64 generation, qint64 done, qint64 total);

 private:
  std::shared_ptr<std::atomic<quint64>> latest_;
  std::shared_ptr<std::atomic<quint64>> cancelled_;
  run::Session session_{BuildMode::kBackground};
};

/// The GUI-thread side: owns the worker thread, numbers requests, drops stale results.
class ComputeController : public QObject {
  Q_OBJECT
 public:
  explicit ComputeController(QObject* parent = nullptr);
  ~ComputeController() override;

  /// Asks for a computation of settings. One request is in flight at a time: while one is, the
  /// newest settings wait (replacing any that waited before) and are sent when its result
  /// arrives. Returns the generation the settings get (1, 2, …); results of older generations
  /// are dropped.
  quint64 request(const LabSettings& settings);
  /// The newest generation sent to the worker.
  quint64 generation() const { return generation_; }
  /// The picture the heads view shows (views::mapPlan; null: none the worker can fill): requests
  /// sent from now on fill their maps for it on the worker (ComputeResult::ready_maps).
  void setMapPlan(std::shared_ptr<const views::MapPlan> plan) { plan_ = std::move(plan); }
  /// Results dropped because a newer request existed when they arrived.
  int droppedCount() const { return dropped_; }
  /// Lists the OpenCL devices on the worker thread (one thread touches OpenCL, so listing never
  /// races a backend being set up) and emits devicesListed.
  void listDevices();
  /// The user asked to try OpenCL again after a failure: the worker's backend forgets the kept
  /// failure (Backend::retry), then settings are computed again.
  quint64 retryOpenCl(const LabSettings& settings);
  /// Stops the forward pass in flight after its current layer; its result then says it was
  /// cancelled (the window keeps the last picture). Settings waiting behind it are dropped.
  void cancel();
  /// True while a request is in flight or waiting.
  bool busy() const { return delivered_ != generation_ || waiting_.has_value(); }
  /// Delivers result through resultReady when it is the newest request's, else drops it
  /// (counted by droppedCount). Returns whether it was delivered. Called for every worker result;
  /// public so tests can feed stale results.
  bool accept(const ResultPtr& result);

 signals:
  /// The newest request's result (GUI thread).
  void resultReady(attnlab::gui::ResultPtr result);
  /// "name (platform)" of every OpenCL device, in listOpenClDevices order (GUI thread).
  void devicesListed(QStringList devices);
  /// The newest request is loading the model folder `dir` (GUI thread).
  void modelLoading(QString dir);
  /// The newest request's forward pass has run `done` of `total` layers (GUI thread).
  void progress(int done, int total);
  /// The newest request has read `done` of `total` bytes of its model's weights (GUI thread).
  void reading(qint64 done, qint64 total);

 private:
  QThread thread_;
  ComputeWorker* worker_ = nullptr;  // lives on thread_, deleted when it finishes
  std::shared_ptr<std::atomic<quint64>> latest_;
  std::shared_ptr<std::atomic<quint64>> cancelled_;
  /// Sends settings to the worker as the next generation.
  quint64 send(const LabSettings& settings);

  quint64 generation_ = 0;
  quint64 delivered_ = 0;
  bool in_flight_ = false;
  std::optional<LabSettings> waiting_;
  int dropped_ = 0;
  std::shared_ptr<const views::MapPlan> plan_;
};

/// The Monte-Carlo saturation curves for n_k keys (run::interactiveSaturation: d_k = 1 … 1024),
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
Q_DECLARE_METATYPE(attnlab::options::LabSettings)
