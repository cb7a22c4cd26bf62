/// \file heatmap_paint.cpp
/// Colour scales, cells (pooled for overviews) and the decoration item shared by the heatmap
/// pictures; a drawn picture's geometry is read back in heatmap_query.cpp.

#include "views/heatmap_paint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/error.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "views/picture.hpp"
#include "views/ready_maps.hpp"

namespace attnlab::views {
namespace {

/// Tokens longer than this many characters are elided in tick labels.
constexpr int kMaxLabelChars = 14;
/// The buffered layer of the colour maps and of the texts that change with them (replotCells).
constexpr char kCellsLayer[] = "attnlab_cells";
/// Largest map (cells) that SVG and PDF get as vector rectangles; bigger maps are embedded images.
constexpr int kMaxVectorCells = 160 * 160;

QString superscript(int value) {
  static const QString digits = QStringLiteral("⁰¹²³⁴⁵⁶⁷⁸⁹");
  QString out = value < 0 ? QStringLiteral("⁻") : QString();
  for (QChar c : QString::number(std::abs(value))) out += digits.at(c.digitValue());
  return out;
}

QString poolText(Pool pool) {
  return pool == Pool::kMax ? viewText("block max") : viewText("block mean");
}

/// A QCPColorMap that paints its cells as filled rectangles when the painter is vectorized (SVG,
/// PDF export), so exported heatmaps stay sharp at any zoom and stay editable; on screen and in
/// PNG it draws the usual image. Maps above kMaxVectorCells keep the image everywhere.
class CellColorMap : public QCPColorMap {
 public:
  using QCPColorMap::QCPColorMap;
  /// Cells (key cell, query cell) drawn in kNonfiniteColor and cells marked with a dropout ×,
  /// set by fillMap with the weights (the map colours its cells itself again).
  void setMarks(std::vector<QPoint> nonfinite_cells, std::vector<QPoint> dropped_cells) {
    nonfinite = std::move(nonfinite_cells);
    dropped = std::move(dropped_cells);
    ready_image_ = QImage();
  }
  /// Cells filled elsewhere (ready_maps.hpp): a copy of their data, their marks, and their image,
  /// drawn as QCPColorMap::updateMapImage would have made it.
  void setReady(const ReadyCells& cells) {
    *data() = *cells.data;  // a copy: the result that holds them stays immutable
    nonfinite = cells.nonfinite;
    dropped = cells.dropped;
    ready_image_ = cells.image;
    mMapImageInvalidated = true;
  }
  bool drawsReady() const { return !ready_image_.isNull(); }

 protected:
  void draw(QCPPainter* painter) override {
    drawCells(painter);
    drawMarks(painter);
  }
  /// The ready image when there is one (QCPColorMap::draw calls this whenever the data changed,
  /// so the cells are never coloured twice), else QCustomPlot's own colouring.
  void updateMapImage() override {
    if (ready_image_.isNull()) {
      QCPColorMap::updateMapImage();
      return;
    }
    mMapImage = ready_image_;
    mMapImageInvalidated = false;
  }

 private:
  // The rectangle of cell (k, v), px.
  QRectF cellRect(int k, int v) {
    QCPColorMapData* cells = data();
    const double half_key = 0.5 * cells->keyRange().size() / std::max(1, cells->keySize() - 1);
    const double half_value = 0.5 * cells->valueRange().size() / std::max(1, cells->valueSize() - 1);
    double key = 0, value = 0;
    cells->cellToCoord(k, v, &key, &value);
    return QRectF(coordsToPixels(key - half_key, value - half_value),
                  coordsToPixels(key + half_key, value + half_value)).normalized();
  }

  std::vector<QPoint> nonfinite, dropped;
  QImage ready_image_;  ///< Set by setReady; null: QCustomPlot colours the cells.

