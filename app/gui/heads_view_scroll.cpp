/// \file heads_view_scroll.cpp
/// The grid page's scroll area: a picture laid out for its viewport and grown past it (the model
/// view's layers, a head grid that keeps readable cells) is shown at its own size and scrolls.

#include <qcustomplot.h>

#include <QScrollArea>
#include <QScrollBar>
#include <algorithm>

#include "heads_view.hpp"
#include "views/heatmap.hpp"
#include "views/picture.hpp"

namespace attnlab::gui {

QSize HeadsView::scrollCanvas() const {
  // The scroll area's width less its scroll bar, so that the layout does not change when the bar
  // comes and goes.
  const QSize area = grid_scroll_->maximumViewportSize();
  const int bar = grid_scroll_->verticalScrollBar()->sizeHint().width();
  return {std::max(1, area.width() - bar), std::max(1, area.height())};
}

bool HeadsView::fitScrolled(const QSize& canvas) {
  const QSize drawn = views::heatmapCanvas(*grid_plot_);
  const QSize picture(std::max(canvas.width(), drawn.width()), std::max(canvas.height(), drawn.height()));
  // Sideways only when the layout grew the canvas's width too (an 8B model's 32 × 32 heads at
  // kMinThumbnailPx). AlwaysOn, not AsNeeded: the viewport shrinks now (AsNeeded shows the bar
  // at the next layout pass, after scrollToTopHead measured).
  grid_scroll_->setHorizontalScrollBarPolicy(picture.width() > canvas.width() ? Qt::ScrollBarAlwaysOn
                                                                              : Qt::ScrollBarAlwaysOff);
  views::setCanvasSize(*grid_plot_, picture);  // what exports, hover and replots read
  if (grid_scroll_->widgetResizable()) grid_scroll_->setWidgetResizable(false);
  if (grid_plot_->size() == picture) return false;
  grid_plot_->resize(picture);
  // A shown QCustomPlot replots at once when resized (its resizeEvent): no second replot.
  return grid_plot_->isVisible() && grid_plot_->size() == picture;
}

}  // namespace attnlab::gui
