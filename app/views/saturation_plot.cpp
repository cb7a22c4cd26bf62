/// \file saturation_plot.cpp
/// The softmax-saturation plot: how peaked the attention rows get as d_k grows, with and without
/// the 1/√d_k scale (Vaswani et al. 2017, §3.2.1).

#include <qcustomplot.h>

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "views.hpp"

namespace attnlab::views {
namespace {

// Okabe–Ito colours: distinguishable with every common colour-vision deficiency and in grey.
const QColor kMaxWeightColor(0x00, 0x72, 0xb2);  // blue
const QColor kEntropyColor(0xd5, 0x5e, 0x00);    // vermillion
const QColor kJacobianColor(0x00, 0x9e, 0x73);   // bluish green
const QColor kMarkerLineColor(0x55, 0x55, 0x55);

std::vector<SaturationPoint> sortedByDk(std::vector<SaturationPoint> points) {
  std::sort(points.begin(), points.end(),
            [](const SaturationPoint& a, const SaturationPoint& b) { return a.d_k < b.d_k; });
  points.erase(std::remove_if(points.begin(), points.end(),
                              [](const SaturationPoint& p) { return p.d_k < 1; }),
               points.end());
  return points;
}

/// The three quantities a curve can show (also the order of the model curves, two per quantity).
enum Quantity : int { kMaxWeight = 0, kEntropy = 1, kJacobian = 2 };

double valueOf(const SaturationPoint& point, int quantity) {
  return quantity == kEntropy    ? point.mean_norm_entropy
         : quantity == kJacobian ? point.mean_jacobian_norm
                                 : point.mean_max_weight;
}
double& valueOf(SaturationPoint& point, int quantity) {
  return quantity == kEntropy    ? point.mean_norm_entropy
         : quantity == kJacobian ? point.mean_jacobian_norm
                                 : point.mean_max_weight;
}
QColor colorOf(int quantity) {
  return quantity == kEntropy ? kEntropyColor : quantity == kJacobian ? kJacobianColor : kMaxWeightColor;
}

/// The curve's value at d (linear interpolation in log2 d_k, constant beyond the ends).
std::optional<double> valueAt(const std::vector<SaturationPoint>& points, double d, int quantity) {
  if (points.empty()) return std::nullopt;
  if (d <= points.front().d_k) return valueOf(points.front(), quantity);
  if (d >= points.back().d_k) return valueOf(points.back(), quantity);
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (d <= points[i].d_k) {
      const double x0 = std::log2(points[i - 1].d_k);
      const double x1 = std::log2(points[i].d_k);
      const double f = x1 > x0 ? (std::log2(d) - x0) / (x1 - x0) : 1.0;
      return valueOf(points[i - 1], quantity) +
             f * (valueOf(points[i], quantity) - valueOf(points[i - 1], quantity));
    }
  }
  return valueOf(points.back(), quantity);
}

QCPGraph* addSeries(QCustomPlot& plot, QCPAxis* x, QCPAxis* y,
                    const std::vector<SaturationPoint>& points, int quantity) {
  QCPGraph* graph = plot.addGraph(x, y);
  QVector<double> keys;
  QVector<double> values;
  for (const SaturationPoint& point : points) {
    keys << point.d_k;
    values << valueOf(point, quantity);
  }
  graph->setData(keys, values, true);
  return graph;
}


/// Name of the plot property: the scaling whose curves are drawn thick.
constexpr char kScaledProperty[] = "attnlabSaturationScaled";
/// The buffered layer of the d_k marker, so that moving it replots only that layer.
constexpr char kMarkerLayer[] = "attnlab_marker";

/// The points of curve (quantity, scaled) as drawn: graphs 0–5 are max/scaled, max/unscaled,
/// entropy/scaled, entropy/unscaled, Jacobian/scaled, Jacobian/unscaled.
std::vector<SaturationPoint> drawnCurve(const QCustomPlot& plot, int quantity, bool scaled) {
  std::vector<SaturationPoint> points;
  const int index = 2 * quantity + (scaled ? 0 : 1);
  if (index >= plot.graphCount()) return points;
  for (auto it = plot.graph(index)->data()->constBegin(); it != plot.graph(index)->data()->constEnd(); ++it) {
    SaturationPoint p;
    p.d_k = static_cast<int>(std::lround(it->key));
    valueOf(p, quantity) = it->value;
    points.push_back(p);
  }
  return points;
}

/// The item of type T named `name` on plot, created on the marker layer when missing (items are
/// reused when the marker moves: a new item would invalidate the layer's paint buffer and turn
/// the marker's cheap replot into a full one).
template <class T>
T* markerItem(QCustomPlot& plot, const char* name, bool* created) {
  for (int i = 0; i < plot.itemCount(); ++i) {
    if (auto* item = qobject_cast<T*>(plot.item(i)); item && item->objectName() == QLatin1String(name)) {
      *created = false;
      return item;
    }
  }
  auto* item = new T(&plot);
  item->setObjectName(QLatin1String(name));
  item->setLayer(QLatin1String(kMarkerLayer));
  item->setSelectable(false);
  *created = true;
  return item;
}

/// The marker at current_d_k: a dotted vertical line, emphasised points with their values where
/// it crosses the current scaling's curves, and the label "d_k = 64 (unscaled)"; on its own
/// buffered layer, its items moved when they exist.
void placeMarker(QCustomPlot& plot, QCPAxisRect* rect, QCPAxis* x, QCPAxis* y, int current_d_k,
                 bool current_scaled) {
  if (!plot.layer(kMarkerLayer)) {
    plot.addLayer(kMarkerLayer, plot.layer(QStringLiteral("main")), QCustomPlot::limAbove);
    plot.layer(kMarkerLayer)->setMode(QCPLayer::lmBuffered);
  }
  if (current_d_k < 1) return;
  const double d = current_d_k;
  bool created = false;
  auto* line = markerItem<QCPItemStraightLine>(plot, "marker_line", &created);
  if (created) {
    line->setClipAxisRect(rect);
    line->point1->setAxes(x, y);
    line->point2->setAxes(x, y);
    line->setPen(QPen(kMarkerLineColor, 1.5, Qt::DotLine));
  }
  line->point1->setCoords(d, 0.0);
  line->point2->setCoords(d, 1.0);
  static const char* const kPointNames[] = {"marker_point_max", "marker_point_entropy", "marker_point_jacobian"};
  static const char* const kValueNames[] = {"marker_value_max", "marker_value_entropy", "marker_value_jacobian"};
  // Values are written on the side of the line with more room (at d_k = 1024 the right one is
  // the plot's edge), and a value close to one written before it goes a line higher.
  const bool right_half = std::log(d / x->range().lower) > std::log(x->range().upper / d);
  const QFont value_font = scaledFont(plot, 11, true);
  const int line_px = static_cast<int>(std::ceil(QFontMetricsF(value_font).height()));
  std::vector<double> written;
  for (int quantity : {kMaxWeight, kEntropy, kJacobian}) {
    const std::optional<double> value = valueAt(drawnCurve(plot, quantity, current_scaled), d, quantity);
    const QColor color = colorOf(quantity);
    auto* tracer = markerItem<QCPItemTracer>(plot, kPointNames[quantity], &created);
    if (created) {
      tracer->setClipAxisRect(rect);
      tracer->position->setAxes(x, y);
      tracer->setStyle(QCPItemTracer::tsCircle);
      tracer->setSize(15);
      tracer->setPen(QPen(Qt::black, 2.0));
      tracer->setBrush(color);
    }
    auto* value_text = markerItem<QCPItemText>(plot, kValueNames[quantity], &created);
    if (created) {
      value_text->setClipAxisRect(rect);
      value_text->position->setAxes(x, y);
      value_text->setFont(value_font);
      value_text->setColor(color.darker(120));
    }
    tracer->setVisible(value.has_value());
    value_text->setVisible(value.has_value());
    if (!value) continue;
    const int raised = static_cast<int>(std::count_if(written.begin(), written.end(),
                                                      [&](double v) { return std::fabs(v - *value) < 0.07; }));
    written.push_back(*value);
    // Near the top the text goes under its point: above it stands the "d_k = …" label.
    const bool below = *value > 0.85;
    // Below a point near the top: under the "d_k = …" label too (as tall as a line of this font
    // and its padding), whose top is at 1.02.
    const int lift = (below ? line_px + 10 : 6) + raised * line_px;
    value_text->setPositionAlignment((right_half ? Qt::AlignRight : Qt::AlignLeft) |
                                     (below ? Qt::AlignTop : Qt::AlignBottom));
    value_text->setPadding(QMargins(right_half ? 0 : 10, below ? lift : 0, right_half ? 10 : 0, below ? 0 : lift));
    tracer->position->setCoords(d, *value);
    value_text->position->setCoords(d, *value);
    value_text->setText(QString::number(*value, 'f', 2));
  }
  // The label sits at the top of the marker line, on whichever side has more room.
  auto* label = markerItem<QCPItemText>(plot, "marker_label", &created);
  if (created) {
    label->setClipAxisRect(rect);
    label->position->setAxes(x, y);
    label->setPadding(QMargins(4, 2, 4, 2));
    label->setFont(scaledFont(plot, 11, true));
    label->setColor(Qt::black);
    label->setBrush(QColor(255, 255, 255, 220));
  }
  label->position->setCoords(d, 1.02);
  label->setPositionAlignment((right_half ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
  label->setText(QStringLiteral("d_k = %1 (%2)")
                     .arg(current_d_k)
                     .arg(current_scaled ? viewText("scaled") : viewText("unscaled")));
}

}  // namespace

bool moveSaturationMarker(QCustomPlot& plot, int current_d_k, bool current_scaled) {
  const QVariant drawn = plot.property(kScaledProperty);
  if (!drawn.isValid() || drawn.toBool() != current_scaled || !plot.xAxis || !plot.yAxis ||
      plot.graphCount() < 6 || current_d_k < 1 || current_d_k < plot.xAxis->range().lower ||
      current_d_k > plot.xAxis->range().upper) {
    return false;
  }
  placeMarker(plot, plot.xAxis->axisRect(), plot.xAxis, plot.yAxis, current_d_k, current_scaled);
  return true;
}

void replotMarker(QCustomPlot& plot) {
  if (QCPLayer* layer = plot.layer(kMarkerLayer)) {
    layer->replot();
  } else {
    plot.replot();
  }
}

void drawSaturation(QCustomPlot& plot, const SaturationAnalysis& model,
                    const std::optional<SaturationAnalysis>& sentence, int current_d_k,
                    bool current_scaled) {
  clearPlot(plot);
  QCPLayoutGrid* layout = plot.plotLayout();
  layout->setRowSpacing(6);

  // Everything fits the plot's width (a narrow side panel included): the title and the legend
  // shrink (then wrap), the d_k labels are thinned to every other power of two.
  const double width = canvasSize(plot, QSize(760, 560)).width();
  const QString title_text = viewText("Softmax saturation vs d_k (n_k = %1 keys)").arg(model.n_k);
  QFont title_font = scaledFont(plot, 15, true);
  while (title_font.pointSizeF() > 8 && QFontMetricsF(title_font).horizontalAdvance(title_text) > width - 12)
    title_font.setPointSizeF(title_font.pointSizeF() - 0.5);
  QString shown_title = title_text;
  if (QFontMetricsF(title_font).horizontalAdvance(title_text) > width - 12)
    shown_title.replace(QStringLiteral(" ("), QStringLiteral("\n("));  // two lines at the smallest size
  auto* title = new QCPTextElement(&plot, shown_title, title_font);
  layout->addElement(0, 0, title);

  auto* rect = new QCPAxisRect(&plot);
  layout->addElement(1, 0, rect);
  rect->setRangeDrag(Qt::Orientations());
  rect->setRangeZoom(Qt::Orientations());
  QCPAxis* x = rect->axis(QCPAxis::atBottom);
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  const QFont tick_font = scaledFont(plot, 11);
  const QFont label_font = scaledFont(plot, 12);
  const QPen grid_pen(QColor(0xdd, 0xdd, 0xdd), 1.0, Qt::SolidLine);
  for (QCPAxis* axis : {x, y}) {
    axis->setTickLabelFont(tick_font);
    axis->setLabelFont(label_font);
    axis->grid()->setPen(grid_pen);
    axis->grid()->setZeroLinePen(grid_pen);
    axis->setSubTicks(false);
  }

  // x: d_k on a base-2 log axis, one labelled tick per power of two (1 2 4 … 1024).
  x->setScaleType(QCPAxis::stLogarithmic);
  auto log_ticker = QSharedPointer<QCPAxisTickerLog>::create();
  log_ticker->setLogBase(2);
  log_ticker->setSubTickCount(0);
  // One label per power of two while "1024" and a gap fit each; else every second or fourth.
  const double label_w = QFontMetricsF(scaledFont(plot, 11)).horizontalAdvance(QStringLiteral("1024")) + 10;
  const int octaves = 11;
  const int per_label = std::max(1, static_cast<int>(std::ceil(octaves * label_w / std::max(1.0, width - 80))));
  log_ticker->setTickCount(per_label == 1 ? 16 : std::max(2, octaves / std::min(per_label, 4)));
  x->setTicker(log_ticker);
  x->setNumberFormat(QStringLiteral("g"));
  x->setNumberPrecision(6);
  x->setLabel(viewText("d_k (log₂ scale)"));
  y->setLabel(viewText("mean over rows"));
  y->setRange(-0.02, 1.04);
  y->ticker()->setTickCount(6);

  const std::vector<SaturationPoint> scaled = sortedByDk(model.scaled);
  const std::vector<SaturationPoint> unscaled = sortedByDk(model.unscaled);

  // Six model curves: colour = quantity, line style = scaling; the current scaling is thicker.
  // ‖J‖ = ‖diag(p) − p pᵀ‖_F, the softmax's Jacobian: the gradient that reaches the scores
  // (Vaswani et al. 2017, §3.2.1 footnote: large dot products push the softmax where its
  // gradients are extremely small).
  struct CurveSpec {
    const std::vector<SaturationPoint>* points;
    int quantity;
    bool scaled;
    QString name;
  };
  const CurveSpec curves[] = {
      {&scaled, kMaxWeight, true, viewText("max weight, scaled 1/√d_k")},
      {&unscaled, kMaxWeight, false, viewText("max weight, unscaled")},
      {&scaled, kEntropy, true, viewText("entropy / ln n_k, scaled 1/√d_k")},
      {&unscaled, kEntropy, false, viewText("entropy / ln n_k, unscaled")},
      {&scaled, kJacobian, true, viewText("‖softmax Jacobian‖, scaled 1/√d_k")},
      {&unscaled, kJacobian, false, viewText("‖softmax Jacobian‖, unscaled")},
  };
  std::vector<QCPGraph*> legend_graphs;
  for (const CurveSpec& curve : curves) {
    QCPGraph* graph = addSeries(plot, x, y, *curve.points, curve.quantity);
    QPen pen(colorOf(curve.quantity), curve.scaled == current_scaled ? 3.0 : 2.0);
    pen.setStyle(curve.scaled ? Qt::SolidLine : Qt::DashLine);
    pen.setCapStyle(Qt::FlatCap);
    graph->setPen(pen);
    graph->setName(curve.name);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, pen.color(), 4));
    legend_graphs.push_back(graph);
  }

