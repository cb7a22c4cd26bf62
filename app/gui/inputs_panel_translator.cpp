/// \file inputs_panel_translator.cpp
/// The inputs panel with a trained translator (issue 23): the source is the input, the text the
/// target to force; which knobs act and the command line's reasons for those that do not; the
/// text fields' labels (the lab's or a translator's).

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <cmath>

#include "inputs_panel.hpp"
#include "options/message.hpp"

namespace attnlab::gui {
namespace {

/// The source a translator starts with when the user switches to one.
constexpr const char* kDefaultDate = "March 3rd, 2021";

}  // namespace

void InputsPanel::setTranslator(const TranslatorConfig* config, const QString& name, bool swap_texts) {
  const bool was = translator_.has_value();
  translator_ = config ? std::optional<TranslatorConfig>(*config) : std::nullopt;
  translator_name_ = config ? name : QString();
  if (swap_texts && config && !was) {
    // Into a translator: the lab's sentence is no date; it comes back with the lab.
    lab_texts_.emplace(fieldText(text_edit_, text_given_), fieldText(source_edit_, source_given_));
    const QSignalBlocker b1(text_edit_), b2(source_edit_);
    setFieldText(text_edit_, text_given_, QString());
    setFieldText(source_edit_, source_given_, QString::fromLatin1(kDefaultDate));
  } else if (swap_texts && !config && was) {
    // Out of a translator: the lab's texts (the cat sentence when the window started with one).
    const QSignalBlocker b1(text_edit_), b2(source_edit_);
    setFieldText(text_edit_, text_given_, lab_texts_ ? lab_texts_->first : QString::fromUtf8(options::kDefaultText));
    setFieldText(source_edit_, source_given_, lab_texts_ ? lab_texts_->second : QString());
    lab_texts_.reset();
  }
  if (swap_texts && config) {
    const QSignalBlocker block(scaling_check_);
    scaling_check_->setChecked(true);  // a translator chosen starts with the scores it was trained with
  }
  if (translator_) {
    showTranslator();
  } else if (was) {
    if (model_) showModel();
    scaling_check_->setToolTip(QString());
    causal_check_->setToolTip(QString());
    dk_label_->setText(tr("d_k"));
  }
  updateRows();
  retranslateFields();
  updateEnabled();
}

void InputsPanel::retranslateFields() {
  if (translator_) {
    text_label_->setText(tr("Target to force (empty: the model writes it)"));
    text_edit_->setPlaceholderText(tr("Empty: generated step by step, e.g. 2021-03-03"));
    source_label_->setText(tr("Source (the translator's input: a date)"));
    source_edit_->setPlaceholderText(tr("e.g. March 3rd, 2021 or 2021年3月3日"));
    return;
  }
  text_label_->setText(tr("Text (queries; recomputed as you type)"));
  text_edit_->setPlaceholderText(tr("Type a sentence…"));
  source_label_->setText(tr("Source (optional: keys and values → cross-attention)"));
  source_edit_->setPlaceholderText(tr("Empty: self-attention"));
}

void InputsPanel::updateRows() {
  const bool source = !model_ || translator_;
  form_->setRowVisible(source_edit_, source);
  form_->setRowVisible(source_label_, source);
  form_->setRowVisible(pair_edit_, model_ && !translator_);
  form_->setRowVisible(pair_label_, model_ && !translator_);
}

void InputsPanel::showTranslator() {
  const TranslatorConfig& c = *translator_;
  const bool additive = c.kind == TranslatorKind::kAdditiveGru;
  const QSignalBlocker b1(mechanism_combo_), b2(dk_slider_), b3(dk_spin_), b4(heads_spin_),
      b5(d_model_spin_), b6(causal_check_), b7(scaling_check_);
  // What the model computes with: additive attention's d_a, or the Transformer's per-head d_k.
  const int d_k = additive ? c.attention_dim : c.d_k;
  dk_label_->setText(additive ? QStringLiteral("d_a") : tr("d_k"));
  for (QSpinBox* spin : {dk_spin_, heads_spin_, d_model_spin_}) spin->setSpecialValueText(QString());
  dk_spin_->setValue(std::min(dk_spin_->maximum(), d_k));
  dk_slider_->setValue(static_cast<int>(std::lround(std::log2(std::max(1, d_k)))));
  heads_spin_->setValue(additive ? 1 : c.heads);
  d_model_spin_->setValue(additive ? c.decoder_hidden : c.d_model);
  causal_check_->setTristate(false);
  causal_check_->setChecked(false);
  const bool scalable = !additive && c.scale_attention;
  if (additive) {
    mechanism_combo_->setCurrentIndex(mechanism_combo_->findData(static_cast<int>(Mechanism::kAdditive)));
  } else {
    mechanism_combo_->setCurrentIndex(mechanism_combo_->findData(
        static_cast<int>(scalable && scaling_check_->isChecked() ? Mechanism::kScaled : Mechanism::kDot)));
  }
  if (!scalable) scaling_check_->setChecked(false);  // there is no 1/√d_k in its scores
  using options::Message;
  const QString fixed = Message(ATTNLAB_MSG("--%1 does not apply to a trained translator: it keeps the shapes, masks, positions and numerics it was trained with"),
                                {QStringLiteral("d-k")})
                            .translated();
  const QString decided =
      additive ? tr("Decided by the model: %1 has additive attention with d_a = %2 over a decoder state of %3.")
                     .arg(translator_name_)
                     .arg(c.attention_dim)
                     .arg(c.decoder_hidden)
               : tr("Decided by the model: %1 has %2 + %3 layers × %4 heads, d_model = %5, d_k = %6.")
                     .arg(translator_name_)
                     .arg(c.encoder_layers)
                     .arg(c.decoder_layers)
                     .arg(c.heads)
                     .arg(c.d_model)
                     .arg(c.d_k);
  for (QWidget* w : modelDecided()) w->setToolTip(decided + QLatin1Char('\n') + fixed);
  causal_check_->setToolTip(
      Message(ATTNLAB_MSG("--causal does not apply to a trained translator: its decoder self-attention is causal already, its encoder and cross-attention never are"))
          .translated());
  scaling_check_->setToolTip(
      scalable ? tr("Off: the scores q·k without the 1/√d_k the model was trained with (--no-scale)")
      : additive
          ? Message(ATTNLAB_MSG("%1 uses additive attention: there is no 1/√d_k to switch off"), {translator_name_}).translated()
          : Message(ATTNLAB_MSG("%1 was trained without 1/√d_k: there is none to switch off (dates-transformer has it)"),
                    {translator_name_})
                .translated());
}

}  // namespace attnlab::gui
