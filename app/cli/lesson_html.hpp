#pragma once
/// \file lesson_html.hpp
/// Internal to attention-lab-cli: the lecture pack's index.html — one self-contained XHTML page
/// (well-formed XML served as HTML) holding every exported step: its figure embedded as a
/// data: URI, its caption with the live numbers, its "try this" prompt and the settings that
/// reproduce it. No network and no file references; a print stylesheet lays out one step per
/// A4 landscape page; Chinese text is left to the browser's fonts.

#include <QByteArray>
#include <QSize>
#include <QString>
#include <QStringList>
#include <vector>

namespace attnlab::cli {

/// One exported step as the page shows it.
struct PackStep {
  QString id;           ///< The step's id (the page anchor "step-<lesson>-<id>").
  QString caption;      ///< The caption with its numbers filled in.
  QString try_this;     ///< The "try this" prompt.
  /// The command line that reproduces the figure, one shell-quoted argument per entry (the page
  /// never breaks a line inside one).
  QStringList settings;
  QByteArray png;       ///< The figure as PNG bytes (empty: `problem` says why).
  QSize size;           ///< The PNG's pixels (the page reserves the figure's place before it loads).
  QString problem;      ///< Why there is no figure (a model not fetched), else empty.
};

/// One exported lesson.
struct PackLesson {
  QString name;
  int order = 0;
  QString title;
  std::vector<PackStep> steps;
};

/// The page in `language` ("en" or "zh_CN": the lang attribute and the page's own words).
QString lessonPackHtml(const std::vector<PackLesson>& lessons, const QString& language);

}  // namespace attnlab::cli
