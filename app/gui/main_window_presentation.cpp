/// \file main_window_presentation.cpp
/// Presentation mode, the keys the window handles itself, and the geometry of the heatmaps on
/// screen for --layout-json (main_window.hpp).

#include <qcustomplot.h>

#include <QApplication>
#include <QDockWidget>
#include <QJsonArray>
#include <QKeyEvent>
#include <QMenuBar>
#include <QPushButton>
#include <QScreen>
#include <QStatusBar>
#include <algorithm>

#include "lesson_controller.hpp"
#include "main_window.hpp"

namespace attnlab::gui {
namespace {

/// Font factor of the pictures in presentation mode.
constexpr double kPresentationFontScale = 1.7;
/// From this window width on, the analysis dock sits beside the heads; below it is a tab beside
/// the inputs. At 1920 px the inputs (360) and the analysis (400) beside the heads still leave the
/// heatmaps 55 % of the window.
constexpr int kSideBySideWidth = 1900;
/// Widths of the inputs and analysis docks as first arranged, px.
constexpr int kInputsWidth = 360;
constexpr int kAnalysisWidth = 400;

/// Moves every rectangle of a views::layoutJson object by offset (plot → window pixels).
QJsonObject moved(QJsonObject layout, const QPoint& offset) {
  const auto shift = [&offset](QJsonObject o) {
    o["x"] = o["x"].toDouble() + offset.x();
    o["y"] = o["y"].toDouble() + offset.y();
    if (o.contains(QStringLiteral("drawn"))) {
      QJsonObject drawn = o["drawn"].toObject();
      drawn["x"] = drawn["x"].toDouble() + offset.x();
      drawn["y"] = drawn["y"].toDouble() + offset.y();
      o["drawn"] = drawn;
    }
    return o;
  };
  for (const char* key : {"maps", "texts"}) {
    QJsonArray list;
    for (const QJsonValue& v : layout[QLatin1String(key)].toArray()) list.append(shift(v.toObject()));
    layout[QLatin1String(key)] = list;
  }
  if (layout.contains(QStringLiteral("color_bar"))) layout["color_bar"] = shift(layout["color_bar"].toObject());
  return layout;
}

}  // namespace

void MainWindow::setPresentationMode(bool on) {
  if (on == presentation_) return;
  presentation_ = on;
  presentation_action_->setChecked(on);
  heads_->setFontScale(on ? kPresentationFontScale : 1.0);
  QFont font = QApplication::font();
  if (on) font.setPointSizeF(font.pointSizeF() * 1.5);
  setFont(font);
  inputs_dock_->setVisible(!on);
  analysis_dock_->setVisible(!on);
  analysis_->setCompact(on);
  menuBar()->setVisible(!on);
  statusBar()->setVisible(!on);
  if (on) {
    showFullScreen();
    heads_->enlargeHead(std::max(0, heads_->selectedHead()));
  } else {
    showNormal();
    analysis_->invalidate();
  }
  lessons_->setPresentation(on);  // the lesson panel stays, in large type
  scheduler_.requestRender();
}

void MainWindow::fitToScreen() {
  const QScreen* shown_on = screen();
  const QSize available = shown_on ? shown_on->availableGeometry().size() : QSize(1500, 920);
  // Projectors and HD screens: the whole screen (maximized, so a real window manager keeps its
  // frame on screen); larger screens: a window of 85 % of it.
  const bool fill = available.width() <= 1920 || available.height() <= 1080;
  resize(fill ? available : QSize(1500, 920).expandedTo(available * 0.85).boundedTo(available));
  if (fill) setWindowState(windowState() | Qt::WindowMaximized);
}

QString MainWindow::panelStateKey() const {
  return width() >= kSideBySideWidth ? QStringLiteral("window/state-wide") : QStringLiteral("window/state-narrow");
}

void MainWindow::arrangePanels() {
  if (width() >= kSideBySideWidth) {
    addDockWidget(Qt::RightDockWidgetArea, analysis_dock_);
    resizeDocks({inputs_dock_, analysis_dock_}, {kInputsWidth, kAnalysisWidth}, Qt::Horizontal);
  } else {
    tabifyDockWidget(inputs_dock_, analysis_dock_);
    inputs_dock_->raise();
    resizeDocks({inputs_dock_}, {kInputsWidth}, Qt::Horizontal);
  }
}

void MainWindow::showGrid() {
  if (presentation_) setPresentationMode(false);
  heads_->showGrid();
}

void MainWindow::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape) {
    if (cancel_button_->isVisible()) {
      cancel_button_->click();  // a long forward pass first
    } else if (presentation_) {
      setPresentationMode(false);
    } else {
      heads_->showGrid();
    }
    return;
  }
  QMainWindow::keyPressEvent(event);
}

void MainWindow::resizeEvent(QResizeEvent* event) {
  QMainWindow::resizeEvent(event);
  scheduler_.requestRender();
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange && language_system_action_) retranslateUi();
  QMainWindow::changeEvent(event);
}

QJsonObject MainWindow::layoutJson() const {
  QJsonArray plots;
  for (QCustomPlot* plot : {heads_->gridPlot(), heads_->headPlot()}) {
    if (!plot->isVisible()) continue;
    QJsonObject layout = moved(views::layoutJson(*plot), plot->mapTo(this, QPoint(0, 0)));
    layout["plot"] = plot->objectName();
    plots.append(layout);
  }
  return {{"window", QJsonObject{{"width", width()}, {"height", height()}}},
          {"language", language_},
          {"presentation", presentation_},
          {"heatmaps", plots}};
}

}  // namespace attnlab::gui
