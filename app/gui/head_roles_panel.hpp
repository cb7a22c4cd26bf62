#pragma once
/// \file head_roles_panel.hpp
/// The top heads of each role (attnlab/head_roles.hpp) of the model shown, as a list in the
/// Analysis dock; clicking a head enlarges it in the model view.

#include <QWidget>
#include <memory>

#include "attnlab/head_roles.hpp"

class QLabel;
class QTreeWidget;

namespace attnlab::gui {

/// How many heads per role the list shows.
inline constexpr int kHeadRolesListed = 3;

/// "Head roles": for each role its kHeadRolesListed best heads (layer, head, score), best first.
/// Hidden while the result has no head roles (no model, or none asked for).
class HeadRolesPanel : public QWidget {
  Q_OBJECT
 public:
  explicit HeadRolesPanel(QWidget* parent = nullptr);
  /// The roles to list (null hides the panel); the same pointer again changes nothing.
  void setRoles(std::shared_ptr<const HeadRoles> roles);
  QTreeWidget* list() const { return list_; }
  /// True while it has roles to list (it is shown then, unless a lesson step hides it).
  bool hasRoles() const { return roles_ != nullptr; }
  void retranslate();

 signals:
  /// A listed head was clicked: model layer `layer`, head `head`.
  void headChosen(int layer, int head);

 private:
  void refill();
  std::shared_ptr<const HeadRoles> roles_;
  QLabel* title_ = nullptr;
  QTreeWidget* list_ = nullptr;
};

}  // namespace attnlab::gui
