#pragma once
/// \file heads_view.hpp
/// The heads: every head in a grid (a model's layers × heads as thumbnails), or one head enlarged
/// beside the softmax of a selected query row. Draws with app/views (the CLI's code), lays out
/// again when the widget changes size, names both tokens of the cell under the mouse, and
/// enlarges the head (or layer and head) that is clicked.

#include <QPointer>
#include <QStackedWidget>

#include "attnlab/head_roles.hpp"
#include "compute_worker.hpp"
#include "render_scheduler.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "views/picture.hpp"
#include "views/ready_maps.hpp"

class QCPItemRect;
class QCustomPlot;
class QLabel;
class QMouseEvent;
class QPushButton;
class QScrollArea;
class QSplitter;

namespace attnlab::gui {

class CompareController;

/// The model view's smallest thumbnail in the window, px (at font scale 1): below it the layers
/// scroll instead of shrinking.
inline constexpr double kMinThumbnailPx = 48;

/// Up to this many tokens the grid of heads keeps cells of kProjectorCellPx (at font scale 1)
/// where the panel's width allows them, scrolling downward: labels and cells read on a projector
/// at 1280 × 720 (issue 50).
inline constexpr int kProjectorTokens = 16;
inline constexpr double kProjectorCellPx = 20;

/// The title words of entry `entry` of a result (a model layer: its name and layer; entry < 0:
/// the model view's, without a layer).
views::RunLabel runLabel(const ResultPtr& result, int entry);

/// The grid page and the enlarged-head page.
class HeadsView : public QStackedWidget {
  Q_OBJECT
 public:
  HeadsView(RenderScheduler& scheduler, QWidget* parent = nullptr);

  /// A new result to show (drawn on the next redraw()).
  void setResult(ResultPtr result);
  ResultPtr result() const { return shown_; }
  /// Colour scale and pooling of every map.
  void setPicture(const views::PictureOptions& picture);
  views::PictureOptions picture() const { return picture_; }
  /// The role the model view badges its thumbnails by (views::markHeadRoles), when the result
  /// carries head roles (settings.head_roles); none: no badges. A role newly chosen scrolls the
  /// model view to its top head once the roles are drawn.
  void setHeadRole(std::optional<HeadRole> role);
  std::optional<HeadRole> headRole() const { return head_role_; }
  /// Presentation mode: large fonts.
  void setFontScale(double scale);
  /// "Compare with…": while compare is active and has B for the shown setting, the maps show
  /// A − B (the grid: every head or layer; the enlarged head: that head, or OPTIONS' --head).
  void setComparison(CompareController* compare);
  /// True when the visible page shows a difference A − B.
  bool showsDifference() const { return difference_shown_; }
  /// True when B is there but A − B cannot be drawn (other tokens, other heads); the note says why.
  bool comparisonFailed() const { return comparison_failed_; }
  /// Draws the visible page where something changed (new result, size, options).
  void redraw();
  /// Draws everything again at the next redraw() (language, options).
  void invalidate();

  /// Decoding step mode (DecodePanel): only the first `rows` query rows of each map are shown,
  /// the rest covered as not decoded yet; −1 shows every row. The synthetic lab's grid and the
  /// enlarged head only (a model view, a rollout or a difference shows every row).
  void setRevealedRows(int rows);
  int revealedRows() const { return revealed_rows_; }

  void enlargeHead(int head);
  /// Model view: enlarges head `head` of model layer `layer`; ignored when that layer is not shown.
  void enlargeLayerHead(int layer, int head);
  void showGrid();
  void selectRow(int row);
  int enlargedHead() const;
  int selectedHead() const { return selected_head_; }
  int selectedRow() const { return selected_row_; }
  /// Index into the result's entries of the layer in focus (0 in the synthetic lab).
  int focusEntry() const;
  /// The model layer in focus, or −1 in the synthetic lab.
  int focusLayer() const;
  /// The model layer of the enlarged head, or −1.
  int enlargedLayer() const;
  /// True when the grid page shows a model's layers × heads.
  bool modelView() const;
  /// The result on screen has layers (a model's or a translator's).
  bool layered() const;
  /// The maps of the grid page whose rows the decoding dock reveals.
  int gridMaps() const;

