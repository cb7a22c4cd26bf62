/// \file main_window_interventions.cpp
/// The Interventions dock of the window (main_window.hpp, interventions_panel.hpp): a head of
/// the model view ablated from its context menu or by Ctrl+click, the run again with the kept
/// pass and the ablated layers recomputed.

#include <QDockWidget>

#include "heads_view.hpp"
#include "interventions_panel.hpp"
#include "main_window.hpp"

namespace attnlab::gui {

void MainWindow::setUpInterventions() {
  interventions_ = new InterventionsPanel;
  interventions_->setObjectName(QStringLiteral("interventionsPanel"));
  interventions_dock_ = new QDockWidget(this);
  interventions_dock_->setObjectName(QStringLiteral("interventionsDock"));
  interventions_dock_->setWidget(interventions_);
  addDockWidget(Qt::RightDockWidgetArea, interventions_dock_);
  interventions_dock_->hide();
  connect(interventions_, &InterventionsPanel::changed, this, &MainWindow::requestNow);
  connect(heads_, &HeadsView::ablationRequested, this, [this](int layer, int head) {
    interventions_dock_->show();
    interventions_dock_->raise();
    interventions_->toggle(layer, head);
  });
}

}  // namespace attnlab::gui
