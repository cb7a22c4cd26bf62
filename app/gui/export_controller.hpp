#pragma once
/// \file export_controller.hpp
/// File → Export and the clipboard: the current head, every head (a model's every layer × head),
/// or the saturation plot as PNG, SVG or PDF at a chosen size, drawn offscreen by app/views
/// exactly as attention-lab-cli render draws it; the matrices as CSV or NPY.

#include <QObject>
#include <functional>

#include "views/export.hpp"
#include "views/picture_options.hpp"

class QWidget;

namespace attnlab::gui {

class AnalysisPanel;
class HeadsView;

/// Which picture an export or the clipboard gets.
enum class ExportTarget {
  kCurrentHead,  ///< The enlarged (or last selected) head.
  kAllHeads,     ///< Every head in one grid (a model's every layer × head when all are shown).
  kSaturation,   ///< The saturation curves with the current d_k marked.
};

/// Exports what the heads view and the analysis panel show.
class ExportController : public QObject {
  Q_OBJECT
 public:
  /// marker: the d_k marked on the saturation curves and whether the scaling is on.
  ExportController(QWidget* window, HeadsView& heads, AnalysisPanel& analysis,
                   std::function<std::pair<int, bool>()> marker, bool persist);

  /// Writes a picture to path (.png, .svg or .pdf by suffix) at size. Throws attnlab::Error (kIo,
  /// kInvalidArgument) or options::OptionError (a size above the limit).
  void exportImage(ExportTarget target, const QString& path, const views::ImageSize& size);
  /// The default size of a picture (fits the tokens, as the CLI's).
  views::ImageSize defaultSize(ExportTarget target) const;
  /// Writes the weights and scores as CSV (long form) or the weights as NPY ([h, n_q, n_k], or
  /// [n_q, n_k] for one head), by suffix; head < 0 = every head. A model's shown layers: CSV with
  /// a layer column, NPY [L, h, n, n] when every layer is shown. Throws attnlab::Error.
  void exportMatrices(const QString& path, int head);
  /// Renders a picture at its default size and puts it on the clipboard.
  void copyImage(ExportTarget target);
  /// A picture of the plot table (views/plots.hpp: entropy, histogram, head similarity, head
  /// roles) of the entry shown, drawn as `render --plot KIND` draws it; written to path at size.
  /// Throws as exportImage, and OptionError when the run does not hold what it draws.
  void exportPlot(views::PlotKind kind, const QString& path, const views::ImageSize& size);
  /// Writes what the heads view shows (every head; a model's every layer, pooled where the run
  /// is) as one interactive page (views/html_page.hpp) in `language` ("en" or "zh_CN"): the
  /// page `render --out FILE.html` writes. Returns its bytes. Throws options::OptionError (a page
  /// over views::kHtmlLimitBytes) and attnlab::Error (kIo, nothing to export).
  long long exportHtml(const QString& path, const QString& language);
  /// The dialogs behind File → Export.
  void askExportImage(ExportTarget target);
  void askExportPlot(views::PlotKind kind);
  void askExportMatrices();
  void askExportHtml(const QString& language);

 signals:
  /// A line for the status bar (translated), shown for `ms` milliseconds.
  void status(const QString& message, int ms);

 private:
  void draw(QCustomPlot& plot, ExportTarget target) const;
  /// The image export dialog (a file named `name`, `size`), then `write` with what was chosen;
  /// the outcome on the status bar, the folder remembered when persisting.
  void askAndWrite(const QString& name, const views::ImageSize& size,
                   const std::function<void(const QString&, const views::ImageSize&)>& write);

  QWidget* window_;
  HeadsView& heads_;
  AnalysisPanel& analysis_;
  std::function<std::pair<int, bool>()> marker_;
  bool persist_;
};

}  // namespace attnlab::gui
