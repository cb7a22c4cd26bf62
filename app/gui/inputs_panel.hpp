#pragma once
/// \file inputs_panel.hpp
/// The window's inputs: the text (and source, or a BERT pair), the mechanism and its scaling,
/// the temperature, d_k, the synthetic lab's shapes and seed, the backend, and the picture's
/// colour scale and pooling. Every limit comes from the option table (options.hpp), so the
/// widgets offer exactly what the command line accepts; the values travel as a LabSettings.

#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

#include "compute_worker.hpp"
#include "options/lab_settings.hpp"
#include "views/picture_options.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSlider;
class QSpinBox;
class QToolButton;

namespace attnlab::gui {

class VariantsBox;

/// The inputs (a form in the Inputs dock). Emits `changed` when an input that needs a new
/// computation changes (typing: `typed`, which the window debounces), `pictureChanged` when only
/// the drawing changes.
class InputsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit InputsPanel(QWidget* parent = nullptr);

  /// The inputs as a LabSettings; the model fields (folder, layer, hide special) are left as
  /// `base` has them. With a model shown, the synthetic lab's own values (kept aside while the
  /// widgets show the model's) are returned for the shapes.
  options::LabSettings settings(const options::LabSettings& base = {}) const;
  /// Shows settings in the widgets (no signals are emitted).
  void setSettings(const options::LabSettings& settings);
  /// The colour scale and pooling chosen.
  views::PictureOptions picture() const;
  void setPicture(const views::PictureOptions& picture);

  /// Switches between the synthetic lab (info null, model false) and a model (model true; info
  /// its configuration once loaded): the model's values are shown, greyed out — its heads,
  /// d_model, d_k and mask here, its K/V heads, positions and RoPE base in the Variants box —
  /// and "from the model" where there is none to show (the seed; every shape while the model
  /// loads). The lab's values are kept aside and come back, unchanged, with the synthetic lab.
  void setModelMode(bool model, const ModelInfo* info);
  /// A trained translator (config not null, after setModelMode(true, …); null: none): the source
  /// field is its input, the text field the target to force (empty: generated); the scaling
  /// check box acts where the model was trained with 1/√d_k (dates-transformer), the temperature
  /// acts; the shapes show the model's (d_k, or d_a for additive attention), greyed, and every
  /// greyed control says in its tooltip the command line's reason. swap_texts: the user switched
  /// to (or away from) a translator — the lab's text and source are kept aside and a date put in
  /// the source (given back when leaving).
  void setTranslator(const TranslatorConfig* config, const QString& name, bool swap_texts = false);
  /// A translator is shown (setTranslator).
  bool translatorMode() const { return translator_.has_value(); }

  /// d_k: set (clamped to the table's limits; ignored while a model decides it), read, ×2, ÷2.
  void setDk(int d_k);
  int dk() const;
  /// Toggles the 1/√d_k scaling (Ctrl+K), when it applies.
  void toggleScaling();

  /// The play buttons: steps "d_k" or "temperature" through the values attention-lab-cli sweep
  /// takes by default (d_k 1, 2, 4, … 1024; T 0.125 … 8), one every kPlayMs, and stops at the
  /// last; pressing the button again stops.
  void play(const QString& param);
  void stopPlaying();
  /// The parameter being played, or empty.
  QString playing() const { return play_param_; }
  /// Time each value is shown, ms (the sweep's default --delay).
  static constexpr int kPlayMs = 600;

  /// The inline message under the text (translated); empty hides it.
  void showMessage(const QString& message);
  QString message() const;
  /// The line saying which backend computed the picture.
  void setBackendInUse(const QString& text, const QString& tooltip, bool retryable = false);
  /// Adds the OpenCL devices ("name (platform)") to the backend box; keeps a requested device
  /// that is not there as its own entry. Returns true when the selection changed.
  bool setDevices(const QStringList& devices);
  /// The backend box's choice, "name:device".
  QString backendChoice() const;

  /// Sets every text in the interface language.
  void retranslate();

  /// The widgets, for tests and shortcuts.
  QPlainTextEdit* textEdit() const { return text_edit_; }
  QPlainTextEdit* sourceEdit() const { return source_edit_; }
  QPlainTextEdit* pairEdit() const { return pair_edit_; }
  QSlider* dkSlider() const { return dk_slider_; }
  QSpinBox* dkSpin() const { return dk_spin_; }
  QCheckBox* scalingCheck() const { return scaling_check_; }
  QToolButton* dkPlayButton() const { return dk_play_; }
  QToolButton* temperaturePlayButton() const { return temperature_play_; }
  QDoubleSpinBox* temperatureSpin() const { return temperature_spin_; }
  QComboBox* colorScaleCombo() const { return color_scale_combo_; }
  QComboBox* backendCombo() const { return backend_combo_; }
  VariantsBox* variants() const { return variants_; }

