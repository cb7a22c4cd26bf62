/// \file lesson.cpp
/// Reading and checking the lesson files (lesson.hpp), the steps' settings, the captions.

#include "lessons/lesson.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>
#include <set>

#include "attnlab/error.hpp"
#include "options/model_manifest.hpp"

namespace attnlab::lessons {
namespace {

using options::Message;
using options::OptionError;

struct ViewEntry {
  View view;
  const char* name;
};
constexpr ViewEntry kViews[] = {
    {View::kHeads, "heads"},       {View::kSaturation, "saturation"},
    {View::kEntropy, "entropy"},   {View::kHistogram, "histogram"},
    {View::kCompare, "compare"},   {View::kCost, "cost"},
    {View::kDecode, "decode"},     {View::kHeadSimilarity, "head-similarity"},
    {View::kHeadRoles, "head-roles"},
    {View::kTraining, "training"},
    {View::kLogitLens, "logit-lens"}, {View::kDla, "dla"},
};

/// The options a lesson step may not set: output and the window's own start options.
const QStringList kRefused{"out", "width", "height", "scale", "values", "plot", "layout-json",
                           "full", "screenshot", "lang", "presentation", "decode-step", "diff"};

[[noreturn]] void invalid(const QString& file, const QString& what) {
  throw Error(ErrorCode::kInvalidInput,
              (QStringLiteral("lesson file ") + file + QStringLiteral(": ") + what).toStdString());
}

Text readText(const QJsonObject& parent, const QString& key, const QString& file,
              const QString& where) {
  const QJsonValue value = parent.value(key);
  if (!value.isObject()) invalid(file, where + key + QStringLiteral(" must be {\"en\": …, \"zh_CN\": …}"));
  const QJsonObject o = value.toObject();
  Text t;
  for (const QString& lang : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
    const QJsonValue v = o.value(lang);
    if (!v.isString() || v.toString().trimmed().isEmpty())
      invalid(file, where + key + QLatin1Char('.') + lang + QStringLiteral(" is missing or empty"));
    (lang == QLatin1String("en") ? t.en : t.zh_CN) = v.toString();
  }
  for (auto it = o.begin(); it != o.end(); ++it)
    if (it.key() != QLatin1String("en") && it.key() != QLatin1String("zh_CN"))
      invalid(file, where + key + QStringLiteral(": unknown language '") + it.key() + QLatin1Char('\''));
  return t;
}

void checkKeys(const QJsonObject& o, const QStringList& known, const QString& file,
               const QString& where) {
  for (auto it = o.begin(); it != o.end(); ++it)
    if (!known.contains(it.key()))
      invalid(file, where + QStringLiteral("unknown field '") + it.key() + QLatin1Char('\''));
}

/// The placeholders of both captions must be known quantities and the same set.
void checkCaption(const Step& step, const QString& file, const QString& where) {
  const QStringList known = quantityNames();
  QStringList en = placeholders(step.caption.en), zh = placeholders(step.caption.zh_CN);
  for (const QString& name : en + zh)
    if (!known.contains(name))
      invalid(file, where + QStringLiteral("caption quotes an unknown quantity {") + name + QLatin1Char('}'));
  en.sort();
  zh.sort();
  if (en != zh)
    invalid(file, where + QStringLiteral("the English and the Chinese captions quote different quantities"));
}

std::vector<Lesson> readAll() {
  const QString override_dir = qEnvironmentVariable("ATTNLAB_LESSON_DIR");
  const QString dir = override_dir.isEmpty() ? QStringLiteral(":/lessons") : override_dir;
  const QStringList files = QDir(dir).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
  if (files.isEmpty())
    throw Error(ErrorCode::kInvalidInput, "no lesson files in " + dir.toStdString());
  std::vector<Lesson> lessons;
  for (const QString& f : files) lessons.push_back(load(dir + QLatin1Char('/') + f));
  std::sort(lessons.begin(), lessons.end(),
            [](const Lesson& a, const Lesson& b) { return a.order < b.order; });
  for (std::size_t i = 1; i < lessons.size(); ++i)
    if (lessons[i].order == lessons[i - 1].order)
      throw Error(ErrorCode::kInvalidInput,
                  ("lessons " + lessons[i - 1].name + " and " + lessons[i].name +
                   " have the same order " + QString::number(lessons[i].order))
                      .toStdString());
  return lessons;
}


}  // namespace

const QString& Text::in(const QString& language) const {
  return language == QLatin1String("zh_CN") ? zh_CN : en;
}

QString viewName(View view) {
  for (const ViewEntry& e : kViews)
    if (e.view == view) return QString::fromLatin1(e.name);
  return QStringLiteral("heads");
}

std::optional<View> viewFromName(const QString& name) {
  for (const ViewEntry& e : kViews)
    if (name == QLatin1String(e.name)) return e.view;
  return std::nullopt;
}

QStringList placeholders(const QString& text) {
  static const QRegularExpression re(QStringLiteral("\\{([a-z0-9_]+)\\}"));
  QStringList names;
  for (auto it = re.globalMatch(text); it.hasNext();) {
    const QString name = it.next().captured(1);
    if (!names.contains(name)) names << name;
  }
  return names;
}

Lesson load(const QString& path) {
  const QString file = QFileInfo(path).fileName();
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) invalid(file, QStringLiteral("cannot be read: ") + f.errorString());
  QJsonParseError error;
  const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
  if (doc.isNull())
    invalid(file, QStringLiteral("not JSON at byte %1: %2").arg(error.offset).arg(error.errorString()));
  if (!doc.isObject()) invalid(file, QStringLiteral("must hold one object"));
  const QJsonObject o = doc.object();
  checkKeys(o, {"name", "order", "title", "steps"}, file, QString());
  Lesson lesson;
  lesson.name = o.value(QStringLiteral("name")).toString();
  if (lesson.name != QFileInfo(path).completeBaseName())
    invalid(file, QStringLiteral("name must be the file's base name '%1'").arg(QFileInfo(path).completeBaseName()));
  const QJsonValue order = o.value(QStringLiteral("order"));
  if (!order.isDouble() || order.toDouble() < 1 || order.toDouble() != static_cast<int>(order.toDouble()))
    invalid(file, QStringLiteral("order must be a whole number ≥ 1"));
  lesson.order = order.toInt();
  lesson.title = readText(o, QStringLiteral("title"), file, QString());
  const QJsonValue steps = o.value(QStringLiteral("steps"));
  if (!steps.isArray() || steps.toArray().isEmpty()) invalid(file, QStringLiteral("steps must be a non-empty list"));
  std::set<QString> ids;
  int index = 0;
  for (const QJsonValue& sv : steps.toArray()) {
    ++index;
    QString where = QStringLiteral("step %1: ").arg(index);
    if (!sv.isObject()) invalid(file, where + QStringLiteral("must be an object"));
    const QJsonObject so = sv.toObject();
    checkKeys(so, {"id", "options", "view", "compare", "caption", "try"}, file, where);
    Step step;
    step.id = so.value(QStringLiteral("id")).toString();
    if (step.id.isEmpty()) invalid(file, where + QStringLiteral("id is missing"));
    where = QStringLiteral("step '%1': ").arg(step.id);
    if (!ids.insert(step.id).second) invalid(file, where + QStringLiteral("id is not unique"));
    const QJsonValue opts = so.value(QStringLiteral("options"));
    if (!opts.isUndefined() && !opts.isArray()) invalid(file, where + QStringLiteral("options must be a list of strings"));
    for (const QJsonValue& a : opts.toArray()) {
      if (!a.isString()) invalid(file, where + QStringLiteral("options must be a list of strings"));
      step.options << a.toString();
    }
    const QString view = so.value(QStringLiteral("view")).toString(QStringLiteral("heads"));
    const std::optional<View> v = viewFromName(view);
    if (!v) invalid(file, where + QStringLiteral("unknown view '%1'").arg(view));
    step.view = *v;
    step.compare = so.value(QStringLiteral("compare")).toString();
    if (step.view == View::kCompare && step.compare.trimmed().isEmpty())
      invalid(file, where + QStringLiteral("view compare needs \"compare\": the options of setting B"));
    if (step.view != View::kCompare && !step.compare.isEmpty())
      invalid(file, where + QStringLiteral("\"compare\" belongs to view compare"));
    step.caption = readText(so, QStringLiteral("caption"), file, where);
    step.try_this = readText(so, QStringLiteral("try"), file, where);
    checkCaption(step, file, where);
    lesson.steps.push_back(std::move(step));
  }
  return lesson;
}

