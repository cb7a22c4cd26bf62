#pragma once
/// \file saturation.hpp
/// The result of the saturation mode (run::saturation): how softmax saturates as d_k grows, with
/// and without the 1/√d_k scale (attnlab/saturation.hpp) — Monte-Carlo curves and, for a text,
/// its own queries and keys. What `attention-lab-cli saturation`, the window's saturation panel
/// and the lessons' saturation numbers read.

#include <optional>

#include "attnlab/saturation.hpp"

namespace attnlab::results {

struct SaturationCurves {
  SaturationAnalysis monte_carlo;              ///< The Monte-Carlo curves.
  std::optional<SaturationAnalysis> sentence;  ///< The text's own points (when asked for).
  int mark = 0;                                ///< The d_k marked on the curves.
  bool scaled = true;                          ///< The marked setting divides by √d_k.
};

}  // namespace attnlab::results
