/// \file test_model_marks.cpp
/// What the pictures of a pretrained model say besides the weights (issue 14): the query heads
/// that share a K/V head (grouped-query attention) framed in one colour per group — one labelled
/// box per group in the model view, in both orientations — and the model's next-token
/// predictions under the maps, with the texts apart from each other and from the frames.

#include <qcustomplot.h>

#include <QJsonArray>
#include <QJsonObject>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "views/heatmap_layout.hpp"
#include "views/text.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "views/picture.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_model_marks {

namespace {

using attnlab::AttentionResult;
using attnlab::Mask;
using attnlab::Mechanism;
namespace views = attnlab::views;

/// h heads of n × n causal softmax rows, deterministic.
AttentionResult causalResult(int h, int n, unsigned seed) {
  AttentionResult r;
  r.mechanism = Mechanism::kScaled;
  r.mask = Mask::kCausal;
  r.scale = 0.125;
  r.weights = attnlab::Tensor3(h, n, n);
  r.scores = attnlab::Tensor3(h, n, n);
  std::mt19937 rng(seed);
  std::normal_distribution<double> score(0.0, 2.0);
  for (int k = 0; k < h; ++k) {
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      std::vector<double> e(static_cast<std::size_t>(i + 1));
      for (int j = 0; j <= i; ++j) sum += e[static_cast<std::size_t>(j)] = std::exp(score(rng));
      for (int j = 0; j <= i; ++j)
        r.weights(k, i, j) = static_cast<float>(e[static_cast<std::size_t>(j)] / sum);
    }
  }
  return r;
}

/// SmolLM2's shape: 9 query heads reading 3 K/V heads (⌊i·3/9⌋), its KV cache, five predictions.
views::RunLabel smolLabel(int heads = 9, int kv_heads = 3) {
  views::RunLabel label;
  label.spec.mechanism = Mechanism::kScaled;
  label.spec.mask = Mask::kCausal;
  label.spec.heads = heads;
  label.spec.d_model = heads * 64;
  label.model = QStringLiteral("SmolLM2-135M-Instruct.Q4_1");
  for (int i = 0; i < heads; ++i)
    label.facts.kv_head.push_back(attnlab::kvHeadOf(i, heads, kv_heads));
  label.facts.kv_cache_bytes = 2LL * 30 * kv_heads * 64 * 4;
  label.facts.mha_kv_cache_bytes = 2LL * 30 * heads * 64 * 4;
  label.facts.next_tokens = {{QStringLiteral("␣because"), 0.412, {}},
                             {QStringLiteral("."), 0.12, {}},
                             {QStringLiteral("␣and"), 0.081, {}},
                             {QStringLiteral("\n"), 0.0004, {}},
                             {QStringLiteral("␣so"), 0.02, {}}};
  return label;
}

QRectF rectOf(const QJsonObject& o) {
  return QRectF(o["x"].toDouble(), o["y"].toDouble(), o["width"].toDouble(),
                o["height"].toDouble());
}

std::vector<QJsonObject> textsWithRole(const QJsonObject& layout, const QString& role) {
  std::vector<QJsonObject> out;
  for (const QJsonValue& v : layout["texts"].toArray())
    if (v.toObject()["role"].toString() == role) out.push_back(v.toObject());
  return out;
}

void prepare(QCustomPlot& plot, QSize canvas) {
  plot.resize(canvas);
  views::setCanvasSize(plot, canvas);
}

/// Every text inside the canvas, apart from every other text, off every map and off every group
/// frame (the frame's pen included).
void requireTextsClear(const QJsonObject& layout) {
  const QJsonObject canvas = layout["canvas"].toObject();
  const QRectF whole(0, 0, canvas["width"].toDouble(), canvas["height"].toDouble());
  const QJsonArray texts = layout["texts"].toArray();
  std::vector<QRectF> frames;
  for (const QJsonValue& v : layout["maps"].toArray()) {
    const QJsonObject m = v.toObject();
    const double pad =
        m.contains("kv_head") && !layout.contains("kv_groups") ? views::kGroupFramePx + 0.5 : 0.5;
    frames.push_back(rectOf(m).adjusted(-pad, -pad, pad, pad));
  }
  std::vector<QRectF> boxes;  // a box's 2 px outline
  for (const QJsonValue& v : layout["kv_groups"].toArray()) boxes.push_back(rectOf(v.toObject()));
  for (qsizetype a = 0; a < texts.size(); ++a) {
    const QJsonObject t = texts[a].toObject();
    const QRectF r = rectOf(t);
    INFO(t["role"].toString().toStdString() << " '" << t["text"].toString().toStdString() << "'");
    CHECK(whole.adjusted(-0.5, -0.5, 0.5, 0.5).contains(r));
    for (const QRectF& f : frames) CHECK_FALSE(views::overlaps(r, f));
    for (const QRectF& box : boxes) {
      // The text is inside the box or outside it, never on its outline.
      const bool inside = box.adjusted(1.5, 1.5, -1.5, -1.5).contains(r);
      const bool outside = !views::overlaps(r, box.adjusted(-1.5, -1.5, 1.5, 1.5));
      CHECK((inside || outside));
    }
    for (qsizetype b = a + 1; b < texts.size(); ++b) {
      if (views::overlaps(r, rectOf(texts[b].toObject()))) {
        FAIL_CHECK("overlaps '" << texts[b].toObject()["text"].toString().toStdString() << "'");
      }
    }
  }
}

}  // namespace

