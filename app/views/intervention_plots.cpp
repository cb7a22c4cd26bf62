/// \file intervention_plots.cpp
/// The pictures of a model run's interventions (intervention_plots.hpp).

#include "views/intervention_plots.hpp"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "views/heatmap.hpp"
#include "views/heatmap_paint.hpp"
#include "views/picture.hpp"
#include "views/text.hpp"

namespace attnlab::views {
namespace {

/// One panel of a picture: a [rows, cols] matrix of cells with its labels.
struct Panel {
  QString caption;
  Matrix values;                  ///< [rows, cols]; NaN: grey.
  QStringList col_labels;         ///< Empty: the column numbers.
  QString col_axis;               ///< The bottom axis's label.
  std::vector<QStringList> text;  ///< Optional words per cell, [rows][cols].
  double cell_w = 16, cell_h = 16;  ///< px
};

/// Tick labels `labels` (or the numbers) every `step`.
QSharedPointer<QCPAxisTickerText> ticks(int count, int step, const QStringList& labels = {}) {
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < count; i += step)
    ticker->addTick(i, i < labels.size() ? labels[i] : QString::number(i));
  return ticker;
}

/// Words drawn in cells, in plot pixels (black on light cells, white on dark).
class CellText : public QCPAbstractItem {
 public:
  struct Word {
    QCPAxis* x = nullptr;  ///< The panel's axes: the cell's pixels are found when drawn.
    QCPAxis* y = nullptr;
    int col = 0, row = 0;
    QString text;
    bool dark = false;
  };
  CellText(QCustomPlot* plot, std::vector<Word> words, QFont font)
      : QCPAbstractItem(plot), words_(std::move(words)), font_(std::move(font)) {
    setClipToAxisRect(false);
    setSelectable(false);
    setObjectName(QStringLiteral("cellText"));
  }
  double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }

 protected:
  void draw(QCPPainter* painter) override {
    painter->setFont(font_);
    for (const Word& w : words_) {
      const QRectF cell(QPointF(w.x->coordToPixel(w.col - 0.5), w.y->coordToPixel(w.row - 0.5)),
                        QPointF(w.x->coordToPixel(w.col + 0.5), w.y->coordToPixel(w.row + 0.5)));
      const QRectF box = cell.normalized();
      painter->setPen(w.dark ? Qt::white : Qt::black);
      painter->drawText(box, Qt::AlignCenter, elideText(w.text, font_, box.width() - 2));
    }
  }

 private:
  std::vector<Word> words_;
  QFont font_;
};

