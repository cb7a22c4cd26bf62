/// \file heads_view.cpp
/// The grid of heads and the enlarged head: drawing (hover and clicks: heads_view_pointer.cpp).

#include "heads_view.hpp"

#include "views/intervention_plots.hpp"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>

#include "attnlab/error.hpp"
#include "comparison.hpp"
#include "render_scheduler.hpp"
#include "views/analysis_plots.hpp"
#include "views/head_roles_plot.hpp"
#include "views/heatmap_paint.hpp"
#include "views/text.hpp"
#include "views/token_text.hpp"

namespace attnlab::gui {
namespace {

QCustomPlot* newPlot(QWidget* parent, const char* name) {
  auto* plot = new QCustomPlot(parent);
  plot->setObjectName(QLatin1String(name));
  plot->setMouseTracking(true);
  plot->setMinimumSize(120, 120);  // room beside a lesson step's large analysis plot
  // Every draw replaces the plot's contents; no antialiasing on the colour maps keeps cells crisp.
  plot->setNotAntialiasedElements(QCP::aePlottables);
  plot->setAntialiasedElement(QCP::aeItems, true);
  return plot;
}

QString quoted(const QString& token) { return QStringLiteral("'%1'").arg(token); }


}  // namespace

views::RunLabel runLabel(const ResultPtr& result, int entry) {
  const ComputeResult& r = *result;
  // A translator's title as the CLI draws it (its name, its output, the attention shown).
  if (r.translator)
    return views::mapsOf(result, std::nullopt, entry >= 0 ? std::optional<int>(entry) : std::nullopt).label;
  views::RunLabel label{r.spec, r.run.cross, {}, std::nullopt, {}, {}};
  if (!r.model) {
    label.facts = views::syntheticFacts(r.spec);
    label.pad_tokens = r.run.pad_tokens;
    return label;
  }
  label.model = r.model->name;
  if (r.model_run) label.facts = views::modelFacts(*r.model_run, r.model->config);
  if (entry >= 0) label.layer = r.layerIndices().at(static_cast<std::size_t>(entry));
  if (r.special_hidden) label.note = views::viewText("special tokens hidden (weights not renormalised)");
  if (r.settings.int8_activations) label.note = views::withInt8Note(label.note);
  label.note = views::withInterventionNotes(r, label.note);  // --ablate, --value-weighted
  return label;
}

HeadsView::HeadsView(RenderScheduler& scheduler, QWidget* parent)
    : QStackedWidget(parent), scheduler_(scheduler) {
  auto* grid_page = new QWidget;
  auto* grid_layout = new QVBoxLayout(grid_page);
  grid_layout->setContentsMargins(0, 0, 0, 0);
  grid_note_ = new QLabel;
  grid_note_->setObjectName(QStringLiteral("gridNote"));
  grid_note_->setWordWrap(true);
  // The grid scrolls only in the model view, when its layers would make thumbnails too small.
  grid_scroll_ = new QScrollArea;
  grid_scroll_->setObjectName(QStringLiteral("gridScroll"));
  grid_scroll_->setFrameShape(QFrame::NoFrame);
  grid_scroll_->setWidgetResizable(true);
  grid_scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // see drawGrid
  grid_plot_ = newPlot(grid_scroll_, "gridPlot");
  grid_scroll_->setWidget(grid_plot_);
  grid_layout->addWidget(grid_note_);
  grid_layout->addWidget(grid_scroll_, 1);
  addWidget(grid_page);

  auto* head_page = new QWidget;
  auto* head_layout = new QVBoxLayout(head_page);
  head_layout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  back_button_ = new QPushButton;
  head_note_ = new QLabel;
  head_note_->setWordWrap(true);
  bar->addWidget(back_button_);
  bar->addWidget(head_note_, 1);
  head_layout->addLayout(bar);
  head_splitter_ = new QSplitter(Qt::Horizontal);
  head_plot_ = newPlot(head_splitter_, "headPlot");
  row_plot_ = newPlot(head_splitter_, "rowPlot");
  head_splitter_->addWidget(head_plot_);
  head_splitter_->addWidget(row_plot_);
  head_splitter_->setStretchFactor(0, 3);
  head_splitter_->setStretchFactor(1, 1);
  head_layout->addWidget(head_splitter_, 1);
  addWidget(head_page);

  connect(back_button_, &QPushButton::clicked, this, &HeadsView::showGrid);
  for (QCustomPlot* plot : {grid_plot_, head_plot_, row_plot_}) plot->installEventFilter(this);
  grid_scroll_->installEventFilter(this);  // the model view's plot keeps its size: the area's counts
  // Belt and braces: a heatmap replotted at another size than it was laid out for (a resize the
  // filter did not see, e.g. of a hidden page) is laid out again.
  for (QCustomPlot* plot : {grid_plot_, head_plot_}) {
    connect(plot, &QCustomPlot::afterReplot, this, [this, plot] {
      const QSize canvas = views::heatmapCanvas(*plot);
      if (!shown_ || !canvas.isValid() || canvas == plot->size() || !plot->isVisible()) return;
      if (plot == grid_plot_ && grid_scrolls_) return;  // laid out for the scroll area (drawGrid)
      (plot == grid_plot_ ? grid_dirty_ : head_dirty_) = true;
      scheduler_.requestRender();
    });
  }
  for (QCustomPlot* plot : {grid_plot_, head_plot_}) {
    connect(plot, &QCustomPlot::mousePress, this, [this, plot](QMouseEvent* e) { onClick(plot, e); });
    connect(plot, &QCustomPlot::mouseMove, this, [this, plot](QMouseEvent* e) { onHover(plot, e); });
  }
  retranslate();
}

bool HeadsView::eventFilter(QObject* watched, QEvent* event) {
  // The layout depends on the widget's size: lay out again after a resize.
  if (event->type() == QEvent::Resize && shown_) {
    // The model view's plot resized by drawGrid to the picture it has just drawn needs no other.
    const bool own = watched == grid_plot_ && grid_scrolls_ &&
                     static_cast<QResizeEvent*>(event)->size() == views::heatmapCanvas(*grid_plot_);
    if ((watched == grid_plot_ && !own) || watched == grid_scroll_) grid_dirty_ = true;
    if (watched == head_plot_ || watched == row_plot_) head_dirty_ = true;
    scheduler_.requestRender();
  }
  return QStackedWidget::eventFilter(watched, event);
}

void HeadsView::setResult(ResultPtr result) {
  const auto kind = [](const ComputeResult& r) { return !r.model ? 0 : r.settings.layer ? 1 : 2; };
  const bool kind_changed = shown_ && kind(*shown_) != kind(*result);
  shown_ = std::move(result);
  const AttentionResult& first = shown_->attention(0);
  if (selected_head_ >= first.heads()) selected_head_ = 0;
  if (enlarged_head_ >= first.heads()) enlarged_head_ = 0;
  if (enlarged_entry_ >= shown_->entries()) enlarged_entry_ = 0;
  if (selected_row_ >= first.nQ()) selected_row_ = -1;
  if (kind_changed && currentIndex() == 1 && font_scale_ == 1.0) {
    // Another kind of grid (e.g. one layer → every layer): start from its overview.
    enlarged_head_ = -1;
    setCurrentIndex(0);
  }
  grid_dirty_ = head_dirty_ = true;
}

void HeadsView::setPicture(const views::PictureOptions& picture) {
  if (picture == picture_) return;
  picture_ = picture;
  invalidate();
}

void HeadsView::setHeadRole(std::optional<HeadRole> role) {
  if (role == head_role_) return;
  head_role_ = role;
  scroll_to_role_ = role.has_value();
  invalidate();
}

void HeadsView::setFontScale(double scale) {
  font_scale_ = scale;
  for (QCustomPlot* plot : {grid_plot_, head_plot_, row_plot_}) views::setFontScale(*plot, scale);
  invalidate();
}

void HeadsView::setComparison(CompareController* compare) {
  compare_ = compare;
  invalidate();
}

bool HeadsView::drawComparison(QCustomPlot* plot, bool enlarged, QString* note) {
  comparison_failed_ = false;
  if (!compare_ || !compare_->active()) return false;
  if (!compare_->error().empty()) {
    *note = tr("Cannot compare with %1: %2").arg(compare_->options(), compare_->error().translated());
    return false;
  }
  if (!compare_->matches(shown_->settings)) {
    *note = tr("Computing the comparison with %1…").arg(compare_->options());
    return false;
  }
  std::optional<int> entry, head_a, head_b = compare_->headB();
  if (enlarged) {
    if (modelView()) entry = focusEntry();
    head_a = std::clamp(enlarged_head_, 0, shown_->attention(focusEntry()).heads() - 1);
    if (!head_b) head_b = head_a;
  }
  try {
    const views::RunMaps a = mapsOf(shown_, head_a, entry);
    const views::RunMaps b = mapsOf(compare_->result(), head_b, entry);
    const views::DifferenceMaps d = views::difference(a, b);
    views::drawDifference(*plot, d, picture_.pool);
    const WeightDifference& largest = d.layers[static_cast<std::size_t>(d.max_layer)];
    *note = tr("Difference A − B: A is the current setting, B the same with %1 · red: A gives more weight, "
               "blue: B does · max |Δ| = %2")
                .arg(compare_->options())
                .arg(largest.max_abs, 0, 'f', 3);
    return true;
  } catch (const options::OptionError& e) {
    *note = tr("Cannot compare with %1: %2").arg(compare_->options(), e.message().translated());
  } catch (const Error& e) {
    *note = tr("Cannot compare with %1: %2").arg(compare_->options(), QString::fromStdString(e.what()));
  }
  comparison_failed_ = true;
  return false;
}

void HeadsView::drawRollout() {
  views::PictureTitle title;
  title.replace = views::rolloutTitle(shown_->model->name, 0, shown_->rollout->last);
  if (shown_->special_hidden) title.replace << views::viewText("special tokens hidden (weights not renormalised)");
  title.bar_title = views::viewText("rollout weight");
  views::setPictureTitle(*grid_plot_, title);
  views::drawHeatmap(*grid_plot_, shown_->rollout->result, 0, shown_->query_tokens, shown_->key_tokens,
                     runLabel(shown_, -1), picture_);
  views::setPictureTitle(*grid_plot_, {});
}

void HeadsView::invalidate() {
  grid_dirty_ = head_dirty_ = grid_force_ = head_force_ = true;
  scheduler_.requestRender();
}

void HeadsView::redraw() {
  if (!shown_) return;
  if (currentIndex() == 0 && grid_dirty_) drawGrid();
  if (currentIndex() == 1 && head_dirty_) drawHead();
}

QString HeadsView::hiddenNote() const {
  return shown_ && shown_->special_hidden
             ? tr("special tokens hidden — weights not renormalised (rows may sum to less than 1)")
             : QString();
}

void HeadsView::drawGrid() {
  grid_dirty_ = false;
  // Every grid but the model view fits the panel.
  grid_scrolls_ = false;
  grid_scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  views::setCanvasSize(*grid_plot_, QSize());
  views::setMinThumbnail(*grid_plot_, 0);
  views::setMinCell(*grid_plot_, 0);
  const bool force = std::exchange(grid_force_, false);
  bool replotted = false;  // the model view's plot replotted itself (resized)
  const AttentionResult& first = shown_->attention(0);
  QString note;
  difference_shown_ = false;
  QString compare_note;
  if (drawComparison(grid_plot_, false, &compare_note)) {
    publishPlan(nullptr);
    if (!grid_scroll_->widgetResizable()) grid_scroll_->setWidgetResizable(true);  // fits the panel
    difference_shown_ = true;
    grid_force_ = true;  // back to A: a full draw
    grid_note_->setText(compare_note);
    scheduler_.queueReplot(grid_plot_);
    return;
  }
  if (shown_->rollout || modelView()) publishPlan(nullptr);
  if (shown_->rollout) {
    drawRollout();
    grid_force_ = true;
    note = tr("Attention rollout (Abnar & Zuidema 2020) of %1 through layer %2: how much each input token "
              "(column) reaches each position (row), the heads of each layer averaged · hover a cell for its value")
               .arg(shown_->model->name)
               .arg(shown_->rollout->last);
  } else if (modelView()) {
    // Laid out for the scroll area's width and grown downward when the thumbnails need it; the
    // plot is then exactly the picture's size (the scroll area no longer sizes it).
    const QSize canvas = scrollCanvas();
    views::setCanvasSize(*grid_plot_, canvas);
    views::setMinThumbnail(*grid_plot_, kMinThumbnailPx * font_scale_);
    grid_scrolls_ = true;
    views::drawModelView(*grid_plot_, *shown_, runLabel(shown_, -1), picture_);
    if (head_role_ && shown_->head_roles)
      views::markHeadRoles(*grid_plot_, *shown_->head_roles, *head_role_, views::modelViewLayers(*shown_));
    replotted = fitScrolled(canvas);
    // After the scroll area has laid out its bars for the new picture (a posted layout request).
    if (scroll_to_role_ && head_role_ && shown_->head_roles)
      QMetaObject::invokeMethod(this, [this] {
        if (scroll_to_role_ && shown_ && head_role_ && shown_->head_roles && modelView()) scrollToTopHead();
      }, Qt::QueuedConnection);
    note = shown_->translator
               ? tr("%1 · %2 layers × %3 heads · %4 × %5 characters · each thumbnail: rows are the outputs, "
                    "columns the source · click one to enlarge it")
                     .arg(shown_->translator->info->name)
                     .arg(shown_->entries())
                     .arg(first.heads())
                     .arg(first.nQ())
                     .arg(first.nK())
           : shown_->pooled()
               ? tr("%1 · %2 layers × %3 heads · %4 tokens, each layer kept as the max and mean of %5 × %5-token "
                    "blocks (in full they would pass the memory budget) · hover a cell for its max and "
                    "mean, click a layer to compute it in full")
                     .arg(shown_->model->name)
                     .arg(shown_->overview->layers.size())
                     .arg(first.heads())
                     .arg(first.nQ())
                     .arg(shown_->overview->block)
               : tr("%1 · %2 layers × %3 heads · %4 tokens · each thumbnail: rows are queries, columns "
                    "are keys · click one to enlarge it")
                     .arg(shown_->model->name)
                     .arg(shown_->entries())
                     .arg(first.heads())
                     .arg(first.nQ());
    if (head_role_ && shown_->head_roles) {
      note += QStringLiteral(" · ") +
              tr("badges: each head's %1 score (0–1; framed from 0.5, thickest: the top head)")
                  .arg(views::headRoleText(*head_role_));
    }
  } else {
    // Up to kProjectorTokens tokens, cells of kProjectorCellPx where the width allows them: the
    // grid in fewer columns, scrolling downward.
    const bool readable = std::max(first.nQ(), first.nK()) <= kProjectorTokens;
    const QSize canvas = readable ? scrollCanvas() : QSize();
    views::setCanvasSize(*grid_plot_, canvas);
    views::setMinCell(*grid_plot_, readable ? kProjectorCellPx * font_scale_ : 0);
    grid_scrolls_ = readable;
    // Same layout (only d_k, scaling, temperature or seed changed): refill the cells in place
    // and replot only them and the title.
    grid_part_ = RenderScheduler::Part::kCells;
    if (force || !views::updateWeights(*grid_plot_, first, -1, shown_->query_tokens, shown_->key_tokens,
                                       runLabel(shown_, 0), picture_, shown_->ready_maps.get())) {
      views::drawHeadGrid(*grid_plot_, first, shown_->query_tokens, shown_->key_tokens,
                          runLabel(shown_, 0), picture_);
      grid_part_ = RenderScheduler::Part::kAll;
    }
    if (readable && fitScrolled(canvas)) replotted = true;
    publishPlan(views::mapPlan(*grid_plot_, -1));
    const int block = views::heatmapBlock(*grid_plot_);
    note = block > 1
               ? tr("Overview: %1 query tokens × %2 key tokens in blocks of %3 × %3 — hover a cell "
                    "to read its tokens, click a head to enlarge it.")
                     .arg(first.nQ())
                     .arg(first.nK())
                     .arg(block)
           : shown_->translator
               ? tr("%1 · %2 output × %3 source characters · rows are the characters written, columns the "
                    "source · hover a cell for its weight, click a head to enlarge it")
                     .arg(shown_->translator->info->name)
                     .arg(first.nQ())
                     .arg(first.nK())
               : tr("%1 query tokens × %2 key tokens · rows are queries, columns are keys · hover "
                    "a cell for its weight, click a head to enlarge it")
                     .arg(first.nQ())
                     .arg(first.nK());
  }
  if (!grid_scrolls_ && !grid_scroll_->widgetResizable()) grid_scroll_->setWidgetResizable(true);  // the panel's size
  if (const QString hidden = hiddenNote(); !hidden.isEmpty()) note += QStringLiteral(" · ") + hidden;
  if (!compare_note.isEmpty()) note = compare_note + QStringLiteral(" · ") + note;
  grid_note_->setText(note);
  if (revealed_rows_ >= 0 || !grid_covers_.isEmpty()) grid_part_ = RenderScheduler::Part::kAll;
  const bool covered = !grid_covers_.isEmpty();
  applyReveal(grid_plot_, gridMaps());
  if (replotted && !covered && grid_covers_.isEmpty()) {
    grid_part_ = RenderScheduler::Part::kAll;
    return;  // on screen already
  }
  scheduler_.queueReplot(grid_plot_, std::exchange(grid_part_, RenderScheduler::Part::kAll));
}

void HeadsView::drawHead() {
  head_dirty_ = false;
  const bool force = std::exchange(head_force_, false);
  const int entry = focusEntry();
  const AttentionResult& r = shown_->attention(entry);
  const int head = std::clamp(enlarged_head_, 0, r.heads() - 1);
  QString note = layered()
                     ? tr("Layer %1 · head %2 of %3 · click a row (query) to see its softmax over the keys")
                           .arg(focusLayer())
                           .arg(head)
                           .arg(r.heads())
                     : tr("Head %1 of %2 · click a row (query) to see its softmax over the keys")
                           .arg(head)
                           .arg(r.heads());
  if (const QString hidden = hiddenNote(); !hidden.isEmpty()) note += QStringLiteral(" · ") + hidden;
  head_note_->setText(note);
  back_button_->setText(modelView() ? tr("← All layers") : tr("← All heads"));
  QString compare_note;
  difference_shown_ = false;
  if (drawComparison(head_plot_, true, &compare_note)) {
    publishPlan(nullptr);
    difference_shown_ = true;
    head_force_ = true;
    head_note_->setText(compare_note);
    applyRowHighlight();
    scheduler_.queueReplot(head_plot_);
    drawRow();
    return;
  }
  if (!compare_note.isEmpty()) head_note_->setText(compare_note + QStringLiteral(" · ") + note);
  RenderScheduler::Part part = RenderScheduler::Part::kCells;
  // The worker fills entry 0's maps (ComputeResult::ready_maps).
  const views::ReadyMaps* ready = entry == 0 ? shown_->ready_maps.get() : nullptr;
  if (force || !views::updateWeights(*head_plot_, r, head, shown_->query_tokens, shown_->key_tokens,
                                     runLabel(shown_, entry), picture_, ready)) {
    views::drawHeatmap(*head_plot_, r, head, shown_->query_tokens, shown_->key_tokens,
                       runLabel(shown_, entry), picture_);
    applyRowHighlight();
    part = RenderScheduler::Part::kAll;
  }
  publishPlan(entry == 0 ? views::mapPlan(*head_plot_, head) : nullptr);
  if (revealed_rows_ >= 0 || !head_covers_.isEmpty()) {
    applyReveal(head_plot_, shown_->model ? 0 : 1);  // a translator's rows are revealed too
    part = RenderScheduler::Part::kAll;
  }
  scheduler_.queueReplot(head_plot_, part);
  drawRow();
}

void HeadsView::drawRow() {
  const AttentionResult& r = shown_->attention(focusEntry());
  const int head = std::clamp(enlarged_head_, 0, r.heads() - 1);
  const QString title = selected_row_ < 0 || selected_row_ >= r.nQ()
                            ? tr("Click a row to see its softmax")
                            : tr("query %1 %2: softmax over keys")
                                  .arg(selected_row_)
                                  .arg(quoted(shown_->query_tokens.value(selected_row_)));
  // The softmax panel only once a row is chosen: the head has the width until then (its note
  // says to click a row).
  const bool chosen = selected_row_ >= 0 && selected_row_ < r.nQ();
  if (row_plot_->isVisibleTo(this) != chosen) {
    row_plot_->setVisible(chosen);
    head_dirty_ = true;
    scheduler_.requestRender();
  }
  views::drawRowSoftmax(*row_plot_, r, head, selected_row_, shown_->key_tokens, title);
  scheduler_.queueReplot(row_plot_);
}

void HeadsView::setRevealedRows(int rows) {
  if (rows == revealed_rows_) return;
  revealed_rows_ = rows;
  if (!shown_) return;
  if (currentIndex() == 0 && !difference_shown_) {
    applyReveal(grid_plot_, gridMaps());
    scheduler_.queueReplot(grid_plot_);
  } else if (currentIndex() == 1 && !difference_shown_) {
    applyReveal(head_plot_, shown_->model ? 0 : 1);  // a translator's rows are revealed too
    scheduler_.queueReplot(head_plot_);
  }
}

void HeadsView::applyReveal(QCustomPlot* plot, int maps) {
  QList<QPointer<QCPItemRect>>& covers = plot == grid_plot_ ? grid_covers_ : head_covers_;
  for (const QPointer<QCPItemRect>& item : covers)
    if (item) plot->removeItem(item.data());
  covers.clear();
  if (revealed_rows_ < 0 || !shown_) return;
  const int n_q = shown_->attention(0).nQ();
  if (revealed_rows_ >= n_q) return;
  for (int map = 0; map < maps; ++map) {
    // From the first row not decoded yet (its block row's top in an overview) to the last row.
    const QRectF first = views::rowRect(*plot, map, revealed_rows_);
    const QRectF last = views::rowRect(*plot, map, n_q - 1);
    if (first.isEmpty() || last.isEmpty()) continue;
    auto* item = new QCPItemRect(plot);
    item->setClipToAxisRect(false);
    item->topLeft->setType(QCPItemPosition::ptAbsolute);
    item->bottomRight->setType(QCPItemPosition::ptAbsolute);
    item->topLeft->setCoords(first.topLeft());
    item->bottomRight->setCoords(last.bottomRight());
    item->setPen(QPen(QColor(0x99, 0x99, 0x99), 1.0, Qt::DashLine));
    item->setBrush(QColor(0xf4, 0xf4, 0xf4));
    item->setSelectable(false);
    covers.push_back(item);
  }
}

void HeadsView::applyRowHighlight() {
  if (row_highlight_) head_plot_->removeItem(row_highlight_.data());
  row_highlight_.clear();
  const QRectF rect = views::rowRect(*head_plot_, 0, selected_row_);
  if (rect.isEmpty()) return;
  auto* item = new QCPItemRect(head_plot_);
  item->setClipToAxisRect(false);
  item->topLeft->setType(QCPItemPosition::ptAbsolute);
  item->bottomRight->setType(QCPItemPosition::ptAbsolute);
  item->topLeft->setCoords(rect.topLeft());
  item->bottomRight->setCoords(rect.bottomRight());
  item->setPen(QPen(QColor(0xe6, 0x00, 0x4c), 3.0));
  item->setBrush(Qt::NoBrush);
  item->setSelectable(false);
  row_highlight_ = item;
}

int HeadsView::gridMaps() const {
  const int heads = shown_->attention(0).heads();
  if (shown_->rollout) return 0;
  // A translator's model view reveals its output rows in every thumbnail (layers × heads).
  if (modelView()) return shown_->translator ? shown_->entries() * heads : 0;
  return heads;
}

bool HeadsView::layered() const { return shown_ && (shown_->model || shown_->translator); }

bool HeadsView::modelView() const {
  if (!shown_ || shown_->settings.layer) return false;
  // A translator with one attention (additive) is one head: its grid, not a model view.
  return shown_->model || (shown_->translator && shown_->entries() > 1);
}

int HeadsView::enlargedHead() const { return currentIndex() == 1 ? enlarged_head_ : -1; }

int HeadsView::focusEntry() const {
  if (!shown_) return 0;
  if (modelView() && currentIndex() == 1) return std::clamp(enlarged_entry_, 0, shown_->entries() - 1);
  return 0;
}

int HeadsView::focusLayer() const {
  if (!layered()) return -1;
  return shown_->layerIndices().at(static_cast<std::size_t>(focusEntry()));
}

int HeadsView::enlargedLayer() const {
  if (!layered() || currentIndex() != 1 || enlarged_head_ < 0) return -1;
  return focusLayer();
}

void HeadsView::enlargeHead(int head) {
  if (!shown_ || head < 0 || head >= shown_->attention(0).heads()) return;
  const int focus = focusLayer();
  enlarged_head_ = head;
  selected_head_ = head;
  setCurrentIndex(1);
  head_dirty_ = head_force_ = true;
  drawHead();
  if (focusLayer() != focus) emit focusChanged();
}

void HeadsView::enlargeLayerHead(int layer, int head) {
  if (!layered()) return;
  const std::vector<int>& indices = shown_->layerIndices();
  const auto it = std::find(indices.begin(), indices.end(), layer);
  if (it == indices.end()) return;
  const int focus = focusLayer();
  enlarged_entry_ = static_cast<int>(it - indices.begin());
  enlargeHead(head);
  if (focusLayer() != focus) emit focusChanged();
}

void HeadsView::showGrid() {
  const int focus = focusLayer();
  enlarged_head_ = -1;
  setCurrentIndex(0);
  if (shown_ && grid_dirty_) drawGrid();
  if (focusLayer() != focus) emit focusChanged();
}

void HeadsView::selectRow(int row) {
  if (!shown_ || row < 0 || row >= shown_->attention(0).nQ()) return;
  selected_row_ = row;
  if (currentIndex() != 1) {
    enlargeHead(std::max(0, selected_head_));
    return;
  }
  applyRowHighlight();
  scheduler_.queueReplot(head_plot_);
  drawRow();
}

void HeadsView::scrollToTopHead() {
  scroll_to_role_ = false;
  const std::vector<HeadScore> top = shown_->head_roles->top(*head_role_, 1);
  if (top.empty()) return;
  const std::vector<int>& layers = views::modelViewLayers(*shown_);
  const auto entry = std::find(layers.begin(), layers.end(), top.front().layer);
  const views::HeatmapDecor* decor = views::decorOf(*grid_plot_);
  const int heads = shown_->attention(0).heads();
  const std::size_t map = static_cast<std::size_t>((entry - layers.begin()) * heads + top.front().head);
  if (entry == layers.end() || !decor || map >= decor->layout().maps.size()) return;
  const QRectF cells = decor->layout().maps[map].cells;  // plot pixels = the scrolled widget's
  // The thumbnail with its headers and badge in view (QScrollArea::ensureVisible: a point and margins).
  grid_scroll_->ensureVisible(static_cast<int>(cells.center().x()), static_cast<int>(cells.center().y()),
                              static_cast<int>(cells.width()), static_cast<int>(cells.height()));
}

void HeadsView::publishPlan(std::shared_ptr<const views::MapPlan> plan) {
  if (plan == plan_ || (plan && plan_ && views::sameCells(*plan, *plan_))) return;
  plan_ = std::move(plan);
  emit mapPlanChanged(plan_);
}

QString HeadsView::gridNote() const { return grid_note_->text(); }

void HeadsView::retranslate() {
  back_button_->setText(modelView() ? tr("← All layers") : tr("← All heads"));
  invalidate();
}

}  // namespace attnlab::gui
