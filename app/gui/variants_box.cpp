/// \file variants_box.cpp
/// The Variants group: limits from the option table, feedback cut with QSignalBlocker.

#include "variants_box.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <iterator>

#include "options/options.hpp"

namespace attnlab::gui {
namespace {

/// A spin box over [0, the option's max] whose 0 reads "off" (the option left out).
QSpinBox* offOrCount(const char* name, std::string_view option) {
  auto* spin = new QSpinBox;
  spin->setObjectName(QLatin1String(name));
  spin->setRange(0, static_cast<int>(options::option(option).max));
  return spin;
}

constexpr Positions kSchemes[] = {Positions::kSinusoidal, Positions::kRope, Positions::kAlibi,
                                  Positions::kNone};

}  // namespace

VariantsBox::VariantsBox(QWidget* parent) : QGroupBox(parent) {
  setObjectName(QStringLiteral("variants"));
  form_ = new QFormLayout(this);
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  kv_heads_label_ = new QLabel;
  kv_heads_ = new QComboBox;
  kv_heads_->setObjectName(QStringLiteral("kvHeads"));
  form_->addRow(kv_heads_label_, kv_heads_);
  positions_label_ = new QLabel;
  positions_ = new QComboBox;
  positions_->setObjectName(QStringLiteral("positions"));
  for (Positions p : kSchemes) positions_->addItem(QString(), static_cast<int>(p));
  form_->addRow(positions_label_, positions_);
  rope_base_label_ = new QLabel;
  rope_base_ = new QDoubleSpinBox;
  rope_base_->setObjectName(QStringLiteral("ropeBase"));
  rope_base_->setDecimals(1);
  rope_base_->setRange(1.1, 1e9);  // the table's limit is B > 1
  rope_base_->setValue(10000);
  form_->addRow(rope_base_label_, rope_base_);
  window_label_ = new QLabel;
  window_ = offOrCount("window", "window");
  form_->addRow(window_label_, window_);
  global_label_ = new QLabel;
  global_ = offOrCount("global", "global");
  form_->addRow(global_label_, global_);
  stride_label_ = new QLabel;
  stride_ = offOrCount("stride", "stride");
  form_->addRow(stride_label_, stride_);
  pad_to_label_ = new QLabel;
  pad_to_ = offOrCount("padTo", "pad-to");
  form_->addRow(pad_to_label_, pad_to_);
  pad_mask_ = new QCheckBox;
  pad_mask_->setObjectName(QStringLiteral("padMask"));
  pad_mask_->setChecked(true);
  form_->addRow(pad_mask_);
  precision_label_ = new QLabel;
  precision_ = new QComboBox;
  precision_->setObjectName(QStringLiteral("precision"));
  for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kBf16})
    precision_->addItem(QString::fromStdString(toString(p)), static_cast<int>(p));
  form_->addRow(precision_label_, precision_);
  softmax_label_ = new QLabel;
  softmax_ = new QComboBox;
  softmax_->setObjectName(QStringLiteral("softmax"));
  softmax_->addItem(QString(), static_cast<int>(SoftmaxKind::kStable));
  softmax_->addItem(QString(), static_cast<int>(SoftmaxKind::kNaive));
  form_->addRow(softmax_label_, softmax_);
  dropout_label_ = new QLabel;
  dropout_ = new QDoubleSpinBox;
  dropout_->setObjectName(QStringLiteral("dropout"));
  dropout_->setDecimals(2);
  dropout_->setSingleStep(0.05);
  dropout_->setRange(0.0, 0.99);  // the table's rule: 0 <= p < 1
  form_->addRow(dropout_label_, dropout_);

  connect(kv_heads_, &QComboBox::currentIndexChanged, this, &VariantsBox::changed);
  connect(positions_, &QComboBox::currentIndexChanged, this, [this] {
    updateEnabled();
    emit changed();
  });
  connect(rope_base_, &QDoubleSpinBox::valueChanged, this, &VariantsBox::changed);
  for (QSpinBox* spin : {window_, global_, stride_, pad_to_}) {
    connect(spin, &QSpinBox::valueChanged, this, [this] {
      updateEnabled();
      emit changed();
    });
  }
  connect(pad_mask_, &QCheckBox::toggled, this, &VariantsBox::changed);
  connect(precision_, &QComboBox::currentIndexChanged, this, &VariantsBox::changed);
  connect(softmax_, &QComboBox::currentIndexChanged, this, &VariantsBox::changed);
  connect(dropout_, &QDoubleSpinBox::valueChanged, this, &VariantsBox::changed);
  setHeads(heads_);
  retranslate();
  updateEnabled();
}