const std::vector<Lesson>& all() {
  static const std::vector<Lesson> lessons = readAll();
  return lessons;
}

const Lesson& byName(const QString& name) {
  QStringList names;
  for (const Lesson& l : all()) {
    if (l.name == name) return l;
    names << l.name;
  }
  throw OptionError(Message(ATTNLAB_MSG("unknown lesson '%1' (use %2)"),
                            {name, names.join(QStringLiteral(", "))}));
}

QString fetchedModel(const QString& placeholder) {
  if (!placeholder.startsWith(QLatin1Char('@'))) return {};
  const options::ManifestModel* model = options::findManifestModel(placeholder.mid(1));
  return model ? options::fetchedModelPath(*model) : QString();
}

std::optional<ModelArgument> findModelArgument(const QStringList& args) {
  std::optional<ModelArgument> found;
  for (qsizetype i = 0; i < args.size(); ++i) {
    if (args[i] == QLatin1String("--model") && i + 1 < args.size()) {
      found = ModelArgument{i + 1, args[i + 1], false};
    } else if (args[i].startsWith(QLatin1String("--model="))) {
      found = ModelArgument{i, args[i].mid(8), true};
    }
  }
  return found;
}

QStringList withModelValue(QStringList args, const QString& value) {
  if (const auto m = findModelArgument(args))
    args[m->index] = m->joined ? QStringLiteral("--model=") + value : value;
  return args;
}

