#pragma once
/// \file render_scheduler.hpp
/// Keeps the GUI thread responsive while results arrive faster than they can be drawn: every
/// redraw request made during one event-loop pass becomes one redraw in the next pass, and
/// replots are spread one plot per pass (QCustomPlot's own queued replots all run in one pass,
/// so a grid, a heatmap and three side plots would otherwise stall one frame together).

#include <QList>
#include <QObject>
#include <QPointer>
#include <functional>

class QCustomPlot;

namespace attnlab::gui {

/// Coalesced redraws and queued replots (GUI thread only).
class RenderScheduler : public QObject {
  Q_OBJECT
 public:
  /// render: what a redraw does (called at most once per event-loop pass).
  explicit RenderScheduler(std::function<void()> render, QObject* parent = nullptr);

  /// Asks for one redraw in a later pass; requests until then are merged into it.
  void requestRender();
  /// Replots plot in a later pass, one plot per pass, in the order asked (a plot queued twice
  /// replots once).
  void queueReplot(QCustomPlot* plot);
  /// True while a redraw or a replot is waiting.
  bool busy() const { return render_scheduled_ || !replots_.isEmpty(); }

 signals:
  /// The replot queue became empty (everything asked for is on screen).
  void idle();

 private:
  void renderNow();
  void replotNext();

  std::function<void()> render_;
  bool render_scheduled_ = false;
  bool replot_scheduled_ = false;
  QList<QPointer<QCustomPlot>> replots_;
};

}  // namespace attnlab::gui