void VariantsBox::setSettings(const options::LabSettings& s) {
  if (model_) {
    lab_ = s;  // shown when the synthetic lab comes back
    return;
  }
  const QSignalBlocker b1(kv_heads_), b2(positions_), b3(rope_base_), b4(window_), b5(global_),
      b6(stride_), b7(pad_to_), b8(pad_mask_), b9(precision_), b10(softmax_), b11(dropout_);
  setHeads(s.spec.heads);
  kv_heads_->setCurrentIndex(std::max(0, kv_heads_->findData(s.spec.resolvedKvHeads())));
  positions_->setCurrentIndex(
      std::max(0, positions_->findData(static_cast<int>(s.spec.positions))));
  rope_base_->setValue(s.spec.rope_base);
  window_->setValue(s.spec.window);
  global_->setValue(s.spec.global_tokens);
  stride_->setValue(s.spec.stride);
  pad_to_->setValue(s.pad_to);
  pad_mask_->setChecked(s.pad_mask);
  precision_->setCurrentIndex(
      std::max(0, precision_->findData(static_cast<int>(s.spec.precision))));
  softmax_->setCurrentIndex(std::max(0, softmax_->findData(static_cast<int>(s.spec.softmax))));
  dropout_->setValue(s.spec.dropout);
  updateEnabled();
}

void VariantsBox::apply(options::LabSettings& s) const {
  if (model_) {
    // The widgets show the model's values; the lab's own wait in lab_.
    s.spec.kv_heads = lab_.spec.kv_heads;
    s.spec.positions = lab_.spec.positions;
    s.spec.rope_base = lab_.spec.rope_base;
    s.spec.window = lab_.spec.window;
    s.spec.global_tokens = lab_.spec.global_tokens;
    s.spec.stride = lab_.spec.stride;
    s.spec.precision = lab_.spec.precision;
    s.spec.softmax = lab_.spec.softmax;
    s.spec.dropout = lab_.spec.dropout;
    s.pad_to = lab_.pad_to;
    s.pad_mask = lab_.pad_mask;
    return;
  }
  // The choice among the divisors of the lab's heads.
  const int g = kv_heads_->currentData().toInt();
  s.spec.kv_heads = g > 0 && g != heads_ && s.spec.heads % g == 0 ? g : 0;
  s.spec.positions = static_cast<Positions>(positions_->currentData().toInt());
  s.spec.rope_base = rope_base_->value();
  s.spec.window = window_->value();
  s.spec.global_tokens = global_->value();
  s.spec.stride = stride_->value();
  s.pad_to = pad_to_->value();
  s.pad_mask = pad_mask_->isChecked();
  s.spec.precision = static_cast<Precision>(precision_->currentData().toInt());
  s.spec.softmax = static_cast<SoftmaxKind>(softmax_->currentData().toInt());
  s.spec.dropout = dropout_->value();
}