/// Draws `panels` side by side under `title`, one colour bar (gradient, range, label) at the
/// right and `note` under them; rows are layers, layer 0 at the top.
void drawPanels(QCustomPlot& plot, const QString& title, std::vector<Panel> panels,
                const QCPColorGradient& gradient, QCPRange range, const QString& bar_label,
                const QString& note, QSize fallback) {
  clearPlot(plot);
  const QSize canvas = canvasSize(plot, fallback);
  const double scale = fontScale(plot);
  QFont title_font = plot.font();
  title_font.setPointSizeF(10.5 * scale);
  title_font.setBold(true);
  QFont panel_font = plot.font();
  panel_font.setPointSizeF(9.5 * scale);
  QFont tick_font = plot.font();
  tick_font.setPointSizeF(8.5 * scale);
  // The grid's panels and colour bar have fixed widths, and the layout's column is no wider than
  // its narrowest row's maximum: the title, the captions and the note wrap to what the panels
  // take (their cells, about 70 px of axis each, the bar), not to the canvas.
  double content = 70.0;
  for (const Panel& panel : panels) content += static_cast<double>(panel.values.cols()) * panel.cell_w + 70.0;
  const double text_width = std::min(canvas.width() - 40.0, content);
  auto* heading = new QCPTextElement(&plot, wrapWords(title, title_font, text_width), title_font);
  heading->setObjectName(QStringLiteral("title"));
  plot.plotLayout()->addElement(0, 0, heading);
  auto* grid = new QCPLayoutGrid;
  plot.plotLayout()->addElement(1, 0, grid);
  grid->setColumnSpacing(12);
  auto* group = new QCPMarginGroup(&plot);
  std::vector<CellText::Word> words;
  QFont cell_font = plot.font();
  for (std::size_t p = 0; p < panels.size(); ++p) {
    Panel& panel = panels[p];
    const auto rows = static_cast<int>(panel.values.rows());
    const auto cols = static_cast<int>(panel.values.cols());
    auto* label = new QCPTextElement(
        &plot, wrapWords(panel.caption, panel_font, cols * panel.cell_w + 60.0), panel_font);
    grid->addElement(0, static_cast<int>(p), label);
    auto* rect = new QCPAxisRect(&plot);
    grid->addElement(1, static_cast<int>(p), rect);
    rect->setRangeDrag(Qt::Orientations());
    rect->setRangeZoom(Qt::Orientations());
    const QSize inner(static_cast<int>(cols * panel.cell_w), static_cast<int>(rows * panel.cell_h));
    rect->setMinimumSize(inner);
    rect->setMaximumSize(inner);
    rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    if (p == 0) {
      plot.xAxis = x;
      plot.yAxis = y;
    }
    x->setRange(-0.5, cols - 0.5);
    y->setRange(-0.5, rows - 0.5);
    y->setRangeReversed(true);
    const QFontMetricsF fm(tick_font);
    const int col_step = panel.col_labels.isEmpty()
                             ? (panel.cell_w >= fm.horizontalAdvance(QStringLiteral("00")) + 4 ? 1 : 2)
                             : std::max(1, static_cast<int>(std::ceil((fm.height() + 2) / panel.cell_w)));
    x->setTicker(ticks(cols, col_step, panel.col_labels));
    y->setTicker(ticks(rows, panel.cell_h >= fm.height() ? 1 : 2));
    if (!panel.col_labels.isEmpty()) x->setTickLabelRotation(-60);
    for (QCPAxis* axis : {x, y}) {
      axis->setSubTicks(false);
      axis->setTickLabelFont(tick_font);
      axis->setLabelFont(tick_font);
      axis->grid()->setVisible(false);
    }
    x->setLabel(panel.col_axis);
    if (p == 0) y->setLabel(viewText("layer"));
    y->setTickLabels(p == 0);  // the layers are numbered once, at the left
    auto* map = new QCPColorMap(x, y);
    // A single column is stored as two half-width cells (one cell has no extent of its own).
    const int stored = cols == 1 ? 2 : cols;
    map->data()->setSize(stored, rows);
    map->data()->setRange(cols == 1 ? QCPRange(-0.25, 0.25) : QCPRange(0, cols - 1),
                          QCPRange(0, std::max(rows - 1, 1)));
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < stored; ++c) map->data()->setCell(c, r, panel.values(r, std::min(c, cols - 1)));
    map->setInterpolate(false);
    map->setTightBoundary(false);
    map->setGradient(gradient);
    map->setDataRange(range);
    if (!panel.text.empty() && panel.cell_h >= 11 && panel.cell_w >= 22) {  // words only when legible
      cell_font.setPointSizeF(std::clamp(panel.cell_h * 0.42, 6.0, 9.5) * scale);
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
          const double t = (panel.values(r, c) - range.lower) / std::max(range.size(), 1e-12);
          words.push_back({x, y, c, r, panel.text[static_cast<std::size_t>(r)][c], t < 0.55});
        }
      }
    }
  }
  auto* bar = new QCPColorScale(&plot);
  grid->addElement(1, static_cast<int>(panels.size()), bar);
  bar->setType(QCPAxis::atRight);
  bar->setGradient(gradient);
  bar->setDataRange(range);
  bar->axis()->setLabel(bar_label);
  bar->axis()->setLabelFont(panel_font);
  bar->axis()->setTickLabelFont(tick_font);
  bar->setMarginGroup(QCP::msTop | QCP::msBottom, group);
  bar->setMaximumSize(70, QWIDGETSIZE_MAX);
  // A small canvas (the window's dock) keeps its height for the cells; the note is the picture's.
  if (canvas.height() >= 420) {
    auto* under = new QCPTextElement(&plot, wrapWords(note, panel_font, text_width), panel_font);
    under->setObjectName(QStringLiteral("note"));
    plot.plotLayout()->addElement(2, 0, under);
    plot.plotLayout()->setRowStretchFactors({0.001, 1, 0.001});
  } else {
    plot.setToolTip(note);
    plot.plotLayout()->setRowStretchFactors({0.001, 1});
  }
  if (!words.empty()) new CellText(&plot, std::move(words), cell_font);
}

