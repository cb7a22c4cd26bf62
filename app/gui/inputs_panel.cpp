/// \file inputs_panel.cpp
/// The inputs form; limits from the option table, feedback between widgets cut with
/// QSignalBlocker.

#include "inputs_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QTextBlock>
#include <QTextDocument>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "emoji_highlighter.hpp"
#include "variants_box.hpp"
#include "options/options.hpp"
#include "options/variants.hpp"

namespace attnlab::gui {
namespace {

QPlainTextEdit* textField(const char* name, int min_height, int max_height) {
  auto* edit = new QPlainTextEdit;
  edit->setObjectName(QLatin1String(name));
  edit->setTabChangesFocus(true);
  if (min_height > 0) edit->setMinimumHeight(min_height);
  edit->setMaximumHeight(max_height);
  new EmojiHighlighter(edit->document());
  return edit;
}

/// The field's lines (QTextBlock::text) joined by '\n': every character as typed.
/// QPlainTextEdit::toPlainText() would turn U+00A0 into a space and U+2028 into '\n', which
/// changes a model's ids.
QString linesOf(const QPlainTextEdit* edit) {
  QString text;
  for (QTextBlock block = edit->document()->begin(); block.isValid(); block = block.next()) {
    if (block != edit->document()->begin()) text += QLatin1Char('\n');
    text += block.text();
  }
  return text;
}

int log2Position(int d_k) { return static_cast<int>(std::lround(std::log2(std::max(1, d_k)))); }

int rangeMax(std::string_view option) { return static_cast<int>(options::option(option).max); }
int rangeMin(std::string_view option) { return static_cast<int>(options::option(option).min); }

}  // namespace

InputsPanel::InputsPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  form_ = new QFormLayout;
  outer->addLayout(form_);
  outer->addStretch(1);
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

  text_label_ = new QLabel;
  text_edit_ = textField("text", 70, 110);
  source_label_ = new QLabel;
  source_edit_ = textField("source", 0, 70);
  pair_label_ = new QLabel;
  pair_edit_ = textField("pair", 0, 70);
  message_label_ = new QLabel;
  message_label_->setObjectName(QStringLiteral("inputMessage"));
  message_label_->setWordWrap(true);
  message_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_label_->setStyleSheet(QStringLiteral(
      "QLabel { color: #a40000; background: #fdecea; border: 1px solid #e0a0a0; "
      "border-radius: 3px; padding: 4px; }"));
  message_label_->hide();
  for (QWidget* w : std::initializer_list<QWidget*>{text_label_, text_edit_, source_label_, source_edit_,
                                                    pair_label_, pair_edit_, message_label_}) {
    form_->addRow(w);
  }

  mechanism_label_ = new QLabel;
  mechanism_combo_ = new QComboBox;
  mechanism_combo_->setObjectName(QStringLiteral("mechanism"));
  for (Mechanism m : {Mechanism::kAdditive, Mechanism::kDot, Mechanism::kScaled, Mechanism::kLinear})
    mechanism_combo_->addItem(QString(), static_cast<int>(m));
  form_->addRow(mechanism_label_, mechanism_combo_);
  scaling_check_ = new QCheckBox;
  scaling_check_->setObjectName(QStringLiteral("scaling"));
  form_->addRow(scaling_check_);
  temperature_check_ = new QCheckBox;
  temperature_spin_ = new QDoubleSpinBox;
  temperature_spin_->setDecimals(3);
  temperature_spin_->setRange(0.001, 1e6);  // the table's limit is T > 0
  temperature_spin_->setValue(1.0);
  temperature_spin_->setEnabled(false);
  temperature_play_ = new QToolButton;
  temperature_play_->setObjectName(QStringLiteral("temperaturePlay"));
  auto* temperature_row = new QHBoxLayout;
  temperature_row->addWidget(temperature_spin_, 1);
  temperature_row->addWidget(temperature_play_);
  form_->addRow(temperature_check_, temperature_row);

