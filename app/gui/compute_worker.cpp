#include "compute_worker.hpp"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <QElapsedTimer>
#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "attnlab/error.hpp"

namespace attnlab::gui {
namespace {

constexpr int kHistogramBins = 40;

/// The hand-over of a finished result from the worker to the GUI thread. Qt's queued signal already
/// orders them (QCoreApplication::postEvent's mutex), but inside the uninstrumented libQt6Core,
/// where ThreadSanitizer cannot see it: the worker locks this after filling the result and before
/// emitting, ComputeController::accept before reading it, so the edge is also one the tsan
/// preset sees. The same for a request's map plan the other way: ComputeController::send locks
/// it before queueing the request, ComputeWorker::compute before reading the plan.
/// Uncontended: one lock per request and result on each side.
std::mutex& handOver() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

void summarize(ComputeResult& result) {
  result.summaries.clear();
  for (int e = 0; e < result.entries(); ++e)
    result.summaries.push_back(summarizeAttention(result.attention(e), kHistogramBins));
}

ComputeWorker::ComputeWorker(std::shared_ptr<std::atomic<quint64>> latest,
                             std::shared_ptr<std::atomic<quint64>> cancelled)
    : latest_(std::move(latest)), cancelled_(std::move(cancelled)) {}

void ComputeWorker::retryBackend() { session_.retryBackend(); }

void ComputeWorker::compute(quint64 generation, const LabSettings& settings,
                            std::shared_ptr<const views::MapPlan> plan) {
  if (generation < latest_->load()) return;  // superseded while queued: skip the work
  { const std::lock_guard<std::mutex> received(handOver()); }
  QElapsedTimer timer;
  timer.start();
  auto result = std::make_shared<ComputeResult>();
  result->generation = generation;
  result->settings = settings;
  run::RunHooks hooks;
  hooks.allow_overview = true;  // a model view over the memory budget is drawn pooled
  hooks.loading = [this, generation](const QString& dir) { emit modelLoading(generation, dir); };
  QElapsedTimer pass;
  hooks.progress = [this, generation, &pass](int done, int total) {
    if (!pass.isValid()) pass.start();
    if (pass.elapsed() >= 300) emit progress(generation, done, total);
    return cancelled_->load() != generation;  // the user's Cancel stops after this layer
  };
  QElapsedTimer read;
  hooks.reading = [this, generation, &read](long long done, long long total) {
    if (!read.isValid()) read.start();
    // The first 0.3 s: nothing shown yet (a cached or small model reads in less), no Cancel to honour.
    if (read.elapsed() < 300) return true;
    emit reading(generation, done, total);
    return cancelled_->load() != generation;  // the user's Cancel stops after this chunk
  };
  try {
    // The CLI's pipeline, checks and words (run/run.hpp).
    static_cast<results::Run&>(*result) = std::move(*session_.run(settings, hooks));
    summarize(*result);
    // The heatmap's cells and their colours, for the picture on screen (off the GUI thread).
    if (plan && result->entries() > 0) result->ready_maps = views::fillReadyMaps(result->attention(0), plan);
  } catch (const run::LoadFailure& e) {
    result->model_error = true;
    result->error = e.message();
  } catch (const options::OptionError& e) {
    result->error = e.message();
  } catch (const Error& e) {
    result->error = e.code() == ErrorCode::kCancelled
                        ? options::Message(ATTNLAB_MSG("the forward pass was cancelled"))
                        : options::Message::verbatim(QString::fromStdString(e.what()));
  } catch (const std::bad_alloc&) {
    result->error = options::Message(ATTNLAB_MSG("not enough memory for these settings"));
  } catch (const std::exception& e) {
    result->error = options::Message(ATTNLAB_MSG("internal error: %1"), {QString::fromStdString(e.what())});
  }
  if (result->failed() && !result->model_error && settings.pretrained() && session_.loaded() &&
      session_.loaded()->dir == settings.model_dir) {
    result->model = session_.loaded();  // a refused text still names the loaded model
  }
  result->total_ms = timer.nsecsElapsed() / 1e6;
  { const std::lock_guard<std::mutex> published(handOver()); }
  emit finished(std::move(result));
}

ComputeController::ComputeController(QObject* parent)
    : QObject(parent),
      latest_(std::make_shared<std::atomic<quint64>>(0)),
      cancelled_(std::make_shared<std::atomic<quint64>>(0)) {
  qRegisterMetaType<ResultPtr>();
  qRegisterMetaType<options::LabSettings>();
  worker_ = new ComputeWorker(latest_, cancelled_);
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  connect(worker_, &ComputeWorker::finished, this, &ComputeController::accept,
          Qt::QueuedConnection);
  connect(
      worker_, &ComputeWorker::modelLoading, this,
      [this](quint64 generation, const QString& dir) {
        if (generation == generation_) emit modelLoading(dir);
      },
      Qt::QueuedConnection);
  connect(
      worker_, &ComputeWorker::progress, this,
      [this](quint64 generation, int done, int total) {
        if (generation == generation_) emit progress(done, total);
      },
      Qt::QueuedConnection);
  connect(
      worker_, &ComputeWorker::reading, this,
      [this](quint64 generation, qint64 done, qint64 total) {
        if (generation == generation_) emit reading(done, total);
      },
      Qt::QueuedConnection);
  thread_.setObjectName(QStringLiteral("attention-lab compute"));
#ifdef __linux__
  // The compute thread (and the OpenMP and OpenCL threads it starts, which inherit its nice value)
  // runs at nice 5: it still gets the CPU, but the GUI thread wins it first, so dragging a slider
  // never waits behind a computation on a 2-core machine.
  connect(&thread_, &QThread::started, worker_, [] {
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 5);
  }, Qt::DirectConnection);
#endif
  thread_.start();
}

ComputeController::~ComputeController() {
  latest_->store(std::numeric_limits<quint64>::max());  // queued requests become stale
  thread_.quit();
  thread_.wait();
}

quint64 ComputeController::request(const LabSettings& settings) {
  if (in_flight_) {
    // One request at a time: the newest settings wait for the one in flight, so a drag shows a
    // result at the rate the worker computes them instead of none until it stops.
    waiting_ = settings;
    return generation_ + 1;
  }
  return send(settings);
}

quint64 ComputeController::send(const LabSettings& settings) {
  const quint64 generation = ++generation_;
  latest_->store(generation);
  in_flight_ = true;
  ComputeWorker* worker = worker_;
  { const std::lock_guard<std::mutex> published(handOver()); }
  QMetaObject::invokeMethod(
      worker_, [worker, generation, settings, plan = plan_] { worker->compute(generation, settings, plan); },
      Qt::QueuedConnection);
  return generation;
}

void ComputeController::cancel() {
  if (!in_flight_) return;
  waiting_.reset();
  cancelled_->store(generation_);
}

quint64 ComputeController::retryOpenCl(const LabSettings& settings) {
  ComputeWorker* worker = worker_;
  // Queued before the request, so the worker forgets the failure before it computes.
  QMetaObject::invokeMethod(worker_, [worker] { worker->retryBackend(); }, Qt::QueuedConnection);
  return request(settings);
}

void ComputeController::listDevices() {
  QPointer<ComputeController> self(this);
  QMetaObject::invokeMethod(
      worker_,
      [self] {
        QStringList names;
        for (const DeviceInfo& d : listOpenClDevices()) {
          names << QStringLiteral("%1 (%2)").arg(QString::fromStdString(d.name),
                                                 QString::fromStdString(d.platform));
        }
        QMetaObject::invokeMethod(
            self.data(),
            [self, names] {
              if (self) emit self->devicesListed(names);
            },
            Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

bool ComputeController::accept(const ResultPtr& result) {
  { const std::lock_guard<std::mutex> received(handOver()); }
  if (!result || result->generation != generation_) {
    ++dropped_;
    return false;
  }
  delivered_ = result->generation;
  in_flight_ = false;
  if (waiting_) send(*std::exchange(waiting_, std::nullopt));
  emit resultReady(result);
  return true;
}

SaturationCache::SaturationCache(QObject* parent) : QObject(parent) {
  pool_.setMaxThreadCount(1);
}

SaturationCache::~SaturationCache() { pool_.waitForDone(); }


std::shared_ptr<const SaturationAnalysis> SaturationCache::get(int n_k, std::uint64_t seed) {
  const Key key{n_k, seed};
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  wanted_ = key;
  if (!running_) startNext();
  return nullptr;
}

void SaturationCache::startNext() {
  if (!wanted_ || cache_.count(*wanted_)) {
    wanted_.reset();
    return;
  }
  running_ = wanted_;
  wanted_.reset();
  const Key key = *running_;
  QPointer<SaturationCache> self(this);
  QThreadPool* pool = &pool_;
  (void)QtConcurrent::run(pool, [self, key] {
    std::shared_ptr<const SaturationAnalysis> analysis;
    try {
      analysis = std::make_shared<const SaturationAnalysis>(run::interactiveSaturation(key.first, key.second));
    } catch (const std::exception&) {
      analysis = std::make_shared<const SaturationAnalysis>();
    }
    if (!self) return;
    QMetaObject::invokeMethod(
        self.data(),
        [self, key, analysis] {
          if (!self) return;
          self->cache_[key] = analysis;
          self->running_.reset();
          emit self->ready(key.first, key.second);
          self->startNext();
        },
        Qt::QueuedConnection);
  });
}

}  // namespace attnlab::gui
