/// \file test_layout.cpp
/// The heatmap layout as geometry: square cells as large as fit, labels that never overlap nor
/// leave the canvas, every token labelled while it fits, overviews below kMinCellPx, and the
/// model view's orientation — over generated lengths, head counts, canvases and font scales.

#include <QFont>
#include <QFontMetricsF>
#include <catch2/catch.hpp>

#include "views/heatmap_layout.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_layout {

namespace {

namespace views = attnlab::views;

views::LayoutFonts fonts(double scale) {
  auto font = [scale](double points, bool bold = false) {
    QFont f;
    f.setPointSizeF(points * scale);
    f.setBold(bold);
    return f;
  };
  views::LayoutFonts f;
  f.title = font(14, true);
  f.panel_title = font(10.5, true);
  f.axis_title = font(11, true);
  f.tick = font(11);
  f.min_tick_points = 7 * scale;
  f.note = font(9.5);
  f.bar_title = font(10.5);
  return f;
}

QStringList tokens(int n, bool chinese) {
  const QString zh = QString::fromUtf8("我爱自然语言处理。注意力机制很有趣");
  QStringList out;
  for (int i = 0; i < n; ++i) out << (chinese ? QString(zh.at(i % zh.size())) : QStringLiteral("token%1").arg(i % 37));
  return out;
}

views::GridRequest request(int n, int heads, QSize canvas, bool chinese, double scale) {
  views::GridRequest req;
  req.canvas = canvas;
  for (int k = 0; k < heads; ++k) req.panel_titles.push_back(heads == 1 ? QString() : QStringLiteral("head %1").arg(k));
  req.n_q = req.n_k = n;
  req.query_labels = req.key_labels = tokens(n, chinese);
  req.title_parts = {QStringLiteral("8 heads"), QStringLiteral("scaled dot-product"), QStringLiteral("d_k = 8"),
                     QStringLiteral("%1 tokens").arg(n)};
  if (heads == 1) {
    req.query_axis = QStringLiteral("query");
    req.key_axis = QStringLiteral("key");
  }
  req.notes << QStringLiteral("grey = masked");
  for (int i = 0; i <= 5; ++i) req.bar.ticks.push_back({i / 5.0, QString::number(i / 5.0)});
  req.bar.title = QStringLiteral("attention weight");
  req.fonts = fonts(scale);
  return req;
}

void requireClean(const views::HeatmapLayout& layout) {
  const QRectF canvas(0, 0, layout.canvas.width(), layout.canvas.height());
  for (const views::MapGeometry& m : layout.maps) {
    CHECK(m.cells.width() == Approx(m.columns * m.cell));
    CHECK(m.cells.height() == Approx(m.rows * m.cell));
    CHECK(canvas.contains(m.cells));
  }
  for (std::size_t a = 0; a < layout.texts.size(); ++a) {
    const views::DrawnText& t = layout.texts[a];
    CHECK(canvas.adjusted(-0.5, -0.5, 0.5, 0.5).contains(t.rect));
    for (const views::MapGeometry& m : layout.maps) {
      if (t.role != QLatin1String("cell_value") && views::overlaps(t.rect, m.cells)) {
        FAIL_CHECK(t.text.toStdString() << " lies on a map");
      }
    }
    for (std::size_t b = a + 1; b < layout.texts.size(); ++b) {
      if (views::overlaps(t.rect, layout.texts[b].rect)) {
        FAIL_CHECK(t.text.toStdString() << " overlaps " << layout.texts[b].text.toStdString());
      }
    }
  }
}

}  // namespace

