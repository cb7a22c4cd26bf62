/// \file lab_settings.cpp
/// LabSettings' checks (the same for the CLI and the window) and its QSettings form.

#include "options/lab_settings.hpp"

#include <QLocale>
#include <QSettings>
#include <QStringList>
#include <algorithm>
#include <cmath>

#include "attnlab/error.hpp"
#include "attnlab/memory.hpp"
#include "attnlab/tokenizer.hpp"
#include "options/options.hpp"

namespace attnlab::options {
namespace {

QString num(long long value) { return QString::number(value); }

/// Checks value against the table entry `name`'s range (the same limits the parser uses).
void checkRange(std::string_view name, long long value) {
  const OptionSpec& spec = option(name);
  if (value < spec.min || value > spec.max) {
    throw OptionError(Message(ATTNLAB_MSG("--%1 must be between %2 and %3 (got %4)"),
                              {QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())),
                               num(spec.min), num(spec.max), num(value)}));
  }
}

/// The rules of issue 12's variants (K/V heads, masks, padding, positions).
void checkVariants(const LabSettings& s) {
  if (s.spec.kv_heads != 0) {
    checkRange("kv-heads", s.spec.kv_heads);
    if (s.spec.heads % s.spec.kv_heads != 0) {
      throw OptionError(Message(ATTNLAB_MSG("--kv-heads (%1) must divide --heads (%2)"),
                                {num(s.spec.kv_heads), num(s.spec.heads)}));
    }
  }
  if (s.spec.window != 0) checkRange("window", s.spec.window);
  if (s.spec.global_tokens != 0) checkRange("global", s.spec.global_tokens);
  if (s.spec.stride != 0) checkRange("stride", s.spec.stride);
  if (s.pad_to != 0) checkRange("pad-to", s.pad_to);
  if (s.cross()) {
    const std::pair<const char*, bool> self_only[] = {{"window", s.spec.window != 0},
                                                      {"global", s.spec.global_tokens != 0},
                                                      {"stride", s.spec.stride != 0},
                                                      {"pad-to", s.pad_to != 0}};
    for (const auto& [name, on] : self_only) {
      if (on) {
        throw OptionError(Message(
            ATTNLAB_MSG("--%1 applies to self-attention only; drop --%1 or --source"),
            {QString::fromLatin1(name)}));
      }
    }
  }
  if (s.spec.stride != 0 && s.spec.window == 0) {
    throw OptionError(Message(ATTNLAB_MSG(
        "--stride adds keys to a sliding window: set --window too")));
  }
  if (!(std::isfinite(s.spec.rope_base) && s.spec.rope_base > 1)) {
    throw OptionError(Message(ATTNLAB_MSG("--rope-base must be > 1 (got %1)"),
                              {QString::number(s.spec.rope_base, 'g', QLocale::FloatingPointShortest)}));
  }
  if (!(s.spec.dropout >= 0.0 && s.spec.dropout < 1.0)) {
    throw OptionError(Message(ATTNLAB_MSG("--dropout must be at least 0 and below 1 (got %1)"),
                              {QString::number(s.spec.dropout)}));
  }
  if (s.spec.mechanism == Mechanism::kLinear) {
    const std::pair<const char*, bool> softmax_only[] = {
        {"temperature", s.spec.temperature.has_value()},
        {"positions alibi", s.spec.positions == Positions::kAlibi},
        {"precision", s.spec.precision != Precision::kFp32},
        {"softmax", s.spec.softmax != SoftmaxKind::kStable}};
    for (const auto& [name, on] : softmax_only) {
      if (on) {
        throw OptionError(Message(ATTNLAB_MSG("--%1 does not apply to --mechanism linear (it has no softmax and no scores to bias)"),
                                  {QString::fromLatin1(name)}));
      }
    }
    const std::pair<const char*, bool> gaps[] = {{"window", s.spec.window != 0},
                                                 {"global", s.spec.global_tokens != 0},
                                                 {"stride", s.spec.stride != 0}};
    for (const auto& [name, on] : gaps) {
      if (on) {
        throw OptionError(Message(ATTNLAB_MSG("--%1 does not apply to --mechanism linear (its prefix sums take every earlier key)"),
                                  {QString::fromLatin1(name)}));
      }
    }
  }
  const int d_k = s.spec.resolvedDk();
  if (s.spec.positions == Positions::kRope && d_k % 2 != 0) {
    throw OptionError(Message(
        ATTNLAB_MSG("--positions rope rotates pairs of dimensions: d_k (%1) must be even"),
        {num(d_k)}));
  }
}