  /// The line above the grid.
  QString gridNote() const;
  /// "head 2 · query 7 'it' → key 1 'cat': weight 0.4121, score 1.83" (a model: with the layer).
  QString cellText(int entry, int head, int query, int key) const;
  /// A pooled model view's cell under the mouse (entry: the layer's place in results::Overview::layers):
  /// "layer 3 · head 2 · queries 32–47 → keys 0–15: max weight 0.4121, mean 0.0132 over 256
  /// visible pairs", at the block the view draws.
  QString pooledCellText(int entry, int head, int query, int key) const;

  void retranslate();

  QCustomPlot* gridPlot() const { return grid_plot_; }
  QCustomPlot* headPlot() const { return head_plot_; }
  QCustomPlot* rowPlot() const { return row_plot_; }

 signals:
  /// The layer (entry) the side panels should follow changed.
  void focusChanged();
  /// A pooled model view's layer was clicked: the window runs that layer in full (--layer).
  void layerRequested(int layer);
  /// A head of the model view was chosen for ablation (its context menu, or Ctrl+click): the
  /// window toggles it (the Interventions dock).
  void ablationRequested(int layer, int head);
  /// The maps on the visible page that the compute worker can fill for the next result
  /// (views::mapPlan: the synthetic lab's grid, an enlarged head of entry 0), or null for a
  /// picture it cannot (a model view, a rollout, a difference).
  void mapPlanChanged(std::shared_ptr<const views::MapPlan> plan);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void drawGrid();
  /// The canvas a scrolling grid is laid out for: the scroll area's viewport less its scroll bar.
  QSize scrollCanvas() const;  // heads_view_scroll.cpp
  /// Shows the picture drawn for `canvas` at its own size in the scroll area (scroll bars as it
  /// needs); true when resizing the plot replotted it.
  bool fitScrolled(const QSize& canvas);
  void drawHead();
  void drawRow();
  void applyRowHighlight();
  /// Draws A − B on plot (the enlarged head when `enlarged`); false when there is none to draw
  /// (not comparing, B still computing, OPTIONS that do not apply: *note says which).
  bool drawComparison(QCustomPlot* plot, bool enlarged, QString* note);
  /// The attention rollout on the grid page (settings.rollout with a model).
  void drawRollout();
  void onClick(QCustomPlot* plot, QMouseEvent* event);
  void onHover(QCustomPlot* plot, QMouseEvent* event);
  /// (entry, head, query, key) under pos.
  std::optional<std::tuple<int, int, int, int>> cellAt(QCustomPlot* plot, const QPointF& pos) const;
  QString hiddenNote() const;
  /// Emits mapPlanChanged when plan fills other cells than the last one published.
  void publishPlan(std::shared_ptr<const views::MapPlan> plan);
  std::shared_ptr<const views::MapPlan> plan_;

  RenderScheduler& scheduler_;
  ResultPtr shown_;
  views::PictureOptions picture_;
  std::optional<HeadRole> head_role_;
  bool scroll_to_role_ = false;  ///< Scroll the model view to the role's top head when drawn.
  /// Scrolls the model view's layers so that the thumbnail of the role's top head is in view.
  void scrollToTopHead();
  double font_scale_ = 1.0;
  bool grid_dirty_ = true, head_dirty_ = true;
  bool grid_force_ = true, head_force_ = true;
  RenderScheduler::Part grid_part_ = RenderScheduler::Part::kAll;  ///< Of the grid's next replot.
  int enlarged_head_ = -1;
  int enlarged_entry_ = 0;
  int selected_head_ = 0;
  int selected_row_ = -1;
  CompareController* compare_ = nullptr;
  bool difference_shown_ = false;
  bool comparison_failed_ = false;

  QLabel* grid_note_ = nullptr;
  /// Holds the grid; scrolls the model view's layers when its thumbnails would fall under
  /// kMinThumbnailPx, and a grid of heads whose cells would fall under kProjectorCellPx.
  QScrollArea* grid_scroll_ = nullptr;
  bool grid_scrolls_ = false;  ///< The grid is laid out for the scroll area (scrollCanvas).
  QCustomPlot* grid_plot_ = nullptr;
  QPushButton* back_button_ = nullptr;
  QLabel* head_note_ = nullptr;
  QSplitter* head_splitter_ = nullptr;
  QCustomPlot* head_plot_ = nullptr;
  QCustomPlot* row_plot_ = nullptr;
  QPointer<QCPItemRect> row_highlight_;
  /// Covers over the rows not decoded yet, per plot (grid, enlarged head).
  void applyReveal(QCustomPlot* plot, int maps);
  int revealed_rows_ = -1;
  QList<QPointer<QCPItemRect>> grid_covers_, head_covers_;
};

}  // namespace attnlab::gui
