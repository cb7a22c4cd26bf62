/// \file generate.cpp
/// The generate and score modes (run.hpp: Session::generate, Session::score): a real model read
/// or continued token by token through its KV cache.

#include <algorithm>
#include <functional>

#include "options/generate_choices.hpp"
#include "run/run.hpp"

namespace attnlab::run {
namespace {

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

/// The grown matrix of g as a run the window and the pictures draw like a forward pass: a pass
/// over the tokens read so far (prompt + steps − 1), the rows from grownAttention, the last
/// step's predictions.
std::shared_ptr<const Run> grownRun(const options::LabSettings& settings,
                                    const std::shared_ptr<const ModelInfo>& info,
                                    const PretrainedModel& model, const Generation& g) {
  auto pass = std::make_shared<ModelRun>();
  pass->attention = grownAttention(g);
  const int n = pass->attention.front().nQ();
  pass->encoding = labelIds(model.tokenizer(), std::vector<int>(g.ids.begin(), g.ids.begin() + n));
  pass->layers = g.layers;
  const ModelConfig& config = info->config;
  pass->kv_heads = config.resolvedKvHeads();
  for (int i = 0; i < config.heads; ++i) pass->kv_head.push_back(config.kvHeadOf(i));
  if (!g.steps.empty()) pass->next_tokens = g.steps.back().top;
  pass->compute_ms = g.prefill_ms;
  for (const GenerationStep& s : g.steps) pass->compute_ms += s.ms;
  auto r = std::make_shared<Run>();
  r->settings = settings;
  r->model = info;
  showPass(*r, std::move(pass), config);
  return r;
}

}  // namespace

std::shared_ptr<const results::Generated> Session::generate(const GenerateRequest& request,
                                                            const GenerateStep& step,
                                                            const RunHooks& hooks) {
  const options::LabSettings& lab = request.lab;
  options::validate(lab);  // 1. validate
  options::checkGenerateChoices(request.generate, request.top_k_given, request.seed_given);
  const std::shared_ptr<const ModelInfo> info = model(lab.model_dir, hooks);  // 2. load
  const PretrainedModel& m = *pretrained_;
  const ModelConfig& config = info->config;
  checkLayer(lab, info->name, config.layers);  // 3. check against the model
  if (request.head && lab.layer && *request.head >= config.heads) {
    throw options::OptionError(
        options::Message(ATTNLAB_MSG("--head must be between 0 and %1 (got %2)"),
                         {QString::number(config.heads - 1), QString::number(*request.head)}));
  }
  checkInterventions(lab, m);
  const Encoding prompt = m.encode(utf8(lab.text), std::nullopt);
  GenerateOptions go = options::generateOptions(request.generate, lab);
  go.run.ablation = {lab.ablate, lab.ablation};  // the generation with these heads ablated
  const auto result = [&](const Generation& g) {
    auto r = std::make_shared<results::Generated>();
    r->model = info;
    r->spec = m.attentionSpec(go.run);
    r->options = go;
    r->options.on_progress = nullptr;
    r->options.run.progress = nullptr;
    r->generation = std::make_shared<const Generation>(g);
    r->shown = grownRun(lab, info, m, g);
    for (const GenerationStep& s : g.steps)
      r->input_labels.push_back(m.tokenizer().tokenLabel(s.input_id));
    return r;
  };
  if (step) go.on_progress = [&](const Generation& g) { return step(result(g)); };
  int made = 0;
  if (hooks.progress) go.on_step = [&](const GenerationStep&) { return hooks.progress(++made, go.max_tokens); };
  Generation g = attnlab::generate(m, prompt, go);  // 4. run
  if (hooks.progress) hooks.progress(go.max_tokens, go.max_tokens);  // done (an early stop too)
  return result(g);
}

std::shared_ptr<const results::Scored> Session::score(const ScoreRequest& request,
                                                      const RunHooks& hooks) {
  const options::LabSettings& lab = request.lab;
  options::validate(lab);  // 1. validate
  auto r = std::make_shared<results::Scored>();
  r->model = model(lab.model_dir, hooks);  // 2. load
  const PretrainedModel& m = *pretrained_;
  r->encoding = m.encode(utf8(lab.text), std::nullopt);  // 3. the model's own tokens, checked
  checkModelLength(m, static_cast<int>(r->encoding.ids.size()));
  const ModelRunOptions run = lab.toModelOptions();
  r->sinks = request.sink_tokens.empty() ? std::vector<int>{0} : request.sink_tokens;
  // Progress over every policy: the full cache's tokens, then each window's.
  const int policies = 1 + static_cast<int>(request.cache_windows.size() * r->sinks.size());
  int policy = 0;
  std::function<bool(int, int)> progress;
  if (hooks.progress) {
    progress = [&](int done, int total) {
      return hooks.progress(policy * total + std::min(done, total), policies * total);
    };
  }
  r->full = scoreText(m, r->encoding, {}, run, progress);  // 4. run
  for (int w : request.cache_windows) {
    for (int s : r->sinks) {
      ++policy;
      r->scored.push_back(scoreText(m, r->encoding, {w, s}, run, progress));
    }
  }
  r->windows = request.cache_windows;
  std::sort(r->windows.begin(), r->windows.end());
  return r;
}

}  // namespace attnlab::run