/// The height a picture keeps for its title, captions, axes and note (`full`, px); on a canvas
/// too small for the note (drawPanels leaves it out) 110 px less.
double reserved(QSize canvas, double full) { return canvas.height() >= 420 ? full : full - 110.0; }

/// The largest |value| of m (NaN skipped), at least `floor`.
double largest(const Matrix& m, double floor) {
  double v = floor;
  for (Eigen::Index i = 0; i < m.size(); ++i)
    if (std::isfinite(m.data()[i])) v = std::max(v, static_cast<double>(std::abs(m.data()[i])));
  return v;
}

QString percent(double p) { return QString::number(100.0 * p, 'f', 1) + QStringLiteral(" %"); }

/// A token's label as the pictures quote it.
QString quoted(const std::string& label) {
  return QStringLiteral("“%1”").arg(QString::fromStdString(label));
}

}  // namespace

QSize defaultLogitLensSize(int layers, int positions) {
  return QSize(std::max(640, 140 + 58 * std::max(positions, 1) + 90),
               std::max(420, 220 + 20 * std::max(layers, 1)));
}

void drawLogitLens(QCustomPlot& plot, const LogitLens& lens, const QStringList& labels,
                   const QString& title) {
  const auto layers = static_cast<int>(lens.cells.size());
  const int n = layers > 0 ? static_cast<int>(lens.cells.front().size()) : 0;
  Panel panel;
  panel.caption = viewText("top token after each layer (colour: its probability)");
  panel.values = Matrix::Zero(layers, n);
  panel.text.resize(static_cast<std::size_t>(layers));
  for (int l = 0; l < layers; ++l) {
    for (int p = 0; p < n; ++p) {
      const LensCell& c = lens.cells[static_cast<std::size_t>(l)][static_cast<std::size_t>(p)];
      panel.values(l, p) = static_cast<float>(c.top_probability);
      panel.text[static_cast<std::size_t>(l)] << QString::fromStdString(c.top_label);
    }
  }
  panel.col_labels = labels;
  panel.col_axis = viewText("input token (the prediction is of the token after it)");
  const QSize fallback = defaultLogitLensSize(layers, n);
  const QSize canvas = canvasSize(plot, fallback);
  panel.cell_w = std::clamp((canvas.width() - 230.0) / std::max(n, 1), 14.0, 64.0);
  panel.cell_h = std::clamp((canvas.height() - reserved(canvas, 230.0)) / std::max(layers, 1), 5.0, 24.0);
  QString note = viewText("Each layer's residual stream through the final norm and the output "
                          "layer (nostalgebraist 2020); the last row is the model's prediction.");
  if (n > 0 && !lens.final_labels.empty()) {
    int first = layers - 1;  // the first layer from which the final prediction stays on top
    while (first > 0 && lens.cells[static_cast<std::size_t>(first - 1)].back().final_rank == 0) --first;
    note += QStringLiteral(" ") + viewText("At the last token %1 is on top from layer %2 on.")
                                      .arg(quoted(lens.final_labels.back()))
                                      .arg(first);
  }
  drawPanels(plot, title, {panel}, viridisGradient(), QCPRange(0, 1), viewText("probability"),
             note, fallback);
}

QSize defaultAttributionSize(int layers, int heads) {
  const double cell = std::clamp(560.0 / std::max(layers, 1), 10.0, 28.0);
  return QSize(static_cast<int>(std::max(620.0, (heads + 1) * cell + 360)),
               static_cast<int>(layers * cell + 240));
}

