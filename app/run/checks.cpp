/// \file checks.cpp
/// The checks that read the text or the model (checks.hpp), moved here from the option table's
/// checks so that one library tokenizes, loads and computes.

#include "run/checks.hpp"

#include <QLocale>
#include <algorithm>

#include "attnlab/memory.hpp"
#include "attnlab/tokenizer.hpp"
#include "options/message.hpp"

namespace attnlab::run {
namespace {

using options::kMaxTokens;
using options::LabSettings;
using options::Message;
using options::OptionError;
using options::TranslatorAttention;

QString num(long long value) { return QString::number(value); }

int countTokens(const QString& text, const char* empty, const char* blank, const char* too_many) {
  if (text.isEmpty()) throw OptionError(Message(empty));
  const auto n = static_cast<long long>(tokenize(text.toStdString()).size());
  if (n == 0) throw OptionError(Message(blank));
  if (n > kMaxTokens) throw OptionError(Message(too_many, {num(n), num(kMaxTokens)}));
  return static_cast<int>(n);
}

}  // namespace

TokenCounts checkTokens(const LabSettings& s) {
  TokenCounts counts;
  counts.queries =
      countTokens(s.text, ATTNLAB_MSG("the text is empty"),
                  ATTNLAB_MSG("the text has no tokens (only white space)"),
                  ATTNLAB_MSG("the text has %1 tokens; at most %2 per side are computed"));
  if (!s.pretrained() && s.pad_to != 0) {
    if (counts.queries > s.pad_to) {
      throw OptionError(Message(ATTNLAB_MSG("--pad-to %1 is less than the text's %2 tokens"),
                                {num(s.pad_to), num(counts.queries)}));
    }
    counts.queries = s.pad_to;
  }
  if (!s.pretrained() && s.spec.global_tokens > counts.queries) {
    throw OptionError(Message(ATTNLAB_MSG("--global %1 is more than the text's %2 tokens"),
                              {num(s.spec.global_tokens), num(counts.queries)}));
  }
  counts.keys = counts.queries;
  if (s.cross()) {
    counts.keys =
        countTokens(s.source, ATTNLAB_MSG("the source text is empty"),
                    ATTNLAB_MSG("the source text has no tokens (only white space)"),
                    ATTNLAB_MSG("the source text has %1 tokens; at most %2 per side are computed"));
  }
  return counts;
}

void checkModelTokens(const PretrainedModel& model, int n, const LabSettings& settings) {
  checkModelTokens(model, n, settings.toModelOptions());
}

void checkModelLength(const PretrainedModel& model, int n) {
  const int context = model.config().max_positions;
  if (context > 0 && n > context) {
    throw OptionError(
        Message(ATTNLAB_MSG("the text has %1 tokens; %2 reads at most %3 (its context length)"),
                {num(n), QString::fromStdString(model.name()), num(context)}));
  }
  if (n > kMaxTokens) {
    throw OptionError(
        Message(ATTNLAB_MSG("the text has %1 tokens; at most %2 per side are computed"),
                {num(n), num(kMaxTokens)}));
  }
}

void checkModelTokens(const PretrainedModel& model, int n, const ModelRunOptions& run) {
  checkModelLength(model, n);
  // The engine refuses the same run in the same words (PretrainedModel::runIds); here it is said
  // before the pass, translated in the window.
  const MemoryNeeds needs = model.memoryNeeds(n, run);
  const long long budget = model.memoryBudget(run);
  auto bytes = [](long long b) { return QString::fromStdString(formatBytes(b)); };
  if (needs.weights > budget) {
    throw OptionError(Message(
        ATTNLAB_MSG("this run would keep %1 in memory, and the weights alone take %2, more than "
                    "the memory budget of %3: close other programs, choose a smaller model or "
                    "quantisation, or a larger --memory-budget"),
        {bytes(needs.total()), bytes(needs.weights), bytes(budget)}));
  }
  if (needs.total() > budget) {
    throw OptionError(Message(
        ATTNLAB_MSG("this run would keep %1 in memory (weights %2, attention %3: %4 layers × %5 "
                    "heads × %6² scores and weights, activations %7), more than the memory "
                    "budget of %8: choose one layer (--layer), fewer tokens, or a larger "
                    "--memory-budget"),
        {bytes(needs.total()), bytes(needs.weights), bytes(needs.attention),
         num(std::max(model.keptLayers(run), 1)), num(model.config().heads), num(n),
         bytes(needs.activations), bytes(budget)}));
  }
}

void checkTranslator(const LabSettings& s, const QString& name, const TranslatorConfig& c) {
  const bool additive = c.kind == TranslatorKind::kAdditiveGru;
  const Mechanism m = s.spec.mechanism;
  if (additive && m == Mechanism::kDot) {
    throw OptionError(Message(
        ATTNLAB_MSG("%1 uses additive attention: there is no 1/√d_k to switch off"), {name}));
  }
  if (!additive && m == Mechanism::kAdditive) {
    throw OptionError(Message(ATTNLAB_MSG("--mechanism additive does not apply to %1: its heads "
                                          "are dot-product attention (scaled or not)"),
                              {name}));
  }
  if (!additive && m == Mechanism::kDot && !c.scale_attention) {
    throw OptionError(Message(ATTNLAB_MSG("%1 was trained without 1/√d_k: there is none to switch "
                                          "off (dates-transformer has it)"),
                              {name}));
  }
  if (additive && s.translator_attention != TranslatorAttention::kCross) {
    throw OptionError(
        Message(ATTNLAB_MSG("--attention %1 does not apply to %2: its one attention is the "
                            "decoder's additive attention over the source (--attention cross)"),
                {QString::fromStdString(toString(s.translator_attention)), name}));
  }
  const int layers = additive ? 1
                     : s.translator_attention == TranslatorAttention::kEncoderSelf
                         ? c.encoder_layers
                         : c.decoder_layers;
  checkLayer(s, name, layers);
}

TranslatorOptions toTranslatorOptions(const LabSettings& s) {
  TranslatorOptions t;
  if (!s.text.isEmpty()) t.target = s.text.toUtf8().toStdString();
  if (s.spec.mechanism == Mechanism::kDot) t.mechanism = Mechanism::kDot;
  t.temperature = s.spec.temperature;
  return t;
}

void checkLayer(const LabSettings& s, const QString& model_name, int layers) {
  if (s.layer && (*s.layer < 0 || *s.layer >= layers)) {
    throw OptionError(
        Message(ATTNLAB_MSG("--layer %1 does not exist: %2 has layers 0–%3 (or use all)"),
                {num(*s.layer), model_name, num(layers - 1)}));
  }
}

void checkDecode(const LabSettings& s) {
  if (s.cross())
    throw OptionError(Message(ATTNLAB_MSG(
        "decode reads one text token by token: --source (cross-attention) does not apply")));
  const std::pair<const char*, bool> masks[] = {{"global", s.spec.global_tokens != 0},
                                                {"stride", s.spec.stride != 0},
                                                {"pad-to", s.pad_to != 0}};
  for (const auto& [name, on] : masks)
    if (on)
      throw OptionError(
          Message(ATTNLAB_MSG("decode takes a causal mask and --window: --%1 does not apply"),
                  {QString::fromLatin1(name)}));
  const std::pair<const char*, bool> numerics[] = {
      {"precision", s.spec.precision != Precision::kFp32},
      {"softmax", s.spec.softmax != SoftmaxKind::kStable},
      {"dropout", s.spec.dropout != 0}};
  for (const auto& [name, on] : numerics)
    if (on)
      throw OptionError(Message(
          ATTNLAB_MSG(
              "decode computes the float32 stable softmax of inference: --%1 does not apply"),
          {QString::fromLatin1(name)}));
  if (s.spec.mechanism == Mechanism::kAdditive || s.spec.mechanism == Mechanism::kLinear)
    throw OptionError(Message(ATTNLAB_MSG("decode takes dot or scaled attention (the cache holds "
                                          "keys and values of dot products), not %1"),
                              {QString::fromStdString(toString(s.spec.mechanism))}));
}

}  // namespace attnlab::run