TEST_CASE("grid layout: square cells, labels never overlap", "[layout]") {
  const int n = GENERATE(1, 3, 11, 17, 60, 500, 3000);
  const int heads = GENERATE(1, 2, 8, 12);
  const QSize canvas = GENERATE(QSize(520, 400), QSize(660, 845), QSize(1500, 920), QSize(2600, 2600));
  const bool chinese = GENERATE(false, true);
  const double scale = GENERATE(1.0, 1.7);
  // Presentation mode (font scale 1.7) shows one enlarged head, full screen.
  if (scale > 1 && (heads > 1 || canvas.width() < 1500)) return;
  INFO("n = " << n << ", heads = " << heads << ", canvas " << canvas.width() << "x" << canvas.height()
              << (chinese ? ", 中文" : "") << ", font scale " << scale);
  const views::HeatmapLayout layout = views::layoutGrid(request(n, heads, canvas, chinese, scale));
  REQUIRE(static_cast<int>(layout.maps.size()) == heads);
  requireClean(layout);
  const views::MapGeometry& m = layout.maps.front();
  // An overview exactly when a token would get less than kMinCellPx.
  if (m.block > 1) {
    CHECK(m.cell >= views::kOverviewCellPx);
  } else {
    CHECK(m.cell >= views::kMinCellPx);
  }
  CHECK(m.rows == (n + m.block - 1) / m.block);
  // Labels: every k-th row, thinned only as much as the cells need.
  int query_labels = 0;
  for (const views::DrawnText& t : layout.texts) query_labels += t.role == QLatin1String("query_label");
  CHECK(query_labels == layout.rows * ((m.rows + layout.query_step - 1) / layout.query_step));
  if (layout.query_step > 1) {
    // One step less would put neighbouring labels closer than a label is tall.
    QFont tick;
    for (const views::DrawnText& t : layout.texts)
      if (t.role == QLatin1String("query_label")) tick = t.font;
    CHECK((layout.query_step - 1) * m.cell < QFontMetricsF(tick).height() + 2 + 1e-6);
  }
}

TEST_CASE("grid layout: a few tokens are all labelled, on a projector too", "[layout]") {
  for (bool chinese : {false, true}) {
    for (double scale : {1.0, 1.7}) {
      // The window's grid, or presentation mode's one enlarged head with large fonts.
      const views::HeatmapLayout layout =
          views::layoutGrid(request(17, scale > 1 ? 1 : 8, QSize(1500, 1000), chinese, scale));
      INFO((chinese ? "中文" : "English") << ", scale " << scale);
      CHECK(layout.query_step == 1);
      CHECK(layout.key_step == 1);
      CHECK(layout.maps.front().block == 1);
      // CJK keys are upright: horizontal when they fit the column, else stacked.
      if (chinese) {
        for (const views::DrawnText& t : layout.texts) {
          if (t.role == QLatin1String("key_label") && t.orientation == views::Orientation::kVertical) {
            CHECK(t.rect.height() >= t.rect.width() * 0.8);
          }
        }
      }
    }
  }
}

TEST_CASE("grid layout: the column count that gives the largest cells", "[layout]") {
  // A wide canvas puts 8 heads in 4 (or more) columns, a tall one in 2 (or fewer).
  const views::HeatmapLayout wide = views::layoutGrid(request(11, 8, QSize(2400, 700), false, 1.0));
  const views::HeatmapLayout tall = views::layoutGrid(request(11, 8, QSize(700, 2400), false, 1.0));
  CHECK(wide.columns >= 4);
  CHECK(tall.columns <= 2);
  // No other column count would give larger cells.
  for (const views::HeatmapLayout* layout : {&wide, &tall}) {
    CHECK(layout->maps.front().cell >= 10);
  }
}

TEST_CASE("grid layout: a minimum cell takes fewer columns and grows the canvas downward", "[layout]") {
  // The window's default 8 heads in a 1280 × 720 projector's heads panel: 16-px cells that fit;
  // with min_cell 20 the width holds 2 or 3 columns of 20-px cells and the grid scrolls.
  for (int n : {11, 16}) {
    views::GridRequest req = request(n, 8, QSize(890, 650), false, 1.0);
    const views::HeatmapLayout fitted = views::layoutGrid(req);
    REQUIRE(fitted.maps.front().cell < 20);
    req.min_cell = 20;
    const views::HeatmapLayout grown = views::layoutGrid(req);
    INFO(n << " tokens");
    requireClean(grown);
    CHECK(grown.maps.front().cell >= 20);
    CHECK(grown.columns >= 2);
    CHECK(grown.columns < fitted.columns);
    CHECK(grown.canvas.width() == 890);
    CHECK(grown.canvas.height() > 650);
    for (const views::MapGeometry& m : grown.maps) CHECK(m.cells.bottom() <= grown.canvas.height());
    CHECK(grown.bar.bottom() <= 650);  // the colour bar in the first screen
  }
  // Too narrow for two columns of 20-px cells: the grid fits its canvas as before.
  views::GridRequest narrow = request(11, 8, QSize(300, 650), false, 1.0);
  const views::HeatmapLayout fitted = views::layoutGrid(narrow);
  narrow.min_cell = 20;
  const views::HeatmapLayout same = views::layoutGrid(narrow);
  CHECK(same.canvas == fitted.canvas);
  CHECK(same.columns == fitted.columns);
}

