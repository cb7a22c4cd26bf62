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
  /// What a queued replot redraws.
  enum class Part {
    kAll,     ///< The whole plot.
    kCells,   ///< A heatmap's cells only (views::replotCells).
    kMarker,  ///< A saturation plot's marker only (views::replotMarker).
  };
  /// Replots plot (or part of it) in a later pass, one plot per pass, in the order asked; a plot
  /// queued twice replots once, wholly when either request was for the whole plot.
  void queueReplot(QCustomPlot* plot, Part part = Part::kAll);
  /// True while a redraw or a replot is waiting.
  bool busy() const { return render_scheduled_ || !replots_.isEmpty(); }
  /// Redraws done so far: a redraw asked for when this read n is done once it reads more than n.
  int renders() const { return renders_; }

 signals:
  /// The replot queue became empty (everything asked for is on screen).
  void idle();
  /// Everything asked for is on screen: with idle, and after a redraw that queued no replot.
  void settled();

 private:
  void renderNow();
  void replotNext();

  std::function<void()> render_;
  bool render_scheduled_ = false;
  int renders_ = 0;
  bool replot_scheduled_ = false;
  struct Replot {
    QPointer<QCustomPlot> plot;
    Part part;
  };
  QList<Replot> replots_;
};

}  // namespace attnlab::gui