TEST_CASE("K/V group colours, byte counts, the next-token line and the GQA note", "[views][gqa]") {
  // Neighbouring groups never share a colour; the palette repeats after 8.
  for (int g = 0; g < 20; ++g) CHECK(views::kvGroupColor(g) != views::kvGroupColor(g + 1));
  CHECK(views::kvGroupColor(8) == views::kvGroupColor(0));
  CHECK(views::kvGroupColor(0) == QColor(0xd5, 0x5e, 0x00));
  CHECK(views::bytesText(46080) == QStringLiteral("46 080"));
  CHECK(views::bytesText(138240) == QStringLiteral("138 240"));
  CHECK(views::bytesText(512) == QStringLiteral("512"));
  CHECK(views::bytesText(1000) == QStringLiteral("1 000"));
  CHECK(views::bytesText(1234567) == QStringLiteral("1 234 567"));

  const views::RunLabel label = smolLabel();
  CHECK(label.facts.kvHeads() == 3);
  CHECK(label.facts.grouped());
  // 2 · 30 layers · 3 K/V heads · 64 · 4 bytes = 46 080; with 9: 138 240 (the README's figures).
  CHECK(views::kvGroupsNote(label.facts) ==
        QStringLiteral(
            "grouped-query attention: 9 query heads share 3 K/V heads (one frame colour per "
            "K/V head) · KV cache 46 080 bytes per token (138 240 with one K/V head per "
            "query head)"));
  // Percent with one decimal; below 0.05 % "<0.1%"; white space made visible.
  CHECK(
      views::nextTokensText(label.facts.next_tokens) ==
      QStringLiteral("next token (top 5): “␣because” 41.2% · “.” 12.0% · “␣and” 8.1% · “⏎” <0.1% · "
                     "“␣so” 2.0%"));
  CHECK(views::nextTokensText({}).isEmpty());
  // A predicted token that only starts a character (SmolLM2 after "我爱自然语言处理": EF BC of
  // "，") is the cut marker with what it holds, never "\xEF\xBC".
  attnlab::ModelRun run;
  run.next_tokens = {{8083, "\\xEF\\xBC", "\xEF\xBC", 0.058, 25.05},
                     {12831, "，", "\xEF\xBC\x8C", 0.187, 26.2}};
  const views::ModelFacts facts = views::modelFacts(run, attnlab::ModelConfig{});
  REQUIRE(facts.next_tokens.size() == 2);
  CHECK(facts.next_tokens[0].label == QStringLiteral("⋯"));
  CHECK(facts.next_tokens[0].note == QStringLiteral("start of a character: EF BC"));
  CHECK(facts.next_tokens[1].label == QStringLiteral("，"));
  CHECK(facts.next_tokens[1].note.isEmpty());
  CHECK(views::nextTokensText(facts.next_tokens) ==
        QStringLiteral("next token (top 2): “⋯” (start of a character: EF BC) 5.8% · “，” 18.7%"));
  // Multi-head attention (G = h) marks nothing.
  views::ModelFacts mha;
  mha.kv_head = {0, 1, 2, 3};
  CHECK_FALSE(mha.grouped());
  CHECK(views::kvGroupsNote(mha).isEmpty());
  // Multi-query attention (G = 1): one group of every head.
  views::ModelFacts mqa;
  mqa.kv_head = {0, 0, 0, 0};
  CHECK(mqa.grouped());
  CHECK(mqa.kvHeads() == 1);
}

