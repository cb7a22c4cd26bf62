/// \file test_views_variants.cpp
/// Issue 12 in the pictures: every mask pattern greys exactly its hidden cells (never weight 0),
/// the title states the variant, the head grid frames each K/V group, [PAD] rows are hatched.

#include <qcustomplot.h>

#include <QJsonArray>
#include <QJsonObject>
#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/backend.hpp"
#include "attnlab/synthetic.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "views/picture.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_views_variants {

namespace {

using namespace attnlab;
namespace views = attnlab::views;

void prepare(QCustomPlot& plot, int width, int height) {
  plot.setViewport(QRect(0, 0, width, height));
  views::setCanvasSize(plot, QSize(width, height));
}

QString titleOf(const QJsonObject& layout) {
  for (const QJsonValue& v : layout["texts"].toArray())
    if (v.toObject()["role"].toString() == QLatin1String("title"))
      return v.toObject()["text"].toString().replace(QLatin1Char('\n'), QStringLiteral(" · "));
  return {};
}

QStringList notesOf(const QJsonObject& layout) {
  QStringList notes;
  for (const QJsonValue& v : layout["texts"].toArray())
    if (v.toObject()["role"].toString() == QLatin1String("note")) notes << v.toObject()["text"].toString();
  return notes;
}

struct Run {
  LabRun run;
  AttentionSpec spec;
};

Run synthetic(AttentionSpec spec, const std::string& text, KeyPadding padding = {}) {
  const SyntheticModel model(spec, 3);
  auto cpu = makeCpuBackend();
  return {runSynthetic(model, spec, text, std::nullopt, *cpu, padding), spec};
}

QStringList labels(const std::vector<Token>& tokens) {
  QStringList out;
  for (const Token& t : tokens) out << QString::fromStdString(t.text);
  return out;
}

}  // namespace

TEST_CASE("every mask pattern greys exactly its hidden cells", "[views][variants]") {
  AttentionSpec spec;
  spec.heads = 2;
  spec.d_model = 16;
  spec.mask = GENERATE(Mask::kNone, Mask::kCausal);
  spec.window = GENERATE(0, 2);
  spec.global_tokens = GENERATE(0, 1);
  spec.stride = spec.window > 0 ? GENERATE(0, 3) : 0;
  const Run r = synthetic(spec, "The cat sat on the mat because it was tired.");
  const AttentionResult& a = r.run.attention;
  const MaskPattern p = a.pattern();
  QCustomPlot plot;
  prepare(plot, 900, 800);
  views::RunLabel label{spec, false, {}, std::nullopt, {}, {}};
  views::drawHeatmap(plot, a, 1, labels(r.run.query_tokens), labels(r.run.key_tokens), label);
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
  REQUIRE(map);
  const int n = a.nQ();
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double cell = map->data()->cell(j, i);
      INFO("query " << i << ", key " << j);
      if (p.visible(i, j)) {
        REQUIRE(std::isfinite(cell));
        REQUIRE(cell == Approx(a.weights(1, i, j)).margin(1e-6));
      } else {
        REQUIRE(std::isnan(cell));  // grey, never a weight of 0
      }
    }
  }
  bool masked = false;  // a global token without a window hides nothing
  for (int i = 0; i < n; ++i) masked = masked || p.visibleCount(i, n) < n;
  INFO("notes: " << notesOf(views::layoutJson(plot)).join(QLatin1Char('|')).toStdString());
  const QJsonObject layout = views::layoutJson(plot);
  CHECK(notesOf(layout).join(QLatin1Char('|')).contains(QStringLiteral("grey = masked")) == masked);
  if (spec.window > 0) CHECK(titleOf(layout).contains(QStringLiteral("window 2")));
  if (spec.global_tokens > 0) CHECK(titleOf(layout).contains(QStringLiteral("1 global")));
  if (spec.stride > 0) CHECK(titleOf(layout).contains(QStringLiteral("stride 3")));
}

TEST_CASE("GQA in the synthetic lab: the title and one frame colour per K/V group",
          "[views][variants][gqa]") {
  AttentionSpec spec;
  spec.heads = 8;
  spec.d_model = 64;
  spec.kv_heads = 2;
  spec.positions = Positions::kRope;
  spec.mask = Mask::kCausal;
  spec.window = 4;
  const Run r = synthetic(spec, "The cat sat on the mat because it was tired.");
  QCustomPlot plot;
  prepare(plot, 1400, 1300);
  views::RunLabel label{spec, false, {}, std::nullopt, {}, {}};
  label.facts = views::syntheticFacts(spec);
  // 8 heads of d_k = d_v = 8 sharing 2 K/V heads: 2·(8 + 8)·4 = 128 bytes per token, 512 for MHA.
  CHECK(label.facts.kv_cache_bytes == 128);
  CHECK(label.facts.mha_kv_cache_bytes == 512);
  views::drawHeadGrid(plot, r.run.attention, labels(r.run.query_tokens), labels(r.run.key_tokens), label);
  const QJsonObject layout = views::layoutJson(plot);
  const QString title = titleOf(layout);
  CHECK(title.contains(QStringLiteral("GQA 8 q / 2 kv · RoPE · window 4")));
  CHECK(title.contains(QStringLiteral("causal mask")));
  const QJsonArray maps = layout["maps"].toArray();
  REQUIRE(maps.size() == 8);
  for (int k = 0; k < 8; ++k) CHECK(maps[k].toObject()["kv_head"].toInt() == k / 4);
  CHECK(notesOf(layout).join(QLatin1Char('|')).contains(QStringLiteral("8 query heads share 2 K/V heads")));
  // Multi-query attention names itself; multi-head attention marks no groups.
  spec.kv_heads = 1;
  CHECK(views::variantTitleParts(spec, spec.maskPattern(), 0, 11).contains(QStringLiteral("MQA 8 q / 1 kv")));
  spec.kv_heads = 0;
  CHECK_FALSE(views::syntheticFacts(spec).grouped());
  spec.positions = Positions::kAlibi;
  CHECK(views::variantTitleParts(spec, spec.maskPattern(), 0, 11) ==
        QStringList{QStringLiteral("ALiBi"), QStringLiteral("window 4")});
}

TEST_CASE("[PAD] query rows are hatched; unmasked [PAD] keys are said", "[views][variants][padding]") {
  AttentionSpec spec;
  spec.heads = 1;
  spec.d_model = 8;
  const bool mask = GENERATE(true, false);
  const Run r = synthetic(spec, "The cat sat on the mat.", KeyPadding{12, mask});
  REQUIRE(r.run.pad_tokens == 5);
  QCustomPlot plot;
  prepare(plot, 900, 900);
  views::RunLabel label{spec, false, {}, std::nullopt, {}, {}};
  label.pad_tokens = r.run.pad_tokens;
  views::drawHeatmap(plot, r.run.attention, 0, labels(r.run.query_tokens), labels(r.run.key_tokens), label);
  const QJsonObject layout = views::layoutJson(plot);
  CHECK(layout["pad_from"].toInt() == 7);
  CHECK(notesOf(layout).join(QLatin1Char('|')).contains(QStringLiteral("hatched rows: [PAD] queries")));
  CHECK(titleOf(layout).contains(QStringLiteral("padded to 12")));
  CHECK(titleOf(layout).contains(QStringLiteral("[PAD] keys unmasked")) == !mask);
  auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
  REQUIRE(map);
  // [PAD] keys: grey (NaN) with the mask, a real weight without it.
  CHECK(std::isnan(map->data()->cell(9, 2)) == mask);
}

}  // namespace attnlab_test_views_variants
