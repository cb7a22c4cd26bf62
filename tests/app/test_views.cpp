/// \file test_views.cpp
/// The views: heatmap pictures checked by their content (the colour at known cells, labels where
/// the layout says, overview pooling by hand), the colour scales, the saturation and analysis
/// plots, the model view, and image export to PNG, SVG and PDF.

#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QPainter>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <functional>
#include <random>

#include "attnlab/error.hpp"
#include "views/text.hpp"
#include "views/heatmap_layout.hpp"
#include "views/analysis_plots.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "views/picture.hpp"
#include "views/saturation_plot.hpp"
#include "attnlab/summary.hpp"
#include "run/run.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_views {

namespace {

using attnlab::AttentionInputs;
using attnlab::AttentionResult;
using attnlab::AttentionSpec;
using attnlab::Error;
using attnlab::Tensor3;
using attnlab::computeAttentionCpu;
using attnlab::ErrorCode;
using attnlab::Mask;
using attnlab::Mechanism;
using attnlab::SaturationAnalysis;
using attnlab::SaturationPoint;
namespace views = attnlab::views;

/// Two heads, 3 × 3, causal, hand-set weights (rows sum to 1 over the visible keys).
AttentionResult smallCausalResult() {
  AttentionResult r;
  r.mechanism = Mechanism::kScaled;
  r.mask = Mask::kCausal;
  r.scale = 1.0 / std::sqrt(8.0);
  r.weights = attnlab::Tensor3(2, 3, 3);
  const float w[2][3][3] = {{{1.0f, 0, 0}, {0.25f, 0.75f, 0}, {0.2f, 0.3f, 0.5f}},
                            {{1.0f, 0, 0}, {0.6f, 0.4f, 0}, {0.1f, 0.1f, 0.8f}}};
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) r.weights(k, i, j) = w[k][i][j];
  r.scores = r.weights;
  return r;
}

/// h heads of n_q × n_k softmax rows from N(0, spread²) scores, deterministic; causal optional.
AttentionResult randomResult(int h, int n_q, int n_k, Mask mask, double spread = 2.0,
                             unsigned seed = 7) {
  AttentionResult r;
  r.mask = mask;
  r.weights = attnlab::Tensor3(h, n_q, n_k);
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, spread);
  for (int k = 0; k < h; ++k) {
    for (int i = 0; i < n_q; ++i) {
      auto [lo, hi] = attnlab::visibleKeys(mask, i, n_k);
      std::vector<double> e(n_k, 0.0);
      double sum = 0;
      for (int j = lo; j < hi; ++j) sum += e[j] = std::exp(normal(rng));
      for (int j = lo; j < hi; ++j) r.weights(k, i, j) = static_cast<float>(e[j] / sum);
    }
  }
  return r;
}

views::RunLabel scaledLabel() {
  views::RunLabel label;
  label.spec.mechanism = Mechanism::kScaled;
  label.spec.mask = Mask::kCausal;
  label.spec.heads = 2;
  label.spec.d_model = 16;  // d_k = 8
  return label;
}

const QStringList kTokens{QStringLiteral("the"), QStringLiteral("cat"), QStringLiteral("sat")};

/// The text elements of the plot's layout; a title wrapped onto two lines reads as one.
QStringList layoutTexts(const QCustomPlot& plot) {
  QStringList texts;
  for (QCPLayoutElement* element : plot.plotLayout()->elements(true)) {
    if (auto* text = qobject_cast<QCPTextElement*>(element)) {
      texts << QString(text->text()).replace(QLatin1Char('\n'), QStringLiteral(" · "));
    }
  }
  return texts;
}

int legendEntries(const QCPLegend& legend) {
  int entries = 0;
  for (int i = 0; i < legend.elementCount(); ++i) entries += legend.item(i) != nullptr;
  return entries;
}

/// Draws into an offscreen plot laid out for width × height (as the CLI does).
void prepare(QCustomPlot& plot, int width, int height) {
  plot.setViewport(QRect(0, 0, width, height));
  views::setCanvasSize(plot, QSize(width, height));
}

/// The picture as pixels, laid out and replotted at its canvas size.
QImage render(QCustomPlot& plot) {
  const QRect viewport = plot.viewport();
  return plot.toPixmap(viewport.width(), viewport.height()).toImage();
}

/// The texts of a heatmap picture with `role`.
std::vector<QJsonObject> textsWithRole(const QJsonObject& layout, const QString& role) {
  std::vector<QJsonObject> out;
  for (const QJsonValue& v : layout["texts"].toArray())
    if (v.toObject()["role"].toString() == role) out.push_back(v.toObject());
  return out;
}

QString titleOf(const QJsonObject& layout) {
  const auto titles = textsWithRole(layout, QStringLiteral("title"));
  return titles.empty() ? QString() : titles.front()["text"].toString().replace(QLatin1Char('\n'), QStringLiteral(" · "));
}

QRectF rectOf(const QJsonObject& o) {
  return QRectF(o["x"].toDouble(), o["y"].toDouble(), o["width"].toDouble(), o["height"].toDouble());
}

/// The pixel of cell (row, column) of map `map` (from the layout JSON), a fifth of a cell in from
/// its corner (clear of the frame and of a weight printed at its centre).
QColor cellColor(const QImage& image, const QJsonObject& layout, int map, int row, int column) {
  const QJsonObject m = layout["maps"].toArray().at(map).toObject();
  const double cell = m["cell_width"].toDouble();
  const int x = static_cast<int>(m["x"].toDouble() + (column + 0.2) * cell);
  const int y = static_cast<int>(m["y"].toDouble() + (row + 0.2) * cell);
  return image.pixelColor(x, y);
}

/// Pixels in rect that differ clearly from white (ink).
int inkIn(const QImage& image, const QRectF& rect) {
  int ink = 0;
  const QRect r = rect.toAlignedRect().intersected(image.rect());
  for (int y = r.top(); y <= r.bottom(); ++y)
    for (int x = r.left(); x <= r.right(); ++x) ink += qGray(image.pixel(x, y)) < 160;
  return ink;
}

ErrorCode errorCodeOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const attnlab::Error& error) {
    return error.code();
  }
  FAIL("no attnlab::Error thrown");
  return ErrorCode::kInternal;
}

QByteArray readAll(const QString& path) {
  QFile file(path);
  REQUIRE(file.open(QIODevice::ReadOnly));
  return file.readAll();
}

