/// \file heatmap.cpp
/// Attention heatmaps: one head, or every head in a grid sharing one colour scale.
/// Rows are queries (top to bottom), columns are keys (left to right), cells are weights.

#include <qcustomplot.h>

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attnlab/error.hpp"
#include "views.hpp"

namespace attnlab::views {
namespace {

/// Object name of the margin groups the views create, so clearPlot can delete them.
constexpr char kMarginGroupName[] = "attnlab_views_margin_group";
/// Tokens longer than this many characters are elided in tick labels.
constexpr int kMaxLabelChars = 14;
/// Single heatmaps up to this many tokens per side print each weight in its cell.
constexpr int kMaxAnnotatedTokens = 10;
/// Most tick labels one grid panel carries per axis before thinning out.
constexpr int kGridMaxLabels = 24;
/// Most tick labels a single heatmap carries per axis.
constexpr int kSingleMaxLabels = 50;
/// Largest map (cells) that SVG and PDF get as vector rectangles; bigger maps are embedded images.
constexpr int kMaxVectorCells = 160 * 160;

/// Pixel layout of the default image sizes; the label density is computed from the same numbers.
constexpr double kSingleMarginX = 290;  ///< Query labels and title + colour scale.
constexpr double kSingleMarginY = 210;  ///< Title + key labels + masked note.
constexpr double kPanelMarginX = 110;   ///< One grid panel: query labels.
constexpr double kPanelMarginY = 120;   ///< One grid panel: "head k" + key labels.
constexpr double kGridMarginX = 140;    ///< Colour scale of a grid.
constexpr double kGridMarginY = 90;     ///< Overall title (+ masked note) of a grid.

/// Text sizes in points.
struct Fonts {
  double title;
  double panel_title;
  double axis_title;
  double tick;
  double note;
  double cell;
};
constexpr Fonts kSingleFonts{15, 12, 12, 11, 10, 10};
constexpr Fonts kGridFonts{15, 11, 10, 8.5, 10, 8};
/// The smallest size a title shrinks to before it wraps onto a second line.
constexpr double kMinTitlePoints = 12;

QFont sizedFont(const QCustomPlot& plot, double point_size, bool bold = false) {
  // The widget's (application's) font: its family falls back through fontconfig to Noto CJK and
  // Noto Color Emoji, so Chinese tokens and emoji render as glyphs.
  QFont font = plot.font();
  font.setPointSizeF(point_size * fontScale(plot));
  font.setBold(bold);
  return font;
}

/// Edge length of one cell in pixels for n_q × n_k cells in an image of defaultHeatmapSize.
double singleCellPixels(int n_q, int n_k) {
  const double n = std::max(n_q, n_k);
  return std::max(std::clamp(1200.0 / n, 2.0, 48.0), 320.0 / n);
}
double panelCellPixels(int n_q, int n_k) {
  const double n = std::max(n_q, n_k);
  return std::max(std::clamp(400.0 / n, 1.5, 32.0), 180.0 / n);
}

/// Cell edge in pixels where the plot is a widget on screen: its own size decides, not the export
/// size (about 0.65 of a panel goes to cells, the rest to labels and titles).
/// Returns `image_px` for an offscreen plot (CLI, export).
bool onScreen(const QCustomPlot& plot) {
  return plot.isVisible() && plot.width() >= 100 && plot.height() >= 100;
}

/// Columns of a head grid: ⌈√h⌉ for images; on screen, the count that gives the largest cells in
/// the widget's actual shape (a tall, narrow panel wants fewer columns).
int gridColumns(const QCustomPlot& plot, int heads, int n_q, int n_k) {
  const int square = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(heads))));
  if (!onScreen(plot) || heads <= 1) return square;
  int best = square;
  double best_cell = 0;
  for (int columns = 1; columns <= heads; ++columns) {
    const int rows = (heads + columns - 1) / columns;
    const double cell = std::min((plot.width() - 140.0) / columns - kPanelMarginX * 0.6,
                                 (plot.height() - 60.0) / rows - kPanelMarginY * 0.6) /
                        std::max(n_q, n_k);
    if (cell > best_cell * 1.05) {  // ties go to fewer columns
      best_cell = cell;
      best = columns;
    }
  }
  return best;
}

double onScreenCellPixels(const QCustomPlot& plot, int n_q, int n_k, int heads, double image_px) {
  if (!onScreen(plot)) return image_px;
  const int columns = gridColumns(plot, heads, n_q, n_k);
  const int rows = (heads + columns - 1) / columns;
  const double panel = std::min((plot.width() - 140.0) / columns, (plot.height() - 60.0) / rows);
  return std::max(1.0, 0.65 * panel / std::max(n_q, n_k));
}

/// The width a title must fit: the widget's on screen, the export image's offscreen.
double titleWidth(const QCustomPlot& plot, int image_width) {
  return onScreen(plot) ? plot.width() : image_width;
}

/// How a token reads as a tick label: elided when long, whitespace made visible.
QString tickLabel(const QString& token) {
  QString text = token.trimmed().isEmpty() ? QStringLiteral("␣") : token;
  text.replace(QLatin1Char('\n'), QStringLiteral("⏎"));
  if (text.size() <= kMaxLabelChars) return text;
  int cut = kMaxLabelChars - 1;
  if (text.at(cut - 1).isHighSurrogate()) --cut;  // never split a surrogate pair (emoji)
  return text.left(cut) + QStringLiteral("…");
}

