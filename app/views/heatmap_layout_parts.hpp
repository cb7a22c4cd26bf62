#pragma once
/// \file heatmap_layout_parts.hpp
/// Internal to app/views: the parts both heatmap layouts (layoutGrid and layoutModelGrid in
/// heatmap_layout.cpp) are built from — the token labels measured and the gutters they need, the
/// largest cell with which maps and labels fit, the colour bar, the title and the notes. Every
/// length is in canvas pixels.

#include <QColor>
#include <QFont>
#include <QRectF>
#include <QSizeF>
#include <QStringList>
#include <cmath>
#include <vector>

#include "views/heatmap_layout.hpp"

namespace attnlab::views::detail {

inline constexpr double kMargin = 10;      ///< Around the picture.
inline constexpr double kLabelGap = 5;     ///< Between a map and its tick labels.
inline constexpr double kTitleGap = 4;     ///< Between tick labels and an axis title.
inline constexpr double kPanelGapX = 18;   ///< Between maps of a grid, across.
inline constexpr double kPanelGapY = 12;   ///< Between maps of a grid, down.
inline constexpr double kLabelSpacing = 2; ///< Free pixels between neighbouring labels.
inline constexpr double kBarWidth = 14;
inline constexpr double kBarGap = 16;      ///< Between the maps and the colour bar.
inline constexpr double kTickLength = 4;   ///< Colour bar tick marks.

/// Measured token labels in one tick font.
struct Labels {
  QFont font;
  double height = 0;              ///< Line height: a horizontal label's thickness.
  std::vector<double> width;      ///< Horizontal width of each label.
  std::vector<QSizeF> vertical;   ///< Vertical (thickness, length) of each label.
  double widest = 0;
  double thickest = 0;            ///< Largest vertical thickness.