  dk_label_ = new QLabel;
  auto* dk_row = new QHBoxLayout;
  dk_slider_ = new QSlider(Qt::Horizontal);
  dk_slider_->setObjectName(QStringLiteral("dkSlider"));
  dk_slider_->setRange(0, log2Position(rangeMax("d-k")));  // log2 d_k: 1, 2, 4 … the limit
  dk_slider_->setPageStep(1);
  dk_slider_->setTickPosition(QSlider::TicksBelow);
  dk_spin_ = new QSpinBox;
  dk_spin_->setObjectName(QStringLiteral("dkSpin"));
  dk_spin_->setRange(rangeMin("d-k"), rangeMax("d-k"));
  dk_play_ = new QToolButton;
  dk_play_->setObjectName(QStringLiteral("dkPlay"));
  dk_row->addWidget(dk_slider_, 1);
  dk_row->addWidget(dk_spin_);
  dk_row->addWidget(dk_play_);
  form_->addRow(dk_label_, dk_row);
  heads_label_ = new QLabel;
  heads_spin_ = new QSpinBox;
  heads_spin_->setObjectName(QStringLiteral("heads"));
  heads_spin_->setRange(rangeMin("heads"), rangeMax("heads"));
  form_->addRow(heads_label_, heads_spin_);
  d_model_label_ = new QLabel;
  d_model_spin_ = new QSpinBox;
  d_model_spin_->setObjectName(QStringLiteral("dModel"));
  d_model_spin_->setRange(rangeMin("d-model"), rangeMax("d-model"));
  form_->addRow(d_model_label_, d_model_spin_);
  causal_check_ = new QCheckBox;
  causal_check_->setObjectName(QStringLiteral("causal"));
  form_->addRow(causal_check_);
  seed_label_ = new QLabel;
  seed_spin_ = new QDoubleSpinBox;  // a double holds every seed up to 2^53 exactly
  seed_spin_->setObjectName(QStringLiteral("seed"));
  seed_spin_->setDecimals(0);
  seed_spin_->setRange(0, static_cast<double>(options::option("seed").max));
  form_->addRow(seed_label_, seed_spin_);
  variants_ = new VariantsBox;
  form_->addRow(variants_);
  backend_label_ = new QLabel;
  backend_combo_ = new QComboBox;
  backend_combo_->setObjectName(QStringLiteral("backend"));
  backend_combo_->addItem(QString(), QStringLiteral("auto:0"));
  backend_combo_->addItem(QString(), QStringLiteral("cpu:0"));
  form_->addRow(backend_label_, backend_combo_);
  backend_used_label_ = new QLabel;
  backend_used_label_->setObjectName(QStringLiteral("backendInUse"));
  backend_used_label_->setWordWrap(true);
  backend_used_label_->setStyleSheet(QStringLiteral("color: #404040;"));
  form_->addRow(backend_used_label_);
  // Shown while an OpenCL failure is kept (a program that did not build, a device that did not
  // open): the backend reports it with every result until the user asks to try again.
  retry_button_ = new QPushButton;
  retry_button_->setObjectName(QStringLiteral("retryOpenCl"));
  retry_button_->setVisible(false);
  connect(retry_button_, &QPushButton::clicked, this, &InputsPanel::retryRequested);
  form_->addRow(retry_button_);

  color_scale_label_ = new QLabel;
  color_scale_combo_ = new QComboBox;
  color_scale_combo_->setObjectName(QStringLiteral("colorScale"));
  for (int i = 0; i < 4; ++i) color_scale_combo_->addItem(QString(), i);
  form_->addRow(color_scale_label_, color_scale_combo_);
  pool_label_ = new QLabel;
  pool_combo_ = new QComboBox;
  pool_combo_->setObjectName(QStringLiteral("pool"));
  for (int i = 0; i < 2; ++i) pool_combo_->addItem(QString(), i);
  form_->addRow(pool_label_, pool_combo_);
  shortcuts_label_ = new QLabel;
  shortcuts_label_->setWordWrap(true);
  shortcuts_label_->setStyleSheet(QStringLiteral("color: #606060;"));
  form_->addRow(shortcuts_label_);

