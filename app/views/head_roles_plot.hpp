#pragma once
/// \file head_roles_plot.hpp
/// The head-roles picture: for each role (attnlab/head_roles.hpp) the layers × heads matrix of
/// its scores in [0, 1], one panel per role, the top head of each named and framed.

#include <QSize>
#include <QString>
#include <vector>

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

/// Badges every thumbnail of the model view last drawn on `plot` (drawModelGrid, map r·h + k =
/// shown layer r, head k) with its score for `role`: a small box at the thumbnail's top-right
/// corner filled with the score's viridis colour and the score printed (two decimals); scores of
/// at least 0.5 also get an orange frame around the thumbnail, thicker for higher scores, and the
/// role's top head (among the shown layers) the thickest. `layer_indices` are the shown layers'
/// model numbers (Run::layerIndices). Nothing happens when the plot holds no model view of
/// roles.heads heads. Does not replot.
void markHeadRoles(QCustomPlot& plot, const HeadRoles& roles, HeadRole role,
                   const std::vector<int>& layer_indices);

}  // namespace attnlab::views
