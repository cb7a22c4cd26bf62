/// \file model_grid.cpp
/// The model view (every layer × head of a pretrained model as thumbnails) and the special-token
/// display filter.

#include <qcustomplot.h>

#include <QJsonArray>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "attnlab/error.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "views/intervention_plots.hpp"
#include "views/heatmap_layout_parts.hpp"
#include "views/heatmap_paint.hpp"
#include "views/picture.hpp"
#include "views/token_text.hpp"

namespace attnlab::views {
namespace {
constexpr double kThumbMin = 60, kThumbMax = 150;
/// The plot property holding setMinThumbnail's size.
constexpr char kMinThumbProperty[] = "attnlabViewsMinThumb";
/// A thumbnail's side in an exported model view: 8 px a token; a few thumbnails (a translator's
/// 2 × 4) 18 px a token and larger, room for their token labels.
double thumbnailPixels(int n_tokens, int thumbnails) {
  if (thumbnails <= 16 && n_tokens <= kNoPoolTokens) return std::clamp(18.0 * n_tokens, kThumbMin, 2 * kThumbMax);
  return std::clamp(8.0 * n_tokens, kThumbMin, kThumbMax);
}
}  // namespace

int ModelFacts::kvHeads() const {
  std::vector<int> seen = kv_head;
  std::sort(seen.begin(), seen.end());
  return static_cast<int>(std::unique(seen.begin(), seen.end()) - seen.begin());
}

bool ModelFacts::windowed() const {
  return std::any_of(layer_window.begin(), layer_window.end(), [](int w) { return w > 0; });
}

bool ModelFacts::grouped() const {
  return !kv_head.empty() && kvHeads() < static_cast<int>(kv_head.size());
}

ModelFacts modelFacts(const ModelRun& run, const ModelConfig& config) {
  ModelFacts facts;
  facts.kv_head = run.kv_head;
  facts.kv_cache_bytes = config.kvCacheBytesPerToken();
  facts.mha_kv_cache_bytes = config.mhaKvCacheBytesPerToken();
  if (std::any_of(config.layer_window.begin(), config.layer_window.end(), [](int w) { return w > 0; }))
    facts.layer_window = config.layer_window;
  for (const NextToken& t : run.next_tokens) {
    const TokenDisplay shown = displayToken(t.bytes, t.label);
    facts.next_tokens.push_back(
        {QString::fromStdString(shown.label), t.probability, characterPartsText(shown)});
  }
  return facts;
}

ModelFacts syntheticFacts(const AttentionSpec& spec) {
  ModelFacts facts;
  const int h = spec.heads, g = spec.resolvedKvHeads();
  if (h < 1 || g < 1 || h % g != 0) return facts;
  for (int i = 0; i < h; ++i) facts.kv_head.push_back(kvHeadOf(i, h, g));
  const long long width = spec.resolvedDk() + spec.resolvedDv();
  facts.kv_cache_bytes = 4LL * g * width;
  facts.mha_kv_cache_bytes = 4LL * h * width;
  return facts;
}

QStringList variantTitleParts(const AttentionSpec& spec, const MaskPattern& pattern, int pad_tokens,
                              int n_q) {
  QStringList parts;
  const int h = spec.heads, g = spec.resolvedKvHeads();
  if (g < h) parts << (g == 1 ? viewText("MQA %1 q / 1 kv").arg(h) : viewText("GQA %1 q / %2 kv").arg(h).arg(g));
  switch (spec.positions) {
    case Positions::kRope:
      parts << (spec.rope_base == 10000.0 ? viewText("RoPE")
                                          : viewText("RoPE base %1").arg(spec.rope_base, 0, 'g', 6));
      break;
    case Positions::kAlibi: parts << viewText("ALiBi"); break;
    case Positions::kNone: parts << viewText("no positions"); break;
    case Positions::kSinusoidal: break;
  }
  if (pattern.window > 0) parts << viewText("window %1").arg(pattern.window);
  if (pattern.global > 0) parts << viewText("%1 global").arg(pattern.global);
  if (pattern.stride > 0) parts << viewText("stride %1").arg(pattern.stride);
  if (pad_tokens > 0) {
    parts << viewText("padded to %1").arg(n_q);
    if (pattern.valid_keys < 0) parts << viewText("[PAD] keys unmasked");
  }
  return parts;
}

QString bytesText(long long bytes) {
  QString digits = QString::number(std::llabs(bytes));
  for (qsizetype at = digits.size() - 3; at > 0; at -= 3) digits.insert(at, QLatin1Char(' '));
  return bytes < 0 ? QStringLiteral("-") + digits : digits;
}

QString nextTokensText(const std::vector<ShownPrediction>& predictions) {
  if (predictions.empty()) return {};
  QStringList labels;
  for (const ShownPrediction& p : predictions) {
    QString label = p.label;
    labels << label.replace(QLatin1Char('\n'), QStringLiteral("⏎"));
  }
  const QStringList shown = tickLabels(labels, static_cast<int>(labels.size()), "predictions");
  QStringList items;
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    const double percent = 100 * predictions[i].probability;
    const QString value = percent < 0.05 ? QStringLiteral("<0.1%") : QString::number(percent, 'f', 1) + QLatin1Char('%');
    const QString& note = predictions[i].note;
    items << (note.isEmpty()
                  ? QStringLiteral("“%1” %2").arg(shown[static_cast<qsizetype>(i)], value)
                  : QStringLiteral("“%1” (%2) %3")
                        .arg(shown[static_cast<qsizetype>(i)], note, value));
  }
  return viewText("next token (top %1):").arg(predictions.size()) + QLatin1Char(' ') +
         items.join(QStringLiteral(" · "));
}

