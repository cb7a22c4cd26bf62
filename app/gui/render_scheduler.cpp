/// \file render_scheduler.cpp
/// One redraw per event-loop pass, one replot per pass.

#include "render_scheduler.hpp"

#include <qcustomplot.h>

#include <QTimer>
#include <algorithm>

#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "views/saturation_plot.hpp"
#include <QElapsedTimer>
#include <cstdio>

namespace attnlab::gui {

RenderScheduler::RenderScheduler(std::function<void()> render, QObject* parent)
    : QObject(parent), render_(std::move(render)) {}

void RenderScheduler::requestRender() {
  if (render_scheduled_) return;
  render_scheduled_ = true;
  // Zero delay: every request made until the event loop runs again is served by one redraw.
  QTimer::singleShot(0, this, &RenderScheduler::renderNow);
}

void RenderScheduler::renderNow() {
  render_scheduled_ = false;
  ++renders_;
  render_();
  if (replots_.isEmpty() && !render_scheduled_) emit settled();
}

void RenderScheduler::queueReplot(QCustomPlot* plot, Part part) {
  auto it = std::find_if(replots_.begin(), replots_.end(), [plot](const Replot& r) { return r.plot == plot; });
  if (it == replots_.end()) {
    replots_.append({plot, part});
  } else if (it->part != part) {
    it->part = Part::kAll;
  }
  if (replot_scheduled_) return;
  replot_scheduled_ = true;
  QTimer::singleShot(0, this, &RenderScheduler::replotNext);
}

void RenderScheduler::replotNext() {
  replot_scheduled_ = false;
  while (!replots_.isEmpty()) {
    const Replot next = replots_.takeFirst();
    if (!next.plot) continue;
    switch (next.part) {
      case Part::kAll: next.plot->replot(); break;
      case Part::kCells: views::replotCells(*next.plot); break;
      case Part::kMarker: views::replotMarker(*next.plot); break;
    }
    break;
  }
  if (!replots_.isEmpty()) {
    replot_scheduled_ = true;
    QTimer::singleShot(0, this, &RenderScheduler::replotNext);
  } else if (!render_scheduled_) {
    emit idle();
    emit settled();
  }
}

}  // namespace attnlab::gui
