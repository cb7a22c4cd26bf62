/// \file interventions_panel.cpp
/// The Interventions dock (interventions_panel.hpp).

#include "interventions_panel.hpp"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

#include "views/intervention_plots.hpp"
#include "views/picture.hpp"

namespace attnlab::gui {
namespace {

/// The readings the picture shows, in the combo box's order.
enum Reading { kLens = 0, kDla = 1, kPatching = 2 };

}  // namespace

InterventionsPanel::InterventionsPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  hint_ = new QLabel;
  hint_->setWordWrap(true);
  layout->addWidget(hint_);
  auto* heads_row = new QHBoxLayout;
  heads_ = new QLabel;
  heads_->setObjectName(QStringLiteral("ablatedHeads"));
  heads_->setWordWrap(true);
  clear_ = new QPushButton;
  clear_->setObjectName(QStringLiteral("restoreHeads"));
  heads_row->addWidget(heads_, 1);
  heads_row->addWidget(clear_);
  layout->addLayout(heads_row);
  auto* form = new QFormLayout;
  mode_ = new QComboBox;
  mode_->setObjectName(QStringLiteral("ablationMode"));
  for (int i = 0; i < 3; ++i) mode_->addItem(QString(), i);
  mode_label_ = new QLabel;
  form->addRow(mode_label_, mode_);
  layout->addLayout(form);
  next_ = new QLabel;
  next_->setObjectName(QStringLiteral("ablationNext"));
  next_->setWordWrap(true);
  next_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(next_);
  // Compact: the reading's picture below keeps at least half the window's height (issue 50).
  value_weighted_ = new QCheckBox;
  value_weighted_->setObjectName(QStringLiteral("valueWeighted"));
  layout->addWidget(value_weighted_);
  lens_ = new QCheckBox;
  lens_->setObjectName(QStringLiteral("logitLens"));
  dla_ = new QCheckBox;
  dla_->setObjectName(QStringLiteral("logitAttribution"));
  auto* readings = new QHBoxLayout;
  readings->addWidget(lens_);
  readings->addWidget(dla_);
  readings->addStretch(1);
  layout->addLayout(readings);
  target_ = new QLineEdit;
  target_->setObjectName(QStringLiteral("targetToken"));
  versus_ = new QLineEdit;
  versus_->setObjectName(QStringLiteral("versusToken"));
  patch_from_ = new QLineEdit;
  patch_from_->setObjectName(QStringLiteral("patchFrom"));
  target_label_ = new QLabel;
  versus_label_ = new QLabel;
  patch_label_ = new QLabel;
  auto* tokens = new QGridLayout;
  tokens->addWidget(target_label_, 0, 0);
  tokens->addWidget(target_, 0, 1);
  tokens->addWidget(versus_label_, 0, 2);
  tokens->addWidget(versus_, 0, 3);
  tokens->addWidget(patch_label_, 1, 0);
  tokens->addWidget(patch_from_, 1, 1, 1, 3);
  layout->addLayout(tokens);
  reading_ = new QComboBox;
  reading_->setObjectName(QStringLiteral("reading"));
  for (int i = 0; i < 3; ++i) reading_->addItem(QString(), i);
  layout->addWidget(reading_);
  plot_ = new QCustomPlot(this);
  plot_->setObjectName(QStringLiteral("interventionPlot"));
  plot_->setMinimumSize(200, 240);
  layout->addWidget(plot_, 1);
  empty_ = new QLabel;
  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  layout->addWidget(empty_, 1);

  connect(clear_, &QPushButton::clicked, this, [this] {
    ablate_.clear();
    refresh();
    emit changed();
  });
  connect(mode_, &QComboBox::currentIndexChanged, this, [this] {
    if (!ablate_.empty()) emit changed();
  });
  for (QCheckBox* box : {value_weighted_, lens_, dla_})
    connect(box, &QCheckBox::toggled, this, [this] { emit changed(); });
  for (QLineEdit* edit : {target_, versus_, patch_from_})
    connect(edit, &QLineEdit::editingFinished, this, [this, edit] {
      if (edit->isModified()) {
        edit->setModified(false);
        emit changed();
      }
    });
  connect(reading_, &QComboBox::currentIndexChanged, this, [this] { drawReading(); });
  plot_->installEventFilter(this);
  retranslate();
}

bool InterventionsPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == plot_ && event->type() == QEvent::Resize && plot_->isVisible()) {
    const QSize drawn = plot_->property("attnlabInterventionSize").toSize();
    if (drawn != plot_->size()) {
      plot_->setProperty("attnlabInterventionSize", plot_->size());
      drawReading();
    }
  }
  return QWidget::eventFilter(watched, event);
}

void InterventionsPanel::apply(options::LabSettings& s) const {
  if (s.translator) return;
  s.ablate = ablate_;
  s.ablation = static_cast<AblationMode>(mode_->currentData().toInt());
  s.value_weighted = value_weighted_->isChecked();
  s.logit_lens = lens_->isChecked();
  s.dla = dla_->isChecked();
  s.target = target_->text();
  s.versus = versus_->text();
  s.patch_from = patch_from_->text().trimmed().isEmpty() ? QString() : patch_from_->text();
}

void InterventionsPanel::setSettings(const options::LabSettings& s) {
  const QSignalBlocker blocks[] = {QSignalBlocker(mode_), QSignalBlocker(value_weighted_),
                                   QSignalBlocker(lens_), QSignalBlocker(dla_)};
  ablate_ = s.ablate;
  mode_->setCurrentIndex(static_cast<int>(s.ablation));
  value_weighted_->setChecked(s.value_weighted);
  lens_->setChecked(s.logit_lens);
  dla_->setChecked(s.dla);
  target_->setText(s.target);
  versus_->setText(s.versus);
  patch_from_->setText(s.patch_from);
  refresh();
}

