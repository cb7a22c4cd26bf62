#pragma once
/// \file emoji_highlighter.hpp
/// Colour emoji in the window's text fields: the application font (DejaVu Sans) has monochrome
/// glyphs for some emoji (😀) and none for others (👨‍👩‍👧), so Qt would mix monochrome glyphs,
/// colour ones and boxes. This highlighter gives every emoji cluster the colour emoji family,
/// as the pictures do (views/text.hpp).

#include <QSyntaxHighlighter>

namespace attnlab::gui {

/// Sets the emoji family on the emoji clusters of a document.
class EmojiHighlighter : public QSyntaxHighlighter {
 public:
  explicit EmojiHighlighter(QTextDocument* document);

 protected:
  void highlightBlock(const QString& text) override;
};

}  // namespace attnlab::gui
