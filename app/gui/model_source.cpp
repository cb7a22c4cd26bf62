/// \file model_source.cpp
/// The source of attention: synthetic lab or a model (folder or GGUF file), its layer and display
/// filter; the presets of the model manifest that are fetched.

#include "model_source.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <algorithm>

#include <filesystem>

#include "attnlab/error.hpp"
#include "attnlab/memory.hpp"
#include "eliding_label.hpp"
#include "options/bundled_models.hpp"
#include "options/message.hpp"
#include "options/model_manifest.hpp"
#include "views/picture.hpp"

namespace attnlab::gui {
namespace {

QString clean(const QString& path) { return QDir::cleanPath(QFileInfo(path).absoluteFilePath()); }

/// A file dialog that opens a model: a .gguf file, or a folder with config.json (chosen as a
/// folder or through its config.json). Not the native dialog, which picks files or folders, never
/// either.
class ModelFileDialog : public QFileDialog {
 public:
  using QFileDialog::QFileDialog;
  QString chosen;  ///< The model, when the dialog was accepted.

 protected:
  void accept() override {
    const QStringList files = selectedFiles();
    const QString selected = files.isEmpty() ? directory().absolutePath() : files.first();
    const QString model = modelPathForSelection(selected);
    if (!model.isEmpty()) {
      chosen = model;
      QDialog::accept();
      return;
    }
    QFileDialog::accept();  // into a folder, or a file that is not a model (the loader says so)
    if (result() == QDialog::Accepted && !selectedFiles().isEmpty()) chosen = selectedFiles().first();
  }
};

}  // namespace

/// The combo box's role holding the short name of a model to fetch (an item offering it).
constexpr int kFetchRole = Qt::UserRole + 1;

std::vector<ModelPreset> findModelPresets() {
  std::vector<ModelPreset> presets;
  for (const options::ManifestModel& m : options::manifestModels())
    if (const QString path = options::fetchedModelPath(m); !path.isEmpty()) presets.push_back({m.display, path});
  return presets;
}

std::vector<ModelPreset> bundledTranslatorPresets() {
  std::vector<ModelPreset> presets;
  for (const QString& name : options::bundledModelNames()) {
    const std::optional<QString> dir = options::findBundledModel(name);
    if (!dir || !isTranslatorFolder(std::filesystem::path(dir->toStdString()))) continue;
    QString what;
    try {
      const TranslatorConfig c = readTranslatorConfig(std::filesystem::path((*dir + QStringLiteral("/config.json")).toStdString()));
      what = c.kind == TranslatorKind::kAdditiveGru ? ModelSource::tr("trained translator, additive attention (Bahdanau)")
             : c.scale_attention                    ? ModelSource::tr("trained translator, Transformer")
                                                    : ModelSource::tr("trained translator, Transformer without 1/√d_k");
    } catch (const Error&) {
      what = ModelSource::tr("trained translator");
    }
    presets.push_back({name + QStringLiteral(" — ") + what, *dir});
  }
  return presets;
}

void ModelSource::modelFetched(const QString& name, const QString& path) {
  setPresets(findModelPresets());
  if (name != requested_) return;
  requested_.clear();
  openFolder(path);
}

QString modelPathForSelection(const QString& selected) {
  if (selected.isEmpty()) return {};
  const QFileInfo info(selected);
  if (info.isDir()) return QFileInfo::exists(selected + QStringLiteral("/config.json")) ? clean(selected) : QString();
  if (info.fileName() == QLatin1String("config.json")) return clean(info.absolutePath());
  return clean(selected);
}

ModelSource::ModelSource(bool persist, QWidget* parent)
    : QWidget(parent), persist_(persist), presets_(findModelPresets()), stored_(findStoredPresets()) {
  form_ = new QFormLayout(this);
  form_->setContentsMargins(9, 9, 9, 0);
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  label_ = new QLabel;
  auto* row = new QHBoxLayout;
  combo_ = new QComboBox;
  combo_->setObjectName(QStringLiteral("modelSource"));
  combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  combo_->setMinimumContentsLength(8);
  open_ = new QPushButton;
  row->addWidget(combo_, 1);
  row->addWidget(open_);
  info_label_ = new QLabel;
  info_label_->setObjectName(QStringLiteral("modelInfo"));
  info_label_->setWordWrap(true);
  info_label_->setStyleSheet(QStringLiteral("color: #404040;"));
  // A wrapped label in a form in a scroll area gets the height of its unwrapped hint: ask for the
  // height its width needs whenever either changes.
  info_label_->installEventFilter(this);
  message_ = new QLabel;
  message_->setObjectName(QStringLiteral("modelMessage"));
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->setStyleSheet(QStringLiteral(
      "QLabel { color: #a40000; background: #fdecea; border: 1px solid #e0a0a0; "
      "border-radius: 3px; padding: 4px; }"));
  message_->hide();
  layer_label_ = new QLabel;
  layer_combo_ = new QComboBox;
  layer_combo_->setObjectName(QStringLiteral("layer"));
  hide_special_ = new QCheckBox;
  hide_special_->setObjectName(QStringLiteral("hideSpecial"));
  rollout_ = new QCheckBox;
  rollout_->setObjectName(QStringLiteral("rollout"));
  head_role_label_ = new QLabel;
  head_role_ = new QComboBox;
  head_role_->setObjectName(QStringLiteral("headRole"));
  head_role_->addItem(QString(), -1);
  for (HeadRole role : kHeadRoles) head_role_->addItem(QString(), static_cast<int>(role));
  attention_label_ = new QLabel;
  attention_ = new QComboBox;
  attention_->setObjectName(QStringLiteral("translatorAttention"));
  for (options::TranslatorAttention a : {options::TranslatorAttention::kCross, options::TranslatorAttention::kEncoderSelf,
                                         options::TranslatorAttention::kDecoderSelf})
    attention_->addItem(QString(), static_cast<int>(a));
  form_->addRow(label_);
  form_->addRow(row);
  form_->addRow(info_label_);
  form_->addRow(message_);
  form_->addRow(layer_label_, layer_combo_);
  form_->addRow(hide_special_);
  form_->addRow(rollout_);
  form_->addRow(head_role_label_, head_role_);
  form_->addRow(attention_label_, attention_);

  connect(combo_, &QComboBox::activated, this, [this](int index) {
    if (const QString fetch = combo_->itemData(index, kFetchRole).toString(); !fetch.isEmpty()) {
      // A model not fetched yet: offer to fetch it; the source stays as it is meanwhile.
      const QSignalBlocker block(combo_);
      combo_->setCurrentIndex(std::max(0, combo_->findData(dir_)));
      requested_ = fetch;
      emit fetchRequested(fetch);
      return;
    }
    const QString dir = combo_->itemData(index).toString();
    if (dir.isEmpty()) {
      showSynthetic();
    } else {
      openFolder(dir);
    }
  });
  connect(open_, &QPushButton::clicked, this, &ModelSource::askOpenFolder);
  connect(layer_combo_, &QComboBox::currentIndexChanged, this, [this] {
    const int data = layer_combo_->currentData().toInt();
    layer_ = data < 0 ? std::nullopt : std::optional<int>(data);
    emit layerChanged();
  });
  connect(hide_special_, &QCheckBox::toggled, this, &ModelSource::filterChanged);
  connect(rollout_, &QCheckBox::toggled, this, &ModelSource::filterChanged);
  connect(head_role_, &QComboBox::currentIndexChanged, this, &ModelSource::headRoleChanged);
  connect(attention_, &QComboBox::currentIndexChanged, this, [this] {
    refillLayers();  // the encoder's layers or the decoder's
    emit layerChanged();
  });
  retranslate();
}

bool ModelSource::hideSpecial() const { return hide_special_->isChecked(); }

bool ModelSource::eventFilter(QObject* watched, QEvent* event) {
  if (watched == info_label_ && event->type() == QEvent::Resize) fitInfoHeight();
  return QWidget::eventFilter(watched, event);
}

void ModelSource::fitInfoHeight() { fitHeightToText(info_label_); }

bool ModelSource::rollout() const { return rollout_->isChecked(); }

void ModelSource::setRollout(bool on) {
  const QSignalBlocker block(rollout_);
  rollout_->setChecked(on);
}

std::optional<HeadRole> ModelSource::headRole() const {
  const int data = head_role_->currentData().toInt();
  if (data < 0) return std::nullopt;
  return kHeadRoles[static_cast<std::size_t>(data)];
}

void ModelSource::setHeadRole(std::optional<HeadRole> role) {
  const QSignalBlocker block(head_role_);
  head_role_->setCurrentIndex(
      std::max(0, head_role_->findData(role ? static_cast<int>(*role) : -1)));
}

options::TranslatorAttention ModelSource::translatorAttention() const {
  return static_cast<options::TranslatorAttention>(attention_->currentData().toInt());
}

void ModelSource::setTranslatorAttention(options::TranslatorAttention attention) {
  const QSignalBlocker block(attention_);
  attention_->setCurrentIndex(std::max(0, attention_->findData(static_cast<int>(attention))));
  refillLayers();
}

void ModelSource::setDir(const QString& dir) {
  if (dir == dir_ && !dir.isEmpty()) return;
  dir_ = dir;
  translator_config_.reset();
  // The one decision "this folder is a trained translator" (the engine's, as --model makes it).
  const std::filesystem::path path(dir.toStdString());
  if (dir.isEmpty() || !isTranslatorFolder(path)) return;
  try {
    translator_config_ = readTranslatorConfig(path / "config.json");
  } catch (const Error&) {
    // A translator whose config.json is malformed: the loader names the field when it runs.
    translator_config_ = TranslatorConfig{};
  }
}

void ModelSource::setRecent(const QStringList& folders) {
  recent_ = folders;
  refill();
}

void ModelSource::setStoredModels(std::vector<StoredPreset> models) {
  stored_ = std::move(models);
  refill();
}

void ModelSource::setPresets(std::vector<ModelPreset> presets) {
  presets_ = std::move(presets);
  refill();
}

void ModelSource::setSource(const QString& dir, std::optional<int> layer, bool hide_special) {
  if (dir != dir_) {
    info_.reset();
    showMessage(QString());  // a model's error goes with it (back to the lab, another model)
  }
  setDir(dir);
  layer_ = layer;
  if (!dir.isEmpty()) remember(dir);
  const QSignalBlocker block(hide_special_);
  hide_special_->setChecked(hide_special);
  refill();
}

void ModelSource::setLayer(std::optional<int> layer) {
  if (layer == layer_) return;
  layer_ = layer;
  refillLayers();
  emit layerChanged();
}

void ModelSource::setModelInfo(std::shared_ptr<const ModelInfo> info) {
  if (info && info->dir != dir_) return;
  info_ = std::move(info);
  refill();
}

void ModelSource::showLoading(const QString& dir) {
  if (translator_config_) return;  // a translator's line comes from its config.json, read already
  info_label_->setText(tr("Loading %1…").arg(QFileInfo(dir).fileName()));
  fitInfoHeight();
}

void ModelSource::showMessage(const QString& message) {
  message_->setText(message);
  message_->setVisible(!message.isEmpty());
}

QString ModelSource::message() const { return message_->isHidden() ? QString() : message_->text(); }

void ModelSource::forget(const QString& dir) {
  recent_.removeAll(dir);
  if (persist_) QSettings().setValue(QStringLiteral("models/recent"), recent_);
  refill();
}

void ModelSource::remember(const QString& dir) {
  recent_.removeAll(dir);
  recent_.prepend(dir);
  while (recent_.size() > 8) recent_.removeLast();
  if (persist_) QSettings().setValue(QStringLiteral("models/recent"), recent_);
}

void ModelSource::askOpenFolder() {
  QSettings store;
  QString start = dir_;
  if (start.isEmpty() && !recent_.isEmpty()) start = recent_.first();
  if (start.isEmpty()) start = store.value(QStringLiteral("models/folder"), QDir::homePath()).toString();
  // The folder that holds the last model: a folder model is chosen from its parent.
  if (!start.isEmpty()) start = QFileInfo(start).absolutePath();
  ModelFileDialog dialog(this, tr("Open model: a .gguf file, or a folder with config.json"), start);
  dialog.setOption(QFileDialog::DontUseNativeDialog);
  dialog.setFileMode(QFileDialog::ExistingFile);
  dialog.setNameFilters({tr("Models (*.gguf config.json)"), tr("GGUF files (*.gguf)"), tr("All files (*)")});
  dialog.setLabelText(QFileDialog::Accept, tr("Open"));
  if (dialog.exec() != QDialog::Accepted || dialog.chosen.isEmpty()) return;
  if (persist_) store.setValue(QStringLiteral("models/folder"), QFileInfo(dialog.chosen).absolutePath());
  openFolder(dialog.chosen);
}

void ModelSource::openFolder(const QString& dir) {
  const QString clean = QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
  showMessage(QString());
  if (clean == dir_) return;
  info_.reset();
  setDir(clean);
  layer_.reset();  // a new model opens on its model view
  remember(clean);
  refill();
  showLoading(clean);
  emit sourceChanged(clean);
}

void ModelSource::showSynthetic() {
  showMessage(QString());
  if (dir_.isEmpty()) return;
  setDir(QString());
  info_.reset();
  refill();
  emit sourceChanged(QString());
}

void ModelSource::refill() {
  {
    const QSignalBlocker block(combo_);
    combo_->clear();
    combo_->addItem(tr("Synthetic lab (random weights)"), QString());
    for (const std::vector<ModelPreset>* list : {&presets_, &translator_presets_}) {
      for (const ModelPreset& preset : *list) {
        if (combo_->findData(preset.path) >= 0) continue;
        combo_->addItem(preset.name, preset.path);
        combo_->setItemData(combo_->count() - 1, preset.path, Qt::ToolTipRole);
      }
    }
    // The manifest's models not fetched yet: choosing one offers to fetch it.
    for (const options::ManifestModel& m : options::manifestModels()) {
      if (!options::fetchedModelPath(m).isEmpty()) continue;
      combo_->addItem(tr("%1 — not fetched: get it…").arg(m.display), QStringLiteral("fetch:") + m.name);
      combo_->setItemData(combo_->count() - 1, m.name, kFetchRole);
      combo_->setItemData(combo_->count() - 1,
                          tr("Not on this computer yet: choose it to download it (File → Get models…)"),
                          Qt::ToolTipRole);
    }
    addStoredModels(combo_, stored_);  // other tools' models, a heading per store
    bool separated = combo_->count() == 1;
    for (const QString& dir : recent_) {
      if (combo_->findData(dir) >= 0) continue;  // a preset
      if (!separated) combo_->insertSeparator(combo_->count());
      separated = true;
      combo_->addItem(QFileInfo(dir).fileName(), dir);
      combo_->setItemData(combo_->count() - 1, dir, Qt::ToolTipRole);
    }
    combo_->setCurrentIndex(std::max(0, combo_->findData(dir_)));
    combo_->setToolTip(dir_);
  }
  refillLayers();
  const bool model = !dir_.isEmpty();
  const bool translator = translator_config_.has_value();
  // A translator has no special tokens to hide, no residual stream to roll out and no head roles
  // (the CLI refuses --hide-special and --rollout for it); it has its attention to choose.
  // The additive translator has one attention of one layer: no layer to choose.
  form_->setRowVisible(layer_combo_, model && !(translator && translator_config_->kind == TranslatorKind::kAdditiveGru));
  form_->setRowVisible(hide_special_, model && !translator);
  form_->setRowVisible(rollout_, model && !translator);
  form_->setRowVisible(head_role_, model && !translator);
  form_->setRowVisible(attention_, translator);
  form_->setRowVisible(info_label_, model);
  if (translator) {
    const bool additive = translator_config_->kind == TranslatorKind::kAdditiveGru;
    attention_->setEnabled(!additive);
    attention_label_->setEnabled(!additive);
    attention_->setToolTip(
        additive ? options::Message(ATTNLAB_MSG("--attention %1 does not apply to %2: its one attention is the decoder's additive attention over the source (--attention cross)"),
                                    {QStringLiteral("encoder-self"), QFileInfo(dir_).fileName()})
                       .translated()
                 : tr("Which attention of the Transformer the heads show: cross-attention (rows = output characters, "
                      "columns = source characters), the encoder's self-attention or the decoder's causal self-attention "
                      "(attention-lab-cli --attention)"));
  }
  if (model) {
    info_label_->setText(translator ? translatorText()
                         : info_    ? infoText(*info_)
                                    : tr("Loading %1…").arg(QFileInfo(dir_).fileName()));
    info_label_->setToolTip(dir_);
    fitInfoHeight();
  }
}

QString ModelSource::infoText(const ModelInfo& info) const {
  const ModelConfig& c = info.config;
  QString kind = QString::fromStdString(toString(c.architecture));
  if (c.format == "gguf") {
    kind += QStringLiteral(", GGUF %1").arg(QString::fromStdString(c.weight_type));
  } else if (!c.weight_type.empty()) {
    kind += QStringLiteral(", %1").arg(QString::fromStdString(c.weight_type));
  }
  QString text = tr("%1 · %2\n%3 layers × %4 heads · d_model = %5 · loaded in %6 ms")
                     .arg(info.name, kind)
                     .arg(c.layers)
                     .arg(c.heads)
                     .arg(c.d_model)
                     .arg(info.load_ms, 0, 'f', 0);
  // The KV cache a decoder keeps per token (float32), and what grouped-query attention saves.
  const int kv_heads = c.resolvedKvHeads();
  text += QLatin1Char('\n');
  if (kv_heads == 1 && c.heads > 1) {
    text += tr("%1 query heads share 1 K/V head (multi-query attention)\nKV cache %2 bytes per "
               "token; multi-head attention would need %3")
                .arg(c.heads)
                .arg(views::bytesText(c.kvCacheBytesPerToken()), views::bytesText(c.mhaKvCacheBytesPerToken()));
  } else if (kv_heads < c.heads) {
    text += tr("%1 query heads share %2 K/V heads (grouped-query attention)\nKV cache %3 bytes per "
               "token; multi-head attention would need %4")
                .arg(c.heads)
                .arg(kv_heads)
                .arg(views::bytesText(c.kvCacheBytesPerToken()), views::bytesText(c.mhaKvCacheBytesPerToken()));
  } else {
    text += tr("one K/V head per query head (multi-head attention)\nKV cache %1 bytes per token")
                .arg(views::bytesText(c.kvCacheBytesPerToken()));
  }
  // Sliding windows (Mistral, Gemma): how many layers are local, with which window.
  int local = 0, window = 0;
  for (int l = 0; l < c.layers; ++l) {
    if (c.windowOf(l) > 0) {
      ++local;
      window = std::max(window, c.windowOf(l));
    }
  }
  if (local > 0) {
    text += QLatin1Char('\n') +
            tr("%1 local layers (sliding window of %2 keys) · %3 global layers").arg(local).arg(window).arg(c.layers - local);
  }
  // The weights as held: their size and types, kept in the mapped file or copied at load.
  if (info.weights.total > 0) {
    QStringList types;
    for (const auto& [type, bytes] : info.weights.by_type)
      types << QStringLiteral("%1 %2").arg(QString::fromStdString(type), QString::fromStdString(formatBytes(bytes)));
    const QString size = QString::fromStdString(formatBytes(info.weights.total));
    text += QLatin1Char('\n') +
            (info.mapped ? tr("weights %1 as the file stores them (%2), read from the mapped file")
                               .arg(size, types.join(QStringLiteral(", ")))
                         : tr("weights %1, float32 copies made at load").arg(size));
  }
  return text;
}

QString ModelSource::translatorText() const {
  const TranslatorConfig& c = *translator_config_;
  const QString name = QFileInfo(dir_).fileName();
  QString text;
  if (c.kind == TranslatorKind::kAdditiveGru) {
    text = tr("%1 · bidirectional GRU encoder (%2 per direction), GRU decoder (%3), additive attention d_a = %4")
               .arg(name)
               .arg(c.encoder_hidden)
               .arg(c.decoder_hidden)
               .arg(c.attention_dim);
  } else {
    text = tr("%1 · Transformer encoder–decoder, %2 + %3 layers × %4 heads, d_model = %5, d_k = %6, %7")
               .arg(name)
               .arg(c.encoder_layers)
               .arg(c.decoder_layers)
               .arg(c.heads)
               .arg(c.d_model)
               .arg(c.d_k)
               .arg(c.scale_attention ? tr("scores q·k/√d_k") : tr("trained on q·k (no 1/√d_k)"));
  }
  text += QLatin1Char('\n') + tr("Trained by scripts/train-translators: exact match %1 % on %2 held-out dates, %3 s of training")
                                  .arg(100 * c.test_accuracy, 0, 'f', 1)
                                  .arg(c.test_examples)
                                  .arg(c.training_seconds, 0, 'f', 0);
  return text;
}

void ModelSource::refillLayers() {
  const QSignalBlocker block(layer_combo_);
  // Until the model has loaded, offer what is asked for; a translator's from its config.
  int layers = info_ ? info_->config.layers : layer_.value_or(-1) + 1;
  if (translator_config_) {
    const TranslatorConfig& c = *translator_config_;
    layers = c.kind == TranslatorKind::kAdditiveGru ? 1
             : translatorAttention() == options::TranslatorAttention::kEncoderSelf ? c.encoder_layers
                                                                                   : c.decoder_layers;
  }
  layer_combo_->clear();
  layer_combo_->addItem(tr("All layers (model view)"), -1);
  for (int l = 0; l < layers; ++l) layer_combo_->addItem(tr("Layer %1").arg(l), l);
  layer_combo_->setCurrentIndex(std::max(0, layer_combo_->findData(layer_.value_or(-1))));
}

void ModelSource::retranslate() {
  label_->setText(tr("Attention from"));
  open_->setText(tr("Open…"));
  open_->setToolTip(tr("Open a pretrained model: a GGUF file (llama.cpp's format) or a HuggingFace "
                       "folder (config.json, model.safetensors, tokenizer files)"));
  layer_label_->setText(tr("Layer"));
  // Short enough for the inputs column of a projector (the details in the tooltips).
  hide_special_->setText(tr("Hide special tokens"));
  hide_special_->setToolTip(
      tr("[CLS], [SEP], <|endoftext|>, …: a display filter: the rows and columns of special tokens are "
         "left out; the weights are not renormalised, so rows may sum to less than 1."));
  // "&&": a single & would mark a keyboard shortcut and vanish from the label.
  rollout_->setText(tr("Attention rollout (Abnar && Zuidema 2020)"));
  rollout_->setToolTip(
      tr("Through the layer chosen: how much each input token reaches each position after the layers: per layer the heads' "
         "weights are averaged (a choice: heads differ), half the residual is added (½·A + ½·I), rows "
         "renormalised, and the layers multiplied. With All layers: through the last layer."));
  head_role_label_->setText(tr("Head roles"));
  head_role_->setToolTip(
      tr("Badge every thumbnail of the model view with its head's score for a role, from one pass over 64 "
         "random tokens repeated twice: previous-token (attends to i − 1), duplicate-token (to the same "
         "token one copy back), induction (to the token that followed it: Olsson et al. 2022), first-token "
         "sink, local (within ±3) or broad (normalised entropy). The Analysis dock lists the top heads."));
  const QStringList names{tr("none"), tr("previous-token"), tr("duplicate-token"), tr("induction"),
                          tr("first-token sink"), tr("local (±3)"), tr("broad (entropy)")};
  for (int i = 0; i < head_role_->count() && i < names.size(); ++i) head_role_->setItemText(i, names[i]);
  attention_label_->setText(tr("Attention shown"));
  attention_->setItemText(0, tr("cross-attention (output × source)"));
  attention_->setItemText(1, tr("encoder self-attention"));
  attention_->setItemText(2, tr("decoder self-attention (causal)"));
  translator_presets_ = bundledTranslatorPresets();  // their descriptions in the new language
  refill();
}

}  // namespace attnlab::gui