void VariantsBox::setHeads(int heads) {
  heads = std::max(1, heads);
  if (model_) {
    // The lab's heads, for later: a K/V choice that no longer divides becomes multi-head.
    lab_.spec.heads = heads;
    if (lab_.spec.kv_heads > 0 && heads % lab_.spec.kv_heads != 0) lab_.spec.kv_heads = 0;
    return;
  }
  const int wanted = kv_heads_->count() > 0 ? kv_heads_->currentData().toInt() : heads;
  const bool rebuild = heads != heads_ || kv_heads_->count() == 0;
  heads_ = heads;
  if (!rebuild) return;
  const QSignalBlocker block(kv_heads_);
  fillKvHeads(heads);
  // A choice that no longer divides the heads becomes multi-head attention.
  const int index = kv_heads_->findData(wanted);
  kv_heads_->setCurrentIndex(index >= 0 ? index : 0);
}

void VariantsBox::fillKvHeads(int heads) {
  kv_heads_->clear();
  for (int g = heads; g >= 1; --g) {
    if (heads % g != 0) continue;
    QString text = QString::number(g);
    if (g == heads) text = tr("%1 (multi-head)").arg(g);
    else if (g == 1) text = tr("1 (multi-query)");
    else text = tr("%1 (grouped: %2 query heads each)").arg(g).arg(heads / g);
    kv_heads_->addItem(text, g);
  }
}

void VariantsBox::setModelMode(bool model, const ModelConfig* config) {
  if (model && !model_) {
    lab_ = {};
    lab_.spec.heads = heads_;
    apply(lab_);  // the lab's values, kept aside while the model's are shown
  }
  const bool leaving = !model && model_;
  model_ = model;
  config_ = model && config ? std::optional<ModelConfig>(*config) : std::nullopt;
  if (model) showModel();
  if (leaving) showLab();
  updateEnabled();
}

void VariantsBox::showModel() {
  const QSignalBlocker b1(kv_heads_), b2(positions_), b3(rope_base_), b4(window_), b5(global_),
      b6(stride_), b7(pad_to_), b8(precision_), b9(softmax_), b10(dropout_);
  const QString from_model = tr("from the model");
  if (config_) {
    fillKvHeads(std::max(1, config_->heads));
    kv_heads_->setCurrentIndex(std::max(0, kv_heads_->findData(config_->resolvedKvHeads())));
  } else {
    kv_heads_->clear();
    kv_heads_->addItem(from_model, 0);
  }
  // RoPE and its base from the model's config; BERT and GPT-2 learn their positions.
  const bool rope = config_ && config_->rope_base > 0;
  const bool learned = config_ && (config_->architecture == Architecture::kBert ||
                                   config_->architecture == Architecture::kGpt2);
  if (positions_->count() > static_cast<int>(std::size(kSchemes))) {
    positions_->removeItem(static_cast<int>(std::size(kSchemes)));
  }
  if (rope) {
    positions_->setCurrentIndex(positions_->findData(static_cast<int>(Positions::kRope)));
  } else {
    positions_->addItem(learned ? tr("learned (from the model)") : from_model, -1);
    positions_->setCurrentIndex(positions_->count() - 1);
  }
  rope_base_->setSpecialValueText(rope ? QString() : config_ ? tr("none") : from_model);
  rope_base_->setValue(rope ? config_->rope_base : rope_base_->minimum());
  // What every forward pass runs with: no window, global tokens, stride, padding or dropout;
  // fp32 and the stable softmax.
  for (QSpinBox* spin : {window_, global_, stride_, pad_to_}) spin->setValue(0);
  precision_->setCurrentIndex(precision_->findData(static_cast<int>(Precision::kFp32)));
  softmax_->setCurrentIndex(softmax_->findData(static_cast<int>(SoftmaxKind::kStable)));
  dropout_->setValue(0.0);
  setToolTip(tr("Decided by the model."));
}

void VariantsBox::showLab() {
  {
    const QSignalBlocker b1(positions_), b2(kv_heads_);
    if (positions_->count() > static_cast<int>(std::size(kSchemes)))
      positions_->removeItem(static_cast<int>(std::size(kSchemes)));
    kv_heads_->clear();  // rebuilt for the lab's heads
  }
  rope_base_->setSpecialValueText(QString());
  setSettings(lab_);
  setToolTip(QString());
}