/// tokens when it has n entries, the indices 0 … n−1 when it is empty; throws otherwise.
QStringList labelsFor(const QStringList& tokens, int n, const char* what) {
  if (tokens.isEmpty()) {
    QStringList indices;
    for (int i = 0; i < n; ++i) indices << QString::number(i);
    return indices;
  }
  if (tokens.size() != n) {
    throw Error(ErrorCode::kInvalidArgument,
                std::string(what) + " has " + std::to_string(tokens.size()) +
                    " entries but the result has " + std::to_string(n));
  }
  QStringList labels;
  for (const QString& token : tokens) labels << tickLabel(token);
  return labels;
}

/// Label every step-th token so that labels `extent_px` tall never overlap cells `cell_px` wide.
int labelStep(double cell_px, double extent_px, int n, int max_labels) {
  int step = std::max(1, static_cast<int>(std::ceil((extent_px + 2.0) / cell_px)));
  if (max_labels > 0 && n > max_labels) {
    step = std::max(step, static_cast<int>(std::ceil(static_cast<double>(n) / max_labels)));
  }
  return step;
}

/// Ticks at token positions 0, step, 2·step …; thinned labels carry their position ("#13 the").
QSharedPointer<QCPAxisTickerText> tokenTicker(const QStringList& labels, int step) {
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < labels.size(); i += step) {
    ticker->addTick(i,
                    step == 1 ? labels.at(i) : QStringLiteral("#%1 %2").arg(i).arg(labels.at(i)));
  }
  ticker->setSubTickCount(0);
  return ticker;
}

/// The note under a heatmap whose mask hides cells.
QString maskedNote(Mask mask) {
  return mask == Mask::kCausal
             ? viewText("grey = masked (causal: a query cannot see later keys)")
             : viewText("grey = masked");
}

bool anyMasked(const AttentionResult& result) {
  for (int i = 0; i < result.nQ(); ++i) {
    for (int j = 0; j < result.nK(); ++j) {
      if (isMasked(result.mask, i, j, result.nK())) return true;
    }
  }
  return false;
}

void checkResult(const AttentionResult& result) {
  if (result.heads() < 1 || result.nQ() < 1 || result.nK() < 1) {
    throw Error(ErrorCode::kInvalidArgument, "nothing to draw: the result has no weights");
  }
  const auto expected = static_cast<std::size_t>(result.heads()) * result.nQ() * result.nK();
  if (result.weights.data.size() != expected) {
    throw Error(ErrorCode::kInvalidArgument, "the result's weights do not match its shape");
  }
}

/// "scaled dot-product · head 3 · d_k = 8 · scaled 1/√d_k · causal mask · cross-attention".
QString titleText(const AttentionResult& result, const RunLabel& label, const QString& heads) {
  QStringList parts{mechanismTitle(label.spec.mechanism), heads,
                    QStringLiteral("d_k = %1").arg(label.spec.resolvedDk())};
  // "additive · … · additive" says nothing twice; additive with a temperature does say "T = …".
  if (label.spec.mechanism != Mechanism::kAdditive || label.spec.temperature) {
    parts << scalingText(label.spec);
  }
  if (result.mask == Mask::kCausal) parts << viewText("causal mask");
  if (label.cross) parts << viewText("cross-attention");
  if (!label.extra.isEmpty()) parts << label.extra;
  return parts.join(QStringLiteral(" · "));
}

QCPTextElement* addText(QCustomPlot& plot, QCPLayoutGrid* layout, int row, int column,
                        const QString& text, const QFont& font, const QColor& color = Qt::black) {
  auto* element = new QCPTextElement(&plot, text, font);
  element->setTextColor(color);
  layout->addElement(row, column, element);
  return element;
}

/// Joins parts with " · ", starting a new line (without the separator) whenever the next part
/// would make the line wider than width_px. At most max_lines lines; parts that do not fit then are
/// counted as "… +k more" at the end of the last line.
QString wrapParts(const QStringList& parts, const QFontMetricsF& metrics, double width_px,
                  int max_lines = 1000) {
  const QString separator = QStringLiteral(" · ");
  QStringList lines;
  QString line;
  for (int i = 0; i < parts.size(); ++i) {
    const QString candidate = line.isEmpty() ? parts[i] : line + separator + parts[i];
    if (line.isEmpty() || metrics.horizontalAdvance(candidate) <= width_px) {
      line = candidate;
      continue;
    }
    if (lines.size() + 1 == max_lines) {
      lines << line + viewText(" … +%1 more").arg(parts.size() - i);
      return lines.join(QLatin1Char('\n'));
    }
    lines << line;
    line = parts[i];
  }
  if (!line.isEmpty()) lines << line;
  return lines.join(QLatin1Char('\n'));
}