void drawLogitAttribution(QCustomPlot& plot, const LogitAttribution& dla, const QString& title) {
  const auto layers = static_cast<int>(dla.heads.rows());
  const auto heads = static_cast<int>(dla.heads.cols());
  const QSize fallback = defaultAttributionSize(layers, heads);
  const QSize canvas = canvasSize(plot, fallback);
  const double cell = std::clamp(std::min((canvas.height() - reserved(canvas, 240.0)) / std::max(layers, 1),
                                          (canvas.width() - 360.0) / (heads + 1)),
                                 6.0, 28.0);
  Panel head_panel;
  head_panel.caption = viewText("each head");
  head_panel.values = dla.heads;
  head_panel.col_axis = viewText("head");
  head_panel.cell_w = head_panel.cell_h = cell;
  Panel mlp_panel;
  mlp_panel.caption = viewText("MLP");
  mlp_panel.values = Matrix(layers, 1);
  for (int l = 0; l < layers; ++l) mlp_panel.values(l, 0) = static_cast<float>(dla.mlp[static_cast<std::size_t>(l)]);
  mlp_panel.col_labels = {QString()};
  mlp_panel.cell_w = mlp_panel.cell_h = cell;
  const double top = largest(dla.heads, largest(mlp_panel.values, 1e-6));
  // The three heads that add most to the logit, named in the note.
  std::vector<std::tuple<double, int, int>> order;
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) order.emplace_back(dla.heads(l, h), l, h);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
  QStringList best;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, order.size()); ++i)
    best << QStringLiteral("%1.%2 (%3)").arg(std::get<1>(order[i])).arg(std::get<2>(order[i]))
                .arg(std::get<0>(order[i]), 0, 'f', 2);
  const QString note =
      viewText("Each part through the final norm with its scale frozen at the model's own "
               "(Elhage et al. 2021): the parts — heads %1, MLPs %2, embedding %3%4 — sum to %5, "
               "the logit%6 is %7. Largest heads (layer.head): %8.")
          .arg(dla.heads.sum(), 0, 'f', 2)
          .arg(std::accumulate(dla.mlp.begin(), dla.mlp.end(), 0.0), 0, 'f', 2)
          .arg(dla.embedding, 0, 'f', 2)
          .arg(std::accumulate(dla.attention_bias.begin(), dla.attention_bias.end(), dla.norm_bias) != 0
                   ? viewText(", biases %1")
                         .arg(std::accumulate(dla.attention_bias.begin(), dla.attention_bias.end(),
                                              dla.norm_bias), 0, 'f', 2)
                   : QString())
          .arg(dla.total, 0, 'f', 3)
          .arg(dla.versus ? viewText(" difference") : QString())
          .arg(dla.logit, 0, 'f', 3)
          .arg(best.join(QStringLiteral(", ")));
  drawPanels(plot, title, {head_panel, mlp_panel}, divergingGradient(), QCPRange(-top, top),
             viewText("logit"), note, fallback);
}

QSize defaultPatchingSize(int layers, int heads, int positions) {
  const double cell = std::clamp(560.0 / std::max(layers, 1), 10.0, 26.0);
  return QSize(static_cast<int>(std::max(720.0, (heads + positions) * cell + 380)),
               static_cast<int>(layers * cell + 330));
}

void drawPatching(QCustomPlot& plot, const PatchingResult& patching, const QStringList& labels,
                  const QString& title) {
  const auto layers = static_cast<int>(patching.heads.rows());
  const auto heads = static_cast<int>(patching.heads.cols());
  const auto n = static_cast<int>(patching.residual.cols());
  const QSize fallback = defaultPatchingSize(layers, heads, n);
  const QSize canvas = canvasSize(plot, fallback);
  const double cell = std::clamp(std::min((canvas.height() - reserved(canvas, 330.0)) / std::max(layers, 1),
                                          (canvas.width() - 380.0) / std::max(heads + n, 1)),
                                 6.0, 26.0);
  Panel head_panel;
  head_panel.caption = viewText("each head's output");
  head_panel.values = patching.heads;
  head_panel.col_axis = viewText("head");
  head_panel.cell_w = head_panel.cell_h = cell;
  Panel resid_panel;
  resid_panel.caption = viewText("the residual stream after each layer");
  resid_panel.values = patching.residual;
  resid_panel.col_labels = labels;
  resid_panel.cell_w = resid_panel.cell_h = cell;
  const QString measured =
      patching.versus ? viewText("logit(%1) − logit(%2)")
                            .arg(QString::fromStdString(patching.target_label),
                                 QString::fromStdString(patching.versus_label))
                      : viewText("logit(%1)").arg(QString::fromStdString(patching.target_label));
  const QString note =
      viewText("Each cell: one activation of the clean prompt copied into the corrupted run, the "
               "rest recomputed; 1 = %1 back at its clean value %2 from %3, 0 = unchanged.")
          .arg(measured)
          .arg(patching.clean, 0, 'f', 2)
          .arg(patching.corrupted, 0, 'f', 2);
  drawPanels(plot, title, {head_panel, resid_panel}, divergingGradient(), QCPRange(-1, 1),
             viewText("recovered"), note, fallback);
}