void InterventionsPanel::toggle(int layer, int head) {
  const HeadRef ref{layer, head};
  const auto at = std::find(ablate_.begin(), ablate_.end(), ref);
  if (at == ablate_.end()) {
    ablate_.push_back(ref);
  } else {
    ablate_.erase(at);
  }
  refresh();
  emit changed();
}

void InterventionsPanel::setResult(std::shared_ptr<const results::Run> run) {
  run_ = std::move(run);
  // The picture follows what the run holds: the reading just asked for comes to the front.
  if (run_ && run_->interventions) {
    const results::Interventions& x = *run_->interventions;
    const int current = reading_->currentIndex();
    const bool has[] = {x.lens.has_value(), x.dla.has_value(), x.patching.has_value()};
    if (!has[current]) {
      for (int i = 0; i < 3; ++i) {
        if (has[i]) {
          const QSignalBlocker block(reading_);
          reading_->setCurrentIndex(i);
          break;
        }
      }
    }
  }
  refresh();
  drawReading();
}

void InterventionsPanel::refresh() {
  QStringList heads;
  for (const HeadRef& h : ablate_) heads << QString::fromStdString(toString(h));
  heads_->setText(heads.isEmpty() ? tr("Ablated heads: none")
                                  : tr("Ablated heads (layer.head): %1").arg(heads.join(QStringLiteral(", "))));
  clear_->setEnabled(!ablate_.empty());
  QString next;
  if (run_ && run_->interventions && !run_->interventions->ablated.empty()) {
    next = views::ablationLine(*run_->interventions);
  } else if (run_ && run_->model_run && !run_->model_run->next_tokens.empty()) {
    const NextToken& t = run_->model_run->next_tokens.front();
    next = tr("next token %1 %2 %").arg(QString::fromStdString(t.label)).arg(100.0 * t.probability, 0, 'f', 1);
  }
  next_->setText(next);
}

void InterventionsPanel::drawReading() {
  const results::Interventions* x = run_ && run_->interventions ? run_->interventions.get() : nullptr;
  views::clearPlot(*plot_);
  // Laid out for the plot's own size (a dock just shown is not on screen yet); drawn again when
  // the dock is resized (eventFilter).
  views::setCanvasSize(*plot_, plot_->size());
  const int reading = reading_->currentIndex();
  const QString model = run_ && run_->model ? QStringLiteral(" · ") + run_->model->name : QString();
  if (x && reading == kLens && x->lens) {
    views::drawLogitLens(*plot_, *x->lens, run_->query_tokens, tr("Logit lens") + model);
  } else if (x && reading == kDla && x->dla) {
    views::drawLogitAttribution(*plot_, *x->dla,
                                tr("Direct logit attribution of %1").arg(QString::fromStdString(x->dla->target_label)) + model);
  } else if (x && reading == kPatching && x->patching) {
    views::drawPatching(*plot_, *x->patching, run_->query_tokens, tr("Activation patching") + model);
  }
  const bool shown = x && (x->lens || x->dla || x->patching);
  plot_->setVisible(shown);
  reading_->setVisible(shown);
  empty_->setVisible(!shown);
  if (shown) plot_->replot();
}

void InterventionsPanel::retranslate() {
  hint_->setText(tr("Right-click a head in the model view (or Ctrl+click it) to ablate it."));
  hint_->setToolTip(tr("Its output before W_O is removed and every later layer is computed again."));
  clear_->setText(tr("Restore all"));
  mode_label_->setText(tr("Ablation"));
  mode_->setItemText(0, tr("zero: the head's output set to 0"));
  mode_->setItemText(1, tr("mean: its mean over the text's positions"));
  mode_->setItemText(2, tr("uniform: uniform attention over the keys it sees"));
  value_weighted_->setText(tr("Value-weighted attention: α·‖v W_O‖ instead of α"));
  value_weighted_->setToolTip(QStringLiteral("--value-weighted"));
  lens_->setText(tr("Logit lens"));
  lens_->setToolTip(tr("Logit lens: the top token after every layer") + QStringLiteral(" (--logit-lens)"));
  dla_->setText(tr("Logit attribution"));
  dla_->setToolTip(tr("Logit attribution: each head's part of the logit") + QStringLiteral(" (--dla)"));
  target_label_->setText(tr("Target token"));
  target_->setPlaceholderText(tr("the prediction"));
  target_->setMinimumWidth(60);
  versus_->setMinimumWidth(60);
  target_->setToolTip(QStringLiteral("--target"));
  versus_label_->setText(tr("Versus token"));
  versus_->setPlaceholderText(tr("none"));
  versus_->setToolTip(QStringLiteral("--versus"));
  patch_label_->setText(tr("Patch from"));
  patch_from_->setPlaceholderText(tr("a corrupted prompt of as many tokens"));
  patch_from_->setToolTip(QStringLiteral("--patch-from"));
  empty_->setText(tr("Tick “Logit lens” or “Logit attribution”, or give a corrupted prompt to "
                     "patch from, to see it here."));
  reading_->setItemText(kLens, tr("Logit lens"));
  reading_->setItemText(kDla, tr("Logit attribution"));
  reading_->setItemText(kPatching, tr("Activation patching"));
  refresh();
  drawReading();
}

}  // namespace attnlab::gui