int countTokens(const QString& text, const char* empty, const char* blank, const char* too_many) {
  if (text.isEmpty()) throw OptionError(Message(empty));
  const auto n = static_cast<long long>(tokenize(text.toStdString()).size());
  if (n == 0) throw OptionError(Message(blank));
  if (n > kMaxTokens) throw OptionError(Message(too_many, {num(n), num(kMaxTokens)}));
  return static_cast<int>(n);
}

}  // namespace

std::optional<BackendKind> parseBackendKind(const QString& name) {
  for (const BackendKind kind : {BackendKind::kAuto, BackendKind::kCpu, BackendKind::kOpenCl})
    if (name == QString::fromStdString(toString(kind))) return kind;
  return std::nullopt;
}

AttentionSpec LabSettings::toSpec() const {
  validate(*this);
  AttentionSpec resolved = spec;
  resolved.dropout_seed = seed;
  return resolved;
}

ModelRunOptions LabSettings::toModelOptions() const {
  ModelRunOptions run;
  run.mechanism = spec.mechanism == Mechanism::kDot ? Mechanism::kDot : Mechanism::kScaled;
  run.temperature = spec.temperature;
  run.layer = rollout ? std::nullopt : layer;  // a rollout multiplies every layer up to it
  if (memory_budget_gb && *memory_budget_gb > 0)
    run.memory_budget = static_cast<long long>(std::min(*memory_budget_gb * 1e9, 9e18));
  return run;
}

void validate(const LabSettings& s) {
  if (s.spec.temperature && !(std::isfinite(*s.spec.temperature) && *s.spec.temperature > 0)) {
    throw OptionError(
        Message(ATTNLAB_MSG("--temperature must be > 0 (got %1)"),
                {QString::number(*s.spec.temperature, 'g', QLocale::FloatingPointShortest)}));
  }
  checkRange("device", s.device);
  if (s.memory_budget_gb && !(std::isfinite(*s.memory_budget_gb) && *s.memory_budget_gb > 0)) {
    throw OptionError(
        Message(ATTNLAB_MSG("--memory-budget must be a positive number of GB (got %1)"),
                {QString::number(*s.memory_budget_gb, 'g', QLocale::FloatingPointShortest)}));
  }
  if (s.pretrained() && s.translator) {
    if (s.spec.mechanism == Mechanism::kLinear) {
      throw OptionError(Message(ATTNLAB_MSG(
          "--mechanism linear does not apply to a trained translator (it was trained with softmax attention)")));
    }
    return;  // the model's own checks come with its config (checkTranslator)
  }
  if (s.pretrained()) {
    if (s.spec.mechanism == Mechanism::kAdditive) {
      throw OptionError(Message(ATTNLAB_MSG(
          "--mechanism additive does not apply with --model (its heads are dot-product "
          "attention); use scaled or dot")));
    }
    if (s.spec.mechanism == Mechanism::kLinear) {
      throw OptionError(Message(ATTNLAB_MSG(
          "--mechanism linear does not apply with --model (its heads are softmax attention); use scaled or dot")));
    }
    return;  // the model decides the shapes, the mask and the weights
  }
  checkRange("heads", s.spec.heads);
  checkRange("d-model", s.spec.d_model);
  if (s.spec.d_k != 0) checkRange("d-k", s.spec.d_k);
  if (s.spec.d_v != 0) checkRange("d-v", s.spec.d_v);
  if (s.spec.d_a != 0) checkRange("d-a", s.spec.d_a);
  checkRange("seed", static_cast<long long>(std::min<std::uint64_t>(s.seed, 1ULL << 62)));
  if (s.spec.d_k == 0 && s.spec.d_model % s.spec.heads != 0) {
    throw OptionError(Message(ATTNLAB_MSG("heads (%1) must divide d_model (%2), or set --d-k"),
                              {num(s.spec.heads), num(s.spec.d_model)}));
  }
  if (s.causal() && s.cross()) {
    throw OptionError(Message(
        ATTNLAB_MSG("--causal applies to self-attention only; drop --causal or --source")));
  }
  checkVariants(s);
}