/// The title's text and font: shrunk (down to kMinTitlePoints) to fit width_px, then wrapped at
/// its " · " separators onto as many lines as it needs.
std::pair<QString, QFont> fitTitle(const QCustomPlot& plot, const QString& title,
                                   double point_size, double width_px) {
  QFont font = sizedFont(plot, point_size, true);
  // Keep a margin: text measured here can come out a little wider in the exported image.
  const double available = 0.85 * width_px - 24;
  while (font.pointSizeF() > kMinTitlePoints * fontScale(plot) &&
         QFontMetricsF(font).horizontalAdvance(title) > available) {
    font.setPointSizeF(font.pointSizeF() - 0.5);
  }
  const QFontMetricsF metrics(font);
  if (metrics.horizontalAdvance(title) <= available) return {title, font};
  return {wrapParts(title.split(QStringLiteral(" · ")), metrics, available), font};
}

/// Adds the title in row 0 of the plot layout (see fitTitle).
void addTitle(QCustomPlot& plot, const QString& title, double point_size, double width_px) {
  const auto [text, font] = fitTitle(plot, title, point_size, width_px);
  QCPTextElement* element = addText(plot, plot.plotLayout(), 0, 0, text, font);
  element->setObjectName(QStringLiteral("title"));
}

/// A QCPColorMap that paints its cells as filled rectangles when the painter is vectorized (SVG,
/// PDF export), so exported heatmaps stay sharp at any zoom and stay editable; on screen and in
/// PNG it draws the usual image. Maps above kMaxVectorCells keep the image everywhere.
class CellColorMap : public QCPColorMap {
 public:
  using QCPColorMap::QCPColorMap;

 protected:
  void draw(QCPPainter* painter) override {
    QCPColorMapData* cells = data();  // cell() is not const in QCustomPlot 2.1
    const int key_size = cells->keySize();
    const int value_size = cells->valueSize();
    if (!painter->modes().testFlag(QCPPainter::pmVectorized) || key_size < 2 || value_size < 2 ||
        key_size * value_size > kMaxVectorCells || !keyAxis() || !valueAxis()) {
      QCPColorMap::draw(painter);
      return;
    }
    QCPColorGradient colors = gradient();
    const QCPRange range = dataRange();
    const double half_key = 0.5 * cells->keyRange().size() / (key_size - 1);
    const double half_value = 0.5 * cells->valueRange().size() / (value_size - 1);
    // A quarter pixel of overlap hides the hairline seams viewers draw between abutting fills.
    constexpr double kOverlap = 0.25;
    painter->setPen(Qt::NoPen);
    painter->setAntialiasing(false);
    auto colorOf = [&](int k, int v) {
      const double z = cells->cell(k, v);
      return std::isnan(z) ? colors.nanColor().rgb() : colors.color(z, range);
    };
    for (int v = 0; v < value_size; ++v) {
      // One rectangle per run of equal colours along the row (masked triangles become one each).
      int run_start = 0;
      QRgb run_color = colorOf(0, v);
      for (int k = 1; k <= key_size; ++k) {
        const QRgb color = k < key_size ? colorOf(k, v) : 0;
        if (k < key_size && color == run_color) continue;
        double first_key = 0, value = 0, last_key = 0, unused = 0;
        cells->cellToCoord(run_start, v, &first_key, &value);
        cells->cellToCoord(k - 1, v, &last_key, &unused);
        const QPointF a = coordsToPixels(first_key - half_key, value - half_value);
        const QPointF b = coordsToPixels(last_key + half_key, value + half_value);
        const QRectF rect =
            QRectF(a, b).normalized().adjusted(-kOverlap, -kOverlap, kOverlap, kOverlap);
        painter->setBrush(QColor::fromRgb(run_color));
        painter->drawRect(rect);
        run_start = k;
        run_color = color;
      }
    }
  }
};

QCPColorScale* addColorScale(QCustomPlot& plot, QCPLayoutGrid* layout, int row, int column,
                             const Fonts& fonts) {
  auto* scale = new QCPColorScale(&plot);
  layout->addElement(row, column, scale);
  scale->setType(QCPAxis::atRight);
  scale->setGradient(viridisGradient());
  scale->setDataRange(QCPRange(0.0, 1.0));
  scale->setLabel(viewText("attention weight"));
  scale->setBarWidth(18);
  scale->setRangeDrag(false);
  scale->setRangeZoom(false);
  scale->axis()->setLabelFont(sizedFont(plot, fonts.axis_title));
  scale->axis()->setTickLabelFont(sizedFont(plot, fonts.tick));
  // Fixed ticks 0, 0.2 … 1: both ends always labelled, whatever the bar's height.
  auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  ticker->setTickStep(0.2);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
  scale->axis()->setTicker(ticker);
  return scale;
}

struct PanelSetup {
  const Fonts* fonts;
  double cell_px;    ///< Expected cell edge at the default image size.
  int max_labels;    ///< Most labels per axis (0: no limit beyond overlap).
  bool key_title;    ///< "key" above the key labels.
  bool query_title;  ///< "query" left of the query labels.
  bool annotate;     ///< Print weights in the cells.
};

