/// \file emoji_highlighter.cpp

#include "emoji_highlighter.hpp"

#include <QTextCharFormat>

#include "views/text.hpp"

namespace attnlab::gui {

EmojiHighlighter::EmojiHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {}

void EmojiHighlighter::highlightBlock(const QString& text) {
  if (views::emojiFamily().isEmpty()) return;
  QTextCharFormat emoji;
  emoji.setFontFamilies({views::emojiFamily()});
  int position = 0;
  for (const views::TextRun& run : views::splitRuns(text)) {
    if (run.emoji) setFormat(position, static_cast<int>(run.text.size()), emoji);
    position += static_cast<int>(run.text.size());
  }
}

}  // namespace attnlab::gui