QString layerTitle(int l, const ModelFacts& facts) {
  if (!facts.windowed()) return viewText("layer %1").arg(l);
  const int window = facts.windowOf(l);
  return window > 0 ? viewText("layer %1 · local %2").arg(l).arg(window) : viewText("layer %1 · global").arg(l);
}

QString kvGroupsNote(const ModelFacts& facts) {
  if (!facts.grouped()) return {};
  QString note = facts.kvHeads() == 1
                     ? viewText("multi-query attention: %1 query heads share 1 K/V head").arg(facts.kv_head.size())
                     : viewText("grouped-query attention: %1 query heads share %2 K/V heads (one frame colour per K/V head)")
                           .arg(facts.kv_head.size())
                           .arg(facts.kvHeads());
  if (facts.kv_cache_bytes > 0) {
    note += QStringLiteral(" · ") +
            viewText("KV cache %1 bytes per token (%2 with one K/V head per query head)")
                .arg(bytesText(facts.kv_cache_bytes), bytesText(facts.mha_kv_cache_bytes));
  }
  return note;
}

ImageSize defaultModelGridSize(int n_tokens, int layers, int heads) {
  const double thumb = thumbnailPixels(std::max(1, n_tokens), std::max(1, layers) * std::max(1, heads));
  ImageSize size;
  size.width = static_cast<int>(std::clamp(100 + 150 + std::max(1, heads) * (thumb + 4), 560.0, 3000.0));
  size.height = static_cast<int>(std::clamp(150 + 60 + std::max(1, layers) * (thumb + 4), 420.0, 3000.0));
  return size;
}

void setMinThumbnail(QCustomPlot& plot, double px) {
  plot.setProperty(kMinThumbProperty, px > 0 && std::isfinite(px) ? px : 0.0);
}

