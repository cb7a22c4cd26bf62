/// \file cost_plot.cpp
/// The cost plot: the FLOPs of the projections and of the attention against n (log–log) with the
/// crossover marked, the memory of P and of the KV cache, and measured times (seed 001: FLOPs
/// 4·n·d² + 2·n²·d, parameters 4·d², the O(n²) bottleneck; Vaswani et al. 2017, Table 1).

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "attnlab/error.hpp"
#include "views/cost_plot.hpp"
#include "views/export.hpp"
#include "views/picture.hpp"

namespace attnlab::views {
namespace {

// Okabe–Ito colours, as the saturation plot.
const QColor kBlue(0x00, 0x72, 0xb2), kVermillion(0xd5, 0x5e, 0x00), kGreen(0x00, 0x9e, 0x73),
    kPurple(0xcc, 0x79, 0xa7), kOrange(0xe6, 0x9f, 0x00), kSky(0x56, 0xb4, 0xe9),
    kGrey(0x55, 0x55, 0x55);

/// A log–log axis rect with a panel title, added at `row` of the plot's layout.
QCPAxisRect* addPanel(QCustomPlot& plot, int row, const QString& y_label) {
  auto* rect = new QCPAxisRect(&plot);
  plot.plotLayout()->addElement(row, 0, rect);
  rect->setRangeDrag(Qt::Orientations());
  rect->setRangeZoom(Qt::Orientations());
  const QPen grid(QColor(0xdd, 0xdd, 0xdd), 1.0);
  for (QCPAxis* axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)}) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
    ticker->setLogBase(axis->axisType() == QCPAxis::atBottom ? 2 : 10);
    ticker->setSubTickCount(0);
    axis->setTicker(ticker);
    axis->setTickLabelFont(scaledFont(plot, 10));
    axis->setLabelFont(scaledFont(plot, 11));
    axis->grid()->setPen(grid);
    axis->setSubTicks(false);
  }
  QCPAxis* x = rect->axis(QCPAxis::atBottom);
  x->setNumberFormat(QStringLiteral("g"));
  x->setNumberPrecision(9);
  x->setLabel(viewText("n (tokens, log scale)"));
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  y->setNumberFormat(QStringLiteral("eb"));
  y->setNumberPrecision(0);
  y->setLabel(y_label);
  return rect;
}

QCPLegend* addLegend(QCustomPlot& plot, int row) {
  auto* legend = new QCPLegend;
  plot.plotLayout()->addElement(row, 0, legend);
  legend->setLayer(QStringLiteral("legend"));
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(2);
  legend->setFont(scaledFont(plot, 9.5));
  legend->setBorderPen(Qt::NoPen);
  legend->setIconSize(30, 12);
  legend->setRowSpacing(1);
  legend->setColumnSpacing(20);
  plot.plotLayout()->setRowStretchFactor(row, 0.001);
  return legend;
}

QCPGraph* curve(QCustomPlot& plot, QCPAxisRect* rect, const QVector<double>& x,
                const QVector<double>& y, const QColor& color, Qt::PenStyle style,
                const QString& name, QCPLegend* legend) {
  QCPGraph* g = plot.addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
  g->setData(x, y, true);
  QPen pen(color, 2.5, style);
  pen.setCapStyle(Qt::FlatCap);
  g->setPen(pen);
  g->setName(name);
  g->addToLegend(legend);
  return g;
}

/// Points (no line) at the table's n, in the colour of their curve, left out of the legend.
void points(QCustomPlot& plot, QCPAxisRect* rect, const QVector<double>& x,
            const QVector<double>& y, const QColor& color) {
  QCPGraph* g = plot.addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
  g->setData(x, y, true);
  g->setLineStyle(QCPGraph::lsNone);
  g->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(color, 1.5), QBrush(Qt::white), 8));
}

