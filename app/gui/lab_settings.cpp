#include "lab_settings.hpp"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <algorithm>
#include <cmath>
#include <string_view>

#include "attnlab/error.hpp"

namespace attnlab::gui {

AttentionSpec LabSettings::toSpec() const {
  AttentionSpec spec;
  spec.mechanism = mechanism;
  if (mechanism == Mechanism::kScaled && !scaled) spec.mechanism = Mechanism::kDot;
  if (mechanism == Mechanism::kDot && scaled) spec.mechanism = Mechanism::kScaled;
  spec.mask = causal ? Mask::kCausal : Mask::kNone;
  spec.heads = heads;
  spec.d_model = d_model;
  spec.d_k = d_k;
  if (use_temperature) spec.temperature = temperature;
  if (causal && cross()) {
    throw Error(ErrorCode::kInvalidArgument,
                "the causal mask applies to self-attention only; clear the source or the mask");
  }
  if (d_k > kMaxDk) {
    throw Error(ErrorCode::kInvalidArgument,
                "d_k must be between 1 and " + std::to_string(kMaxDk));
  }
  spec.validate();
  return spec;
}

ModelRunOptions LabSettings::toModelOptions() const {
  ModelRunOptions options;
  options.mechanism = scaled ? Mechanism::kScaled : Mechanism::kDot;
  if (use_temperature) options.temperature = temperature;
  if (layer >= 0) options.layer = layer;
  return options;
}

namespace {

bool toInt(const QString& text, long long lo, long long hi, long long& out) {
  bool ok = false;
  const long long value = text.toLongLong(&ok);
  if (!ok || value < lo || value > hi) return false;
  out = value;
  return true;
}

}  // namespace

QString parseCommandLine(const QStringList& args, LabSettings& s, QStringList& rest) {
  const QStringList value_options = {
      QStringLiteral("--text"),   QStringLiteral("--source"),      QStringLiteral("--mechanism"),
      QStringLiteral("--heads"),  QStringLiteral("--d-model"),     QStringLiteral("--d-k"),
      QStringLiteral("--seed"),   QStringLiteral("--temperature"), QStringLiteral("--backend"),
      QStringLiteral("--device"), QStringLiteral("--model"),       QStringLiteral("--layer"),
      QStringLiteral("--pair")};
  // Whether an option was given (as "--name value", "--name=value" or a flag).
  const auto given = [&args](const char* name) {
    const QString option = QString::fromLatin1(name);
    return std::any_of(args.begin(), args.end(), [&option](const QString& a) {
      return a == option || a.startsWith(option + QLatin1Char('='));
    });
  };
  bool no_scale = false;
  for (int i = 0; i < args.size(); ++i) {
    QString name = args.at(i);
    QString value;
    bool has_inline = false;
    if (const int eq = name.indexOf(QLatin1Char('=')); name.startsWith(QLatin1String("--")) && eq > 0) {
      value = name.mid(eq + 1);
      name = name.left(eq);
      has_inline = true;
    }
    if (name == QLatin1String("--causal")) {
      s.causal = true;
      continue;
    }
    if (name == QLatin1String("--no-scale")) {
      no_scale = true;
      continue;
    }
    if (name == QLatin1String("--hide-special")) {
      s.hide_special = true;
      continue;
    }
    if (!value_options.contains(name)) {
      rest << args.at(i);
      continue;
    }
    if (!has_inline) {
      if (i + 1 >= args.size()) return QStringLiteral("%1 needs a value").arg(name);
      value = args.at(++i);
    }
    long long n = 0;
    if (name == QLatin1String("--text")) {
      s.text = value;
    } else if (name == QLatin1String("--source")) {
      s.source = value;
    } else if (name == QLatin1String("--mechanism")) {
      try {
        s.mechanism = parseMechanism(value.toStdString());
      } catch (const Error& e) {
        return QString::fromStdString(e.what());
      }
      s.scaled = s.mechanism != Mechanism::kDot;
    } else if (name == QLatin1String("--heads")) {
      if (!toInt(value, 1, 256, n)) return QStringLiteral("--heads must be 1 … 256");
      s.heads = static_cast<int>(n);
    } else if (name == QLatin1String("--d-model")) {
      if (!toInt(value, 1, 4096, n)) return QStringLiteral("--d-model must be 1 … 4096");
      s.d_model = static_cast<int>(n);
    } else if (name == QLatin1String("--d-k")) {
      if (!toInt(value, 1, kMaxDk, n)) return QStringLiteral("--d-k must be 1 … %1").arg(kMaxDk);
      s.d_k = static_cast<int>(n);
    } else if (name == QLatin1String("--seed")) {
      if (!toInt(value, 0, 1LL << 53, n)) return QStringLiteral("--seed must be a whole number ≥ 0");
      s.seed = static_cast<std::uint64_t>(n);
    } else if (name == QLatin1String("--temperature")) {
      bool ok = false;
      const double t = value.toDouble(&ok);
      if (!ok || !(t > 0) || !std::isfinite(t)) return QStringLiteral("--temperature must be > 0");
      s.use_temperature = true;
      s.temperature = t;
    } else if (name == QLatin1String("--backend")) {
      if (value != QLatin1String("auto") && value != QLatin1String("cpu") &&
          value != QLatin1String("opencl")) {
        return QStringLiteral("--backend must be auto, cpu or opencl");
      }
      s.backend = value;
    } else if (name == QLatin1String("--device")) {
      if (!toInt(value, 0, 1023, n)) return QStringLiteral("--device must be 0 … 1023");
      s.device = static_cast<int>(n);
    } else if (name == QLatin1String("--model")) {
      if (value.isEmpty()) return QStringLiteral("--model needs a folder");
      s.model_dir = QDir::cleanPath(QFileInfo(value).absoluteFilePath());
    } else if (name == QLatin1String("--layer")) {
      if (value == QLatin1String("all")) {
        s.layer = -1;
      } else {
        if (!toInt(value, 0, 1023, n))
          return QStringLiteral("--layer must be a layer number or all");
        s.layer = static_cast<int>(n);
      }
    } else if (name == QLatin1String("--pair")) {
      s.pair = value;
    }
  }
  // The same combinations as attention-lab-cli refuses.
  if (s.pretrained()) {
    for (const char* option : {"--source", "--heads", "--d-model", "--d-k", "--seed", "--causal"}) {
      if (given(option)) {
        return QStringLiteral("%1 does not apply with --model (the model decides it%2)")
            .arg(QLatin1String(option),
                 std::string_view(option) == "--source"
                     ? QStringLiteral("; for a BERT sentence pair use --pair")
                     : QString());
      }
    }
    if (s.mechanism == Mechanism::kAdditive) {
      return QStringLiteral(
          "--mechanism additive does not apply with --model (its heads are "
          "dot-product attention); use scaled or dot");
    }
  } else {
    for (const char* option : {"--layer", "--pair", "--hide-special"}) {
      if (given(option)) {
        return QStringLiteral("%1 applies to a pretrained model; add --model DIR")
            .arg(QLatin1String(option));
      }
    }
  }
  // Without --d-k the CLI uses d_model / heads; so does the window.
  if (!args.contains(QStringLiteral("--d-k")) &&
      std::none_of(args.begin(), args.end(),
                   [](const QString& a) { return a.startsWith(QLatin1String("--d-k=")); })) {
    s.d_k = std::max(1, std::min(kMaxDk, s.d_model / std::max(1, s.heads)));
  }
  if (no_scale) {
    if (s.mechanism != Mechanism::kScaled && s.mechanism != Mechanism::kDot) {
      return QStringLiteral("--no-scale applies to the scaled mechanism only");
    }
    s.mechanism = Mechanism::kScaled;
    s.scaled = false;
  }
  if (s.mechanism == Mechanism::kDot) {
    s.mechanism = Mechanism::kScaled;
    s.scaled = false;
  }
  return {};
}

void saveSettings(QSettings& store, const LabSettings& s) {
  store.beginGroup(QStringLiteral("lab"));
  store.setValue(QStringLiteral("text"), s.text);
  store.setValue(QStringLiteral("source"), s.source);
  store.setValue(QStringLiteral("mechanism"), QString::fromStdString(toString(s.mechanism)));
  store.setValue(QStringLiteral("scaled"), s.scaled);
  store.setValue(QStringLiteral("use_temperature"), s.use_temperature);
  store.setValue(QStringLiteral("temperature"), s.temperature);
  store.setValue(QStringLiteral("d_k"), s.d_k);
  store.setValue(QStringLiteral("heads"), s.heads);
  store.setValue(QStringLiteral("d_model"), s.d_model);
  store.setValue(QStringLiteral("causal"), s.causal);
  store.setValue(QStringLiteral("seed"), QString::number(s.seed));
  store.setValue(QStringLiteral("backend"), s.backend);
  store.setValue(QStringLiteral("device"), s.device);
  store.setValue(QStringLiteral("model"), s.model_dir);
  store.setValue(QStringLiteral("layer"), s.layer);
  store.setValue(QStringLiteral("pair"), s.pair);
  store.setValue(QStringLiteral("hide_special"), s.hide_special);
  store.endGroup();
}

LabSettings loadSettings(QSettings& store) {
  LabSettings s;
  store.beginGroup(QStringLiteral("lab"));
  s.text = store.value(QStringLiteral("text"), s.text).toString();
  s.source = store.value(QStringLiteral("source"), s.source).toString();
  try {
    s.mechanism = parseMechanism(
        store.value(QStringLiteral("mechanism"), QStringLiteral("scaled")).toString().toStdString());
  } catch (const Error&) {
    s.mechanism = Mechanism::kScaled;
  }
  if (s.mechanism == Mechanism::kDot) s.mechanism = Mechanism::kScaled;
  s.scaled = store.value(QStringLiteral("scaled"), s.scaled).toBool();
  s.use_temperature = store.value(QStringLiteral("use_temperature"), false).toBool();
  const double t = store.value(QStringLiteral("temperature"), 1.0).toDouble();
  s.temperature = t > 0 && std::isfinite(t) ? t : 1.0;
  s.d_k = std::clamp(store.value(QStringLiteral("d_k"), s.d_k).toInt(), 1, kMaxDk);
  s.heads = std::clamp(store.value(QStringLiteral("heads"), s.heads).toInt(), 1, 64);
  s.d_model = std::clamp(store.value(QStringLiteral("d_model"), s.d_model).toInt(), 1, 4096);
  s.causal = store.value(QStringLiteral("causal"), false).toBool();
  s.seed = store.value(QStringLiteral("seed"), QStringLiteral("0")).toString().toULongLong();
  s.backend = store.value(QStringLiteral("backend"), s.backend).toString();
  if (s.backend != QLatin1String("cpu") && s.backend != QLatin1String("opencl")) {
    s.backend = QStringLiteral("auto");
  }
  s.device = std::max(0, store.value(QStringLiteral("device"), 0).toInt());
  // A folder that no longer loads is the window's to report (it falls back to the synthetic lab).
  s.model_dir = store.value(QStringLiteral("model")).toString();
  s.layer = std::clamp(store.value(QStringLiteral("layer"), -1).toInt(), -1, 1023);
  s.pair = store.value(QStringLiteral("pair")).toString();
  s.hide_special = store.value(QStringLiteral("hide_special"), false).toBool();
  store.endGroup();
  return s;
}

}  // namespace attnlab::gui