ImageSize fitModelGridHeight(ImageSize size, const std::function<void(QCustomPlot&)>& draw) {
  QCustomPlot scratch;
  scratch.setViewport(QRect(0, 0, size.width, size.height));
  setCanvasSize(scratch, QSize(size.width, size.height));
  draw(scratch);
  const QJsonObject layout = layoutJson(scratch);
  double bottom = 0;
  const auto reach = [&](const QJsonValue& v) {
    const QJsonObject o = v.toObject();
    bottom = std::max(bottom, o["y"].toDouble() + o["height"].toDouble());
  };
  for (const QJsonValue& v : layout["maps"].toArray()) reach(v);
  for (const QJsonValue& v : layout["texts"].toArray()) reach(v);
  // The grid is centred in the height left: the band under the last text is as tall as the one
  // over the grid. Both go, less a few pixels for rounding (the thumbnails keep their size).
  const double band = size.height - detail::kMargin - bottom;
  if (bottom <= 0 || band < 8) return size;
  size.height = std::max(420, static_cast<int>(std::ceil(size.height - 2 * band + 6)));
  return size;
}

namespace {

/// What a model view draws, whichever its source: every layer's full weights, or their pooled
/// overviews (one drawing path for both).
struct GridSource {
  int heads = 0;
  int n_q = 0, n_k = 0;
  Mask mask = Mask::kNone;
  MaskPattern pattern;   ///< The full weights' pattern (a generation's evicted keys); causal alone when pooled.
  bool masked = false;   ///< Some cell is masked (the grey note).
  int min_block = 1;     ///< Cells hold whole multiples of this many tokens a side.
  double extent = 1.0;   ///< The difference scale's largest |Δ|.
  QStringList notes;     ///< Lines of the source's own (a pooled view says so).
  /// Map values of (layer entry, head) at a map's geometry and the picture's scale.
  std::function<MapValues(int entry, int head, const MapGeometry&, const ScaleSpec&)> values;
};

/// Places the maps of plot's picture (startPicture and addMap) again, in place of a new picture
/// with the same number of maps: each map's frame moves to its geometry in `layout`, takes the
/// scale's gradient and range and `names` (one per map), the decor takes layout and scale, and the
/// items other than the decor and its changing texts (badges, covers) go. The maps' cells are
/// left to fillMap. Returns the maps in order, or an empty list (plot and layout unchanged) when
/// the picture has another number of maps or is not such a picture. A model view redrawn at every
/// generated token thus keeps its hundreds of axis rects instead of building them anew.
std::vector<QCPColorMap*> replaceMaps(QCustomPlot& plot, HeatmapLayout&& layout,
                                      const ScaleSpec& scale, const QStringList& names) {
  HeatmapDecor* decor = decorOf(plot);
  const auto n = static_cast<int>(layout.maps.size());
  auto* inset = plot.plotLayout()->elementCount() == 1
                    ? qobject_cast<QCPLayoutInset*>(plot.plotLayout()->elementAt(0))
                    : nullptr;
  if (!decor || !inset || n < 1 || names.size() != n || inset->elementCount() != n ||
      static_cast<int>(decor->rects.size()) != n || plot.plottableCount() != n) {
    return {};
  }
  std::vector<QCPColorMap*> maps;
  for (int k = 0; k < n; ++k) {
    auto* map = qobject_cast<QCPColorMap*>(plot.plottable(k));
    QCPAxisRect* rect = decor->rects[static_cast<std::size_t>(k)];
    if (!map || !rect || inset->elementAt(k) != rect ||
        map->keyAxis() != rect->axis(QCPAxis::atTop))
      return {};
    maps.push_back(map);
  }
  for (int i = plot.itemCount() - 1; i >= 0; --i) {
    QCPAbstractItem* item = plot.item(i);
    if (item != decor && !qobject_cast<ChangingTexts*>(item)) plot.removeItem(item);
  }
  decor->layout() = std::move(layout);
  decor->setScale(scale);
  decor->key.clear();  // not a heatmap that updateWeights may refill
  const QSize canvas = decor->layout().canvas;
  const double w = std::max(1, canvas.width()), h = std::max(1, canvas.height());
  for (int k = 0; k < n; ++k) {
    const MapGeometry& g = decor->layout().maps[static_cast<std::size_t>(k)];
    inset->setInsetRect(
        k, QRectF((g.cells.x() + 0.5) / w, (g.cells.y() + 0.5) / h, (g.cells.width() + 0.5) / w,
                  (g.cells.height() + 0.5) / h));  // as addMap places them
    QCPColorMap* map = maps[static_cast<std::size_t>(k)];
    map->keyAxis()->setRange(-0.5, g.columns - 0.5);
    map->valueAxis()->setRange(-0.5, g.rows - 0.5);
    map->setGradient(scale.gradient);
    map->setDataRange(QCPRange(scale.lo, scale.hi));
    map->setName(names[k]);
  }
  return maps;
}

void drawGridFrom(QCustomPlot& plot, const GridSource& source, const std::vector<int>& layer_indices,
                  const QStringList& tokens, const RunLabel& label, const PictureOptions& picture,
                  const QStringList& key_tokens) {
  const int h = source.heads;
  const int n = source.n_q;
  const auto n_layers = static_cast<int>(layer_indices.size());
  const QStringList labels = tickLabels(tokens, n, "tokens");
  const ImageSize fallback = defaultModelGridSize(n, n_layers, h);

  ModelGridRequest req;
  req.canvas = canvasSize(plot, QSize(fallback.width, fallback.height));
  req.min_block = source.min_block;
  for (int l : layer_indices) req.layer_titles << layerTitle(l, label.facts);
  for (int k = 0; k < h; ++k) req.head_titles << viewText("head %1").arg(k);
  req.n = n;
  req.n_k = source.n_k;
  req.query_labels = labels;
  req.key_labels = tickLabels(key_tokens.isEmpty() ? tokens : key_tokens, source.n_k, "tokens");
  QStringList listed;
  for (int i = 0; i < labels.size(); ++i) listed << QStringLiteral("%1 %2").arg(i).arg(labels[i]);
  if (source.n_k != n || !key_tokens.isEmpty()) {
    // Rows and columns name different tokens (cross-attention): both lists.
    if (!listed.isEmpty()) listed.front().prepend(viewText("rows (queries): "));
    const QStringList keys = tickLabels(key_tokens.isEmpty() ? tokens : key_tokens, source.n_k, "tokens");
    QStringList columns;
    for (int j = 0; j < keys.size(); ++j) columns << QStringLiteral("%1 %2").arg(j).arg(keys[j]);
    if (!columns.isEmpty()) columns.front().prepend(viewText("columns (keys): "));
    req.token_list = listed.join(QStringLiteral(" · ")) + QStringLiteral("  |  ") +
                     columns.join(QStringLiteral(" · "));
  } else {
    if (!listed.isEmpty()) listed.front().prepend(viewText("tokens (rows = queries, columns = keys): "));
    req.token_list = listed.join(QStringLiteral(" · "));
  }
  const ModelFacts& facts = label.facts;
  int window = 0;  // the local layers' window, when the model has one (Gemma, Mistral)
  for (int l : layer_indices) window = std::max(window, facts.windowOf(l));
  if (source.masked && source.pattern.window > 0) {
    req.notes << kvCacheMaskedNote(source.pattern);
  } else if (source.masked || window > 0) {
    req.notes << (source.mask == Mask::kCausal && window > 0
                      ? viewText("grey = masked (causal: a query cannot see later keys; a local layer's "
                                 "query sees only the last %1 keys, itself included)")
                            .arg(window)
                  : source.mask == Mask::kCausal
                      ? viewText("grey = masked (causal: a query cannot see later keys)")
                      : viewText("grey = masked"));
  }
  if (facts.grouped() && static_cast<int>(facts.kv_head.size()) == h &&
      std::is_sorted(facts.kv_head.begin(), facts.kv_head.end())) {
    req.head_groups = facts.kv_head;
    for (int g = 0; g < facts.kvHeads(); ++g) {
      req.group_titles << viewText("K/V head %1").arg(g);
      req.group_short_titles << viewText("K/V %1").arg(g);
    }
    req.notes << kvGroupsNote(facts);
  }
  req.notes << source.notes;
  req.next_tokens = nextTokensText(facts.next_tokens);
  req.fonts = pictureFonts(plot, true, n);
  if (const double px = plot.property(kMinThumbProperty).toDouble(); px > 0)
    req.min_thumb = std::max(px, n <= kNoPoolTokens ? n * kMinCellPx : 0.0);
  auto title = [&](int block) {
    QStringList run;
    if (!label.model.isEmpty()) run << label.model;
    run << viewText("%1 layers × %2 heads").arg(n_layers).arg(h) << mechanismTitle(label.spec)
        << widthTitle(label.spec);
    QStringList parts;
    parts << (source.n_k != n ? viewText("%1 × %2 tokens").arg(n).arg(source.n_k) : viewText("%1 tokens").arg(n));
    if (block > 1) {
      parts << viewText("overview: %1 × %1-token blocks, %2")
                   .arg(block)
                   .arg(picture.pool == Pool::kMax ? viewText("max") : viewText("mean"));
    }
    if (source.mask == Mask::kCausal) parts << viewText("causal mask");
    if (!label.note.isEmpty()) parts << label.note;
    return withPictureTitle(plot, run, parts);  // a sweep's or a difference's words
  };
  // The block size decides the scale, the bar and the title: lay out again until it holds.
  ScaleSpec scale;
  HeatmapLayout layout;
  for (int block = std::max(1, source.min_block), pass = 0; pass < 4; ++pass) {
    scale = makeScale(picture.color_scale, picture.pool, n, block, source.extent);
    applyBarTitle(plot, scale);
    req.bar = scale.bar;
    req.title_parts = title(block);
    layout = layoutModelGrid(req);
    const int got = layout.maps.front().block;
    if (got == block) break;
    block = got;
  }

  QStringList names;
  for (int r = 0; r < n_layers; ++r)
    for (int k = 0; k < h; ++k) names << viewText("head %1").arg(k);
  // The same number of maps as the picture on plot (a generation's next token, a new scale):
  // its maps are placed again and refilled, not built anew (issue 50).
  const std::vector<QCPColorMap*> kept = replaceMaps(plot, std::move(layout), scale, names);
  HeatmapDecor* decor = decorOf(plot);
  QCPLayoutInset* inset = nullptr;
  if (kept.empty()) {
    inset = startPicture(plot);
    decor = new HeatmapDecor(&plot, std::move(layout), scale);
  }
  for (int m = 0; m < n_layers * h; ++m) {
    const MapGeometry& g = decor->layout().maps[static_cast<std::size_t>(m)];
    QCPColorMap* map =
        kept.empty() ? addMap(plot, inset, g, scale, names[m]) : kept[static_cast<std::size_t>(m)];
    fillMap(*map, source.values(m / h, m % h, g, scale));
  }
  if (kept.empty())
    new ChangingTexts(&plot, decor);  // after the maps: drawn over them on their layer
  QCPAxisRect* rect = decor->rects.front();
  plot.xAxis = rect->axis(QCPAxis::atBottom);
  plot.yAxis = rect->axis(QCPAxis::atLeft);
  plot.xAxis2 = rect->axis(QCPAxis::atTop);
  plot.yAxis2 = rect->axis(QCPAxis::atRight);
}

}  // namespace

