#pragma once
/// \file model_source.hpp
/// Where the attention comes from: the synthetic lab or a pretrained model folder (opened by
/// File → Open model folder…, remembered in QSettings "models/recent"), the model's layer (every
/// layer = the model view) and the special-token display filter. A panel at the top of the
/// Inputs dock.

#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>

#include "compute_worker.hpp"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QPushButton;

namespace attnlab::gui {

/// The source of attention and the model's display choices.
class ModelSource : public QWidget {
  Q_OBJECT
 public:
  /// persist: remember opened folders in QSettings.
  explicit ModelSource(bool persist, QWidget* parent = nullptr);

  /// The model folder in use ("" = the synthetic lab).
  QString dir() const { return dir_; }
  /// The layer shown; unset = every layer (the model view).
  std::optional<int> layer() const { return layer_; }
  bool hideSpecial() const;
  /// Show the attention rollout through the chosen layer (Abnar & Zuidema 2020) instead of heads.
  bool rollout() const;
  /// Sets the rollout check box without signals.
  void setRollout(bool on);
  /// Folders opened before, newest first.
  QStringList recent() const { return recent_; }
  void setRecent(const QStringList& folders);

  /// Switches the source without signals (setSettings, a folder that did not load).
  void setSource(const QString& dir, std::optional<int> layer, bool hide_special);
  /// Sets the layer (emits layerChanged when it differs).
  void setLayer(std::optional<int> layer);
  /// The loaded model's description (null while loading or in the synthetic lab).
  void setModelInfo(std::shared_ptr<const ModelInfo> info);
  /// "Loading name…".
  void showLoading(const QString& dir);
  /// The inline message about the folder (load errors; translated); empty hides it.
  void showMessage(const QString& message);
  QString message() const;
  /// Forgets a folder that did not load.
  void forget(const QString& dir);

  /// Asks for a folder with a dialog, then opens it.
  void askOpenFolder();
  /// Opens a folder (remembered); emits sourceChanged.
  void openFolder(const QString& dir);
  /// Back to the synthetic lab; emits sourceChanged.
  void showSynthetic();

  void retranslate();

  QComboBox* sourceCombo() const { return combo_; }
  QComboBox* layerCombo() const { return layer_combo_; }
  QCheckBox* hideSpecialCheck() const { return hide_special_; }
  QCheckBox* rolloutCheck() const { return rollout_; }

 signals:
  /// The source changed to dir ("" = synthetic): a new computation is needed.
  void sourceChanged(const QString& dir);
  /// The layer choice changed.
  void layerChanged();
  /// Hide special tokens or the rollout was toggled.
  void filterChanged();

 private:
  void refill();
  void refillLayers();
  void remember(const QString& dir);

  bool persist_;
  QString dir_;
  std::optional<int> layer_;
  QStringList recent_;
  std::shared_ptr<const ModelInfo> info_;  // of dir_, once loaded

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
};

}  // namespace attnlab::gui