  for (QPlainTextEdit* edit : {text_edit_, source_edit_, pair_edit_})
    connect(edit, &QPlainTextEdit::textChanged, this, &InputsPanel::typed);
  // Dot and scaled differ only by the 1/√d_k factor: the check box and the combo stay in step.
  connect(mechanism_combo_, &QComboBox::currentIndexChanged, this, [this] {
    const auto mechanism = static_cast<Mechanism>(mechanism_combo_->currentData().toInt());
    const QSignalBlocker block(scaling_check_);
    if (mechanism != Mechanism::kAdditive && mechanism != Mechanism::kLinear)
      scaling_check_->setChecked(mechanism == Mechanism::kScaled);
    updateEnabled();
    emit changed();
  });
  connect(scaling_check_, &QCheckBox::toggled, this, [this](bool on) {
    const QSignalBlocker block(mechanism_combo_);
    mechanism_combo_->setCurrentIndex(mechanism_combo_->findData(
        static_cast<int>(on ? Mechanism::kScaled : Mechanism::kDot)));
    emit changed();
  });
  connect(temperature_check_, &QCheckBox::toggled, this, [this](bool on) {
    temperature_spin_->setEnabled(on);
    emit changed();
  });
  connect(temperature_spin_, &QDoubleSpinBox::valueChanged, this, &InputsPanel::changed);
  connect(dk_slider_, &QSlider::valueChanged, this, [this](int position) { setDk(1 << position); });
  // A d_k typed into the box: the slider follows and the picture is recomputed (setDk would see
  // the box's own new value and take it for no change).
  connect(dk_spin_, &QSpinBox::valueChanged, this, [this](int d_k) {
    {
      const QSignalBlocker block(dk_slider_);
      dk_slider_->setValue(log2Position(d_k));
    }
    emit changed();
  });
  connect(heads_spin_, &QSpinBox::valueChanged, this, [this](int heads) {
    variants_->setHeads(heads);
    emit changed();
  });
  connect(d_model_spin_, &QSpinBox::valueChanged, this, &InputsPanel::changed);
  connect(variants_, &VariantsBox::changed, this, &InputsPanel::changed);
  connect(seed_spin_, &QDoubleSpinBox::valueChanged, this, &InputsPanel::changed);
  connect(causal_check_, &QCheckBox::toggled, this, &InputsPanel::changed);
  connect(backend_combo_, &QComboBox::currentIndexChanged, this, [this] {
    wanted_backend_ = backend_combo_->currentData().toString();
    emit changed();
  });
  for (QComboBox* combo : {color_scale_combo_, pool_combo_})
    connect(combo, &QComboBox::currentIndexChanged, this, &InputsPanel::pictureChanged);
  play_timer_.setInterval(kPlayMs);
  connect(&play_timer_, &QTimer::timeout, this, &InputsPanel::playStep);
  connect(dk_play_, &QToolButton::clicked, this, [this] {
    play_param_ == QLatin1String("d_k") ? stopPlaying() : play(QStringLiteral("d_k"));
  });
  connect(temperature_play_, &QToolButton::clicked, this, [this] {
    play_param_ == QLatin1String("temperature") ? stopPlaying() : play(QStringLiteral("temperature"));
  });
  setSettings(options::LabSettings{});
  retranslate();
}

void InputsPanel::setFieldText(QPlainTextEdit* edit, GivenText& given, const QString& text) {
  if (fieldText(edit, given) != text) edit->setPlainText(text);
  given = {text, linesOf(edit)};
}

QString InputsPanel::fieldText(const QPlainTextEdit* edit, const GivenText& given) {
  const QString lines = linesOf(edit);
  return !given.given.isNull() && lines == given.shown ? given.given : lines;
}

