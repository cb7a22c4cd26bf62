#pragma once
/// \file text.hpp
/// Text in the pictures, measured and drawn by the views themselves so that what the layout
/// reserves is exactly what is drawn (and what --layout-json reports):
/// - emoji are drawn from Noto Color Emoji as images, so they are in colour everywhere — on
///   screen, in PNG, and in SVG and PDF, whose writers drop colour (bitmap) glyphs;
/// - vertical labels (the keys of a narrow map) run top to bottom the way CJK vertical text
///   does (Unicode UAX #50): CJK characters, kana, hangul and emoji stay upright, one under the
///   other; other runs (Latin, digits) are turned 90° clockwise.

#include <QColor>
#include <QFont>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <vector>

class QPainter;

namespace attnlab::views {

/// How a text runs.
enum class Orientation {
  kHorizontal,  ///< Left to right; lines separated by '\n'.
  kVertical,    ///< Top to bottom, upright CJK and emoji (see the file comment); one line.
};

/// One piece of text in a picture: what, where (pixels of the plot, y down), in which font.
struct DrawnText {
  QString role;        ///< "title", "panel_title", "query_label", "key_label", "axis_title",
                       ///< "bar_tick", "bar_title", "bar_mark", "note", "row_header",
                       ///< "column_header", "token_list", "cell_value".
  QString text;
  QFont font;
  QRectF rect;         ///< The box the text fills (its measured extent), px.
  Orientation orientation = Orientation::kHorizontal;
  Qt::Alignment align = Qt::AlignCenter;  ///< Of each line within rect (horizontal text).
  QColor color = Qt::black;
  int panel = -1;      ///< The heatmap (panel) it labels, or −1.
  int index = -1;      ///< The token (or block) a tick label names, or −1.
};

/// One grapheme run of a text: emoji clusters and everything else.
struct TextRun {
  QString text;
  bool emoji = false;    ///< An emoji cluster (drawn from the colour emoji font).
  bool upright = false;  ///< Kept upright in vertical text (CJK, kana, hangul, emoji).
};

/// Splits text into runs: each emoji cluster (Emoji_Presentation characters, U+FE0F sequences,
/// ZWJ sequences, flags, keycaps, skin tones) is a run of its own; other grapheme clusters are
/// grouped while their `upright` flag stays the same.
std::vector<TextRun> splitRuns(const QString& text);

/// The family used for emoji ("Noto Color Emoji" when installed; empty otherwise, then emoji
/// are drawn with the text's own font).
QString emojiFamily();

/// The size text takes in font (emoji runs measured in the emoji font at the same size).
QSizeF measureText(const QString& text, const QFont& font,
                   Orientation orientation = Orientation::kHorizontal);

/// Draws text into its rect (see DrawnText).
void drawText(QPainter& painter, const DrawnText& text);

/// Wraps parts joined by " · " onto lines no wider than width_px (a part wider than a line gets
/// a line of its own). At most max_lines lines; what does not fit ends as " … +k more".
QString wrapParts(const QStringList& parts, const QFont& font, double width_px,
                  int max_lines = 1000);

/// Greedy word wrap of text to lines no wider than width_px: at spaces, or between characters in
/// text without spaces (Chinese); explicit line breaks are kept.
QString wrapWords(const QString& text, const QFont& font, double width_px);

/// Text elided at the end to width_px, never splitting a grapheme cluster.
QString elideText(const QString& text, const QFont& font, double width_px);

/// HTML for a widget (tooltip, label) that shows text with colour emoji: emoji runs in a span with
/// the emoji family, the rest escaped.
QString emojiHtml(const QString& text);

/// True when two rectangles overlap by more than a hairline (0.5 px on each axis).
bool overlaps(const QRectF& a, const QRectF& b);

}  // namespace attnlab::views
