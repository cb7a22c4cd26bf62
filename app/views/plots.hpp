#pragma once
/// \file plots.hpp
/// The plot table: the pictures `render --plot KIND` and the window's File → Export → Picture draw
/// from a run besides its heatmaps, one row each — its kind (views::kPlotKinds names it), its
/// title, its default size, what it needs of the run and how it draws. A new picture is a row
/// here, its drawing in a file of its own and its kind in picture_options.hpp; --plot, --help,
/// the man page, the completion, the CLI's render and the window's menu follow from the table.

#include <QString>
#include <span>

#include "results/attention.hpp"
#include "views/export.hpp"
#include "views/picture_options.hpp"

class QCustomPlot;

namespace attnlab::views {

/// What a picture of the table draws from: a run, the entry (layer) shown and its analyses
/// (run::analyse, computed by the caller through the run library).
struct PlotInput {
  const results::Run& run;
  int entry = 0;
  const results::Analysis& analysis;
  /// Words the title ends with: " · all-MiniLM-L6-v2 · layer 3" (a model), " · dates-additive"
  /// (a translator), empty for the synthetic lab.
  QString what;
};

/// One picture of the table.
struct Plot {
  PlotKind kind;
  /// Its title, the source text of its window menu entry and of the picture's own title
  /// (context "attnlab::views", translated by viewText).
  const char* title;
  ImageSize (*size)(const PlotInput& input);  ///< The default image size.
  void (*draw)(QCustomPlot& plot, const PlotInput& input);
  /// True when the run holds what the picture draws (head roles need a model run with them).
  bool (*available)(const results::Run& run);
};

/// The pictures drawn from a run, in --plot order (the heatmaps and the training curves are
/// drawn elsewhere: the maps of run_maps.hpp, training_plot.hpp).
std::span<const Plot> plots();
/// The row of `kind`, or nullptr for kHeatmap and kTraining.
const Plot* plotOf(PlotKind kind);
/// The words a picture's title ends with for entry `entry` of run (PlotInput::what).
QString plotSubject(const results::Run& run, int entry);

}  // namespace attnlab::views