/// CIE L* (0 … 100) of an sRGB colour.
double lightness(const QColor& c) {
  auto linear = [](double v) {
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  const double y =
      0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
  return y > 216.0 / 24389.0 ? 116.0 * std::cbrt(y) - 16.0 : y * 24389.0 / 27.0;
}

bool near(const QColor& a, const QColor& b, int tolerance) {
  return std::abs(a.red() - b.red()) <= tolerance && std::abs(a.green() - b.green()) <= tolerance &&
         std::abs(a.blue() - b.blue()) <= tolerance;
}

/// A fake Monte-Carlo result shaped like the real one: unscaled saturates, scaled stays flat.
SaturationAnalysis fakeSaturation(int n_k) {
  SaturationAnalysis a;
  a.n_k = n_k;
  const double base = std::min(1.0, 1.2 / std::sqrt(static_cast<double>(n_k)));
  const double wobble = n_k == 16 ? 0.0 : 0.03;
  for (int d = 1; d <= 1024; d *= 2) {
    const double s = std::log2(static_cast<double>(d)) / 10.0;  // 0 … 1
    const double jitter = wobble * std::sin(3.0 * d);
    a.scaled.push_back({d, static_cast<double>(d), base + jitter, 0.88 - jitter, 0.2});
    a.unscaled.push_back({d, static_cast<double>(d), base + (0.98 - base) * s + jitter,
                          (0.88 - jitter) * (1 - s), 0.2 * (1 - s)});
  }
  return a;
}

}  // namespace

TEST_CASE("viridis runs from dark purple to yellow with rising lightness", "[views][colormap]") {
  CHECK(near(views::viridis(0.0), QColor(0x44, 0x01, 0x54), 1));
  CHECK(near(views::viridis(1.0), QColor(0xfd, 0xe7, 0x25), 1));
  CHECK(near(views::viridis(0.5), QColor(0x21, 0x90, 0x8c), 2));
  CHECK(views::viridis(-1.0) == views::viridis(0.0));
  CHECK(views::viridis(2.0) == views::viridis(1.0));
  double previous = -1;
  for (int k = 0; k <= 100; ++k) {
    const double l = lightness(views::viridis(k / 100.0));
    INFO("t = " << k / 100.0);
    CHECK(l > previous);
    previous = l;
  }
  // The masked grey is lighter than dark purple and is not a viridis colour.
  CHECK(lightness(views::kMaskedColor) > lightness(views::viridis(0.0)) + 40);
}

TEST_CASE("viridisGradient matches viridis and paints NaN in the masked grey",
          "[views][colormap]") {
  QCPColorGradient gradient = views::viridisGradient();
  CHECK(gradient.levelCount() == 350);
  CHECK(gradient.nanHandling() == QCPColorGradient::nhNanColor);
  CHECK(gradient.nanColor() == views::kMaskedColor);
  const QCPRange range(0, 1);
  for (double t : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    INFO("t = " << t);
    CHECK(near(QColor::fromRgb(gradient.color(t, range)), views::viridis(t), 3));
  }
  const double nan = std::nan("");
  QRgb rgb = 0;
  gradient.colorize(&nan, range, &rgb, 1);
  CHECK(QColor::fromRgb(rgb) == views::kMaskedColor);
}

TEST_CASE("mechanismTitle and scalingText name the run, each once", "[views][heatmap]") {
  attnlab::AttentionSpec spec;
  spec.mechanism = Mechanism::kScaled;
  CHECK(views::mechanismTitle(spec) == QStringLiteral("scaled dot-product"));
  CHECK(views::scalingText(spec) == QStringLiteral("scaled 1/√d_k"));
  spec.mechanism = Mechanism::kDot;
  CHECK(views::mechanismTitle(spec) == QStringLiteral("dot-product, unscaled"));
  CHECK(views::scalingText(spec) == QStringLiteral("unscaled"));
  spec.mechanism = Mechanism::kAdditive;
  CHECK(views::mechanismTitle(spec) == QStringLiteral("additive"));
  spec.temperature = 0.25;
  CHECK(views::mechanismTitle(spec) == QStringLiteral("additive · T = 0.25"));
  spec.mechanism = Mechanism::kScaled;
  spec.temperature = 2.0;
  CHECK(views::mechanismTitle(spec) == QStringLiteral("dot-product · T = 2"));
  CHECK(views::scalingText(spec) == QStringLiteral("T = 2"));
}

TEST_CASE("drawHeatmap: cells are (key j, query i) in weight units, masked cells NaN", "[views][heatmap]") {
  const AttentionResult result = smallCausalResult();
  QCustomPlot plot;
  prepare(plot, 600, 600);
  views::drawHeatmap(plot, result, 1, kTokens, kTokens, scaledLabel());
  REQUIRE(plot.plottableCount() == 1);
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
  REQUIRE(map);
  CHECK_FALSE(map->interpolate());
  CHECK(map->keyAxis()->axisType() == QCPAxis::atTop);
  CHECK(map->valueAxis()->rangeReversed());  // query 0 at the top
  QCPColorMapData* data = map->data();
  REQUIRE(data->keySize() == 3);
  REQUIRE(data->valueSize() == 3);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      INFO("query " << i << ", key " << j);
      if (j > i) {
        CHECK(std::isnan(data->cell(j, i)));
      } else {
        CHECK(data->cell(j, i) == Approx(result.weights(1, i, j)));
      }
    }
  }
  CHECK(map->dataRange().lower == 0.0);
  CHECK(map->dataRange().upper == 1.0);
}

