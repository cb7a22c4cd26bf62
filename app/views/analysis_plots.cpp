/// \file analysis_plots.cpp
/// The analysis plots beside the heatmaps: entropy of each query row, histogram of the scores and
/// one row's softmax. Titles wrap to the plot's width and tick labels are thinned to what fits.

#include <qcustomplot.h>

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>

#include "views/text.hpp"
#include "views/analysis_plots.hpp"
#include "views/export.hpp"
#include "views/picture.hpp"

namespace attnlab::views {
namespace {

double plotWidth(const QCustomPlot& plot) {
  return canvasSize(plot, QSize(600, 320)).width();
}
double plotHeight(const QCustomPlot& plot) {
  return canvasSize(plot, QSize(600, 320)).height();
}

/// Clears plot and lays out a bold title (wrapped to the width) over one fixed axis rect.
QCPAxisRect* titledPanel(QCustomPlot& plot, const QString& title, double title_points) {
  clearPlot(plot);
  const QFont font = scaledFont(plot, title_points, true);
  auto* element = new QCPTextElement(&plot, wrapWords(title, font, plotWidth(plot) - 16), font);
  element->setObjectName(QStringLiteral("title"));
  plot.plotLayout()->addElement(0, 0, element);
  auto* rect = new QCPAxisRect(&plot);
  plot.plotLayout()->addElement(1, 0, rect);
  rect->setRangeDrag(Qt::Orientations());
  rect->setRangeZoom(Qt::Orientations());
  plot.xAxis = rect->axis(QCPAxis::atBottom);
  plot.yAxis = rect->axis(QCPAxis::atLeft);
  plot.xAxis2 = rect->axis(QCPAxis::atTop);
  plot.yAxis2 = rect->axis(QCPAxis::atRight);
  return rect;
}

QString shortToken(const QString& token, int chars) {
  QString text = token.trimmed().isEmpty() ? QStringLiteral("␣") : token;
  if (text.size() > chars) text = text.left(chars - 1) + QStringLiteral("…");
  return text;
}

/// Every step-th of n labels, so that labels `extent` px across fit `available` px.
int thinning(int n, double extent, double available) {
  if (n <= 0 || available <= 0) return 1;
  return std::max(1, static_cast<int>(std::ceil(n * (extent + 2) / available)));
}

}  // namespace

void drawRowEntropy(QCustomPlot& plot, const AttentionSummary& summary,
                    const QStringList& query_tokens, const QString& title) {
  QCPAxisRect* rect = titledPanel(plot, title, 10.5);
  QCPAxis* x = rect->axis(QCPAxis::atBottom);
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  const auto n_q = static_cast<int>(summary.row_entropy.size());
  const QFont tick_font = scaledFont(plot, 8.5);
  const QFontMetricsF fm(tick_font);
  // Upright while every label fits its bar's width, or when the labels are CJK (read upright,
  // never turned: thinned instead); else turned 45°, each taking about 1.4 line heights across.
  double widest = 0;
  bool all_upright = n_q > 0;
  for (int i = 0; i < n_q; ++i) {
    const QString token = shortToken(query_tokens.value(i), 8);
    widest = std::max(widest, fm.horizontalAdvance(token));
    for (const TextRun& run : splitRuns(token)) all_upright = all_upright && (run.upright || run.text.trimmed().isEmpty());
  }
  const double available = plotWidth(plot) - 70;
  const bool upright = n_q <= 6 || (widest + 4) * n_q <= available || all_upright;
  int step = thinning(n_q, upright ? widest + 4 : 1.4 * fm.height(), available);
  if (step > 1 && upright) step = thinning(n_q, widest + 4 + fm.horizontalAdvance(QStringLiteral("#00 ")), available);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < n_q; i += step) {
    const QString token = shortToken(query_tokens.value(i), 8);
    ticker->addTick(i, step == 1 ? token : QStringLiteral("#%1 %2").arg(i).arg(token));
  }
  x->setTicker(ticker);
  x->setSubTicks(false);
  x->setTickLabelRotation(upright ? 0 : -45);
  x->setTickLabelFont(tick_font);
  x->setRange(-0.6, n_q - 0.4);
  x->grid()->setVisible(false);
  y->setLabel(viewText("nats"));
  y->setLabelFont(scaledFont(plot, 9));
  y->setTickLabelFont(tick_font);
  double top = 0.1;
  for (double e : summary.row_max_entropy) top = std::max(top, e);
  y->setRange(0, top * 1.1);

