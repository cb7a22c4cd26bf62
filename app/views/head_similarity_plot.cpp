/// \file head_similarity_plot.cpp
/// The head-similarity matrix: mean Jensen–Shannon divergence of every pair of heads as square
/// cells (dark = alike), the value in each cell, near-duplicate pairs framed.

#include <qcustomplot.h>

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>

#include "views/text.hpp"
#include "views/export.hpp"
#include "views/head_similarity_plot.hpp"
#include "views/picture.hpp"

namespace attnlab::views {

void drawHeadSimilarity(QCustomPlot& plot, const HeadSimilarity& s, const QString& title) {
  clearPlot(plot);
  const QSize canvas = canvasSize(plot, QSize(720, 640));
  plot.plotLayout()->setRowSpacing(4);
  QFont title_font = plot.font();
  title_font.setPointSizeF(10.5 * fontScale(plot));
  title_font.setBold(true);
  // Square cells: the inner rect is a square that leaves room for the labels and the colour bar.
  const int side = std::max(60, std::min(canvas.width() - 190, canvas.height() - 150));
  // The title lies in the matrix's column: wrapped to it.
  auto* heading = new QCPTextElement(&plot, wrapWords(title, title_font, side + 60), title_font);
  heading->setObjectName(QStringLiteral("title"));
  plot.plotLayout()->addElement(0, 0, heading);
  auto* rect = new QCPAxisRect(&plot);
  plot.plotLayout()->addElement(1, 0, rect);
  rect->setRangeDrag(Qt::Orientations());
  rect->setRangeZoom(Qt::Orientations());
  rect->setMinimumSize(side, side);
  rect->setMaximumSize(side, side);
  QCPAxis* cols = rect->axis(QCPAxis::atBottom);
  QCPAxis* rows = rect->axis(QCPAxis::atLeft);
  plot.xAxis = cols;
  plot.yAxis = rows;
  const int h = std::max(1, s.h);
  cols->setRange(-0.5, h - 0.5);
  rows->setRange(-0.5, h - 0.5);
  rows->setRangeReversed(true);  // head 0 at the top, like reading a matrix
  QFont label_font = plot.font();
  label_font.setPointSizeF(9 * fontScale(plot));
  QFont tick_font = plot.font();
  tick_font.setPointSizeF(8.5 * fontScale(plot));
  const int step = h <= 16 ? 1 : (h + 15) / 16;
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < h; i += step) ticker->addTick(i, QString::number(i));
  for (QCPAxis* axis : {cols, rows}) {
    axis->setTicker(ticker);
    axis->setSubTicks(false);
    axis->setTickLabelFont(tick_font);
    axis->setLabelFont(label_font);
    axis->grid()->setVisible(false);
  }
  cols->setLabel(viewText("head"));
  rows->setLabel(viewText("head"));
  if (s.h < 1) return;
  double top = 0;
  for (double v : s.jsd) top = std::max(top, v);
  if (top <= 0) top = std::log(2.0);
  auto* map = new QCPColorMap(cols, rows);
  map->data()->setSize(h, h);
  map->data()->setRange(QCPRange(0, h - 1), QCPRange(0, h - 1));
  for (int a = 0; a < h; ++a)
    for (int b = 0; b < h; ++b) map->data()->setCell(b, a, s(a, b));
  map->setInterpolate(false);
  map->setTightBoundary(false);
  map->setGradient(viridisGradient());
  map->setDataRange(QCPRange(0, top));
  auto* bar = new QCPColorScale(&plot);
  plot.plotLayout()->addElement(1, 1, bar);
  bar->setType(QCPAxis::atRight);
  bar->setGradient(viridisGradient());
  bar->setDataRange(QCPRange(0, top));
  bar->axis()->setLabel(viewText("mean JSD (nats)"));
  bar->axis()->setLabelFont(label_font);
  bar->axis()->setTickLabelFont(tick_font);
  auto* group = new QCPMarginGroup(&plot);
  rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
  bar->setMarginGroup(QCP::msTop | QCP::msBottom, group);
  // Values in the cells while they fit (3 decimals), white on dark cells, black on light ones.
  QFont value_font = plot.font();
  const double cell = static_cast<double>(side) / h;
  value_font.setPointSizeF(std::min(9.0, cell / 4.2) * fontScale(plot));
  if (cell >= 34) {
    for (int a = 0; a < h; ++a) {
      for (int b = 0; b < h; ++b) {
        auto* text = new QCPItemText(&plot);
        text->setClipToAxisRect(true);
        text->position->setAxes(cols, rows);
        text->position->setCoords(b, a);
        text->setText(QString::number(s(a, b), 'f', 3));
        text->setFont(value_font);
        text->setColor(s(a, b) / top < 0.6 ? Qt::white : Qt::black);
      }
    }
  }
  // Near-duplicate pairs: a red frame on both cells (a, b) and (b, a).
  for (const auto& [a, b] : s.near_duplicates) {
    for (const auto& [r, c] : {std::pair{a, b}, std::pair{b, a}}) {
      auto* frame = new QCPItemRect(&plot);
      frame->setClipToAxisRect(true);
      frame->topLeft->setAxes(cols, rows);
      frame->bottomRight->setAxes(cols, rows);
      frame->topLeft->setCoords(c - 0.46, r - 0.46);
      frame->bottomRight->setCoords(c + 0.46, r + 0.46);
      frame->setPen(QPen(QColor(0xd5, 0x5e, 0x00), 3));
      frame->setBrush(Qt::NoBrush);
    }
  }
  auto* note = new QCPTextElement(
      &plot,
      s.near_duplicates.empty()
          ? viewText("no near-duplicate heads (every pair ≥ %1 nats)").arg(s.threshold)
          : viewText("framed: near-duplicate heads (mean JSD < %1 nats): %2 pairs")
                .arg(s.threshold)
                .arg(s.near_duplicates.size()),
      label_font);
  plot.plotLayout()->addElement(2, 0, note);
  // Extra height goes around the title and the note, not into empty rows under the matrix.
  plot.plotLayout()->setRowStretchFactors({0.001, 1, 0.001});
}

}  // namespace attnlab::views