TEST_CASE("drawHeatmap: the picture shows each weight's colour at its cell, masked cells grey",
          "[views][heatmap][picture]") {
  QCustomPlot plot;
  prepare(plot, 640, 560);
  views::drawHeatmap(plot, smallCausalResult(), 0, kTokens, kTokens, scaledLabel());
  const QImage image = render(plot);
  const QJsonObject layout = views::layoutJson(plot);
  const QJsonObject map = layout["maps"].toArray().at(0).toObject();
  CHECK(map["cell_width"].toDouble() == map["cell_height"].toDouble());
  CHECK(map["cell_width"].toDouble() >= 100);  // 3 tokens: large cells
  // Sample off the cell centre (the centre carries the printed weight): a quarter in.
  auto at = [&](int row, int column) {
    const double cell = map["cell_width"].toDouble();
    return image.pixelColor(static_cast<int>(map["x"].toDouble() + (column + 0.2) * cell),
                            static_cast<int>(map["y"].toDouble() + (row + 0.2) * cell));
  };
  CHECK(near(at(0, 2), views::kMaskedColor, 2));   // query 0 cannot see key 2
  CHECK(near(at(0, 0), views::viridis(1.0), 6));   // weight 1
  CHECK(near(at(1, 1), views::viridis(0.75), 6));  // weight 0.75
  CHECK(near(at(2, 0), views::viridis(0.2), 6));
  // The weights are printed in the cells, white on dark cells, black on light ones.
  const auto values = textsWithRole(layout, QStringLiteral("cell_value"));
  CHECK(values.size() == 6);
  // Labels sit beside their rows and columns, drawn where the layout says (ink inside).
  for (const QJsonObject& label : textsWithRole(layout, QStringLiteral("query_label"))) {
    const QRectF r = rectOf(label);
    const int row = label["index"].toInt();
    CHECK(r.center().y() == Approx(map["y"].toDouble() + (row + 0.5) * map["cell_height"].toDouble()).margin(0.6));
    CHECK(r.right() < map["x"].toDouble());
    CHECK(inkIn(image, r) > 5);
  }
  CHECK(textsWithRole(layout, QStringLiteral("key_label")).size() == 3);
  CHECK(titleOf(layout) == QStringLiteral("head 0 · scaled dot-product · d_k = 8 · 3 tokens · causal mask"));
  const auto axes = textsWithRole(layout, QStringLiteral("axis_title"));
  REQUIRE(axes.size() == 2);
  CHECK(axes[0]["text"].toString() == QStringLiteral("key"));
  CHECK(axes[1]["text"].toString() == QStringLiteral("query"));
  const auto notes = textsWithRole(layout, QStringLiteral("note"));
  REQUIRE(notes.size() == 1);
  CHECK(notes[0]["text"].toString().startsWith(QStringLiteral("grey = masked")));
  // The colour bar: 0 and 1 are labelled, and its title names the scale.
  const auto ticks = textsWithRole(layout, QStringLiteral("bar_tick"));
  REQUIRE(ticks.size() >= 2);
  CHECK(ticks.front()["text"].toString() == QStringLiteral("0"));
  CHECK(ticks.back()["text"].toString() == QStringLiteral("1"));
  CHECK(layout["color_bar"].toObject()["title"].toString() == QStringLiteral("attention weight"));
  CHECK(layout["color_scale"].toString() == QStringLiteral("linear"));
}

TEST_CASE("drawHeatmap and drawHeadGrid fill their frames at every length from 1 to 24",
          "[views][heatmap][picture]") {
  // QCPColorMap starts as 10 × 10 cells over 0–5: a 10-token map that kept that range was drawn
  // into the top-left 0.56 of its frame, the rest white. Each corner cell must show its colour.
  const int n = GENERATE(range(1, 25));
  const bool grid = GENERATE(false, true);
  INFO(n << " tokens, " << (grid ? "grid of 2 heads" : "one head"));
  const AttentionResult result = randomResult(2, n, n, Mask::kCausal);
  QCustomPlot plot;
  prepare(plot, 640, 560);
  views::RunLabel label = scaledLabel();
  if (grid) {
    views::drawHeadGrid(plot, result, {}, {}, label);
  } else {
    views::drawHeatmap(plot, result, 0, {}, {}, label);
  }
  const QImage image = render(plot);
  const QJsonObject layout = views::layoutJson(plot);
  const QJsonObject m = layout["maps"].toArray().at(0).toObject();
  const int cells = static_cast<int>(std::lround(m["height"].toDouble() / m["cell_height"].toDouble()));
  REQUIRE(cells >= 1);
  const int last = cells - 1;
  // Seen cells (the diagonal corner and the first column) in viridis, hidden ones grey.
  CHECK(lightness(cellColor(image, layout, 0, last, last)) < 95);
  CHECK(lightness(cellColor(image, layout, 0, last, 0)) < 95);
  if (cells > 1) CHECK(near(cellColor(image, layout, 0, 0, last), views::kMaskedColor, 2));
}

TEST_CASE("drawHeatmap: cross-attention names target and source; other titles", "[views][heatmap]") {
  AttentionResult result = randomResult(1, 3, 4, Mask::kNone);
  views::RunLabel label;
  label.spec.mechanism = Mechanism::kDot;
  label.spec.heads = 1;
  label.spec.d_model = 64;
  label.spec.temperature = 2.0;
  label.cross = true;
  label.model = QStringLiteral("m");
  label.layer = 3;
  QCustomPlot plot;
  prepare(plot, 700, 560);
  views::drawHeatmap(plot, result, 0, kTokens, {"a", "b", "c", "d"}, label);
  const QJsonObject layout = views::layoutJson(plot);
  CHECK(titleOf(layout) ==
        QStringLiteral("m · layer 3 · head 0 · dot-product · T = 2 · d_k = 64 · 3 queries × 4 keys · cross-attention"));
  const auto axes = textsWithRole(layout, QStringLiteral("axis_title"));
  REQUIRE(axes.size() == 2);
  CHECK(axes[0]["text"].toString() == QStringLiteral("key (source)"));
  CHECK(axes[1]["text"].toString() == QStringLiteral("query (target)"));
  CHECK(textsWithRole(layout, QStringLiteral("note")).empty());  // nothing masked
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
  REQUIRE(map);
  CHECK(map->data()->keySize() == 4);
  CHECK(map->data()->valueSize() == 3);
}

TEST_CASE("drawHeatmap accepts a single token and index labels", "[views][heatmap]") {
  AttentionResult result = randomResult(1, 1, 1, Mask::kCausal);
  QCustomPlot plot;
  prepare(plot, 500, 500);
  views::drawHeatmap(plot, result, 0, {}, {}, views::RunLabel{});
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
  REQUIRE(map);
  CHECK(map->data()->cell(0, 0) == Approx(1.0));
  const QJsonObject layout = views::layoutJson(plot);
  const auto labels = textsWithRole(layout, QStringLiteral("query_label"));
  REQUIRE(labels.size() == 1);
  CHECK(labels[0]["text"].toString() == QStringLiteral("0"));
  const QImage image = render(plot);
  const QJsonObject m = layout["maps"].toArray().at(0).toObject();
  CHECK(near(image.pixelColor(static_cast<int>(m["x"].toDouble() + 8), static_cast<int>(m["y"].toDouble() + 8)),
             views::viridis(1.0), 6));
}

