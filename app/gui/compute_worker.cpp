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

#include "attnlab/error.hpp"
#include "attnlab/rollout.hpp"
#include "attnlab/tokenizer.hpp"
#include "views/views.hpp"

namespace attnlab::gui {
namespace {

constexpr int kHistogramBins = 40;

QStringList toStrings(const std::vector<Token>& tokens) {
  QStringList list;
  list.reserve(static_cast<qsizetype>(tokens.size()));
  for (const Token& t : tokens) list << QString::fromStdString(t.text);
  return list;
}

/// Everything a forward pass depends on, as one comparable string.
QString runKey(const LabSettings& s, const std::optional<std::string>& pair) {
  return QStringList{s.model_dir,
                     s.text,
                     pair ? QString::fromStdString(*pair) : QStringLiteral("\x01"),
                     s.scaled() ? QStringLiteral("scaled") : QStringLiteral("dot"),
                     s.temperature ? QString::number(*s.temperature, 'g', 17) : QString(),
                     s.layer && !s.rollout ? QString::number(*s.layer) : QStringLiteral("all"),
                     s.backend,
                     QString::number(s.device)}
      .join(QChar(0x1f));
}

}  // namespace

const AttentionResult& ComputeResult::attention(int entry) const {
  if (!model) return run.attention;
  return layers().at(static_cast<std::size_t>(entry));
}

const std::vector<AttentionResult>& ComputeResult::layers() const {
  static const std::vector<AttentionResult> kNone;
  if (!filtered.empty()) return filtered;
  return model_run ? model_run->attention : kNone;
}

const std::vector<int>& ComputeResult::layerIndices() const {
  static const std::vector<int> kNone;
  return model_run ? model_run->layers : kNone;
}

ComputeWorker::ComputeWorker(std::shared_ptr<std::atomic<quint64>> latest,
                             std::shared_ptr<std::atomic<quint64>> cancelled)
    : latest_(std::move(latest)), cancelled_(std::move(cancelled)) {}

Backend& ComputeWorker::backendFor(const LabSettings& settings) {
  const QString key = settings.backend + QLatin1Char(':') + QString::number(settings.device);
  if (!backend_ || key != backend_key_) {
    // "auto" builds its OpenCL programs in the background (results come from the CPU until they
    // are ready), so the first picture never waits on the kernel compiler; an explicit "opencl"
    // waits, as asked.
    const BuildMode mode = settings.backend == QLatin1String("opencl") ? BuildMode::kWait
                                                                        : BuildMode::kBackground;
    BackendChoice choice = selectBackend(settings.backend.toStdString(), settings.device, mode);
    backend_ = std::move(choice.backend);  // its results say why OpenCL was not used
    backend_key_ = key;
  }
  return *backend_;
}

void ComputeWorker::retryBackend() {
  if (backend_) backend_->retry();
}

void ComputeWorker::compute(quint64 generation, const LabSettings& settings) {
  if (generation < latest_->load()) return;  // superseded while queued: skip the work
  QElapsedTimer timer;
  timer.start();
  auto result = std::make_shared<ComputeResult>();
  result->generation = generation;
  result->settings = settings;
  try {
    if (settings.pretrained()) {
      if (!computeModel(generation, settings, *result)) return;
      result->total_ms = timer.nsecsElapsed() / 1e6;
      emit finished(std::move(result));
      return;
    }
    // The same checks, in the same words, as attention-lab-cli's.
    result->spec = settings.toSpec();
    options::checkTokens(settings);
    const std::string text = settings.text.toStdString();
    const std::optional<std::string> source =
        settings.cross() ? std::optional<std::string>(settings.source.toStdString())
                         : std::nullopt;
    if (!model_ || !model_->sameWeights(result->spec, settings.seed)) {
      QElapsedTimer model_timer;
      model_timer.start();
      model_.reset();  // free the old weights first (they can be large at d_k = 1024)
      model_ = std::make_unique<SyntheticModel>(result->spec, settings.seed);
      result->model_ms = model_timer.nsecsElapsed() / 1e6;
    }
    if (generation < latest_->load()) return;
    result->run =
        runSynthetic(*model_, result->spec, text, source, backendFor(settings), settings.padding());
    result->query_tokens = toStrings(result->run.query_tokens);
    result->key_tokens = toStrings(result->run.key_tokens);
    result->summaries.push_back(summarizeAttention(result->run.attention, kHistogramBins));
  } catch (const options::OptionError& e) {
    result->error = e.message();
  } catch (const Error& e) {
    result->error = options::Message::verbatim(QString::fromStdString(e.what()));
  } catch (const std::bad_alloc&) {
    result->error = options::Message(ATTNLAB_MSG("not enough memory for these settings"));
  } catch (const std::exception& e) {
    result->error = options::Message(ATTNLAB_MSG("internal error: %1"), {QString::fromStdString(e.what())});
  }
  result->total_ms = timer.nsecsElapsed() / 1e6;
  emit finished(std::move(result));
}

bool ComputeWorker::computeModel(quint64 generation, const LabSettings& settings,
                                 ComputeResult& result) {
  try {
    if (!pretrained_ || pretrained_info_->dir != settings.model_dir) {
      emit modelLoading(generation, settings.model_dir);
      QElapsedTimer load_timer;
      load_timer.start();
      // Loaded beside the current model, so a folder that fails leaves the last good one in place.
      std::unique_ptr<PretrainedModel> loaded =
          PretrainedModel::load(std::filesystem::path(settings.model_dir.toStdString()));
      auto info = std::make_shared<ModelInfo>();
      info->dir = settings.model_dir;
      info->name = QString::fromStdString(loaded->name());
      info->config = loaded->config();
      info->load_ms = loaded->loadMs();
      pretrained_ = std::move(loaded);
      pretrained_info_ = std::move(info);
      last_run_.reset();
      result.model_ms = load_timer.nsecsElapsed() / 1e6;
    }
  } catch (const Error& e) {
    result.model_error = true;
    result.error = options::Message::verbatim(QString::fromStdString(e.what()));
    return true;
  } catch (const std::bad_alloc&) {
    result.model_error = true;
    result.error = options::Message(ATTNLAB_MSG("not enough memory to load this model"));
    return true;
  } catch (const std::exception& e) {
    result.model_error = true;
    result.error = options::Message::verbatim(QString::fromStdString(e.what()));
    return true;
  }
  if (generation < latest_->load()) return false;
  const ModelConfig& config = pretrained_->config();
  result.model = pretrained_info_;
  try {
    options::validate(settings);
    options::checkLayer(settings, pretrained_info_->name, config.layers);
    runModel(settings, config, result);
  } catch (const options::OptionError& e) {
    result.error = e.message();
  } catch (const Error& e) {
    result.error = e.code() == ErrorCode::kCancelled
                       ? options::Message(ATTNLAB_MSG("the forward pass was cancelled"))
                       : options::Message::verbatim(QString::fromStdString(e.what()));
  } catch (const std::bad_alloc&) {
    result.error = options::Message(ATTNLAB_MSG("not enough memory for these settings"));
  }
  return true;
}

void ComputeWorker::runModel(const LabSettings& settings, const ModelConfig& config,
                             ComputeResult& result) {
  // A second sentence only where the model takes pairs (BERT); GPT-2's field is disabled.
  std::optional<std::string> pair;
  if (config.architecture == Architecture::kBert && !settings.pair.trimmed().isEmpty()) {
    pair = settings.pair.toStdString();
  }
  const QString key = runKey(settings, pair);
  if (!last_run_ || key != last_run_key_) {
    last_run_.reset();
    const std::string text = settings.text.toStdString();
    std::optional<std::string_view> pair_view;
    if (pair) pair_view = *pair;
    options::checkModelText(*pretrained_, text, pair_view, settings);  // the CLI's check, in its words
    ModelRunOptions options = settings.toModelOptions();
    const quint64 generation = result.generation;
    QElapsedTimer pass;
    pass.start();
    options.progress = [this, generation, &pass](int done, int total) {
      if (pass.elapsed() >= 300) emit progress(generation, done, total);
      return cancelled_->load() != generation;  // the user's Cancel stops after this layer
    };
    last_run_ = std::make_shared<const ModelRun>(
        pretrained_->run(text, pair_view, options, backendFor(settings)));
    last_run_key_ = key;
  }
  result.model_run = last_run_;
  const Encoding& encoding = last_run_->encoding;

  // The display filter: special tokens out of rows and columns, weights as computed.
  const std::vector<bool> keep = views::specialTokenFilter(encoding, settings.hide_special);
  result.special_hidden = std::find(keep.begin(), keep.end(), false) != keep.end();
  if (result.special_hidden) {
    for (const AttentionResult& a : last_run_->attention) {
      result.filtered.push_back(views::keepTokens(a, keep));
    }
  }
  for (std::size_t i = 0; i < keep.size(); ++i) {
    if (!keep[i]) continue;
    result.run.query_tokens.push_back(Token{encoding.labels[i], 0, 0, 0, 0});
    result.query_tokens << QString::fromStdString(encoding.labels[i]);
  }
  result.run.key_tokens = result.run.query_tokens;
  result.key_tokens = result.query_tokens;
  result.run.compute_ms = last_run_->compute_ms;

  const AttentionResult& first = last_run_->attention.front();
  result.spec.mechanism = first.mechanism;
  result.spec.mask = config.mask();
  result.spec.heads = config.heads;
  result.spec.d_model = config.d_model;
  result.spec.d_k = config.dK();
  result.spec.temperature = settings.temperature;
  for (const AttentionResult& a : result.layers()) {
    result.summaries.push_back(summarizeAttention(a, kHistogramBins));
  }
  if (settings.rollout) {
    // Through the chosen layer (every layer by default), on every token; the filter comes after.
    const int last = std::min(settings.layer.value_or(config.layers - 1),
                              static_cast<int>(last_run_->attention.size()) - 1);
    std::vector<AttentionResult> through(last_run_->attention.begin(), last_run_->attention.begin() + last + 1);
    const AttentionResult r = views::rolloutResult(attentionRollout(through), config.mask());
    result.rollout = std::make_shared<const AttentionResult>(result.special_hidden ? views::keepTokens(r, keep) : r);
    result.rollout_last = last;
  }
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
  QMetaObject::invokeMethod(
      worker_, [worker, generation, settings] { worker->compute(generation, settings); },
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

int SaturationCache::samplesFor(int n_k) { return std::clamp(32000 / std::max(1, n_k), 32, 2000); }

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
      SaturationConfig config;
      config.n_k = key.first;
      config.seed = key.second;
      config.samples = samplesFor(key.first);
      analysis = std::make_shared<const SaturationAnalysis>(saturationMonteCarlo(config));
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