void drawModelGrid(QCustomPlot& plot, const std::vector<AttentionResult>& layers,
                   const std::vector<int>& layer_indices, const QStringList& tokens,
                   const RunLabel& label, const PictureOptions& picture,
                   const QStringList& key_tokens) {
  if (layers.empty() || layers.size() != layer_indices.size()) {
    throw Error(ErrorCode::kInvalidArgument, "a model view needs one layer index per layer result");
  }
  for (const AttentionResult& r : layers) {
    checkResult(r);
    if (r.heads() != layers.front().heads() || r.nQ() != layers.front().nQ() ||
        r.nK() != layers.front().nK()) {
      throw Error(ErrorCode::kInvalidArgument, "the layers of a model view differ in shape");
    }
  }
  const AttentionResult& first = layers.front();
  GridSource source;
  source.heads = first.heads();
  source.n_q = first.nQ();
  source.n_k = first.nK();
  source.mask = first.mask;
  source.pattern = first.pattern();
  source.masked = anyMasked(first);
  if (picture.color_scale == ColorScale::kDifference) {
    source.extent = 0;
    for (const AttentionResult& r : layers) source.extent = std::max(source.extent, largestMagnitude(r));
  }
  source.values = [&layers](int entry, int head, const MapGeometry& g, const ScaleSpec& scale) {
    return mapValues(layers[static_cast<std::size_t>(entry)], head, g, scale);
  };
  drawGridFrom(plot, source, layer_indices, tokens, label, picture, key_tokens);
}

