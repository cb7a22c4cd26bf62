/// \file heads_view_pointer.cpp
/// The heads view under the pointer: the cell at a position, clicks (enlarge a head, select a
/// query row) and the hover text of a cell.

#include <qcustomplot.h>

#include <QMenu>
#include <QMouseEvent>
#include <QToolTip>

#include "comparison.hpp"
#include "heads_view.hpp"
#include "views/text.hpp"
#include "views/token_text.hpp"

namespace attnlab::gui {
namespace {

/// Shown token i as a hover names it: its label, and the character it holds part of with its
/// bytes ("'⋯' 我 (part 1 of 2: E6 88)").
QString hoverToken(const results::Run& run, const QStringList& labels, int i) {
  const auto at = static_cast<std::size_t>(i);
  return views::hoverTokenText(
      labels.value(i), i >= 0 && at < run.token_display.size() ? &run.token_display[at] : nullptr);
}

}  // namespace

std::optional<std::tuple<int, int, int, int>> HeadsView::cellAt(QCustomPlot* plot, const QPointF& pos) const {
  if (!shown_) return std::nullopt;
  const std::optional<views::CellHit> hit = views::cellAt(*plot, pos);
  if (!hit) return std::nullopt;
  if (plot == grid_plot_ && shown_->rollout && !difference_shown_) return std::make_tuple(-1, 0, hit->query, hit->key);
  if (plot == grid_plot_) {
    // The model view's map r·h + k is entry r, head k; a head grid's map k is head k.
    const int h = shown_->attention(0).heads();
    if (modelView()) return std::make_tuple(hit->map / h, hit->map % h, hit->query, hit->key);
    return std::make_tuple(0, hit->map, hit->query, hit->key);
  }
  const int h = shown_->attention(focusEntry()).heads();
  return std::make_tuple(focusEntry(), std::clamp(enlarged_head_, 0, h - 1), hit->query, hit->key);
}

void HeadsView::onClick(QCustomPlot* plot, QMouseEvent* event) {
  const bool ablate = event->button() == Qt::RightButton ||
                      (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier));
  if (event->button() != Qt::LeftButton && !ablate) return;
  const auto cell = cellAt(plot, event->position());
  if (!cell) return;
  const auto [entry, head, row, column] = *cell;
  (void)column;
  if (entry < 0) return;  // the rollout: one map, nothing to enlarge
  if (ablate) {
    // A head of a model's pass (the model view, or an enlarged layer's head): ablate it, through
    // a menu for the right button (what it does said first), at once for Ctrl+click.
    if (!shown_->model || shown_->pooled() || difference_shown_) return;
    const int layer = shown_->layerIndices().at(static_cast<std::size_t>(entry));
    if (event->button() == Qt::RightButton) {
      QMenu menu(plot);
      const bool ablated = std::find(shown_->settings.ablate.begin(), shown_->settings.ablate.end(),
                                     HeadRef{layer, head}) != shown_->settings.ablate.end();
      QAction* toggle = menu.addAction(ablated ? tr("Restore head %1.%2").arg(layer).arg(head)
                                               : tr("Ablate head %1.%2 (remove its output)").arg(layer).arg(head));
      toggle->setObjectName(QStringLiteral("ablateHeadAction"));
      if (menu.exec(event->globalPosition().toPoint()) != toggle) return;
    }
    emit ablationRequested(layer, head);
    return;
  }
  if (plot == grid_plot_) {
    selected_row_ = row;
    if (modelView() && shown_->pooled()) {
      // A pooled layer has no weights to enlarge: the kept (last) layer enlarges, any other is
      // computed in full by a run of its own.
      const int layer = shown_->overview->layer_indices.at(static_cast<std::size_t>(entry));
      if (layer == shown_->layerIndices().front()) {
        enlargeLayerHead(layer, head);
      } else {
        emit layerRequested(layer);
      }
    } else if (modelView()) {
      enlargeLayerHead(shown_->layerIndices().at(static_cast<std::size_t>(entry)), head);
    } else {
      enlargeHead(head);
    }
  } else {
    selectRow(row);
  }
}

