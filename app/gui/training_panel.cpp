/// \file training_panel.cpp
/// The training curves in the window (training_panel.hpp).

#include "training_panel.hpp"

#include <qcustomplot.h>

#include <QLabel>
#include <QResizeEvent>
#include <QVBoxLayout>

#include "attnlab/error.hpp"
#include "options/bundled_models.hpp"
#include "options/message.hpp"
#include "views/picture.hpp"
#include "views/training_plot.hpp"

namespace attnlab::gui {

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  message_ = new QLabel;
  message_->setObjectName(QStringLiteral("trainingMessage"));
  message_->setWordWrap(true);
  message_->setStyleSheet(QStringLiteral("color: #b00020;"));
  message_->hide();
  plot_ = new QCustomPlot;
  plot_->setObjectName(QStringLiteral("trainingPlot"));
  plot_->setMinimumSize(280, 200);
  layout->addWidget(message_);
  layout->addWidget(plot_, 1);
}

void TrainingPanel::setActive(bool active) {
  active_ = active;
  if (active_ && dirty_) redraw();
}

void TrainingPanel::redraw() {
  dirty_ = true;
  if (!active_) return;
  dirty_ = false;
  try {
    if (!curves_) curves_ = views::readTrainingCurves(options::trainingCurveDirs());
    views::setCanvasSize(*plot_, QSize());  // the panel's size
    views::drawTrainingCurves(*plot_, *curves_);
    message_->hide();
    plot_->show();
    plot_->replot();
  } catch (const options::OptionError& e) {
    message_->setText(e.message().translated());
    message_->show();
    plot_->hide();
  } catch (const Error& e) {
    message_->setText(QString::fromUtf8(e.what()));
    message_->show();
    plot_->hide();
  }
}

void TrainingPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (active_ && event->size().width() != event->oldSize().width()) redraw();
}

}  // namespace attnlab::gui