TEST_CASE("drawHeatmap rejects bad input", "[views][heatmap]") {
  QCustomPlot plot;
  const AttentionResult result = smallCausalResult();
  CHECK(errorCodeOf([&] { views::drawHeatmap(plot, result, 2, kTokens, kTokens, scaledLabel()); }) ==
        ErrorCode::kInvalidArgument);
  CHECK(errorCodeOf([&] { views::drawHeatmap(plot, result, -1, kTokens, kTokens, scaledLabel()); }) ==
        ErrorCode::kInvalidArgument);
  CHECK(errorCodeOf([&] { views::drawHeatmap(plot, result, 0, {"a", "b"}, kTokens, scaledLabel()); }) ==
        ErrorCode::kInvalidArgument);
  CHECK(errorCodeOf([&] { views::drawHeadGrid(plot, AttentionResult{}, kTokens, kTokens, scaledLabel()); }) ==
        ErrorCode::kInvalidArgument);
}

TEST_CASE("drawHeadGrid: one square map per head; labels on the outer maps", "[views][grid]") {
  const AttentionResult result = smallCausalResult();
  QCustomPlot plot;
  prepare(plot, 800, 500);
  views::drawHeadGrid(plot, result, kTokens, kTokens, scaledLabel());
  REQUIRE(plot.plottableCount() == 2);
  CHECK(plot.axisRectCount() == 2);
  for (int k = 0; k < 2; ++k) {
    auto* map = qobject_cast<QCPColorMap*>(plot.plottable(k));
    REQUIRE(map);
    CHECK(map->data()->cell(1, 2) == Approx(result.weights(k, 2, 1)));
    CHECK(std::isnan(map->data()->cell(2, 1)));
  }
  const QImage image = render(plot);
  const QJsonObject layout = views::layoutJson(plot);
  CHECK(layout["columns"].toInt() == 2);  // a wide canvas: side by side
  for (int k = 0; k < 2; ++k) {
    const QJsonObject m = layout["maps"].toArray().at(k).toObject();
    CHECK(m["cell_width"].toDouble() == m["cell_height"].toDouble());
    CHECK(near(cellColor(image, layout, k, 2, 1), views::viridis(result.weights(k, 2, 1)), 6));
    CHECK(near(cellColor(image, layout, k, 0, 2), views::kMaskedColor, 2));
  }
  CHECK(textsWithRole(layout, QStringLiteral("panel_title")).size() == 2);
  // Queries are labelled left of the first column, keys above the first row.
  CHECK(textsWithRole(layout, QStringLiteral("query_label")).size() == 3);
  CHECK(textsWithRole(layout, QStringLiteral("key_label")).size() == 6);
  CHECK(titleOf(layout) == QStringLiteral("2 heads · scaled dot-product · d_k = 8 · 3 tokens · causal mask"));
  // Redrawing replaces everything.
  views::drawHeatmap(plot, result, 0, kTokens, kTokens, scaledLabel());
  CHECK(plot.plottableCount() == 1);
  CHECK(plot.axisRectCount() == 1);
}

TEST_CASE("heatmaps: square cells and labels that never overlap, at any length", "[views][grid]") {
  const QStringList chinese = QString::fromUtf8("我爱自然语言处理。注意力机制很有趣").split(QString(), Qt::SkipEmptyParts);
  for (int n : {3, 11, 17, 60, 500}) {
    for (int heads : {1, 8}) {
      QStringList tokens;
      for (int i = 0; i < n; ++i) tokens << (n == 17 ? chinese.at(i) : QStringLiteral("tok%1").arg(i));
      const AttentionResult result = randomResult(heads, n, n, Mask::kCausal);
      const views::ImageSize size = views::defaultHeatmapSize(n, n, heads);
      QCustomPlot plot;
      prepare(plot, size.width, size.height);
      if (heads == 1) {
        views::drawHeatmap(plot, result, 0, tokens, tokens, scaledLabel());
      } else {
        views::drawHeadGrid(plot, result, tokens, tokens, scaledLabel());
      }
      render(plot);
      const QJsonObject layout = views::layoutJson(plot);
      INFO("n = " << n << ", heads = " << heads);
      for (const QJsonValue& v : layout["maps"].toArray()) {
        const QJsonObject m = v.toObject();
        CHECK(m["cell_width"].toDouble() == Approx(m["cell_height"].toDouble()).epsilon(0.1));
        CHECK(m["drawn"].toObject()["width"].toDouble() == Approx(m["width"].toDouble()).margin(1));
      }
      const QJsonArray texts = layout["texts"].toArray();
      for (int a = 0; a < texts.size(); ++a) {
        const QRectF ra = rectOf(texts[a].toObject());
        CHECK(QRectF(0, 0, size.width, size.height).contains(ra));
        for (int b = a + 1; b < texts.size(); ++b) {
          const QRectF rb = rectOf(texts[b].toObject());
          if (views::overlaps(ra, rb)) {
            FAIL_CHECK(texts[a].toObject()["text"].toString().toStdString()
                       << " overlaps " << texts[b].toObject()["text"].toString().toStdString());
          }
        }
      }
      if (n <= 17) {
        // Few tokens: every token is labelled, upright CJK keys included.
        CHECK(static_cast<int>(textsWithRole(layout, QStringLiteral("query_label")).size()) >= n);
        CHECK(layout["query_step"].toInt() == 1);
        CHECK(layout["key_step"].toInt() == 1);
      }
    }
  }
}