/// A dotted vertical line at n with a label at the top of the panel.
void marker(QCustomPlot& plot, QCPAxisRect* rect, double n, const QString& text,
            const QColor& color, bool label_left) {
  QCPAxis* x = rect->axis(QCPAxis::atBottom);
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  auto* line = new QCPItemStraightLine(&plot);
  line->setClipAxisRect(rect);
  line->point1->setAxes(x, y);
  line->point2->setAxes(x, y);
  line->point1->setCoords(n, y->range().lower);
  line->point2->setCoords(n, y->range().upper);
  line->setPen(QPen(color, 1.8, Qt::DotLine));
  if (text.isEmpty()) return;
  auto* label = new QCPItemText(&plot);
  label->setClipAxisRect(rect);
  label->position->setTypeX(QCPItemPosition::ptPlotCoords);
  label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  label->position->setAxes(x, y);
  label->position->setAxisRect(rect);
  label->position->setCoords(n, 0.02);
  label->setPositionAlignment((label_left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
  label->setPadding(QMargins(4, 1, 4, 1));
  label->setFont(scaledFont(plot, 10, true));
  label->setColor(color.darker(110));
  label->setBrush(QColor(255, 255, 255, 225));
  label->setText(text);
}

/// The y range covering `values` (positive, finite), a little air on both sides.
QCPRange logRange(const std::vector<double>& values) {
  double lo = INFINITY, hi = 0;
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!(hi > 0)) return QCPRange(1, 10);
  return QCPRange(lo / 3, hi * 3);
}

}  // namespace

