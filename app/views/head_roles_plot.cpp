/// \file head_roles_plot.cpp
/// The head-roles picture: one layers × heads panel of scores per role (head_roles_plot.hpp).

#include "views/head_roles_plot.hpp"

#include <qcustomplot.h>

#include <algorithm>

#include "views/heatmap_layout.hpp"
#include "views/heatmap_paint.hpp"
#include "views/picture.hpp"
#include "views/text.hpp"

namespace attnlab::views {

namespace {

/// The cell size for L layers × h heads on a canvas (px): six panels across, the layers down.
double cellFor(QSize canvas, int layers, int heads) {
  const double across = (canvas.width() - 130.0) / kHeadRoleCount - 46.0;
  const double down = canvas.height() - 190.0;
  return std::clamp(std::min(across / std::max(1, heads), down / std::max(1, layers)), 3.0, 28.0);
}

/// Tick labels every `step` from 0 to count − 1.
QSharedPointer<QCPAxisTickerText> ticks(int count, int step) {
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < count; i += step) ticker->addTick(i, QString::number(i));
  return ticker;
}

/// The role badges of a model view (markHeadRoles), drawn over the cells in plot pixels.
class RoleBadges : public QCPAbstractItem {
 public:
  struct Badge {
    QRectF cells;      ///< The thumbnail's cell area, px.
    double score = 0;  ///< In [0, 1].
    bool top = false;  ///< The role's best head among those shown.
  };
  RoleBadges(QCustomPlot* plot, std::vector<Badge> badges)
      : QCPAbstractItem(plot), badges_(std::move(badges)) {
    setClipToAxisRect(false);
    setSelectable(false);
    setObjectName(QStringLiteral("headRoleBadges"));
  }
  double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }

 protected:
  void draw(QCPPainter* painter) override {
    QFont font = parentPlot()->font();
    font.setPointSizeF(7 * fontScale(*parentPlot()));
    painter->setFont(font);
    const QFontMetricsF metrics(font);
    for (const Badge& b : badges_) {
      if (b.score >= 0.5 || b.top) {
        const double pen = b.top ? 4.0 : 1.0 + 4.0 * (b.score - 0.5);
        painter->setPen(QPen(QColor(0xd5, 0x5e, 0x00), pen));
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(b.cells.adjusted(-pen / 2, -pen / 2, pen / 2, pen / 2));
      }
      const QString text = QString::number(b.score, 'f', 2);
      const double w = metrics.horizontalAdvance(text) + 4, h = metrics.height() + 1;
      if (w > b.cells.width() * 0.9 || h > b.cells.height() * 0.6) continue;
      const QRectF box(b.cells.right() - w, b.cells.top(), w, h);
      painter->setPen(QPen(QColor(255, 255, 255, 200), 1));
      painter->setBrush(viridis(b.score));
      painter->drawRect(box);
      painter->setPen(b.score > 0.6 ? Qt::black : Qt::white);
      painter->drawText(box, Qt::AlignCenter, text);
    }
  }

 private:
  std::vector<Badge> badges_;
};

}  // namespace

void markHeadRoles(QCustomPlot& plot, const HeadRoles& roles, HeadRole role,
                   const std::vector<int>& layer_indices) {
  const HeatmapDecor* decor = decorOf(plot);
  const auto shown = static_cast<int>(layer_indices.size());
  const int h = roles.heads;
  if (!decor || h < 1 || static_cast<int>(decor->layout().maps.size()) != shown * h) return;
  std::vector<RoleBadges::Badge> badges;
  double best = -1;
  std::size_t best_at = 0;
  for (int r = 0; r < shown; ++r) {
    const int layer = layer_indices[static_cast<std::size_t>(r)];
    if (layer < 0 || layer >= roles.layers) return;
    for (int k = 0; k < h; ++k) {
      const double score = roles.score(role, layer, k);
      if (score > best) {
        best = score;
        best_at = badges.size();
      }
      badges.push_back({decor->layout().maps[static_cast<std::size_t>(r * h + k)].cells, score, false});
    }
  }
  if (!badges.empty()) badges[best_at].top = true;
  new RoleBadges(&plot, std::move(badges));
}

QString headRoleText(HeadRole role) {
  switch (role) {
    case HeadRole::kPreviousToken: return viewText("previous-token");
    case HeadRole::kDuplicateToken: return viewText("duplicate-token");
    case HeadRole::kInduction: return viewText("induction");
    case HeadRole::kSink: return viewText("first-token sink");
    case HeadRole::kLocal: return viewText("local (±3)");
    case HeadRole::kBroad: return viewText("broad (entropy)");
  }
  return {};
}

QSize defaultHeadRolesSize(int layers, int heads) {
  const int l = std::max(1, layers), h = std::max(1, heads);
  const double cell = std::clamp(std::min(1320.0 / (kHeadRoleCount * h), 700.0 / l), 6.0, 28.0);
  return QSize(static_cast<int>(kHeadRoleCount * (h * cell + 46) + 130),
               static_cast<int>(std::max(l * cell, 160.0) + 190));
}

