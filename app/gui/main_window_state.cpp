/// \file main_window_state.cpp
/// What the window keeps between sessions in QSettings (main_window.hpp): the inputs (through
/// options::saveSettings / loadSettings), the picture options, geometry, dock arrangement (per kind of screen),
/// language, recent models and the model view's head role. Nothing is read or written unless WindowOptions asks for it.

#include <QCloseEvent>
#include <QSettings>
#include <algorithm>

#include "main_window.hpp"

namespace attnlab::gui {

QString MainWindow::restoreStoredState(options::LabSettings& initial, views::PictureOptions& picture) {
  QSettings store;
  initial = options::loadSettings(store);
  picture.color_scale = static_cast<views::ColorScale>(
      std::clamp(store.value(QStringLiteral("picture/color_scale"), 0).toInt(), 0, 3));
  picture.pool = static_cast<views::Pool>(std::clamp(store.value(QStringLiteral("picture/pool"), 0).toInt(), 0, 1));
  restoreGeometry(store.value(QStringLiteral("window/geometry")).toByteArray());
  panels_restored_ = restoreState(store.value(panelStateKey()).toByteArray());
  model_source_->setRecent(store.value(QStringLiteral("models/recent")).toStringList());
  // The model view's role badges as last chosen (the command line's --head-role gives no restore).
  options_.head_role = parseHeadRole(store.value(QStringLiteral("ui/head_role")).toString().toStdString());
  initial.head_roles = options_.head_role.has_value();  // computed with the first result
  return options_.language.isEmpty() ? store.value(QStringLiteral("ui/language")).toString() : options_.language;
}

void MainWindow::persistPicture() {
  if (!options_.persist) return;
  QSettings store;
  store.setValue(QStringLiteral("picture/color_scale"), static_cast<int>(inputs_->picture().color_scale));
  store.setValue(QStringLiteral("picture/pool"), static_cast<int>(inputs_->picture().pool));
}

void MainWindow::persistState() {
  if (!options_.persist) return;
  QSettings store;
  options::saveSettings(store, settings());
  store.setValue(QStringLiteral("window/geometry"), saveGeometry());
  store.setValue(panelStateKey(), QMainWindow::saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (presentation_) setPresentationMode(false);
  persistState();
  QMainWindow::closeEvent(event);
}

}  // namespace attnlab::gui