TEST_CASE("long inputs: an overview of blocks, pooled by max or mean, on a log scale", "[views][overview]") {
  const int n = 900;
  const AttentionResult result = randomResult(1, n, n, Mask::kNone, 2.0, 29);
  QStringList tokens;
  for (int i = 0; i < n; ++i) tokens << QStringLiteral("w%1").arg(i);
  for (views::Pool pool : {views::Pool::kMax, views::Pool::kMean}) {
    QCustomPlot plot;
    prepare(plot, 900, 900);
    views::drawHeatmap(plot, result, 0, tokens, tokens, scaledLabel(), {views::ColorScale::kAuto, pool});
    const QJsonObject layout = views::layoutJson(plot);
    const QJsonObject m = layout["maps"].toArray().at(0).toObject();
    const int b = m["block"].toInt();
    INFO("block " << b);
    REQUIRE(b > 1);
    CHECK(m["cell_width"].toDouble() >= views::kOverviewCellPx);
    CHECK(layout["color_scale"].toString() == QStringLiteral("log"));  // auto for long inputs
    CHECK(titleOf(layout).contains(QStringLiteral("%1 tokens · overview: %2 × %2-token blocks, %3")
                                       .arg(n)
                                       .arg(b)
                                       .arg(pool == views::Pool::kMax ? QStringLiteral("max") : QStringLiteral("mean"))));
    // The first block by hand: the max (or mean) of its b × b weights, as log10.
    double best = 0, sum = 0;
    for (int i = 0; i < b; ++i)
      for (int j = 0; j < b; ++j) {
        best = std::max(best, static_cast<double>(result.weights(0, i, j)));
        sum += result.weights(0, i, j);
      }
    auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
    REQUIRE(map);
    CHECK(map->data()->keySize() == (n + b - 1) / b);
    CHECK(map->data()->cell(0, 0) == Approx(std::log10(pool == views::Pool::kMax ? best : sum / (b * b))).margin(1e-6));
    // The colour bar marks the uniform level 1/n and names the pooling.
    const auto marks = textsWithRole(layout, QStringLiteral("bar_mark"));
    REQUIRE(marks.size() == 1);
    CHECK(marks[0]["text"].toString() == QStringLiteral("uniform 1/%1").arg(n));
    CHECK(layout["color_bar"].toObject()["title"].toString().contains(
        pool == views::Pool::kMax ? QStringLiteral("block max") : QStringLiteral("block mean")));
    // The cell under a pixel names exact tokens, also inside a block.
    const double token_px = m["cell_width"].toDouble() / b;
    const auto hit = views::cellAt(plot, QPointF(m["x"].toDouble() + (7 + 0.5) * token_px,
                                                 m["y"].toDouble() + (3 + 0.5) * token_px));
    REQUIRE(hit);
    CHECK(hit->key == 7);
    CHECK(hit->query == 3);
  }
}

TEST_CASE("colour scales: log and relative to uniform, at known cells", "[views][scale][picture]") {
  // One head, 4 keys, row 0 uniform (1/4 each), row 1 one-hot, row 2 = (0.5, 0.25, 0.125, 0.125).
  AttentionResult r;
  r.mask = Mask::kNone;
  r.weights = Tensor3(1, 3, 4);
  const float w[3][4] = {{0.25f, 0.25f, 0.25f, 0.25f}, {1, 0, 0, 0}, {0.5f, 0.25f, 0.125f, 0.125f}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) r.weights(0, i, j) = w[i][j];
  QCustomPlot plot;
  prepare(plot, 700, 600);
  views::drawHeatmap(plot, r, 0, {}, {}, views::RunLabel{}, {views::ColorScale::kLog, views::Pool::kMax});
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
  REQUIRE(map);
  // log10 weights, floored a decade below 1/n_k: 0.1/4 → floor(log10 0.025) = −2.
  CHECK(map->dataRange().lower == -2.0);
  CHECK(map->dataRange().upper == 0.0);
  CHECK(map->data()->cell(0, 0) == Approx(std::log10(0.25)));
  CHECK(map->data()->cell(1, 1) == Approx(-2.0));  // a weight of 0 sits at the floor
  QImage image = render(plot);
  QJsonObject layout = views::layoutJson(plot);
  CHECK(near(cellColor(image, layout, 0, 1, 0), views::viridis(1.0), 6));
  CHECK(near(cellColor(image, layout, 0, 0, 0), views::viridis((std::log10(0.25) + 2) / 2), 6));
  CHECK(layout["color_bar"].toObject()["title"].toString() == QStringLiteral("attention weight (log scale)"));

  views::drawHeatmap(plot, r, 0, {}, {}, views::RunLabel{}, {views::ColorScale::kRelative, views::Pool::kMax});
  map = qobject_cast<QCPColorMap*>(plot.plottable(0));
  // log2(n·p): uniform → 0, the range ±2 bits for 4 keys.
  CHECK(map->dataRange().lower == -2.0);
  CHECK(map->dataRange().upper == 2.0);
  CHECK(map->data()->cell(2, 0) == Approx(0.0));
  CHECK(map->data()->cell(0, 2) == Approx(1.0));  // 4 · 0.5 = 2 = 2^1
  image = render(plot);
  layout = views::layoutJson(plot);
  // Uniform cells are the diverging map's middle (near white), the one-hot cell its red end.
  CHECK(near(cellColor(image, layout, 0, 0, 1), QColor(0xf7, 0xf7, 0xf7), 6));
  CHECK(near(cellColor(image, layout, 0, 1, 0), QColor(0xb2, 0x18, 0x2b), 6));
  CHECK(near(cellColor(image, layout, 0, 1, 1), QColor(0x21, 0x66, 0xac), 6));
  CHECK(textsWithRole(layout, QStringLiteral("bar_mark")).at(0)["text"].toString() == QStringLiteral("×1 = uniform"));
}

TEST_CASE("updateWeights refills the maps without a new layout", "[views][grid]") {
  AttentionResult a = randomResult(2, 5, 5, Mask::kNone, 2.0, 1);
  const AttentionResult b = randomResult(2, 5, 5, Mask::kNone, 2.0, 2);
  QCustomPlot plot;
  prepare(plot, 700, 500);
  views::drawHeadGrid(plot, a, {}, {}, scaledLabel());
  const QJsonObject before = views::layoutJson(plot);
  views::RunLabel label = scaledLabel();
  label.spec.d_k = 64;
  REQUIRE(views::updateWeights(plot, b, -1, {}, {}, label));
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(1));
  CHECK(map->data()->cell(3, 2) == Approx(b.weights(1, 2, 3)));
  const QJsonObject after = views::layoutJson(plot);
  CHECK(after["maps"] == before["maps"]);
  CHECK(titleOf(after).contains(QStringLiteral("d_k = 64")));
  // Another shape or canvas needs a new layout.
  CHECK_FALSE(views::updateWeights(plot, randomResult(2, 6, 6, Mask::kNone), -1, {}, {}, label));
  views::setCanvasSize(plot, QSize(800, 500));
  CHECK_FALSE(views::updateWeights(plot, b, -1, {}, {}, label));
}

