/// \file measures.cpp
/// The lessons' measures that read an attention result or its tensors directly (quantities.hpp:
/// dotProductVariance, averagingLoss, prefixMaxDifference, nonFiniteRows) and the one number format
/// of the captions (formatNumber).

#include <QString>
#include <algorithm>
#include <cmath>

#include "attnlab/error.hpp"
#include "lessons/quantities.hpp"

namespace attnlab::lessons {

double dotProductVariance(const Tensor3& q, const Tensor3& k) {
  if (q.h < 1 || k.h < 1 || q.h % k.h != 0 || q.cols != k.cols || q.rows < 1 || k.rows < 1)
    throw Error(ErrorCode::kInvalidArgument, "dotProductVariance: q [h, n_q, d_k] and k [G, n_k, d_k] with G dividing h");
  const int group = q.h / k.h;
  double sum = 0, sum2 = 0, count = 0;
  for (int a = 0; a < q.h; ++a) {
    const int g = a / group;
    for (int i = 0; i < q.rows; ++i) {
      const float* qi = q.row(a, i);
      for (int j = 0; j < k.rows; ++j) {
        const float* kj = k.row(g, j);
        double dot = 0;
        for (int c = 0; c < q.cols; ++c) dot += static_cast<double>(qi[c]) * kj[c];
        sum += dot;
        sum2 += dot * dot;
        count += 1;
      }
    }
  }
  const double mean = sum / count;
  return std::max(0.0, sum2 / count - mean * mean);
}

double averagingLoss(const Tensor3& o) {
  double lost = 0, total = 0;
  for (int i = 0; i < o.rows; ++i) {
    for (int c = 0; c < o.cols; ++c) {
      double mean = 0;
      for (int a = 0; a < o.h; ++a) mean += o(a, i, c);
      mean /= std::max(1, o.h);
      for (int a = 0; a < o.h; ++a) {
        const double v = o(a, i, c);
        lost += (v - mean) * (v - mean);
        total += v * v;
      }
    }
  }
  return total > 0 ? lost / total : 0.0;
}

double prefixMaxDifference(const AttentionResult& a, const AttentionResult& b, int rows) {
  if (a.heads() != b.heads() || a.nQ() != b.nQ() || a.nK() != b.nK())
    throw Error(ErrorCode::kInvalidArgument, "prefixMaxDifference: the results differ in shape");
  double m = 0;
  for (int h = 0; h < a.heads(); ++h)
    for (int i = 0; i < std::min(rows, a.nQ()); ++i)
      for (int j = 0; j < a.nK(); ++j)
        m = std::max(m, std::abs(static_cast<double>(a.weights(h, i, j)) - b.weights(h, i, j)));
  return m;
}

int nonFiniteRows(const AttentionResult& r) {
  int rows = 0;
  for (int h = 0; h < r.heads(); ++h)
    for (int i = 0; i < r.nQ(); ++i) rows += r.nonfiniteRow(h, i) ? 1 : 0;
  return rows;
}

QString formatNumber(double v) {
  if (v == 0) return QStringLiteral("0");
  if (std::isnan(v)) return QStringLiteral("—");
  if (!std::isfinite(v)) return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
  const double a = std::abs(v);
  if (a >= 1000) return QString::number(v, 'f', 0);
  if (a < 0.001) return QString::number(v, 'e', 1);
  return QString::number(v, 'g', 3);
}

}  // namespace attnlab::lessons