  auto* bars = new QCPBars(x, y);
  QVector<double> keys, values, uniform;
  for (int i = 0; i < n_q; ++i) {
    keys << i;
    values << summary.row_entropy[static_cast<std::size_t>(i)];
    uniform << summary.row_max_entropy[static_cast<std::size_t>(i)];
  }
  bars->setData(keys, values, true);
  bars->setWidth(0.75);
  bars->setPen(Qt::NoPen);
  bars->setBrush(QColor(0xd5, 0x5e, 0x00));
  bars->setName(viewText("entropy H"));
  QCPGraph* line = plot.addGraph(x, y);
  line->setData(keys, uniform, true);
  line->setPen(QPen(Qt::darkGray, 1.5, Qt::DashLine));
  line->setLineStyle(QCPGraph::lsStepCenter);
  line->setName(viewText("uniform row: ln(visible keys)"));
  // Rows whose softmax overflowed (entropy NaN): a full-height bar in the heatmaps' magenta.
  QVector<double> bad_keys, bad_values;
  for (int i = 0; i < n_q && i < static_cast<int>(summary.row_nonfinite_heads.size()); ++i) {
    if (summary.row_nonfinite_heads[static_cast<std::size_t>(i)] == 0) continue;
    bad_keys << i;
    bad_values << top * 1.1;
  }
  QCPBars* bad = nullptr;
  if (!bad_keys.isEmpty()) {
    bad = new QCPBars(x, y);
    bad->setData(bad_keys, bad_values, true);
    bad->setWidth(0.75);
    bad->setPen(Qt::NoPen);
    bad->setBrush(kNonfiniteColor);
    bad->setName(viewText("not finite (inf or NaN): %1 rows").arg(bad_keys.size()));
  }
  auto* legend = new QCPLegend;
  plot.plotLayout()->addElement(2, 0, legend);
  plot.plotLayout()->setRowStretchFactor(2, 0.001);
  legend->setLayer(QStringLiteral("legend"));  // before the items, which take the legend's layer
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(2);
  legend->setBorderPen(Qt::NoPen);
  legend->setFont(scaledFont(plot, 8.5));
  legend->addItem(new QCPPlottableLegendItem(legend, bars));
  legend->addItem(new QCPPlottableLegendItem(legend, line));
  if (bad) legend->addItem(new QCPPlottableLegendItem(legend, bad));
  plot.legend = legend;
}

void drawScoreHistogram(QCustomPlot& plot, const ScoreHistogram& hist, const QString& title,
                        const AttentionSpec& spec) {
  QCPAxisRect* rect = titledPanel(plot, title, 10.5);
  QCPAxis* x = rect->axis(QCPAxis::atBottom);
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  const QFont label_font = scaledFont(plot, 9);
  // The axis says which scores the softmax read: scaled or not, or divided by T.
  QString label = viewText("score (%1); spread %2 … %3")
                      .arg(scalingText(spec))
                      .arg(hist.lo, 0, 'g', 3)
                      .arg(hist.hi, 0, 'g', 3);
  if (hist.nonfinite > 0)
    label += QLatin1Char('\n') + viewText("%1 scores not finite (inf or NaN), in no bin").arg(hist.nonfinite);
  x->setLabel(wrapWords(label, label_font, plotWidth(plot) - 40));
  x->setLabelFont(label_font);
  x->setTickLabelFont(scaledFont(plot, 8.5));
  y->setLabel(viewText("cells"));
  y->setLabelFont(label_font);
  y->setTickLabelFont(scaledFont(plot, 8.5));
  if (hist.count.empty()) return;
  const double width = (hist.hi - hist.lo) / static_cast<double>(hist.count.size());
  auto* bars = new QCPBars(x, y);
  QVector<double> keys, values;
  double top = 1;
  for (std::size_t b = 0; b < hist.count.size(); ++b) {
    keys << hist.lo + (static_cast<double>(b) + 0.5) * width;
    values << hist.count[b];
    top = std::max(top, hist.count[b]);
  }
  bars->setData(keys, values, true);
  bars->setWidth(width);
  bars->setPen(QPen(Qt::white, 0.5));
  bars->setBrush(QColor(0x00, 0x72, 0xb2));
  x->setRange(hist.lo - width, hist.hi + width);
  y->setRange(0, top * 1.08);
}