void drawModelGrid(QCustomPlot& plot, const std::vector<PooledAttention>& overviews,
                   const std::vector<int>& layer_indices, Mask mask, const QStringList& tokens,
                   const RunLabel& label, const PictureOptions& picture) {
  if (overviews.empty() || overviews.size() != layer_indices.size()) {
    throw Error(ErrorCode::kInvalidArgument, "a model view needs one layer index per layer overview");
  }
  const PooledAttention& first = overviews.front();
  for (const PooledAttention& p : overviews) {
    if (p.heads() < 1 || p.block != first.block || p.heads() != first.heads() || p.n_q != first.n_q ||
        p.n_k != first.n_k) {
      throw Error(ErrorCode::kInvalidArgument, "the layer overviews of a model view differ in shape");
    }
  }
  GridSource source;
  source.heads = first.heads();
  source.n_q = first.n_q;
  source.n_k = first.n_k;
  source.mask = mask;
  // A block with fewer visible pairs than it holds has masked cells.
  for (std::size_t i = 0; i < first.visible.size() && !source.masked; ++i) {
    const int bi = static_cast<int>(i) / first.blockCols(), bj = static_cast<int>(i) % first.blockCols();
    const auto [q0, q1] = blockRange(bi, first.block, first.n_q);
    const auto [k0, k1] = blockRange(bj, first.block, first.n_k);
    source.masked = first.visible[i] < (q1 - q0) * (k1 - k0);
  }
  source.min_block = first.block;
  PictureOptions shown = picture;
  if (picture.color_scale == ColorScale::kRelative || picture.color_scale == ColorScale::kDifference) {
    // n·p needs each row's own visible keys, a difference both runs' weights: neither survives
    // pooling. The log scale tells the same story of peaks against the uniform level.
    shown.color_scale = ColorScale::kLog;
    source.notes << viewText("a pooled view cannot show this colour scale: drawn on the log scale");
  }
  source.notes << viewText("pooled while computing: each layer kept only the max and mean of %1 × %1-token "
                           "blocks (each cell above combines them), not its %2 × %3 weights per head")
                      .arg(first.block)
                      .arg(first.n_q)
                      .arg(first.n_k);
  source.values = [&overviews](int entry, int head, const MapGeometry& g, const ScaleSpec& scale) {
    return mapValues(overviews[static_cast<std::size_t>(entry)], head, g, scale);
  };
  drawGridFrom(plot, source, layer_indices, tokens, label, shown, {});
}

void drawModelView(QCustomPlot& plot, const results::Run& r, const RunLabel& label, const PictureOptions& picture) {
  if (r.pooled()) {
    drawModelGrid(plot, r.overview->layers, r.overview->layer_indices, r.spec.mask, r.query_tokens, label, picture);
  } else {
    // Columns listed apart only where they name other tokens (a translator's source).
    drawModelGrid(plot, r.layers(), r.layerIndices(), r.query_tokens, label, picture,
                  r.translator ? r.key_tokens : QStringList());
    if (r.model && r.interventions)  // the ablated heads crossed out
      markAblatedHeads(plot, r.interventions->ablated, r.model->config.heads, r.layerIndices());
  }
}

const std::vector<int>& modelViewLayers(const results::Run& r) {
  return r.pooled() ? r.overview->layer_indices : r.layerIndices();
}

}  // namespace attnlab::views