TEST_CASE("emoji are drawn in colour, vertical labels keep CJK upright", "[views][text]") {
  const auto runs = views::splitRuns(QString::fromUtf8("a😀b👨‍👩‍👧🇫🇷我爱❤c"));
  if (views::emojiFamily().isEmpty()) {
    WARN("skipped: no colour emoji font (fonts-noto-color-emoji)");
    return;
  }
  QStringList emoji;
  for (const auto& run : runs)
    if (run.emoji) emoji << run.text;
  CHECK(emoji == QStringList{QString::fromUtf8("😀"), QString::fromUtf8("👨‍👩‍👧"), QString::fromUtf8("🇫🇷")});  // ❤ without U+FE0F is text
  // A vertical label stacks CJK characters: taller than wide; Latin runs are turned.
  const QFont font;
  const QSizeF zh = views::measureText(QString::fromUtf8("我爱你"), font, views::Orientation::kVertical);
  CHECK(zh.height() > 2.5 * zh.width());
  const QSizeF en = views::measureText(QStringLiteral("because"), font, views::Orientation::kVertical);
  CHECK(en.height() == Approx(views::measureText(QStringLiteral("because"), font).width()));
  // 😀 in a picture is coloured (the text font's glyph would be black).
  QImage image(120, 60, QImage::Format_ARGB32);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    QFont big;
    big.setPixelSize(40);
    views::drawText(painter, {QStringLiteral("t"), QString::fromUtf8("😀"), big, QRectF(10, 5, 100, 50)});
  }
  int colourful = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      colourful += c.saturation() > 120 && c.value() > 120;
    }
  CHECK(colourful > 50);
}

TEST_CASE("drawSaturation: six curves, log2 d_k axis, sentence points, marker",
          "[views][saturation]") {
  const SaturationAnalysis model = fakeSaturation(16);
  QCustomPlot plot;
  views::drawSaturation(plot, model, std::nullopt, 64, false);
  CHECK(plot.graphCount() == 6);
  REQUIRE(plot.xAxis);
  CHECK(plot.xAxis->scaleType() == QCPAxis::stLogarithmic);
  auto log_ticker = plot.xAxis->ticker().dynamicCast<QCPAxisTickerLog>();
  REQUIRE(log_ticker);
  CHECK(log_ticker->logBase() == 2.0);
  CHECK(plot.xAxis->range().lower < 1.0);
  CHECK(plot.xAxis->range().upper > 1024.0);
  CHECK(plot.yAxis->range().lower <= 0.0);
  CHECK(plot.yAxis->range().upper >= 1.0);
  CHECK(plot.xAxis->label() == QStringLiteral("d_k (log₂ scale)"));
  CHECK(plot.yAxis->label() == QStringLiteral("mean over rows"));
  CHECK(plot.graph(0)->data()->size() == 11);
  QStringList names;
  for (int g = 0; g < plot.graphCount(); ++g) names << plot.graph(g)->name();
  CHECK(names.contains(QStringLiteral("max weight, scaled 1/√d_k")));
  CHECK(names.contains(QStringLiteral("entropy / ln n_k, unscaled")));
  // The softmax Jacobian's norm: graph 5 is its unscaled curve, falling 0.2 → 0 over d_k.
  CHECK(plot.graph(5)->name() == QStringLiteral("‖softmax Jacobian‖, unscaled"));
  CHECK(plot.graph(5)->data()->at(0)->value == Approx(0.2));
  CHECK(plot.graph(5)->data()->at(10)->value == Approx(0.0).margin(1e-12));
  REQUIRE(plot.legend);
  CHECK(legendEntries(*plot.legend) == 6);
  CHECK(layoutTexts(plot).contains(QStringLiteral("Softmax saturation vs d_k (n_k = 16 keys)")));
  bool has_label = false;
  for (int i = 0; i < plot.itemCount(); ++i) {
    if (auto* text = qobject_cast<QCPItemText*>(plot.item(i)))
      has_label = has_label || text->text() == QStringLiteral("d_k = 64 (unscaled)");
  }
  CHECK(has_label);
  CHECK(plot.itemCount() >= 5);  // line, three emphasised markers, label
  bool jacobian_value = false;  // the marker reads the unscaled Jacobian at d_k = 64: 0.2·(1 − 0.6)
  for (int i = 0; i < plot.itemCount(); ++i)
    if (auto* text = qobject_cast<QCPItemText*>(plot.item(i)); text && text->objectName() == QStringLiteral("marker_value_jacobian"))
      jacobian_value = text->text() == QStringLiteral("0.08");
  CHECK(jacobian_value);

  SaturationAnalysis sentence = fakeSaturation(7);
  views::drawSaturation(plot, model, sentence, 8, true);
  CHECK(plot.graphCount() == 6 + 4 + 1);  // curves, sentence markers, the sentence legend key
  CHECK(legendEntries(*plot.legend) == 7);
}

TEST_CASE("imageFormatForPath reads the suffix", "[views][export]") {
  CHECK(views::imageFormatForPath(QStringLiteral("a/b.png")) == views::ImageFormat::kPng);
  CHECK(views::imageFormatForPath(QStringLiteral("B.PNG")) == views::ImageFormat::kPng);
  CHECK(views::imageFormatForPath(QStringLiteral("x.Svg")) == views::ImageFormat::kSvg);
  CHECK(views::imageFormatForPath(QStringLiteral("x.pdf")) == views::ImageFormat::kPdf);
  CHECK_FALSE(views::imageFormatForPath(QStringLiteral("x.jpg")));
  CHECK_FALSE(views::imageFormatForPath(QStringLiteral("pdf")));
}

TEST_CASE("exportPlot writes PNG, SVG and PDF", "[views][export]") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  QCustomPlot plot;
  prepare(plot, 400, 300);
  views::drawHeatmap(plot, smallCausalResult(), 0, kTokens, kTokens, scaledLabel());

  const QString png = dir.filePath(QStringLiteral("heat.png"));
  views::exportPlot(plot, png, {400, 300, 2.0});
  CHECK(readAll(png).startsWith("\x89PNG\r\n\x1a\n"));
  const QImage image(png);
  CHECK(image.width() == 800);
  CHECK(image.height() == 600);

  prepare(plot, 500, 400);
  views::drawHeatmap(plot, smallCausalResult(), 0, kTokens, kTokens, scaledLabel());
  // A heatmap laid out for another size is not exported distorted.
  CHECK(errorCodeOf([&] { views::exportPlot(plot, dir.filePath(QStringLiteral("x.png")), {400, 300, 1.0}); }) ==
        ErrorCode::kInvalidArgument);
  const QString svg = dir.filePath(QStringLiteral("heat.svg"));
  views::exportPlot(plot, svg, {500, 400, 1.0});
  const QByteArray svg_text = readAll(svg);
  CHECK((svg_text.startsWith("<?xml") || svg_text.contains("<svg")));
  CHECK(svg_text.contains("<svg"));
  CHECK(svg_text.contains("viewBox=\"0 0 500 400\""));
  CHECK(svg_text.contains("<text"));  // vector text
  CHECK(svg_text.contains(">the<"));  // the token labels as text
  CHECK((svg_text.contains("<polyline") || svg_text.contains("<path")));  // vector lines
  // The cells are vector rectangles: 6 visible cells + the masked runs, not one bitmap. (The
  // colour bar's gradient stays an image.)
  CHECK(svg_text.count("<rect") + svg_text.count("<path") >= 8);
  CHECK(svg_text.count("<image") <= 1);  // the colour bar's strip

  const QString pdf = dir.filePath(QStringLiteral("heat.pdf"));
  views::exportPlot(plot, pdf, {500, 400, 1.0});
  CHECK(readAll(pdf).startsWith("%PDF"));
}

