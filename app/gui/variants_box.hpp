#pragma once
/// \file variants_box.hpp
/// The "Variants" group of the inputs: K/V heads (grouped-query attention), the position scheme
/// (and RoPE's base), the sliding window, global tokens, the stride, and key padding with its
/// mask on or off — the options --kv-heads, --positions, --rope-base, --window, --global,
/// --stride, --pad-to and --no-pad-mask of the one option table, and issue 13's numerics: the
/// softmax's precision (--precision), stable or naive (--softmax) and dropout (--dropout), whose limits the widgets take.
/// The settings travel as LabSettings; the worker checks them with options::validate and
/// run::checkTokens, so a combination the command line refuses is refused here in the same
/// words (shown inline by the window).

#include <QGroupBox>
#include <optional>

#include "options/lab_settings.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QSpinBox;

namespace attnlab::gui {

/// The Variants group box. Emits `changed` when a value changes (never while setSettings,
/// setHeads or setModelMode run).
class VariantsBox : public QGroupBox {
  Q_OBJECT
 public:
  explicit VariantsBox(QWidget* parent = nullptr);

  /// Shows the variant fields of settings (spec.kv_heads, positions, rope_base, window,
  /// global_tokens, stride, precision, softmax, dropout; pad_to, pad_mask) for
  /// `settings.spec.heads` query heads. While a model is shown they are kept aside instead and
  /// shown with the synthetic lab.
  void setSettings(const options::LabSettings& settings);
  /// Writes the synthetic lab's values into settings' variant fields: the shown ones, or while a
  /// model is shown the lab's own, kept aside.
  void apply(options::LabSettings& settings) const;
  /// Offers the divisors of `heads` as K/V heads; a choice that no longer divides becomes
  /// multi-head attention (kv_heads 0). While a model is shown, the lab's heads are kept for later.
  void setHeads(int heads);
  /// Switches between the synthetic lab (model false) and a model (model true), greying the group
  /// out: the model's values are shown — its K/V heads out of its heads, RoPE and its base or
  /// learned positions, and no window, global tokens, stride, padding or dropout, in fp32 with
  /// the stable softmax, as its forward pass runs — or "from the model" where config is null (still
  /// loading). The lab's values are kept aside and come back with the synthetic lab.
  void setModelMode(bool model, const ModelConfig* config = nullptr);
  /// Sets every text in the interface language.
  void retranslate();

  QComboBox* kvHeadsCombo() const { return kv_heads_; }
  QComboBox* positionsCombo() const { return positions_; }
  QSpinBox* windowSpin() const { return window_; }
  QSpinBox* globalSpin() const { return global_; }
  QSpinBox* strideSpin() const { return stride_; }
  QSpinBox* padToSpin() const { return pad_to_; }
  QCheckBox* padMaskCheck() const { return pad_mask_; }
  QComboBox* precisionCombo() const { return precision_; }
  QComboBox* softmaxCombo() const { return softmax_; }
  QDoubleSpinBox* dropoutSpin() const { return dropout_; }

 signals:
  void changed();

 private:
  void updateEnabled();
  /// Offers the divisors of heads as K/V heads (the choice left to the caller).
  void fillKvHeads(int heads);
  /// The model's values (config_, or "from the model"), greyed.
  void showModel();
  /// The lab's values (lab_) again.
  void showLab();

  int heads_ = 8;
  bool model_ = false;
  std::optional<ModelConfig> config_;  ///< The model shown, once loaded.
  options::LabSettings lab_;           ///< The lab's variant fields while a model is shown.
  QFormLayout* form_ = nullptr;
  QLabel* kv_heads_label_ = nullptr;
  QComboBox* kv_heads_ = nullptr;
  QLabel* positions_label_ = nullptr;
  QComboBox* positions_ = nullptr;
  QLabel* rope_base_label_ = nullptr;
  QDoubleSpinBox* rope_base_ = nullptr;
  QLabel* window_label_ = nullptr;
  QSpinBox* window_ = nullptr;
  QLabel* global_label_ = nullptr;
  QSpinBox* global_ = nullptr;
  QLabel* stride_label_ = nullptr;
  QSpinBox* stride_ = nullptr;
  QLabel* pad_to_label_ = nullptr;
  QSpinBox* pad_to_ = nullptr;
  QCheckBox* pad_mask_ = nullptr;
  QLabel* precision_label_ = nullptr;
  QComboBox* precision_ = nullptr;
  QLabel* softmax_label_ = nullptr;
  QComboBox* softmax_ = nullptr;
  QLabel* dropout_label_ = nullptr;
  QDoubleSpinBox* dropout_ = nullptr;
};

}  // namespace attnlab::gui
