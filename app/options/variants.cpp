/// \file variants.cpp
/// The second setting of a difference and the frames of a sweep (variants.hpp).

#include "options/variants.hpp"

#include <QDir>
#include <cmath>

namespace attnlab::options {
namespace {

QString q(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

[[noreturn]] void fail(const char* source, QStringList args = {}) {
  throw OptionError(Message(source, std::move(args)));
}

const OptionSpec* named(const QString& name, unsigned command = 0) {
  for (const OptionSpec& spec : table())
    if (q(spec.name) == name && (command == 0 || (spec.commands & command))) return &spec;
  return nullptr;
}

/// Removes "--name value" / "--name=value" / "--name" (flags) from an argument list.
QStringList without(const QStringList& args, const QString& name) {
  QStringList out;
  for (int i = 0; i < args.size(); ++i) {
    const QString& arg = args.at(i);
    if (arg == QStringLiteral("--") + name) {
      const OptionSpec* spec = named(name);
      if (spec && spec->kind != Kind::kFlag) ++i;  // its value
      continue;
    }
    if (arg.startsWith(QStringLiteral("--") + name + QLatin1Char('='))) continue;
    out << arg;
  }
  return out;
}

std::vector<std::string> raw(const QStringList& args) {
  std::vector<std::string> out;
  for (const QString& a : args) out.push_back(a.toUtf8().toStdString());
  return out;
}

/// A's canonical arguments as a render command (no command word).
QStringList baseArguments(Options a) {
  a.command = kRender;
  QStringList args = toArguments(a);
  args.removeFirst();  // "render"
  return args;
}

Options applyDiff(const QStringList& base_args, const QString& diff) {
  const QStringList diff_args = splitOptions(diff);
  if (diff_args.isEmpty())
    fail(ATTNLAB_MSG("--diff needs the second setting's options, e.g. --diff \"--no-scale\""));
  QStringList args = without(base_args, QStringLiteral("diff"));
  QStringList appended;
  for (int i = 0; i < diff_args.size(); ++i) {
    const QString& arg = diff_args.at(i);
    if (!arg.startsWith(QLatin1String("--"))) {
      fail(ATTNLAB_MSG("--diff: unexpected argument '%1' (OPTIONS are options such as --no-scale)"),
           {arg});
    }
    QString name = arg.mid(2);
    const int eq = name.indexOf(QLatin1Char('='));
    if (eq >= 0) name = name.left(eq);
    const OptionSpec* spec = named(name, kRender);
    if (!spec && name.startsWith(QLatin1String("no-")) && !named(name)) {
      const QString removed = name.mid(3);
      if (!named(removed, kRender))
        fail(ATTNLAB_MSG("--diff: unknown option '--%1' (see --help)"), {name});
      args = without(args, removed);
      continue;
    }
    if (!spec) fail(ATTNLAB_MSG("--diff: unknown option '--%1' (see --help)"), {name});
    if (name == QLatin1String("text") || name == QLatin1String("source") ||
        name == QLatin1String("pair"))
      fail(ATTNLAB_MSG("--diff cannot change --%1: a difference compares the same tokens"), {name});
    if (!(spec->commands & kCompute) && name != QLatin1String("head")) {
      fail(ATTNLAB_MSG("--diff cannot set --%1: OPTIONS are the second setting's attention options "
                       "(and --head)"),
           {name});
    }
    args = without(args, name);
    // --no-scale and --mechanism set the same thing: the second setting's word wins.
    if (name == QLatin1String("no-scale")) args = without(args, QStringLiteral("mechanism"));
    if (name == QLatin1String("mechanism")) args = without(args, QStringLiteral("no-scale"));
    appended << arg;
    if (spec->kind != Kind::kFlag && eq < 0) {
      if (i + 1 >= diff_args.size()) fail(ATTNLAB_MSG("--%1 needs a value"), {name});
      appended << diff_args.at(++i);
    }
  }
  args << appended;
  args.prepend(QStringLiteral("render"));
  Options b = parse(raw(args), 0);
  b.diff.clear();
  return b;
}

QString number(double v) { return QString::number(v, 'g', 12); }

}  // namespace

QStringList splitOptions(const QString& options) {
  QStringList out;
  QString word;
  bool in_word = false;
  QChar quote;
  for (qsizetype i = 0; i < options.size(); ++i) {
    const QChar c = options.at(i);
    if (!quote.isNull()) {
      if (c == quote) {
        quote = QChar();
      } else if (c == QLatin1Char('\\') && quote == QLatin1Char('"') && i + 1 < options.size()) {
        word += options.at(++i);
      } else {
        word += c;
      }
    } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
      quote = c;
      in_word = true;
    } else if (c == QLatin1Char('\\') && i + 1 < options.size()) {
      word += options.at(++i);
      in_word = true;
    } else if (c.isSpace()) {
      if (in_word) out << word;
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out << word;
  return out;
}

Options secondSetting(const Options& a) {
  Options render = a;
  render.window = {};
  if (render.output.out.isEmpty()) render.output.out = QDir::temp().filePath(QStringLiteral("attention-lab-compare.png"));
  return applyDiff(baseArguments(render), a.diff);
}

Options secondSetting(const LabSettings& a, int head, const QString& diff) {
  Options o;
  o.command = kRender;
  o.lab = a;
  o.lab.hide_special = a.pretrained() && a.hide_special;
  if (head >= 0) o.head = head;
  o.output.out = QDir::temp().filePath(QStringLiteral("attention-lab-compare.png"));
  return applyDiff(baseArguments(o), diff);
}

const OptionSpec& sweptOption(const QString& param) {
  QString name = param.trimmed().toLower();
  name.replace(QLatin1Char('_'), QLatin1Char('-'));
  if (name.startsWith(QLatin1String("--"))) name = name.mid(2);
  if (name == QLatin1String("t")) name = QStringLiteral("temperature");
  QStringList sweepable;
  const OptionSpec* found = nullptr;
  for (const OptionSpec& spec : table()) {
    const bool attention = (spec.commands & kCompute) && spec.group != Group::kBackend;
    const bool kind = spec.kind == Kind::kInt || spec.kind == Kind::kNumber ||
                      spec.kind == Kind::kIntOrAll || spec.kind == Kind::kChoice;
    if (!kind || !(attention || spec.name == "head") || !(spec.commands & kRender)) continue;
    QString shown = q(spec.name);
    shown.replace(QLatin1Char('-'), QLatin1Char('_'));
    if (!sweepable.contains(shown)) sweepable << shown;
    if (q(spec.name) == name && !found) found = &spec;
  }
  if (found) return *found;
  if (const OptionSpec* other = named(name)) {
    fail(ATTNLAB_MSG("--param %1 cannot be swept (sweep one of %2)"),
         {q(other->name), sweepable.join(QStringLiteral(", "))});
  }
  fail(ATTNLAB_MSG("--param %1: no such option (sweep one of %2)"),
       {param, sweepable.join(QStringLiteral(", "))});
}

QStringList defaultSweepValues(const OptionSpec& spec, int count) {
  QStringList values;
  if (spec.name == "d-k") {
    for (long long d = 1; d <= spec.max; d *= 2) values << QString::number(d);
  } else if (spec.name == "temperature") {
    for (double t = 0.125; t <= 8; t *= 2) values << number(t);
  } else if (spec.name == "layer" || spec.name == "head") {
    for (int i = 0; i < count; ++i) values << QString::number(i);
  } else {
    fail(ATTNLAB_MSG("--param %1 needs --values LIST"), {q(spec.name)});
  }
  return values;
}

QStringList expandValues(const QStringList& items, const OptionSpec& spec) {
  QStringList out;
  for (int i = 0; i < items.size(); ++i) {
    const QString item = items.at(i).trimmed();
    if (item != QLatin1String("...") && item != QStringLiteral("…")) {
      out << item;
      continue;
    }
    // The values before "...", as numbers.
    std::vector<double> before;
    for (const QString& v : out) {
      bool ok = false;
      before.push_back(v.toDouble(&ok));
      if (!ok) fail(ATTNLAB_MSG("--values: '...' continues numbers, not '%1'"), {v});
    }
    bool ok = i + 1 < items.size();
    const double end = ok ? items.at(i + 1).trimmed().toDouble(&ok) : 0;
    if (before.size() < 2 || !ok) {
      fail(ATTNLAB_MSG(
          "--values: '...' needs two values before it and one after (e.g. 1,2,4,...,1024)"));
    }
    const std::size_t n = before.size();
    const double a = before[n - 2], b = before[n - 1];
    bool geometric = n >= 3 && a != 0 && before[n - 3] != 0;
    for (std::size_t k = 1; geometric && k + 1 < n; ++k) {
      geometric = std::fabs(before[k + 1] / before[k] - before[k] / before[k - 1]) < 1e-9 &&
                  before[k] / before[k - 1] != 1;
    }
    std::vector<double> more;
    double x = b;
    for (int guard = 0; guard <= kMaxSweepFrames; ++guard) {
      x = geometric ? x * (b / a) : x + (b - a);
      const bool past =
          geometric ? (b / a > 1 ? x > end * (1 + 1e-9) : x < end * (1 - 1e-9))
                    : (b > a ? x > end + 1e-9 * std::fabs(end) : x < end - 1e-9 * std::fabs(end));
      if (b == a || past) break;
      if (std::fabs(x - end) <= 1e-9 * std::max(1.0, std::fabs(end))) break;  // the end comes next
      more.push_back(x);
    }
    if (b == a || more.size() > static_cast<std::size_t>(kMaxSweepFrames)) {
      fail(ATTNLAB_MSG("--values: the pattern before '...' does not reach %1"),
           {items.at(i + 1).trimmed()});
    }
    const bool whole = spec.kind != Kind::kNumber;
    for (double v : more) out << (whole ? QString::number(std::llround(v)) : number(v));
  }
  return out;
}

std::vector<SweepFrame> sweepFrames(const Options& sweep, int count) {
  if (!sweep.sweep.param) fail(ATTNLAB_MSG("--param NAME is required (e.g. --param d_k)"));
  const OptionSpec& spec = *sweep.sweep.param;
  QStringList values =
      sweep.sweep.values.isEmpty() ? QStringList() : expandValues(sweep.sweep.values, spec);
  if (sweep.sweep.values.isEmpty()) {
    int known = count;
    if (spec.name == "head" && !sweep.lab.pretrained() && known == 0) known = sweep.lab.spec.heads;
    values = defaultSweepValues(spec, known);
    if (values.isEmpty()) return {};  // the model decides: asked again once it is loaded
  }
  if (values.size() < 2)
    fail(ATTNLAB_MSG("a sweep needs at least two values (got %1)"),
         {QString::number(values.size())});
  if (values.size() > kMaxSweepFrames) {
    fail(ATTNLAB_MSG("a sweep takes at most %1 frames (got %2)"),
         {QString::number(kMaxSweepFrames), QString::number(values.size())});
  }
  Options base = sweep;
  base.command = kRender;
  QStringList args = toArguments(base);
  args.removeFirst();
  // Leave out what only the sweep takes and the output (each frame is drawn, not written).
  for (const OptionSpec& s : table())
    if ((s.commands & kSweep) && !(s.commands & kRender)) args = without(args, q(s.name));
  args = without(args, QStringLiteral("out"));
  args = without(args, q(spec.name));
  if (spec.name == "mechanism") args = without(args, QStringLiteral("no-scale"));
  const QString frame_file = QDir::temp().filePath(QStringLiteral("attention-lab-frame.png"));
  std::vector<SweepFrame> frames;
  for (const QString& value : values) {
    QStringList frame_args = QStringList{QStringLiteral("render")} + args;
    frame_args << QStringLiteral("--") + q(spec.name) << value << QStringLiteral("--out")
               << frame_file;
    SweepFrame frame;
    frame.options = parse(raw(frame_args), 0);
    frame.options.output.out.clear();
    frame.value = value;
    frames.push_back(std::move(frame));
  }
  return frames;
}

}  // namespace attnlab::options