/// Writes head `head`'s weights into map's cells (NaN where masked); a dimension of size 1 is two
/// identical half cells. map's data must already have the matching size.
void fillCells(QCPColorMap& map, const AttentionResult& result, int head) {
  const int n_q = result.nQ();
  const int n_k = result.nK();
  const int key_cells = n_k == 1 ? 2 : n_k;
  const int query_cells = n_q == 1 ? 2 : n_q;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  QCPColorMapData* cells = map.data();
  for (int cq = 0; cq < query_cells; ++cq) {
    const int i = n_q == 1 ? 0 : cq;
    const float* row = result.weights.row(head, i);
    const auto [lo, hi] = visibleKeys(result.mask, i, n_k);
    for (int ck = 0; ck < key_cells; ++ck) {
      const int j = n_k == 1 ? 0 : ck;
      cells->setCell(ck, cq, j < lo || j >= hi ? nan : static_cast<double>(row[j]));
    }
  }
}

/// Name of the plot property that records what a drawHeatmap / drawHeadGrid call laid out, so
/// updateWeights can tell whether new weights fit the existing layout.
constexpr char kLayoutProperty[] = "attnlabViewsLayout";

/// What decides the layout apart from the weights: which picture, head, shape, mask, labels.
QString layoutKey(const AttentionResult& result, int head, const QStringList& query_tokens,
                  const QStringList& key_tokens, bool cross) {
  return QStringLiteral("%1|%2|%3|%4|%5|%6|%7\x1f%8")
      .arg(head)
      .arg(result.heads())
      .arg(result.nQ())
      .arg(result.nK())
      .arg(static_cast<int>(result.mask))
      .arg(cross ? 1 : 0)
      .arg(query_tokens.join(QChar(0x1e)), key_tokens.join(QChar(0x1e)));
}

/// Sets up rect's axes for head `head` and adds its colour map; returns the map.
QCPColorMap* drawPanel(QCustomPlot& plot, QCPAxisRect* rect, const AttentionResult& result,
                       int head, const QStringList& query_labels, const QStringList& key_labels,
                       const PanelSetup& setup) {
  const int n_q = result.nQ();
  const int n_k = result.nK();
  QCPAxis* keys = rect->axis(QCPAxis::atTop);
  QCPAxis* queries = rect->axis(QCPAxis::atLeft);
  rect->axis(QCPAxis::atBottom)->setVisible(false);
  rect->axis(QCPAxis::atRight)->setVisible(false);
  rect->setRangeDrag(Qt::Orientations());
  rect->setRangeZoom(Qt::Orientations());
  keys->setVisible(true);

  const QFont tick_font = sizedFont(plot, setup.fonts->tick);
  const QFontMetricsF metrics(tick_font);
  const QPen frame_pen(QColor(0x60, 0x60, 0x60), 1.0);
  auto style = [&](QCPAxis* axis, int n, const QStringList& labels, int step, const QString& title,
                   bool show_title) {
    axis->setTicker(tokenTicker(labels, step));
    axis->setTickLabelFont(tick_font);
    axis->setTickLength(0, 3);
    axis->setSubTicks(false);
    axis->setTickPen(frame_pen);
    axis->setBasePen(frame_pen);
    axis->setTickLabelPadding(3);
    axis->grid()->setVisible(false);
    axis->setRange(-0.5, n - 0.5);
    if (show_title) {
      axis->setLabel(title);
      axis->setLabelFont(sizedFont(plot, setup.fonts->axis_title, true));
      axis->setLabelPadding(6);
    }
  };

  // Keys across the top: upright while every label fits its column, else rotated 90°; thinned
  // labels carry their position ("#12 the") and are always rotated.
  double widest = 0;
  for (const QString& label : key_labels)
    widest = std::max(widest, metrics.horizontalAdvance(label));
  const int upright_step = labelStep(setup.cell_px, widest, n_k, setup.max_labels);
  const int rotated_step = labelStep(setup.cell_px, metrics.height(), n_k, setup.max_labels);
  const bool rotate = upright_step > 1 || rotated_step > 1;
  style(keys, n_k, key_labels, rotate ? rotated_step : upright_step, viewText("key"),
        setup.key_title);
  if (rotate) keys->setTickLabelRotation(-90);
  style(queries, n_q, query_labels,
        labelStep(setup.cell_px, metrics.height(), n_q, setup.max_labels), viewText("query"),
        setup.query_title);
  queries->setRangeReversed(true);  // query 0 at the top, like reading a matrix

  auto* map = new CellColorMap(keys, queries);
  map->setInterpolate(false);
  map->setTightBoundary(false);
  map->setGradient(viridisGradient());
  map->setDataRange(QCPRange(0.0, 1.0));
  map->setName(viewText("head %1").arg(head));
  // A 1-wide QCPColorMap has zero width on screen: store a single key (query) as two half cells.
  const int key_cells = n_k == 1 ? 2 : n_k;
  const int query_cells = n_q == 1 ? 2 : n_q;
  map->data()->setSize(key_cells, query_cells);
  map->data()->setRange(n_k == 1 ? QCPRange(-0.25, 0.25) : QCPRange(0, n_k - 1),
                        n_q == 1 ? QCPRange(-0.25, 0.25) : QCPRange(0, n_q - 1));
  fillCells(*map, result, head);

  if (setup.annotate) {
    const QFont cell_font = sizedFont(plot, setup.fonts->cell);
    for (int i = 0; i < n_q; ++i) {
      for (int j = 0; j < n_k; ++j) {
        if (isMasked(result.mask, i, j, n_k)) continue;
        const double w = result.weights(head, i, j);
        auto* text = new QCPItemText(&plot);
        text->setClipAxisRect(rect);
        text->position->setAxes(keys, queries);
        text->position->setCoords(j, i);
        text->setText(QString::number(w, 'f', 2));
        text->setFont(cell_font);
        // viridis is dark below ~0.55: white text there, black on the green and yellow end.
        text->setColor(w < 0.55 ? Qt::white : Qt::black);
        text->setSelectable(false);
      }
    }
  }
  return map;
}

