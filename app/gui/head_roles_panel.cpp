/// \file head_roles_panel.cpp
/// The top heads per role (head_roles_panel.hpp).

#include "head_roles_panel.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "views/head_roles_plot.hpp"

namespace attnlab::gui {

namespace {
constexpr int kLayerRole = Qt::UserRole;
constexpr int kHeadRole = Qt::UserRole + 1;
}  // namespace

HeadRolesPanel::HeadRolesPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 4, 0, 0);
  title_ = new QLabel;
  title_->setWordWrap(true);
  list_ = new QTreeWidget;
  list_->setObjectName(QStringLiteral("headRolesList"));
  list_->setColumnCount(4);
  list_->setRootIsDecorated(false);
  list_->setUniformRowHeights(true);
  list_->setSelectionMode(QAbstractItemView::SingleSelection);
  list_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  list_->header()->setStretchLastSection(false);
  layout->addWidget(title_);
  layout->addWidget(list_, 1);
  connect(list_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
    if (item) emit headChosen(item->data(0, kLayerRole).toInt(), item->data(0, kHeadRole).toInt());
  });
  retranslate();
  hide();
}

void HeadRolesPanel::setRoles(std::shared_ptr<const HeadRoles> roles) {
  if (roles == roles_) return;
  roles_ = std::move(roles);
  setVisible(roles_ != nullptr);
  refill();
}

void HeadRolesPanel::refill() {
  list_->clear();
  if (!roles_) return;
  for (HeadRole role : kHeadRoles) {
    bool first = true;
    for (const HeadScore& s : roles_->top(role, kHeadRolesListed)) {
      auto* item = new QTreeWidgetItem(list_);
      item->setText(0, first ? views::headRoleText(role) : QString());
      item->setText(1, QString::number(s.layer));
      item->setText(2, QString::number(s.head));
      item->setText(3, QString::number(s.score, 'f', 3));
      item->setData(0, kLayerRole, s.layer);
      item->setData(0, kHeadRole, s.head);
      item->setToolTip(0, views::headRoleText(role));
      for (int c = 1; c < 4; ++c) item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
      first = false;
    }
  }
}

void HeadRolesPanel::retranslate() {
  title_->setText(tr("Head roles: the top %1 heads per role (0–1, from 64 random tokens repeated twice) "
                     "· click one to enlarge it")
                      .arg(kHeadRolesListed));
  list_->setHeaderLabels({tr("role"), tr("layer"), tr("head"), tr("score")});
  refill();
}

}  // namespace attnlab::gui
