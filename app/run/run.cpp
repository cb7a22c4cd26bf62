/// \file run.cpp
/// The one run pipeline (run.hpp): the session, the shared model cache, the display filter.

#include "run/run.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "attnlab/error.hpp"
#include "attnlab/rollout.hpp"
#include "options/model_verify.hpp"

namespace attnlab::run {
namespace {

using options::LabSettings;
using options::Message;

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

QStringList toStrings(const std::vector<Token>& tokens) {
  QStringList list;
  list.reserve(static_cast<qsizetype>(tokens.size()));
  for (const Token& t : tokens) list << QString::fromStdString(t.text);
  return list;
}

/// True when a and b ask for the same forward pass (what the display filter and the rollout do
/// not change: those are applied to the kept pass).
bool samePass(const LabSettings& a, const LabSettings& b) {
  return a.model_dir == b.model_dir && a.text == b.text && a.pair == b.pair &&
         a.scaled() == b.scaled() && a.spec.temperature == b.spec.temperature &&
         a.toModelOptions().layer == b.toModelOptions().layer && a.backend == b.backend &&
         a.device == b.device && a.memory_budget_gb == b.memory_budget_gb &&
         a.interventions() == b.interventions() && a.value_weighted == b.value_weighted &&
         a.int8_activations == b.int8_activations;
}

}  // namespace

LoadFailure::LoadFailure(const Error& reader)
    : Error(reader), message_(Message::verbatim(QString::fromStdString(reader.what()))) {}

LoadFailure::LoadFailure(ErrorCode code, Message message)
    : Error(code, message.english().toStdString()), message_(std::move(message)) {}

Session::Session(BuildMode auto_build) : auto_build_(auto_build) {}
Session::~Session() = default;

Backend& Session::backend(const LabSettings& settings) {
  const std::pair<options::BackendKind, int> key{settings.backend, settings.device};
  if (!backend_ || backend_key_ != key) {
    backend_.reset();
    // An explicit "opencl" waits for its programs, as asked; "auto" follows auto_build_.
    const BuildMode mode =
        settings.backend == options::BackendKind::kOpenCl ? BuildMode::kWait : auto_build_;
    backend_ = selectBackend(settings.backend, settings.device, mode).backend;
    backend_key_ = key;
  }
  return *backend_;
}

void Session::retryBackend() {
  if (backend_) backend_->retry();
}

const SyntheticModel& Session::synthetic(const AttentionSpec& spec, std::uint64_t seed,
                                         double* drawn_ms) {
  if (drawn_ms) *drawn_ms = 0;
  if (!synthetic_ || !synthetic_->sameWeights(spec, seed)) {
    const auto t0 = std::chrono::steady_clock::now();
    synthetic_.reset();  // let the old weights go first (they can be large at d_k = 1024)
    bool drawn = false;
    synthetic_ = ModelCache::instance().synthetic(spec, seed, true, &drawn);
    if (drawn_ms && drawn) *drawn_ms = msSince(t0);
  }
  return *synthetic_;
}

std::shared_ptr<const ModelInfo> Session::model(const QString& dir, const RunHooks& hooks) {
  if (info_ && info_->dir == dir) return info_;
  try {
    if (hooks.loading) hooks.loading(dir);
    try {
      options::verifyIfFetched(dir);  // a fetched model's SHA-256, once after any change
    } catch (const options::OptionError& e) {
      throw LoadFailure(ErrorCode::kInvalidInput, e.message());
    }
    std::shared_ptr<const PretrainedModel> model = ModelCache::instance().get(dir);
    if (hooks.reading) {
      try {
        model->touchWeights(hooks.reading);
      } catch (const Error& e) {
        if (e.code() != ErrorCode::kCancelled) throw;
        throw options::OptionError(Message(ATTNLAB_MSG("reading the weights was cancelled")));
      }
    }
    auto info = std::make_shared<ModelInfo>();
    info->dir = dir;
    info->name = QString::fromStdString(model->name());
    info->config = model->config();
    info->load_ms = model->loadMs();
    info->weights = model->weightBytes();
    info->mapped = model->mapsWeights();
    pretrained_ = std::move(model);
    info_ = std::move(info);
    last_pass_.reset();
  } catch (const Error& e) {
    throw LoadFailure(e);
  } catch (const std::bad_alloc&) {
    throw LoadFailure(ErrorCode::kInternal, Message(ATTNLAB_MSG("not enough memory to load this model")));
  }
  return info_;
}

std::shared_ptr<Run> Session::run(const LabSettings& settings, const RunHooks& hooks) {
  if (settings.pretrained() && settings.translator) return runTranslator(settings, hooks);
  return settings.pretrained() ? runModel(settings, hooks) : runSynthetic(settings);
}

std::shared_ptr<Run> Session::runSynthetic(const LabSettings& settings) {
  auto r = std::make_shared<Run>();
  r->settings = settings;
  r->spec = settings.toSpec();      // 1. validate
  checkTokens(settings);            // 3. the synthetic lab's tokens (nothing to load)
  std::optional<std::string> source;
  if (settings.cross()) source = utf8(settings.source);
  const SyntheticModel& model = synthetic(r->spec, settings.seed, &r->model_ms);
  r->run = attnlab::runSynthetic(model, r->spec, utf8(settings.text), source, backend(settings),
                                 settings.padding());  // 4. run
  r->query_tokens = toStrings(r->run.query_tokens);
  r->key_tokens = toStrings(r->run.key_tokens);
  return r;
}

void showPass(Run& r, std::shared_ptr<const ModelRun> pass_ptr, const ModelConfig& config) {
  const LabSettings& settings = r.settings;
  r.model_run = std::move(pass_ptr);
  const ModelRun& pass = *r.model_run;

  // The display filter: special tokens out of rows and columns, weights as computed. A pooled
  // pass (overviews) shows every token: its blocks were pooled over all of them.
  const std::vector<bool> keep =
      specialTokenFilter(pass.encoding, settings.hide_special && pass.overviews.empty());
  r.special_hidden = std::find(keep.begin(), keep.end(), false) != keep.end();
  if (r.special_hidden)
    for (const AttentionResult& a : pass.attention) r.filtered.push_back(keepTokens(a, keep));
  // Display labels read across the whole text (a character cut by the tokenizer is shown on the
  // token that completes it); the raw labels stay in run.query_tokens for the files.
  std::vector<TokenDisplay> display = displayTokens(pass.encoding);
  for (std::size_t i = 0; i < keep.size(); ++i) {
    if (!keep[i]) continue;
    r.run.query_tokens.push_back(Token{pass.encoding.labels[i], 0, 0, 0, 0});
    r.query_tokens << QString::fromStdString(display[i].label);
    r.token_display.push_back(std::move(display[i]));
  }
  r.run.key_tokens = r.run.query_tokens;
  r.key_tokens = r.query_tokens;
  r.run.compute_ms = pass.compute_ms;

  const AttentionResult& first = pass.attention.front();
  r.spec.mechanism = first.mechanism;
  r.spec.mask = config.mask();
  r.spec.heads = config.heads;
  r.spec.d_model = config.d_model;
  r.spec.d_k = config.dK();
  r.spec.temperature = settings.spec.temperature;
}

std::shared_ptr<Run> Session::runModel(const LabSettings& settings, const RunHooks& hooks) {
  options::validate(settings);  // 1. validate: nothing is loaded for refused settings
  const auto t0 = std::chrono::steady_clock::now();
  const bool had = info_ && info_->dir == settings.model_dir;
  auto r = std::make_shared<Run>();
  r->settings = settings;
  r->model = model(settings.model_dir, hooks);  // 2. load (LoadFailure keeps the last model)
  if (!had) r->model_ms = msSince(t0);
  const PretrainedModel& pretrained = *pretrained_;
  const ModelConfig& config = pretrained.config();
  checkLayer(settings, r->model->name, config.layers);  // 3. check against the model
  checkInterventions(settings, pretrained);
  const std::string text = utf8(settings.text);
  std::optional<std::string> pair;
  if (settings.pair) pair = utf8(*settings.pair);
  std::optional<std::string_view> pair_view;
  if (pair) pair_view = *pair;
  // A pooled pass serves only callers that draw from overviews.
  const bool reusable = last_pass_ && samePass(settings, last_pass_settings_) &&
                        (last_pass_->overviews.empty() || hooks.allow_overview);
  if (!reusable) {
    last_pass_.reset();
    last_pass_refusal_.reset();
    const auto t_pass = std::chrono::steady_clock::now();
    // Tokenized once: the model's own checks (empty, no tokens, a pair it does not take), then
    // its length and the memory budget in the CLI's words, then the pass.
    Encoding encoding = pretrained.encode(text, pair_view);
    const auto n = static_cast<int>(encoding.ids.size());
    ModelRunOptions options = settings.toModelOptions();
    // Interventions resume from this pass's residual stream and compare with its predictions.
    options.keep_residual = options.keep_context = options.token_loss = settings.interventions();
    options.keep_value_norms = settings.value_weighted;
    const bool plain = !settings.interventions() && !settings.value_weighted;
    if (hooks.allow_overview && plain && !options.layer && !settings.rollout &&
        pretrained.memoryNeeds(n, options).total() > pretrained.memoryBudget(options)) {
      // Every layer in full is over the budget: the model view can still be drawn from each
      // layer's pooled overview (thumbnails of at most 256 blocks a side), the last layer kept in
      // full for the panels that read one layer.
      ModelRunOptions pooled = options;
      pooled.layer = config.layers - 1;
      pooled.overview_block = std::max(2, (n + 255) / 256);
      if (pretrained.memoryNeeds(n, pooled).total() <= pretrained.memoryBudget(pooled)) {
        try {
          checkModelTokens(pretrained, n, options);
        } catch (const options::OptionError& full) {
          last_pass_refusal_ = full.message();
        }
        options = pooled;
      }
    }
    checkModelTokens(pretrained, n, options);
    options.progress = hooks.progress;
    options.memory_report = hooks.memory;
    ModelRun pass = pretrained.runIds(encoding, options, backend(settings));  // 4. run
    pass.encoding = std::move(encoding);
    pass.compute_ms = msSince(t_pass);
    last_pass_ = std::make_shared<const ModelRun>(std::move(pass));
    last_pass_settings_ = settings;
  }
  showPass(*r, applyInterventions(*r, pretrained, last_pass_, backend(settings), hooks), config);
  const ModelRun& pass = *r->model_run;
  if (!pass.overviews.empty()) {
    // The pooled model view: the layers pooled in the pass and the kept last layer pooled alike.
    results::Overview& overview = r->overview.emplace();
    overview.layers = pass.overviews;
    overview.layer_indices = pass.overview_layers;
    overview.block = pass.overviews.front().block;
    overview.layers.push_back(poolWeights(pass.attention.back(), overview.block));
    overview.layer_indices.push_back(pass.layers.back());
    overview.full_refusal = last_pass_refusal_;
  }
  const std::vector<bool> keep = specialTokenFilter(pass.encoding, settings.hide_special);
  if (settings.rollout) {
    // Through the chosen layer (every layer by default), on every token; the display filter
    // comes after (a hidden token still carried attention between the layers).
    const int last = std::min(settings.layer.value_or(config.layers - 1),
                              static_cast<int>(pass.attention.size()) - 1);
    const std::vector<AttentionResult> through(pass.attention.begin(),
                                               pass.attention.begin() + last + 1);
    const AttentionResult rollout = rolloutResult(attentionRollout(through), config.mask());
    r->rollout = std::make_shared<const results::Rollout>(
        results::Rollout{r->special_hidden ? keepTokens(rollout, keep) : rollout, last});
  }
  if (settings.head_roles) {
    const auto key = std::make_tuple(settings.model_dir, settings.backend, settings.device);
    if (!head_roles_ || head_roles_key_ != key) {
      head_roles_.reset();
      HeadRoleOptions options;
      options.progress = hooks.progress;
      head_roles_ = std::make_shared<const HeadRoles>(
          attnlab::headRoles(pretrained, backend(settings), options));
      head_roles_key_ = key;
    }
    r->head_roles = head_roles_;
  }
  return r;
}

results::Analysis analyse(const Run& run, int entry) {
  const AttentionResult& r = run.attention(entry);
  return results::Analysis{summarizeAttention(r), headSimilarity(r)};
}

std::vector<bool> specialTokenFilter(const Encoding& encoding, bool hide) {
  std::vector<bool> keep(encoding.ids.size(), true);
  if (!hide) return keep;
  for (std::size_t i = 0; i < keep.size() && i < encoding.special.size(); ++i)
    keep[i] = !encoding.special[i];
  if (std::find(keep.begin(), keep.end(), true) == keep.end()) {
    throw Error(ErrorCode::kInvalidInput,
                "every token is a special token: hiding them would leave nothing to show");
  }
  return keep;
}

AttentionResult keepTokens(const AttentionResult& result, const std::vector<bool>& keep) {
  if (result.nQ() != result.nK() || keep.size() != static_cast<std::size_t>(result.nQ())) {
    throw Error(ErrorCode::kInvalidArgument,
                "a token filter needs a self-attention result and one flag per token");
  }
  std::vector<int> kept;
  for (int i = 0; i < result.nQ(); ++i) {
    if (keep[static_cast<std::size_t>(i)]) kept.push_back(i);
  }
  if (kept.empty()) throw Error(ErrorCode::kInvalidArgument, "the filter hides every token");
  const auto n = static_cast<int>(kept.size());
  AttentionResult out;
  out.mechanism = result.mechanism;
  out.mask = result.mask;
  out.scale = result.scale;
  out.backend = result.backend;
  out.device = result.device;
  out.fallback_reason = result.fallback_reason;
  out.fallback_code = result.fallback_code;
  out.fallback_args = result.fallback_args;
  const bool has_scores = result.scores.data.size() == result.weights.data.size();
  out.scores = has_scores ? Tensor3(result.heads(), n, n) : Tensor3();
  out.weights = Tensor3(result.heads(), n, n);
  const Tensor3& outputs = result.head_outputs;
  const bool has_outputs = outputs.h == result.heads() && outputs.rows == result.nQ();
  out.head_outputs = has_outputs ? Tensor3(outputs.h, n, outputs.cols) : Tensor3();
  for (int k = 0; k < result.heads(); ++k) {
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (has_scores) out.scores(k, a, b) = result.scores(k, kept[a], kept[b]);
        out.weights(k, a, b) = result.weights(k, kept[a], kept[b]);
      }
      if (has_outputs) std::copy_n(outputs.row(k, kept[a]), outputs.cols, out.head_outputs.row(k, a));
    }
  }
  for (const HeadStats& st : result.stats) {
    HeadStats filtered;
    for (int i : kept) {
      filtered.max_weight.push_back(st.max_weight.at(i));
      filtered.entropy.push_back(st.entropy.at(i));
      filtered.normalized_entropy.push_back(st.normalized_entropy.at(i));
      filtered.effective_keys.push_back(st.effective_keys.at(i));
      filtered.jacobian_norm.push_back(st.jacobian_norm.at(i));
    }
    out.stats.push_back(std::move(filtered));
  }
  return out;
}

AttentionResult rolloutResult(const Matrix& rollout, Mask mask) {
  AttentionResult r;
  r.mechanism = Mechanism::kScaled;
  r.mask = mask;
  const int n = static_cast<int>(rollout.rows());
  r.weights = Tensor3(1, n, n);
  std::copy(rollout.data(), rollout.data() + static_cast<std::ptrdiff_t>(n) * n,
            r.weights.data.begin());
  r.scores = r.weights;
  return r;
}

}  // namespace attnlab::run