/// Puts the plot's convenience pointers on rect's axes (xAxis2 = keys, yAxis = queries).
void adoptAxes(QCustomPlot& plot, QCPAxisRect* rect) {
  plot.xAxis = rect->axis(QCPAxis::atBottom);
  plot.yAxis = rect->axis(QCPAxis::atLeft);
  plot.xAxis2 = rect->axis(QCPAxis::atTop);
  plot.yAxis2 = rect->axis(QCPAxis::atRight);
}

/// Row 1 of the plot layout: a grid for the panels (returned) and the shared colour scale beside it.
std::pair<QCPLayoutGrid*, QCPColorScale*> addPanelArea(QCustomPlot& plot, int spacing_x, int spacing_y) {
  auto* body = new QCPLayoutGrid;
  plot.plotLayout()->addElement(1, 0, body);
  body->setMargins(QMargins(0, 0, 0, 10));  // room below the bar for its "0" label
  auto* panels = new QCPLayoutGrid;
  body->addElement(0, 0, panels);
  panels->setColumnSpacing(spacing_x);
  panels->setRowSpacing(spacing_y);
  QCPColorScale* scale = addColorScale(plot, body, 0, 1, kSingleFonts);
  body->setColumnStretchFactor(1, 0.01);
  return {panels, scale};
}

QCPMarginGroup* newMarginGroup(QCustomPlot& plot) {
  auto* group = new QCPMarginGroup(&plot);
  group->setObjectName(QLatin1String(kMarginGroupName));
  return group;
}

}  // namespace

QString mechanismTitle(Mechanism mechanism) {
  switch (mechanism) {
    case Mechanism::kAdditive:
      return viewText("additive");
    case Mechanism::kDot:
      return viewText("dot-product");
    case Mechanism::kScaled:
      return viewText("scaled dot-product");
  }
  return viewText("attention");
}

void setFontScale(QCustomPlot& plot, double factor) {
  plot.setProperty("attnlabViewsFontScale", factor > 0 && std::isfinite(factor) ? factor : 1.0);
}

double fontScale(const QCustomPlot& plot) {
  bool ok = false;
  const double factor = plot.property("attnlabViewsFontScale").toDouble(&ok);
  return ok && factor > 0 ? factor : 1.0;
}

QString scalingText(const AttentionSpec& spec) {
  if (spec.temperature) return QStringLiteral("T = %1").arg(*spec.temperature, 0, 'g', 4);
  switch (spec.mechanism) {
    case Mechanism::kAdditive:
      return viewText("additive");
    case Mechanism::kDot:
      return viewText("unscaled");
    case Mechanism::kScaled:
      return viewText("scaled 1/√d_k");
  }
  return {};
}

void clearPlot(QCustomPlot& plot) {
  plot.clearItems();
  plot.clearPlottables();
  plot.plotLayout()->clear();
  const auto groups = plot.findChildren<QCPMarginGroup*>(QLatin1String(kMarginGroupName),
                                                         Qt::FindDirectChildrenOnly);
  for (QCPMarginGroup* group : groups) delete group;
  plot.xAxis = plot.yAxis = plot.xAxis2 = plot.yAxis2 = nullptr;
  plot.legend = nullptr;
}

void drawHeatmap(QCustomPlot& plot, const AttentionResult& result, int head,
                 const QStringList& query_tokens, const QStringList& key_tokens,
                 const RunLabel& label) {
  checkResult(result);
  if (head < 0 || head >= result.heads()) {
    throw Error(ErrorCode::kInvalidArgument, "head " + std::to_string(head) +
                                                 " does not exist (the result has " +
                                                 std::to_string(result.heads()) + " heads)");
  }
  const QStringList query_labels = labelsFor(query_tokens, result.nQ(), "query_tokens");
  const QStringList key_labels = labelsFor(key_tokens, result.nK(), "key_tokens");
  const double cell_px = onScreenCellPixels(plot, result.nQ(), result.nK(), 1,
                                            singleCellPixels(result.nQ(), result.nK()));
  Fonts fonts = kSingleFonts;
  fonts.tick = std::clamp(cell_px / 4.0, kSingleFonts.tick, 14.0);  // big tokens when few

  clearPlot(plot);
  QCPLayoutGrid* layout = plot.plotLayout();
  layout->setRowSpacing(4);
  addTitle(plot, titleText(result, label, viewText("head %1").arg(head)), fonts.title,
           titleWidth(plot, defaultHeatmapSize(result.nQ(), result.nK(), 1).width));

  auto* body = new QCPLayoutGrid;
  layout->addElement(1, 0, body);
  auto* rect = new QCPAxisRect(&plot);
  body->addElement(0, 0, rect);
  QCPColorScale* scale = addColorScale(plot, body, 0, 1, fonts);
  body->setColumnStretchFactor(1, 0.01);
  QCPMarginGroup* group = newMarginGroup(plot);
  rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
  scale->setMarginGroup(QCP::msTop | QCP::msBottom, group);

  const PanelSetup setup{
      &fonts, cell_px, kSingleMaxLabels,
      true,   true,    std::max(result.nQ(), result.nK()) <= kMaxAnnotatedTokens};
  QCPColorMap* map = drawPanel(plot, rect, result, head, query_labels, key_labels, setup);
  map->setColorScale(scale);

  if (anyMasked(result)) {
    QCPTextElement* note = addText(plot, layout, 2, 0, maskedNote(result.mask),
                                   sizedFont(plot, fonts.note), QColor(0x50, 0x50, 0x50));
    note->setTextFlags(Qt::AlignRight | Qt::AlignVCenter);
  }
  adoptAxes(plot, rect);
  // Annotated maps print weights as items, which a weights-only update would leave stale.
  plot.setProperty(kLayoutProperty,
                   setup.annotate ? QString()
                                  : layoutKey(result, head, query_tokens, key_tokens, label.cross));
}

