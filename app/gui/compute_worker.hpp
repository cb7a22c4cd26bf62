#pragma once
/// \file compute_worker.hpp
/// The window's computation off the GUI thread. ComputeController (GUI thread) numbers every
/// request with a generation; ComputeWorker (its own QThread) skips requests that a newer one has
/// already superseded, keeps one SyntheticModel and one backend between requests, and returns
/// immutable ComputeResults; the controller forwards only the newest and drops stale ones. With a
/// pretrained model folder the worker also loads the model (once per folder; a folder that fails
/// to load leaves the previous model in place) and runs its forward pass.
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
#include "attnlab/pretrained.hpp"
#include "attnlab/saturation.hpp"
#include "attnlab/summary.hpp"
#include "attnlab/synthetic.hpp"
#include "options/lab_settings.hpp"
#include "options/message.hpp"

namespace attnlab::gui {

using options::LabSettings;

/// A loaded pretrained model, as the window describes it.
struct ModelInfo {
  QString dir;         ///< The folder, absolute.
  QString name;        ///< The folder's name, e.g. "all-MiniLM-L6-v2".
  ModelConfig config;  ///< Layers, heads, d_model, architecture (mask, pairs).
  double load_ms = 0;  ///< Time PretrainedModel::load took, ms.
};

/// One finished request: the run and what the panels draw from it, computed on the worker so the
/// GUI thread only copies numbers into plots. Immutable once emitted.
///
/// Synthetic lab: one attention result, run.attention. Pretrained model: one result per captured
/// layer (`layers()`, layer numbers in `layerIndices()`), rows and columns both the model's tokens
/// after the display filter (special tokens left out when settings.hide_special; weights are not
/// renormalised then). `attention(entry)` reads either uniformly; entry 0 is the synthetic run or
/// the first captured layer.
struct ComputeResult {
  quint64 generation = 0;     ///< The request's number (see ComputeController::request).
  LabSettings settings;       ///< What was asked for.
  options::Message error;     ///< Not empty: the one-line reason nothing was computed.
  bool model_error = false;   ///< The error is the model folder's: it did not load.
  AttentionSpec spec;         ///< The resolved spec (valid when error is empty); for a model the
                              ///< mechanism, mask, h, d_model and temperature of its run.
  LabRun run;                 ///< Synthetic: tokens, scores, weights [h, n_q, n_k], statistics,
                              ///< output. Model: the shown tokens only (query = key tokens).
  QStringList query_tokens;   ///< run.query_tokens as QStrings (rows).
  QStringList key_tokens;     ///< run.key_tokens as QStrings (columns).
  std::shared_ptr<const ModelInfo> model;     ///< The model (null in the synthetic lab).
  std::shared_ptr<const ModelRun> model_run;  ///< The forward pass, every token (model only).
  std::vector<AttentionResult> filtered;  ///< model_run's layers without the hidden tokens; empty
                                          ///< when nothing is hidden.
  bool special_hidden = false;            ///< Special tokens were left out of the pictures.
  std::vector<AttentionSummary> summaries;  ///< One per entry (see attention()).
  double model_ms = 0;  ///< Time spent drawing new weights or loading the model (0 when reused).
  double total_ms = 0;        ///< Worker time for this request, ms.
  /// settings.rollout with a model: the attention rollout (Abnar & Zuidema 2020) through layer
  /// rollout_last as a one-head result [1, n, n] over the shown tokens; null otherwise.
  std::shared_ptr<const AttentionResult> rollout;
  int rollout_last = 0;

  /// True when nothing was computed (see error).
  bool failed() const { return !error.empty(); }
  /// Number of attention results: 1 for the synthetic lab, the captured layers for a model.
  int entries() const { return model ? static_cast<int>(layers().size()) : 1; }
  /// Attention result `entry` (0 ≤ entry < entries()), shown tokens only.
  const AttentionResult& attention(int entry = 0) const;
  /// A model's shown layers, in layer order (empty in the synthetic lab).
  const std::vector<AttentionResult>& layers() const;
  /// The model layer number of each entry of layers() (empty in the synthetic lab).
  const std::vector<int>& layerIndices() const;
};
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
  void compute(quint64 generation, const attnlab::options::LabSettings& settings);
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

 private:
  Backend& backendFor(const LabSettings& settings);
  /// The pretrained-model half of compute(); false when a newer request superseded this one.
  bool computeModel(quint64 generation, const LabSettings& settings, ComputeResult& result);
  /// Runs (or reuses) the forward pass of the loaded model and fills result; throws.
  void runModel(const LabSettings& settings, const ModelConfig& config, ComputeResult& result);

  std::shared_ptr<std::atomic<quint64>> latest_;
  std::shared_ptr<std::atomic<quint64>> cancelled_;
  std::unique_ptr<SyntheticModel> model_;  // rebuilt only when sameWeights() is false
  std::unique_ptr<Backend> backend_;
  QString backend_key_;
  std::unique_ptr<PretrainedModel> pretrained_;  // the last folder that loaded
  std::shared_ptr<const ModelInfo> pretrained_info_;
  /// The last forward pass and what it was run with: toggling the display filter reuses it.
  std::shared_ptr<const ModelRun> last_run_;
  QString last_run_key_;
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
  /// Rows drawn per d_k for n_k keys: 2000 for short rows, fewer for long ones (about 32000
  /// scores per d_k, at least 32 rows: each row's mean is over n_k keys already).
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
Q_DECLARE_METATYPE(attnlab::options::LabSettings)
