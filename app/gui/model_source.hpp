#pragma once
/// \file model_source.hpp
/// Where the attention comes from: the synthetic lab or a pretrained model — a HuggingFace folder
/// or a GGUF file, opened by File → Open model…, remembered in QSettings "models/recent", one
/// of the fetched models of the manifest (options/model_manifest.hpp), a model another tool keeps
/// (Ollama, HuggingFace, LM Studio, llama.cpp: stored_models.hpp), or a bundled trained
/// translator — the model's layer (every layer = the model view), the special-token display
/// filter, and a translator's attention shown. A panel at the top of the Inputs dock.

#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>
#include <vector>

#include "attnlab/head_roles.hpp"
#include "attnlab/translator.hpp"
#include "compute_worker.hpp"
#include "stored_models.hpp"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QPushButton;

namespace attnlab::gui {

/// A model the window lists without a dialog: one of the manifest that is fetched.
struct ModelPreset {
  QString name;  ///< What the list shows, e.g. "SmolLM2-135M-Instruct (GGUF Q4_1)".
  QString path;  ///< The folder or .gguf file, absolute and clean.
};

/// The models of the manifest (options/model_manifest.hpp) that are fetched, in its order
/// (all-MiniLM-L6-v2, SmolLM2-135M-Instruct, Gemma 3 270M): each its display name and
/// options::fetchedModelPath ($ATTNLAB_MINILM_DIR etc. when set, else the cache:
/// $ATTNLAB_MODEL_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/attention-lab/models).
std::vector<ModelPreset> findModelPresets();

/// The trained translators that ship with Attention Lab (options::bundledModelNames(): the bundled
/// folders whose config.json names a translator), listed after the fetched models: name = the
/// folder's name and what it is ("dates-additive — trained translator, additive attention").
std::vector<ModelPreset> bundledTranslatorPresets();

/// What File → Open model… opens for a path chosen in its dialog: a folder holding config.json,
/// the folder of a chosen config.json, or any other file as it is (a .gguf; a file that is not a
/// model is refused by the loader, which names it); empty for a folder without config.json (the
/// dialog then goes into it).
QString modelPathForSelection(const QString& selected);

/// The source of attention and the model's display choices.
class ModelSource : public QWidget {
  Q_OBJECT
 public:
  /// persist: remember opened folders in QSettings.
  explicit ModelSource(bool persist, QWidget* parent = nullptr);

  /// The model (folder or .gguf file) in use ("" = the synthetic lab).
  QString dir() const { return dir_; }
  /// The model in use is a trained translator (attnlab::isTranslatorFolder, decided once each
  /// time the source changes): LabSettings::translator.
  bool translator() const { return translator_config_.has_value(); }
  /// The translator's config.json (read when the source changes); unset for anything else.
  const std::optional<TranslatorConfig>& translatorConfig() const { return translator_config_; }
  /// A translator's attention shown (--attention: cross, encoder-self, decoder-self).
  options::TranslatorAttention translatorAttention() const;
  /// Sets the attention combo box without signals.
  void setTranslatorAttention(options::TranslatorAttention attention);
  /// The layer shown; unset = every layer (the model view).
  std::optional<int> layer() const { return layer_; }
  bool hideSpecial() const;
  /// Show the attention rollout through the chosen layer (Abnar & Zuidema 2020) instead of heads.
  bool rollout() const;
  /// Sets the rollout check box without signals.
  void setRollout(bool on);
  /// The role the model view badges its thumbnails by (the "Head roles" combo box), or none.
  std::optional<HeadRole> headRole() const;
  /// Sets the head-role combo box without signals.
  void setHeadRole(std::optional<HeadRole> role);
  /// Models (folders, .gguf files) opened before, newest first.
  QStringList recent() const { return recent_; }
  void setRecent(const QStringList& folders);
  /// The fetched models listed under the synthetic lab (findModelPresets() when constructed).
  const std::vector<ModelPreset>& presets() const { return presets_; }
  void setPresets(std::vector<ModelPreset> presets);
  /// Other tools' models listed after the lab's, a heading per store (findStoredPresets() when
  /// constructed).
  const std::vector<StoredPreset>& storedModels() const { return stored_; }
  void setStoredModels(std::vector<StoredPreset> models);