TokenCounts checkTokens(const LabSettings& s) {
  TokenCounts counts;
  counts.queries = countTokens(s.text, ATTNLAB_MSG("the text is empty"),
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

void checkModelTokens(const PretrainedModel& model, int n, const ModelRunOptions& run) {
  const int context = model.config().max_positions;
  if (context > 0 && n > context) {
    throw OptionError(Message(ATTNLAB_MSG("the text has %1 tokens; %2 reads at most %3 (its context length)"),
                              {num(n), QString::fromStdString(model.name()), num(context)}));
  }
  if (n > kMaxTokens) {
    throw OptionError(Message(ATTNLAB_MSG("the text has %1 tokens; at most %2 per side are computed"),
                              {num(n), num(kMaxTokens)}));
  }
  // The engine refuses the same run in the same words (PretrainedModel::runIds); here it is said
  // before the pass, translated in the window.
  const long long needed = model.attentionBytes(n, run);
  const long long budget = run.budget();
  if (needed > budget) {
    throw OptionError(Message(
        ATTNLAB_MSG("this run would keep %1 of attention (%2 layers × %3 heads × %4² scores and "
                    "weights), more than the memory budget of %5: choose one layer (--layer), "
                    "fewer tokens, or a larger --memory-budget"),
        {QString::fromStdString(formatBytes(needed)), num(model.keptLayers(run)),
         num(model.config().heads), num(n), QString::fromStdString(formatBytes(budget))}));
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
    throw OptionError(Message(
        ATTNLAB_MSG("--mechanism additive does not apply to %1: its heads are dot-product attention (scaled or not)"),
        {name}));
  }
  if (!additive && m == Mechanism::kDot && !c.scale_attention) {
    throw OptionError(Message(
        ATTNLAB_MSG("%1 was trained without 1/√d_k: there is none to switch off (dates-transformer has it)"),
        {name}));
  }
  if (additive && s.translator_attention != TranslatorAttention::kCross) {
    throw OptionError(Message(
        ATTNLAB_MSG("--attention %1 does not apply to %2: its one attention is the decoder's additive attention over the source (--attention cross)"),
        {QString::fromStdString(toString(s.translator_attention)), name}));
  }
  const int layers = additive ? 1
                     : s.translator_attention == TranslatorAttention::kEncoderSelf ? c.encoder_layers
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

std::string toString(TranslatorAttention attention) {
  switch (attention) {
    case TranslatorAttention::kCross: return "cross";
    case TranslatorAttention::kEncoderSelf: return "encoder-self";
    case TranslatorAttention::kDecoderSelf: return "decoder-self";
  }
  return "cross";
}

std::optional<TranslatorAttention> parseTranslatorAttention(const QString& name) {
  for (TranslatorAttention a : {TranslatorAttention::kCross, TranslatorAttention::kEncoderSelf,
                                TranslatorAttention::kDecoderSelf})
    if (name == QString::fromStdString(toString(a))) return a;
  return std::nullopt;
}

void checkLayer(const LabSettings& s, const QString& model_name, int layers) {
  if (s.layer && (*s.layer < 0 || *s.layer >= layers)) {
    throw OptionError(Message(ATTNLAB_MSG("--layer %1 does not exist: %2 has layers 0–%3 (or use all)"),
                              {num(*s.layer), model_name, num(layers - 1)}));
  }
}

namespace {
/// The key the window's inputs are stored under: the option table's own arguments.
const QString kStoredArguments = QStringLiteral("lab/arguments");
}  // namespace

void saveSettings(QSettings& store, const LabSettings& s) {
  Options o;
  o.command = kWindow;
  o.lab = s;
  store.setValue(kStoredArguments, toArguments(o));
}

LabSettings loadSettings(QSettings& store) {
  const QStringList stored = store.value(kStoredArguments).toStringList();
  // The arguments option by option (a flag alone, any other with its value), each kept only when
  // the options so far still parse: an older version's value or rule never blocks the window.
  std::vector<std::string> kept;
  for (qsizetype i = 0; i < stored.size(); ++i) {
    std::vector<std::string> next = kept;
    next.push_back(stored[i].toStdString());
    const QString name = stored[i].startsWith(QLatin1String("--")) ? stored[i].mid(2) : QString();
    bool flag = true;
    for (const OptionSpec& spec : table())
      if (spec.name == name.toStdString()) flag = spec.kind == Kind::kFlag;
    if (!flag && i + 1 < stored.size()) next.push_back(stored[++i].toStdString());
    try {
      (void)parse(next, kWindow);
      kept = std::move(next);
    } catch (const OptionError&) {
      // dropped: the default stays
    }
  }
  return parse(kept, kWindow).lab;
}

}  // namespace attnlab::options
