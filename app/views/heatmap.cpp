/// \file heatmap.cpp
/// Attention heatmaps: one head, or every head in a grid sharing one colour scale.
/// Rows are queries (top to bottom), columns are keys (left to right), cells are weights.

#include <qcustomplot.h>

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>
#include <string>

#include "attnlab/error.hpp"
#include "views/heatmap_paint.hpp"
#include "views/ready_maps.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "views/picture.hpp"

namespace attnlab::views {
namespace {

/// Weights are printed in the cells of maps up to this many tokens per side …
constexpr int kMaxAnnotatedTokens = 12;
/// … whose cells are at least this many pixels.
constexpr double kMinAnnotatedCellPx = 30;

/// Name of the plot property holding setCanvasSize's size.
constexpr char kCanvasProperty[] = "attnlabViewsCanvas";
/// Name of the plot property holding setMinCell's size.
constexpr char kMinCellProperty[] = "attnlabViewsMinCell";

bool onScreen(const QCustomPlot& plot) {
  return plot.isVisible() && plot.width() >= 100 && plot.height() >= 100;
}

/// Title parts shared by every heatmap picture, in one order:
/// model · layer · heads · mechanism · d_k · tokens · overview · mask · cross · note.
/// A PictureTitle on plot (sweeps, differences, rollouts) leads or replaces the run's parts.
QStringList titleParts(const QCustomPlot& plot, const RunLabel& label, const QString& heads, int n_q,
                       int n_k, const MaskPattern& mask, int block, Pool pool, double cell) {
  QStringList run;
  if (!label.model.isEmpty()) run << label.model;
  if (label.layer) run << layerTitle(*label.layer, label.facts);
  if (!heads.isEmpty()) run << heads;
  run << mechanismTitle(label.spec) << widthTitle(label.spec);
  QStringList parts;
  parts << (label.cross ? viewText("%1 queries × %2 keys").arg(n_q).arg(n_k)
                        : viewText("%1 tokens").arg(n_q));
  if (label.model.isEmpty()) parts << variantTitleParts(label.spec, mask, label.pad_tokens, n_q);
  if (block > 1) {
    parts << viewText("overview: %1 × %1-token blocks, %2")
                 .arg(block)
                 .arg(pool == Pool::kMax ? viewText("max") : viewText("mean"));
  } else if (cell > 0 && cell < kReadableCellPx) {
    // Every token has its cell, but smaller than a class reads: say so (enlarge one head).
    parts << viewText("overview: %1-px cells").arg(static_cast<int>(std::floor(cell)));
  }
  if (mask.causal) parts << viewText("causal mask");
  if (label.cross) parts << viewText("cross-attention");
  if (!label.note.isEmpty()) parts << label.note;
  return withPictureTitle(plot, run, parts);
}

QString maskedNote(const MaskPattern& mask, bool model) {
  if (model && mask.window > 0) return kvCacheMaskedNote(mask);
  if (mask.window > 0 || mask.global > 0 || mask.valid_keys >= 0)
    return viewText("grey = masked (outside the attention pattern: the query cannot see the key)");
  return mask.causal ? viewText("grey = masked (causal: a query cannot see later keys)")
                     : viewText("grey = masked");
}

/// The K/V groups a picture of result marks: label.facts.kv_head when it groups result's heads.
std::vector<int> groupsOf(const AttentionResult& result, const RunLabel& label) {
  const ModelFacts& facts = label.facts;
  if (!facts.grouped() || static_cast<int>(facts.kv_head.size()) != result.heads()) return {};
  return facts.kv_head;
}

/// "head 3", or "head 3 · K/V 1" when the heads are grouped.
QString headTitle(int head, const std::vector<int>& groups) {
  QString title = viewText("head %1").arg(head);
  if (!groups.empty()) title += QStringLiteral(" · ") + viewText("K/V %1").arg(groups[static_cast<std::size_t>(head)]);
  return title;
}

/// The mask pattern as a layout key part ("1/4/0/0/-1").
QString maskKey(const MaskPattern& p) {
  return QStringLiteral("%1/%2/%3/%4/%5").arg(p.causal ? 1 : 0).arg(p.window).arg(p.global).arg(p.stride).arg(p.valid_keys);
}

/// True when some weight of the result is ±inf or NaN.
bool anyNonfinite(const AttentionResult& result) {
  for (float w : result.weights.data)
    if (!std::isfinite(w)) return true;
  return false;
}

/// The legend lines of issue 13's numerics: the magenta of non-finite cells (how many rows) and
/// the × of dropped cells.
QStringList numericsNotes(const AttentionResult& result) {
  QStringList notes;
  if (anyNonfinite(result)) {
    int rows = 0;
    for (int h = 0; h < result.heads(); ++h)
      for (int i = 0; i < result.nQ(); ++i) rows += result.nonfiniteRow(h, i) ? 1 : 0;
    notes << viewText("magenta = not finite (inf or NaN): the %1 %2 softmax overflowed in %3 rows")
                 .arg(QString::fromStdString(toString(result.softmax)),
                      QString::fromStdString(toString(result.precision)))
                 .arg(rows);
  } else if (result.precision != Precision::kFp32 || result.softmax != SoftmaxKind::kStable) {
    notes << viewText("%1 %2 softmax: every weight finite")
                 .arg(QString::fromStdString(toString(result.softmax)),
                      QString::fromStdString(toString(result.precision)));
  }
  if (result.dropout > 0.0) {
    notes << viewText("× = dropped (dropout p = %1; kept weights × 1/(1 − p): rows no longer sum to 1)")
                 .arg(result.dropout, 0, 'g', 3);
  }
  return notes;
}

/// What decides a head picture's layout apart from the weights.
QString layoutKey(const AttentionResult& result, int head, const QStringList& query_tokens,
                  const QStringList& key_tokens, const RunLabel& label, const QSize& canvas,
                  double font_scale, const PictureOptions& picture) {
  QString groups;
  for (int g : groupsOf(result, label)) groups += QString::number(g) + QLatin1Char(',');
  const bool cross = label.cross;
  return QStringLiteral("%1|%2|%3|").arg(groups).arg(label.facts.next_tokens.empty() ? 0 : 1).arg(label.pad_tokens) +
         QStringLiteral("%1|%2|%3|%4|%5|%6|%7x%8|%9|%10|%11\x1f")
             .arg(head)
             .arg(result.heads())
             .arg(result.nQ())
             .arg(result.nK())
             .arg(maskKey(result.pattern()))
             .arg(cross ? 1 : 0)
             .arg(canvas.width())
             .arg(canvas.height())
             .arg(font_scale)
             .arg(static_cast<int>(picture.color_scale))
             .arg(static_cast<int>(picture.pool)) +
         QStringLiteral("|%1|%2\x1f").arg(numericsNotes(result).join(QChar(0x1e))).arg(result.dropout > 0 ? 1 : 0) +
         query_tokens.join(QChar(0x1e)) + QChar(0x1f) + key_tokens.join(QChar(0x1e));
}

/// The weights printed in the cells of a small single map (texts with role "cell_value").
void annotate(HeatmapLayout& layout, const AttentionResult& result, int head, const ScaleSpec& scale,
              const QFont& base) {
  layout.texts.erase(std::remove_if(layout.texts.begin(), layout.texts.end(),
                                    [](const DrawnText& t) { return t.role == QLatin1String("cell_value"); }),
                     layout.texts.end());
  if (layout.maps.size() != 1) return;
  const MapGeometry& g = layout.maps.front();
  if (g.block != 1 || g.cell < kMinAnnotatedCellPx || std::max(g.n_q, g.n_k) > kMaxAnnotatedTokens) return;
  QFont font = base;
  font.setBold(false);
  font.setPixelSize(std::clamp(static_cast<int>(g.cell / 3.6), 9, 22));
  const QFontMetricsF fm(font);
  const MaskPattern pattern = result.pattern();
  for (int i = 0; i < g.n_q; ++i) {
    const auto [lo, hi] = pattern.span(i, g.n_k);
    const int visible = pattern.visibleCount(i, g.n_k);
    for (int j = lo; j < hi; ++j) {
      if (!pattern.visible(i, j) || result.isDropped(head, i, j)) continue;  // dropped: the × alone
      const double w = result.weights(head, i, j);
      const double v = scale.value(scale.scale == ColorScale::kRelative ? visible * w : w);
      const QColor cell = scale.color(v);
      // A difference near 0 prints as 0.00, never −0.00.
      const QString text = QString::number(std::fabs(w) < 0.005 ? 0.0 : w, 'f', 2);
      const double tw = fm.horizontalAdvance(text);
      DrawnText t{QStringLiteral("cell_value"), text, font,
                  QRectF(g.cells.left() + (j + 0.5) * g.cell - tw / 2,
                         g.cells.top() + (i + 0.5) * g.cell - fm.height() / 2, tw, fm.height())};
      // Black on light cells, white on dark ones (relative luminance, Rec. 601 weights).
      const double luma = 0.299 * cell.redF() + 0.587 * cell.greenF() + 0.114 * cell.blueF();
      t.color = luma < 0.5 ? Qt::white : Qt::black;
      t.panel = 0;
      t.index = i * g.n_k + j;
      layout.texts.push_back(t);
    }
  }
}

/// The request for a grid (or a single map when `heads` has one entry).
GridRequest gridRequest(const QCustomPlot& plot, const AttentionResult& result,
                        const std::vector<int>& heads, const QStringList& query_labels,
                        const QStringList& key_labels, const RunLabel& label, const QSize& canvas) {
  const bool single = heads.size() == 1;
  GridRequest req;
  req.canvas = canvas;
  const std::vector<int> groups = groupsOf(result, label);
  for (int k : heads) req.panel_titles.push_back(single ? QString() : headTitle(k, groups));
  for (int k : groups.empty() ? std::vector<int>() : heads) req.panel_groups.push_back(groups[static_cast<std::size_t>(k)]);
  req.next_tokens = nextTokensText(label.facts.next_tokens);
  req.n_q = result.nQ();
  req.n_k = result.nK();
  req.query_labels = query_labels;
  req.key_labels = key_labels;
  if (single) {
    req.query_axis = label.cross ? viewText("query (target)") : viewText("query");
    req.key_axis = label.cross ? viewText("key (source)") : viewText("key");
  } else {
    req.notes << (label.cross ? viewText("rows: queries (target) · columns: keys (source)")
                              : viewText("rows: queries · columns: keys"));
  }
  if (anyMasked(result)) req.notes << maskedNote(result.pattern(), !label.model.isEmpty());
  for (const QString& note : numericsNotes(result)) req.notes << note;
  if (label.pad_tokens > 0) req.notes << viewText("hatched rows: [PAD] queries (padding; their outputs are discarded)");
  if (!groups.empty() && !single) req.notes << kvGroupsNote(label.facts);
  req.fonts = pictureFonts(plot, !single, std::max(result.nQ(), result.nK()));
  if (!single) req.min_cell = plot.property(kMinCellProperty).toDouble();
  return req;
}

/// Lays out and draws head maps (one for drawHeatmap, every head for drawHeadGrid).
void drawHeads(QCustomPlot& plot, const AttentionResult& result, const std::vector<int>& heads,
               const QStringList& query_tokens, const QStringList& key_tokens,
               const RunLabel& label, const PictureOptions& picture, const QString& heads_part,
               const QSize& fallback) {
  const QStringList query_labels = tickLabels(query_tokens, result.nQ(), "query_tokens");
  const QStringList key_labels = tickLabels(key_tokens, result.nK(), "key_tokens");
  const QSize canvas = canvasSize(plot, fallback);
  GridRequest req = gridRequest(plot, result, heads, query_labels, key_labels, label, canvas);
  // The block size decides the scale (auto turns log), the bar's labels and the title, which
  // take room the maps then lack: lay out again until the block size holds (it only grows).
  ScaleSpec scale;
  HeatmapLayout layout;
  const double extent = picture.color_scale == ColorScale::kDifference ? largestMagnitude(result) : 1.0;
  // Likewise the cell size the title names when the cells are too small for a class (the title's
  // extra words only shrink them; the last pass names the cells drawn).
  double titled_cell = 0;
  for (int block = 1, pass = 0; pass < 5; ++pass) {
    scale = makeScale(picture.color_scale, picture.pool, result.nK(), block, extent);
    applyBarTitle(plot, scale);
    req.bar = scale.bar;
    req.title_parts = titleParts(plot, label, heads_part, result.nQ(), result.nK(), result.pattern(), block,
                                 picture.pool, titled_cell);
    req.block = block;
    layout = layoutGrid(req);
    const MapGeometry& first = layout.maps.front();
    const double small = first.block == 1 && first.cell < kReadableCellPx ? first.cell : 0;
    if (first.block == block && std::floor(small) == std::floor(titled_cell)) break;
    block = first.block;
    titled_cell = small;
  }
  if (label.pad_tokens > 0 && label.pad_tokens < result.nQ()) layout.pad_from = result.nQ() - label.pad_tokens;
  if (heads.size() == 1) annotate(layout, result, heads.front(), scale, req.fonts.tick);

  QCPLayoutInset* inset = startPicture(plot);
  auto* decor = new HeatmapDecor(&plot, std::move(layout), scale);
  decor->key = layoutKey(result, heads.size() == 1 ? heads.front() : -1, query_tokens, key_tokens,
                         label, canvas, fontScale(plot), picture);
  for (std::size_t p = 0; p < heads.size(); ++p) {
    const MapGeometry& g = decor->layout().maps[p];
    QCPColorMap* map = addMap(plot, inset, g, scale, viewText("head %1").arg(heads[p]));
    fillMap(*map, result, heads[p], g, scale);
  }
  new ChangingTexts(&plot, decor);  // after the maps: drawn over them on their layer
  QCPAxisRect* first = decor->rects.front();
  plot.xAxis = first->axis(QCPAxis::atBottom);
  plot.yAxis = first->axis(QCPAxis::atLeft);
  plot.xAxis2 = first->axis(QCPAxis::atTop);
  plot.yAxis2 = first->axis(QCPAxis::atRight);
}

QString headsText(int h) { return h == 1 ? viewText("1 head") : viewText("%1 heads").arg(h); }

/// The title part of one enlarged head: "head 3", or "head 3 · K/V head 1 of 3".
QString singleHeadTitle(const AttentionResult& result, int head, const RunLabel& label) {
  const std::vector<int> groups = groupsOf(result, label);
  if (groups.empty()) return viewText("head %1").arg(head);
  return viewText("head %1").arg(head) + QStringLiteral(" · ") +
         viewText("K/V head %1 of %2").arg(groups[static_cast<std::size_t>(head)]).arg(label.facts.kvHeads());
}

}  // namespace

QString withInt8Note(const QString& note) {
  const QString int8 = viewText("int8 activations in the weight products (as llama.cpp; not float32's numbers)");
  return note.isEmpty() ? int8 : note + QStringLiteral(" · ") + int8;
}

QString widthTitle(const AttentionSpec& spec) {
  return spec.mechanism == Mechanism::kAdditive ? QStringLiteral("d_a = %1").arg(spec.resolvedDa())
                                                : QStringLiteral("d_k = %1").arg(spec.resolvedDk());
}

QString mechanismTitle(const AttentionSpec& spec) {
  if (spec.temperature) {
    const QString name = spec.mechanism == Mechanism::kAdditive ? viewText("additive") : viewText("dot-product");
    return name + QStringLiteral(" · T = %1").arg(*spec.temperature, 0, 'g', 4);
  }
  switch (spec.mechanism) {
    case Mechanism::kAdditive:
      return viewText("additive");
    case Mechanism::kDot:
      return viewText("dot-product, unscaled");
    case Mechanism::kScaled:
      return viewText("scaled dot-product");
    case Mechanism::kLinear:
      return viewText("linear, φ = elu + 1");
  }
  return viewText("attention");
}

QString scalingText(const AttentionSpec& spec) {
  if (spec.temperature) return QStringLiteral("T = %1").arg(*spec.temperature, 0, 'g', 4);
  switch (spec.mechanism) {
    case Mechanism::kAdditive:
      return viewText("additive");
    case Mechanism::kDot:
      return viewText("unscaled");
    case Mechanism::kScaled:
      return viewText("scaled 1/√d_k");
    case Mechanism::kLinear:
      return viewText("no softmax");
  }
  return {};
}

void setFontScale(QCustomPlot& plot, double factor) {
  plot.setProperty("attnlabViewsFontScale", factor > 0 && std::isfinite(factor) ? factor : 1.0);
}

double fontScale(const QCustomPlot& plot) {
  bool ok = false;
  const double factor = plot.property("attnlabViewsFontScale").toDouble(&ok);
  return ok && factor > 0 ? factor : 1.0;
}

QFont scaledFont(const QCustomPlot& plot, double points, bool bold) {
  QFont font = plot.font();
  font.setPointSizeF(points * fontScale(plot));
  font.setBold(bold);
  return font;
}

void attachLegendRow(QCustomPlot& plot, QCPAxisRect* rect, QCPLegend* legend, const QFont& font,
                     const std::vector<QCPGraph*>& graphs) {
  QCPLayoutGrid* layout = plot.plotLayout();
  layout->addElement(2, 0, legend);
  legend->setLayer(QStringLiteral("legend"));
  legend->setFont(font);
  legend->setBorderPen(Qt::NoPen);
  legend->setIconSize(36, 14);
  layout->setRowStretchFactor(2, 0.001);
  for (QCPGraph* graph : graphs) graph->addToLegend(legend);
  plot.xAxis = rect->axis(QCPAxis::atBottom);
  plot.yAxis = rect->axis(QCPAxis::atLeft);
  plot.xAxis2 = rect->axis(QCPAxis::atTop);
  plot.yAxis2 = rect->axis(QCPAxis::atRight);
  plot.legend = legend;
}

void setMinCell(QCustomPlot& plot, double px) {
  plot.setProperty(kMinCellProperty, px > 0 && std::isfinite(px) ? px : 0.0);
}

void setCanvasSize(QCustomPlot& plot, const QSize& size) {
  plot.setProperty(kCanvasProperty, size.isValid() ? QVariant(size) : QVariant());
}

QSize canvasSize(const QCustomPlot& plot, const QSize& fallback) {
  const QVariant set = plot.property(kCanvasProperty);
  if (set.isValid()) return set.toSize();
  if (onScreen(plot)) return plot.size();
  return fallback;
}

void clearPlot(QCustomPlot& plot) {
  plot.clearItems();
  plot.clearPlottables();
  plot.clearGraphs();
  plot.plotLayout()->clear();
  plot.xAxis = plot.yAxis = plot.xAxis2 = plot.yAxis2 = nullptr;
  plot.legend = nullptr;
}

void drawHeatmap(QCustomPlot& plot, const AttentionResult& result, int head,
                 const QStringList& query_tokens, const QStringList& key_tokens,
                 const RunLabel& label, const PictureOptions& picture) {
  checkResult(result);
  if (head < 0 || head >= result.heads()) {
    throw Error(ErrorCode::kInvalidArgument, "head " + std::to_string(head) +
                                                 " does not exist (the result has " +
                                                 std::to_string(result.heads()) + " heads)");
  }
  const ImageSize size = defaultHeatmapSize(result.nQ(), result.nK(), 1);
  drawHeads(plot, result, {head}, query_tokens, key_tokens, label, picture,
            singleHeadTitle(result, head, label), QSize(size.width, size.height));
}

void drawHeadGrid(QCustomPlot& plot, const AttentionResult& result, const QStringList& query_tokens,
                  const QStringList& key_tokens, const RunLabel& label,
                  const PictureOptions& picture) {
  checkResult(result);
  std::vector<int> heads(static_cast<std::size_t>(result.heads()));
  for (int k = 0; k < result.heads(); ++k) heads[static_cast<std::size_t>(k)] = k;
  const ImageSize size = defaultHeatmapSize(result.nQ(), result.nK(), result.heads());
  drawHeads(plot, result, heads, query_tokens, key_tokens, label, picture,
            headsText(result.heads()), QSize(size.width, size.height));
}

bool updateWeights(QCustomPlot& plot, const AttentionResult& result, int head,
                   const QStringList& query_tokens, const QStringList& key_tokens,
                   const RunLabel& label, const PictureOptions& picture) {
  return updateWeights(plot, result, head, query_tokens, key_tokens, label, picture, nullptr);
}

bool updateWeights(QCustomPlot& plot, const AttentionResult& result, int head,
                   const QStringList& query_tokens, const QStringList& key_tokens,
                   const RunLabel& label, const PictureOptions& picture, const ReadyMaps* ready) {
  HeatmapDecor* decor = decorOf(plot);
  if (picture.color_scale == ColorScale::kDifference) return false;  // its range follows the data
  if (!decor || result.heads() < 1 || result.nQ() < 1 || result.nK() < 1 ||
      result.weights.data.size() !=
          static_cast<std::size_t>(result.heads()) * result.nQ() * result.nK() ||
      head >= result.heads()) {
    return false;
  }
  // The current canvas: a plot on screen that changed size needs a new layout.
  const QSize canvas = canvasSize(plot, decor->layout().canvas);
  if (decor->key != layoutKey(result, head, query_tokens, key_tokens, label, canvas, fontScale(plot),
                              picture)) {
    return false;
  }
  const int maps = head < 0 ? result.heads() : 1;
  if (plot.plottableCount() != maps || static_cast<int>(decor->layout().maps.size()) != maps) return false;
  // The title names d_k and the scaling, which may have changed; it must keep its lines.
  HeatmapLayout& layout = decor->layout();
  const int block = layout.maps.front().block;
  const QString heads_part = head >= 0 ? singleHeadTitle(result, head, label) : headsText(result.heads());
  const QStringList parts = titleParts(plot, label, heads_part, result.nQ(), result.nK(), result.pattern(), block,
                                       picture.pool, layout.maps.front().cell);
  for (DrawnText& t : layout.texts) {
    if (t.role != QLatin1String("title")) continue;
    const QString text = wrapParts(parts, t.font, canvas.width() - 20);
    if (text.count(QLatin1Char('\n')) != t.text.count(QLatin1Char('\n'))) return false;
    const QSizeF size = measureText(text, t.font);
    t.text = text;
    t.rect = QRectF((canvas.width() - size.width()) / 2, t.rect.top(), size.width(), size.height());
  }
  // The predictions change with the scaling too; they must keep their lines (one text per line).
  const QString predictions = nextTokensText(label.facts.next_tokens);
  std::vector<DrawnText*> lines;
  for (DrawnText& t : layout.texts)
    if (t.role == QLatin1String("next_tokens")) lines.push_back(&t);
  if (!lines.empty()) {
    const QStringList wrapped =
        wrapParts(predictions.split(QStringLiteral(" · ")), lines.front()->font, canvas.width() - 20).split(QLatin1Char('\n'));
    if (wrapped.size() != static_cast<qsizetype>(lines.size())) return false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      DrawnText& t = *lines[i];
      t.text = elideText(wrapped[static_cast<qsizetype>(i)], t.font, canvas.width() - 20);
      t.rect.setSize(measureText(t.text, t.font));
    }
  }
  std::vector<QCPColorMap*> colour_maps;
  for (int k = 0; k < maps; ++k) {
    auto* map = qobject_cast<QCPColorMap*>(plot.plottable(k));
    if (!map) return false;
    colour_maps.push_back(map);
  }
  // Cells filled on the worker for this very plan: copied in, their images drawn as they are.
  const std::shared_ptr<const MapPlan> plan = ready ? mapPlan(plot, head) : nullptr;
  const bool use_ready = plan && ready->plan && ready->maps.size() == colour_maps.size() &&
                         sameCells(*plan, *ready->plan);
  for (int k = 0; k < maps; ++k) {
    const std::size_t m = static_cast<std::size_t>(k);
    if (!use_ready || !setReadyCells(*colour_maps[m], ready->maps[m]))
      fillMap(*colour_maps[m], result, head < 0 ? k : head, layout.maps[m], decor->scale());
  }
  if (head >= 0) {
    QFont font = plot.font();
    for (const DrawnText& t : layout.texts)
      if (t.role == QLatin1String("query_label")) font = t.font;
    annotate(layout, result, head, decor->scale(), font);
  }
  return true;
}

ImageSize defaultHeatmapSize(int n_q, int n_k, int heads_in_image) {
  n_q = std::max(1, n_q);
  n_k = std::max(1, n_k);
  const int h = std::max(1, heads_in_image);
  const double n = std::max(n_q, n_k);
  ImageSize size;
  if (h == 1) {
    const double cell = std::max(std::clamp(1200.0 / n, 2.0, 48.0), 320.0 / n);
    size.width = static_cast<int>(std::clamp(300 + n_k * cell, 560.0, 1600.0));
    size.height = static_cast<int>(std::clamp(240 + n_q * cell, 560.0, 1600.0));
    return size;
  }
  const int columns = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(h))));
  const int rows = (h + columns - 1) / columns;
  const double cell = std::max(std::clamp(400.0 / n, 1.5, 32.0), 180.0 / n);
  const double panel_w = 120 + n_k * cell;
  const double panel_h = 110 + n_q * cell;
  size.width = static_cast<int>(std::clamp(160 + columns * panel_w, 520.0, 2600.0));
  size.height = static_cast<int>(std::clamp(110 + rows * panel_h, 400.0, 2600.0));
  return size;
}

}  // namespace attnlab::views
