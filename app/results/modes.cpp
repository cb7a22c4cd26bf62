/// \file modes.cpp
/// What the modes' results compute from their own values (generation.hpp, score.hpp).

#include <cmath>
#include <limits>

#include "results/generation.hpp"
#include "results/score.hpp"

namespace attnlab::results {

std::pair<int, int> Generated::readableHead() const {
  std::pair<int, int> best{0, 0};
  if (!shown || !generation) return best;
  const auto n_p = static_cast<int>(generation->prompt.ids.size());
  double least = 2;
  const std::vector<AttentionResult>& grown = shown->layers();
  for (std::size_t li = 0; li < grown.size(); ++li) {
    const Tensor3& w = grown[li].weights;
    const int from = w.rows > n_p ? n_p : 1;
    for (int h = 0; h < w.h; ++h) {
      double mass = 0;
      for (int i = from; i < w.rows; ++i) mass += w(h, i, 0);
      mass /= std::max(w.rows - from, 1);
      if (mass < least) {
        least = mass;
        best = {static_cast<int>(li), h};
      }
    }
  }
  return best;
}

double Scored::perplexity(int window, int sink_count) const {
  for (const TextScore& t : scored)
    if (t.cache.window == window && t.cache.sinks == sink_count) return t.perplexity;
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace attnlab::results