  Labels(const QStringList& texts, const QFont& f);
  /// Width of "#i " in front of a thinned label.
  double prefix(int token) const;
};

/// The smallest k such that labels `extent` px thick, one every k cells of `cell` px, do not
/// overlap (a huge k when cell ≤ 0).
int stepFor(double extent, double cell);
/// ⌈a / b⌉ for a ≥ 0, b > 0.
inline int ceilDiv(int a, int b) { return (a + b - 1) / b; }

/// The label gutters of one map with cells of `cell` px holding `block` tokens each.
struct Gutters {
  double left = 0;   ///< Query labels' width (with the key labels' overhang, see below).
  double top = 0;    ///< Key labels' height (with the query labels' overhang).
  /// Labels thicker than a cell reach past the map's corner: the first key label left of the
  /// first column, the first query label above the first row. The gutters grow by that much so
  /// the two never meet.
  double key_overhang = 0;
  double query_overhang = 0;
  int query_step = 1;
  int key_step = 1;
  Orientation keys = Orientation::kHorizontal;
  /// Staggered labels (every token labelled where one lane would thin them): query labels in two
  /// columns, the odd rows' further left by query_lane px; key labels in two rows, the odd
  /// columns' further up by key_lane px. 0: one lane.
  double query_lane = 0;
  double key_lane = 0;
};

/// Gap between the two lanes of staggered labels, px.
inline constexpr double kLaneGap = 4;
/// Free pixels between neighbours within one lane of staggered labels (they are two cells apart,
/// and the other lane's label sits between them, offset).
inline constexpr double kLaneSpacing = 1;

/// The gutters that query labels q and key labels k need beside a map of n_q × n_k tokens; with
/// `stagger`, labels that would be thinned go to two lanes instead when that labels every token.
Gutters gutters(const Labels& q, const Labels& k, int n_q, int n_k, int block, double cell,
                bool stagger = false);

/// One candidate arrangement of a grid.
struct Candidate {
  int columns = 1, rows = 1;
  int block = 1;
  double cell = 0;
  Gutters g;
  double perToken() const { return cell / block; }
};

/// What a grid arrangement needs besides the maps and their label gutters.
struct Fixed {
  int columns = 1, rows = 1;  ///< Maps across and down.
  double header = 0;          ///< Panel title height above each map.
  double axis_left = 0;       ///< Query axis title's width (+ gap), single map.
  double axis_top = 0;        ///< Key axis title's height (+ gap), single map.
  double title_w = 0;         ///< Widest panel title: a map's column is at least that wide.
  double label_gap = kLabelGap;  ///< Between a map and its tick labels (wider round K/V frames).
  bool stagger = false;          ///< Labels may take two lanes (see Gutters).
};

/// Whether maps of `cell` px fit the body: query labels left of the first column only, key
/// labels above the first row only (a grid reads like one matrix of matrices), a title over each
/// map.
bool fits(const Labels& q, const Labels& k, int n_q, int n_k, int block, double cell,
          double body_w, double body_h, const Fixed& f, Gutters* out);

/// The largest cell (px) with which the maps and their labels fit; 0 when none does.
double bestCell(const Labels& q, const Labels& k, int n_q, int n_k, int block, double body_w,
                double body_h, const Fixed& f, Gutters* out);

/// A length rounded to whole pixels.
inline double snap(double v) { return std::round(v); }

/// Places the colour bar's tick labels, mark and title right of `bar`; keeps ticks that do not
/// overlap (the mark first, then the ends, then the rest bottom to top).
void placeBar(HeatmapLayout& layout, const QRectF& bar, const BarLabels& labels,
              const LayoutFonts& fonts);

/// Width the colour bar takes with its labels.
double barWidth(const BarLabels& labels, const LayoutFonts& fonts);

/// Places a colour bar lying across, `width` px long with its top-left corner of the band at `at`
/// (low values left): its title above it, the tick labels and the mark below, kept as placeBar
/// keeps them (the mark, the ends, then the rest). Returns the band's height (barAcrossHeight).
double placeBarAcross(HeatmapLayout& layout, const QPointF& at, double width, const BarLabels& labels,
                      const LayoutFonts& fonts);
/// Height a colour bar lying across takes with its title and labels.
double barAcrossHeight(const BarLabels& labels, const LayoutFonts& fonts);

/// Shrinks font (down to 8 pt) until each part fits width_px on a line of its own.
QFont fittingFont(const QStringList& parts, QFont font, double width_px);

/// Title at the top, centred, wrapped at its " · " separators (and smaller when one part is
/// wider than the canvas); returns its height (with the gap below).
double placeTitle(HeatmapLayout& layout, const QStringList& parts, const QFont& title_font);

/// Each note wrapped to `width` px at its " · " separators, every line elided to fit.
QStringList wrappedNotes(const QStringList& notes, const QFont& font, double width);

/// The height of wrapped notes with the gap above them; 0 without notes.
double notesHeight(const QStringList& wrapped, const QFont& font);

/// Places wrapped lines from (left, top) down, left-aligned — further left when the widest line
/// would pass the canvas's right margin; returns the y below the last.
double placeNotes(HeatmapLayout& layout, const QStringList& wrapped, const QFont& font, double left,
                  double top, const QString& role = QStringLiteral("note"),
                  const QColor& color = QColor(0x40, 0x40, 0x40));

/// {text}, or no line when text is empty.
inline QStringList nonEmpty(const QString& text) { return text.isEmpty() ? QStringList() : QStringList{text}; }

/// The token labels of a model view: the queries left of every thumbnail of the first column,
/// the keys above every thumbnail of the first row (vertical text with keys_vertical), every
/// k-th token where they would overlap and none reaching into a neighbour's half of the gap;
/// q_offset and k_offset px further out (clear of a K/V group's box). Maps are in (layer, head)
/// order. True when every token is labelled.
bool placeThumbLabels(HeatmapLayout& layout, const Labels& q, const Labels& k, const QStringList& q_text,
                      const QStringList& k_text, bool keys_vertical, int rows, int columns,
                      bool transposed, int n_heads, double gap, double q_offset, double k_offset);

}  // namespace attnlab::views::detail