  // The sentence's own points: filled markers for scaled, hollow for unscaled, same colours.
  double min_d = 1;
  double max_d = 1024;
  if (!scaled.empty() || !unscaled.empty()) {
    min_d = std::min(scaled.empty() ? 1e9 : scaled.front().d_k,
                     unscaled.empty() ? 1e9 : unscaled.front().d_k);
    max_d = std::max(scaled.empty() ? 0 : scaled.back().d_k,
                     unscaled.empty() ? 0 : unscaled.back().d_k);
  }
  if (sentence) {
    const std::vector<SaturationPoint> s_scaled = sortedByDk(sentence->scaled);
    const std::vector<SaturationPoint> s_unscaled = sortedByDk(sentence->unscaled);
    for (const auto* points : {&s_scaled, &s_unscaled}) {
      const bool is_scaled = points == &s_scaled;
      for (int quantity : {kMaxWeight, kEntropy}) {
        QCPGraph* graph = addSeries(plot, x, y, *points, quantity);
        const QColor color = colorOf(quantity);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(
            QCPScatterStyle(is_scaled ? QCPScatterStyle::ssDisc : QCPScatterStyle::ssCircle,
                            QPen(color, 2.0), is_scaled ? QBrush(color) : QBrush(Qt::white), 9));
        graph->setName(viewText("this sentence"));
      }
      if (!points->empty()) {
        min_d = std::min<double>(min_d, points->front().d_k);
        max_d = std::max<double>(max_d, points->back().d_k);
      }
    }
    // One legend entry for the four marker series: a neutral marker and the key in words.
    QCPGraph* key = plot.addGraph(x, y);
    key->setLineStyle(QCPGraph::lsNone);
    key->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(Qt::darkGray, 2.0), QBrush(Qt::darkGray), 9));
    key->setName(
        viewText("this sentence (n_k = %1): ● scaled, ○ unscaled").arg(sentence->n_k));
    legend_graphs.push_back(key);
  }

  if (current_d_k >= 1) {
    min_d = std::min<double>(min_d, current_d_k);
    max_d = std::max<double>(max_d, current_d_k);
  }
  // x range: the data, half an octave of air on both sides.
  x->setRange(min_d / std::sqrt(2.0), max_d * std::sqrt(2.0));
  plot.setProperty(kScaledProperty, current_scaled);
  placeMarker(plot, rect, x, y, current_d_k, current_scaled);

  // Legend below the axes, two columns: scaled | unscaled.
  auto* legend = new QCPLegend;
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(2);
  // Two columns (scaled | unscaled) when the entries fit side by side, else one; a smaller font
  // before an entry would be cut.
  QFont legend_font = scaledFont(plot, 10.5);
  const auto widest = [&legend_graphs](const QFont& font) {
    double w = 0;
    for (const QCPGraph* g : legend_graphs) w = std::max(w, QFontMetricsF(font).horizontalAdvance(g->name()));
    return w + 36 + 16;  // icon and padding
  };
  const bool two_columns = 2 * widest(legend_font) + 24 <= width - 8;
  if (!two_columns) {
    legend->setWrap(1);
    while (legend_font.pointSizeF() > 7 && widest(legend_font) > width - 8)
      legend_font.setPointSizeF(legend_font.pointSizeF() - 0.5);
  }
  legend->setRowSpacing(two_columns ? 2 : 0);
  legend->setColumnSpacing(24);
  attachLegendRow(plot, rect, legend, legend_font, legend_graphs);
}

}  // namespace attnlab::views