TEST_CASE("exportPlot reports bad paths and sizes", "[views][export]") {
  // One limit, one message: the option table's (16384 pixels on a side, scale included).
  QCustomPlot saturation;
  views::drawSaturation(saturation, fakeSaturation(16), std::nullopt, 8, true);
  QTemporaryDir big;
  try {
    views::exportPlot(saturation, big.filePath(QStringLiteral("big.png")), {10000, 300, 2.0});
    FAIL("no error");
  } catch (const attnlab::Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK_THAT(error.what(), Catch::Contains("the image would be 20000 x 600 pixels; at most 16384 on a side"));
  }
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  QCustomPlot plot;
  prepare(plot, 400, 300);
  views::drawHeatmap(plot, smallCausalResult(), 0, kTokens, kTokens, scaledLabel());
  const QString missing = dir.filePath(QStringLiteral("no/such/folder/heat.png"));
  for (const char* suffix : {"png", "svg", "pdf"}) {
    const QString path = dir.filePath(QStringLiteral("missing/heat.") + QLatin1String(suffix));
    INFO(suffix);
    CHECK(errorCodeOf([&] { views::exportPlot(plot, path, {400, 300, 1.0}); }) == ErrorCode::kIo);
  }
  try {
    views::exportPlot(plot, missing, {400, 300, 1.0});
    FAIL("no error");
  } catch (const attnlab::Error& error) {
    CHECK(error.code() == ErrorCode::kIo);
    CHECK_THAT(error.what(), Catch::Contains("cannot write") && Catch::Contains("heat.png"));
  }
  CHECK(errorCodeOf([&] {
          views::exportPlot(plot, dir.path(), {400, 300, 1.0});
        }) == ErrorCode::kInvalidArgument);  // no suffix
  const QString png = dir.filePath(QStringLiteral("ok.png"));
  CHECK(errorCodeOf([&] {
          views::exportPlot(plot, png, {0, 300, 1.0});
        }) == ErrorCode::kInvalidArgument);
  CHECK(errorCodeOf([&] {
          views::exportPlot(plot, png, {400, -1, 1.0});
        }) == ErrorCode::kInvalidArgument);
  CHECK(errorCodeOf([&] {
          views::exportPlot(plot, png, {400, 300, 0.0});
        }) == ErrorCode::kInvalidArgument);
  CHECK(errorCodeOf([&] {
          views::exportPlot(plot, dir.filePath(QStringLiteral("x.gif")), {400, 300, 1.0});
        }) == ErrorCode::kInvalidArgument);
  CHECK_FALSE(QFile::exists(png));
}

TEST_CASE("drawModelGrid: square thumbnails in (layer, head) order, headers, tokens", "[views][model]") {
  // 3 layers × 4 heads of 5 tokens, causal like GPT-2.
  std::vector<AttentionResult> layers;
  for (unsigned l = 0; l < 3; ++l) layers.push_back(randomResult(4, 5, 5, Mask::kCausal, 2.0, 100 + l));
  const QStringList tokens{"a", "b", "c", "d", "e"};
  views::RunLabel label{scaledLabel().spec, false, QStringLiteral("tiny"), std::nullopt, {}, {}};
  for (const QSize canvas : {QSize(900, 500), QSize(400, 900)}) {
    QCustomPlot plot;
    prepare(plot, canvas.width(), canvas.height());
    views::drawModelGrid(plot, layers, {0, 1, 2}, tokens, label);
    REQUIRE(plot.plottableCount() == 12);
    // Plottable r·h + k is layer r, head k: rows = queries (reversed axis), columns = keys.
    auto* map = qobject_cast<QCPColorMap*>(plot.plottable(2 * 4 + 3));
    REQUIRE(map);
    CHECK(map->valueAxis()->rangeReversed());
    CHECK(map->data()->cell(1, 3) == Approx(layers[2].weights(3, 3, 1)));
    CHECK(std::isnan(map->data()->cell(3, 1)));
    const QImage image = render(plot);
    const QJsonObject layout = views::layoutJson(plot);
    INFO("canvas " << canvas.width() << " x " << canvas.height());
    // A tall canvas turns the grid: heads down, layers across.
    CHECK(layout["transposed"].toBool() == (canvas.height() > canvas.width()));
    for (const QJsonValue& v : layout["maps"].toArray()) {
      CHECK(v.toObject()["width"].toDouble() == v.toObject()["height"].toDouble());
    }
    CHECK(near(cellColor(image, layout, 11, 3, 1), views::viridis(layers[2].weights(3, 3, 1)), 6));
    QStringList headers;
    for (const auto& t : textsWithRole(layout, QStringLiteral("row_header"))) headers << t["text"].toString();
    for (const auto& t : textsWithRole(layout, QStringLiteral("column_header"))) headers << t["text"].toString();
    CHECK(headers.contains(QStringLiteral("layer 2")));
    CHECK(headers.contains(QStringLiteral("head 3")));
    CHECK(titleOf(layout).startsWith(QStringLiteral("tiny · 3 layers × 4 heads · scaled dot-product · d_k = 8 · 5 tokens")));
    // Issue 50: every token labelled on the thumbnails' axes (each row of the first column, each
    // column of the first row), so no token list under the picture.
    const int rows = layout["transposed"].toBool() ? 4 : 3, columns = layout["transposed"].toBool() ? 3 : 4;
    const auto queries = textsWithRole(layout, QStringLiteral("query_label"));
    const auto keys = textsWithRole(layout, QStringLiteral("key_label"));
    CHECK(static_cast<int>(queries.size()) == rows * 5);
    CHECK(static_cast<int>(keys.size()) == columns * 5);
    CHECK(queries.at(4)["text"].toString() == QStringLiteral("e"));
    CHECK(textsWithRole(layout, QStringLiteral("token_list")).empty());
  }
  QCustomPlot plot;
  CHECK_THROWS_AS(views::drawModelGrid(plot, layers, {0, 1}, tokens, label), Error);
  const views::ImageSize size = views::defaultModelGridSize(13, 6, 12);
  CHECK(size.width > size.height);
}