void drawHeadGrid(QCustomPlot& plot, const AttentionResult& result, const QStringList& query_tokens,
                  const QStringList& key_tokens, const RunLabel& label) {
  checkResult(result);
  const int h = result.heads();
  const QStringList query_labels = labelsFor(query_tokens, result.nQ(), "query_tokens");
  const QStringList key_labels = labelsFor(key_tokens, result.nK(), "key_tokens");
  const double cell_px = onScreenCellPixels(plot, result.nQ(), result.nK(), h,
                                            panelCellPixels(result.nQ(), result.nK()));
  Fonts fonts = kGridFonts;
  fonts.tick = std::clamp(cell_px / 2.8, kGridFonts.tick, kSingleFonts.tick);  // CJK stays legible
  const int columns = gridColumns(plot, h, result.nQ(), result.nK());

  clearPlot(plot);
  QCPLayoutGrid* layout = plot.plotLayout();
  layout->setRowSpacing(4);
  const QString heads = h == 1 ? viewText("1 head") : viewText("%1 heads").arg(h);
  addTitle(plot, titleText(result, label, heads), fonts.title,
           titleWidth(plot, defaultHeatmapSize(result.nQ(), result.nK(), h).width));

  const auto [panels, scale] = addPanelArea(plot, 14, 10);

  PanelSetup setup{&fonts, cell_px, kGridMaxLabels, false, false, false};
  QCPMarginGroup* group = newMarginGroup(plot);
  QCPAxisRect* first = nullptr;
  for (int k = 0; k < h; ++k) {
    auto* panel = new QCPLayoutGrid;
    panels->addElement(k / columns, k % columns, panel);
    panel->setRowSpacing(0);
    addText(plot, panel, 0, 0, viewText("head %1").arg(k),
            sizedFont(plot, fonts.panel_title, true));
    auto* rect = new QCPAxisRect(&plot);
    panel->addElement(1, 0, rect);
    rect->setMarginGroup(QCP::msAll, group);
    setup.key_title = k < columns;         // first row
    setup.query_title = k % columns == 0;  // first column
    QCPColorMap* map = drawPanel(plot, rect, result, k, query_labels, key_labels, setup);
    map->setColorScale(scale);
    if (!first) first = rect;
  }
  // Keep empty slots of the last row the same size as the others.
  const int rows = (h + columns - 1) / columns;
  panels->expandTo(rows, columns);

  if (anyMasked(result)) {
    QCPTextElement* note = addText(plot, layout, 2, 0, maskedNote(result.mask),
                                   sizedFont(plot, fonts.note), QColor(0x50, 0x50, 0x50));
    note->setTextFlags(Qt::AlignRight | Qt::AlignVCenter);
  }
  adoptAxes(plot, first);
  plot.setProperty(kLayoutProperty, layoutKey(result, -1, query_tokens, key_tokens, label.cross));
}

bool updateWeights(QCustomPlot& plot, const AttentionResult& result, int head,
                   const QStringList& query_tokens, const QStringList& key_tokens,
                   const RunLabel& label) {
  if (result.heads() < 1 || result.nQ() < 1 || result.nK() < 1 ||
      result.weights.data.size() !=
          static_cast<std::size_t>(result.heads()) * result.nQ() * result.nK()) {
    return false;
  }
  if (head >= result.heads()) return false;
  const QString key = layoutKey(result, head, query_tokens, key_tokens, label.cross);
  if (plot.property(kLayoutProperty).toString() != key) return false;
  const int maps = head < 0 ? result.heads() : 1;
  if (plot.plottableCount() != maps) return false;
  std::vector<QCPColorMap*> colour_maps;
  for (int k = 0; k < maps; ++k) {
    auto* map = qobject_cast<QCPColorMap*>(plot.plottable(k));
    if (!map) return false;
    colour_maps.push_back(map);
  }
  for (int k = 0; k < maps; ++k) fillCells(*colour_maps[k], result, head < 0 ? k : head);

  // The title names d_k and the scaling, which may have changed.
  for (QCPLayoutElement* element : plot.plotLayout()->elements(false)) {
    auto* text = qobject_cast<QCPTextElement*>(element);
    if (!text || text->objectName() != QLatin1String("title")) continue;
    const int h = result.heads();
    const QString heads = head >= 0   ? viewText("head %1").arg(head)
                          : h == 1    ? viewText("1 head")
                                      : viewText("%1 heads").arg(h);
    const ImageSize size = defaultHeatmapSize(result.nQ(), result.nK(), head >= 0 ? 1 : h);
    const auto [title, font] =
        fitTitle(plot, titleText(result, label, heads), kSingleFonts.title, size.width);
    text->setText(title);
    text->setFont(font);
  }
  return true;
}