options::LabSettings InputsPanel::settings(const options::LabSettings& base) const {
  options::LabSettings s = base_;
  s.model_dir = base.model_dir;
  s.layer = base.layer;
  s.hide_special = base.hide_special;
  s.rollout = base.rollout;
  s.head_roles = base.head_roles;
  s.translator = base.translator;
  s.translator_attention = base.translator_attention;
  s.text = fieldText(text_edit_, text_given_);
  s.source = fieldText(source_edit_, source_given_);
  // A pair exactly when one is given: the field enabled (a BERT) and not empty, as --pair.
  if (const QString pair = fieldText(pair_edit_, pair_given_); pair_edit_->isEnabled() && !pair.isEmpty())
    s.pair = pair;
  s.spec.mechanism = static_cast<Mechanism>(mechanism_combo_->currentData().toInt());
  if (temperature_check_->isChecked()) {
    s.spec.temperature = temperature_spin_->value();
  } else {
    s.spec.temperature.reset();
  }
  s.spec.d_k = dk_spin_->value();
  s.spec.heads = heads_spin_->value();
  s.spec.d_model = d_model_spin_->value();
  s.setCausal(causal_check_->isChecked());
  s.seed = static_cast<std::uint64_t>(seed_spin_->value());
  const QStringList backend = backend_combo_->currentData().toString().split(QLatin1Char(':'));
  s.backend = options::parseBackendKind(backend.value(0)).value_or(options::BackendKind::kAuto);
  s.device = backend.value(1).toInt();
  if (model_) {
    // The widgets show the model's shapes; the lab's own wait in the stash.
    s.spec.mechanism = scaling_check_->isChecked() ? Mechanism::kScaled : Mechanism::kDot;
    // A translator without a scale to switch off runs as trained ("scaled" there).
    if (translator_ && !scaling_check_->isEnabled()) s.spec.mechanism = Mechanism::kScaled;
    s.spec.d_k = stash_.d_k;
    s.spec.heads = stash_.heads;
    s.spec.d_model = stash_.d_model;
    s.setCausal(stash_.causal);
    s.seed = static_cast<std::uint64_t>(stash_.seed);
  }
  variants_->apply(s);
  return s;
}

void InputsPanel::setSettings(const options::LabSettings& s) {
  base_ = s;
  const QSignalBlocker b1(text_edit_), b2(source_edit_), b3(pair_edit_), b4(mechanism_combo_),
      b5(scaling_check_), b6(temperature_check_), b7(temperature_spin_), b8(dk_slider_),
      b9(dk_spin_), b10(heads_spin_), b11(d_model_spin_), b12(causal_check_), b13(seed_spin_),
      b14(backend_combo_);
  setFieldText(text_edit_, text_given_, s.text);
  setFieldText(source_edit_, source_given_, s.source);
  if (s.pair) setFieldText(pair_edit_, pair_given_, *s.pair);
  const bool lab_only =
      s.spec.mechanism == Mechanism::kAdditive || s.spec.mechanism == Mechanism::kLinear;
  const Mechanism mechanism = s.pretrained() && lab_only ? Mechanism::kScaled : s.spec.mechanism;
  mechanism_combo_->setCurrentIndex(mechanism_combo_->findData(static_cast<int>(mechanism)));
  scaling_check_->setChecked(mechanism != Mechanism::kDot);
  temperature_check_->setChecked(s.spec.temperature.has_value());
  temperature_spin_->setEnabled(s.spec.temperature.has_value());
  if (s.spec.temperature) temperature_spin_->setValue(*s.spec.temperature);
  const int d_k = s.spec.resolvedDk() > 0 ? s.spec.resolvedDk()
                                          : std::max(1, s.spec.d_model / std::max(1, s.spec.heads));
  dk_spin_->setValue(d_k);
  dk_slider_->setValue(log2Position(d_k));
  heads_spin_->setValue(s.spec.heads);
  d_model_spin_->setValue(s.spec.d_model);
  causal_check_->setChecked(s.causal());
  seed_spin_->setValue(static_cast<double>(s.seed));
  variants_->setSettings(s);
  stash_ = {s.spec.mechanism, d_k, s.spec.heads, s.spec.d_model, s.causal(),
            static_cast<double>(s.seed)};
  if (model_) showModel();  // the lab's values wait in the stash
  if (translator_) showTranslator();
  wanted_backend_ = QStringLiteral("%1:%2").arg(QString::fromStdString(attnlab::toString(s.backend))).arg(s.device);
  selectBackend();
  updateEnabled();
}

views::PictureOptions InputsPanel::picture() const {
  views::PictureOptions p;
  p.color_scale = static_cast<views::ColorScale>(color_scale_combo_->currentData().toInt());
  p.pool = static_cast<views::Pool>(pool_combo_->currentData().toInt());
  return p;
}

void InputsPanel::setPicture(const views::PictureOptions& p) {
  const QSignalBlocker b1(color_scale_combo_), b2(pool_combo_);
  color_scale_combo_->setCurrentIndex(color_scale_combo_->findData(static_cast<int>(p.color_scale)));
  pool_combo_->setCurrentIndex(pool_combo_->findData(static_cast<int>(p.pool)));
}

