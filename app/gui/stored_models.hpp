#pragma once
/// \file stored_models.hpp
/// The models other tools keep on this computer (options/model_stores.hpp: Ollama, the
/// HuggingFace cache, LM Studio, llama.cpp), offered by the window grouped by store: in "Attention
/// from" (a heading per store, then its models) and in File → Models on this computer (a section
/// per store). Read only, like the stores.

#include <QString>
#include <functional>
#include <vector>

class QComboBox;
class QMenu;

namespace attnlab::gui {

/// One model of another tool's store, as the window lists it.
struct StoredPreset {
  QString store;  ///< "Ollama", "HuggingFace", "LM Studio", "llama.cpp".
  QString name;   ///< The name --model takes ("ollama:llama3.2:latest", "Qwen/Qwen2.5-0.5B").
  QString path;   ///< The file or folder opened.
};

/// options::listStoredModels() without the lab's own fetched models (listed as presets), in
/// store order.
std::vector<StoredPreset> findStoredPresets();

/// Appends `models` to "Attention from": per store a separator and a heading that cannot be
/// chosen, then its models (data: the path; tooltip: the name and the path). Models whose path
/// the box lists already are left out.
void addStoredModels(QComboBox* combo, const std::vector<StoredPreset>& models);

/// Fills `menu` with a section per store and an action per model calling open(path); a disabled
/// line naming the folders looked in when nothing was found.
void fillStoredModelsMenu(QMenu* menu, const std::vector<StoredPreset>& models,
                          const std::function<void(const QString& path)>& open);

}  // namespace attnlab::gui
