/// \file interventions.cpp
/// A model run's interventions and readings (run.hpp, results::Interventions): the checks in the
/// CLI's words, the ablated pass resumed from the first ablated layer on the kept pass's residual
/// stream, the logit lens, direct logit attribution, activation patching and value-weighted
/// attention.

#include <algorithm>

#include "attnlab/error.hpp"
#include "attnlab/interventions.hpp"
#include "run/run.hpp"

namespace attnlab::run {
namespace {

using options::LabSettings;
using options::Message;
using options::OptionError;

QString num(long long v) { return QString::number(v); }

/// The one token of `text`, refused in the option's words when it is not one token.
int tokenOf(const PretrainedModel& model, const QString& text, const char* option) {
  const Encoding e = model.tokenizer().encode(text.toUtf8().toStdString());
  std::vector<int> ids;
  QStringList pieces;
  for (std::size_t i = 0; i < e.ids.size(); ++i) {
    if (e.special[i]) continue;
    ids.push_back(e.ids[i]);
    pieces << QString::fromStdString(model.tokenizer().tokenLabel(e.ids[i]));
  }
  if (ids.size() != 1) {
    throw OptionError(Message(ATTNLAB_MSG("--%1: \"%2\" is %3 tokens for %4 (%5); give one token"),
                              {QString::fromLatin1(option), text, num(static_cast<long long>(ids.size())),
                               QString::fromStdString(model.name()),
                               pieces.join(QStringLiteral(" · "))}));
  }
  return ids.front();
}

/// The kept pass with layers from `from` on replaced by `tail`'s (a pass resumed at `from`).
ModelRun merged(const ModelRun& clean, ModelRun tail, int from) {
  ModelRun out = clean;
  for (std::size_t i = 0; i < out.layers.size(); ++i) {
    if (out.layers[i] < from) continue;
    const auto at = std::find(tail.layers.begin(), tail.layers.end(), out.layers[i]);
    if (at != tail.layers.end())
      out.attention[i] = std::move(tail.attention[static_cast<std::size_t>(at - tail.layers.begin())]);
  }
  for (std::size_t l = static_cast<std::size_t>(from) + 1; l < tail.residual.size(); ++l)
    out.residual[l] = std::move(tail.residual[l]);
  for (std::size_t l = static_cast<std::size_t>(from); l < tail.context.size(); ++l)
    if (tail.context[l].size() > 0) out.context[l] = std::move(tail.context[l]);
  for (std::size_t l = static_cast<std::size_t>(from); l < tail.value_norms.size(); ++l)
    if (tail.value_norms[l].size() > 0) out.value_norms[l] = std::move(tail.value_norms[l]);
  out.hidden = std::move(tail.hidden);
  out.logits = std::move(tail.logits);
  out.next_tokens = std::move(tail.next_tokens);
  out.token_loss = std::move(tail.token_loss);
  return out;
}

}  // namespace

void checkInterventions(const LabSettings& s, const PretrainedModel& model) {
  const ModelConfig& c = model.config();
  const QString name = QString::fromStdString(model.name());
  for (const HeadRef& h : s.ablate) {
    if (h.layer >= c.layers)
      throw OptionError(Message(ATTNLAB_MSG("--ablate: layer %1 does not exist: %2 has layers 0–%3"),
                                {num(h.layer), name, num(c.layers - 1)}));
    if (h.head >= c.heads)
      throw OptionError(Message(ATTNLAB_MSG("--ablate: head %1 does not exist: %2 has heads 0–%3"),
                                {num(h.head), name, num(c.heads - 1)}));
  }
  if ((s.logit_lens || s.dla || !s.patch_from.isEmpty()) && !model.predictsTokens()) {
    throw OptionError(Message(
        ATTNLAB_MSG("%1 is an encoder with no output layer: the logit lens, logit attribution and "
                    "patching need a model that predicts the next token"),
        {name}));
  }
  if (!s.target.isEmpty()) (void)tokenOf(model, s.target, "target");
  if (!s.versus.isEmpty()) (void)tokenOf(model, s.versus, "versus");
}

std::shared_ptr<const ModelRun> applyInterventions(Run& r, const PretrainedModel& model,
                                                   const std::shared_ptr<const ModelRun>& clean,
                                                   Backend& backend, const RunHooks& hooks) {
  const LabSettings& s = r.settings;
  if (!s.interventions() && !s.value_weighted) return clean;
  auto out = std::make_shared<results::Interventions>();
  std::shared_ptr<const ModelRun> shown = clean;
  const ModelRunOptions base = s.toModelOptions();
  if (!s.ablate.empty()) {
    int first = s.ablate.front().layer;
    for (const HeadRef& h : s.ablate) first = std::min(first, h.layer);
    ModelRunOptions o = base;
    o.ablation = {s.ablate, s.ablation};
    o.resume = std::make_shared<const Resume>(
        Resume{first, clean->residual.at(static_cast<std::size_t>(first))});
    o.keep_residual = true;
    o.keep_context = true;
    o.keep_value_norms = s.value_weighted;
    o.token_loss = true;
    o.next_tokens = std::max(o.next_tokens, 1);
    o.progress = hooks.progress;
    shown = std::make_shared<const ModelRun>(
        merged(*clean, model.runIds(clean->encoding, o, backend), first));
    out->ablated = s.ablate;
    out->mode = s.ablation;
    out->first_ablated_layer = first;
    out->before = clean->next_tokens;
    out->after = shown->next_tokens;
    out->loss_before = clean->token_loss;
    out->loss_after = shown->token_loss;
  }
  std::optional<int> target, versus;
  if (!s.target.isEmpty()) target = tokenOf(model, s.target, "target");
  if (!s.versus.isEmpty()) versus = tokenOf(model, s.versus, "versus");
  if (s.logit_lens) out->lens = logitLens(model, *shown);
  if (s.dla) {
    const int t = target.value_or(shown->next_tokens.front().id);
    out->dla = directLogitAttribution(model, *shown, t, versus);
  }
  if (!s.patch_from.isEmpty()) {
    Encoding corrupted = model.encode(s.patch_from.toUtf8().toStdString(), std::nullopt);
    if (corrupted.ids.size() != clean->encoding.ids.size()) {
      throw OptionError(Message(
          ATTNLAB_MSG("the two prompts must have the same number of tokens (%1 and %2): --text "
                      "and --patch-from differ in length"),
          {num(static_cast<long long>(clean->encoding.ids.size())),
           num(static_cast<long long>(corrupted.ids.size()))}));
    }
    for (const TokenDisplay& d : displayTokens(corrupted)) out->patch_labels.push_back(d.label);
    ModelRunOptions o = base;
    o.progress = {};
    out->patching = patchActivations(model, clean->encoding, corrupted, target, versus, o,
                                     backend, hooks.progress);
  }
  if (s.value_weighted) {
    // The cells show α_ij·‖v_j W_O^h‖ normalised per row instead of α_ij.
    auto weighted = std::make_shared<ModelRun>(*shown);
    for (std::size_t i = 0; i < weighted->attention.size(); ++i) {
      const auto layer = static_cast<std::size_t>(weighted->layers[i]);
      if (layer < weighted->value_norms.size() && weighted->value_norms[layer].size() > 0) {
        weighted->attention[i].weights =
            valueWeighted(weighted->attention[i].weights, weighted->value_norms[layer]);
      }
    }
    shown = std::move(weighted);
  }
  if (s.interventions()) r.interventions = std::move(out);
  return shown;
}

}  // namespace attnlab::run
