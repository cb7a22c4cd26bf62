#include "attnlab/saturation.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "attnlab/synthetic.hpp"

namespace attnlab {

std::vector<int> defaultDkList() {
  std::vector<int> list;
  for (int d = 1; d <= 1024; d *= 2) list.push_back(d);
  return list;
}

namespace {

void checkDkList(const std::vector<int>& d_k_list) {
  if (d_k_list.empty()) throw Error(ErrorCode::kInvalidArgument, "the d_k list is empty");
  for (int d : d_k_list) {
    if (d < 1 || d > 16384) {
      std::ostringstream msg;
      msg << "d_k must be between 1 and 16384 (got " << d << ")";
      throw Error(ErrorCode::kInvalidArgument, msg.str());
    }
  }
}

// Running means of the row statistics for one d_k and one scaling.
struct Accumulator {
  double max_weight = 0, norm_entropy = 0, jacobian = 0;
  long long rows = 0;
  void add(const RowStats& s) {
    max_weight += s.max_weight;
    norm_entropy += s.normalized_entropy;
    jacobian += s.jacobian_norm;
    ++rows;
  }
  SaturationPoint point(int d_k, double variance) const {
    const double n = rows > 0 ? static_cast<double>(rows) : 1.0;
    return {d_k, variance, max_weight / n, norm_entropy / n, jacobian / n};
  }
};

// Mean and variance of a stream of values (Welford's algorithm).
struct Moments {
  long long n = 0;
  double mean = 0, m2 = 0;
  void add(double x) {
    ++n;
    const double d = x - mean;
    mean += d / n;
    m2 += d * (x - mean);
  }
  double variance() const { return n > 1 ? m2 / (n - 1) : 0.0; }
};

}  // namespace

int saturationSamples(int n_k) { return std::clamp(32000 / std::max(1, n_k), 32, 2000); }

SaturationAnalysis saturationMonteCarlo(const SaturationConfig& config) {
  checkDkList(config.d_k);
  if (config.n_k < 1 || config.n_k > 65536)
    throw Error(ErrorCode::kInvalidArgument, "n_k must be between 1 and 65536");
  if (config.samples < 2 || config.samples > 10'000'000)
    throw Error(ErrorCode::kInvalidArgument, "samples must be between 2 and 10000000");
  SaturationAnalysis out;
  out.n_k = config.n_k;
  const int n_k = config.n_k;
  std::vector<float> q, k, raw(n_k), scaled(n_k), p(n_k);
  for (int d_k : config.d_k) {
    Rng rng(hashSeed("saturation/d_k=" + std::to_string(d_k), config.seed));
    q.resize(d_k);
    k.resize(d_k);
    const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d_k)));
    Accumulator acc_scaled, acc_unscaled;
    Moments moments;
    for (int s = 0; s < config.samples; ++s) {
      for (float& x : q) x = static_cast<float>(rng.normal());
      for (int j = 0; j < n_k; ++j) {
        double dot = 0;
        for (int c = 0; c < d_k; ++c) dot += q[c] * rng.normal();
        raw[j] = static_cast<float>(dot);
        scaled[j] = scale * raw[j];
        moments.add(dot);
      }
      softmaxRow(raw.data(), p.data(), n_k, 0, n_k);
      acc_unscaled.add(rowStats(p.data(), n_k, n_k));
      softmaxRow(scaled.data(), p.data(), n_k, 0, n_k);
      acc_scaled.add(rowStats(p.data(), n_k, n_k));
    }
    out.scaled.push_back(acc_scaled.point(d_k, moments.variance()));
    out.unscaled.push_back(acc_unscaled.point(d_k, moments.variance()));
  }
  return out;
}

SaturationAnalysis saturationOfSentence(const AttentionSpec& spec, std::uint64_t seed,
                                        bool positions, const std::string& text,
                                        const std::optional<std::string>& source,
                                        const std::vector<int>& d_k_list) {
  checkDkList(d_k_list);
  SaturationAnalysis out;
  auto cpu = makeCpuBackend();
  for (int d_k : d_k_list) {
    AttentionSpec s = spec;
    s.d_k = d_k;
    s.d_v = 0;
    s.d_a = 0;
    s.temperature.reset();
    const SyntheticModel model(s, seed, positions);
    // Saturation is a property of dot-product scores: the sentence's own q·k, with and without
    // the 1/√d_k scale.
    s.mechanism = Mechanism::kDot;
    const LabRun unscaled = runSynthetic(model, s, text, source, *cpu);
    s.mechanism = Mechanism::kScaled;
    const LabRun scaled = runSynthetic(model, s, text, source, *cpu);
    out.n_k = unscaled.attention.nK();

    Moments moments;
    Accumulator acc[2];
    const LabRun* runs[2] = {&unscaled, &scaled};
    for (int which = 0; which < 2; ++which) {
      const AttentionResult& r = runs[which]->attention;
      const MaskPattern pattern = r.pattern();
      for (int h = 0; h < r.heads(); ++h) {
        for (int i = 0; i < r.nQ(); ++i) {
          const auto [lo, hi] = pattern.span(i, r.nK());
          const int visible = pattern.visibleCount(i, r.nK());
          if (visible < 2) continue;  // a row with one visible key is one-hot by construction
          acc[which].add(rowStats(r.weights.row(h, i), r.nK(), visible));
          if (which == 0)
            for (int j = lo; j < hi; ++j)
              if (pattern.visible(i, j)) moments.add(r.scores(h, i, j));
        }
      }
    }
    out.unscaled.push_back(acc[0].point(d_k, moments.variance()));
    out.scaled.push_back(acc[1].point(d_k, moments.variance()));
  }
  return out;
}

}  // namespace attnlab