void drawRowSoftmax(QCustomPlot& plot, const AttentionResult& result, int head, int row,
                    const QStringList& key_tokens, const QString& title) {
  QCPAxisRect* rect = titledPanel(plot, title, 10);
  QCPAxis* keys = rect->axis(QCPAxis::atLeft);
  QCPAxis* weights = rect->axis(QCPAxis::atBottom);
  const int n_k = result.nK();
  keys->setRangeReversed(true);  // key 0 at the top
  keys->setRange(-0.5, n_k - 0.5);
  weights->setRange(0, 1.0);
  // 0, 0.5, 1 only: a narrow panel has no room for more.
  auto weight_ticks = QSharedPointer<QCPAxisTickerText>::create();
  weight_ticks->addTicks({{0.0, QStringLiteral("0")}, {0.5, QStringLiteral("0.5")}, {1.0, QStringLiteral("1")}});
  weights->setTicker(weight_ticks);
  const QFont label_font = scaledFont(plot, 9.5);
  weights->setLabel(wrapWords(viewText("attention weight"), label_font, plotWidth(plot) - 30));
  weights->setLabelFont(label_font);
  const QFont tick_font = scaledFont(plot, 9);
  weights->setTickLabelFont(tick_font);
  keys->setTickLabelFont(tick_font);
  keys->grid()->setVisible(false);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const int step = thinning(n_k, QFontMetricsF(tick_font).height(), plotHeight(plot) - 110);
  for (int j = 0; j < n_k; j += step) {
    const QString token = shortToken(key_tokens.value(j), 12);
    ticker->addTick(j, step == 1 ? token : QStringLiteral("#%1 %2").arg(j).arg(token));
  }
  keys->setTicker(ticker);
  keys->setSubTicks(false);
  if (row < 0 || row >= result.nQ() || head < 0 || head >= result.heads()) return;
  // Keys the query cannot see (causal, a window, a KV cache's evicted keys): a grey band across
  // the panel, never a bar of weight 0 — and the axis says so.
  const MaskPattern pattern = result.pattern();
  QVector<double> masked_keys, masked_extent;
  for (int j = 0; j < n_k; ++j) {
    if (pattern.visible(row, j)) continue;
    masked_keys << j;
    masked_extent << 1.0;
  }
  if (!masked_keys.isEmpty()) {
    auto* grey = new QCPBars(keys, weights);
    grey->setData(masked_keys, masked_extent, true);
    grey->setWidth(1.0);
    grey->setPen(Qt::NoPen);
    grey->setBrush(kMaskedColor);
    weights->setLabel(wrapWords(viewText("attention weight · grey = masked key"), label_font,
                                plotWidth(plot) - 30));
  }
  auto* bars = new QCPBars(keys, weights);
  QVector<double> k, v;
  for (int j = 0; j < n_k; ++j) {
    k << j;
    v << result.weights(head, row, j);
  }
  bars->setData(k, v, true);
  bars->setWidth(0.8);
  bars->setPen(Qt::NoPen);
  bars->setBrush(viridis(0.35));
}

}  // namespace attnlab::views