void drawCost(QCustomPlot& plot, const results::CostTable& data) {
  if (data.n.empty() || data.curves.n.empty())
    throw Error(ErrorCode::kInvalidArgument, "a cost plot needs at least one n");
  const CostShape& shape = data.shape;
  const double crossover = data.crossover;
  clearPlot(plot);
  // Each panel has its own legend; the marked points stay out of them.
  plot.setAutoAddPlottableToLegend(false);
  QCPLayoutGrid* layout = plot.plotLayout();
  layout->setRowSpacing(4);
  const int h = shape.heads, g = shape.resolvedKvHeads();

  QStringList title;
  if (!data.model.isEmpty()) title << data.model;
  title << viewText("cost of one attention layer")
        << QStringLiteral("d_model = %1").arg(shape.d_model)
        << (h == 1 ? viewText("1 head") : viewText("%1 heads").arg(h));
  if (g != h) title << viewText("%1 K/V heads").arg(g);
  title << QStringLiteral("d_k = %1").arg(shape.resolvedDk());
  if (shape.layers > 1) title << viewText("%1 layers (KV cache)").arg(shape.layers);
  auto* heading =
      new QCPTextElement(&plot, title.join(QStringLiteral(" · ")), scaledFont(plot, 14, true));
  layout->addElement(0, 0, heading);

  // The curves span the table's n, the crossover and the current n (run::cost).
  const results::CostCurves& curves = data.curves;
  const double lo = curves.n.front(), hi = curves.n.back();
  const auto vec = [](const std::vector<double>& v) { return QVector<double>(v.begin(), v.end()); };
  const QVector<double> xs = vec(curves.n);
  QVector<double> table_n;
  for (int n : data.n) table_n << n;
  const auto rows = [&data](auto member) {
    QVector<double> ys;
    for (const AttentionCost& c : data.rows) ys << member(c);
    return ys;
  };
  const auto projections = [](const AttentionCost& c) { return c.projection_flops; };
  const auto attention = [](const AttentionCost& c) { return c.attentionFlops(); };
  const auto p_bytes = [](const AttentionCost& c) { return c.score_matrix_bytes; };

  // Panel 1: the work.
  QCPAxisRect* work = addPanel(plot, 1, viewText("FLOPs per layer (log scale)"));
  work->axis(QCPAxis::atLeft)->setLabel(viewText("FLOPs per layer (log scale)"));
  QCPLegend* work_legend = addLegend(plot, 2);
  const QVector<double> proj = vec(curves.projection_flops), att = vec(curves.attention_flops);
  curve(plot, work, xs, proj, kBlue, Qt::SolidLine,
        viewText("projections W_Q, W_K, W_V, W_O (seed: 4·n·d², ×2 in FLOPs)"), work_legend);
  curve(plot, work, xs, att, kVermillion, Qt::SolidLine,
        viewText("attention Q Kᵀ and P V (seed: 2·n²·d, ×2 in FLOPs)"), work_legend);
  points(plot, work, table_n, rows(projections), kBlue);
  points(plot, work, table_n, rows(attention), kVermillion);
  std::vector<double> work_values(proj.begin(), proj.end());
  work_values.insert(work_values.end(), att.begin(), att.end());
  work->axis(QCPAxis::atLeft)->setRange(logRange(work_values));

  // Panel 2: the memory.
  QCPAxisRect* memory = addPanel(plot, 3, viewText("bytes (float32, log scale)"));
  QCPLegend* memory_legend = addLegend(plot, 4);
  const QVector<double> p = vec(curves.score_matrix_bytes), mha = vec(curves.kv_cache_bytes_mha),
                        mqa = vec(curves.kv_cache_bytes_mqa);
  curve(plot, memory, xs, p, kPurple, Qt::SolidLine,
        viewText("attention weights P: h·n²·4 (per layer)"), memory_legend);
  curve(plot, memory, xs, mha, kGreen, Qt::SolidLine,
        viewText("KV cache, multi-head (%1 K/V heads)").arg(h), memory_legend);
  if (g != h && g != 1) {
    curve(plot, memory, xs, vec(curves.kv_cache_bytes), kGreen, Qt::DashLine,
          viewText("KV cache, grouped-query (%1 K/V heads)").arg(g), memory_legend);
  }
  if (h != 1)
    curve(plot, memory, xs, mqa, kGreen, Qt::DotLine,
          viewText("KV cache, multi-query (1 K/V head)"), memory_legend);
  points(plot, memory, table_n, rows(p_bytes), kPurple);
  std::vector<double> memory_values(p.begin(), p.end());
  memory_values.insert(memory_values.end(), mha.begin(), mha.end());
  memory_values.insert(memory_values.end(), mqa.begin(), mqa.end());
  memory->axis(QCPAxis::atLeft)->setRange(logRange(memory_values));

  std::vector<QCPAxisRect*> panels{work, memory};
  // Panel 3: measured times.
  if (data.measured) {
    const results::CostTimes& measured = *data.measured;
    QCPAxisRect* time = addPanel(plot, 5, viewText("ms per call (log scale)"));
    QCPLegend* time_legend = addLegend(plot, 6);
    const QColor colors[] = {kOrange, kSky, kBlue, kGreen};
    std::vector<double> values;
    for (std::size_t p = 0; p < measured.paths.size(); ++p) {
      QVector<double> x, y;
      for (std::size_t i = 0; i < measured.rows.size() && i < data.n.size(); ++i) {
        const PathTime& t = measured.rows[i][p];
        if (!t.ran || !std::isfinite(t.median_ms) || !(t.median_ms > 0)) continue;
        x << data.n[i];
        y << t.median_ms;
        values.push_back(t.median_ms);
      }
      QCPGraph* graph = curve(plot, time, x, y, colors[p % 4], Qt::SolidLine,
                              QString::fromStdString(toString(measured.paths[p])), time_legend);
      graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
    }
    time->axis(QCPAxis::atLeft)->setRange(logRange(values));
    if (!measured.device.empty())
      time->axis(QCPAxis::atBottom)
          ->setLabel(viewText("n (tokens, log scale) · measured on %1").arg(QString::fromStdString(measured.device)));
    panels.push_back(time);
  }

  const bool mha_shape =
      g == h && shape.resolvedDk() * h == shape.d_model && shape.resolvedDv() == shape.resolvedDk();
  const QString cross_text =
      mha_shape ? viewText("crossover n = 2·d_model = %1").arg(std::lround(crossover))
      : g != h  ? viewText("crossover n = %1 (multi-head: 2·d_model = %2)")
                     .arg(crossover, 0, 'f', 0)
                     .arg(2 * shape.d_model)
               : viewText("crossover n = %1").arg(crossover, 0, 'f', 0);
  for (QCPAxisRect* rect : panels) {
    rect->axis(QCPAxis::atBottom)->setRange(lo, hi);
    rect->axis(QCPAxis::atBottom)
        ->ticker()
        ->setTickCount(std::clamp(static_cast<int>(std::log2(hi / lo)) + 1, 3, 24));
    const bool left = std::log(crossover / lo) > std::log(hi / crossover);
    marker(plot, rect, crossover, rect == work ? cross_text : QString(), kGrey, left);
    if (data.current_n > 0) {
      const bool current_left = std::log(data.current_n / lo) > std::log(hi / data.current_n);
      marker(plot, rect, data.current_n,
             rect == work ? QString() : viewText("this text: n = %1").arg(data.current_n),
             kVermillion, current_left);
    }
  }
  // The rects share the left margin, so the n axes line up.
  auto* group = new QCPMarginGroup(&plot);
  for (QCPAxisRect* rect : panels) rect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
  plot.xAxis = work->axis(QCPAxis::atBottom);
  plot.yAxis = work->axis(QCPAxis::atLeft);
  plot.xAxis2 = work->axis(QCPAxis::atTop);
  plot.yAxis2 = work->axis(QCPAxis::atRight);
  plot.legend = work_legend;
}

}  // namespace attnlab::views
