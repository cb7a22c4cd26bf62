/// \file sinks_plot.cpp
/// The attention-sink plot: perplexity against the cache window, one curve per number of sink
/// tokens kept, the full cache dashed; the heads' sink mass beside it.

#include "views/sinks_plot.hpp"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "views/picture.hpp"
#include "views/text.hpp"

namespace attnlab::views {

void drawSinks(QCustomPlot& plot, const SinkPlotData& data) {
  clearPlot(plot);
  QCPLayoutGrid* layout = plot.plotLayout();
  QFont title_font = plot.font();
  title_font.setPointSizeF(10.5 * fontScale(plot));
  title_font.setBold(true);
  QFont label_font = plot.font();
  label_font.setPointSizeF(9 * fontScale(plot));
  const bool heads = data.sink_mass.size() > 0;
  const QSize canvas = canvasSize(plot, QSize(1100, 560));
  const double left = heads ? canvas.width() * 0.56 : canvas.width() - 20.0;
  auto* heading = new QCPTextElement(
      &plot,
      wrapWords(viewText("%1 · %2 tokens · perplexity under a KV cache of the last W tokens "
                         "(+ the first S tokens)")
                    .arg(data.model)
                    .arg(data.tokens),
                title_font, left - 60),  // clear of the column's edge and the other title
      title_font);
  heading->setObjectName(QStringLiteral("title"));
  layout->addElement(0, 0, heading);
  if (heads) {
    const QString words = viewText("the heads' sink mass: mean weight on token 0 (full cache)");
    layout->addElement(0, 1, new QCPTextElement(&plot, wrapWords(words, title_font, canvas.width() - left - 100), title_font));
  }

  auto* rect = new QCPAxisRect(&plot);
  layout->addElement(1, 0, rect);
  QCPAxis* x = rect->axis(QCPAxis::atBottom);
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  x->setScaleType(QCPAxis::stLogarithmic);
  auto ticks = QSharedPointer<QCPAxisTickerText>::create();
  for (int w : data.windows) ticks->addTick(w, QString::number(w));
  x->setTicker(ticks);
  y->setScaleType(QCPAxis::stLogarithmic);
  y->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  y->setNumberFormat(QStringLiteral("gb"));
  x->setLabel(viewText("cache window W (tokens)"));
  y->setLabel(viewText("perplexity"));
  x->setLabelFont(label_font);
  y->setLabelFont(label_font);
  double lo = data.full_perplexity, hi = data.full_perplexity;
  const QColor colors[] = {QColor(0xd5, 0x5e, 0x00), QColor(0x00, 0x72, 0xb2), QColor(0x00, 0x9e, 0x73),
                           QColor(0xcc, 0x79, 0xa7), QColor(0xe6, 0x9f, 0x00), QColor(0x56, 0xb4, 0xe9)};
  std::vector<QCPGraph*> graphs;
  for (std::size_t c = 0; c < data.curves.size(); ++c) {
    const auto& [sinks, ppl] = data.curves[c];
    QCPGraph* g = plot.addGraph(x, y);
    for (std::size_t i = 0; i < data.windows.size() && i < ppl.size(); ++i) {
      if (!std::isfinite(ppl[i])) continue;
      g->addData(data.windows[i], ppl[i]);
      lo = std::min(lo, ppl[i]);
      hi = std::max(hi, ppl[i]);
    }
    g->setPen(QPen(colors[c % 6], 2));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colors[c % 6], 6));
    g->setName(sinks == 0   ? viewText("window only (S = 0)")
              : sinks == 1 ? viewText("window + 1 sink token")
                           : viewText("window + %1 sink tokens").arg(sinks));
    graphs.push_back(g);
  }
  const double w0 = data.windows.empty() ? 1 : data.windows.front();
  const double w1 = data.windows.empty() ? 2 : data.windows.back();
  QCPGraph* full = plot.addGraph(x, y);
  full->addData(w0 / 1.5, data.full_perplexity);
  full->addData(w1 * 1.5, data.full_perplexity);
  full->setPen(QPen(Qt::black, 1.5, Qt::DashLine));
  full->setName(viewText("full cache: %1").arg(data.full_perplexity, 0, 'f', 2));
  graphs.push_back(full);
  x->setRange(w0 / 1.5, w1 * 1.5);
  y->setRange(lo / 1.2, hi * 1.2);

  auto* legend = new QCPLegend;
  layout->addElement(2, 0, legend);
  legend->setLayer(QStringLiteral("legend"));
  legend->setBorderPen(Qt::NoPen);
  legend->setFont(label_font);
  for (QCPGraph* g : graphs) g->addToLegend(legend);
  plot.xAxis = x;
  plot.yAxis = y;
  plot.legend = legend;
  if (heads) {
    auto* mass_rect = new QCPAxisRect(&plot);
    layout->addElement(1, 1, mass_rect);
    QCPAxis* cols = mass_rect->axis(QCPAxis::atBottom);
    QCPAxis* rows = mass_rect->axis(QCPAxis::atLeft);
    const auto layers = static_cast<int>(data.sink_mass.rows());
    const auto h = static_cast<int>(data.sink_mass.cols());
    cols->setRange(-0.5, h - 0.5);
    rows->setRange(-0.5, layers - 0.5);
    rows->setRangeReversed(true);  // layer 0 at the top
    cols->setLabel(viewText("head"));
    rows->setLabel(viewText("layer"));
    cols->setLabelFont(label_font);
    rows->setLabelFont(label_font);
    for (QCPAxis* a : {cols, rows}) a->grid()->setVisible(false);
    auto* map = new QCPColorMap(cols, rows);
    map->data()->setSize(h, layers);
    map->data()->setRange(QCPRange(0, h - 1), QCPRange(0, layers - 1));
    for (int l = 0; l < layers; ++l)
      for (int k = 0; k < h; ++k) map->data()->setCell(k, l, data.sink_mass(l, k));
    map->setInterpolate(false);
    map->setTightBoundary(false);
    map->setGradient(viridisGradient());
    map->setDataRange(QCPRange(0, 1));
    auto* bar = new QCPColorScale(&plot);
    layout->addElement(1, 2, bar);
    bar->setType(QCPAxis::atRight);
    bar->setGradient(viridisGradient());
    bar->setDataRange(QCPRange(0, 1));
    bar->axis()->setLabel(viewText("mean weight on token 0"));
    bar->axis()->setLabelFont(label_font);
    auto* group = new QCPMarginGroup(&plot);
    mass_rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    bar->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    layout->setColumnStretchFactors({1.4, 1, 0.05});
  }
  layout->setRowStretchFactors({0.001, 1, 0.001});
}

SinkPlotData sinkPlotData(const results::Scored& scored) {
  SinkPlotData data;
  data.model = scored.model->name;
  data.tokens = static_cast<int>(scored.encoding.ids.size());
  data.full_perplexity = scored.full.perplexity;
  data.windows = scored.windows;
  for (int s : scored.sinks) {
    std::vector<double> ppl;
    for (int w : data.windows) ppl.push_back(scored.perplexity(w, s));
    data.curves.emplace_back(s, std::move(ppl));
  }
  data.sink_mass = scored.full.sink_mass;
  return data;
}

}  // namespace attnlab::views