QString stepModel(const Step& step) {
  const auto m = findModelArgument(step.options);
  return m && m->value.startsWith(QLatin1Char('@')) ? m->value : QString();
}

options::Options stepOptions(const Step& step, bool resolve_model) {
  QStringList args = step.options;
  for (const QString& a : args) {
    if (!a.startsWith(QStringLiteral("--"))) continue;
    const QString name = a.mid(2).section(QLatin1Char('='), 0, 0);
    if (kRefused.contains(name))
      throw OptionError(Message(ATTNLAB_MSG("a lesson step sets the lab's settings: --%1 does not apply"), {name}));
  }
  if (const QString placeholder = stepModel(step); !placeholder.isEmpty() && resolve_model) {
    const QString path = fetchedModel(placeholder);
    if (path.isEmpty()) {
      if (!options::findManifestModel(placeholder.mid(1)))
        throw OptionError(Message(ATTNLAB_MSG("unknown model '%1' (use @minilm, @smollm2 or @gemma3)"), {placeholder}));
      const QString which = placeholder.mid(1);
      throw OptionError(Message(ATTNLAB_MSG("this step needs the model %1: run attention-lab-cli fetch-model %1"), {which}));
    }
    args = withModelValue(args, path);
  }
  std::vector<std::string> raw;
  unsigned program = options::kWindow;
  if (step.view == View::kDecode) {
    raw.push_back("decode");
    program = 0;
  }
  for (const QString& a : args) raw.push_back(a.toUtf8().toStdString());
  if (step.view == View::kCompare) {
    raw.push_back("--diff");
    raw.push_back(step.compare.toUtf8().toStdString());
  }
  return options::parse(raw, program);
}

QString caption(const Step& step, const QString& language,
                const std::map<QString, QString>& numbers) {
  QString text = step.caption.in(language);
  for (const QString& name : placeholders(text)) {
    const auto it = numbers.find(name);
    text.replace(QLatin1Char('{') + name + QLatin1Char('}'), it == numbers.end() ? QStringLiteral("…") : it->second);
  }
  return text;
}

}  // namespace attnlab::lessons
