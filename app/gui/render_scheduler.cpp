/// \file render_scheduler.cpp
/// One redraw per event-loop pass, one replot per pass.

#include "render_scheduler.hpp"

#include <qcustomplot.h>

#include <QTimer>

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
  render_();
}

void RenderScheduler::queueReplot(QCustomPlot* plot) {
  if (!replots_.contains(plot)) replots_.append(plot);
  if (replot_scheduled_) return;
  replot_scheduled_ = true;
  QTimer::singleShot(0, this, &RenderScheduler::replotNext);
}

void RenderScheduler::replotNext() {
  replot_scheduled_ = false;
  while (!replots_.isEmpty()) {
    QPointer<QCustomPlot> plot = replots_.takeFirst();
    if (!plot) continue;
    plot->replot();
    break;
  }
  if (!replots_.isEmpty()) {
    replot_scheduled_ = true;
    QTimer::singleShot(0, this, &RenderScheduler::replotNext);
  } else if (!render_scheduled_) {
    emit idle();
  }
}

}  // namespace attnlab::gui