TEST_CASE("model view layout: square thumbnails, turned when that makes them larger", "[layout]") {
  views::ModelGridRequest req;
  for (int l = 0; l < 6; ++l) req.layer_titles << QStringLiteral("layer %1").arg(l);
  for (int k = 0; k < 12; ++k) req.head_titles << QStringLiteral("head %1").arg(k);
  req.n = 13;
  req.title_parts = {QStringLiteral("all-MiniLM-L6-v2"), QStringLiteral("6 layers × 12 heads")};
  req.token_list = QStringLiteral("tokens: 0 [CLS] · 1 the · 2 cat");
  for (int i = 0; i <= 5; ++i) req.bar.ticks.push_back({i / 5.0, QString::number(i / 5.0)});
  req.bar.title = QStringLiteral("attention weight");
  req.fonts = fonts(1.0);
  for (const QSize canvas : {QSize(1600, 700), QSize(700, 1600), QSize(900, 900)}) {
    req.canvas = canvas;
    const views::HeatmapLayout layout = views::layoutModelGrid(req);
    INFO(canvas.width() << "x" << canvas.height());
    REQUIRE(layout.maps.size() == 72);
    requireClean(layout);
    if (canvas.width() != canvas.height()) CHECK(layout.transposed == (canvas.height() > canvas.width()));
    // The thumbnails use the space: their grid spans most of the width or of the height.
    const QRectF first = layout.maps.front().cells, last = layout.maps.back().cells;
    const QRectF span = first.united(last);
    CHECK((span.width() > 0.6 * canvas.width() || span.height() > 0.6 * canvas.height()));
  }
}

TEST_CASE("model view layout: wider than its panel, the colour bar lies across in view", "[layout]") {
  // SmolLM2's 30 layers × 9 heads in a 230-px panel (beside the Interventions dock at 1024 × 768).
  views::ModelGridRequest req;
  for (int l = 0; l < 30; ++l) req.layer_titles << QStringLiteral("layer %1").arg(l);
  for (int k = 0; k < 9; ++k) req.head_titles << QStringLiteral("head %1").arg(k);
  req.n = 5;
  req.title_parts = {QStringLiteral("SmolLM2-135M-Instruct")};
  for (int i = 0; i <= 5; ++i) req.bar.ticks.push_back({i / 5.0, QString::number(i / 5.0)});
  req.bar.title = QStringLiteral("attention weight");
  req.fonts = fonts(1.0);
  req.min_thumb = 48;
  req.canvas = QSize(230, 640);
  const views::HeatmapLayout layout = views::layoutModelGrid(req);
  REQUIRE(layout.canvas.width() > 230);  // it scrolls sideways
  CHECK(layout.bar_across);
  CHECK(layout.bar.width() > layout.bar.height());
  for (const views::DrawnText& t : layout.texts) {
    if (!t.role.startsWith(QLatin1String("bar_"))) continue;
    INFO(t.text.toStdString());
    CHECK(t.rect.left() >= 0);
    CHECK(t.rect.right() <= 230);
  }
  // Above the thumbnails, clear of them.
  CHECK(layout.bar.bottom() < layout.maps.front().cells.top());
  // A panel that holds the heads across keeps the bar standing right of the grid.
  req.canvas = QSize(900, 640);
  CHECK_FALSE(views::layoutModelGrid(req).bar_across);
}

}  // namespace attnlab_test_layout
