#pragma once
/// \file views.hpp
/// Every picture at once, for code that draws several (the CLI's commands, the window's export):
/// one header per picture — picture.hpp (what they share), heatmap.hpp (heads, grids, the model
/// view), compare.hpp (differences, rollout), saturation_plot.hpp, analysis_plots.hpp,
/// head_similarity_plot.hpp, cost_plot.hpp, export.hpp. Include the one you draw.

#include "views/analysis_plots.hpp"
#include "views/compare.hpp"
#include "views/cost_plot.hpp"
#include "views/export.hpp"
#include "views/head_similarity_plot.hpp"
#include "views/heatmap.hpp"
#include "views/picture.hpp"
#include "views/saturation_plot.hpp"