/// Fills the entropies of smallCausalResult()'s 2 heads × 3 causal rows (row i sees i + 1 keys).
static void addRowEntropies(AttentionResult& r) {
  for (int k = 0; k < 2; ++k) {
    attnlab::HeadStats st;
    for (int i = 0; i < 3; ++i) {
      const attnlab::RowStats row = attnlab::rowStats(r.weights.row(k, i), 3, i + 1);
      st.entropy.push_back(static_cast<float>(row.entropy));
    }
    r.stats.push_back(st);
  }
}

TEST_CASE("analysis plots: row entropy, score histogram, one row's softmax", "[views][analysis]") {
  AttentionResult r = smallCausalResult();
  addRowEntropies(r);
  const attnlab::AttentionSummary summary = attnlab::summarizeAttention(r, 10);
  QCustomPlot plot;
  prepare(plot, 500, 300);
  views::drawRowEntropy(plot, summary, kTokens, QStringLiteral("entropy"));
  auto* bars = qobject_cast<QCPBars*>(plot.plottable(0));
  REQUIRE(bars);
  CHECK(bars->data()->size() == 3);
  CHECK(plot.graph(0)->data()->at(2)->value == Approx(std::log(3.0)));
  views::drawScoreHistogram(plot, summary.histogram, QStringLiteral("scores"),
                            attnlab::AttentionSpec{});
  bars = qobject_cast<QCPBars*>(plot.plottable(0));
  REQUIRE(bars);
  double cells = 0;
  for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) cells += it->value;
  CHECK(cells == 12);  // 2 heads × 6 visible cells
  // The axis names the scores the softmax read: it follows the scaling toggle and T.
  CHECK(plot.xAxis->label().startsWith(QStringLiteral("score (scaled 1/√d_k)")));
  attnlab::AttentionSpec unscaled;
  unscaled.mechanism = attnlab::Mechanism::kDot;
  views::drawScoreHistogram(plot, summary.histogram, QStringLiteral("scores"), unscaled);
  CHECK(plot.xAxis->label().startsWith(QStringLiteral("score (unscaled)")));
  CHECK(!plot.xAxis->label().contains(QStringLiteral("after scaling")));
  unscaled.temperature = 0.5;
  views::drawScoreHistogram(plot, summary.histogram, QStringLiteral("scores"), unscaled);
  CHECK(plot.xAxis->label().startsWith(QStringLiteral("score (T = 0.5)")));
  views::drawRowSoftmax(plot, r, 1, 2, kTokens, QStringLiteral("row 2"));
  bars = qobject_cast<QCPBars*>(plot.plottable(0));
  REQUIRE(bars);
  CHECK(bars->data()->at(2)->value == Approx(0.8));
  views::drawRowSoftmax(plot, r, 1, -1, kTokens, QStringLiteral("Click a row to see its softmax"));
  CHECK(plot.plottableCount() == 0);
}

TEST_CASE("analysis plots mark rows and scores that are not finite (legend included)", "[views][analysis]") {
  AttentionResult r = smallCausalResult();
  r.weights(0, 1, 0) = std::numeric_limits<float>::quiet_NaN();  // head 0, row 1 overflowed
  r.scores(1, 2, 1) = std::numeric_limits<float>::infinity();
  addRowEntropies(r);
  const attnlab::AttentionSummary summary = attnlab::summarizeAttention(r, 10);
  CHECK(summary.row_nonfinite_heads == std::vector<int>{0, 1, 0});
  CHECK(summary.histogram.nonfinite == 1);
  QCustomPlot plot;
  prepare(plot, 500, 300);
  views::drawRowEntropy(plot, summary, kTokens, QStringLiteral("entropy"));
  REQUIRE(plot.plottableCount() == 3);  // entropy bars, the uniform line, the magenta bars
  auto* bad = qobject_cast<QCPBars*>(plot.plottable(2));
  REQUIRE(bad);
  CHECK(bad->brush().color() == views::kNonfiniteColor);
  REQUIRE(bad->data()->size() == 1);
  CHECK(bad->data()->at(0)->key == 1);
  REQUIRE(plot.legend);
  int items = 0;  // a legend is a grid: two columns, so cells may be empty
  for (int i = 0; i < plot.legend->itemCount(); ++i) {
    QCPAbstractLegendItem* item = plot.legend->item(i);
    if (!item) continue;
    ++items;
    // Drawn: on the legend's layer (items made before the legend had one were not drawn).
    REQUIRE(item->layer());
    CHECK(item->layer()->name() == QStringLiteral("legend"));
  }
  CHECK(items == 3);
  CHECK(plot.legend->hasItemWithPlottable(bad));
  views::drawScoreHistogram(plot, summary.histogram, QStringLiteral("scores"),
                            attnlab::AttentionSpec{});
  CHECK(plot.xAxis->label().contains(QStringLiteral("1 scores not finite")));
}

TEST_CASE("keepTokens drops rows and columns without renormalising", "[views][model]") {
  AttentionInputs in;
  in.q = Tensor3(2, 4, 3);
  in.k = Tensor3(2, 4, 3);
  in.v = Tensor3(2, 4, 3);
  for (std::size_t i = 0; i < in.q.data.size(); ++i) {
    in.q.data[i] = std::sin(1.0f + i);
    in.k.data[i] = std::cos(2.0f * i);
    in.v.data[i] = 0.1f * i;
  }
  AttentionSpec spec;
  spec.heads = 2;
  spec.d_model = 6;
  const AttentionResult full = computeAttentionCpu(in, spec);
  const AttentionResult kept = attnlab::run::keepTokens(full, {false, true, true, false});
  REQUIRE(kept.nQ() == 2);
  REQUIRE(kept.nK() == 2);
  CHECK(kept.weights(1, 0, 1) == full.weights(1, 1, 2));
  CHECK(kept.stats[1].entropy[1] == full.stats[1].entropy[2]);
  double row_sum = kept.weights(0, 0, 0) + kept.weights(0, 0, 1);
  CHECK(row_sum < 1.0);  // weights on the hidden tokens are not redistributed
  CHECK_THROWS_AS(attnlab::run::keepTokens(full, {false, false, false, false}), Error);
  CHECK_THROWS_AS(attnlab::run::keepTokens(full, {true}), Error);
}

}  // namespace attnlab_test_views
