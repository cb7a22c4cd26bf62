/// \file test_views.cpp
/// The views: heatmap and head-grid contents (cells, masking, axes, labels, colour scale), the
/// saturation plot's series and axes, the colour map, and image export to PNG, SVG and PDF.

#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <random>

#include "attnlab/error.hpp"
#include "views/views.hpp"

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

QStringList tickLabels(QCPAxis* axis) {
  auto ticker = axis->ticker().dynamicCast<QCPAxisTickerText>();
  REQUIRE(ticker);
  return ticker->ticks().values();
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

/// Where look images go: $ATTNLAB_VIEWS_LOOK_DIR when set (to inspect them), else a temp dir.
QString lookDir(const QTemporaryDir& fallback) {
  const QString dir = qEnvironmentVariable("ATTNLAB_VIEWS_LOOK_DIR");
  if (dir.isEmpty()) return fallback.path();
  QDir().mkpath(dir);
  return dir;
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

TEST_CASE("scalingText and mechanismTitle name the run", "[views][heatmap]") {
  attnlab::AttentionSpec spec;
  spec.mechanism = Mechanism::kScaled;
  CHECK(views::scalingText(spec) == QStringLiteral("scaled 1/√d_k"));
  spec.mechanism = Mechanism::kDot;
  CHECK(views::scalingText(spec) == QStringLiteral("unscaled"));
  spec.mechanism = Mechanism::kAdditive;
  CHECK(views::scalingText(spec) == QStringLiteral("additive"));
  spec.temperature = 2.0;
  CHECK(views::scalingText(spec) == QStringLiteral("T = 2"));
  spec.temperature = 0.25;
  CHECK(views::scalingText(spec) == QStringLiteral("T = 0.25"));
  CHECK(views::mechanismTitle(Mechanism::kAdditive) == QStringLiteral("additive"));
  CHECK(views::mechanismTitle(Mechanism::kDot) == QStringLiteral("dot-product"));
  CHECK(views::mechanismTitle(Mechanism::kScaled) == QStringLiteral("scaled dot-product"));
}

TEST_CASE("drawHeatmap: cells are (key j, query i), masked cells NaN", "[views][heatmap]") {
  const AttentionResult result = smallCausalResult();
  QCustomPlot plot;
  views::drawHeatmap(plot, result, 1, kTokens, kTokens, scaledLabel());

  REQUIRE(plot.plottableCount() == 1);
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
  REQUIRE(map);
  CHECK_FALSE(map->interpolate());
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
  CHECK(map->gradient().nanHandling() == QCPColorGradient::nhNanColor);
}

TEST_CASE("drawHeatmap: axes, token labels, colour scale and title", "[views][heatmap]") {
  QCustomPlot plot;
  views::drawHeatmap(plot, smallCausalResult(), 0, kTokens, kTokens, scaledLabel());
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
  REQUIRE(map);

  QCPAxis* keys = map->keyAxis();
  QCPAxis* queries = map->valueAxis();
  CHECK(keys->axisType() == QCPAxis::atTop);
  CHECK(queries->axisType() == QCPAxis::atLeft);
  CHECK(queries->rangeReversed());  // query 0 at the top
  CHECK_FALSE(keys->rangeReversed());
  CHECK(keys->range().lower == Approx(-0.5));
  CHECK(keys->range().upper == Approx(2.5));
  CHECK(tickLabels(keys) == kTokens);
  CHECK(tickLabels(queries) == kTokens);
  CHECK(keys->label() == QStringLiteral("key"));
  CHECK(queries->label() == QStringLiteral("query"));
  CHECK(plot.xAxis2 == keys);
  CHECK(plot.yAxis == queries);

  QCPColorScale* scale = map->colorScale();
  REQUIRE(scale);
  CHECK(scale->label() == QStringLiteral("attention weight"));
  CHECK(scale->dataRange().lower == 0.0);
  CHECK(scale->dataRange().upper == 1.0);

  const QStringList texts = layoutTexts(plot);
  CHECK(texts.contains(
      QStringLiteral("scaled dot-product · head 0 · d_k = 8 · scaled 1/√d_k · causal mask")));
  CHECK(std::any_of(texts.begin(), texts.end(), [](const QString& t) {
    return t.startsWith(QStringLiteral("grey = masked"));
  }));
}

TEST_CASE("drawHeatmap: title options and no masked note without a mask", "[views][heatmap]") {
  AttentionResult result = randomResult(1, 3, 4, Mask::kNone);
  views::RunLabel label;
  label.spec.mechanism = Mechanism::kDot;
  label.spec.heads = 1;
  label.spec.d_model = 64;
  label.spec.temperature = 2.0;
  label.cross = true;
  label.extra = QStringLiteral("layer 3");
  QCustomPlot plot;
  views::drawHeatmap(plot, result, 0, kTokens, {"a", "b", "c", "d"}, label);
  const QStringList texts = layoutTexts(plot);
  CHECK(texts.contains(
      QStringLiteral("dot-product · head 0 · d_k = 64 · T = 2 · cross-attention · layer 3")));
  CHECK_FALSE(std::any_of(texts.begin(), texts.end(),
                          [](const QString& t) { return t.contains(QStringLiteral("masked")); }));
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
  REQUIRE(map);
  CHECK(map->data()->keySize() == 4);
  CHECK(map->data()->valueSize() == 3);
}

TEST_CASE("drawHeatmap renders masked cells grey and weight 1 yellow", "[views][heatmap]") {
  QCustomPlot plot;
  views::drawHeatmap(plot, smallCausalResult(), 0, kTokens, kTokens, scaledLabel());
  const int w = 600;
  const int h = 600;
  plot.resize(w, h);
  const QImage image = plot.toPixmap(w, h).toImage();
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
  REQUIRE(map);
  // Sample near a cell corner, away from the printed weight.
  auto at = [&](double key, double query) {
    const int x = static_cast<int>(map->keyAxis()->coordToPixel(key - 0.35));
    const int y = static_cast<int>(map->valueAxis()->coordToPixel(query - 0.35));
    return image.pixelColor(x, y);
  };
  CHECK(near(at(2, 0), views::kMaskedColor, 2));   // query 0 cannot see key 2
  CHECK(near(at(0, 0), views::viridis(1.0), 6));   // weight 1
  CHECK(near(at(1, 1), views::viridis(0.75), 6));  // weight 0.75
}

TEST_CASE("drawHeatmap accepts a single token and index labels", "[views][heatmap]") {
  AttentionResult result = randomResult(1, 1, 1, Mask::kCausal);
  QCustomPlot plot;
  views::drawHeatmap(plot, result, 0, {}, {}, views::RunLabel{});
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
  REQUIRE(map);
  CHECK(map->data()->cell(0, 0) == Approx(1.0));
  CHECK(tickLabels(map->keyAxis()) == QStringList{QStringLiteral("0")});
  const QImage image = plot.toPixmap(500, 500).toImage();
  const int x = static_cast<int>(map->keyAxis()->coordToPixel(0.3));
  const int y = static_cast<int>(map->valueAxis()->coordToPixel(0.3));
  CHECK(near(image.pixelColor(x, y), views::viridis(1.0), 6));
}

TEST_CASE("drawHeatmap rejects bad input", "[views][heatmap]") {
  QCustomPlot plot;
  const AttentionResult result = smallCausalResult();
  CHECK(errorCodeOf([&] {
          views::drawHeatmap(plot, result, 2, kTokens, kTokens, scaledLabel());
        }) == ErrorCode::kInvalidArgument);
  CHECK(errorCodeOf([&] {
          views::drawHeatmap(plot, result, -1, kTokens, kTokens, scaledLabel());
        }) == ErrorCode::kInvalidArgument);
  CHECK(errorCodeOf([&] {
          views::drawHeatmap(plot, result, 0, {"a", "b"}, kTokens, scaledLabel());
        }) == ErrorCode::kInvalidArgument);
  CHECK(errorCodeOf([&] {
          views::drawHeadGrid(plot, AttentionResult{}, kTokens, kTokens, scaledLabel());
        }) == ErrorCode::kInvalidArgument);
}

TEST_CASE("drawHeadGrid: one map per head, one shared colour scale", "[views][grid]") {
  const AttentionResult result = smallCausalResult();
  QCustomPlot plot;
  views::drawHeadGrid(plot, result, kTokens, kTokens, scaledLabel());
  REQUIRE(plot.plottableCount() == 2);
  CHECK(plot.axisRectCount() == 2);
  auto* first = qobject_cast<QCPColorMap*>(plot.plottable(0));
  auto* second = qobject_cast<QCPColorMap*>(plot.plottable(1));
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->colorScale() != nullptr);
  CHECK(first->colorScale() == second->colorScale());
  CHECK(first->colorScale()->label() == QStringLiteral("attention weight"));
  CHECK(first->keyAxis()->axisRect() != second->keyAxis()->axisRect());
  for (int k = 0; k < 2; ++k) {
    auto* map = qobject_cast<QCPColorMap*>(plot.plottable(k));
    CHECK_FALSE(map->interpolate());
    CHECK(map->valueAxis()->rangeReversed());
    CHECK(tickLabels(map->keyAxis()) == kTokens);
    CHECK(tickLabels(map->valueAxis()) == kTokens);
    CHECK(map->data()->cell(1, 2) == Approx(result.weights(k, 2, 1)));
    CHECK(std::isnan(map->data()->cell(2, 1)));
  }
  const QStringList texts = layoutTexts(plot);
  CHECK(texts.contains(QStringLiteral("head 0")));
  CHECK(texts.contains(QStringLiteral("head 1")));
  CHECK(texts.contains(
      QStringLiteral("scaled dot-product · 2 heads · d_k = 8 · scaled 1/√d_k · causal mask")));

  // Redrawing replaces everything.
  views::drawHeatmap(plot, result, 0, kTokens, kTokens, scaledLabel());
  CHECK(plot.plottableCount() == 1);
  CHECK(plot.axisRectCount() == 1);
}

TEST_CASE("drawHeadGrid thins labels for long inputs", "[views][grid]") {
  for (int n : {8, 24, 60, 300}) {
    const AttentionResult result = randomResult(4, n, n, Mask::kNone);
    QStringList tokens;
    for (int i = 0; i < n; ++i) tokens << QStringLiteral("tok%1").arg(i);
    QCustomPlot plot;
    views::drawHeadGrid(plot, result, tokens, tokens, views::RunLabel{});
    auto* map = qobject_cast<QCPColorMap*>(plot.plottable(3));
    REQUIRE(map);
    const QStringList labels = tickLabels(map->valueAxis());
    INFO("n = " << n);
    if (n <= 24) {
      CHECK(labels.size() == n);
    } else {
      CHECK(labels.size() < n);
      CHECK(labels.size() <= 24);
      CHECK(labels.first() == QStringLiteral("#0 tok0"));  // thinned labels carry positions
    }
  }
}

TEST_CASE("defaultHeatmapSize gives sensible sizes", "[views][heatmap]") {
  const views::ImageSize small = views::defaultHeatmapSize(3, 3, 1);
  CHECK(small.width >= 500);
  CHECK(small.height >= 500);
  const views::ImageSize big = views::defaultHeatmapSize(400, 400, 1);
  CHECK(big.width <= 1600);
  CHECK(big.height <= 1600);
  const views::ImageSize grid = views::defaultHeatmapSize(10, 10, 16);
  CHECK(grid.width > views::defaultHeatmapSize(10, 10, 1).width);
  CHECK(grid.width >= grid.height * 3 / 4);
  CHECK(grid.width <= 2600);
}

TEST_CASE("drawSaturation: four curves, log2 d_k axis, sentence points, marker",
          "[views][saturation]") {
  const SaturationAnalysis model = fakeSaturation(16);
  QCustomPlot plot;
  views::drawSaturation(plot, model, std::nullopt, 64, false);
  CHECK(plot.graphCount() == 4);
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
  REQUIRE(plot.legend);
  CHECK(legendEntries(*plot.legend) == 4);
  CHECK(layoutTexts(plot).contains(QStringLiteral("Softmax saturation vs d_k (n_k = 16 keys)")));
  bool has_label = false;
  for (int i = 0; i < plot.itemCount(); ++i) {
    if (auto* text = qobject_cast<QCPItemText*>(plot.item(i)))
      has_label = has_label || text->text() == QStringLiteral("d_k = 64 (unscaled)");
  }
  CHECK(has_label);
  CHECK(plot.itemCount() >= 4);  // line, two emphasised markers, label

  SaturationAnalysis sentence = fakeSaturation(7);
  views::drawSaturation(plot, model, sentence, 8, true);
  CHECK(plot.graphCount() == 4 + 4 + 1);  // curves, sentence markers, the sentence legend key
  CHECK(legendEntries(*plot.legend) == 5);
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
  views::drawHeatmap(plot, smallCausalResult(), 0, kTokens, kTokens, scaledLabel());

  const QString png = dir.filePath(QStringLiteral("heat.png"));
  views::exportPlot(plot, png, {400, 300, 2.0});
  CHECK(readAll(png).startsWith("\x89PNG\r\n\x1a\n"));
  const QImage image(png);
  CHECK(image.width() == 800);
  CHECK(image.height() == 600);

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
  CHECK(svg_text.count("<image") <= 1);

  const QString pdf = dir.filePath(QStringLiteral("heat.pdf"));
  views::exportPlot(plot, pdf, {500, 400, 1.0});
  CHECK(readAll(pdf).startsWith("%PDF"));
}

TEST_CASE("exportPlot reports bad paths and sizes", "[views][export]") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  QCustomPlot plot;
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

TEST_CASE("views draw Chinese, emoji, long and many tokens (look images)", "[views][look]") {
  QTemporaryDir fallback;
  REQUIRE(fallback.isValid());
  const QString out = lookDir(fallback);
  QCustomPlot plot;
  auto save = [&](const QString& name, const views::ImageSize& size) {
    const QString path = out + QLatin1Char('/') + name;
    views::exportPlot(plot, path, size);
    if (name.endsWith(QLatin1String(".png"))) {
      CHECK(QImage(path).width() == static_cast<int>(std::lround(size.width * size.scale)));
    }
  };

  views::RunLabel label = scaledLabel();
  label.spec.heads = 1;
  label.spec.d_model = 64;
  const QStringList chinese{"我", "爱", "你", "🙂", "。"};
  AttentionResult zh = randomResult(1, 5, 5, Mask::kCausal, 1.5, 3);
  views::drawHeatmap(plot, zh, 0, chinese, chinese, label);
  save(QStringLiteral("chinese_causal.png"), views::defaultHeatmapSize(5, 5, 1));

  const QStringList words =
      QStringLiteral(
          "The quick brown fox jumps over the lazy dog because attention is all you need today")
          .split(QLatin1Char(' '));
  label.spec.mask = Mask::kNone;
  label.spec.mechanism = Mechanism::kDot;
  AttentionResult en = randomResult(1, words.size(), words.size(), Mask::kNone, 3.0, 5);
  views::drawHeatmap(plot, en, 0, words, words, label);
  save(QStringLiteral("english_single.png"),
       views::defaultHeatmapSize(words.size(), words.size(), 1));
  save(QStringLiteral("english_single.svg"),
       views::defaultHeatmapSize(words.size(), words.size(), 1));
  save(QStringLiteral("english_single.pdf"),
       views::defaultHeatmapSize(words.size(), words.size(), 1));

  label.spec.mechanism = Mechanism::kScaled;
  label.spec.heads = 8;
  AttentionResult grid8 = randomResult(8, 10, 10, Mask::kCausal, 2.0, 11);
  QStringList ten = words.mid(0, 10);
  views::drawHeadGrid(plot, grid8, ten, ten, label);
  save(QStringLiteral("grid_8_heads.png"), views::defaultHeatmapSize(10, 10, 8));

  label.spec.heads = 16;
  AttentionResult grid16 = randomResult(16, 40, 40, Mask::kCausal, 2.0, 13);
  QStringList forty;
  for (int i = 0; i < 40; ++i) forty << words.at(i % words.size());
  views::drawHeadGrid(plot, grid16, forty, forty, label);
  save(QStringLiteral("grid_16_heads_40_tokens.png"), views::defaultHeatmapSize(40, 40, 16));

  label.spec.heads = 4;
  AttentionResult long4 = randomResult(4, 300, 300, Mask::kCausal, 2.0, 17);
  QStringList many;
  for (int i = 0; i < 300; ++i) many << words.at(i % words.size());
  views::drawHeadGrid(plot, long4, many, many, label);
  save(QStringLiteral("grid_4_heads_300_tokens.png"), views::defaultHeatmapSize(300, 300, 4));
  views::drawHeatmap(plot, long4, 2, many, many, label);
  save(QStringLiteral("single_300_tokens.png"), views::defaultHeatmapSize(300, 300, 1));

  label.cross = true;
  label.spec.heads = 1;
  label.spec.mechanism = Mechanism::kAdditive;
  const QStringList target{"Le", "chat", "dort"};
  const QStringList source{"The", "cat", "is", "sleeping", "on", "the", "extraordinarily-long-mat"};
  AttentionResult cross = randomResult(1, 3, 7, Mask::kNone, 2.0, 19);
  views::drawHeatmap(plot, cross, 0, target, source, label);
  save(QStringLiteral("cross_additive.png"), views::defaultHeatmapSize(3, 7, 1));

  AttentionResult one = randomResult(1, 1, 1, Mask::kCausal);
  views::drawHeatmap(plot, one, 0, {"alone"}, {"alone"}, views::RunLabel{});
  save(QStringLiteral("single_token.png"), views::defaultHeatmapSize(1, 1, 1));

  label.cross = false;
  label.spec.mechanism = Mechanism::kScaled;
  label.spec.heads = 3;
  AttentionResult three = randomResult(3, 5, 5, Mask::kCausal, 2.0, 23);
  views::drawHeadGrid(plot, three, chinese, chinese, label);
  save(QStringLiteral("grid_3_heads_chinese.png"), views::defaultHeatmapSize(5, 5, 3));

  views::drawSaturation(plot, fakeSaturation(16), fakeSaturation(7), 64, false);
  save(QStringLiteral("saturation.png"), {900, 600, 1.0});
  save(QStringLiteral("saturation.svg"), {900, 600, 1.0});
  views::drawSaturation(plot, fakeSaturation(16), std::nullopt, 8, true);
  save(QStringLiteral("saturation_scaled_2x.png"), {900, 600, 2.0});
}

TEST_CASE("drawModelGrid: one thumbnail per layer and head, layer and head headers", "[views][model]") {
  // 3 layers × 4 heads of 5 tokens, causal like GPT-2.
  std::vector<AttentionResult> layers;
  for (unsigned l = 0; l < 3; ++l) layers.push_back(randomResult(4, 5, 5, Mask::kCausal, 2.0, 100 + l));
  const QStringList tokens{"a", "b", "c", "d", "e"};
  QCustomPlot plot;
  views::RunLabel label{scaledLabel().spec, false, QStringLiteral("tiny")};
  views::drawModelGrid(plot, layers, {0, 1, 2}, tokens, label);
  REQUIRE(plot.plottableCount() == 12);
  CHECK(plot.axisRectCount() == 12);
  // Plottable r·h + k is layer r, head k: rows = queries (reversed axis), columns = keys.
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(2 * 4 + 3));
  REQUIRE(map);
  CHECK(map->valueAxis()->rangeReversed());
  CHECK(map->data()->cell(1, 3) == Approx(layers[2].weights(3, 3, 1)));
  CHECK(std::isnan(map->data()->cell(3, 1)));
  CHECK(map->keyAxis()->axisRect() == plot.axisRects().at(11));
  const QStringList texts = layoutTexts(plot);
  CHECK(texts.contains(QStringLiteral("layer 2")));
  CHECK(texts.contains(QStringLiteral("head 3")));
  bool titled = false;
  for (const QString& t : texts) titled = titled || t.startsWith(QStringLiteral("tiny · 3 layers × 4 heads"));
  CHECK(titled);
  CHECK_THROWS_AS(views::drawModelGrid(plot, layers, {0, 1}, tokens, label), Error);
  const views::ImageSize size = views::defaultModelGridSize(13, 6, 12);
  CHECK(size.width > size.height);
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
  const AttentionResult kept = views::keepTokens(full, {false, true, true, false});
  REQUIRE(kept.nQ() == 2);
  REQUIRE(kept.nK() == 2);
  CHECK(kept.weights(1, 0, 1) == full.weights(1, 1, 2));
  CHECK(kept.stats[1].entropy[1] == full.stats[1].entropy[2]);
  double row_sum = kept.weights(0, 0, 0) + kept.weights(0, 0, 1);
  CHECK(row_sum < 1.0);  // weights on the hidden tokens are not redistributed
  CHECK_THROWS_AS(views::keepTokens(full, {false, false, false, false}), Error);
  CHECK_THROWS_AS(views::keepTokens(full, {true}), Error);
}