void HeadsView::onHover(QCustomPlot* plot, QMouseEvent* event) {
  const auto cell = cellAt(plot, event->position());
  if (!cell) {
    QToolTip::hideText();
    return;
  }
  const auto [entry, head, row, column] = *cell;
  const bool pooled = plot == grid_plot_ && modelView() && shown_->pooled() && !difference_shown_;
  const QString text = pooled ? pooledCellText(entry, head, row, column) : cellText(entry, head, row, column);
  QToolTip::showText(event->globalPosition().toPoint(),
                     QStringLiteral("<p style='white-space:pre'>%1</p>").arg(views::emojiHtml(text)), plot);
}

QString HeadsView::cellText(int entry, int head, int query, int key) const {
  if (shown_ && entry < 0 && shown_->rollout) {
    const AttentionResult& r = shown_->rollout->result;
    if (query < 0 || query >= r.nQ() || key < 0 || key >= r.nK()) return {};
    return tr("rollout · query %1 %2 → key %3 %4: %5")
        .arg(query)
        .arg(hoverToken(*shown_, shown_->query_tokens, query))
        .arg(key)
        .arg(hoverToken(*shown_, shown_->key_tokens, key))
        .arg(r.weights(0, query, key), 0, 'f', 4);
  }
  if (!shown_ || entry < 0 || entry >= shown_->entries()) return {};
  const AttentionResult& r = shown_->attention(entry);
  if (head < 0 || head >= r.heads() || query < 0 || query >= r.nQ() || key < 0 || key >= r.nK()) return {};
  QString where = tr("head %1 · query %2 %3 → key %4 %5")
                      .arg(head)
                      .arg(query)
                      .arg(hoverToken(*shown_, shown_->query_tokens, query))
                      .arg(key)
                      .arg(hoverToken(*shown_, shown_->key_tokens, key));
  if (shown_->model || shown_->translator) {
    where = tr("layer %1 · %2").arg(shown_->layerIndices().at(static_cast<std::size_t>(entry))).arg(where);
  }
  if (!r.pattern().visible(query, key)) return tr("%1: masked").arg(where);
  if (difference_shown_ && compare_ && compare_->result()) {
    const AttentionResult& b = compare_->result()->attention(std::min(entry, compare_->result()->entries() - 1));
    const int head_b = compare_->headB().value_or(head);
    if (head_b < b.heads() && query < b.nQ() && key < b.nK()) {
      const double wa = r.weights(head, query, key), wb = b.weights(head_b, query, key);
      return tr("%1: A %2, B %3, A − B %4").arg(where).arg(wa, 0, 'f', 4).arg(wb, 0, 'f', 4).arg(wa - wb, 0, 'f', 4);
    }
  }
  return tr("%1: weight %2, score %3")
      .arg(where)
      .arg(r.weights(head, query, key), 0, 'f', 4)
      .arg(r.scores(head, query, key), 0, 'g', 4);
}

QString HeadsView::pooledCellText(int entry, int head, int query, int key) const {
  if (!shown_->overview || entry >= static_cast<int>(shown_->overview->layers.size())) return {};
  const PooledAttention& pooled = shown_->overview->layers[static_cast<std::size_t>(entry)];
  const int block = views::heatmapBlock(*grid_plot_);
  if (head < 0 || head >= pooled.heads() || query < 0 || query >= pooled.n_q || key < 0 || key >= pooled.n_k ||
      block < pooled.block || block % pooled.block != 0) {
    return {};
  }
  const views::PooledCell cell = views::pooledCell(pooled, head, query / block, key / block, block);
  const int q0 = query / block * block, q1 = std::min(pooled.n_q, q0 + block);
  const int k0 = key / block * block, k1 = std::min(pooled.n_k, k0 + block);
  const QString where = tr("layer %1 · head %2 · queries %3–%4 → keys %5–%6")
                            .arg(shown_->overview->layer_indices.at(static_cast<std::size_t>(entry)))
                            .arg(head)
                            .arg(q0)
                            .arg(q1 - 1)
                            .arg(k0)
                            .arg(k1 - 1);
  if (cell.visible == 0) return tr("%1: masked").arg(where);
  return tr("%1: max weight %2, mean %3 over %4 visible pairs")
      .arg(where)
      .arg(cell.max, 0, 'f', 4)
      .arg(cell.mean, 0, 'f', 4)
      .arg(cell.visible);
}

}  // namespace attnlab::gui