void InputsPanel::setModelMode(bool model, const ModelInfo* info) {
  if (model && !model_) {
    stash_ = {static_cast<Mechanism>(mechanism_combo_->currentData().toInt()),
              dk_spin_->value(),
              heads_spin_->value(),
              d_model_spin_->value(),
              causal_check_->isChecked(),
              seed_spin_->value()};
  }
  const bool leaving = !model && model_;
  model_ = model;
  config_ = model && info ? std::optional<ModelConfig>(info->config) : std::nullopt;
  model_name_ = model && info ? info->name : QString();
  if (!model) translator_.reset();
  if (model) showModel();
  if (leaving) showLab();
  variants_->setModelMode(model, config_ ? &*config_ : nullptr);
  updateRows();
  retranslateFields();
  const bool pairs = !config_ || config_->architecture == Architecture::kBert;
  pair_edit_->setEnabled(pairs);
  pair_label_->setEnabled(pairs);
  pair_edit_->setToolTip(
      pairs ? QString()
            : tr("%1 is a GPT-2: it reads one text, no sentence pairs.").arg(model_name_));
  updateEnabled();
}

void InputsPanel::showModel() {
  const QSignalBlocker b1(mechanism_combo_), b2(dk_slider_), b3(dk_spin_), b4(heads_spin_),
      b5(d_model_spin_), b6(causal_check_), b7(seed_spin_);
  mechanism_combo_->setCurrentIndex(mechanism_combo_->findData(
      static_cast<int>(scaling_check_->isChecked() ? Mechanism::kScaled : Mechanism::kDot)));
  // The model's own shapes and mask once it is loaded; until then, and for the seed (the weights
  // are the model's), the boxes say where the values come from.
  const QString from_model = tr("from the model");
  for (QSpinBox* spin : {dk_spin_, heads_spin_, d_model_spin_}) {
    spin->setSpecialValueText(config_ ? QString() : from_model);
    if (!config_) spin->setValue(spin->minimum());
  }
  seed_spin_->setSpecialValueText(from_model);
  seed_spin_->setValue(seed_spin_->minimum());
  causal_check_->setTristate(!config_);
  if (config_) {
    dk_spin_->setValue(std::min(dk_spin_->maximum(), config_->dK()));
    dk_slider_->setValue(log2Position(config_->dK()));
    heads_spin_->setValue(std::min(heads_spin_->maximum(), config_->heads));
    d_model_spin_->setValue(std::min(d_model_spin_->maximum(), config_->d_model));
    causal_check_->setChecked(config_->mask() == Mask::kCausal);
  } else {
    causal_check_->setCheckState(Qt::PartiallyChecked);
  }
  const QString decided =
      config_ ? tr("Decided by the model: %1 has %2 layers × %3 heads, d_model = %4, d_k = %5, %6.")
                    .arg(model_name_)
                    .arg(config_->layers)
                    .arg(config_->heads)
                    .arg(config_->d_model)
                    .arg(config_->dK())
                    .arg(config_->mask() == Mask::kCausal ? tr("causal mask") : tr("no mask"))
              : tr("Decided by the model.");
  for (QWidget* w : modelDecided()) w->setToolTip(decided);
  if (translator_) showTranslator();  // a translator's values over the "from the model" ones
}

std::vector<QWidget*> InputsPanel::modelDecided() const {
  return {mechanism_combo_, dk_slider_,    dk_spin_,  heads_spin_,
          d_model_spin_,    causal_check_, seed_spin_};
}

void InputsPanel::showLab() {
  const QSignalBlocker b1(mechanism_combo_), b2(dk_slider_), b3(dk_spin_), b4(heads_spin_),
      b5(d_model_spin_), b6(causal_check_), b7(seed_spin_);
  const Mechanism mechanism = stash_.mechanism == Mechanism::kAdditive ? Mechanism::kAdditive
                              : stash_.mechanism == Mechanism::kLinear ? Mechanism::kLinear
                              : scaling_check_->isChecked()            ? Mechanism::kScaled
                                                                       : Mechanism::kDot;
  mechanism_combo_->setCurrentIndex(mechanism_combo_->findData(static_cast<int>(mechanism)));
  for (QSpinBox* spin : {dk_spin_, heads_spin_, d_model_spin_})
    spin->setSpecialValueText(QString());
  seed_spin_->setSpecialValueText(QString());
  causal_check_->setTristate(false);
  dk_spin_->setValue(stash_.d_k);
  dk_slider_->setValue(log2Position(stash_.d_k));
  heads_spin_->setValue(stash_.heads);
  d_model_spin_->setValue(stash_.d_model);
  causal_check_->setChecked(stash_.causal);
  seed_spin_->setValue(stash_.seed);
  for (QWidget* w : modelDecided()) w->setToolTip(QString());
}