namespace {
constexpr double kThumbMin = 60, kThumbMax = 150;
double thumbnailPixels(int n_tokens) { return std::clamp(8.0 * n_tokens, kThumbMin, kThumbMax); }
}  // namespace

ImageSize defaultModelGridSize(int n_tokens, int layers, int heads) {
  const double thumb = thumbnailPixels(std::max(1, n_tokens));
  ImageSize size;
  size.width = static_cast<int>(std::clamp(90 + 140 + std::max(1, heads) * (thumb + 8), 500.0, 3000.0));
  size.height = static_cast<int>(std::clamp(150 + 60 + std::max(1, layers) * (thumb + 8), 400.0, 3000.0));
  return size;
}

void drawModelGrid(QCustomPlot& plot, const std::vector<AttentionResult>& layers,
                   const std::vector<int>& layer_indices, const QStringList& tokens,
                   const RunLabel& label) {
  if (layers.empty() || layers.size() != layer_indices.size()) {
    throw Error(ErrorCode::kInvalidArgument, "a model view needs one layer index per layer result");
  }
  for (const AttentionResult& r : layers) {
    checkResult(r);
    if (r.heads() != layers.front().heads() || r.nQ() != layers.front().nQ() ||
        r.nK() != layers.front().nK()) {
      throw Error(ErrorCode::kInvalidArgument, "the layers of a model view differ in shape");
    }
  }
  const AttentionResult& first_layer = layers.front();
  const int h = first_layer.heads();
  const auto rows = static_cast<int>(layers.size());
  const Fonts& fonts = kGridFonts;

  clearPlot(plot);
  QCPLayoutGrid* layout = plot.plotLayout();
  layout->setRowSpacing(4);
  QStringList parts;
  if (!label.extra.isEmpty()) parts << label.extra;
  parts << viewText("%1 layers × %2 heads").arg(rows).arg(h)
        << QStringLiteral("d_k = %1").arg(label.spec.resolvedDk()) << scalingText(label.spec);
  if (first_layer.mask == Mask::kCausal) parts << viewText("causal mask");
  addTitle(plot, parts.join(QStringLiteral(" · ")), fonts.title,
           titleWidth(plot, defaultModelGridSize(first_layer.nQ(), rows, h).width));

  const auto [panels, scale] = addPanelArea(plot, 6, 6);

  const QFont header_font = sizedFont(plot, fonts.panel_title, true);
  for (int k = 0; k < h; ++k) addText(plot, panels, 0, k + 1, viewText("head %1").arg(k), header_font);
  QCPMarginGroup* group = newMarginGroup(plot);
  const QStringList no_labels;
  PanelSetup setup{&fonts, thumbnailPixels(first_layer.nQ()) / first_layer.nQ(), 1, false, false, false};
  QCPAxisRect* first = nullptr;
  for (int r = 0; r < rows; ++r) {
    QCPTextElement* header = addText(
        plot, panels, r + 1, 0, viewText("layer %1").arg(layer_indices[static_cast<std::size_t>(r)]),
        header_font);
    // A text element's own size hint caps its row at one text line; the thumbnails need more.
    header->setMaximumSize(QWIDGETSIZE_MAX, 100000);
    for (int k = 0; k < h; ++k) {
      auto* rect = new QCPAxisRect(&plot);
      panels->addElement(r + 1, k + 1, rect);
      rect->setMarginGroup(QCP::msAll, group);
      rect->setAutoMargins(QCP::msNone);
      rect->setMargins(QMargins(1, 1, 1, 1));
      rect->setMinimumSize(12, 12);  // QCustomPlot's default 50 px overfills a narrow window
      QCPColorMap* map = drawPanel(plot, rect, layers[static_cast<std::size_t>(r)], k,
                                   labelsFor(no_labels, first_layer.nQ(), "tokens"),
                                   labelsFor(no_labels, first_layer.nK(), "tokens"), setup);
      for (QCPAxis* axis : {rect->axis(QCPAxis::atTop), rect->axis(QCPAxis::atLeft)}) {
        axis->setTickLabels(false);
        axis->setTicks(false);
      }
      map->setColorScale(scale);
      if (!first) first = rect;
    }
  }
  panels->setColumnStretchFactor(0, 0.01);
  panels->setRowStretchFactor(0, 0.01);

  // The tokens, so a thumbnail's rows and columns can be read: "0 [CLS] · 1 the · 2 cat …",
  // wrapped onto up to four lines.
  QStringList listed;
  for (int i = 0; i < tokens.size(); ++i) listed << QStringLiteral("%1 %2").arg(i).arg(tickLabel(tokens[i]));
  if (!listed.isEmpty()) listed.front().prepend(viewText("tokens (rows = queries, columns = keys): "));
  const QFont note_font = sizedFont(plot, fonts.note);
  const double width = 0.92 * titleWidth(plot, defaultModelGridSize(first_layer.nQ(), rows, h).width);
  const QString line = wrapParts(listed, QFontMetricsF(note_font), width, 4);
  int row = 2;
  QCPTextElement* list = addText(plot, layout, row++, 0, line, note_font, QColor(0x30, 0x30, 0x30));
  list->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
  if (anyMasked(first_layer)) {
    QCPTextElement* note = addText(plot, layout, row++, 0, maskedNote(first_layer.mask),
                                   sizedFont(plot, fonts.note), QColor(0x50, 0x50, 0x50));
    note->setTextFlags(Qt::AlignRight | Qt::AlignVCenter);
  }
  // The thumbnails take every pixel the text rows do not need.
  layout->setRowStretchFactor(0, 0.001);
  for (int r = 2; r < row; ++r) layout->setRowStretchFactor(r, 0.001);
  adoptAxes(plot, first);
  plot.setProperty(kLayoutProperty, QString());
}

