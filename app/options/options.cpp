/// \file options.cpp
/// The option table and the parser built on it (QCommandLineParser).

#include "options/options.hpp"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/tokenizer.hpp"
#include "attnlab/translator.hpp"
#include "options/bundled_models.hpp"
#include "options/model_manifest.hpp"
#include "options/option_table.hpp"
#include "options/utf8_text.hpp"
#include "options/variants.hpp"

namespace attnlab::options {
namespace {

using detail::num;
using detail::q;


[[noreturn]] void fail(const char* source, QStringList args = {}) {
  throw OptionError(Message(source, std::move(args)));
}

/// The options a trained translator (--model dates-additive …) refuses, with the reason: its
/// shapes, masks, positions and numerics are what it was trained with.
void checkTranslatorOption(const QString& name) {
  if (name == QLatin1String("causal"))
    fail(ATTNLAB_MSG("--causal does not apply to a trained translator: its decoder self-attention is causal already, its encoder and cross-attention never are"));
  if (name == QLatin1String("pair") || name == QLatin1String("hide-special") || name == QLatin1String("rollout"))
    fail(ATTNLAB_MSG("--%1 does not apply to a trained translator (a BERT or GPT model option)"), {name});
  static const char* const kFixed[] = {"heads", "d-model", "d-k", "d-v", "d-a", "seed", "no-positions",
                                       "positions", "rope-base", "kv-heads", "window", "global", "stride",
                                       "pad-to", "no-pad-mask", "precision", "softmax", "dropout",
                                       "cache-bug", "bug-step"};
  for (const char* fixed : kFixed)
    if (name == QLatin1String(fixed))
      fail(ATTNLAB_MSG("--%1 does not apply to a trained translator: it keeps the shapes, masks, positions and numerics it was trained with"), {name});
}

QString choiceList(std::span<const std::string_view> choices) {
  QStringList items;
  for (std::string_view c : choices) items << q(c);
  if (items.size() < 2) return items.join(QString());
  const QString last = items.takeLast();
  return items.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last;
}

/// A limit as the range message shows it: 2^53 (the seeds' limit, exact in a double) by name.
QString limitText(long long max) {
  return max == (1LL << 53) ? QStringLiteral("2^53 (%1)").arg(num(max)) : num(max);
}

/// Reads one whole number of option `spec`, checking its range.
long long readInteger(const OptionSpec& spec, const QString& text) {
  bool ok = false;
  const long long value = text.trimmed().toLongLong(&ok);
  // A whole number too large for 64 bits (2^64 − 1) is out of range, not "not a whole number".
  static const QRegularExpression kDigits(QStringLiteral("^[+-]?[0-9]+$"));
  if (!ok && !kDigits.match(text.trimmed()).hasMatch())
    fail(ATTNLAB_MSG("--%1 expects a whole number (got '%2')"), {q(spec.name), text});
  if (!ok || value < spec.min || value > spec.max) {
    fail(ATTNLAB_MSG("--%1 must be between %2 and %3 (got %4)"),
         {q(spec.name), num(spec.min), limitText(spec.max), text.trimmed()});
  }
  return value;
}

Value readValue(const OptionSpec& spec, const QString& text) {
  Value v;
  v.text = text;
  switch (spec.kind) {
    case Kind::kFlag:
    case Kind::kText:
      break;
    case Kind::kPath:
      if (text.isEmpty()) fail(ATTNLAB_MSG("--%1 needs a file or folder name"), {q(spec.name)});
      break;
    case Kind::kInt:
      v.integer = readInteger(spec, text);
      break;
    case Kind::kIntOrAll:
      if (text == QLatin1String("all")) {
        v.all = true;
      } else {
        bool ok = false;
        v.integer = text.trimmed().toLongLong(&ok);
        if (!ok) fail(ATTNLAB_MSG("--%1 expects a whole number or all (got '%2')"), {q(spec.name), text});
        if (v.integer < spec.min || v.integer > spec.max) {
          fail(ATTNLAB_MSG("--%1 must be between %2 and %3 (got %4)"),
               {q(spec.name), num(spec.min), num(spec.max), text.trimmed()});
        }
      }
      break;
    case Kind::kNumber: {
      bool ok = false;
      v.number = text.trimmed().toDouble(&ok);
      if (!ok || !std::isfinite(v.number)) fail(ATTNLAB_MSG("--%1 expects a number (got '%2')"), {q(spec.name), text});
      const bool low = spec.min_exclusive ? !(v.number > static_cast<double>(spec.min))
                                          : v.number < static_cast<double>(spec.min);
      if (low && spec.max == 0) fail(ATTNLAB_MSG("--%1 must be > %2 (got %3)"), {q(spec.name), num(spec.min), text.trimmed()});
      if (low || (spec.max != 0 && v.number > static_cast<double>(spec.max))) {
        fail(ATTNLAB_MSG("--%1 must be > %2 and at most %3 (got %4)"),
             {q(spec.name), num(spec.min), num(spec.max), text.trimmed()});
      }
      break;
    }
    case Kind::kChoice: {
      const bool known = std::any_of(spec.choices.begin(), spec.choices.end(),
                                     [&text](std::string_view c) { return q(c) == text; });
      if (!known) fail(ATTNLAB_MSG("--%1 must be %2 (got '%3')"), {q(spec.name), choiceList(spec.choices), text});
      break;
    }
    case Kind::kIntList: {
      const QStringList items = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
      if (items.isEmpty()) fail(ATTNLAB_MSG("--%1 expects a comma-separated list such as 1,2,4,8"), {q(spec.name)});
      for (const QString& item : items) v.list.push_back(static_cast<int>(readInteger(spec, item)));
      std::sort(v.list.begin(), v.list.end());
      v.list.erase(std::unique(v.list.begin(), v.list.end()), v.list.end());
      break;
    }
  }
  return v;
}

/// The byte offset of the first invalid UTF-8 sequence of a raw argument, with the engine's
/// wording, or an empty string.
QString utf8Problem(const std::string& bytes) {
  try {
    decodeUtf8(bytes);
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

/// The entry named `name` that `command` takes; with command 0 the first entry of that name.
const OptionSpec* findSpec(std::string_view name, unsigned command) {
  for (const OptionSpec& spec : table())
    if (spec.name == name && (command == 0 || (spec.commands & command))) return &spec;
  return nullptr;
}

/// Splits "--name=value" / "-name" into the bare name.
QString bareName(const QString& arg) {
  QString name = arg;
  while (name.startsWith(QLatin1Char('-'))) name.remove(0, 1);
  const int eq = name.indexOf(QLatin1Char('='));
  return eq >= 0 ? name.left(eq) : name;
}

/// Refuses arguments that are not UTF-8, naming the option they belong to (before QString would
/// turn the bad bytes into U+FFFD).
void checkUtf8(const std::vector<std::string>& raw) {
  for (std::size_t i = 0; i < raw.size(); ++i) {
    std::string value = raw[i];
    std::string name;
    if (value.rfind("-", 0) == 0) {
      const auto eq = value.find('=');
      if (eq == std::string::npos) {
        if (const QString problem = utf8Problem(value); !problem.isEmpty())
          fail(ATTNLAB_MSG("an option name: %1"), {problem});
        continue;
      }
      name = value.substr(0, eq);
      value = value.substr(eq + 1);
    } else if (i > 0 && raw[i - 1].rfind("-", 0) == 0 && raw[i - 1].find('=') == std::string::npos) {
      name = raw[i - 1];
    }
    const QString problem = utf8Problem(value);
    if (problem.isEmpty()) continue;
    const QString bare = bareName(QString::fromUtf8(name));
    if (bare == QLatin1String("text")) fail(ATTNLAB_MSG("the text: %1"), {problem});
    if (bare == QLatin1String("source")) fail(ATTNLAB_MSG("the source text: %1"), {problem});
    if (bare == QLatin1String("pair")) fail(ATTNLAB_MSG("the pair text: %1"), {problem});
    if (!bare.isEmpty()) fail(ATTNLAB_MSG("--%1: %2"), {bare, problem});
    fail(ATTNLAB_MSG("an argument: %1"), {problem});
  }
}

/// The commands' names as the refusals list them: "compute, render, …, fetch-model or info".
QString commandList() {
  QStringList names;
  for (const CommandSpec& c : commands()) names << q(c.name);
  const QString last = names.takeLast();
  return names.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last;
}

/// Our own messages for a missing value and a value given to a flag (QCommandLineParser's
/// wording differs and is not part of the contract).
void checkArity(const QStringList& args) {
  for (int i = 0; i < args.size(); ++i) {
    const QString& arg = args.at(i);
    if (arg == QLatin1String("--")) return;
    if (!arg.startsWith(QLatin1Char('-')) || arg == QLatin1String("-")) continue;
    const QString name = bareName(arg);
    const OptionSpec* spec = findSpec(name.toStdString(), 0);
    if (!spec) continue;  // unknown: QCommandLineParser reports it
    const bool inline_value = arg.contains(QLatin1Char('='));
    if (spec->kind == Kind::kFlag) {
      if (inline_value) fail(ATTNLAB_MSG("--%1 takes no value"), {name});
      continue;
    }
    if (inline_value) continue;
    if (i + 1 >= args.size()) fail(ATTNLAB_MSG("--%1 needs a value"), {name});
    ++i;  // the value, even when it starts with '-'
  }
}

}  // namespace

bool Options::isGiven(std::string_view name) const { return given.contains(q(name)); }

std::span<const OptionSpec> table() {
  static const std::vector<OptionSpec> joined = [] {
    std::vector<OptionSpec> all(detail::labOptions().begin(), detail::labOptions().end());
    all.insert(all.end(), detail::outputOptions().begin(), detail::outputOptions().end());
    return all;
  }();
  return joined;
}

const OptionSpec& option(std::string_view name, unsigned command) {
  for (const OptionSpec& spec : table())
    if (spec.name == name && (command == 0 || (spec.commands & command))) return spec;
  throw std::out_of_range("no option --" + std::string(name));
}

QStringList outputFormats(unsigned command) {
  for (const CommandSpec& c : commands())
    if (c.command == command && !c.formats.empty())
      return q(c.formats).split(QLatin1Char(' '), Qt::SkipEmptyParts);
  return {"png"};
}

void checkOutputPath(const QString& path, const QString& name, const QStringList& formats) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (!formats.isEmpty() && !formats.contains(suffix)) {
    fail(ATTNLAB_MSG("%1: unknown format '%2' (use .%3)"),
         {name, suffix.isEmpty() ? path : QStringLiteral(".") + suffix,
          formats.join(QStringLiteral(", ."))});
  }
  const QFileInfo info(path);
  if (!info.absoluteDir().exists()) {
    fail(ATTNLAB_MSG("%1: the folder %2 does not exist"),
         {name, QDir::toNativeSeparators(info.absolutePath())});
  }
}

void checkImageSize(int width, int height, double scale) {
  if (width * scale > kMaxImagePixels || height * scale > kMaxImagePixels) {
    fail(views::kImageTooLargeMessage,
         {num(static_cast<long long>(std::lround(width * scale))),
          num(static_cast<long long>(std::lround(height * scale))), num(static_cast<long long>(kMaxImagePixels))});
  }
}

/// decode: one text, causal float32 dot/scaled attention of the synthetic lab; --out a picture.
static void checkDecode(const Options& o) {
  if (o.isGiven("source"))
    fail(ATTNLAB_MSG("decode reads one text token by token: --source (cross-attention) does not apply"));
  if (o.isGiven("model")) {
    detail::checkCachePolicy(o, kDecode);
    return;
  }
  for (const char* name : {"global", "stride", "pad-to"})
    if (o.isGiven(name)) fail(ATTNLAB_MSG("decode takes a causal mask and --window: --%1 does not apply"), {QString::fromLatin1(name)});
  for (const char* name : {"precision", "softmax", "dropout"})
    if (o.isGiven(name)) fail(ATTNLAB_MSG("decode computes the float32 stable softmax of inference: --%1 does not apply"), {QString::fromLatin1(name)});
  if (o.lab.spec.mechanism == Mechanism::kAdditive || o.lab.spec.mechanism == Mechanism::kLinear)
    fail(ATTNLAB_MSG("decode takes dot or scaled attention (the cache holds keys and values of dot products), not %1"),
         {QString::fromStdString(toString(o.lab.spec.mechanism))});
  if (o.isGiven("bug-step") && o.decode.cache_bug == CacheBug::kNone)
    fail(ATTNLAB_MSG("--bug-step needs --cache-bug skip or duplicate"));
  if (o.isGiven("out")) checkOutputPath(o.output.out, QStringLiteral("--out"), outputFormats(kDecode));
}

/// lesson list | lesson export NAME|all: the positional arguments after "lesson".
static void readLessonArguments(Options& o, QStringList& positional) {
  if (positional.isEmpty()) fail(ATTNLAB_MSG("lesson needs list or export (e.g. lesson export all --out DIR)"));
  const QString action = positional.takeFirst();
  if (action != QLatin1String("list") && action != QLatin1String("export"))
    fail(ATTNLAB_MSG("unknown lesson action '%1' (use list or export)"), {action});
  o.lesson.action = action == QLatin1String("list") ? LessonAction::kList : LessonAction::kExport;
  if (o.lesson.action == LessonAction::kExport) {
    if (positional.isEmpty()) fail(ATTNLAB_MSG("lesson export needs a lesson's name or all (see lesson list)"));
    o.lesson.name = positional.takeFirst();
  }
}

/// lesson: export writes into a folder (--out DIR, required); list takes no --out.
static void checkLesson(const Options& o) {
  if (o.lesson.action == LessonAction::kList) {
    if (o.isGiven("out")) fail(ATTNLAB_MSG("lesson list prints the lessons: --out does not apply"));
    return;
  }
  if (o.lesson.html) {
    if (!o.isGiven("out")) fail(ATTNLAB_MSG("--out FILE.html is required (the page lesson export --html writes)"));
    checkOutputPath(o.lesson.out, QStringLiteral("--out"), {QStringLiteral("html")});
    return;
  }
  if (!o.isGiven("out")) fail(ATTNLAB_MSG("--out DIR is required (the folder the lecture pack is written to)"));
  const QFileInfo info(o.lesson.out);
  if (info.exists() && !info.isDir())
    fail(ATTNLAB_MSG("--out: %1 is a file; lesson export writes a folder"), {QDir::toNativeSeparators(o.lesson.out)});
  if (!info.exists() && !QFileInfo(QDir::cleanPath(info.absoluteFilePath())).absoluteDir().exists())
    fail(ATTNLAB_MSG("%1: the folder %2 does not exist"),
         {QStringLiteral("--out"), QDir::toNativeSeparators(QFileInfo(QDir::cleanPath(info.absoluteFilePath())).absolutePath())});
}

/// fetch-model: a model of the manifest by name or alias, or --list, not both.
static void checkFetch(const Options& o) {
  const QString names = manifestNames().join(QStringLiteral(", "));
  if (o.fetch.list) {
    if (!o.fetch.name.isEmpty()) fail(ATTNLAB_MSG("fetch-model takes a model's name or --list, not both"));
    return;
  }
  if (o.fetch.name.isEmpty()) fail(ATTNLAB_MSG("fetch-model needs a model's name (%1) or --list"), {names});
  if (!findManifestModel(o.fetch.name))
    fail(ATTNLAB_MSG("unknown model '%1' (use %2; see fetch-model --list)"), {o.fetch.name, names});
}

/// sweep --out: an animated .gif, an .mp4 (needs ffmpeg, checked when writing) or a folder for
/// numbered PNG frames (a name ending in "/" or an existing folder; created when missing).
static void checkSweepOutput(const QString& path) {
  const QFileInfo info(path);
  if (path.endsWith(QLatin1Char('/')) || info.isDir()) {
    const QDir folder(path);
    if (!folder.exists() && !QFileInfo(QDir::cleanPath(folder.absolutePath())).absoluteDir().exists()) {
      fail(ATTNLAB_MSG("%1: the folder %2 does not exist"),
           {QStringLiteral("--out"), QDir::toNativeSeparators(QFileInfo(QDir::cleanPath(folder.absolutePath())).absolutePath())});
    }
    return;
  }
  const QString suffix = info.suffix().toLower();
  if (suffix != QLatin1String("gif") && suffix != QLatin1String("mp4")) {
    fail(ATTNLAB_MSG("--out: unknown format '%1' (use .gif, .mp4 or a folder/ for numbered PNG frames)"),
         {suffix.isEmpty() ? path : QStringLiteral(".") + suffix});
  }
  checkOutputPath(path, QStringLiteral("--out"), {});
}

Options parse(const std::vector<std::string>& raw, unsigned program) {
  checkUtf8(raw);
  QStringList args;
  for (const std::string& a : raw) args << fromUtf8Exact(a);  // a leading U+FEFF kept
  checkArity(args);

  QCommandLineParser parser;
  parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
  QStringList added;
  for (const OptionSpec& spec : table()) {
    const QString name = q(spec.name);
    if (added.contains(name)) continue;
    added << name;
    parser.addOption(spec.kind == Kind::kFlag ? QCommandLineOption(name)
                                              : QCommandLineOption(name, QString(), q(spec.value_name)));
  }
  parser.addOption(QCommandLineOption(QStringList{QStringLiteral("h"), QStringLiteral("help")}));
  if (!parser.parse(QStringList{QStringLiteral("attention-lab")} + args)) {
    const QStringList unknown = parser.unknownOptionNames();
    if (!unknown.isEmpty()) {
      const QString name = unknown.first();
      fail(ATTNLAB_MSG("unknown option '%1' (see --help)"),
           {(name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + name});
    }
    throw OptionError(Message::verbatim(parser.errorText()));
  }

  Options o;
  o.help = parser.isSet(QStringLiteral("help"));
  QStringList positional = parser.positionalArguments();
  if (program == kWindow) {
    o.command = kWindow;
  } else if (!positional.isEmpty()) {
    const QString name = positional.takeFirst();
    if (name == QLatin1String("help")) {
      o.help = true;
    } else {
      for (const CommandSpec& c : commands())
        if (q(c.name) == name) o.command = c.command;
      if (o.command == 0)
        fail(ATTNLAB_MSG("unknown command '%1' (use %2)"), {name, commandList()});
    }
  }
  if (o.help) return o;
  if (o.command == 0) fail(ATTNLAB_MSG("no command given (use %1; see --help)"), {commandList()});
  if (o.command == kLesson) readLessonArguments(o, positional);
  if (o.command == kFetchModel && !positional.isEmpty()) o.fetch.name = positional.takeFirst();
  if (!positional.isEmpty())
    fail(ATTNLAB_MSG("unexpected argument '%1' (values follow their option)"), {positional.first()});

  // A trained translator (issue 23) runs through compute and render (and the window) only: one
  // line saying so, before any option the command does not take (--source) is named instead.
  const bool model = parser.isSet(QStringLiteral("model"));
  const bool translator =
      model && isTranslatorFolder(std::filesystem::path(
                   resolveModelPath(parser.value(QStringLiteral("model"))).toStdString()));
  if (translator &&
      (o.command == kGenerate || o.command == kCost || o.command == kDecode || o.command == kInfo)) {
    fail(ATTNLAB_MSG("%1 is a trained translator: the %2 command does not run it; use compute or render with --source TEXT (e.g. render --model %1 --source \"March 3rd, 2021\" --out a.png)"),
         {QFileInfo(resolveModelPath(parser.value(QStringLiteral("model")))).fileName(), commandName(o.command)});
  }

  // Which options were given, in table order; each must be one this command takes.
  for (const QString& name : parser.optionNames()) {
    if (name == QLatin1String("h") || name == QLatin1String("help") || o.given.contains(name)) continue;
    if (!findSpec(name.toStdString(), o.command)) {
      if (o.command == kWindow) fail(ATTNLAB_MSG("--%1 does not apply to the window"), {name});
      fail(ATTNLAB_MSG("--%1 does not apply to the %2 command"), {name, commandName(o.command)});
    }
    o.given << name;
  }
  // A trained translator takes --source as its input and refuses what it cannot vary.
  for (const OptionSpec& spec : table()) {
    if (!(spec.commands & o.command) || !o.isGiven(spec.name)) continue;
    const QString name = q(spec.name);
    if (translator) checkTranslatorOption(name);
    if (!translator && name == QLatin1String("attention"))
      fail(ATTNLAB_MSG("--attention applies to a trained translator (e.g. --model dates-transformer)"));
    if (model && spec.applies == Applies::kSyntheticOnly && !(translator && name == QLatin1String("source"))) {
      if (name == QLatin1String("source"))
        fail(ATTNLAB_MSG("--source does not apply with --model (the model decides it; for a BERT sentence pair use --pair)"));
      fail(ATTNLAB_MSG("--%1 does not apply with --model (the model decides it)"), {name});
    }
    if (!model && spec.applies == Applies::kModelOnly)
      fail(ATTNLAB_MSG("--%1 applies to a pretrained model; add --model DIR"), {name});
    const Value value = spec.kind == Kind::kFlag ? Value{} : readValue(spec, parser.value(name));
    spec.set(o, value);
  }

  // Rules between options, per command.
  const unsigned c = o.command;
  if (c == kRender || c == kSaturation) {
    if (!o.isGiven("out")) fail(ATTNLAB_MSG("--out FILE is required"));
    checkOutputPath(o.output.out, QStringLiteral("--out"), outputFormats(c));
  }
  if (c == kCost && o.isGiven("out")) checkOutputPath(o.output.out, QStringLiteral("--out"), outputFormats(c));
  if (c == kDecode) checkDecode(o);
  if (c == kGenerate) detail::checkCachePolicy(o, kGenerate);
  if (c == kSweep) {
    if (!o.isGiven("param")) fail(ATTNLAB_MSG("--param NAME is required (e.g. --param d_k)"));
    if (!o.isGiven("out")) fail(ATTNLAB_MSG("--out FILE.gif, FILE.mp4 or FOLDER/ is required"));
    checkSweepOutput(o.output.out);
  }
  if (c == kRender && o.output.plot != views::PlotKind::kHeatmap) {
    if (!QStringList{"png", "svg", "pdf"}.contains(QFileInfo(o.output.out).suffix().toLower()))
      fail(ATTNLAB_MSG("--plot %1 draws a picture: use --out FILE.png, .svg or .pdf"), {q(views::plotName(o.output.plot))});
    if (o.isGiven("layout-json")) fail(ATTNLAB_MSG("--layout-json describes a heatmap (--plot heatmap)"));
    const views::PlotKind plot = o.output.plot;
    if (plot == views::PlotKind::kLogitLens || plot == views::PlotKind::kDla ||
        plot == views::PlotKind::kPatching) {
      if (!o.lab.pretrained())
        fail(ATTNLAB_MSG("--plot %1 reads a model's residual stream: add --model DIR or FILE.gguf"),
             {q(views::plotName(plot))});
      if (plot == views::PlotKind::kPatching && o.lab.patch_from.isEmpty())
        fail(ATTNLAB_MSG("--plot patching needs the corrupted prompt: add --patch-from TEXT"));
      o.lab.logit_lens = o.lab.logit_lens || plot == views::PlotKind::kLogitLens;
      o.lab.dla = o.lab.dla || plot == views::PlotKind::kDla;
    } else if (o.output.plot == views::PlotKind::kHeadRoles) {
      if (!o.lab.pretrained())
        fail(ATTNLAB_MSG("--plot head-roles scores a model's heads: add --model DIR or FILE.gguf"));
      if (o.head) fail(ATTNLAB_MSG("--plot head-roles draws every head of every layer: leave out --head"));
      o.lab.head_roles = true;
    } else if (o.lab.pretrained() && !o.lab.layer && o.output.plot != views::PlotKind::kTraining) {
      fail(ATTNLAB_MSG("--plot %1 needs one layer: add --layer L"), {q(views::plotName(o.output.plot))});
    }
  }
  if (c == kRender && (o.isGiven("logit-lens") || o.isGiven("dla")) &&
      QFileInfo(o.output.out).suffix().toLower() != QLatin1String("html"))
    fail(ATTNLAB_MSG("--logit-lens and --dla go into an .html page (--out FILE.html); for a picture use --plot logit-lens or --plot dla"));
  if (o.isGiven("ablation") && o.lab.ablate.empty())
    fail(ATTNLAB_MSG("--ablation says how to ablate: add --ablate L.H (e.g. --ablate 3.7)"));
  if ((o.isGiven("target") || o.isGiven("versus")) && !o.lab.dla && o.lab.patch_from.isEmpty())
    fail(ATTNLAB_MSG("--target and --versus name the logit measured: add --dla, --plot dla or --patch-from TEXT"));
  if (o.isGiven("layout-json")) {
    checkOutputPath(o.output.layout_json, QStringLiteral("--layout-json"), {});
    const QString suffix = QFileInfo(c == kWindow ? o.window.screenshot : o.output.out).suffix().toLower();
    if (c == kDecode && o.lab.pretrained())
      fail(ATTNLAB_MSG("--layout-json describes a heatmap: decode --model draws curves"));
    if (c != kWindow && !QStringList{"png", "svg", "pdf"}.contains(suffix))
      fail(ATTNLAB_MSG("--layout-json describes a picture: use it with --out FILE.png, .svg or .pdf"));
    if (c == kWindow && o.window.screenshot.isEmpty())
      fail(ATTNLAB_MSG("--layout-json describes a screenshot: add --screenshot FILE.png"));
  }
  if (o.isGiven("screenshot")) checkOutputPath(o.window.screenshot, QStringLiteral("--screenshot"), {"png"});
  if (o.output.width || o.output.height)
    checkImageSize(o.output.width.value_or(1), o.output.height.value_or(1), o.output.scale);
  if (c == kSaturation) {
    if (!o.isGiven("text")) return o;       // only the Monte-Carlo curves
    LabSettings curves = o.lab;
    curves.spec.d_k = 0;  // --d-k is the curves' list here
    validate(curves);
    return o;
  }
  if (c == kInfo || c == kModels) return o;
  if (c == kFetchModel) {
    checkFetch(o);
    return o;
  }
  if (translator && o.command != kWindow && !o.isGiven("source") &&
      !(c == kRender && o.output.plot == views::PlotKind::kTraining))
    fail(ATTNLAB_MSG("a translator reads --source TEXT (e.g. --source \"March 3rd, 2021\")"));
  if (c == kLesson) {
    checkLesson(o);
    return o;
  }
  if (c == kCost) {
    validate(o.lab);
    return o;
  }
  if (o.lab.rollout && o.isGiven("head-roles"))
    fail(ATTNLAB_MSG("--head-roles scores the heads, --rollout averages them: use one of the two"));
  if (o.lab.rollout && o.head) fail(ATTNLAB_MSG("--rollout averages the heads: leave out --head"));
  if (o.lab.rollout && c == kRender && o.output.plot != views::PlotKind::kHeatmap)
    fail(ATTNLAB_MSG("--rollout draws a heatmap: leave out --plot"));
  if (o.lab.rollout && c == kRender && o.output.values == views::MatrixValues::kScores)
    fail(ATTNLAB_MSG("--values scores: a rollout has no scores (it multiplies attention weights)"));
  if (o.head && !o.lab.pretrained() && *o.head >= o.lab.spec.heads) {
    fail(ATTNLAB_MSG("--head must be between 0 and %1 (got %2)"),
         {num(static_cast<long long>(o.lab.spec.heads - 1)), num(static_cast<long long>(*o.head))});
  }
  if (o.isGiven("no-pad-mask") && !o.isGiven("pad-to"))
    fail(ATTNLAB_MSG("--no-pad-mask needs --pad-to N"));
  if (o.isGiven("rope-base") && o.lab.spec.positions != Positions::kRope)
    fail(ATTNLAB_MSG("--rope-base applies to --positions rope"));
  if (o.head && o.lab.pretrained() && !o.lab.layer)
    fail(ATTNLAB_MSG("--head N needs one layer: add --layer L (every layer is --head all)"));
  validate(o.lab);
  if ((c == kRender || c == kWindow) && o.isGiven("diff")) {
    if (o.output.plot != views::PlotKind::kHeatmap) fail(ATTNLAB_MSG("--diff draws a heatmap: leave out --plot"));
    if (o.isGiven("layout-json")) fail(ATTNLAB_MSG("--layout-json describes a heatmap of one setting: leave it out with --diff"));
    (void)secondSetting(o);  // refuses bad OPTIONS now, with the same words
  }
  if (c == kSweep) (void)sweepFrames(o, 0);
  return o;
}

QStringList toArguments(const Options& o) {
  QStringList args;
  if (o.command != kWindow) args << commandName(o.command);
  for (const OptionSpec& spec : table()) {
    if (!(spec.commands & o.command) || !spec.get) continue;
    if (spec.applies == Applies::kSyntheticOnly && o.lab.pretrained() &&
        !(o.lab.translator && spec.name == "source"))
      continue;
    if (spec.applies == Applies::kModelOnly && !o.lab.pretrained()) continue;
    const std::optional<QString> value = spec.get(o);
    if (!value) continue;
    args << QStringLiteral("--") + q(spec.name);
    if (spec.kind != Kind::kFlag) args << *value;
  }
  return args;
}

}  // namespace attnlab::options
