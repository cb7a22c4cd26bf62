// RoPE tables and rotations (see positions.hpp).

#include "attnlab/positions.hpp"

#include <algorithm>
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

std::vector<float> ropeFrequencies(int d, double base, const RopeScaling& scaling) {
  std::vector<float> theta = ropeFrequencies(d, base);
  const std::size_t pairs = theta.size();
  if (scaling.freq_factors.size() == pairs) {
    for (std::size_t m = 0; m < pairs; ++m) theta[m] /= scaling.freq_factors[m];
  }
  const auto s = static_cast<float>(scaling.factor);
  switch (scaling.kind) {
    case RopeScaling::Kind::kNone:
      break;
    case RopeScaling::Kind::kLinear:
      for (float& t : theta) t /= s;
      break;
    case RopeScaling::Kind::kLlama3: {
      // transformers' _compute_llama3_parameters, in float32 like its tensors.
      const auto context = static_cast<float>(scaling.original_positions);
      const auto low = static_cast<float>(scaling.low_freq_factor);
      const auto high = static_cast<float>(scaling.high_freq_factor);
      const float low_wavelength = context / low;
      const float high_wavelength = context / high;
      const auto two_pi = static_cast<float>(2 * 3.14159265358979323846);
      for (float& t : theta) {
        const float wavelength = two_pi / t;
        if (wavelength > low_wavelength) {
          t /= s;
        } else if (!(wavelength < high_wavelength)) {
          const float a = (context / wavelength - low) / (high - low);
          t = (1 - a) * t / s + a * t;
        }
      }
      break;
    }
    case RopeScaling::Kind::kYarn: {
      // r(d') = d·ln(L / (2π·d')) / (2 ln base): the pair index that turns d' times in L tokens.
      const double context = scaling.original_positions;
      auto pair_of = [&](double rotations) {
        return d * std::log(context / (rotations * 2 * 3.14159265358979323846)) /
               (2 * std::log(base));
      };
      const double low = std::max(std::floor(pair_of(scaling.beta_fast)), 0.0);
      double high = std::min(std::ceil(pair_of(scaling.beta_slow)), static_cast<double>(d - 1));
      if (low == high) high += 0.001;  // one pair: a step rather than 0/0
      for (std::size_t m = 0; m < pairs; ++m) {
        const auto ramp = static_cast<float>(
            std::clamp((static_cast<double>(m) - low) / (high - low), 0.0, 1.0));
        const float keep = 1 - ramp;  // 1: extrapolate (fast pairs), 0: interpolate
        theta[m] = theta[m] / s * (1 - keep) + theta[m] * keep;
      }
      break;
    }
  }
  return theta;
}

std::string RopeScaling::describe() const {
  auto number = [](double v) {
    std::string t = std::to_string(v);
    t.erase(t.find_last_not_of('0') + 1);
    if (!t.empty() && t.back() == '.') t.pop_back();
    return t;
  };
  std::string out;
  switch (kind) {
    case Kind::kNone:
      break;
    case Kind::kLinear:
      out = "linear \u00d7" + number(factor);
      break;
    case Kind::kLlama3:
      out = "llama3 \u00d7" + number(factor) + " (context " +
            std::to_string(original_positions) + ")";
      break;
    case Kind::kYarn:
      out = "yarn \u00d7" + number(factor) + " (context " + std::to_string(original_positions) +
            ")";
      break;
  }
  if (!freq_factors.empty()) {
    out = (out.empty() ? "" : out + ", ") + "frequency factors (" +
          std::to_string(freq_factors.size()) + ")";
  }
  return out.empty() ? "none" : out;
}

RopeTable makeRopeTable(int n, int rotary_dims, double base, int first) {
  return makeRopeTable(n, rotary_dims, base, RopeScaling{}, first);
}

RopeTable makeRopeTable(int n, int rotary_dims, double base, const RopeScaling& scaling,
                        int first) {
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
  if (!scaling.freq_factors.empty() &&
      scaling.freq_factors.size() != static_cast<std::size_t>(pairs)) {
    throw Error(ErrorCode::kInvalidArgument,
                "RoPE frequency factors: " + std::to_string(scaling.freq_factors.size()) +
                    " values for " + std::to_string(pairs) + " pairs");
  }
  const std::vector<float> theta = ropeFrequencies(rotary_dims, base, scaling);
  const auto gain = static_cast<float>(scaling.attention_factor);
  table.cos.resize(static_cast<std::size_t>(n) * pairs);
  table.sin.resize(table.cos.size());
  for (int i = 0; i < n; ++i) {
    const auto p = static_cast<float>(first + i);
    for (int m = 0; m < pairs; ++m) {
      const float angle = p * theta[static_cast<std::size_t>(m)];
      const std::size_t k = static_cast<std::size_t>(i) * pairs + m;
      table.cos[k] = static_cast<float>(std::cos(static_cast<double>(angle)));
      table.sin[k] = static_cast<float>(std::sin(static_cast<double>(angle)));
      if (gain != 1.0f) {
        table.cos[k] *= gain;
        table.sin[k] *= gain;
      }
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