void InputsPanel::updateEnabled() {
  for (QWidget* w : std::initializer_list<QWidget*>{mechanism_combo_, dk_slider_, dk_spin_, heads_spin_,
                                                    d_model_spin_, causal_check_, seed_spin_, mechanism_label_,
                                                    dk_label_, heads_label_, d_model_label_, seed_label_}) {
    w->setEnabled(!model_);
  }
  const auto mechanism = static_cast<Mechanism>(mechanism_combo_->currentData().toInt());
  // A translator's scale can be switched off only where it was trained with one.
  const bool translator_scale =
      translator_ && translator_->kind == TranslatorKind::kTransformer && translator_->scale_attention;
  scaling_check_->setEnabled(translator_ ? translator_scale
                                         : model_ || (mechanism != Mechanism::kAdditive && mechanism != Mechanism::kLinear));
  dk_play_->setEnabled(!model_);
  if (model_ && play_param_ == QLatin1String("d_k")) stopPlaying();
}

void InputsPanel::play(const QString& param) {
  stopPlaying();
  play_values_ = options::defaultSweepValues(options::sweptOption(param), 0);
  play_param_ = param;
  play_index_ = 0;
  if (param == QLatin1String("temperature")) temperature_check_->setChecked(true);
  playStep();
  play_timer_.start();
  updatePlayButtons();
}

void InputsPanel::stopPlaying() {
  play_timer_.stop();
  play_param_.clear();
  updatePlayButtons();
}

void InputsPanel::playStep() {
  if (play_index_ >= play_values_.size()) {
    stopPlaying();
    return;
  }
  const QString value = play_values_.at(play_index_++);
  if (play_param_ == QLatin1String("d_k")) {
    setDk(value.toInt());
  } else {
    temperature_spin_->setValue(value.toDouble());  // emits changed
  }
}

void InputsPanel::updatePlayButtons() {
  for (QToolButton* button : {dk_play_, temperature_play_}) {
    const bool on = play_param_ == (button == dk_play_ ? QLatin1String("d_k") : QLatin1String("temperature"));
    button->setText(on ? QStringLiteral("■") : QStringLiteral("▶"));
  }
  dk_play_->setToolTip(play_param_ == QLatin1String("d_k")
                           ? tr("Stop the d_k sweep")
                           : tr("Play d_k = 1, 2, 4, … 1024, one value every %1 ms (the sweep of "
                                "attention-lab-cli sweep --param d_k; File → Export → Sweep… writes it as a GIF)")
                                 .arg(kPlayMs));
  temperature_play_->setToolTip(play_param_ == QLatin1String("temperature")
                                    ? tr("Stop the temperature sweep")
                                    : tr("Play T = 0.125, 0.25, … 8, one value every %1 ms (the sweep of "
                                         "attention-lab-cli sweep --param temperature)")
                                          .arg(kPlayMs));
}

void InputsPanel::setDk(int d_k) {
  if (model_) return;  // the model decides d_k
  d_k = std::clamp(d_k, dk_spin_->minimum(), dk_spin_->maximum());
  const bool moved = d_k != dk_spin_->value();
  {
    const QSignalBlocker b1(dk_spin_), b2(dk_slider_);
    dk_spin_->setValue(d_k);
    dk_slider_->setValue(log2Position(d_k));
  }
  if (moved) emit changed();
}

int InputsPanel::dk() const { return dk_spin_->value(); }

void InputsPanel::toggleScaling() {
  if (scaling_check_->isEnabled()) scaling_check_->toggle();
}

void InputsPanel::showMessage(const QString& message) {
  message_label_->setText(message);
  message_label_->setVisible(!message.isEmpty());
}

