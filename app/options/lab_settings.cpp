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
  run.int8_activations = int8_activations;
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
