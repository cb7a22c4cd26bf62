/// \file ready_maps.cpp
/// Maps filled off the GUI thread: the plan of a drawn picture, and its cells and image.

#include "views/ready_maps.hpp"

#include <qcustomplot.h>

namespace attnlab::views {
namespace {

bool sameGeometry(const MapGeometry& a, const MapGeometry& b) {
  return a.rows == b.rows && a.columns == b.columns && a.block == b.block && a.n_q == b.n_q && a.n_k == b.n_k;
}

/// What QCPColorMap::updateMapImage (QCustomPlot 2.1) makes of v for a heatmap's map (key axis
/// horizontal, no interpolation, no alpha, linear data scale): row r of the cells on scan line
/// query_cells − 1 − r (QCustomPlot counts values from the bottom; the reversed query axis turns
/// it at draw time), scaled up by int(1 + 100 / size) per side with FastTransformation.
QImage cellImage(const MapValues& v, QCPColorGradient gradient, const QCPRange& range) {
  const QImage::Format format = QImage::Format_ARGB32_Premultiplied;
  const int key_factor = int(1.0 + 100.0 / double(v.key_cells));
  const int value_factor = int(1.0 + 100.0 / double(v.query_cells));
  QImage cells(QSize(v.key_cells, v.query_cells), format);
  for (int line = 0; line < v.query_cells; ++line) {
    auto* pixels = reinterpret_cast<QRgb*>(cells.scanLine(v.query_cells - 1 - line));
    gradient.colorize(v.values.data() + static_cast<std::size_t>(line) * static_cast<std::size_t>(v.key_cells),
                      range, pixels, v.key_cells, 1, false);
  }
  if (key_factor == 1 && value_factor == 1) return cells;
  return cells.scaled(v.key_cells * key_factor, v.query_cells * value_factor, Qt::IgnoreAspectRatio,
                      Qt::FastTransformation);
}

}  // namespace

bool sameCells(const MapPlan& a, const MapPlan& b) {
  if (a.head != b.head || a.maps.size() != b.maps.size()) return false;
  for (std::size_t k = 0; k < a.maps.size(); ++k)
    if (!sameGeometry(a.maps[k], b.maps[k])) return false;
  const ScaleSpec& x = a.scale;
  const ScaleSpec& y = b.scale;
  return x.scale == y.scale && x.pool == y.pool && x.pooled == y.pooled && x.lo == y.lo && x.hi == y.hi &&
         x.n_k == y.n_k && x.gradient == y.gradient;
}

std::shared_ptr<const MapPlan> mapPlan(const QCustomPlot& plot, int head) {
  const HeatmapDecor* decor = decorOf(plot);
  if (!decor || decor->layout().maps.empty() || decor->scale().scale == ColorScale::kDifference) return nullptr;
  const int maps = static_cast<int>(decor->layout().maps.size());
  if ((head >= 0 && maps != 1) || plot.plottableCount() != maps) return nullptr;
  auto plan = std::make_shared<MapPlan>();
  plan->head = head;
  plan->maps = decor->layout().maps;
  plan->scale = decor->scale();
  return plan;
}

std::shared_ptr<const ReadyMaps> fillReadyMaps(const AttentionResult& result, std::shared_ptr<const MapPlan> plan) {
  if (!plan || plan->maps.empty() || result.heads() < 1) return nullptr;
  const int maps = static_cast<int>(plan->maps.size());
  if (plan->head >= result.heads() || (plan->head < 0 && maps != result.heads())) return nullptr;
  if (result.weights.data.size() != static_cast<std::size_t>(result.heads()) * result.nQ() * result.nK()) return nullptr;
  for (const MapGeometry& g : plan->maps)
    if (g.n_q != result.nQ() || g.n_k != result.nK() || g.block < 1) return nullptr;
  auto ready = std::make_shared<ReadyMaps>();
  const QCPRange range(plan->scale.lo, plan->scale.hi);
  for (int k = 0; k < maps; ++k) {
    MapValues v = mapValues(result, plan->head < 0 ? k : plan->head, plan->maps[static_cast<std::size_t>(k)], plan->scale);
    ReadyCells cells;
    cells.data = std::make_unique<QCPColorMapData>(v.key_cells, v.query_cells, v.key_range, v.value_range);
    for (int r = 0; r < v.query_cells; ++r)
      for (int c = 0; c < v.key_cells; ++c)
        cells.data->setCell(c, r, v.values[static_cast<std::size_t>(r) * static_cast<std::size_t>(v.key_cells) + c]);
    cells.image = cellImage(v, plan->scale.gradient, range);
    cells.nonfinite = std::move(v.nonfinite);
    cells.dropped = std::move(v.dropped);
    ready->maps.push_back(std::move(cells));
  }
  ready->plan = std::move(plan);
  return ready;
}

}  // namespace attnlab::views