void VariantsBox::updateEnabled() {
  for (QWidget* w : std::initializer_list<QWidget*>{kv_heads_, kv_heads_label_, positions_, positions_label_,
                                                    window_, window_label_, global_, global_label_,
                                                    pad_to_, pad_to_label_, precision_, precision_label_,
                                                    softmax_, softmax_label_, dropout_, dropout_label_}) {
    w->setEnabled(!model_);
  }
  const bool rope = static_cast<Positions>(positions_->currentData().toInt()) == Positions::kRope;
  rope_base_->setEnabled(!model_ && rope);
  rope_base_label_->setEnabled(!model_ && rope);
  stride_->setEnabled(!model_ && (window_->value() > 0 || stride_->value() > 0));
  stride_label_->setEnabled(stride_->isEnabled());
  pad_mask_->setEnabled(!model_ && pad_to_->value() > 0);
}

void VariantsBox::retranslate() {
  setTitle(tr("Variants"));
  kv_heads_label_->setText(tr("K/V heads"));
  kv_heads_->setToolTip(tr("Grouped-query attention (Ainslie et al. 2023): query heads share K/V heads; "
                           "the KV cache shrinks by the same factor"));
  if (!model_) {
    const QSignalBlocker block(kv_heads_);
    const int current = kv_heads_->currentIndex();
    const int heads = heads_;
    heads_ = 0;  // rebuild the texts in the new language
    setHeads(heads);
    kv_heads_->setCurrentIndex(current);
  }
  positions_label_->setText(tr("Positions"));
  positions_->setItemText(0, tr("sinusoidal (added to the embeddings)"));
  positions_->setItemText(1, tr("RoPE (rotates q and k)"));
  positions_->setItemText(2, tr("ALiBi (bias −m·|i − j| on the scores)"));
  positions_->setItemText(3, tr("none"));
  rope_base_label_->setText(tr("RoPE base"));
  window_label_->setText(tr("Sliding window"));
  window_->setSpecialValueText(tr("off"));
  window_->setToolTip(tr("Query i sees keys i − W < j ≤ i with the causal mask, |i − j| < W without"));
  global_label_->setText(tr("Global tokens"));
  global_->setSpecialValueText(tr("off"));
  global_->setToolTip(tr("The first K tokens see every key and every query sees them (Longformer)"));
  stride_label_->setText(tr("Stride"));
  stride_->setSpecialValueText(tr("off"));
  stride_->setToolTip(tr("With a window: key j is also visible when (i − j) mod S = 0 (Child et al. 2019)"));
  pad_to_label_->setText(tr("Pad to"));
  pad_to_->setSpecialValueText(tr("off"));
  pad_to_->setToolTip(tr("Pad the text with [PAD] tokens up to N tokens, as a batch is padded"));
  pad_mask_->setText(tr("Mask the [PAD] keys (off: the classic leak)"));
  precision_label_->setText(tr("Softmax precision"));
  precision_->setToolTip(tr("fp16 and bf16: scores, exponentials, sums and weights rounded to the format "
                            "(emulated exactly on the CPU reference)"));
  softmax_label_->setText(tr("Softmax"));
  softmax_->setItemText(0, tr("stable (row maximum subtracted)"));
  softmax_->setItemText(1, tr("naive (exp(s) as it is)"));
  softmax_->setToolTip(tr("naive overflows in fp16 once a score exceeds ln 65504 ≈ 11.09; magenta cells are inf or NaN"));
  dropout_label_->setText(tr("Dropout"));
  dropout_->setSpecialValueText(tr("off"));
  dropout_->setToolTip(tr("Zero each weight with probability p and scale the rest by 1/(1 − p), seeded by the seed "
                          "(Vaswani et al. 2017, §5.4); rows no longer sum to 1"));
  if (model_) showModel();  // the model's texts in the new language
}

}  // namespace attnlab::gui
