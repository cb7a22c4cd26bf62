/// \file cli_lesson.cpp
/// attention-lab-cli lesson list | lesson export NAME|all: the guided lessons (app/lessons) as a
/// table, and as a lecture pack — each step's figure (PNG and SVG, drawn by the same commands a
/// user would type: render, render --diff, render --plot, saturation, cost, decode) and one
/// self-contained index.html (lesson_html.hpp).

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QTemporaryDir>
#include <QTranslator>
#include <iomanip>
#include <sstream>

#include "attnlab/error.hpp"
#include "attnlab/saturation.hpp"
#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "options/model_manifest.hpp"
#include "cli/lesson_html.hpp"
#include "lessons/lesson.hpp"
#include "options/bundled_models.hpp"

namespace attnlab::cli {
namespace {

using lessons::View;

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

/// A value as a shell would need it quoted in the "reproduce" line.
QString shellQuoted(const QString& arg) {
  static const QString plain = QStringLiteral(
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/@:+");
  bool ok = !arg.isEmpty();
  for (const QChar c : arg) ok = ok && plain.contains(c);
  if (ok) return arg;
  QString quoted = arg;
  quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
  return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

/// The model of a step by its manifest name, "minilm" for "@minilm" (--model NAME reads the
/// fetched copy; `attention-lab-cli fetch-model minilm` fetches it), so a reproduce line runs as
/// printed on any machine; empty for any other value.
QString fetchedName(const QString& placeholder) {
  if (!placeholder.startsWith(QLatin1Char('@')) || !options::findManifestModel(placeholder.mid(1))) return {};
  return placeholder.mid(1);
}

/// The command (without --out) that draws the step's figure from its resolved settings;
/// `keys`: the keys per row of the text (the saturation curves are drawn for as many, with
/// saturationSamples rows, as the window draws them and the caption's numbers are computed).
QStringList figureCommand(const lessons::Step& step, const options::Options& o, int keys) {
  options::Options settings = o;
  QStringList args;
  switch (step.view) {
    case View::kSaturation: {
      args << QStringLiteral("saturation") << QStringLiteral("--mark")
           << QString::number(std::clamp(o.lab.spec.resolvedDk(), 1, 1024)) << QStringLiteral("--keys")
           << QString::number(keys) << QStringLiteral("--samples")
           << QString::number(saturationSamples(keys));
      if (o.lab.spec.mechanism == Mechanism::kDot) args << QStringLiteral("--no-scale");
      if (o.lab.seed != 0) args << QStringLiteral("--seed") << QString::number(o.lab.seed);
      return args;
    }
    case View::kCost: {
      args << QStringLiteral("cost");
      if (o.lab.pretrained()) return args << QStringLiteral("--model") << o.lab.model_dir;
      args << QStringLiteral("--heads") << QString::number(o.lab.spec.heads)
           << QStringLiteral("--d-model") << QString::number(o.lab.spec.d_model);
      if (o.lab.spec.d_k > 0) args << QStringLiteral("--d-k") << QString::number(o.lab.spec.d_k);
      if (o.lab.spec.d_v > 0) args << QStringLiteral("--d-v") << QString::number(o.lab.spec.d_v);
      if (o.lab.spec.kv_heads > 0)
        args << QStringLiteral("--kv-heads") << QString::number(o.lab.spec.kv_heads);
      return args;
    }
    case View::kDecode:
      settings.command = options::kDecode;
      return options::toArguments(settings);
    default:
      break;
  }
  settings.command = options::kWindow;
  settings.window.head_role.reset();  // the window's badges; render draws --plot head-roles
  if (step.view == View::kHeadRoles) settings.head.reset();
  // render's --plot logit-lens and dla compute what the window's --logit-lens and --dla ask for.
  settings.lab.logit_lens = settings.lab.dla = false;
  args << QStringLiteral("render") << options::toArguments(settings);
  if (step.view == View::kHeadRoles) args << QStringLiteral("--plot") << QStringLiteral("head-roles");
  if (step.view == View::kEntropy) args << QStringLiteral("--plot") << QStringLiteral("entropy");
  if (step.view == View::kHistogram) args << QStringLiteral("--plot") << QStringLiteral("histogram");
  if (step.view == View::kHeadSimilarity) args << QStringLiteral("--plot") << QStringLiteral("head-similarity");
  if (step.view == View::kTraining) args << QStringLiteral("--plot") << QStringLiteral("training");
  if (step.view == View::kLogitLens) args << QStringLiteral("--plot") << QStringLiteral("logit-lens");
  if (step.view == View::kDla) args << QStringLiteral("--plot") << QStringLiteral("dla");
  return args;
}

/// The same command as a teacher would type it in a shell at the repository's root, one quoted
/// argument per entry; a fetched model by its name (fetchedName), a
/// bundled translator by its name ("dates-additive"), not this machine's path.
QStringList reproduceLine(const lessons::Step& step, const QStringList& command, const options::Options& o) {
  QStringList quoted{QStringLiteral("attention-lab-cli")};
  QString model = o.lab.pretrained() ? fetchedName(lessons::stepModel(step)) : QString();
  if (const auto given = lessons::findModelArgument(step.options); given && o.lab.translator &&
      options::findBundledModel(given->value) == o.lab.model_dir)
    model = given->value;
  for (const QString& a : command)
    quoted << (!model.isEmpty() && a == o.lab.model_dir ? model : shellQuoted(a));
  return quoted;
}

/// Runs one command of this program in-process; throws with its one line when it fails.
void runCommand(const QStringList& args, const QString& where) {
  std::vector<std::string> raw;
  for (const QString& a : args) raw.push_back(utf8(a));
  std::ostringstream out, err;
  if (run(raw, out, err) != kExitOk) {
    std::string line = err.str();
    while (!line.empty() && line.back() == '\n') line.pop_back();
    const std::string prefix = "attention-lab-cli: ";
    if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
    throw Error(ErrorCode::kInvalidInput, utf8(where) + ": " + line);
  }
}

/// session: the pack's one run session (the lesson numbers; it holds the model, so the step
/// commands run in-process find it in the model cache instead of loading it again). `view`, when
/// given: a heads step's maps for the interactive page (the figure's run, computed again).
PackStep exportStep(const lessons::Lesson& lesson, const lessons::Step& step, int index,
                    const QString& language, const QDir& dir, run::Session& session,
                    std::ostream& err, std::optional<views::HtmlView>* view = nullptr) {
  PackStep s;
  s.id = step.id;
  s.try_this = step.try_this.in(language);
  const QString where = QStringLiteral("lesson %1 step %2").arg(lesson.name, step.id);
  const QString name = QStringLiteral("%1-%2-%3")
                           .arg(lesson.order, 2, 10, QLatin1Char('0'))
                           .arg(index + 1, 2, 10, QLatin1Char('0'))
                           .arg(step.id);
  const QStringList out{QStringLiteral("--out"), name + QStringLiteral(".png")};
  options::Options o;
  try {
    o = lessons::stepOptions(step);
  } catch (const options::OptionError& e) {
    if (lessons::stepModel(step).isEmpty()) throw;
    // A model not fetched: the page says so (and how the figure is made once it is); the rest
    // of the pack is written.
    s.problem = e.message().translated();
    s.caption = lessons::caption(step, language, {});
    const options::Options unresolved = lessons::stepOptions(step, false);
    s.settings = reproduceLine(step, figureCommand(step, unresolved, 0) + out, unresolved);
    err << "attention-lab-cli: note: " << utf8(where) << ": " << utf8(e.message().english()) << "\n";
    return s;
  }
  std::map<QString, QString> numbers;
  try {
    numbers = lessons::quantities(step, o.lab, session);
  } catch (const options::OptionError& e) {
    throw Error(ErrorCode::kInvalidInput, utf8(where) + ": " + utf8(e.message().english()));
  }
  s.caption = lessons::caption(step, language, numbers);
  int keys = 0;  // the text's keys per row, as the window's saturation panel counts them
  if (step.view == View::kSaturation) {
    options::LabSettings cpu = o.lab;
    cpu.backend = options::BackendKind::kCpu;
    keys = session.run(cpu)->attention().nK();
  }
  const QStringList command = figureCommand(step, o, keys);
  s.settings = reproduceLine(step, command + out, o);
  const QString base = dir.filePath(name);
  for (const QString& suffix : {QStringLiteral(".png"), QStringLiteral(".svg")})
    runCommand(command + QStringList{QStringLiteral("--out"), base + suffix}, where);
  QFile png(base + QStringLiteral(".png"));
  if (!png.open(QIODevice::ReadOnly))
    throw Error(ErrorCode::kIo, "cannot read " + utf8(png.fileName()));
  s.png = png.readAll();
  s.size = QImage::fromData(s.png, "PNG").size();
  if (view && step.view == View::kHeads) {
    const std::shared_ptr<const results::Run> r = runNoted(session, o.lab, err, !o.lab.layer && !o.head);
    *view = views::htmlViewOf(r, o.head, std::nullopt, o.picture.color_scale, o.picture.pool);
  }
  return s;
}

int lessonList(const options::Options& o, std::ostream& out) {
  const QString language = o.lesson.language;
  for (const lessons::Lesson& l : lessons::all()) {
    const QString steps = language == QLatin1String("zh_CN")
                              ? QStringLiteral("%1 步").arg(l.steps.size())
                              : QStringLiteral("%1 steps").arg(l.steps.size());
    out << std::setw(2) << l.order << "  " << std::left << std::setw(14) << utf8(l.name)
        << std::right << utf8(l.title.in(language)) << "  (" << utf8(steps) << ")\n";
  }
  return kExitOk;
}

/// lesson export --html: every step of the chosen lessons on one page — a heads step's maps
/// interactive, any other step's figure as an image — with its caption and "try this".
int lessonExportHtml(const options::Options& o, const std::vector<const lessons::Lesson*>& chosen,
                     std::ostream& out, std::ostream& err) {
  QTemporaryDir figures;
  if (!figures.isValid()) throw Error(ErrorCode::kIo, "cannot create a temporary folder for the figures");
  const QDir dir(figures.path());
  views::HtmlPage page;
  page.language = pageLanguage(o.lesson.language);
  page.lesson = true;
  const bool zh = page.language == QLatin1String("zh_CN");
  const std::function<bool(int, int)> progress = terminalProgress("lesson export: step");
  int steps = 0, done = 0;
  for (const lessons::Lesson* l : chosen) steps += static_cast<int>(l->steps.size());
  run::Session session;
  for (const lessons::Lesson* l : chosen) {
    const QString lesson_title = (zh ? QStringLiteral("第 %1 课") : QStringLiteral("Lesson %1")).arg(l->order) +
                                 QStringLiteral(" · ") + l->title.in(o.lesson.language);
    for (std::size_t i = 0; i < l->steps.size(); ++i) {
      std::optional<views::HtmlView> maps;
      const PackStep s = exportStep(*l, l->steps[i], static_cast<int>(i), o.lesson.language, dir, session, err, &maps);
      views::HtmlView v = maps ? std::move(*maps) : views::HtmlView{};
      v.subtitle = s.settings.join(QLatin1Char(' ')) + (v.subtitle.isEmpty() ? QString() : QStringLiteral(" — ") + v.subtitle);
      v.title = lesson_title + QStringLiteral(" · ") + s.id;
      v.caption = s.problem.isEmpty() ? s.caption : s.problem + QStringLiteral(" — ") + s.caption;
      v.try_this = s.try_this;
      if (!maps && !s.png.isEmpty()) {
        v.png = s.png;
        v.png_width = s.size.width();
        v.png_height = s.size.height();
      }
      page.views.push_back(std::move(v));
      if (progress) progress(++done, steps);
    }
  }
  page.title = (zh ? QStringLiteral("注意力实验室 — 课程") : QStringLiteral("Attention Lab — lessons"));
  if (chosen.size() == 1) page.title += QStringLiteral(" · ") + chosen.front()->title.in(o.lesson.language);
  writePage(page, o.lesson.out, err);
  out << "wrote " << chosen.size() << " lesson(s), " << page.views.size() << " steps on one page\n"
      << utf8(o.lesson.out) << "\n";
  return kExitOk;
}

int lessonExport(const options::Options& o, std::ostream& out, std::ostream& err) {
  std::vector<const lessons::Lesson*> chosen;
  if (o.lesson.name == QLatin1String("all")) {
    for (const lessons::Lesson& l : lessons::all()) chosen.push_back(&l);
  } else {
    chosen.push_back(&lessons::byName(o.lesson.name));
  }
  // The figures' titles, axes and notes in the pack's language (the window's translation).
  QTranslator translator;
  const bool translated = o.lesson.language == QLatin1String("zh_CN") &&
                          translator.load(QStringLiteral(":/i18n/cli/attention_lab_zh_CN.qm")) &&
                          QCoreApplication::installTranslator(&translator);
  struct Uninstall {
    QTranslator* t;
    ~Uninstall() {
      if (t) QCoreApplication::removeTranslator(t);
    }
  } uninstall{translated ? &translator : nullptr};
  if (o.lesson.html) return lessonExportHtml(o, chosen, out, err);
  QDir dir(o.lesson.out);
  if (!dir.exists() && !QDir().mkpath(dir.absolutePath()))
    throw Error(ErrorCode::kIo, "cannot create the folder " + utf8(o.lesson.out));
  std::vector<PackLesson> pack;
  int figures = 0;
  // A pack of every lesson takes a while: "figure 12 of 50" on a terminal.
  const std::function<bool(int, int)> progress = terminalProgress("lesson export: figure");
  int steps = 0, done = 0;
  for (const lessons::Lesson* l : chosen) steps += static_cast<int>(l->steps.size());
  run::Session session;
  for (const lessons::Lesson* l : chosen) {
    PackLesson p{l->name, l->order, l->title.in(o.lesson.language), {}};
    for (std::size_t i = 0; i < l->steps.size(); ++i) {
      p.steps.push_back(exportStep(*l, l->steps[i], static_cast<int>(i), o.lesson.language, dir, session, err));
      if (!p.steps.back().png.isEmpty()) ++figures;
      if (progress) progress(++done, steps);
    }
    pack.push_back(std::move(p));
  }
  const QString index = dir.filePath(QStringLiteral("index.html"));
  QFile file(index);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
      file.write(lessonPackHtml(pack, o.lesson.language).toUtf8()) < 0 || !file.flush())
    throw Error(ErrorCode::kIo, "cannot write " + utf8(index) + ": " + utf8(file.errorString()));
  out << "wrote " << chosen.size() << " lesson(s), " << figures << " figures (PNG and SVG)\n"
      << utf8(index) << "\n";
  return kExitOk;
}

}  // namespace

int commandLesson(const options::Options& o, std::ostream& out, std::ostream& err) {
  if (o.lesson.action == options::LessonAction::kList) return lessonList(o, out);
  return lessonExport(o, out, err);
}

}  // namespace attnlab::cli
