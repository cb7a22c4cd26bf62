/// \file rollout.cpp
/// Attention rollout (rollout.hpp; Abnar & Zuidema 2020, §3).

#include "attnlab/rollout.hpp"

#include <cmath>

#include "attnlab/error.hpp"

namespace attnlab {

Matrix attentionRollout(const std::vector<AttentionResult>& layers, double residual) {
  if (layers.empty())
    throw Error(ErrorCode::kInvalidArgument, "a rollout needs at least one layer");
  if (!(residual >= 0 && residual <= 1)) {
    throw Error(ErrorCode::kInvalidArgument, "the rollout's residual share must be in [0, 1]");
  }
  const int n = layers.front().nQ();
  for (const AttentionResult& r : layers) {
    if (r.nQ() != n || r.nK() != n || r.heads() < 1 ||
        r.weights.data.size() != static_cast<std::size_t>(r.heads()) * n * n) {
      throw Error(ErrorCode::kInvalidArgument,
                  "a rollout needs self-attention layers of the same n with weights [h, n, n]");
    }
  }
  using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  MatrixD rollout;
  MatrixD layer(n, n);
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const AttentionResult& r = layers[l];
    layer.setZero();
    for (int k = 0; k < r.heads(); ++k) layer += r.weights.head(k).cast<double>();
    layer *= (1.0 - residual) / r.heads();
    layer.diagonal().array() += residual;
    for (int i = 0; i < n; ++i) {
      const double sum = layer.row(i).sum();
      if (sum > 0) {
        layer.row(i) /= sum;
      } else {
        layer.row(i).setZero();  // residual 0 and a row with no visible key: pass it through
        layer(i, i) = 1;
      }
    }
    rollout = l == 0 ? layer : MatrixD(layer * rollout);
  }
  return rollout.cast<float>();
}

}  // namespace attnlab