  void drawMarks(QCPPainter* painter) {
    if ((nonfinite.empty() && dropped.empty()) || !keyAxis() || !valueAxis()) return;
    painter->save();
    painter->setAntialiasing(false);
    painter->setPen(Qt::NoPen);
    painter->setBrush(kNonfiniteColor);
    for (const QPoint& c : nonfinite) painter->drawRect(cellRect(c.x(), c.y()).adjusted(-0.25, -0.25, 0.25, 0.25));
    painter->setAntialiasing(true);
    painter->setBrush(Qt::NoBrush);
    for (const QPoint& c : dropped) {
      const QRectF r = cellRect(c.x(), c.y());
      const double inset = r.width() * 0.22;
      const QRectF x = r.adjusted(inset, inset, -inset, -inset);
      const double width = std::max(1.0, r.width() / 14);
      for (const QPen& pen : {QPen(Qt::black, width * 2.2, Qt::SolidLine, Qt::RoundCap),
                              QPen(kDroppedMarkColor, width, Qt::SolidLine, Qt::RoundCap)}) {
        painter->setPen(pen);
        painter->drawLine(x.topLeft(), x.bottomRight());
        painter->drawLine(x.topRight(), x.bottomLeft());
      }
    }
    painter->restore();
  }

  void drawCells(QCPPainter* painter) {
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
        painter->setBrush(QColor::fromRgb(run_color));
        painter->drawRect(QRectF(a, b).normalized().adjusted(-kOverlap, -kOverlap, kOverlap, kOverlap));
        run_start = k;
        run_color = color;
      }
    }
  }
};

}  // namespace

ColorScale resolvedScale(ColorScale wanted, int n_k, int block) {
  if (wanted != ColorScale::kAuto) return wanted;
  return block == 1 && n_k <= kAutoLinearTokens ? ColorScale::kLinear : ColorScale::kLog;
}

double ScaleSpec::value(double p) const {
  switch (scale) {
    case ColorScale::kDifference:
      return std::clamp(p, lo, hi);
    case ColorScale::kLog:
      return std::log10(std::max(p, std::pow(10.0, lo)));
    case ColorScale::kRelative:
      return std::clamp(std::log2(std::max(p, 1e-300)), lo, hi);
    default:
      return p;
  }
}

QColor ScaleSpec::color(double v) const {
  if (std::isnan(v)) return gradient.nanColor();
  QCPColorGradient g = gradient;
  return QColor::fromRgb(g.color(v, QCPRange(lo, hi)));
}