void drawHeadRoles(QCustomPlot& plot, const HeadRoles& roles, const QString& title) {
  clearPlot(plot);
  const QSize canvas = canvasSize(plot, defaultHeadRolesSize(roles.layers, roles.heads));
  const int layers = std::max(1, roles.layers), heads = std::max(1, roles.heads);
  const double cell = cellFor(canvas, layers, heads);
  const double scale = fontScale(plot);
  QFont title_font = plot.font();
  title_font.setPointSizeF(10.5 * scale);
  title_font.setBold(true);
  QFont panel_font = plot.font();
  panel_font.setPointSizeF(9 * scale);
  QFont tick_font = plot.font();
  tick_font.setPointSizeF(7.5 * scale);
  auto* heading = new QCPTextElement(&plot, wrapWords(title, title_font, canvas.width() - 40),
                                     title_font);
  heading->setObjectName(QStringLiteral("title"));
  plot.plotLayout()->addElement(0, 0, heading);
  auto* grid = new QCPLayoutGrid;
  plot.plotLayout()->addElement(1, 0, grid);
  grid->setColumnSpacing(6);
  grid->setRowSpacing(2);
  auto* group = new QCPMarginGroup(&plot);
  const int layer_step = layers <= 32 ? 1 : (layers + 31) / 32;
  const int layer_label_step = cell >= 11 ? layer_step : std::max(layer_step, 2);
  const int head_step = cell >= 14 ? 1 : 2;
  for (int r = 0; r < kHeadRoleCount; ++r) {
    const HeadRole role = kHeadRoles[static_cast<std::size_t>(r)];
    const std::vector<HeadScore> top = roles.top(role, 1);
    QString caption = headRoleText(role);
    if (!top.empty()) {
      caption += QStringLiteral("\n") + viewText("top: L%1 H%2 %3")
                                            .arg(top.front().layer)
                                            .arg(top.front().head)
                                            .arg(top.front().score, 0, 'f', 2);
    }
    auto* label = new QCPTextElement(&plot, caption, panel_font);
    label->setObjectName(QStringLiteral("role-%1").arg(QString::fromUtf8(headRoleName(role).data())));
    grid->addElement(0, r, label);
    auto* rect = new QCPAxisRect(&plot);
    grid->addElement(1, r, rect);
    rect->setRangeDrag(Qt::Orientations());
    rect->setRangeZoom(Qt::Orientations());
    const QSize inner(static_cast<int>(heads * cell), static_cast<int>(layers * cell));
    rect->setMinimumSize(inner);
    rect->setMaximumSize(inner);
    rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    QCPAxis* cols = rect->axis(QCPAxis::atBottom);
    QCPAxis* rows = rect->axis(QCPAxis::atLeft);
    if (r == 0) {
      plot.xAxis = cols;
      plot.yAxis = rows;
    }
    cols->setRange(-0.5, heads - 0.5);
    rows->setRange(-0.5, layers - 0.5);
    rows->setRangeReversed(true);  // layer 0 at the top, as the model view reads
    cols->setTicker(ticks(heads, head_step));
    rows->setTicker(ticks(layers, layer_label_step));
    for (QCPAxis* axis : {cols, rows}) {
      axis->setSubTicks(false);
      axis->setTickLabelFont(tick_font);
      axis->setLabelFont(tick_font);
      axis->grid()->setVisible(false);
    }
    cols->setLabel(viewText("head"));
    if (r == 0) rows->setLabel(viewText("layer"));
    if (roles.layers < 1 || roles.heads < 1) continue;
    auto* map = new QCPColorMap(cols, rows);
    map->data()->setSize(heads, layers);
    map->data()->setRange(QCPRange(0, heads - 1), QCPRange(0, layers - 1));
    for (int l = 0; l < layers; ++l)
      for (int k = 0; k < heads; ++k) map->data()->setCell(k, l, roles.score(role, l, k));
    map->setInterpolate(false);
    map->setTightBoundary(false);
    map->setGradient(viridisGradient());
    map->setDataRange(QCPRange(0, 1));
    if (!top.empty()) {  // the top head framed
      auto* frame = new QCPItemRect(&plot);
      frame->setClipToAxisRect(false);
      frame->topLeft->setAxes(cols, rows);
      frame->bottomRight->setAxes(cols, rows);
      frame->topLeft->setCoords(top.front().head - 0.5, top.front().layer - 0.5);
      frame->bottomRight->setCoords(top.front().head + 0.5, top.front().layer + 0.5);
      frame->setPen(QPen(QColor(0xd5, 0x5e, 0x00), std::max(2.0, cell / 8)));
      frame->setBrush(Qt::NoBrush);
    }
  }
  auto* bar = new QCPColorScale(&plot);
  grid->addElement(1, kHeadRoleCount, bar);
  bar->setType(QCPAxis::atRight);
  bar->setGradient(viridisGradient());
  bar->setDataRange(QCPRange(0, 1));
  bar->axis()->setLabel(viewText("score"));
  bar->axis()->setLabelFont(panel_font);
  bar->axis()->setTickLabelFont(tick_font);
  bar->setMarginGroup(QCP::msTop | QCP::msBottom, group);
  bar->setMaximumSize(60, QWIDGETSIZE_MAX);
  const HeadRoleSequence& s = roles.sequence;
  auto* note = new QCPTextElement(
      &plot,
      wrapWords(viewText("scores in [0, 1] from one pass over %1 random tokens repeated twice (seed "
                         "%2%3); framed: the top head of each role")
                    .arg(s.period)
                    .arg(s.seed)
                    .arg(s.prefix > 0 ? viewText(", after the model's first token") : QString()),
                panel_font, canvas.width() - 40),
      panel_font);
  note->setObjectName(QStringLiteral("note"));
  plot.plotLayout()->addElement(2, 0, note);
  plot.plotLayout()->setRowStretchFactors({0.001, 1, 0.001});
}

}  // namespace attnlab::views