TEST_CASE("model view: one labelled box per K/V group around its heads, either orientation",
          "[views][gqa][model]") {
  const int layers_n = GENERATE(2, 30);
  const int n = 12;
  std::vector<AttentionResult> layers;
  std::vector<int> indices;
  for (int l = 0; l < layers_n; ++l) {
    layers.push_back(causalResult(9, n, 40 + static_cast<unsigned>(l)));
    indices.push_back(l);
  }
  QStringList tokens;
  for (int i = 0; i < n; ++i) tokens << QStringLiteral("tok%1").arg(i);
  const views::RunLabel label = smolLabel();
  const views::ImageSize fallback = views::defaultModelGridSize(n, layers_n, 9);
  for (const QSize canvas : {QSize(fallback.width, fallback.height), QSize(1600, 700),
                             QSize(700, 1400), QSize(900, 600)}) {
    INFO(layers_n << " layers, canvas " << canvas.width() << " x " << canvas.height());
    QCustomPlot plot;
    prepare(plot, canvas);
    views::drawModelGrid(plot, layers, indices, tokens, label);
    plot.replot(QCustomPlot::rpImmediateRefresh);
    const QJsonObject layout = views::layoutJson(plot);
    const QJsonArray maps = layout["maps"].toArray();
    REQUIRE(maps.size() == layers_n * 9);
    const QJsonArray groups = layout["kv_groups"].toArray();
    REQUIRE(groups.size() == 3);
    // Map r·h + k is layer r, head k, inside its group's box and outside the others.
    for (int m = 0; m < maps.size(); ++m) {
      const QJsonObject map = maps[m].toObject();
      const int g = attnlab::kvHeadOf(m % 9, 9, 3);
      CHECK(map["kv_head"].toInt() == g);
      for (int b = 0; b < 3; ++b) {
        const QRectF box = rectOf(groups[b].toObject());
        CHECK(groups[b].toObject()["kv_head"].toInt() == b);
        if (b == g) {
          CHECK(box.adjusted(1, 1, -1, -1).contains(rectOf(map)));
        } else {
          CHECK_FALSE(box.intersects(rectOf(map)));
        }
      }
    }
    for (int a = 0; a < 3; ++a)
      for (int b = a + 1; b < 3; ++b)
        CHECK_FALSE(rectOf(groups[a].toObject())
                        .adjusted(-2, -2, 2, 2)
                        .intersects(rectOf(groups[b].toObject())));
    // Each box is titled ("K/V head g", "K/V g" or "g" where narrower), all alike.
    const auto titles = textsWithRole(layout, QStringLiteral("group_label"));
    REQUIRE(titles.size() == 3);
    for (const QJsonObject& t : titles) {
      const QString text = t["text"].toString();
      const int g = t["index"].toInt();
      CHECK((text == QStringLiteral("K/V head %1").arg(g) ||
             text == QStringLiteral("K/V %1").arg(g) || text == QString::number(g)));
      CHECK(text.size() == titles.front()["text"].toString().size());
    }
    // Predictions and the GQA note under the thumbnails.
    const auto next = textsWithRole(layout, QStringLiteral("next_tokens"));
    REQUIRE_FALSE(next.empty());
    CHECK(next.front()["text"].toString().startsWith(
        QStringLiteral("next token (top 5): “␣because” 41.2%")));
    bool noted = false;
    for (const QJsonObject& t : textsWithRole(layout, QStringLiteral("note")))
      noted = noted || t["text"].toString().contains(QStringLiteral("46 080"));
    CHECK(noted);
    requireTextsClear(layout);
  }
}

TEST_CASE("one layer's heads: a frame in each K/V group's colour, labels clear of it",
          "[views][gqa][grid]") {
  const int n = GENERATE(3, 11, 40);
  const AttentionResult r = causalResult(9, n, 3);
  QStringList tokens;
  for (int i = 0; i < n; ++i) tokens << QStringLiteral("w%1").arg(i);
  views::RunLabel label = smolLabel();
  label.layer = 4;
  for (const QSize canvas : {QSize(1200, 900), QSize(700, 700), QSize(1600, 500)}) {
    INFO(n << " tokens, canvas " << canvas.width() << " x " << canvas.height());
    QCustomPlot plot;
    prepare(plot, canvas);
    views::drawHeadGrid(plot, r, tokens, tokens, label);
    plot.replot(QCustomPlot::rpImmediateRefresh);
    const QJsonObject layout = views::layoutJson(plot);
    const QJsonArray maps = layout["maps"].toArray();
    REQUIRE(maps.size() == 9);
    CHECK_FALSE(layout.contains("kv_groups"));
    for (int k = 0; k < 9; ++k) CHECK(maps[k].toObject()["kv_head"].toInt() == k / 3);
    // Head titles say the K/V head too (legible without the colours).
    const auto titles = textsWithRole(layout, QStringLiteral("panel_title"));
    REQUIRE(titles.size() == 9);
    CHECK(titles[4]["text"].toString() == QStringLiteral("head 4 · K/V 1"));
    CHECK_FALSE(textsWithRole(layout, QStringLiteral("next_tokens")).empty());
    requireTextsClear(layout);
    // The frame is drawn in the group's colour just outside the cells.
    QImage image(canvas, QImage::Format_ARGB32);
    image.fill(Qt::white);
    {
      QCPPainter painter(&image);
      plot.toPainter(&painter, canvas.width(), canvas.height());
    }
    for (int k : {0, 4, 8}) {
      const QRectF cells = rectOf(maps[k].toObject());
      const QPoint left(static_cast<int>(cells.left() - 2), static_cast<int>(cells.center().y()));
      const QColor got = image.pixelColor(left);
      const QColor want = views::kvGroupColor(k / 3);
      INFO("head " << k << " frame pixel " << got.name().toStdString() << " want "
                   << want.name().toStdString());
      CHECK(std::abs(got.red() - want.red()) + std::abs(got.green() - want.green()) +
                std::abs(got.blue() - want.blue()) <=
            12);
    }
  }
}