namespace {

/// The ablated heads' marks over the thumbnails, in plot pixels.
class AblationMarks : public QCPAbstractItem {
 public:
  AblationMarks(QCustomPlot* plot, std::vector<QRectF> cells)
      : QCPAbstractItem(plot), cells_(std::move(cells)) {
    setClipToAxisRect(false);
    setSelectable(false);
    setObjectName(QStringLiteral("ablatedHeads"));
  }
  double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }

 protected:
  void draw(QCPPainter* painter) override {
    for (const QRectF& c : cells_) {
      const double pen = std::clamp(c.width() / 12, 2.0, 4.0);
      painter->setPen(QPen(QColor(0x20, 0x20, 0x20, 220), pen));
      painter->setBrush(QColor(255, 255, 255, 90));
      painter->drawRect(c.adjusted(-pen / 2, -pen / 2, pen / 2, pen / 2));
      painter->drawLine(c.topLeft(), c.bottomRight());
      painter->drawLine(c.topRight(), c.bottomLeft());
    }
  }

 private:
  std::vector<QRectF> cells_;
};

}  // namespace

void markAblatedHeads(QCustomPlot& plot, const std::vector<HeadRef>& heads, int heads_per_layer,
                      const std::vector<int>& layer_indices) {
  const HeatmapDecor* decor = decorOf(plot);
  const auto shown = static_cast<int>(layer_indices.size());
  const int h = heads_per_layer;
  if (!decor || h < 1 || heads.empty() ||
      static_cast<int>(decor->layout().maps.size()) != shown * h)
    return;
  std::vector<QRectF> cells;
  for (int r = 0; r < shown; ++r) {
    for (const HeadRef& a : heads) {
      if (a.layer == layer_indices[static_cast<std::size_t>(r)] && a.head < h)
        cells.push_back(decor->layout().maps[static_cast<std::size_t>(r * h + a.head)].cells);
    }
  }
  if (!cells.empty()) new AblationMarks(&plot, std::move(cells));
}

QString withInterventionNotes(const results::Run& r, const QString& note) {
  QString out = note;
  const auto join = [&out](const QString& part) {
    out = out.isEmpty() ? part : out + QStringLiteral(" · ") + part;
  };
  if (r.interventions && !r.interventions->ablated.empty()) join(ablationLine(*r.interventions));
  if (r.settings.value_weighted) join(valueWeightedNote());
  return out;
}

QString valueWeightedNote() {
  return viewText("value-weighted: α_ij·‖v_j W_O^h‖ normalised per row (Kobayashi et al. 2020), "
                  "not the weights");
}

QString ablationLine(const results::Interventions& x) {
  if (x.ablated.empty()) return {};
  QStringList heads;
  for (const HeadRef& h : x.ablated) heads << QString::fromStdString(toString(h));
  QString line = viewText("ablated (%1): %2").arg(QString::fromStdString(toString(x.mode)), heads.join(QStringLiteral(", ")));
  if (!x.before.empty() && !x.after.empty()) {
    const NextToken& b = x.before.front();
    // The "before" token's probability after the ablation (it may have left the top k).
    double after_p = -1;
    for (const NextToken& t : x.after)
      if (t.id == b.id) after_p = t.probability;
    line += QStringLiteral(" · ") +
            viewText("next token %1 %2 → %3 %4").arg(QString::fromStdString(b.label), percent(b.probability),
                                                    QString::fromStdString(x.after.front().label),
                                                    percent(x.after.front().probability));
    if (after_p >= 0 && x.after.front().id != b.id)
      line += QStringLiteral(" ") + viewText("(%1 now %2)").arg(QString::fromStdString(b.label), percent(after_p));
  }
  if (!x.loss_before.empty()) {
    line += QStringLiteral(" · ") + viewText("mean loss %1 → %2 nats")
                                        .arg(results::Interventions::meanOf(x.loss_before), 0, 'f', 3)
                                        .arg(results::Interventions::meanOf(x.loss_after), 0, 'f', 3);
  }
  return line;
}

}  // namespace attnlab::views
