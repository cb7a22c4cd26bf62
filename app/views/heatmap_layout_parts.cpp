/// \file heatmap_layout_parts.cpp
/// The parts of the heatmap layouts (heatmap_layout_parts.hpp): measured labels and their
/// gutters, the best cell, the colour bar, the title and the notes.

#include "views/heatmap_layout_parts.hpp"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>

#include "views/picture.hpp"

namespace attnlab::views::detail {

Labels::Labels(const QStringList& texts, const QFont& f) : font(f) {
  height = QFontMetricsF(f).height();
  for (const QString& t : texts) {
    width.push_back(measureText(t, f).width());
    vertical.push_back(measureText(t, f, Orientation::kVertical));
    widest = std::max(widest, width.back());
    thickest = std::max(thickest, vertical.back().width());
  }
}

double Labels::prefix(int token) const {
  return QFontMetricsF(font).horizontalAdvance(QStringLiteral("#%1 ").arg(token));
}

int stepFor(double extent, double cell) {
  constexpr double kNever = 1 << 30;  // no label fits: a step past any token count
  if (cell <= 0) return static_cast<int>(kNever);
  // A cell of a pixel's fraction (a canvas not laid out yet) gives a quotient past int's range.
  return std::max(1, static_cast<int>(std::min(kNever, std::ceil((extent + kLabelSpacing) / cell - 1e-9))));
}

Gutters gutters(const Labels& q, const Labels& k, int n_q, int n_k, int block, double cell,
                bool stagger) {
  Gutters g;
  const int rows = ceilDiv(n_q, block), columns = ceilDiv(n_k, block);
  // The widest of the labels in lane `lane` (0: every label) of `count` cells, every step-th.
  const auto widest = [block](const std::vector<double>& sizes, int count, int step, int lanes, int lane) {
    double w = 0;
    for (int i = lane; i < count; i += step * lanes) w = std::max(w, sizes[static_cast<std::size_t>(i * block)]);
    return w;
  };
  g.query_step = stepFor(q.height, cell);
  if (stagger && block == 1 && g.query_step > 1 && stepFor(q.height - kLabelSpacing + kLaneSpacing, 2 * cell) == 1) {
    g.query_step = 1;
    g.query_lane = widest(q.width, rows, 1, 2, 0) + kLaneGap;
    g.left = g.query_lane + widest(q.width, rows, 1, 2, 1);
  } else {
    const bool q_prefixed = block > 1 || g.query_step > 1;
    for (int i = 0; i < rows; i += g.query_step) {
      const int token = i * block;
      g.left = std::max(g.left, q.width[static_cast<std::size_t>(token)] + (q_prefixed ? q.prefix(token) : 0));
    }
  }
  g.query_overhang = std::max(0.0, (q.height - cell) / 2);
  if (block == 1 && k.widest + kLabelSpacing + 1 <= cell) {
    g.keys = Orientation::kHorizontal;
    g.key_step = 1;
    g.top = k.height + g.query_overhang;
    return g;
  }
  if (stagger && block == 1 && k.widest + kLaneSpacing <= 2 * cell) {
    // Two rows of upright labels (CJK characters, short words), alternate columns.
    g.keys = Orientation::kHorizontal;
    g.key_step = 1;
    g.key_lane = k.height + kLaneGap / 2;
    g.top = g.key_lane + k.height + g.query_overhang;
    g.key_overhang = std::max(0.0, (k.widest - cell) / 2);
    g.left += g.key_overhang;
    return g;
  }
  g.keys = Orientation::kVertical;
  g.key_step = stepFor(std::max(k.thickest, k.height), cell);
  std::vector<double> lengths;
  for (const QSizeF& v : k.vertical) lengths.push_back(v.height());
  if (stagger && block == 1 && g.key_step > 1 && stepFor(std::max(k.thickest, k.height) - kLabelSpacing + kLaneSpacing, 2 * cell) == 1) {
    g.key_step = 1;
    g.key_lane = widest(lengths, columns, 1, 2, 0) + kLaneGap;
    g.top = g.key_lane + widest(lengths, columns, 1, 2, 1);
  } else {
    const bool k_prefixed = block > 1 || g.key_step > 1;
    for (int j = 0; j < columns; j += g.key_step) {
      const int token = j * block;
      g.top = std::max(g.top, lengths[static_cast<std::size_t>(token)] + (k_prefixed ? k.prefix(token) : 0));
    }
  }
  const bool k_prefixed = block > 1 || g.key_step > 1;
  const double thickness = k_prefixed ? std::max(k.thickest, k.height) : k.thickest;
  g.key_overhang = std::max(0.0, (thickness - cell) / 2);
  g.left += g.key_overhang;
  g.top += g.query_overhang;
  return g;
}

bool fits(const Labels& q, const Labels& k, int n_q, int n_k, int block, double cell,
          double body_w, double body_h, const Fixed& f, Gutters* out) {
  const Gutters g = gutters(q, k, n_q, n_k, block, cell, f.stagger);
  const double w = f.axis_left + g.left + f.label_gap +
                   f.columns * std::max(ceilDiv(n_k, block) * cell, f.columns > 1 ? f.title_w : 0.0) +
                   (f.columns - 1) * kPanelGapX;
  const double h = f.axis_top + g.top + f.label_gap +
                   f.rows * (f.header + ceilDiv(n_q, block) * cell) + (f.rows - 1) * kPanelGapY;
  if (out) *out = g;
  return w <= body_w + 1e-6 && h <= body_h + 1e-6;
}

double bestCell(const Labels& q, const Labels& k, int n_q, int n_k, int block, double body_w,
                double body_h, const Fixed& f, Gutters* out) {
  const int rows = ceilDiv(n_q, block), columns = ceilDiv(n_k, block);
  double hi = std::min({(body_w - f.axis_left - (f.columns - 1) * kPanelGapX) / (f.columns * columns),
                        (body_h - f.axis_top - f.rows * f.header - (f.rows - 1) * kPanelGapY) / (f.rows * rows),
                        kMaxCellPx});
  if (hi <= 0) return 0;
  double lo = 0;
  if (fits(q, k, n_q, n_k, block, hi, body_w, body_h, f, nullptr)) {
    lo = hi;
  } else {
    for (int it = 0; it < 40; ++it) {
      const double mid = 0.5 * (lo + hi);
      if (fits(q, k, n_q, n_k, block, mid, body_w, body_h, f, nullptr)) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
  }
  // Whole pixels keep every cell the same size on screen and in PNG.
  if (lo >= 2) {
    double whole = std::floor(lo + 1e-9);
    while (whole >= 2 && !fits(q, k, n_q, n_k, block, whole, body_w, body_h, f, nullptr)) whole -= 1;
    lo = std::max(whole, 1.0);
  }
  if (lo > 0) fits(q, k, n_q, n_k, block, lo, body_w, body_h, f, out);
  return lo;
}

/// The colour bar's mark and tick labels at rectAt(position, text), the mark first, then the
/// ends, then the inner ticks, each kept only where it does not touch one kept before (`pad`
/// widens the test: a label's rows above and below, or its sides); the kept ticks added to the
/// layout in order. Returns the widest label kept (px).
template <class RectAt>
double placeBarLabels(HeatmapLayout& layout, const BarLabels& labels, const LayoutFonts& fonts,
                      RectAt rectAt, QMarginsF pad) {
  std::vector<QRectF> kept;
  double widest = 0;
  auto free = [&kept, pad](const QRectF& r) {
    for (const QRectF& k : kept)
      if ((r + pad).intersects(k)) return false;
    return true;
  };
  if (labels.mark) {
    const QRectF r = rectAt(labels.mark->position, labels.mark->text);
    kept.push_back(r);
    widest = std::max(widest, r.width());
    layout.bar_mark = labels.mark->position;
    layout.texts.push_back({QStringLiteral("bar_mark"), labels.mark->text, fonts.note, r,
                            Orientation::kHorizontal, Qt::AlignLeft, QColor(0xc0, 0x00, 0x40)});
  }
  std::vector<std::size_t> order;
  if (!labels.ticks.empty()) {
    order.push_back(0);
    if (labels.ticks.size() > 1) order.push_back(labels.ticks.size() - 1);
    for (std::size_t i = 1; i + 1 < labels.ticks.size(); ++i) order.push_back(i);
  }
  std::vector<std::pair<std::size_t, QRectF>> chosen;
  for (std::size_t i : order) {
    const QRectF r = rectAt(labels.ticks[i].position, labels.ticks[i].text);
    if (!free(r)) continue;
    kept.push_back(r);
    chosen.emplace_back(i, r);
  }
  std::sort(chosen.begin(), chosen.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [i, r] : chosen) {
    widest = std::max(widest, r.width());
    layout.bar_ticks.push_back(labels.ticks[i].position);
    DrawnText t{QStringLiteral("bar_tick"), labels.ticks[i].text, fonts.note, r};
    t.align = Qt::AlignLeft;
    t.index = static_cast<int>(i);
    layout.texts.push_back(t);
  }
  return widest;
}

void placeBar(HeatmapLayout& layout, const QRectF& bar, const BarLabels& labels,
              const LayoutFonts& fonts) {
  layout.bar = bar;
  const QFontMetricsF fm(fonts.note);
  const double x = bar.right() + kTickLength + 3;
  auto rectAt = [&](double position, const QString& text) {
    const QSizeF size = measureText(text, fonts.note);
    const double y = bar.bottom() - position * bar.height() - size.height() / 2;
    return QRectF(x, y, size.width(), size.height());
  };
  const double widest = placeBarLabels(layout, labels, fonts, rectAt, QMarginsF(0, 1, 0, 1));
  if (!labels.title.isEmpty()) {
    // As long as the bar at most: a smaller font, then elided.
    QFont font = fonts.bar_title;
    while (font.pointSizeF() > 7 && measureText(labels.title, font, Orientation::kVertical).height() > bar.height())
      font.setPointSizeF(font.pointSizeF() - 0.5);
    QString title = labels.title;
    while (title.size() > 1 && measureText(title, font, Orientation::kVertical).height() > bar.height())
      title = title.left(title.size() - 2) + QStringLiteral("…");
    const QSizeF size = measureText(title, font, Orientation::kVertical);
    const double tx = x + widest + 6;
    DrawnText t{QStringLiteral("bar_title"), title, font,
                QRectF(tx, bar.center().y() - size.height() / 2, size.width(), size.height()),
                Orientation::kVertical};
    layout.texts.push_back(t);
  }
}

double barWidth(const BarLabels& labels, const LayoutFonts& fonts) {
  double widest = 0;
  for (const BarTick& t : labels.ticks) widest = std::max(widest, measureText(t.text, fonts.note).width());
  if (labels.mark) widest = std::max(widest, measureText(labels.mark->text, fonts.note).width());
  const double title = labels.title.isEmpty()
                           ? 0
                           : measureText(labels.title, fonts.bar_title, Orientation::kVertical).width() + 6;
  return kBarWidth + kTickLength + 3 + widest + title;
}

double barAcrossHeight(const BarLabels& labels, const LayoutFonts& fonts) {
  const double title = labels.title.isEmpty() ? 0 : QFontMetricsF(fonts.bar_title).height() + 2;
  return title + kBarWidth + kTickLength + 1 + QFontMetricsF(fonts.note).height();
}

double placeBarAcross(HeatmapLayout& layout, const QPointF& at, double width, const BarLabels& labels,
                      const LayoutFonts& fonts) {
  double y = at.y();
  if (!labels.title.isEmpty()) {
    const QString title = elideText(labels.title, fonts.bar_title, width);
    const QSizeF size = measureText(title, fonts.bar_title);
    DrawnText t{QStringLiteral("bar_title"), title, fonts.bar_title, QRectF(at.x(), y, size.width(), size.height())};
    t.align = Qt::AlignLeft;
    layout.texts.push_back(t);
    y += QFontMetricsF(fonts.bar_title).height() + 2;
  }
  const QRectF bar(at.x(), y, width, kBarWidth);
  layout.bar = bar;
  layout.bar_across = true;
  const double label_y = bar.bottom() + kTickLength + 1;
  auto rectAt = [&](double position, const QString& text) {
    const QSizeF size = measureText(text, fonts.note);
    return QRectF(bar.left() + position * bar.width() - size.width() / 2, label_y, size.width(), size.height());
  };
  placeBarLabels(layout, labels, fonts, rectAt, QMarginsF(3, 0, 3, 0));
  return barAcrossHeight(labels, fonts);
}

QFont fittingFont(const QStringList& parts, QFont font, double width_px) {
  const auto widest = [&parts](const QFont& f) {
    double w = 0;
    for (const QString& part : parts) w = std::max(w, measureText(part, f).width());
    return w;
  };
  while (font.pointSizeF() > 8 && widest(font) > width_px) font.setPointSizeF(font.pointSizeF() - 0.5);
  return font;
}

double placeTitle(HeatmapLayout& layout, const QStringList& parts, const QFont& title_font) {
  if (parts.isEmpty()) return 0;
  const double width = layout.canvas.width() - 2 * kMargin;
  const QFont font = fittingFont(parts, title_font, width);
  QString text = wrapParts(parts, font, width);
  QStringList lines = text.split(QLatin1Char('\n'));
  for (QString& line : lines) line = elideText(line, font, width);
  text = lines.join(QLatin1Char('\n'));
  const QSizeF size = measureText(text, font);
  DrawnText t{QStringLiteral("title"), text, font,
              QRectF((layout.canvas.width() - size.width()) / 2, kMargin, size.width(), size.height())};
  layout.texts.push_back(t);
  return size.height() + 8;
}

QStringList wrappedNotes(const QStringList& notes, const QFont& font, double width) {
  QStringList out;
  for (const QString& note : notes) {
    QStringList lines = wrapParts(note.split(QStringLiteral(" · ")), font, width).split(QLatin1Char('\n'));
    for (QString& line : lines) line = elideText(line, font, width);
    out << lines.join(QLatin1Char('\n'));
  }
  return out;
}

double notesHeight(const QStringList& wrapped, const QFont& font) {
  double h = 0;
  for (const QString& note : wrapped) h += measureText(note, font).height() + 2;
  return h > 0 ? h + 6 : 0;
}

double placeNotes(HeatmapLayout& layout, const QStringList& wrapped, const QFont& font, double left,
                  double top, const QString& role, const QColor& color) {
  double widest = 0;
  for (const QString& note : wrapped) widest = std::max(widest, measureText(note, font).width());
  left = std::max(kMargin, std::min(left, layout.canvas.width() - kMargin - widest));
  double y = top;
  for (const QString& note : wrapped) {
    const QSizeF size = measureText(note, font);
    DrawnText t{role, note, font, QRectF(left, y, size.width(), size.height())};
    t.align = Qt::AlignLeft;
    t.color = color;
    layout.texts.push_back(t);
    y += size.height() + 2;
  }
  return y;
}

/// The token labels of a model view: the queries left of every thumbnail of the first column,
/// the keys above every thumbnail of the first row (vertical text with keys_vertical), every
/// k-th token where they would overlap and none reaching into a neighbour's half of the gap;
/// q_offset and k_offset px further out (clear of a K/V group's box). Maps are in (layer, head)
/// order. True when every token is labelled.
bool placeThumbLabels(HeatmapLayout& layout, const Labels& q, const Labels& k, const QStringList& q_text,
                      const QStringList& k_text, bool keys_vertical, int rows, int columns,
                      bool transposed, int n_heads, double gap, double q_offset, double k_offset) {
  const auto mapAt = [&](int r, int c) -> const MapGeometry& {
    const int layer = transposed ? c : r, head = transposed ? r : c;
    return layout.maps[static_cast<std::size_t>(layer * n_heads + head)];
  };
  std::vector<DrawnText> texts;
  const double cell = layout.maps.front().cell;
  const int q_step = stepFor(q.height, cell);
  const int k_step = stepFor(keys_vertical ? k.thickest : k.widest, cell);
  for (int r = 0; r < rows; ++r) {
    const MapGeometry& m = mapAt(r, 0);
    for (int i = 0; i < m.n_q; i += q_step) {
      const double w = q.width[static_cast<std::size_t>(i)];
      const QRectF rect(m.cells.left() - q_offset - kLabelGap - w, m.cells.top() + (i + 0.5) * cell - q.height / 2, w, q.height);
      if (rect.top() < m.cells.top() - gap / 2 || rect.bottom() > m.cells.bottom() + gap / 2) continue;
      DrawnText t{QStringLiteral("query_label"), q_text[i], q.font, rect};
      t.align = Qt::AlignRight;
      t.panel = static_cast<int>(&m - layout.maps.data());
      t.index = i;
      texts.push_back(t);
    }
  }
  for (int c = 0; c < columns; ++c) {
    const MapGeometry& m = mapAt(0, c);
    for (int j = 0; j < m.n_k; j += k_step) {
      const double cx = m.cells.left() + (j + 0.5) * cell;
      const QSizeF size = keys_vertical ? k.vertical[static_cast<std::size_t>(j)]
                                        : QSizeF(k.width[static_cast<std::size_t>(j)], k.height);
      const QRectF rect(cx - size.width() / 2, m.cells.top() - k_offset - kLabelGap - size.height(), size.width(),
                        size.height());
      if (rect.left() < m.cells.left() - gap / 2 || rect.right() > m.cells.right() + gap / 2) continue;
      DrawnText t{QStringLiteral("key_label"), k_text[j], k.font, rect,
                  keys_vertical ? Orientation::kVertical : Orientation::kHorizontal};
      t.panel = static_cast<int>(&m - layout.maps.data());
      t.index = j;
      texts.push_back(t);
    }
  }
  layout.query_step = q_step;
  layout.key_step = k_step;
  layout.texts.insert(layout.texts.end(), texts.begin(), texts.end());
  return q_step == 1 && k_step == 1;
}

}  // namespace attnlab::views::detail
