// RoPE tables and rotations (see positions.hpp).

#include "attnlab/positions.hpp"

#include <cmath>
#include <string>

#include "attnlab/error.hpp"

namespace attnlab {

std::vector<float> ropeFrequencies(int d, double base) {
  std::vector<float> theta(static_cast<std::size_t>(d / 2));
  const auto base_f = static_cast<float>(base);
  for (int m = 0; m < d / 2; ++m) {
    // HuggingFace: 1.0 / (base ** (torch.arange(0, d, 2).float() / d)), all in float32.
    const float exponent = static_cast<float>(2 * m) / static_cast<float>(d);
    const auto power = static_cast<float>(std::pow(static_cast<double>(base_f), exponent));
    theta[static_cast<std::size_t>(m)] = 1.0f / power;
  }
  return theta;
}

RopeTable makeRopeTable(int n, int rotary_dims, double base, int first) {
  if (rotary_dims <= 0 || rotary_dims % 2 != 0) {
    throw Error(
        ErrorCode::kInvalidArgument,
        "RoPE needs an even number of rotated dimensions, not " + std::to_string(rotary_dims));
  }
  if (n < 0 || first < 0) throw Error(ErrorCode::kInvalidArgument, "RoPE: negative position");
  if (!(base > 0) || !std::isfinite(base)) {
    throw Error(ErrorCode::kInvalidArgument, "RoPE base must be a positive number");
  }
  RopeTable table;
  table.positions = n;
  table.rotary_dims = rotary_dims;
  table.first = first;
  const int pairs = rotary_dims / 2;
  const std::vector<float> theta = ropeFrequencies(rotary_dims, base);
  table.cos.resize(static_cast<std::size_t>(n) * pairs);
  table.sin.resize(table.cos.size());
  for (int i = 0; i < n; ++i) {
    const auto p = static_cast<float>(first + i);
    for (int m = 0; m < pairs; ++m) {
      const float angle = p * theta[static_cast<std::size_t>(m)];
      const std::size_t k = static_cast<std::size_t>(i) * pairs + m;
      table.cos[k] = static_cast<float>(std::cos(static_cast<double>(angle)));
      table.sin[k] = static_cast<float>(std::sin(static_cast<double>(angle)));
    }
  }
  return table;
}

void applyRope(float* x, int n, int heads, int d_head, int row_stride, const RopeTable& table) {
  if (n > table.positions) {
    throw Error(ErrorCode::kInvalidArgument, "RoPE table has " + std::to_string(table.positions) +
                                                 " positions, " + std::to_string(n) + " needed");
  }
  if (d_head < table.rotary_dims) {
    throw Error(ErrorCode::kInvalidArgument, "RoPE rotates " + std::to_string(table.rotary_dims) +
                                                 " dimensions of a head of " +
                                                 std::to_string(d_head));
  }
  const int pairs = table.rotary_dims / 2;
  for (int i = 0; i < n; ++i) {
    const float* c = table.cos.data() + static_cast<std::size_t>(i) * pairs;
    const float* s = table.sin.data() + static_cast<std::size_t>(i) * pairs;
    float* row = x + static_cast<std::size_t>(i) * row_stride;
    for (int h = 0; h < heads; ++h) {
      float* v = row + static_cast<std::size_t>(h) * d_head;
      for (int m = 0; m < pairs; ++m) {
        const float x0 = v[2 * m];
        const float x1 = v[2 * m + 1];
        // HuggingFace's order: q·cos + rotate_half(q)·sin, one product each, then the sum.
        const float a = x0 * c[m];
        const float b = x1 * s[m];
        const float e = x1 * c[m];
        const float f = x0 * s[m];
        v[2 * m] = a - b;
        v[2 * m + 1] = e + f;
      }
    }
  }
}

std::vector<int> rotateHalfToInterleaved(int d) {
  std::vector<int> order(static_cast<std::size_t>(d));
  for (int m = 0; m < d / 2; ++m) {
    order[static_cast<std::size_t>(2 * m)] = m;
    order[static_cast<std::size_t>(2 * m + 1)] = m + d / 2;
  }
  return order;
}

Matrix permuteRotateHalfRows(const Matrix& w, int heads, int d) {
  if (d <= 0 || d % 2 != 0 || w.rows() != static_cast<Eigen::Index>(heads) * d) {
    throw Error(ErrorCode::kInvalidArgument,
                "rotate-half permutation: a [" + std::to_string(w.rows()) + ", " +
                    std::to_string(w.cols()) + "] matrix is not " + std::to_string(heads) +
                    " heads of even width " + std::to_string(d));
  }
  const std::vector<int> order = rotateHalfToInterleaved(d);
  Matrix out(w.rows(), w.cols());
  for (int h = 0; h < heads; ++h) {
    for (int j = 0; j < d; ++j) {
      out.row(static_cast<Eigen::Index>(h) * d + j) =
          w.row(static_cast<Eigen::Index>(h) * d + order[static_cast<std::size_t>(j)]);
    }
  }
  return out;
}

namespace {

// The geometric sequence 2^(−8(h+1)/n), h in [0, n), for n a power of two.
void powerOfTwoSlopes(int n, std::vector<double>& out) {
  for (int h = 0; h < n; ++h) out.push_back(std::exp2(-8.0 * (h + 1) / n));
}

}  // namespace

std::vector<float> alibiSlopes(int heads) {
  if (heads < 1) throw Error(ErrorCode::kInvalidArgument, "ALiBi needs at least one head");
  int p = 1;
  while (p * 2 <= heads) p *= 2;
  std::vector<double> slopes;
  powerOfTwoSlopes(p, slopes);
  if (p < heads) {
    std::vector<double> doubled;
    powerOfTwoSlopes(2 * p, doubled);
    for (int k = 0; static_cast<int>(slopes.size()) < heads; k += 2) slopes.push_back(doubled[k]);
  }
  return std::vector<float>(slopes.begin(), slopes.end());
}

}  // namespace attnlab
