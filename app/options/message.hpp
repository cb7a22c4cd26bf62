#pragma once
/// \file message.hpp
/// A one-line message for the user that the command line prints in English and the window shows
/// in the interface language: the English source text (translation context "attnlab::options")
/// and the arguments that fill its %1, %2, … Engine errors, whose text comes from the engine,
/// travel as verbatim messages (shown as they are in both).

#include <QCoreApplication>
#include <QString>
#include <QStringList>
#include <stdexcept>
#include <string>

namespace attnlab::options {

/// Marks a string literal as a message source for lupdate (context "attnlab::options").
#define ATTNLAB_MSG(text) QT_TRANSLATE_NOOP("attnlab::options", text)

/// A translatable one-line message.
class Message {
 public:
  Message() = default;
  /// source: an ATTNLAB_MSG literal with %1 … placeholders; args fill them in order.
  explicit Message(const char* source, QStringList args = {})
      : source_(source), args_(std::move(args)) {}
  /// A message that is never translated (an engine error's text).
  static Message verbatim(const QString& text) {
    Message m;
    m.verbatim_ = text;
    return m;
  }

  /// The English text, as the command line prints it.
  QString english() const { return fill(verbatim_.isNull() ? QString::fromUtf8(source_) : verbatim_); }
  /// The text in the interface language (the installed translator's), as the window shows it.
  QString translated() const {
    if (!verbatim_.isNull()) return verbatim_;
    return fill(QCoreApplication::translate("attnlab::options", source_));
  }
  bool empty() const { return source_ == nullptr && verbatim_.isEmpty(); }
  bool operator==(const Message& other) const { return english() == other.english(); }

 private:
  /// Replaces %1 … %9 in one pass, so an argument that itself contains "%2" stays as it is.
  QString fill(const QString& text) const {
    if (!verbatim_.isNull()) return text;
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
      const QChar c = text.at(i);
      if (c == QLatin1Char('%') && i + 1 < text.size() && text.at(i + 1) >= QLatin1Char('1') &&
          text.at(i + 1) <= QLatin1Char('9')) {
        const qsizetype index = text.at(i + 1).unicode() - '1';
        if (index < args_.size()) {
          out += args_.at(index);
          ++i;
          continue;
        }
      }
      out += c;
    }
    return out;
  }
  const char* source_ = nullptr;
  QStringList args_;
  QString verbatim_;
};

/// A rejected option or setting: the command line exits 2 with message().english(), the window
/// shows message().translated() inline and keeps its last good picture.
class OptionError : public std::runtime_error {
 public:
  explicit OptionError(Message message)
      : std::runtime_error(message.english().toStdString()), message_(std::move(message)) {}
  const Message& message() const { return message_; }

 private:
  Message message_;
};

}  // namespace attnlab::options
