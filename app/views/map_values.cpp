/// \file map_values.cpp
/// The cells of one map in a scale's units (heatmap_paint.hpp's MapValues): from an attention
/// result's weights, pooled into blocks for an overview, or from a model run's pooled overviews
/// (blocks of blocks). No QCustomPlot object is touched: any thread may compute them.

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attnlab/error.hpp"
#include "views/heatmap.hpp"
#include "views/heatmap_paint.hpp"

namespace attnlab::views {

namespace {

/// The cells of a map laid out by g, not filled yet (a dimension of 1 stored as two halves).
MapValues sizedValues(const MapGeometry& g) {
  MapValues out;
  out.key_cells = g.columns == 1 ? 2 : g.columns;
  out.query_cells = g.rows == 1 ? 2 : g.rows;
  out.key_range = g.columns == 1 ? QCPRange(-0.25, 0.25) : QCPRange(0, g.columns - 1);
  out.value_range = g.rows == 1 ? QCPRange(-0.25, 0.25) : QCPRange(0, g.rows - 1);
  out.values.resize(static_cast<std::size_t>(out.key_cells) * static_cast<std::size_t>(out.query_cells));
  return out;
}

/// Sets cell (c, r) of out, sized by sizedValues(g), to v (both halves where a dimension is 1).
void setCell(MapValues& out, const MapGeometry& g, int c, int r, double v) {
  for (int dk = 0; dk < (g.columns == 1 ? 2 : 1); ++dk) {
    for (int dq = 0; dq < (g.rows == 1 ? 2 : 1); ++dq)
      out.values[static_cast<std::size_t>(r + dq) * static_cast<std::size_t>(out.key_cells) +
                 static_cast<std::size_t>(c + dk)] = v;
  }
}

}  // namespace

MapValues mapValues(const AttentionResult& result, int head, const MapGeometry& g, const ScaleSpec& scale) {
  const int n_q = result.nQ(), n_k = result.nK();
  const int columns = g.columns, rows = g.rows;
  MapValues out = sizedValues(g);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const MaskPattern pattern = result.pattern();
  const bool relative = scale.scale == ColorScale::kRelative;
  // A difference block keeps its Δ of largest magnitude, sign included.
  const bool signed_values = scale.scale == ColorScale::kDifference;
  std::vector<double> block_values(static_cast<std::size_t>(columns));
  std::vector<double> block_sum(static_cast<std::size_t>(columns));
  std::vector<int> block_count(static_cast<std::size_t>(columns));
  for (int r = 0; r < rows; ++r) {
    std::fill(block_values.begin(), block_values.end(), nan);
    std::fill(block_sum.begin(), block_sum.end(), 0.0);
    std::fill(block_count.begin(), block_count.end(), 0);
    const auto [i0, i1] = blockRange(r, g.block, n_q);
    for (int i = i0; i < i1; ++i) {
      const float* row = result.weights.row(head, i);
      const auto [lo, hi] = pattern.span(i, n_k);
      const bool gaps = !pattern.contiguous();
      const double factor = relative ? pattern.visibleCount(i, n_k) : 1.0;
      for (int j = lo; j < hi; ++j) {
        if (gaps && !pattern.visible(i, j)) continue;
        const std::size_t c = static_cast<std::size_t>(j / g.block);
        if (!std::isfinite(row[j])) {  // drawn in kNonfiniteColor over the cell
          if (out.nonfinite.empty() || out.nonfinite.back() != QPoint(static_cast<int>(c), r))
            out.nonfinite.emplace_back(static_cast<int>(c), r);
          continue;
        }
        if (g.block == 1 && result.isDropped(head, i, j)) out.dropped.emplace_back(j, i);
        const double v = factor * row[j];
        const double best = block_values[c];
        if (std::isnan(best) || (signed_values ? std::fabs(v) > std::fabs(best) : v > best)) block_values[c] = v;
        block_sum[c] += v;
        ++block_count[c];
      }
    }
    for (int c = 0; c < columns; ++c) {
      const std::size_t ci = static_cast<std::size_t>(c);
      double v = nan;
      if (block_count[ci] > 0) {
        v = scale.value(scale.pool == Pool::kMax || g.block == 1 ? block_values[ci]
                                                                  : block_sum[ci] / block_count[ci]);
      }
      setCell(out, g, c, r, v);
    }
  }
  return out;
}

PooledCell pooledCell(const PooledAttention& pooled, int head, int row, int column, int cell_block) {
  const int b = pooled.block;
  if (head < 0 || head >= pooled.heads() || b < 1 || cell_block < b || cell_block % b != 0) {
    throw Error(ErrorCode::kInvalidArgument, "a pooled overview does not fit the map's cells");
  }
  const int m = cell_block / b;  // pooled blocks per cell side
  const int block_cols = pooled.blockCols();
  PooledCell cell;
  double sum = 0;
  for (int bi = row * m; bi < std::min(pooled.blockRows(), (row + 1) * m); ++bi) {
    for (int bj = column * m; bj < std::min(block_cols, (column + 1) * m); ++bj) {
      const int visible = pooled.visible[static_cast<std::size_t>(bi) * static_cast<std::size_t>(block_cols) +
                                         static_cast<std::size_t>(bj)];
      if (visible == 0) continue;
      const double top = pooled.max(head, bi, bj), mean = pooled.mean(head, bi, bj);
      if (!std::isfinite(top) || !std::isfinite(mean)) {
        cell.nonfinite = true;
        continue;
      }
      if (std::isnan(cell.max) || top > cell.max) cell.max = top;
      sum += mean * visible;
      cell.visible += visible;
    }
  }
  if (cell.visible > 0) cell.mean = sum / static_cast<double>(cell.visible);
  return cell;
}

MapValues mapValues(const PooledAttention& pooled, int head, const MapGeometry& g, const ScaleSpec& scale) {
  if (g.n_q != pooled.n_q || g.n_k != pooled.n_k) {
    throw Error(ErrorCode::kInvalidArgument, "a pooled overview does not fit the map's cells");
  }
  MapValues out = sizedValues(g);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int r = 0; r < g.rows; ++r) {
    for (int c = 0; c < g.columns; ++c) {
      const PooledCell cell = pooledCell(pooled, head, r, c, g.block);
      if (cell.nonfinite) out.nonfinite.emplace_back(c, r);  // drawn in kNonfiniteColor over the cell
      setCell(out, g, c, r,
              cell.visible > 0 ? scale.value(scale.pool == Pool::kMax || g.block == 1 ? cell.max : cell.mean) : nan);
    }
  }
  return out;
}

}  // namespace attnlab::views
