/// \file lesson_html.cpp
/// The lecture pack's index.html (lesson_html.hpp).

#include "cli/lesson_html.hpp"

namespace attnlab::cli {
namespace {

/// The page's own words in both languages.
struct Words {
  const char* en;
  const char* zh;
  QString in(const QString& language) const {
    return QString::fromUtf8(language == QLatin1String("zh_CN") ? zh : en);
  }
};
constexpr Words kPackTitle{"Attention Lab — lessons", "注意力实验室 — 课程"};
constexpr Words kIntro{
    "Each step shows one figure computed by Attention Lab, its caption with the numbers measured "
    "for these settings, and one thing to try in the window. The command under each figure "
    "reproduces it.",
    "每一步给出注意力实验室计算的一幅图、按这些设置实测数字写成的说明，以及在窗口中可以动手尝试的一件事。"
    "每幅图下方的命令可以重现它。"};
constexpr Words kLesson{"Lesson %1", "第 %1 课"};
constexpr Words kStep{"step %1 of %2", "第 %1 步，共 %2 步"};
constexpr Words kTry{"Try this", "试一试"};
constexpr Words kSettings{"Reproduce", "重现"};
constexpr Words kNoFigure{"No figure", "没有图"};
constexpr Words kContents{"Contents", "目录"};
constexpr Words kSteps{"%1 steps", "%1 步"};

/// Screen: a readable column; print: one step per A4 landscape page, figure left, text right.
constexpr const char* kStyle = R"css(
:root { color-scheme: light; }
body { font-family: system-ui, "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC",
       "Microsoft YaHei", "WenQuanYi Micro Hei", sans-serif;
       margin: 0 auto; max-width: 1280px; padding: 24px; color: #1a1a1a; background: #fff;
       line-height: 1.5; }
h1 { font-size: 1.9em; margin: 0.2em 0; }
h2 { font-size: 1.35em; margin: 0 0 0.4em 0; }
.cover p { font-size: 1.1em; max-width: 60em; }
.cover ol { columns: 2; font-size: 1.1em; }
.cover a { color: #1f4e99; text-decoration: none; }
.lesson > h1 { border-bottom: 3px solid #1f4e99; padding-bottom: 0.1em; margin-top: 1.2em; }
.step { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 24px;
        align-items: start; padding: 16px 0; border-bottom: 1px solid #ccc; }
.step figure { margin: 0; }
.step img { display: block; max-width: 100%; max-height: 78vh; height: auto; margin: 0 auto;
            object-fit: contain; }
.step .text { font-size: 1.15em; overflow-wrap: anywhere; }
.step .where { color: #555; font-size: 0.85em; margin: 0; }
.caption { margin: 0.4em 0 0.8em 0; }
.try { background: #fff4d6; border-left: 6px solid #e0a000; padding: 0.5em 0.8em; }
.settings { font-size: 0.75em; color: #444; }
.settings code { font-family: "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace; }
.settings code span { white-space: nowrap; }
.problem { border: 2px dashed #b00; padding: 2em; color: #b00; }
@media (max-width: 900px) { .step { grid-template-columns: 1fr; } }
@media screen and (min-width: 1200px) { .step { min-height: 94vh; box-sizing: border-box; } }
@page { size: A4 landscape; margin: 10mm; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  .cover { break-after: page; page-break-after: always; }
  .lesson > h1 { display: none; }
  .step { break-inside: avoid; page-break-inside: avoid; break-after: page;
          page-break-after: always; border: none; height: 186mm; padding: 0;
          grid-template-columns: auto minmax(80mm, 1fr); gap: 8mm; }
  .step img { max-height: 182mm; max-width: 189mm; width: auto; margin: 0; }
  .step .text { font-size: 12.5pt; }
  a { color: inherit; }
}
)css";

QString anchor(const QString& lesson, const QString& step = {}) {
  return step.isEmpty() ? QStringLiteral("lesson-") + lesson
                        : QStringLiteral("step-") + lesson + QLatin1Char('-') + step;
}

}  // namespace

QString lessonPackHtml(const std::vector<PackLesson>& lessons, const QString& language) {
  const QString lang = language == QLatin1String("zh_CN") ? QStringLiteral("zh-CN") : QStringLiteral("en");
  QString h;
  h += QStringLiteral("<!DOCTYPE html>\n<html lang=\"%1\" xml:lang=\"%1\">\n").arg(lang);
  h += QStringLiteral("<head>\n<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n");
  QString title = kPackTitle.in(language);
  if (lessons.size() == 1) title += QStringLiteral(" · ") + lessons.front().title;
  h += QStringLiteral("<title>") + title.toHtmlEscaped() + QStringLiteral("</title>\n<style>") +
       QString::fromUtf8(kStyle) + QStringLiteral("</style>\n</head>\n<body>\n");
  h += QStringLiteral("<section class=\"cover\">\n<h1>") + title.toHtmlEscaped() + QStringLiteral("</h1>\n<p>") +
       kIntro.in(language).toHtmlEscaped() + QStringLiteral("</p>\n<h2>") + kContents.in(language).toHtmlEscaped() +
       QStringLiteral("</h2>\n<ol>\n");
  for (const PackLesson& l : lessons) {
    h += QStringLiteral("<li value=\"%1\"><a href=\"#%2\">%3</a> (%4)</li>\n")
             .arg(l.order)
             .arg(anchor(l.name), l.title.toHtmlEscaped(),
                  kSteps.in(language).arg(l.steps.size()).toHtmlEscaped());
  }
  h += QStringLiteral("</ol>\n</section>\n");
  for (const PackLesson& l : lessons) {
    const QString lesson_title = kLesson.in(language).arg(l.order) + QStringLiteral(" · ") + l.title;
    h += QStringLiteral("<section class=\"lesson\" id=\"%1\">\n<h1>%2</h1>\n").arg(anchor(l.name), lesson_title.toHtmlEscaped());
    for (std::size_t i = 0; i < l.steps.size(); ++i) {
      const PackStep& s = l.steps[i];
      h += QStringLiteral("<section class=\"step\" id=\"%1\">\n<figure>\n").arg(anchor(l.name, s.id));
      if (!s.png.isEmpty()) {
        QString dims;
        if (s.size.isValid())
          dims = QStringLiteral(" width=\"%1\" height=\"%2\"").arg(s.size.width()).arg(s.size.height());
        h += QStringLiteral("<img alt=\"%1\"%2 src=\"data:image/png;base64,").arg(s.id.toHtmlEscaped(), dims) +
             QString::fromLatin1(s.png.toBase64()) + QStringLiteral("\"/>\n");
      } else {
        h += QStringLiteral("<div class=\"problem\"><strong>%1</strong>: %2</div>\n")
                 .arg(kNoFigure.in(language).toHtmlEscaped(), s.problem.toHtmlEscaped());
      }
      h += QStringLiteral("</figure>\n<div class=\"text\">\n<p class=\"where\">%1 · %2</p>\n")
               .arg(lesson_title.toHtmlEscaped(),
                    kStep.in(language).arg(i + 1).arg(l.steps.size()).toHtmlEscaped());
      h += QStringLiteral("<p class=\"caption\">") + s.caption.toHtmlEscaped() + QStringLiteral("</p>\n");
      h += QStringLiteral("<p class=\"try\"><strong>%1:</strong> %2</p>\n")
               .arg(kTry.in(language).toHtmlEscaped(), s.try_this.toHtmlEscaped());
      QStringList args;
      for (const QString& a : s.settings) args << QStringLiteral("<span>") + a.toHtmlEscaped() + QStringLiteral("</span>");
      h += QStringLiteral("<p class=\"settings\">%1: <code>%2</code></p>\n")
               .arg(kSettings.in(language).toHtmlEscaped(), args.join(QLatin1Char(' ')));
      h += QStringLiteral("</div>\n</section>\n");
    }
    h += QStringLiteral("</section>\n");
  }
  h += QStringLiteral("</body>\n</html>\n");
  return h;
}

}  // namespace attnlab::cli