TEST_CASE("one enlarged head names its K/V head; predictions change in place", "[views][gqa]") {
  const AttentionResult r = causalResult(9, 6, 5);
  views::RunLabel label = smolLabel();
  label.layer = 2;
  QCustomPlot plot;
  prepare(plot, QSize(800, 700));
  views::drawHeatmap(plot, r, 5, {}, {}, label);
  QJsonObject layout = views::layoutJson(plot);
  CHECK(layout["maps"].toArray()[0].toObject()["kv_head"].toInt() == 1);
  const QString title = textsWithRole(layout, QStringLiteral("title")).front()["text"].toString();
  CHECK(title.contains(QStringLiteral("head 5 · K/V head 1 of 3")));
  // The scaling toggled: other probabilities, the same layout — updated without a new draw.
  label.facts.next_tokens.front().probability = 0.5;
  REQUIRE(views::updateWeights(plot, r, 5, {}, {}, label));
  layout = views::layoutJson(plot);
  CHECK(textsWithRole(layout, QStringLiteral("next_tokens"))
            .front()["text"]
            .toString()
            .contains(QStringLiteral("“␣because” 50.0%")));
  // Predictions appearing where there were none need a new layout.
  views::RunLabel none = label;
  none.facts.next_tokens.clear();
  CHECK_FALSE(views::updateWeights(plot, r, 5, {}, {}, none));
}

TEST_CASE("multi-head attention: nothing marked, predictions still drawn", "[views][gqa]") {
  const AttentionResult r = causalResult(4, 5, 9);
  views::RunLabel label = smolLabel(4, 4);
  QCustomPlot plot;
  prepare(plot, QSize(900, 700));
  views::drawHeadGrid(plot, r, {}, {}, label);
  const QJsonObject layout = views::layoutJson(plot);
  for (const QJsonValue& v : layout["maps"].toArray())
    CHECK_FALSE(v.toObject().contains("kv_head"));
  CHECK(textsWithRole(layout, QStringLiteral("panel_title"))[1]["text"].toString() ==
        QStringLiteral("head 1"));
  CHECK(textsWithRole(layout, QStringLiteral("next_tokens")).size() == 1);
  for (const QJsonObject& t : textsWithRole(layout, QStringLiteral("note")))
    CHECK_FALSE(t["text"].toString().contains(QStringLiteral("grouped-query")));
}

TEST_CASE("a model view grown by one token keeps its maps and draws as a new one",
          "[views][model]") {
  // Issue 50: generation redraws the model view at every token; the 30 × 9 axis rects and colour
  // maps are placed again and refilled, and the picture is the one a fresh plot draws.
  auto model = [](int n) {
    std::vector<AttentionResult> layers;
    for (int l = 0; l < 3; ++l) layers.push_back(causalResult(9, n, 70 + static_cast<unsigned>(l)));
    return layers;
  };
  auto tokens = [](int n) {
    QStringList t;
    for (int i = 0; i < n; ++i) t << QStringLiteral("t%1").arg(i);
    return t;
  };
  const views::RunLabel label = smolLabel();
  QCustomPlot grown;
  prepare(grown, QSize(1000, 600));
  views::drawModelGrid(grown, model(6), {0, 1, 2}, tokens(6), label);
  const QCPAbstractPlottable* first = grown.plottable(0);
  views::drawModelGrid(grown, model(7), {0, 1, 2}, tokens(7), label);
  CHECK(grown.plottable(0) == first);  // the same maps, refilled
  QCustomPlot fresh;
  prepare(fresh, QSize(1000, 600));
  views::drawModelGrid(fresh, model(7), {0, 1, 2}, tokens(7), label);
  CHECK(views::layoutJson(grown) == views::layoutJson(fresh));
  CHECK(grown.toPixmap(1000, 600).toImage() == fresh.toPixmap(1000, 600).toImage());
  // Another number of layers: a new picture.
  views::drawModelGrid(grown, {model(7)[0]}, {0}, tokens(7), label);
  CHECK(grown.plottableCount() == 9);
  CHECK(views::layoutJson(grown)["maps"].toArray().size() == 9);
}

}  // namespace attnlab_test_model_marks
