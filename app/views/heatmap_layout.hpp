#pragma once
/// \file heatmap_layout.hpp
/// The geometry of heatmap pictures, computed before anything is drawn: how many columns a grid
/// of heads takes, the (square) cell size, which tokens get a tick label and where every text
/// goes. Pure functions of the canvas size, the token labels and the fonts, so the pictures, the
/// hit-testing and --layout-json all read the same numbers, and tests can check them at any n.
///
/// Rules: cells are square and as large as the canvas allows (the grid's column count is the one
/// that gives the largest cells); labels are measured and every k-th token is labelled with the
/// smallest k whose labels do not overlap; key labels run upright when they all fit their
/// columns, else vertically (text.hpp: CJK upright, Latin turned); below kMinCellPx per token the
/// map becomes an overview of b × b-token blocks of at least kOverviewCellPx.

#include <QFont>
#include <QRectF>
#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "views/text.hpp"

namespace attnlab::views {

/// Below this many pixels per token a map is drawn as an overview of blocks.
inline constexpr double kMinCellPx = 3.0;
/// An overview's blocks are at least this many pixels.
inline constexpr double kOverviewCellPx = 4.0;
/// Below this many pixels per cell a map is an overview for a class: the picture's title says so
/// ("overview: 6-px cells").
inline constexpr double kReadableCellPx = 12.0;
/// Cells never grow beyond this many pixels (a 3-token map on a projector).
inline constexpr double kMaxCellPx = 200.0;

/// The fonts of a picture (already scaled by the plot's font scale).
struct LayoutFonts {
  QFont title;        ///< The picture's title.
  QFont panel_title;  ///< "head 3" over each map of a grid; model view headers.
  QFont axis_title;   ///< "query" / "key".
  QFont tick;         ///< Token labels (largest size; the layout may pick a smaller one).
  double min_tick_points = 7;  ///< Smallest size the tick font shrinks to so every token fits.
  QFont note;         ///< Notes under the picture, the colour bar's tick labels.
  QFont bar_title;    ///< The colour bar's title.
  QFont next_tokens;  ///< The model's next-token predictions under the maps.
  QFont group_label;  ///< "K/V head 0" over a group of the model view.
};

/// A labelled position on the colour bar: fraction of the bar from the bottom (0) to the top (1).
struct BarTick {
  double position = 0;
  QString text;
};

/// The colour bar as the layout needs it: tick labels (to measure and place) and title.
struct BarLabels {
  std::vector<BarTick> ticks;  ///< Bottom to top; overlapping ones are dropped (ends kept).
  QString title;
  std::optional<BarTick> mark;  ///< A marked level ("1/n"), placed before the ticks.
};

/// One heatmap as laid out.
struct MapGeometry {
  QRectF cells;        ///< The cell area, px.
  double cell = 0;     ///< Edge of one cell (a block in an overview), px; cells are square.
  int rows = 0;        ///< Cells down (query blocks).
  int columns = 0;     ///< Cells across (key blocks).
  int block = 1;       ///< Tokens per cell side (1 = every token has its cell).
  int n_q = 0;         ///< Query tokens.
  int n_k = 0;         ///< Key tokens.
  int group = -1;      ///< The K/V head whose group this map belongs to (framed in its colour),
                       ///< or −1 (no groups marked).
};

/// Width of the coloured frame around each map of a K/V group in a head grid, px (drawn outside
/// the cells).
inline constexpr double kGroupFramePx = 3.0;

/// The box around one K/V group of the model view: its thumbnails (every layer) and its head
/// headers, in the group's colour (kvGroupColor), labelled by a "group_label" text.
struct GroupBox {
  QRectF rect;    ///< The outline, px (drawn with a 2 px pen centred on it).
  int group = 0;  ///< The K/V head.
};

/// A laid-out picture: its maps, every text, and the colour bar.
struct HeatmapLayout {
  QSize canvas;                    ///< px.
  std::vector<MapGeometry> maps;   ///< One per panel, in panel order.
  std::vector<DrawnText> texts;    ///< Every text drawn.
  QRectF bar;                      ///< The colour bar (empty: none).
  bool bar_across = false;         ///< The bar lies across (low values left, labels below it).
  std::vector<double> bar_ticks;   ///< Positions (fractions) of the tick labels kept.
  std::optional<double> bar_mark;  ///< Position of the marked level, when there is one.
  int columns = 1;                 ///< Panels across (model view: thumbnails across).
  int rows = 1;                    ///< Panels down.
  int query_step = 1;              ///< Every query_step-th row (cell) carries a label.
  int key_step = 1;                ///< Every key_step-th column carries a label.
  Orientation key_orientation = Orientation::kHorizontal;
  bool transposed = false;         ///< Model view: heads down, layers across.
  std::vector<GroupBox> groups;    ///< Model view: one box per K/V group (grouped-query
                                   ///< attention); empty otherwise.
  /// Query rows from this one on are [PAD] padding (hatched over the cells); −1: none.
  int pad_from = -1;
};

/// What a head grid (or one enlarged head: panels = 1) shows.
struct GridRequest {
  QSize canvas;                    ///< The picture's size, px.
  std::vector<QString> panel_titles;  ///< One per panel ("head 3"); empty strings for none.
  int n_q = 0, n_k = 0;            ///< Tokens.
  QStringList query_labels;        ///< n_q tick texts (elided tokens).
  QStringList key_labels;          ///< n_k tick texts.
  QStringList title_parts;         ///< Joined with " · ", wrapped to the width.
  QString query_axis;              ///< "query" (single map only; empty: no axis titles).
  QString key_axis;                ///< "key".
  QStringList notes;               ///< Lines under the maps.
  /// The model's next-token predictions (nextTokensText), under the maps before the notes, in
  /// fonts.next_tokens; empty: none.
  QString next_tokens;
  /// Per panel the K/V head it reads (grouped-query attention: framed in kvGroupColor, the frame
  /// kGroupFramePx outside the cells, labels kept clear of it); empty: no groups marked.
  std::vector<int> panel_groups;
  BarLabels bar;
  LayoutFonts fonts;
  int block = 0;                   ///< At least this many tokens per cell (0 = 1); more when the
                                   ///< cells would be smaller than kOverviewCellPx.
  /// > 0: cells at least this many px (a window's scrolling panel). When the canvas's height would
  /// make them smaller but its width allows them in two columns or more (or one panel alone), the
  /// grid takes the most columns whose cells keep
  /// this size and the layout's canvas grows downward (HeatmapLayout::canvas gives the size
  /// needed; the colour bar stays within the first canvas height).
  double min_cell = 0;
};

/// Lays out a grid of equally sized maps (a single map when panel_titles has one entry).
HeatmapLayout layoutGrid(const GridRequest& request);

/// What the model view shows: layers × heads thumbnails without token labels.
struct ModelGridRequest {
  QSize canvas;
  QStringList layer_titles;        ///< "layer 0" … (rows, or columns when transposed).
  QStringList head_titles;         ///< "head 0" …
  int n = 0;                       ///< Query tokens (rows of each thumbnail).
  int n_k = 0;                     ///< Key tokens (columns); 0 = n (self-attention).
  QStringList title_parts;
  QString token_list;              ///< "tokens (rows = queries …): 0 [CLS] · 1 the …".
  /// Tick labels, one per query token and one per key token (empty: none). Drawn left of the
  /// first column of thumbnails and above the first row when their cells are at least
  /// kMinLabelledThumbCellPx (every k-th token where they would overlap); the token list is left
  /// out when every token is labelled.
  QStringList query_labels, key_labels;
  QStringList notes;
  /// The model's next-token predictions, under the thumbnails before the token list; empty: none.
  QString next_tokens;
  /// Per head the K/V head it reads; empty: no groups marked. Heads of one K/V head must be
  /// consecutive (⌊i·G/h⌋ makes them so).
  std::vector<int> head_groups;
  QStringList group_titles;        ///< "K/V head 0" … one per K/V head (with head_groups).
  QStringList group_short_titles;  ///< "K/V 0" …: where the long ones are wider than a group.
  BarLabels bar;
  LayoutFonts fonts;
  /// > 0: thumbnails at least this many px (a window's scrolling panel). When the canvas's height
  /// would make them smaller, the thumbnails fill the width (layers down, or heads down when that
  /// makes them larger) and the layout's canvas grows downward to hold them; when even the width
  /// would, they keep this size and the canvas grows sideways too (HeatmapLayout::canvas gives
  /// the size needed), the colour bar then lying across above the grid, within the canvas's
  /// first width.
  double min_thumb = 0;
  /// ≥ 1: every thumbnail's cells hold a whole multiple of this many tokens a side (a model view
  /// drawn from pooled overviews of b × b-token blocks, PooledAttention::block).
  int min_block = 1;
};

/// A model view's thumbnails carry token labels from this cell size on, px.
inline constexpr double kMinLabelledThumbCellPx = 7;

/// Up to this many tokens a model view's thumbnails are never pooled (every token its cell).
inline constexpr int kNoPoolTokens = 32;

/// Lays out the model view: thumbnails square and as large as fit, layers as rows and heads as
/// columns or the other way round, whichever gives larger thumbnails; maps are in (layer, head)
/// order either way. With head_groups, the heads of each K/V head sit together in a box of their
/// own (a wider gap between groups), titled above (heads across) or on the left (heads down).
HeatmapLayout layoutModelGrid(const ModelGridRequest& request);

/// The label a thinned axis shows for cell `index` of `block` tokens: the token itself when
/// every token is labelled, else "#i token" with i its first token.
QString tickText(const QStringList& labels, int index, int block, int step);

}  // namespace attnlab::views
