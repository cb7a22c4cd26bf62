/// \file text.cpp
/// Measuring and drawing the pictures' text: emoji as colour images, vertical CJK labels.

#include "views/text.hpp"

#include <QFontDatabase>
#include <QFontMetricsF>
#include <QHash>
#include <QImage>
#include <QMutex>
#include <QPainter>
#include <QTextBoundaryFinder>
#include <algorithm>
#include <cmath>

namespace attnlab::views {
namespace {

/// Oversampling of emoji images: sharp when a PDF or SVG is zoomed 3×.
constexpr double kEmojiOversample = 3.0;

bool inRanges(char32_t c, std::initializer_list<std::pair<char32_t, char32_t>> ranges) {
  for (const auto& [lo, hi] : ranges)
    if (c >= lo && c <= hi) return true;
  return false;
}

/// Characters whose default presentation is emoji (Unicode Emoji_Presentation), as ranges.
bool emojiPresentation(char32_t c) {
  return inRanges(c, {{0x1F300, 0x1F5FF}, {0x1F600, 0x1F64F}, {0x1F680, 0x1F6FF},
                      {0x1F7E0, 0x1F7FF}, {0x1F900, 0x1F9FF}, {0x1FA70, 0x1FAFF},
                      {0x1F1E6, 0x1F1FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
                      {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F201, 0x1F201},
                      {0x1F21A, 0x1F21A}, {0x1F22F, 0x1F22F}, {0x1F232, 0x1F236},
                      {0x1F238, 0x1F23A}, {0x1F250, 0x1F251}, {0x231A, 0x231B},
                      {0x23E9, 0x23EC}, {0x23F0, 0x23F0}, {0x23F3, 0x23F3}, {0x25FD, 0x25FE},
                      {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F}, {0x2693, 0x2693},
                      {0x26A1, 0x26A1}, {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5},
                      {0x26CE, 0x26CE}, {0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3},
                      {0x26F5, 0x26F5}, {0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705},
                      {0x270A, 0x270B}, {0x2728, 0x2728}, {0x274C, 0x274C}, {0x274E, 0x274E},
                      {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797}, {0x27B0, 0x27B0},
                      {0x27BF, 0x27BF}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55}});
}

/// Upright in vertical text (UAX #50 "U"): CJK ideographs, kana, hangul, CJK symbols and
/// full-width forms.
bool uprightChar(char32_t c) {
  return inRanges(c, {{0x1100, 0x11FF}, {0x2E80, 0x2FDF}, {0x3000, 0x303F}, {0x3040, 0x30FF},
                      {0x3100, 0x312F}, {0x3130, 0x318F}, {0x3190, 0x31FF}, {0x3200, 0x33FF},
                      {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA960, 0xA97F}, {0xAC00, 0xD7AF},
                      {0xF900, 0xFAFF}, {0xFE30, 0xFE4F}, {0xFF00, 0xFFEF}, {0x20000, 0x3FFFF}});
}

bool emojiCluster(const QString& cluster) {
  bool emoji = false;
  for (char32_t c : cluster.toUcs4()) {
    if (c == 0xFE0E) return false;  // text presentation asked for
    if (c == 0xFE0F || c == 0x20E3 || emojiPresentation(c)) emoji = true;
  }
  return emoji;
}

QFont emojiFont(const QFont& like) {
  QFont font(emojiFamily());
  if (like.pixelSize() > 0) {
    font.setPixelSize(like.pixelSize());
  } else {
    font.setPointSizeF(like.pointSizeF());
  }
  return font;
}

/// Size of one emoji cluster drawn in a line of `font`: as tall as the font's line, its width
/// from the emoji font's proportions.
QSizeF emojiSize(const QString& cluster, const QFont& font) {
  const QFontMetricsF text(font);
  if (emojiFamily().isEmpty()) return {text.horizontalAdvance(cluster), text.height()};
  const QFontMetricsF emoji(emojiFont(font));
  const double ratio = emoji.height() > 0 ? emoji.horizontalAdvance(cluster) / emoji.height() : 1.0;
  return {text.height() * ratio, text.height()};
}

/// The cluster rendered from the emoji font, cached per (cluster, size in device pixels).
QImage emojiImage(const QString& cluster, const QSizeF& size) {
  static QMutex mutex;
  static QHash<QString, QImage> cache;
  const int w = std::max(1, static_cast<int>(std::ceil(size.width() * kEmojiOversample)));
  const int h = std::max(1, static_cast<int>(std::ceil(size.height() * kEmojiOversample)));
  const QString key = QStringLiteral("%1|%2|%3").arg(cluster).arg(w).arg(h);
  QMutexLocker lock(&mutex);
  if (auto it = cache.constFind(key); it != cache.constEnd()) return *it;
  QImage image(w, h, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QFont font(emojiFamily());
  font.setPixelSize(std::max(1, static_cast<int>(std::lround(h / 1.18))));
  {
    QPainter p(&image);
    p.setRenderHint(QPainter::TextAntialiasing);
    p.setFont(font);
    p.drawText(QRectF(0, 0, w, h), Qt::AlignCenter, cluster);
  }
  if (cache.size() > 2000) cache.clear();
  cache.insert(key, image);
  return image;
}

QStringList graphemes(const QString& text) {
  QStringList out;
  QTextBoundaryFinder finder(QTextBoundaryFinder::Grapheme, text);
  qsizetype start = 0;
  while (finder.toNextBoundary() >= 0) {
    const qsizetype end = finder.position();
    if (end > start) out << text.mid(start, end - start);
    start = end;
  }
  if (start < text.size()) out << text.mid(start);
  // Flags: Qt 6.4's finder splits a pair of regional indicators; pair them up (UAX #29 GB12/13).
  const auto regional = [](const QString& g) {
    const QList<uint> cps = g.toUcs4();
    return cps.size() == 1 && cps[0] >= 0x1F1E6 && cps[0] <= 0x1F1FF;
  };
  for (qsizetype i = 0; i + 1 < out.size(); ++i) {
    if (regional(out[i]) && regional(out[i + 1])) {
      out[i] += out[i + 1];
      out.removeAt(i + 1);
    }
  }
  return out;
}

double runWidth(const TextRun& run, const QFont& font) {
  return run.emoji ? emojiSize(run.text, font).width() : QFontMetricsF(font).horizontalAdvance(run.text);
}

double lineWidth(const QString& line, const QFont& font) {
  double width = 0;
  for (const TextRun& run : splitRuns(line)) width += runWidth(run, font);
  return width;
}

/// Extent of one vertical label: thickness (x) and length (y).
QSizeF verticalSize(const QString& text, const QFont& font) {
  const QFontMetricsF fm(font);
  double thickness = 0, length = 0;
  for (const TextRun& run : splitRuns(text)) {
    if (run.emoji) {
      const QSizeF s = emojiSize(run.text, font);
      thickness = std::max(thickness, s.width());
      length += s.height();
    } else if (run.upright) {
      for (const QString& g : graphemes(run.text)) {
        thickness = std::max(thickness, fm.horizontalAdvance(g));
        length += fm.height();
      }
    } else {
      thickness = std::max(thickness, fm.height());
      length += fm.horizontalAdvance(run.text);
    }
  }
  return {thickness, length};
}

}  // namespace

QString emojiFamily() {
  static const QString family = [] {
    const QString wanted = QStringLiteral("Noto Color Emoji");
    return QFontDatabase::families().contains(wanted) ? wanted : QString();
  }();
  return family;
}

std::vector<TextRun> splitRuns(const QString& text) {
  // Labels are drawn at every replot: remember the runs of recent texts.
  static QMutex mutex;
  static QHash<QString, std::vector<TextRun>> cache;
  {
    QMutexLocker lock(&mutex);
    if (auto it = cache.constFind(text); it != cache.constEnd()) return *it;
  }
  std::vector<TextRun> runs;
  for (const QString& g : graphemes(text)) {
    TextRun piece;
    piece.text = g;
    piece.emoji = !emojiFamily().isEmpty() && emojiCluster(g);
    piece.upright = piece.emoji || (!g.isEmpty() && uprightChar(g.toUcs4().front()));
    if (!piece.emoji && !runs.empty() && !runs.back().emoji && runs.back().upright == piece.upright) {
      runs.back().text += g;
    } else {
      runs.push_back(piece);
    }
  }
  QMutexLocker lock(&mutex);
  if (cache.size() > 20000) cache.clear();
  cache.insert(text, runs);
  return runs;
}

QSizeF measureText(const QString& text, const QFont& font, Orientation orientation) {
  if (orientation == Orientation::kVertical) return verticalSize(text, font);
  const QFontMetricsF fm(font);
  const QStringList lines = text.split(QLatin1Char('\n'));
  double width = 0;
  for (const QString& line : lines) width = std::max(width, lineWidth(line, font));
  const double height = fm.height() + (lines.size() - 1) * fm.lineSpacing();
  return {width, height};
}

void drawText(QPainter& painter, const DrawnText& t) {
  painter.save();
  painter.setFont(t.font);
  painter.setPen(t.color);
  painter.setRenderHint(QPainter::SmoothPixmapTransform);
  const QFontMetricsF fm(t.font);
  if (t.orientation == Orientation::kVertical) {
    const double cx = t.rect.center().x();
    double y = t.rect.top();
    for (const TextRun& run : splitRuns(t.text)) {
      if (run.emoji) {
        const QSizeF s = emojiSize(run.text, t.font);
        painter.drawImage(QRectF(cx - s.width() / 2, y, s.width(), s.height()),
                          emojiImage(run.text, s));
        y += s.height();
      } else if (run.upright) {
        for (const QString& g : graphemes(run.text)) {
          const double w = fm.horizontalAdvance(g);
          painter.drawText(QPointF(cx - w / 2, y + fm.ascent()), g);
          y += fm.height();
        }
      } else {
        // Turned 90° clockwise: the run reads downwards, the tops of its letters face right.
        painter.save();
        painter.translate(cx, y);
        painter.rotate(90);
        painter.drawText(QPointF(0, fm.ascent() - fm.height() / 2), run.text);
        painter.restore();
        y += fm.horizontalAdvance(run.text);
      }
    }
    painter.restore();
    return;
  }
  const QStringList lines = t.text.split(QLatin1Char('\n'));
  double y = t.rect.top();
  for (const QString& line : lines) {
    const double width = lineWidth(line, t.font);
    double x = t.rect.left();
    if (t.align & Qt::AlignRight) {
      x = t.rect.right() - width;
    } else if (t.align & Qt::AlignHCenter) {
      x = t.rect.center().x() - width / 2;
    }
    for (const TextRun& run : splitRuns(line)) {
      if (run.emoji) {
        const QSizeF s = emojiSize(run.text, t.font);
        painter.drawImage(QRectF(x, y, s.width(), s.height()), emojiImage(run.text, s));
        x += s.width();
      } else {
        painter.drawText(QPointF(x, y + fm.ascent()), run.text);
        x += fm.horizontalAdvance(run.text);
      }
    }
    y += fm.lineSpacing();
  }
  painter.restore();
}

QString wrapParts(const QStringList& parts, const QFont& font, double width_px, int max_lines) {
  const QString separator = QStringLiteral(" · ");
  QStringList lines;
  QString line;
  for (int i = 0; i < parts.size(); ++i) {
    const QString candidate = line.isEmpty() ? parts[i] : line + separator + parts[i];
    if (line.isEmpty() || lineWidth(candidate, font) <= width_px) {
      line = candidate;
      continue;
    }
    if (lines.size() + 1 == max_lines) {
      lines << line + QStringLiteral(" … +%1").arg(parts.size() - i);
      return lines.join(QLatin1Char('\n'));
    }
    lines << line;
    line = parts[i];
  }
  if (!line.isEmpty()) lines << line;
  return lines.join(QLatin1Char('\n'));
}

QString wrapWords(const QString& text, const QFont& font, double width_px) {
  const QFontMetricsF fm(font);
  QStringList lines;
  for (const QString& paragraph : text.split(QLatin1Char('\n'))) {
    const bool spaced = paragraph.contains(QLatin1Char(' '));
    const QStringList words = spaced ? paragraph.split(QLatin1Char(' ')) : QStringList();
    QString line;
    auto add = [&](const QString& piece, const QString& joiner) {
      const QString candidate = line.isEmpty() ? piece : line + joiner + piece;
      if (!line.isEmpty() && fm.horizontalAdvance(candidate) > width_px) {
        lines << line;
        line = piece;
      } else {
        line = candidate;
      }
    };
    if (spaced) {
      for (const QString& word : words) add(word, QStringLiteral(" "));
    } else {
      for (const QChar c : paragraph) add(QString(c), QString());
    }
    lines << line;
  }
  return lines.join(QLatin1Char('\n'));
}

QString elideText(const QString& text, const QFont& font, double width_px) {
  if (lineWidth(text, font) <= width_px) return text;
  QStringList clusters = graphemes(text);
  const QString ellipsis = QStringLiteral("…");
  while (!clusters.isEmpty()) {
    clusters.removeLast();
    const QString candidate = clusters.join(QString()) + ellipsis;
    if (lineWidth(candidate, font) <= width_px) return candidate;
  }
  return ellipsis;
}

QString emojiHtml(const QString& text) {
  QString html;
  for (const TextRun& run : splitRuns(text)) {
    if (run.emoji) {
      html += QStringLiteral("<span style=\"font-family:'%1'\">%2</span>")
                  .arg(emojiFamily(), run.text.toHtmlEscaped());
    } else {
      html += run.text.toHtmlEscaped();
    }
  }
  return html;
}

bool overlaps(const QRectF& a, const QRectF& b) {
  const QRectF i = a.intersected(b);
  return i.width() > 0.5 && i.height() > 0.5;
}

}  // namespace attnlab::views
