/// \file main_window_presentation.cpp
/// Presentation mode, the keys the window handles itself, and the geometry of the heatmaps on
/// screen for --layout-json (main_window.hpp).

#include <qcustomplot.h>

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QGroupBox>
#include <QLabel>
#include <QDockWidget>
#include <QJsonArray>
#include <QKeyEvent>
#include <QMenuBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>
#include <QTimer>
#include <QToolTip>
#include <algorithm>

#include "eliding_label.hpp"
#include "lesson_controller.hpp"
#include "lesson_panel.hpp"
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
/// The analysis dock's share of the window's width in a lesson step about one of its plots: the
/// plot alone in it, the window's height: a third of its width and more (issue 50); the heads keep
/// the middle.
constexpr double kAnalysisStepShare = 0.36;

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

QJsonArray MainWindow::widgetTexts() const {
  // Every text a control shows: the control's rectangle, the part of it on screen (clipped by
  // the scroll areas and panels it sits in), and the width its text needs on one line.
  QJsonArray out;
  for (QWidget* w : findChildren<QWidget*>()) {
    if (!w->isVisible() || w->window() != this) continue;
    QString text;
    int needed = 0;
    int needed_height = 0;
    bool wraps = false;
    const QFontMetrics fm(w->font());
    if (auto* label = qobject_cast<QLabel*>(w)) {
      if (label->textFormat() == Qt::RichText || label->text().contains(QLatin1Char('<'))) continue;
      text = label->text();
      wraps = label->wordWrap();
      if (wraps) needed_height = label->heightForWidth(label->width());
      for (const QString& line : text.split(QLatin1Char('\n'))) needed = std::max(needed, fm.horizontalAdvance(line));
      needed += 2 * label->margin() + label->contentsMargins().left() + label->contentsMargins().right();
    } else if (auto* button = qobject_cast<QAbstractButton*>(w)) {
      text = button->text();
      needed = button->sizeHint().width();
    } else if (auto* box = qobject_cast<QComboBox*>(w)) {
      text = box->currentText();
      // The shown item, the frame and the arrow.
      QStyleOptionComboBox option;
      option.initFrom(box);
      needed = box->style()->sizeFromContents(QStyle::CT_ComboBox, &option, QSize(fm.horizontalAdvance(text), fm.height()), box).width();
      if (comboElided(*box)) needed = 0;  // drawn elided, the whole item in its tooltip and list
    } else if (auto* group = qobject_cast<QGroupBox*>(w)) {
      text = group->title();
      needed = fm.horizontalAdvance(text) + 16;
    } else {
      continue;
    }
    text.remove(QLatin1Char('&'));
    if (text.trimmed().isEmpty()) continue;
    const QRect rect(w->mapTo(this, QPoint(0, 0)), w->size());
    const QRect shown = w->visibleRegion().boundingRect().translated(rect.topLeft());
    out.append(QJsonObject{{"class", QString::fromLatin1(w->metaObject()->className())},
                           {"name", w->objectName()},
                           {"text", text},
                           {"rect", views::rectJson(rect)},
                           {"visible", views::rectJson(shown)},
                           {"needed_width", needed},
                           {"needed_height", needed_height},
                           {"wraps", wraps}});
  }
  return out;
}

