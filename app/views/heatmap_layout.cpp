/// \file heatmap_layout.cpp
/// Geometry of the heatmap pictures (see heatmap_layout.hpp): a grid of heads (layoutGrid) and the
/// model view's layers × heads (layoutModelGrid), from the parts in heatmap_layout_parts.cpp.

#include "views/heatmap_layout.hpp"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>

#include "views/heatmap_layout_parts.hpp"
#include "views/picture.hpp"

namespace attnlab::views {
using namespace detail;  // the layouts' parts (heatmap_layout_parts.hpp)

QString tickText(const QStringList& labels, int index, int block, int step) {
  const int token = index * block;
  const QString& label = labels.at(token);
  if (block == 1 && step == 1) return label;
  return QStringLiteral("#%1 %2").arg(token).arg(label);
}

HeatmapLayout layoutGrid(const GridRequest& req) {
  HeatmapLayout layout;
  layout.canvas = req.canvas;
  const int panels = std::max<int>(1, static_cast<int>(req.panel_titles.size()));
  const LayoutFonts& fonts = req.fonts;
  const double title_h = placeTitle(layout, req.title_parts, fonts.title);
  const double body_w_total = req.canvas.width() - 2 * kMargin;
  const QStringList predictions = wrappedNotes(nonEmpty(req.next_tokens), fonts.next_tokens, body_w_total);
  const QStringList notes = wrappedNotes(req.notes, fonts.note, body_w_total);
  const double notes_h = notesHeight(predictions, fonts.next_tokens) + notesHeight(notes, fonts.note);
  const double bar_w = barWidth(req.bar, fonts) + kBarGap;
  const QRectF body(kMargin, kMargin + title_h, std::max(1.0, body_w_total - bar_w),
                    std::max(1.0, req.canvas.height() - 2 * kMargin - title_h - notes_h));

  Fixed fixed;
  const bool any_title = std::any_of(req.panel_titles.begin(), req.panel_titles.end(),
                                     [](const QString& t) { return !t.isEmpty(); });
  const bool grouped = !req.panel_groups.empty();
  if (any_title) fixed.header = QFontMetricsF(fonts.panel_title).height() + 3 + (grouped ? kGroupFramePx + 1 : 0);
  if (grouped) fixed.label_gap = kLabelGap + kGroupFramePx + 1;
  for (const QString& t : req.panel_titles) fixed.title_w = std::max(fixed.title_w, measureText(t, fonts.panel_title).width());
  QSizeF key_axis, query_axis;
  if (!req.key_axis.isEmpty()) {
    key_axis = measureText(req.key_axis, fonts.axis_title);
    query_axis = measureText(req.query_axis, fonts.axis_title, Orientation::kVertical);
    fixed.axis_top = key_axis.height() + kTitleGap;
    fixed.axis_left = query_axis.width() + kTitleGap;
  }

  // The tick font: the largest size (down to min_tick_points) that labels every token, else the
  // request's size with thinned labels.
  // body_h: the height the grid may take; min_cell > 0: the most columns whose cells keep that
  // size (the height unbounded), instead of the largest cells.
  auto arrange = [&](const QFont& tick, bool stagger, double body_h, double min_cell) {
    const Labels q(req.query_labels, tick), k(req.key_labels, tick);
    Candidate best;
    for (int columns = 1; columns <= panels; ++columns) {
      Candidate c;
      c.columns = columns;
      c.rows = ceilDiv(panels, columns);
      if (columns > 1 && ceilDiv(panels, columns - 1) == c.rows) continue;  // same rows, fewer columns
      Fixed f = fixed;
      f.stagger = stagger;
      f.columns = c.columns;
      f.rows = c.rows;
      // Every token its cell while a token gets kMinCellPx; else (or from req.block on) blocks
      // of at least kOverviewCellPx, growing until they fit.
      c.block = std::max(1, req.block);
      c.cell = bestCell(q, k, req.n_q, req.n_k, c.block, body.width(), body_h, f, &c.g);
      const int n = std::max(req.n_q, req.n_k);
      for (int tries = 0; tries < 64 && c.block < n; ++tries) {
        if (c.block == 1 ? c.cell >= kMinCellPx : c.cell >= kOverviewCellPx) break;
        const double per_token = std::max(c.cell, 1e-3) / c.block;
        // Never past one block for the whole map (a canvas too small for any cell keeps that).
        const double wanted = std::min<double>(n, std::ceil(kOverviewCellPx / per_token));
        c.block = std::min(n, std::max(c.block + 1, std::max(2, static_cast<int>(wanted))));
        c.cell = bestCell(q, k, req.n_q, req.n_k, c.block, body.width(), body_h, f, &c.g);
      }
      if (min_cell > 0) {
        if (columns == 1 || (c.block == 1 && c.cell >= min_cell)) best = c;
      } else if (columns == 1 || c.perToken() > best.perToken() * 1.02) {
        best = c;  // ties: fewer columns
      }
    }
    return std::pair<Candidate, QFont>(best, tick);
  };
  // Every token labelled first: the request's font, then smaller ones down to min_tick_points,
  // then the same sizes with the labels staggered in two lanes; only then thinned labels (with
  // the font that gives the largest cells).
  const auto choose = [&](double body_h, double min_cell) {
    auto [best, tick] = arrange(fonts.tick, false, body_h, min_cell);
    const auto everyToken = [](const Candidate& c) { return c.block == 1 && c.g.query_step == 1 && c.g.key_step == 1; };
    if (std::max(req.n_q, req.n_k) <= 200 && !everyToken(best)) {
      Candidate widest = best;
      QFont widest_font = tick;
      bool all = false;
      for (bool stagger : {false, true}) {
        for (double pt = fonts.tick.pointSizeF() - (stagger ? 0 : 0.5); pt >= fonts.min_tick_points - 1e-9 && !all; pt -= 0.5) {
          QFont smaller = fonts.tick;
          smaller.setPointSizeF(pt);
          auto [c, f] = arrange(smaller, stagger, body_h, min_cell);
          if (everyToken(c)) {
            best = c;
            tick = f;
            all = true;
          } else if (c.perToken() > widest.perToken() * 1.02) {
            widest = c;
            widest_font = f;
          }
        }
      }
      if (!all) {
        best = widest;
        tick = widest_font;
      }
    }
    return std::pair<Candidate, QFont>(best, tick);
  };
  auto [best, tick] = choose(body.height(), 0);
  // A window's scrolling panel: cells of min_cell by the width alone (fewer columns, the grid
  // growing downward), where the height would make them smaller and the width allows it in two
  // columns at least (one column of many heads would show one head at a time).
  bool grown = false;
  if (req.min_cell > 0 && best.cell < req.min_cell) {
    auto [taller, taller_tick] = choose(1e6, req.min_cell);
    if (taller.block == 1 && taller.cell >= req.min_cell && taller.columns >= std::min(2, panels)) {
      best = taller;
      tick = taller_tick;
      grown = true;
    }
  }
  const Labels q(req.query_labels, tick), k(req.key_labels, tick);
  const Candidate& c = best;
  layout.columns = c.columns;
  layout.rows = c.rows;
  layout.query_step = c.g.query_step;
  layout.key_step = c.g.key_step;
  layout.key_orientation = c.g.keys;
  const int cell_rows = ceilDiv(req.n_q, c.block), cell_columns = ceilDiv(req.n_k, c.block);
  const double label_gap = fixed.label_gap;
  const double left = fixed.axis_left + c.g.left + label_gap;
  const double top = fixed.axis_top + c.g.top + label_gap;
  const double map_w = cell_columns * c.cell, map_h = cell_rows * c.cell;
  // A map's column is as wide as its title: titles wider than their map never meet.
  // One column too, as far as the body allows: a title wider than its map keeps off the colour
  // bar right of the column.
  const double column_w =
      c.columns > 1 ? std::max(map_w, fixed.title_w) : std::max(map_w, std::min(fixed.title_w, body.width() - left));
  const double grid_w = left + c.columns * column_w + (c.columns - 1) * kPanelGapX;
  const double grid_h = top + c.rows * (fixed.header + map_h) + (c.rows - 1) * kPanelGapY;
  const double x0 = snap(body.left() + std::max(0.0, (body.width() - grid_w) / 2));
  const double y0 = snap(body.top() + std::max(0.0, (body.height() - grid_h) / 2));
  const bool q_prefixed = c.block > 1 || c.g.query_step > 1;
  const bool k_prefixed = c.block > 1 || c.g.key_step > 1;

  for (int p = 0; p < panels; ++p) {
    const int column = p % c.columns, row = p / c.columns;
    MapGeometry map;
    map.cell = c.cell;
    map.rows = cell_rows;
    map.columns = cell_columns;
    map.block = c.block;
    map.n_q = req.n_q;
    map.n_k = req.n_k;
    if (grouped) map.group = req.panel_groups.at(static_cast<std::size_t>(p));
    // Row 0: title, key labels, map; later rows: title, map.
    const double map_top = y0 + fixed.header + top + row * (map_h + kPanelGapY + fixed.header);
    map.cells = QRectF(snap(x0 + left + column * (column_w + kPanelGapX)), snap(map_top), map_w, map_h);
    const QRectF& cells = map.cells;
    layout.maps.push_back(map);

    const QString& panel_title = req.panel_titles.empty() ? QString() : req.panel_titles[static_cast<std::size_t>(p)];
    if (!panel_title.isEmpty()) {
      const QSizeF size = measureText(panel_title, fonts.panel_title);
      const double y = row == 0 ? y0 : cells.top() - fixed.header;
      // Centred over its map, or from the map's left edge when wider than the map.
      const double x = std::max(cells.left(), cells.center().x() - size.width() / 2);
      DrawnText t{QStringLiteral("panel_title"), panel_title, fonts.panel_title,
                  QRectF(x, y, size.width(), size.height())};
      t.panel = p;
      layout.texts.push_back(t);
    }
    if (column == 0) {
      for (int i = 0; i < cell_rows; i += c.g.query_step) {
        const int token = i * c.block;
        const QString text = tickText(req.query_labels, i, c.block, c.g.query_step);
        const double w = q.width[static_cast<std::size_t>(token)] + (q_prefixed ? q.prefix(token) : 0);
        const double lane = i % 2 == 1 ? c.g.query_lane : 0;  // staggered: odd rows further left
        DrawnText t{QStringLiteral("query_label"), text, tick,
                    QRectF(cells.left() - label_gap - c.g.key_overhang - lane - w,
                           cells.top() + (i + 0.5) * c.cell - q.height / 2, w, q.height)};
        t.align = Qt::AlignRight;
        t.panel = p;
        t.index = token;
        layout.texts.push_back(t);
      }
    }
    if (row == 0) {
      for (int j = 0; j < cell_columns; j += c.g.key_step) {
        const int token = j * c.block;
        const QString text = tickText(req.key_labels, j, c.block, c.g.key_step);
        const double cx = cells.left() + (j + 0.5) * c.cell;
        const double lane = j % 2 == 1 ? c.g.key_lane : 0;  // staggered: odd columns further up
        QRectF rect;
        if (c.g.keys == Orientation::kHorizontal) {
          const double w = k.width[static_cast<std::size_t>(token)];
          rect = QRectF(cx - w / 2, cells.top() - label_gap - c.g.query_overhang - lane - k.height, w, k.height);
        } else {
          const QSizeF v = k.vertical[static_cast<std::size_t>(token)];
          const double thickness = k_prefixed ? std::max(v.width(), k.height) : v.width();
          const double length = v.height() + (k_prefixed ? k.prefix(token) : 0);
          rect = QRectF(cx - thickness / 2, cells.top() - label_gap - c.g.query_overhang - lane - length,
                        thickness, length);
        }
        DrawnText t{QStringLiteral("key_label"), text, tick, rect, c.g.keys};
        t.panel = p;
        t.index = token;
        layout.texts.push_back(t);
      }
    }
    if (!req.key_axis.isEmpty()) {
      DrawnText kt{QStringLiteral("axis_title"), req.key_axis, fonts.axis_title,
                   QRectF(cells.center().x() - key_axis.width() / 2,
                          cells.top() - label_gap - c.g.top - kTitleGap - key_axis.height(),
                          key_axis.width(), key_axis.height())};
      kt.panel = p;
      layout.texts.push_back(kt);
      DrawnText qt{QStringLiteral("axis_title"), req.query_axis, fonts.axis_title,
                   QRectF(cells.left() - label_gap - c.g.left - kTitleGap - query_axis.width(),
                          cells.center().y() - query_axis.height() / 2, query_axis.width(),
                          query_axis.height()),
                   Orientation::kVertical};
      qt.panel = p;
      layout.texts.push_back(qt);
    }
  }

  // The colour bar spans the maps (at least 160 px and its title's length, within the canvas).
  const double bar_top = layout.maps.front().cells.top();
  double bar_bottom = layout.maps.back().cells.bottom();
  const double bar_title = req.bar.title.isEmpty()
                               ? 0
                               : measureText(req.bar.title, fonts.bar_title, Orientation::kVertical).height() + 8;
  const double half_tick = QFontMetricsF(fonts.note).height() / 2;  // the end labels reach past
  bar_bottom = std::min(std::max({bar_bottom, bar_top + 160, bar_top + bar_title}),
                        req.canvas.height() - kMargin - notes_h - half_tick);
  const double bar_x = snap(x0 + grid_w + kBarGap);
  placeBar(layout, QRectF(bar_x, bar_top, kBarWidth, std::max(20.0, bar_bottom - bar_top)), req.bar, fonts);
  // Notes under the lowest thing drawn (a label reaching past its row, a vertical axis title).
  double bottom = y0 + grid_h;
  for (const DrawnText& t : layout.texts) bottom = std::max(bottom, t.rect.bottom());
  bottom = placeNotes(layout, predictions, fonts.next_tokens, std::max(kMargin, x0), bottom + 6,
                      QStringLiteral("next_tokens"), Qt::black);
  bottom = placeNotes(layout, notes, fonts.note, std::max(kMargin, x0), bottom + (predictions.isEmpty() ? 0 : 4));
  if (grown) layout.canvas.setHeight(std::max(req.canvas.height(), static_cast<int>(std::ceil(bottom + kMargin))));
  return layout;
}

HeatmapLayout layoutModelGrid(const ModelGridRequest& req) {
  HeatmapLayout layout;
  layout.canvas = req.canvas;
  const LayoutFonts& fonts = req.fonts;
  const int n_layers = std::max<int>(1, static_cast<int>(req.layer_titles.size()));
  const int n_heads = std::max<int>(1, static_cast<int>(req.head_titles.size()));
  const double title_h = placeTitle(layout, req.title_parts, fonts.title);
  const double width = req.canvas.width() - 2 * kMargin;
  const QStringList predictions = wrappedNotes(nonEmpty(req.next_tokens), fonts.next_tokens, width);
  QStringList notes;
  if (!req.token_list.isEmpty()) notes << wrapParts(req.token_list.split(QStringLiteral(" · ")), fonts.note, width, 4);
  notes << wrappedNotes(req.notes, fonts.note, width);
  const double notes_h = notesHeight(predictions, fonts.next_tokens) + notesHeight(notes, fonts.note);
  const double bar_w = barWidth(req.bar, fonts) + kBarGap;
  const QRectF body(kMargin, kMargin + title_h, std::max(1.0, width - bar_w),
                    std::max(1.0, req.canvas.height() - 2 * kMargin - title_h - notes_h));

  // K/V groups: the heads of one K/V head side by side in a box, a wider gap between boxes.
  const bool grouped = static_cast<int>(req.head_groups.size()) == n_heads && !req.group_titles.isEmpty();
  const auto groupOf = [&](int head) { return grouped ? req.head_groups[static_cast<std::size_t>(head)] : 0; };
  const int n_groups = grouped ? groupOf(n_heads - 1) - groupOf(0) + 1 : 1;
  constexpr double kGap = 4;          // between thumbnails
  constexpr double kGroupGap = 16;    // between the thumbnails of two groups
  constexpr double kBoxPad = 4;       // from a group's thumbnails and headers to its box
  const double box_pad = grouped ? kBoxPad : 0;
  const double extra_gap = grouped ? kGroupGap - kGap : 0;
  // The group titles: "K/V head 0", or the bare numbers where a group is too narrow for them.
  QStringList group_titles = req.group_titles;
  const double group_label_h = grouped ? QFontMetricsF(fonts.group_label).height() + 2 : 0;
  double group_label_w = 0;
  for (const QString& t : group_titles) group_label_w = std::max(group_label_w, measureText(t, fonts.group_label).width());

  struct Option {
    bool transposed = false;
    double thumb = 0;
    Orientation column_orientation = Orientation::kHorizontal;
    double header_w = 0, header_h = 0;  // row titles' width, column titles' height (with boxes)
    double row_title_w = 0, column_title_h = 0;
  };
  // Token labels beside the first column and above the first row of thumbnails: the bands they
  // take (0 while not drawn), decided below.
  double label_left = 0, label_top = 0;
  auto evaluate = [&](bool transposed, bool width_only) {
    Option o;
    o.transposed = transposed;
    const QStringList& row_titles = transposed ? req.head_titles : req.layer_titles;
    const QStringList& column_titles = transposed ? req.layer_titles : req.head_titles;
    const int rows = transposed ? n_heads : n_layers;
    const int columns = transposed ? n_layers : n_heads;
    for (const QString& t : row_titles) o.row_title_w = std::max(o.row_title_w, measureText(t, fonts.panel_title).width());
    o.row_title_w += 6;
    double widest = 0, longest = 0;
    for (const QString& t : column_titles) {
      widest = std::max(widest, measureText(t, fonts.panel_title).width());
      longest = std::max(longest, measureText(t, fonts.panel_title, Orientation::kVertical).height());
    }
    const double line = QFontMetricsF(fonts.panel_title).height();
    // Heads across: the boxes hold the column titles, their titles sit above them. Heads down:
    // the boxes hold the row titles, their titles sit left of them.
    o.header_w = o.row_title_w + label_left + (grouped ? box_pad + (transposed ? group_label_w + 6 : 2) : 0);
    const double extra_w = (transposed ? 0 : (n_groups - 1) * extra_gap) + box_pad;
    const double extra_h = (transposed ? (n_groups - 1) * extra_gap : 0) + box_pad;
    for (Orientation orientation : {Orientation::kHorizontal, Orientation::kVertical}) {
      o.column_title_h = (orientation == Orientation::kHorizontal ? line : longest) + 4;
      const double header_h = o.column_title_h + label_top + (grouped ? box_pad + (transposed ? 0 : group_label_h + 2) : 0);
      const double across = (body.width() - o.header_w - extra_w - (columns - 1) * kGap) / columns;
      const double down = (body.height() - header_h - extra_h - (rows - 1) * kGap) / rows;
      const double thumb = std::floor(width_only ? across : std::min(across, down));
      if (orientation == Orientation::kHorizontal && widest + 2 > thumb) continue;
      o.thumb = std::max(1.0, thumb);
      o.column_orientation = orientation;
      o.header_h = header_h;
      break;
    }
    return o;
  };
  bool grown = false, widened = false;
  const auto choose = [&]() {
    grown = widened = false;
    const Option a = evaluate(false, false);
    const Option b = evaluate(true, false);
    Option o = b.thumb > a.thumb * 1.05 ? b : a;
    // Too small for the panel's height: layers down, the width filled, the canvas taller.
    if (req.min_thumb > 0 && o.thumb < req.min_thumb) {
      // Layers down and heads across, or heads down and layers across: whichever fills the width
      // with larger thumbnails (BERT's 12 heads on a narrow panel go down).
      const Option down = evaluate(false, true);
      const Option across = evaluate(true, true);
      const Option& wide = across.thumb > down.thumb * 1.05 ? across : down;
      if (wide.thumb > o.thumb) {
        o = wide;
        grown = true;
      }
    }
    // Still far smaller across the whole width (an 8B model's 32 layers × 32 heads: 17 px at
    // 1280 × 720): the thumbnails keep min_thumb and the canvas grows sideways as well (the
    // window's panel scrolls both ways). A little smaller (SmolLM2's 9 heads in a 416-pixel
    // panel: 35 px) still fits the panel across, its colour bar in view.
    if (req.min_thumb > 0 && o.thumb < 0.6 * req.min_thumb) {
      o.thumb = std::floor(req.min_thumb);
      grown = true;
      widened = true;
    }
    return o;
  };
  Option o = choose();
  // Token labels where the thumbnails' cells hold them: the bands reserved, the choice made
  // again; kept only while the cells stay that large.
  const int n_tokens = std::max({1, req.n, req.n_k});
  bool keys_vertical = false;
  const bool labelled = req.query_labels.size() == std::max(1, req.n) &&
                        req.key_labels.size() == (req.n_k > 0 ? req.n_k : std::max(1, req.n)) &&
                        n_tokens <= kNoPoolTokens && o.thumb / n_tokens >= kMinLabelledThumbCellPx;
  // The tick font: the largest size down to min_tick_points whose line fits a cell (the cells
  // shrink a little once the labels take their bands).
  QFont tick = fonts.tick;
  while (labelled && tick.pointSizeF() - 0.5 >= fonts.min_tick_points &&
         QFontMetricsF(tick).height() + kLabelSpacing > 0.9 * o.thumb / n_tokens)
    tick.setPointSizeF(tick.pointSizeF() - 0.5);
  const Labels q_labels(req.query_labels, tick), k_labels(req.key_labels, tick);
  if (labelled) {
    double longest = 0;
    for (const QSizeF& v : k_labels.vertical) longest = std::max(longest, v.height());
    const Option plain = o;
    const bool grown0 = grown, widened0 = widened;
    for (bool vertical : {false, true}) {
      keys_vertical = vertical;
      label_left = q_labels.widest + kLabelGap;
      label_top = (vertical ? longest : k_labels.height) + kLabelGap;
      o = choose();
      const double cell = std::floor(o.thumb / n_tokens);
      // Horizontal key labels only when each fits its cell.
      if (cell >= kMinLabelledThumbCellPx && (vertical || k_labels.widest + 2 <= cell)) break;
      label_left = label_top = 0;
    }
    if (label_left == 0) {
      o = plain;
      grown = grown0;
      widened = widened0;
    }
  }
  layout.transposed = o.transposed;
  const int rows = o.transposed ? n_heads : n_layers;
  const int columns = o.transposed ? n_layers : n_heads;
  layout.rows = rows;
  layout.columns = columns;
  layout.key_orientation = o.column_orientation;

  // Cells of each thumbnail: tokens, or blocks when a token would get less than kMinCellPx.
  // A cross-attention thumbnail (n_q ≠ n_k) keeps square cells: the longer side fills it.
  const int n_q = std::max(1, req.n), n_k = req.n_k > 0 ? req.n_k : n_q;
  const int n = std::max(n_q, n_k);
  int block = 1;
  if (n > kNoPoolTokens && o.thumb / n < kMinCellPx)
    block = std::max(2, static_cast<int>(std::ceil(kOverviewCellPx * n / o.thumb)));
  if (req.min_block > 1) block = ceilDiv(std::max(block, req.min_block), req.min_block) * req.min_block;
  const int cells = ceilDiv(n, block);
  const int cells_q = ceilDiv(n_q, block), cells_k = ceilDiv(n_k, block);
  double cell = o.thumb / cells;
  if (cell >= 2) cell = std::floor(cell);
  const double thumb = cell * cells;
  // Offsets of thumbnail i along each axis; the head axis has the group gaps.
  const auto along = [&](int i, bool head_axis) {
    return i * (thumb + kGap) + (head_axis && grouped ? (groupOf(i) - groupOf(0)) * extra_gap : 0);
  };
  const double across_w = along(columns - 1, !o.transposed) + thumb + box_pad;
  const double across_h = along(rows - 1, o.transposed) + thumb + box_pad;
  const double grid_w = o.header_w + across_w;
  const double grid_h = o.header_h + across_h;
  // Wider than the panel (it scrolls sideways): the colour bar lies across above the grid, in the
  // part of the picture the panel shows first; else it stands right of the grid.
  const double band = widened ? barAcrossHeight(req.bar, fonts) + 8 : 0;
  const double x0 = snap(body.left() + std::max(0.0, (body.width() - grid_w) / 2));
  const double y0 = snap(body.top() + band + std::max(0.0, (body.height() - band - grid_h) / 2));
  const double cx0 = x0 + o.header_w, cy0 = y0 + o.header_h;
  const double visible_h = req.canvas.height();  // the colour bar stays within the first screen
  if (grown) layout.canvas.setHeight(static_cast<int>(std::ceil(std::max<double>(req.canvas.height(), y0 + grid_h + 8 + notes_h + kMargin))));
  if (widened) layout.canvas.setWidth(static_cast<int>(std::ceil(std::max<double>(req.canvas.width(), x0 + grid_w + kMargin))));

  for (int l = 0; l < n_layers; ++l) {
    for (int h = 0; h < n_heads; ++h) {
      const int r = o.transposed ? h : l, c = o.transposed ? l : h;
      MapGeometry map;
      map.cell = cell;
      map.rows = cells_q;
      map.columns = cells_k;
      map.block = block;
      map.n_q = n_q;
      map.n_k = n_k;
      map.cells = QRectF(snap(cx0 + along(c, !o.transposed)), snap(cy0 + along(r, o.transposed)),
                         cell * cells_k, cell * cells_q);
      if (grouped) map.group = groupOf(h);
      layout.maps.push_back(map);
    }
  }
  const QStringList& row_titles = o.transposed ? req.head_titles : req.layer_titles;
  const QStringList& column_titles = o.transposed ? req.layer_titles : req.head_titles;
  // Layer titles stay clear of the boxes; head titles are inside theirs.
  const double row_title_gap = 6 + (grouped && !o.transposed ? box_pad + 2 : 0);
  for (int r = 0; r < rows && r < row_titles.size(); ++r) {
    const QSizeF size = measureText(row_titles[r], fonts.panel_title);
    DrawnText t{QStringLiteral("row_header"), row_titles[r], fonts.panel_title,
                QRectF(cx0 - label_left - row_title_gap - size.width(), cy0 + along(r, o.transposed) + thumb / 2 - size.height() / 2,
                       size.width(), size.height())};
    t.align = Qt::AlignRight;
    t.index = r;
    layout.texts.push_back(t);
  }
  for (int c = 0; c < columns && c < column_titles.size(); ++c) {
    const QSizeF size = measureText(column_titles[c], fonts.panel_title, o.column_orientation);
    const double x = cx0 + along(c, !o.transposed) + thumb / 2 - size.width() / 2;
    DrawnText t{QStringLiteral("column_header"), column_titles[c], fonts.panel_title,
                QRectF(x, cy0 - label_top - 4 - (o.transposed ? box_pad : 0) - size.height(), size.width(), size.height()),
                o.column_orientation};
    t.index = c;
    layout.texts.push_back(t);
  }
  if (grouped) {
    // One box per K/V head around its heads' thumbnails and titles, titled outside.
    const double last = along(o.transposed ? columns - 1 : rows - 1, false) + thumb;  // the layer axis
    for (int first = 0; first < n_heads;) {
      int end = first;
      while (end < n_heads && groupOf(end) == groupOf(first)) ++end;
      const double a0 = along(first, true), a1 = along(end - 1, true) + thumb;
      GroupBox box;
      box.group = groupOf(first);
      box.rect = o.transposed ? QRectF(cx0 - label_left - o.row_title_w - box_pad, cy0 + a0 - box_pad,
                                       label_left + o.row_title_w + last + 2 * box_pad, a1 - a0 + 2 * box_pad)
                              : QRectF(cx0 + a0 - box_pad, cy0 - label_top - o.column_title_h - box_pad,
                                       a1 - a0 + 2 * box_pad, label_top + o.column_title_h + last + 2 * box_pad);
      layout.groups.push_back(box);
      first = end;
    }
    // Above the boxes every title fits its box (and half the gaps beside it): "K/V head 0", else
    // "K/V 0", else "0".
    const auto fitting = [&](const QStringList& titles) {
      if (o.transposed) return true;
      for (const GroupBox& box : layout.groups) {
        if (measureText(titles.value(box.group), fonts.group_label).width() > box.rect.width() + extra_gap - 4) return false;
      }
      return true;
    };
    QStringList numbers;
    for (const GroupBox& box : layout.groups) {
      while (numbers.size() <= box.group) numbers << QString::number(numbers.size());
    }
    const QStringList& titles = fitting(group_titles) ? group_titles
                                : fitting(req.group_short_titles) ? req.group_short_titles
                                                                  : numbers;
    for (const GroupBox& box : layout.groups) {
      const QString title = titles.value(box.group);
      const QSizeF size = measureText(title, fonts.group_label);
      const QRectF label = o.transposed
                               ? QRectF(box.rect.left() - 6 - size.width(), box.rect.center().y() - size.height() / 2,
                                        size.width(), size.height())
                               : QRectF(box.rect.center().x() - size.width() / 2, box.rect.top() - 2 - size.height(),
                                        size.width(), size.height());
      DrawnText t{QStringLiteral("group_label"), title, fonts.group_label, label};
      t.index = box.group;
      t.color = kvGroupTextColor(box.group);
      layout.texts.push_back(t);
    }
  }
  const bool all_labelled =
      label_left > 0 && placeThumbLabels(layout, q_labels, k_labels, req.query_labels, req.key_labels,
                                         keys_vertical, rows, columns, o.transposed, n_heads, kGap,
                                         grouped && !o.transposed ? box_pad + 2 : 0,
                                         grouped && o.transposed ? box_pad + 2 : 0);
  if (all_labelled && !req.token_list.isEmpty()) {
    // Every token labelled on both axes: the token list under the picture says nothing more.
    ModelGridRequest without = req;
    without.token_list.clear();
    HeatmapLayout again = layoutModelGrid(without);
    const auto labels = std::count_if(again.texts.begin(), again.texts.end(), [](const DrawnText& t) {
      return t.role == QLatin1String("query_label") || t.role == QLatin1String("key_label");
    });
    if (labels > 0 && again.query_step == 1 && again.key_step == 1) return again;
  }
  const double bar_top = cy0;
  double bar_bottom = cy0 + along(rows - 1, o.transposed) + thumb;
  bar_bottom = std::min(std::max(bar_bottom, bar_top + 160),
                        (grown ? visible_h : layout.canvas.height()) - kMargin - (grown ? 0 : notes_h) -
                            QFontMetricsF(fonts.note).height() / 2);
  if (widened) {
    // As long as the first screen allows, half an end label's room kept at the right.
    const double length = std::clamp(req.canvas.width() - 2 * kMargin - 12, 80.0, 260.0);
    placeBarAcross(layout, QPointF(kMargin, y0 - band), length, req.bar, fonts);
  } else {
    placeBar(layout, QRectF(snap(x0 + grid_w + kBarGap), bar_top, kBarWidth, std::max(20.0, bar_bottom - bar_top)),
             req.bar, fonts);
  }
  double y = std::min(y0 + grid_h + 8, layout.canvas.height() - kMargin - notes_h + 6);
  y = placeNotes(layout, predictions, fonts.next_tokens, kMargin, y, QStringLiteral("next_tokens"), Qt::black);
  if (!predictions.isEmpty()) y += 4;
  for (int i = 0; i < notes.size(); ++i) {
    const QSizeF size = measureText(notes[i], fonts.note);
    DrawnText t{i == 0 && !req.token_list.isEmpty() ? QStringLiteral("token_list") : QStringLiteral("note"),
                notes[i], fonts.note, QRectF(kMargin, y, size.width(), size.height())};
    t.align = Qt::AlignLeft;
    t.color = QColor(0x30, 0x30, 0x30);
    layout.texts.push_back(t);
    y += size.height() + 2;
  }
  return layout;
}

}  // namespace attnlab::views
