#pragma once
/// \file head_roles_plot.hpp
/// The head-roles picture: for each role (attnlab/head_roles.hpp) the layers × heads matrix of
/// its scores in [0, 1], one panel per role, the top head of each named and framed.

#include <QSize>
#include <QString>

#include "attnlab/head_roles.hpp"

class QCustomPlot;

namespace attnlab::views {

/// The role's name as the pictures and the window show it ("previous-token", "induction" …),
/// translated in context "attnlab::views" when a translator is installed.
QString headRoleText(HeadRole role);

/// The canvas drawHeadRoles lays out best for L layers and h heads per layer: square cells of
/// 6–28 px, six panels side by side (about 1660 × 890 for SmolLM2's 30 × 9).
QSize defaultHeadRolesSize(int layers, int heads);

/// Draws the six roles' [L, h] score matrices side by side, in kHeadRoles order, as square cells
/// on viridis over a fixed [0, 1] (one colour bar for all): rows the layers (layer 0 at the top,
/// labelled), columns the heads (labelled); above each panel the role and its top head ("top:
/// L18 H6 0.91"), that head's cell framed in orange. `title` goes above the panels, a note under
/// them says what sequence the scores come from (T, seed).
void drawHeadRoles(QCustomPlot& plot, const HeadRoles& roles, const QString& title);

}  // namespace attnlab::views
