/// \file comparison.cpp
/// "Compare with…": B's computation, the maps of a result, the dialog.

#include "comparison.hpp"

#include <QDialogButtonBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "options/variants.hpp"

namespace attnlab::gui {

CompareController::CompareController(QObject* parent)
    : QObject(parent), controller_(std::make_unique<ComputeController>()) {
  connect(controller_.get(), &ComputeController::resultReady, this, [this](const ResultPtr& r) {
    result_ = r;
    emit changed();
  });
}

CompareController::~CompareController() = default;

void CompareController::setOptions(const QString& options) {
  options_ = options.trimmed();
  result_.reset();
  error_ = {};
  head_b_.reset();
}

void CompareController::request(const options::LabSettings& a) {
  requested_for_ = a;
  if (!active()) return;
  try {
    const options::Options b = options::secondSetting(a, -1, options_);
    head_b_ = b.head;
    error_ = {};
    controller_->request(b.lab);
  } catch (const options::OptionError& e) {
    error_ = e.message();
    emit changed();
  }
}

bool CompareController::matches(const options::LabSettings& a) const {
  if (!result_ || !active()) return false;
  try {
    return options::secondSetting(a, -1, options_).lab == result_->settings;
  } catch (const options::OptionError&) {
    return false;
  }
}

views::RunMaps mapsOf(const ResultPtr& r, std::optional<int> head, std::optional<int> entry) {
  return views::mapsOf(r, r->rollout ? std::nullopt : head, entry);
}

CompareDialog::CompareDialog(QWidget* parent, const options::LabSettings& current, int head,
                             int model_layers, const QString& options)
    : QDialog(parent), current_(current), head_(head) {
  setWindowTitle(tr("Compare with…"));
  auto* layout = new QVBoxLayout(this);
  auto* intro =
      new QLabel(tr("The picture becomes the difference A − B: A is the current setting, B the "
                    "same with these options (as attention-lab-cli render --diff \"OPTIONS\"). "
                    "Red: A gives more weight, blue: B does."),
                 this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  edit_ = new QLineEdit(options, this);
  edit_->setObjectName(QStringLiteral("compareOptions"));
  edit_->setPlaceholderText(QStringLiteral("--no-scale"));
  layout->addWidget(edit_);
  auto* presets = new QGridLayout;
  const auto preset = [this, presets](const QString& text, const QString& value, int row,
                                      int column) {
    auto* button = new QPushButton(text, this);
    connect(button, &QPushButton::clicked, this, [this, value] { edit_->setText(value); });
    presets->addWidget(button, row, column);
  };
  preset(current.scaled() ? tr("Without the 1/√d_k scaling") : tr("With the 1/√d_k scaling"),
         current.scaled() ? QStringLiteral("--no-scale") : QStringLiteral("--mechanism scaled"), 0,
         0);
  const double t = current.spec.temperature.value_or(1.0);
  preset(tr("Temperature × 2"), QStringLiteral("--temperature %1").arg(t * 2, 0, 'g', 6), 0, 1);
  if (!current.pretrained()) {
    preset(current.causal() ? tr("Without the causal mask") : tr("With the causal mask"),
           current.causal() ? QStringLiteral("--no-causal") : QStringLiteral("--causal"), 1, 0);
  }
  if (head >= 0)
    preset(tr("Another head"), QStringLiteral("--head %1").arg(head == 0 ? 1 : 0), 1, 1);
  if (model_layers > 1 && current.layer) {
    const int next = *current.layer + 1 < model_layers ? *current.layer + 1 : *current.layer - 1;
    preset(tr("Another layer"), QStringLiteral("--layer %1").arg(next), 2, 0);
  }
  layout->addLayout(presets);
  problem_ = new QLabel(this);
  problem_->setObjectName(QStringLiteral("compareProblem"));
  problem_->setWordWrap(true);
  problem_->setStyleSheet(QStringLiteral("color: #a40000;"));
  layout->addWidget(problem_);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  layout->addWidget(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(edit_, &QLineEdit::textChanged, this, &CompareDialog::check);
  check();
  resize(560, sizeHint().height());
}

QString CompareDialog::options() const { return edit_->text().trimmed(); }

void CompareDialog::check() {
  QString problem;
  try {
    (void)options::secondSetting(current_, head_, edit_->text());
  } catch (const options::OptionError& e) {
    problem = e.message().translated();
  }
  problem_->setText(problem);
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

}  // namespace attnlab::gui
