/// \file training_plot.cpp
/// The translators' training curves (training_plot.hpp).

#include "views/training_plot.hpp"

#include <qcustomplot.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cmath>

#include "attnlab/error.hpp"
#include "views/picture.hpp"

namespace attnlab::views {
namespace {

[[noreturn]] void bad(const QString& path, const QString& what) {
  throw Error(ErrorCode::kInvalidInput, (path + QStringLiteral(": ") + what).toStdString());
}

}  // namespace

std::vector<TrainingCurve> readTrainingCurves(const QStringList& dirs) {
  std::vector<TrainingCurve> curves;
  for (const QString& dir : dirs) {
    const QString path = dir + QStringLiteral("/training.json");
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
      throw Error(ErrorCode::kIo, ("cannot read " + path + ": " + file.errorString()).toStdString());
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
    if (!doc.isObject()) bad(path, QStringLiteral("not a JSON object"));
    const QJsonObject o = doc.object();
    TrainingCurve c;
    c.model = o.value(QStringLiteral("model")).toString(dir.section(QLatin1Char('/'), -1));
    for (const QJsonValue v : o.value(QStringLiteral("steps")).toArray()) c.steps.push_back(v.toDouble());
    for (const QJsonValue v : o.value(QStringLiteral("loss")).toArray()) c.loss.push_back(v.toDouble());
    if (c.steps.empty() || c.steps.size() != c.loss.size())
      bad(path, QStringLiteral("\"steps\" and \"loss\" must be lists of the same, non-zero length"));
    if (std::any_of(c.loss.begin(), c.loss.end(), [](double l) { return !(l > 0) || !std::isfinite(l); }))
      bad(path, QStringLiteral("every loss must be a positive number"));
    c.test_accuracy = o.value(QStringLiteral("test_accuracy")).toDouble();
    c.seconds = o.value(QStringLiteral("seconds")).toDouble();
    const QJsonValue entropy = o.value(QStringLiteral("mean_entropy")).toObject().value(QStringLiteral("cross"));
    if (entropy.isDouble()) c.cross_entropy = entropy.toDouble();
    curves.push_back(std::move(c));
  }
  return curves;
}

void drawTrainingCurves(QCustomPlot& plot, const std::vector<TrainingCurve>& curves) {
  clearPlot(plot);
  QCPLayoutGrid* layout = plot.plotLayout();
  layout->setRowSpacing(6);
  const double width = canvasSize(plot, QSize(900, 560)).width();
  const QString title_text = viewText("Training loss with and without 1/√d_k");
  QFont title_font = scaledFont(plot, 15, true);
  while (title_font.pointSizeF() > 8 && QFontMetricsF(title_font).horizontalAdvance(title_text) > width - 12)
    title_font.setPointSizeF(title_font.pointSizeF() - 0.5);
  layout->addElement(0, 0, new QCPTextElement(&plot, title_text, title_font));

  auto* rect = new QCPAxisRect(&plot);
  layout->addElement(1, 0, rect);
  rect->setRangeDrag(Qt::Orientations());
  rect->setRangeZoom(Qt::Orientations());
  QCPAxis* x = rect->axis(QCPAxis::atBottom);
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  const QPen grid_pen(QColor(0xdd, 0xdd, 0xdd), 1.0, Qt::SolidLine);
  for (QCPAxis* axis : {x, y}) {
    axis->setTickLabelFont(scaledFont(plot, 11));
    axis->setLabelFont(scaledFont(plot, 12));
    axis->grid()->setPen(grid_pen);
  }
  x->setLabel(viewText("training step"));
  y->setLabel(viewText("training loss (nats per target character, log scale)"));
  y->setScaleType(QCPAxis::stLogarithmic);
  y->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  y->setNumberFormat(QStringLiteral("g"));
  y->grid()->setSubGridVisible(true);

  // Okabe & Ito: blue for the scaled run, vermillion for the unscaled one, then others.
  const QColor colors[] = {QColor(0x00, 0x72, 0xb2), QColor(0xd5, 0x5e, 0x00), QColor(0x00, 0x9e, 0x73),
                           QColor(0xcc, 0x79, 0xa7)};
  double lo = 1e300, hi = 0, last = 0;
  auto* legend = new QCPLegend;
  const QFont legend_font = scaledFont(plot, 10.5);
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const TrainingCurve& c = curves[i];
    QCPGraph* g = plot.addGraph(x, y);
    g->setData(QVector<double>(c.steps.begin(), c.steps.end()), QVector<double>(c.loss.begin(), c.loss.end()), true);
    g->setPen(QPen(colors[i % 4], 2.0));
    const QString accuracy = viewText("%1: test accuracy %2 %, %3 s")
                                 .arg(c.model)
                                 .arg(100 * c.test_accuracy, 0, 'f', 1)
                                 .arg(c.seconds, 0, 'f', 0);
    const QString entropy =
        c.cross_entropy >= 0 ? viewText(", cross-attention entropy %1").arg(c.cross_entropy, 0, 'f', 2) : QString();
    g->setName(accuracy + entropy);
    // A narrow canvas (the window's dock): the model, its accuracy and its entropy on lines of
    // their own, after the model's colon (":" or "：") and without the entropy's leading comma.
    if (QFontMetricsF(legend_font).horizontalAdvance(accuracy + entropy) + 60 > width) {
      QString lines = accuracy;
      const int colon = c.model.size();
      if (colon + 1 < lines.size()) lines.insert(colon + 1, QLatin1Char('\n'));
      lines.replace(QStringLiteral("\n "), QStringLiteral("\n"));
      if (!entropy.isEmpty()) {
        QString rest = entropy;
        while (!rest.isEmpty() && (rest.front() == QLatin1Char(',') || rest.front() == QChar(0xff0c) || rest.front().isSpace()))
          rest.remove(0, 1);
        lines += QLatin1Char('\n') + rest;
      }
      g->setName(lines);
    }
    for (double l : c.loss) {
      lo = std::min(lo, l);
      hi = std::max(hi, l);
    }
    last = std::max(last, c.steps.back());
  }
  x->setRange(0, last > 0 ? last * 1.02 : 1);
  if (hi > 0) y->setRange(lo / 1.3, hi * 1.3);
  std::vector<QCPGraph*> graphs;
  for (int i = 0; i < plot.graphCount(); ++i) graphs.push_back(plot.graph(i));
  attachLegendRow(plot, rect, legend, legend_font, graphs);
}

}  // namespace attnlab::views