std::vector<bool> specialTokenFilter(const Encoding& encoding, bool hide) {
  std::vector<bool> keep(encoding.ids.size(), true);
  if (!hide) return keep;
  for (std::size_t i = 0; i < keep.size() && i < encoding.special.size(); ++i) keep[i] = !encoding.special[i];
  if (std::find(keep.begin(), keep.end(), true) == keep.end()) {
    throw Error(ErrorCode::kInvalidInput,
                "every token is a special token: hiding them would leave nothing to show");
  }
  return keep;
}

AttentionResult keepTokens(const AttentionResult& result, const std::vector<bool>& keep) {
  if (result.nQ() != result.nK() || keep.size() != static_cast<std::size_t>(result.nQ())) {
    throw Error(ErrorCode::kInvalidArgument,
                "a token filter needs a self-attention result and one flag per token");
  }
  std::vector<int> kept;
  for (int i = 0; i < result.nQ(); ++i) {
    if (keep[static_cast<std::size_t>(i)]) kept.push_back(i);
  }
  if (kept.empty()) throw Error(ErrorCode::kInvalidArgument, "the filter hides every token");
  const auto n = static_cast<int>(kept.size());
  AttentionResult out;
  out.mechanism = result.mechanism;
  out.mask = result.mask;
  out.scale = result.scale;
  out.backend = result.backend;
  out.device = result.device;
  out.fallback_reason = result.fallback_reason;
  const bool has_scores = result.scores.data.size() == result.weights.data.size();
  out.scores = has_scores ? Tensor3(result.heads(), n, n) : Tensor3();
  out.weights = Tensor3(result.heads(), n, n);
  const Tensor3& outputs = result.head_outputs;
  const bool has_outputs = outputs.h == result.heads() && outputs.rows == result.nQ();
  out.head_outputs = has_outputs ? Tensor3(outputs.h, n, outputs.cols) : Tensor3();
  for (int k = 0; k < result.heads(); ++k) {
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (has_scores) out.scores(k, a, b) = result.scores(k, kept[a], kept[b]);
        out.weights(k, a, b) = result.weights(k, kept[a], kept[b]);
      }
      if (has_outputs) std::copy_n(outputs.row(k, kept[a]), outputs.cols, out.head_outputs.row(k, a));
    }
  }
  for (const HeadStats& st : result.stats) {
    HeadStats filtered;
    for (int i : kept) {
      filtered.max_weight.push_back(st.max_weight.at(i));
      filtered.entropy.push_back(st.entropy.at(i));
      filtered.normalized_entropy.push_back(st.normalized_entropy.at(i));
      filtered.effective_keys.push_back(st.effective_keys.at(i));
      filtered.jacobian_norm.push_back(st.jacobian_norm.at(i));
    }
    out.stats.push_back(std::move(filtered));
  }
  return out;
}

ImageSize defaultHeatmapSize(int n_q, int n_k, int heads_in_image) {
  n_q = std::max(1, n_q);
  n_k = std::max(1, n_k);
  const int h = std::max(1, heads_in_image);
  ImageSize size;
  if (h == 1) {
    const double cell = singleCellPixels(n_q, n_k);
    size.width = static_cast<int>(std::clamp(kSingleMarginX + n_k * cell, 500.0, 1600.0));
    size.height = static_cast<int>(std::clamp(kSingleMarginY + n_q * cell, 500.0, 1600.0));
    return size;
  }
  const int columns = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(h))));
  const int rows = (h + columns - 1) / columns;
  const double cell = panelCellPixels(n_q, n_k);
  const double panel_w = kPanelMarginX + n_k * cell;
  const double panel_h = kPanelMarginY + n_q * cell;
  size.width = static_cast<int>(std::clamp(kGridMarginX + columns * panel_w, 500.0, 2600.0));
  size.height = static_cast<int>(std::clamp(kGridMarginY + rows * panel_h, 400.0, 2600.0));
  return size;
}

}  // namespace attnlab::views