  /// Switches the source without signals (setSettings, a folder that did not load).
  void setSource(const QString& dir, std::optional<int> layer, bool hide_special);
  /// Sets the layer (emits layerChanged when it differs).
  void setLayer(std::optional<int> layer);
  /// The loaded model's description (null while loading or in the synthetic lab).
  void setModelInfo(std::shared_ptr<const ModelInfo> info);
  /// "Loading name…".
  void showLoading(const QString& dir);
  /// The inline message about the model (load errors; translated); empty hides it.
  void showMessage(const QString& message);
  QString message() const;
  /// Forgets a model that did not load.
  void forget(const QString& dir);

  /// Asks for a model with a dialog (a .gguf file, or a folder with config.json), then opens it.
  void askOpenFolder();
  /// Opens a model folder or .gguf file (remembered); emits sourceChanged.
  void openFolder(const QString& dir);
  /// Back to the synthetic lab; emits sourceChanged.
  void showSynthetic();

  void retranslate();

  QComboBox* sourceCombo() const { return combo_; }
  QComboBox* layerCombo() const { return layer_combo_; }
  QCheckBox* hideSpecialCheck() const { return hide_special_; }
  QCheckBox* rolloutCheck() const { return rollout_; }
  QComboBox* headRoleCombo() const { return head_role_; }
  QComboBox* attentionCombo() const { return attention_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 signals:
  /// The source changed to dir ("" = synthetic): a new computation is needed.
  void sourceChanged(const QString& dir);
  /// The layer choice, or a translator's attention choice, changed.
  void layerChanged();
  /// Hide special tokens or the rollout was toggled.
  void filterChanged();
  /// Another head role was chosen (headRole()).
  void headRoleChanged();
  /// A model of the manifest that is not fetched was chosen (its short name): the window offers
  /// to fetch it (File → Get models…).
  void fetchRequested(const QString& name);

 public slots:
  /// `name` was fetched to `path`: the presets are found again, and the model opened when it was
  /// the one chosen (fetchRequested).
  void modelFetched(const QString& name, const QString& path);

 private:
  void refill();
  void refillLayers();
  /// The info line: name, architecture and weights, shapes, load time, K/V heads and KV cache.
  QString infoText(const ModelInfo& info) const;
  /// Gives the info label the height its text needs at its width.
  void fitInfoHeight();
  void remember(const QString& dir);
  /// dir_ = dir and what it is (translator_config_).
  void setDir(const QString& dir);
  /// A translator's info line (name, architecture, shapes, the training's accuracy).
  QString translatorText() const;

  bool persist_;
  QString dir_;
  std::optional<int> layer_;
  QStringList recent_;
  std::vector<ModelPreset> presets_;
  std::vector<StoredPreset> stored_;  ///< Other tools' models (stored_models.hpp).
  std::vector<ModelPreset> translator_presets_;  ///< bundledTranslatorPresets(), in the language.
  std::shared_ptr<const ModelInfo> info_;  // of dir_, once loaded
  QString requested_;  ///< The not-fetched model chosen last (fetchRequested), until fetched.
  std::optional<TranslatorConfig> translator_config_;  // of dir_, when it is a translator

  QFormLayout* form_ = nullptr;
  QLabel* label_ = nullptr;
  QComboBox* combo_ = nullptr;
  QPushButton* open_ = nullptr;
  QLabel* info_label_ = nullptr;
  QLabel* message_ = nullptr;
  QLabel* layer_label_ = nullptr;
  QComboBox* layer_combo_ = nullptr;
  QCheckBox* hide_special_ = nullptr;
  QCheckBox* rollout_ = nullptr;
  QLabel* head_role_label_ = nullptr;
  QComboBox* head_role_ = nullptr;  ///< none, then kHeadRoles (item data: role index, −1 none).
  QLabel* attention_label_ = nullptr;
  QComboBox* attention_ = nullptr;  ///< A translator's attention (item data: TranslatorAttention).
};

}  // namespace attnlab::gui
