/// \file stored_models.cpp
/// Other tools' models in the window (stored_models.hpp).

#include "stored_models.hpp"

#include <QAction>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QMenu>
#include <QStandardItemModel>

#include "options/model_stores.hpp"

namespace attnlab::gui {

std::vector<StoredPreset> findStoredPresets() {
  std::vector<StoredPreset> out;
  for (const options::StoredModel& m : options::listStoredModels()) {
    if (m.store == options::ModelStore::kAttentionLab) continue;
    out.push_back({options::storeName(m.store), m.name, m.path});
  }
  return out;
}

void addStoredModels(QComboBox* combo, const std::vector<StoredPreset>& models) {
  auto* model = qobject_cast<QStandardItemModel*>(combo->model());
  QString store;
  for (const StoredPreset& m : models) {
    if (combo->findData(m.path) >= 0) continue;
    if (m.store != store) {
      store = m.store;
      combo->insertSeparator(combo->count());
      combo->addItem(store);  // a heading: its data is null, it cannot be chosen
      if (model) model->item(combo->count() - 1)->setEnabled(false);
    }
    combo->addItem(m.name, m.path);
    combo->setItemData(combo->count() - 1,
                       m.name + QLatin1Char('\n') + QDir::toNativeSeparators(m.path),
                       Qt::ToolTipRole);
  }
}

void fillStoredModelsMenu(QMenu* menu, const std::vector<StoredPreset>& models,
                          const std::function<void(const QString& path)>& open) {
  menu->clear();
  QString store;
  for (const StoredPreset& m : models) {
    if (m.store != store) {
      store = m.store;
      menu->addSection(store);
    }
    QAction* action = menu->addAction(m.name);
    action->setToolTip(QDir::toNativeSeparators(m.path));
    const QString path = m.path;
    QObject::connect(action, &QAction::triggered, menu, [open, path] { open(path); });
  }
  if (models.empty()) {
    QAction* none = menu->addAction(QCoreApplication::translate(
        "attnlab::gui::MainWindow",
        "None found (Ollama, the HuggingFace cache, LM Studio, llama.cpp)"));
    none->setEnabled(false);
  }
}

}  // namespace attnlab::gui
