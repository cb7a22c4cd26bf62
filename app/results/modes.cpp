/// \file modes.cpp
/// What the modes' results read from their own values (score.hpp).

#include <cmath>
#include <limits>

#include "results/score.hpp"

namespace attnlab::results {

double Scored::perplexity(int window, int sink_count) const {
  for (const TextScore& t : scored)
    if (t.cache.window == window && t.cache.sinks == sink_count) return t.perplexity;
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace attnlab::results