 signals:
  void changed();
  void typed();
  void pictureChanged();
  /// "Retry OpenCL" was pressed (shown while an OpenCL failure is kept, see setBackendInUse).
  void retryRequested();

 private:
  void selectBackend();
  void updateEnabled();
  void playStep();
  void updatePlayButtons();
  /// The model's values (config_, or "from the model") in the greyed widgets.
  void showModel();
  /// The lab's values (the stash) back in the widgets.
  void showLab();
  /// The widgets whose values a model decides.
  std::vector<QWidget*> modelDecided() const;
  /// Which text fields are shown (the source for the lab and a translator, the pair for a model).
  void updateRows();
  /// The text fields' labels and placeholders (a translator's source and target, or the lab's).
  void retranslateFields();
  /// A translator's values and the command line's reasons in the greyed widgets.
  void showTranslator();

  options::LabSettings base_;  ///< Fields without a widget (d_v, d_a, positions …).
  QString wanted_backend_ = QStringLiteral("auto:0");
  bool devices_listed_ = false;
  bool model_ = false;
  std::optional<ModelConfig> config_;  ///< The model shown, once loaded.
  QString model_name_;                 ///< Its name ("all-MiniLM-L6-v2").
  /// The synthetic lab's own values while a model's are shown.
  struct Stash {
    Mechanism mechanism = Mechanism::kScaled;
    int d_k = 8, heads = 8, d_model = 64;
    bool causal = false;
    double seed = 0;
  } stash_;
  std::optional<TranslatorConfig> translator_;  ///< The translator shown (setTranslator).
  QString translator_name_;                     ///< Its name ("dates-additive").
  /// The lab's text and source while a translator's are in the fields (swap_texts).
  std::optional<std::pair<QString, QString>> lab_texts_;

  /// A text field's exact text. Its document turns CR, CR LF, U+2029 and U+FDD0 / U+FDD1 into
  /// line breaks as they go in, so the text setSettings gave is kept and given back as long as
  /// the field still shows it (`shown`: the field's lines then); once edited, the field's own.
  struct GivenText {
    QString given;
    QString shown;
  };
  /// Puts `text` into `edit` (unless it already holds it) and remembers it in `given`.
  static void setFieldText(QPlainTextEdit* edit, GivenText& given, const QString& text);
  /// The text of `edit`: what setFieldText gave while unchanged, else its lines.
  static QString fieldText(const QPlainTextEdit* edit, const GivenText& given);
  GivenText text_given_, source_given_, pair_given_;

  QFormLayout* form_ = nullptr;
  QLabel* text_label_ = nullptr;
  QPlainTextEdit* text_edit_ = nullptr;
  QLabel* source_label_ = nullptr;
  QPlainTextEdit* source_edit_ = nullptr;
  QLabel* pair_label_ = nullptr;
  QPlainTextEdit* pair_edit_ = nullptr;
  QLabel* message_label_ = nullptr;
  QLabel* mechanism_label_ = nullptr;
  QComboBox* mechanism_combo_ = nullptr;
  QCheckBox* scaling_check_ = nullptr;
  QCheckBox* temperature_check_ = nullptr;
  QDoubleSpinBox* temperature_spin_ = nullptr;
  QLabel* dk_label_ = nullptr;
  QSlider* dk_slider_ = nullptr;
  QSpinBox* dk_spin_ = nullptr;
  QLabel* heads_label_ = nullptr;
  QSpinBox* heads_spin_ = nullptr;
  QLabel* d_model_label_ = nullptr;
  QSpinBox* d_model_spin_ = nullptr;
  QCheckBox* causal_check_ = nullptr;
  QLabel* seed_label_ = nullptr;
  QDoubleSpinBox* seed_spin_ = nullptr;
  VariantsBox* variants_ = nullptr;
  QLabel* backend_label_ = nullptr;
  QComboBox* backend_combo_ = nullptr;
  QPushButton* retry_button_ = nullptr;
  QLabel* backend_used_label_ = nullptr;
  QLabel* color_scale_label_ = nullptr;
  QComboBox* color_scale_combo_ = nullptr;
  QLabel* pool_label_ = nullptr;
  QComboBox* pool_combo_ = nullptr;
  QLabel* shortcuts_label_ = nullptr;
  QToolButton* dk_play_ = nullptr;
  QToolButton* temperature_play_ = nullptr;
  QTimer play_timer_;
  QString play_param_;
  QStringList play_values_;
  int play_index_ = 0;
};

}  // namespace attnlab::gui