void MainWindow::setPresentationMode(bool on) {
  if (on == presentation_) return;
  presentation_ = on;
  presentation_action_->setChecked(on);
  heads_->setFontScale(on ? kPresentationFontScale : 1.0);
  QFont font = QApplication::font();
  if (on) font.setPointSizeF(font.pointSizeF() * 1.5);
  setFont(font);
  // Hover texts (a cell's tokens and weight) as large as the rest for the back of the room.
  QToolTip::setFont(on ? font : QApplication::font("QTipLabel"));
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

void MainWindow::showAnalysisPlot(AnalysisPlot plot) {
  analysis_->setFocusPlot(plot);
  if (plot == AnalysisPlot::kNone) {
    if (std::exchange(analysis_moved_, false) && !analysis_dock_->isFloating()) arrangePanels();
    return;
  }
  analysis_dock_->show();
  if (!analysis_dock_->isFloating()) {
    // Out of the tab it shares with the inputs (below a lesson's text) to the right of the heads,
    // the window's full height.
    if (dockWidgetArea(analysis_dock_) != Qt::RightDockWidgetArea || !tabifiedDockWidgets(analysis_dock_).isEmpty()) {
      addDockWidget(Qt::RightDockWidgetArea, analysis_dock_);
      analysis_moved_ = true;
    }
    resizeDocks({analysis_dock_}, {static_cast<int>(width() * kAnalysisStepShare)}, Qt::Horizontal);
    // Once more when the event loop has laid the docks out (a lesson opened before the window
    // has its size, or while a dock it closed still takes room).
    QTimer::singleShot(0, this, [this] {
      if (analysis_->focusPlot() != AnalysisPlot::kNone && analysis_dock_->isVisible() && !analysis_dock_->isFloating())
        resizeDocks({analysis_dock_}, {static_cast<int>(width() * kAnalysisStepShare)}, Qt::Horizontal);
    });
  }
  analysis_dock_->raise();
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
  // A lesson step's analysis plot keeps its share when the window grows (into full screen).
  if (analysis_->focusPlot() != AnalysisPlot::kNone && analysis_dock_->isVisible() && !analysis_dock_->isFloating() &&
      event->size().width() > event->oldSize().width())
    resizeDocks({analysis_dock_}, {static_cast<int>(width() * kAnalysisStepShare)}, Qt::Horizontal);
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
    // What of the plot is on screen (a model view taller than its panel scrolls), window pixels.
    layout["on_screen"] = views::rectJson(plot->visibleRegion().boundingRect().translated(plot->mapTo(this, QPoint(0, 0))));
    plots.append(layout);
  }
  // Every other picture and panel a lesson step or a dock shows (the analysis plots, the
  // decoding dock's cache, the lesson's text): its object name and where it is on screen.
  QJsonArray views_on_screen;
  for (QWidget* w : findChildren<QWidget*>()) {
    const bool plot = qobject_cast<QCustomPlot*>(w) != nullptr;
    static const QStringList kPanels{QStringLiteral("decodePanel"), QStringLiteral("cacheView"),
                                     QStringLiteral("lessonPanel"), QStringLiteral("generateBox"),
                                     QStringLiteral("costPanel"), QStringLiteral("trainingPanel"),
                                     QStringLiteral("headRolesPanel")};
    if (!w->isVisible() || w->objectName().isEmpty() || (!plot && !kPanels.contains(w->objectName()))) continue;
    const QPoint at = w->mapTo(this, QPoint(0, 0));
    // What of it is on screen: its rectangle clipped by every panel it sits in (a scroll area's
    // viewport, a dock), in window pixels.
    QRect shown(at, w->size());
    for (QWidget* p = w->parentWidget(); p && p != this; p = p->parentWidget())
      shown &= QRect(p->mapTo(this, QPoint(0, 0)), p->size());
    QJsonObject view{{"name", w->objectName()},
                     {"class", QString::fromLatin1(w->metaObject()->className())},
                     {"rect", views::rectJson(QRect(at, w->size()))},
                     {"visible", views::rectJson(shown)}};
    if (auto* lesson = qobject_cast<LessonPanel*>(w))  // its text scrolls: a part is out of view
      view["scrolls"] = lesson->scrollArea()->verticalScrollBar()->maximum() > 0;
    views_on_screen.append(view);
  }
  return {{"window", QJsonObject{{"width", width()}, {"height", height()}}},
          {"language", language_},
          {"presentation", presentation_},
          {"heatmaps", plots},
          {"views", views_on_screen},
          {"heads_view", views::rectJson(QRect(heads_->mapTo(this, QPoint(0, 0)), heads_->size()))},
          {"widgets", widgetTexts()}};
}

}  // namespace attnlab::gui
