#pragma once
/// \file head_similarity_plot.hpp
/// The head-similarity matrix: mean Jensen–Shannon divergence between heads.

#include <QString>

#include "attnlab/head_similarity.hpp"

class QCustomPlot;

namespace attnlab::views {

/// Draws the head-similarity matrix [h, h] (headSimilarity: mean Jensen–Shannon divergence over
/// query rows, nats) as square cells on viridis from 0 to the largest pair (dark = alike), rows and
/// columns the heads (head 0 top-left), the value in every cell while cells are ≥ 34 px, each
/// near-duplicate pair framed in orange on both sides of the diagonal, a colour bar and a note under
/// the matrix naming the threshold. Default canvas 720 × 640.
void drawHeadSimilarity(QCustomPlot& plot, const HeadSimilarity& similarity, const QString& title);

}  // namespace attnlab::views