namespace {

/// The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 (× a power of ten) at least x; 0.1 for x = 0.
double niceCeil(double x) {
  if (!(x > 0) || !std::isfinite(x)) return 0.1;
  const double p = std::pow(10.0, std::floor(std::log10(x)));
  for (double m : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
    if (m * p >= x * (1 - 1e-12)) return m * p;
  return 10 * p;
}

}  // namespace

double largestMagnitude(const AttentionResult& result) {
  double m = 0;
  for (float w : result.weights.data)
    if (std::isfinite(w)) m = std::max(m, static_cast<double>(std::fabs(w)));
  return m;
}

QStringList withPictureTitle(const QCustomPlot& plot, const QStringList& run_parts, const QStringList& rest) {
  const PictureTitle t = pictureTitle(plot);
  QStringList parts = t.lead;
  // A part the lead already says (a sweep's "d_k = 64", "T = 0.1" of "dot-product · T = 0.1")
  // is not said twice.
  for (const QString& part : (t.replace.isEmpty() ? run_parts : t.replace) + rest) {
    QStringList kept;
    for (const QString& piece : part.split(QStringLiteral(" · ")))
      if (!t.lead.contains(piece)) kept << piece;
    if (!kept.isEmpty()) parts << kept.join(QStringLiteral(" · "));
  }
  return parts;
}

void applyBarTitle(const QCustomPlot& plot, ScaleSpec& scale) {
  const PictureTitle t = pictureTitle(plot);
  if (!t.bar_title.isEmpty()) scale.bar.title = t.bar_title;
}

void setPictureTitle(QCustomPlot& plot, const PictureTitle& title) {
  plot.setProperty("attnlabTitleLead", title.lead);
  plot.setProperty("attnlabTitleReplace", title.replace);
  plot.setProperty("attnlabTitleBar", title.bar_title);
}

PictureTitle pictureTitle(const QCustomPlot& plot) {
  PictureTitle t;
  t.lead = plot.property("attnlabTitleLead").toStringList();
  t.replace = plot.property("attnlabTitleReplace").toStringList();
  t.bar_title = plot.property("attnlabTitleBar").toString();
  return t;
}

ScaleSpec makeScale(ColorScale wanted, Pool pool, int n_k, int block, double extent) {
  ScaleSpec s;
  s.scale = resolvedScale(wanted, n_k, block);
  s.pool = pool;
  s.pooled = block > 1;
  s.n_k = std::max(1, n_k);
  const QString pooled = s.pooled ? QStringLiteral(", ") + poolText(pool) : QString();
  switch (s.scale) {
    case ColorScale::kLinear:
    case ColorScale::kAuto:
      s.scale = ColorScale::kLinear;
      s.lo = 0;
      s.hi = 1;
      s.gradient = viridisGradient();
      for (int i = 0; i <= 5; ++i) s.bar.ticks.push_back({i / 5.0, QString::number(i / 5.0, 'g', 2)});
      s.bar.title = viewText("attention weight") + pooled;
      break;
    case ColorScale::kLog: {
      // A decade below the uniform level: the weights of long rows spread around 1/n_k.
      s.lo = std::floor(std::log10(0.1 / s.n_k));
      s.hi = 0;
      s.gradient = viridisGradient();
      for (int d = static_cast<int>(s.lo); d <= 0; ++d) {
        s.bar.ticks.push_back({(d - s.lo) / (s.hi - s.lo),
                               d == 0 ? QStringLiteral("1") : QStringLiteral("10") + superscript(d)});
      }
      s.bar.mark = BarTick{(std::log10(1.0 / s.n_k) - s.lo) / (s.hi - s.lo),
                           viewText("uniform 1/%1").arg(s.n_k)};
      s.bar.title = viewText("attention weight (log scale)") + pooled;
      break;
    }
    case ColorScale::kDifference: {
      const double m = niceCeil(extent);
      s.lo = -m;
      s.hi = m;
      s.gradient = divergingGradient();
      for (int k = -2; k <= 2; ++k) {
        if (k == 0) continue;
        const double v = m * k / 2;
        s.bar.ticks.push_back({(k + 2) / 4.0, (v > 0 ? QStringLiteral("+") : QStringLiteral("−")) +
                                                  QString::number(std::fabs(v), 'g', 3)});
      }
      s.bar.mark = BarTick{0.5, viewText("0 = equal")};
      s.bar.title = viewText("Δ attention weight (A − B)") + pooled;
      break;
    }
    case ColorScale::kRelative: {
      const int bits = std::clamp(static_cast<int>(std::ceil(std::log2(std::max(2, s.n_k)))), 1, 5);
      s.lo = -bits;
      s.hi = bits;
      s.gradient = divergingGradient();
      for (int k = -bits; k <= bits; ++k) {
        if (k == 0) continue;
        const QString text = k > 0 ? QStringLiteral("×%1").arg(1 << k) : QStringLiteral("×1/%1").arg(1 << -k);
        s.bar.ticks.push_back({(k + bits) / (2.0 * bits), text});
      }
      s.bar.mark = BarTick{0.5, viewText("×1 = uniform")};
      s.bar.title = viewText("weight ÷ uniform (log scale)") + pooled;
      break;
    }
  }
  return s;
}

void fillMap(QCPColorMap& map, const AttentionResult& result, int head, const MapGeometry& g,
             const ScaleSpec& scale) {
  fillMap(map, mapValues(result, head, g, scale));
}

void fillMap(QCPColorMap& map, MapValues v) {
  QCPColorMapData* cells = map.data();
  if (cells->keySize() != v.key_cells || cells->valueSize() != v.query_cells) cells->setSize(v.key_cells, v.query_cells);
  // Always: a new QCPColorMap starts as 10 × 10 cells over the range 0–5, so a 10-token map that
  // skipped this (its size already "right") was drawn into the top-left 0.56 of its frame.
  cells->setRange(v.key_range, v.value_range);
  for (int r = 0; r < v.query_cells; ++r)
    for (int c = 0; c < v.key_cells; ++c)
      cells->setCell(c, r, v.values[static_cast<std::size_t>(r) * static_cast<std::size_t>(v.key_cells) + c]);
  if (auto* marks = dynamic_cast<CellColorMap*>(&map)) marks->setMarks(std::move(v.nonfinite), std::move(v.dropped));
}

bool setReadyCells(QCPColorMap& map, const ReadyCells& cells) {
  auto* target = dynamic_cast<CellColorMap*>(&map);
  if (!target || !cells.data) return false;
  target->setReady(cells);
  return true;
}

bool drawsReadyImage(const QCPColorMap& map) {
  const auto* target = dynamic_cast<const CellColorMap*>(&map);
  return target && target->drawsReady();
}

LayoutFonts pictureFonts(const QCustomPlot& plot, bool grid, int n_tokens) {
  const double scale = fontScale(plot);
  auto font = [&plot](double points, double by, bool bold = false) {
    QFont f = plot.font();
    f.setPointSizeF(points * by);
    f.setBold(bold);
    return f;
  };
  // Large type (presentation) on a projector's small canvas: the title and the predictions grow
  // by 1.3 at most, so that three title lines do not leave the map a third of a 1024 × 768
  // screen (issue 50); the labels keep the full scale.
  const double headline =
      canvasSize(plot, plot.size()).height() < 900 ? std::min(scale, 1.3) : scale;
  LayoutFonts fonts;
  fonts.title = font(14, headline, true);
  fonts.panel_title = font(grid ? 10.5 : 11, scale, true);
  fonts.axis_title = font(11, scale, true);
  // Big labels for few tokens (a projector), smaller ones for many.
  const double tick = grid ? (n_tokens <= 12 ? 11 : 10) : (n_tokens <= 12 ? 13 : 12);
  fonts.tick = font(tick, scale);
  // Large type (presentation) may shrink further before labels are thinned or staggered: the map
  // must keep its room on a small projector too.
  fonts.min_tick_points = 7 * std::min(scale, 1.25);
  fonts.note = font(9.5, scale);
  fonts.bar_title = font(10.5, scale);
  fonts.next_tokens = font(grid ? 11 : 12, headline);
  fonts.group_label = font(10.5, scale, true);
  return fonts;
}

HeatmapDecor::HeatmapDecor(QCustomPlot* plot, HeatmapLayout layout, ScaleSpec scale)
    : QCPAbstractItem(plot), layout_(std::move(layout)), scale_(std::move(scale)) {
  setClipToAxisRect(false);
  setSelectable(false);
}

void HeatmapDecor::draw(QCPPainter* painter) {
  painter->save();
  painter->setAntialiasing(false);
  const QPen frame(QColor(0x60, 0x60, 0x60), 1.0);
  painter->setBrush(Qt::NoBrush);
  painter->setPen(frame);
  for (const MapGeometry& map : layout_.maps) {
    if (map.group >= 0 && layout_.groups.empty()) {
      // A K/V group's map: a thick frame in the group's colour just outside the cells.
      const double d = kGroupFramePx / 2 + 0.5;
      painter->setPen(QPen(kvGroupColor(map.group), kGroupFramePx, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
      painter->drawRect(map.cells.adjusted(-d, -d, d, d));
      painter->setPen(frame);
      continue;
    }
    painter->drawRect(map.cells.adjusted(-0.5, -0.5, 0.5, 0.5));
  }
  if (layout_.pad_from >= 0) {
    // [PAD] query rows: hatched over their cells, so padding never reads as weights or as the
    // grey of masked cells.
    painter->setPen(Qt::NoPen);
    painter->setBrush(QBrush(kPaddingHatchColor, Qt::BDiagPattern));
    for (const MapGeometry& map : layout_.maps) {
      if (layout_.pad_from >= map.n_q) continue;
      const double top = map.cells.top() + map.cells.height() * layout_.pad_from / map.n_q;
      painter->drawRect(QRectF(map.cells.left(), top, map.cells.width(), map.cells.bottom() - top));
    }
    painter->setBrush(Qt::NoBrush);
    painter->setPen(frame);
  }
  for (const GroupBox& box : layout_.groups) {
    painter->setPen(QPen(kvGroupColor(box.group), 2.0, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
    painter->drawRect(box.rect);
  }
  painter->setPen(frame);
  if (!layout_.bar.isEmpty()) {
    const QRectF& bar = layout_.bar;
    const bool across = layout_.bar_across;  // low values left, tick marks below
    QImage strip(across ? 256 : 1, across ? 1 : 256, QImage::Format_RGB32);
    for (int i = 0; i < 256; ++i) {
      const double v = scale_.lo + (scale_.hi - scale_.lo) * (across ? i : 255 - i) / 255.0;
      strip.setPixel(across ? i : 0, across ? 0 : i, scale_.color(v).rgb());
    }
    painter->drawImage(bar, strip);
    painter->setPen(frame);
    painter->drawRect(bar);
    for (double position : layout_.bar_ticks) {
      if (across) {
        const double x = bar.left() + position * bar.width();
        painter->drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + 4));
      } else {
        const double y = bar.bottom() - position * bar.height();
        painter->drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y));
      }
    }
    if (layout_.bar_mark) {
      painter->setPen(QPen(QColor(0xc0, 0x00, 0x40), 2.0));
      if (across) {
        const double x = bar.left() + *layout_.bar_mark * bar.width();
        painter->drawLine(QPointF(x, bar.top() - 3), QPointF(x, bar.bottom() + 4));
      } else {
        const double y = bar.bottom() - *layout_.bar_mark * bar.height();
        painter->drawLine(QPointF(bar.left() - 3, y), QPointF(bar.right() + 4, y));
      }
    }
  }
  painter->setAntialiasing(true);
  for (const DrawnText& text : layout_.texts) {
    if (!ChangingTexts::draws(text)) drawText(*painter, text);
  }
  painter->restore();
}

ChangingTexts::ChangingTexts(QCustomPlot* plot, HeatmapDecor* decor) : QCPAbstractItem(plot), decor_(decor) {
  setClipToAxisRect(false);
  setSelectable(false);
  setLayer(QLatin1String(kCellsLayer));
}

bool ChangingTexts::draws(const DrawnText& text) {
  return text.role == QLatin1String("title") || text.role == QLatin1String("cell_value") ||
         text.role == QLatin1String("next_tokens");
}

void ChangingTexts::draw(QCPPainter* painter) {
  if (!decor_) return;
  painter->save();
  painter->setAntialiasing(true);
  for (const DrawnText& text : decor_->layout().texts) {
    if (draws(text)) drawText(*painter, text);
  }
  painter->restore();
}

void replotCells(QCustomPlot& plot) {
  if (QCPLayer* layer = plot.layer(kCellsLayer)) {
    layer->replot();
  } else {
    plot.replot();
  }
}

QCPLayoutInset* startPicture(QCustomPlot& plot) {
  clearPlot(plot);
  if (!plot.layer(kCellsLayer)) {
    plot.addLayer(kCellsLayer, plot.layer(QStringLiteral("main")), QCustomPlot::limBelow);
    plot.layer(kCellsLayer)->setMode(QCPLayer::lmBuffered);
  }
  auto* inset = new QCPLayoutInset;
  plot.plotLayout()->addElement(0, 0, inset);
  plot.plotLayout()->setMargins(QMargins(0, 0, 0, 0));
  return inset;
}

QCPColorMap* addMap(QCustomPlot& plot, QCPLayoutInset* inset, const MapGeometry& g,
                    const ScaleSpec& scale, const QString& name) {
  auto* rect = new QCPAxisRect(&plot);
  rect->setAutoMargins(QCP::msNone);
  rect->setMargins(QMargins(0, 0, 0, 0));
  rect->setMinimumMargins(QMargins(0, 0, 0, 0));
  rect->setMinimumSize(1, 1);
  rect->setRangeDrag(Qt::Orientations());
  rect->setRangeZoom(Qt::Orientations());
  // The inset places elements by fractions of its rect, truncating to whole pixels: aim at the
  // middle of the pixel so the truncation lands on the layout's pixel.
  const QSize canvas = decorOf(plot) ? decorOf(plot)->layout().canvas : plot.size();
  const double w = std::max(1, canvas.width()), h = std::max(1, canvas.height());
  inset->addElement(rect, QRectF((g.cells.x() + 0.5) / w, (g.cells.y() + 0.5) / h,
                                 (g.cells.width() + 0.5) / w, (g.cells.height() + 0.5) / h));
  QCPAxis* keys = rect->axis(QCPAxis::atTop);
  QCPAxis* queries = rect->axis(QCPAxis::atLeft);
  for (QCPAxis* axis : rect->axes()) axis->setVisible(false);
  keys->setRange(-0.5, g.columns - 0.5);
  queries->setRange(-0.5, g.rows - 0.5);
  queries->setRangeReversed(true);  // query 0 at the top, like reading a matrix
  auto* map = new CellColorMap(keys, queries);
  map->setLayer(QLatin1String(kCellsLayer));
  map->setInterpolate(false);
  map->setTightBoundary(false);
  map->setGradient(scale.gradient);
  map->setDataRange(QCPRange(scale.lo, scale.hi));
  map->setName(name);
  if (auto* decor = decorOf(plot)) decor->rects.push_back(rect);
  return map;
}

HeatmapDecor* decorOf(const QCustomPlot& plot) {
  for (int i = 0; i < plot.itemCount(); ++i)
    if (auto* decor = qobject_cast<HeatmapDecor*>(plot.item(i))) return decor;
  return nullptr;
}

QStringList tickLabels(const QStringList& tokens, int n, const char* what) {
  QStringList labels;
  if (tokens.isEmpty()) {
    for (int i = 0; i < n; ++i) labels << QString::number(i);
    return labels;
  }
  if (tokens.size() != n) {
    throw Error(ErrorCode::kInvalidArgument, std::string(what) + " has " + std::to_string(tokens.size()) +
                                                 " entries but the result has " + std::to_string(n));
  }
  for (const QString& token : tokens) {
    QString text = token.trimmed().isEmpty() ? QStringLiteral("␣") : token;
    text.replace(QLatin1Char('\n'), QStringLiteral("⏎"));
    if (text.size() > kMaxLabelChars) {
      int cut = kMaxLabelChars - 1;
      if (text.at(cut - 1).isHighSurrogate()) --cut;  // never split a surrogate pair (emoji)
      text = text.left(cut) + QStringLiteral("…");
    }
    labels << text;
  }
  return labels;
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

QString kvCacheMaskedNote(const MaskPattern& pattern) {
  return pattern.global > 0
             ? viewText("grey = masked: a later key (causal) or one the KV cache evicted (it keeps "
                        "the last %1 tokens and the first %2)")
                   .arg(pattern.window)
                   .arg(pattern.global)
             : viewText("grey = masked: a later key (causal) or one the KV cache evicted (it keeps "
                        "the last %1 tokens)")
                   .arg(pattern.window);
}

bool anyMasked(const AttentionResult& result) {
  const MaskPattern pattern = result.pattern();
  if (pattern.none()) return false;
  for (int i = 0; i < result.nQ(); ++i)
    if (pattern.visibleCount(i, result.nK()) < result.nK()) return true;
  return false;
}

}  // namespace attnlab::views
