/// \file heatmap_query.cpp
/// A drawn heatmap read back from its decoration item: canvas, block, the geometry as JSON
/// (layoutJson), the cell under a point (cellAt) and a query row's rectangle (rowRect).

#include <QJsonArray>
#include <algorithm>

#include "views/heatmap_paint.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"

namespace attnlab::views {

QJsonObject rectJson(const QRectF& r) {
  return {{"x", r.x()}, {"y", r.y()}, {"width", r.width()}, {"height", r.height()}};
}

QSize heatmapCanvas(const QCustomPlot& plot) {
  const HeatmapDecor* decor = decorOf(plot);
  return decor ? decor->layout().canvas : QSize();
}

int heatmapBlock(const QCustomPlot& plot) {
  const HeatmapDecor* decor = decorOf(plot);
  return decor && !decor->layout().maps.empty() ? decor->layout().maps.front().block : 0;
}

QJsonObject layoutJson(const QCustomPlot& plot) {
  const HeatmapDecor* decor = decorOf(plot);
  if (!decor) return {};
  const HeatmapLayout& l = decor->layout();
  QJsonObject out;
  out["canvas"] = QJsonObject{{"width", l.canvas.width()}, {"height", l.canvas.height()}};
  out["columns"] = l.columns;
  out["rows"] = l.rows;
  out["transposed"] = l.transposed;
  out["query_step"] = l.query_step;
  out["key_step"] = l.key_step;
  out["key_orientation"] = l.key_orientation == Orientation::kVertical ? "vertical" : "horizontal";
  const char* scales[] = {"auto", "linear", "log", "relative", "difference"};
  out["color_scale"] = scales[static_cast<int>(decor->scale().scale)];
  out["pool"] = decor->scale().pooled ? (decor->scale().pool == Pool::kMax ? "max" : "mean") : "none";
  QJsonArray maps;
  for (std::size_t m = 0; m < l.maps.size(); ++m) {
    const MapGeometry& g = l.maps[m];
    QJsonObject map = rectJson(g.cells);
    map["index"] = static_cast<int>(m);
    double cell_w = g.cell, cell_h = g.cell;
    // What QCustomPlot drew: the axis rect's pixels once the plot has been laid out.
    if (m < decor->rects.size() && decor->rects[m] && decor->rects[m]->rect().width() > 0) {
      const QRect drawn = decor->rects[m]->rect();
      cell_w = static_cast<double>(drawn.width()) / g.columns;
      cell_h = static_cast<double>(drawn.height()) / g.rows;
      map["drawn"] = rectJson(QRectF(drawn));
    }
    map["cell_width"] = cell_w;
    map["cell_height"] = cell_h;
    map["rows"] = g.rows;
    map["columns"] = g.columns;
    map["block"] = g.block;
    map["n_q"] = g.n_q;
    map["n_k"] = g.n_k;
    if (g.group >= 0) map["kv_head"] = g.group;
    maps.append(map);
  }
  out["maps"] = maps;
  if (l.pad_from >= 0) out["pad_from"] = l.pad_from;  // [PAD] query rows from here on (hatched)
  if (!l.groups.empty()) {
    QJsonArray groups;
    for (const GroupBox& box : l.groups) {
      QJsonObject group = rectJson(box.rect);
      group["kv_head"] = box.group;
      groups.append(group);
    }
    out["kv_groups"] = groups;
  }
  QJsonArray texts;
  for (const DrawnText& t : l.texts) {
    QJsonObject text = rectJson(t.rect);
    text["role"] = t.role;
    text["text"] = t.text;
    text["orientation"] = t.orientation == Orientation::kVertical ? "vertical" : "horizontal";
    text["font_points"] = t.font.pointSizeF();
    if (t.panel >= 0) text["map"] = t.panel;
    if (t.index >= 0) text["index"] = t.index;
    texts.append(text);
  }
  out["texts"] = texts;
  if (!l.bar.isEmpty()) {
    QJsonObject bar = rectJson(l.bar);
    bar["title"] = decor->scale().bar.title;
    out["color_bar"] = bar;
  }
  return out;
}

std::optional<CellHit> cellAt(const QCustomPlot& plot, const QPointF& pos) {
  const HeatmapDecor* decor = decorOf(plot);
  if (!decor) return std::nullopt;
  const std::vector<MapGeometry>& maps = decor->layout().maps;
  for (std::size_t m = 0; m < maps.size(); ++m) {
    const MapGeometry& g = maps[m];
    if (!g.cells.contains(pos) || g.cell <= 0) continue;
    const auto token = [&g](double offset, int n) {
      const int c = std::clamp(static_cast<int>(offset / g.cell), 0, (n + g.block - 1) / g.block - 1);
      const auto [first, last] = blockRange(c, g.block, n);
      const double within = offset / g.cell - c;
      return std::clamp(first + static_cast<int>(within * (last - first)), first, last - 1);
    };
    CellHit hit;
    hit.map = static_cast<int>(m);
    hit.key = token(pos.x() - g.cells.left(), g.n_k);
    hit.query = token(pos.y() - g.cells.top(), g.n_q);
    return hit;
  }
  return std::nullopt;
}

QRectF rowRect(const QCustomPlot& plot, int map, int query) {
  const HeatmapDecor* decor = decorOf(plot);
  if (!decor || map < 0 || map >= static_cast<int>(decor->layout().maps.size())) return {};
  const MapGeometry& g = decor->layout().maps[static_cast<std::size_t>(map)];
  if (query < 0 || query >= g.n_q) return {};
  const int r = query / g.block;
  return QRectF(g.cells.left(), g.cells.top() + r * g.cell, g.cells.width(), g.cell);
}

}  // namespace attnlab::views