QString InputsPanel::message() const { return message_label_->isHidden() ? QString() : message_label_->text(); }

void InputsPanel::setBackendInUse(const QString& text, const QString& tooltip, bool retryable) {
  backend_used_label_->setText(text);
  backend_used_label_->setToolTip(tooltip);
  retry_button_->setVisible(retryable);
}

bool InputsPanel::setDevices(const QStringList& devices) {
  const QSignalBlocker block(backend_combo_);
  const int before = backend_combo_->currentIndex();
  for (int i = 0; i < devices.size(); ++i) {
    backend_combo_->addItem(QStringLiteral("OpenCL: %1").arg(devices.at(i)), QStringLiteral("opencl:%1").arg(i));
  }
  devices_listed_ = true;
  selectBackend();
  return backend_combo_->currentIndex() != before;
}

QString InputsPanel::backendChoice() const { return backend_combo_->currentData().toString(); }

void InputsPanel::selectBackend() {
  const QSignalBlocker block(backend_combo_);
  int index = backend_combo_->findData(wanted_backend_);
  if (index < 0 && devices_listed_ && wanted_backend_.startsWith(QLatin1String("opencl:"))) {
    // Asked for (command line, last session) but not on this machine: the request keeps an entry
    // of its own, so the window says why it cannot be used instead of quietly using another.
    backend_combo_->addItem(tr("OpenCL device %1 (not found)").arg(wanted_backend_.section(QLatin1Char(':'), 1)),
                            wanted_backend_);
    index = backend_combo_->count() - 1;
  }
  backend_combo_->setCurrentIndex(std::max(index, 0));
}

void InputsPanel::retranslate() {
  retranslateFields();
  retry_button_->setText(tr("Retry OpenCL"));
  retry_button_->setToolTip(tr("Try the OpenCL device and its kernels again (after fixing what the message names)"));
  pair_label_->setText(tr("Second sentence (optional: a BERT sentence pair)"));
  pair_edit_->setPlaceholderText(tr("Empty: one sentence · [CLS] text [SEP] pair [SEP]"));
  mechanism_label_->setText(tr("Mechanism"));
  mechanism_combo_->setItemText(0, tr("additive (Bahdanau)"));
  mechanism_combo_->setItemText(1, tr("dot-product"));
  mechanism_combo_->setItemText(2, tr("scaled dot-product"));
  mechanism_combo_->setItemText(3, tr("linear (Katharopoulos et al. 2020)"));
  scaling_check_->setText(tr("Scale scores by 1/√d_k"));
  temperature_check_->setText(tr("Temperature T"));
  dk_label_->setText(tr("d_k"));
  heads_label_->setText(tr("Heads"));
  d_model_label_->setText(tr("d_model"));
  causal_check_->setText(tr("Causal mask (decoder)"));
  seed_label_->setText(tr("Seed"));
  variants_->retranslate();
  backend_label_->setText(tr("Backend"));
  backend_combo_->setItemText(0, tr("auto"));
  backend_combo_->setItemText(1, tr("CPU"));
  color_scale_label_->setText(tr("Colour scale"));
  color_scale_combo_->setItemText(0, tr("auto (log for long inputs)"));
  color_scale_combo_->setItemText(1, tr("linear 0–1"));
  color_scale_combo_->setItemText(2, tr("logarithmic"));
  color_scale_combo_->setItemText(3, tr("relative to uniform (n·p)"));
  color_scale_combo_->setToolTip(tr("What a cell's colour shows; the colour bar names the scale in use."));
  pool_label_->setText(tr("Overview blocks"));
  pool_combo_->setItemText(0, tr("max of each block"));
  pool_combo_->setItemText(1, tr("mean of each block"));
  pool_combo_->setToolTip(tr("Long inputs are drawn as blocks of tokens when a token would get "
                             "less than 3 pixels; this is how a block's colour is chosen."));
  updatePlayButtons();
  shortcuts_label_->setText(tr("Shortcuts: Ctrl+↑ / Ctrl+↓ d_k ×2 / ÷2 · Ctrl+K scaling · "
                               "F5 presentation · Esc back to all heads"));
  if (model_) showModel();  // the model's texts in the new language
}

}  // namespace attnlab::gui
