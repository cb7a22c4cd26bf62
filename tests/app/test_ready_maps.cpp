/// \file test_ready_maps.cpp
/// Maps filled off the GUI thread (views/ready_maps.hpp, issue 26): the cells and the image the
/// window's worker fills for the picture's plan draw pixel for pixel what filling them on the
/// GUI thread draws — a grid of every token, a pooled overview on a log scale with a causal
/// mask, a one-query map — and a plan for another picture is not used.

#include <qcustomplot.h>

#include <QImage>
#include <catch2/catch.hpp>
#include <cmath>
#include <thread>

#include "attnlab/attention.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "views/heatmap_paint.hpp"
#include "views/ready_maps.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_ready_maps {

namespace {

using attnlab::AttentionInputs;
using attnlab::AttentionResult;
using attnlab::AttentionSpec;
using attnlab::Mask;
using attnlab::Tensor3;
namespace views = attnlab::views;

/// h heads over n_q queries and n_k keys from deterministic inputs; `phase` changes every weight
/// (what dragging d_k does to the picture).
AttentionResult result(int h, int n_q, int n_k, Mask mask, double phase) {
  constexpr int kDk = 4;
  AttentionInputs in;
  in.q = Tensor3(h, n_q, kDk);
  in.k = Tensor3(h, n_k, kDk);
  in.v = Tensor3(h, n_k, kDk);
  for (std::size_t i = 0; i < in.q.data.size(); ++i) in.q.data[i] = static_cast<float>(2 * std::sin(phase + 1.3 * i));
  for (std::size_t i = 0; i < in.k.data.size(); ++i) in.k.data[i] = static_cast<float>(2 * std::cos(0.7 * i));
  for (std::size_t i = 0; i < in.v.data.size(); ++i) in.v.data[i] = 0.1f * static_cast<float>(i % 7);
  AttentionSpec spec;
  spec.heads = h;
  spec.d_model = h * kDk;
  spec.mask = mask;
  return attnlab::computeAttentionCpu(in, spec);
}

/// The picture of plot as pixels at its canvas size.
QImage pixels(QCustomPlot& plot) {
  const QRect viewport = plot.viewport();
  return plot.toPixmap(viewport.width(), viewport.height()).toImage();
}

/// A plot of `size` showing a (head < 0: every head, else that head).
void draw(QCustomPlot& plot, const QSize& size, const AttentionResult& a, int head,
          const views::PictureOptions& picture) {
  plot.setViewport(QRect(QPoint(0, 0), size));
  views::setCanvasSize(plot, size);
  if (head < 0) {
    views::drawHeadGrid(plot, a, {}, {}, views::RunLabel{}, picture);
  } else {
    views::drawHeatmap(plot, a, head, {}, {}, views::RunLabel{}, picture);
  }
}

/// Draws a, then b both ways (filled here; filled on another thread for the picture's plan) and
/// checks that the two pictures are the same pixels and that the ready images were drawn.
void checkSamePixels(const QSize& size, const AttentionResult& a, const AttentionResult& b, int head,
                     const views::PictureOptions& picture) {
  QCustomPlot here, ready_plot;
  draw(here, size, a, head, picture);
  draw(ready_plot, size, a, head, picture);
  const std::shared_ptr<const views::MapPlan> plan = views::mapPlan(ready_plot, head);
  REQUIRE(plan);
  std::shared_ptr<const views::ReadyMaps> ready;
  std::thread worker([&] { ready = views::fillReadyMaps(b, plan); });  // as the compute worker does
  worker.join();
  REQUIRE(ready);
  REQUIRE(views::updateWeights(here, b, head, {}, {}, views::RunLabel{}, picture));
  REQUIRE(views::updateWeights(ready_plot, b, head, {}, {}, views::RunLabel{}, picture, ready.get()));
  for (int k = 0; k < ready_plot.plottableCount(); ++k) {
    auto* map = qobject_cast<QCPColorMap*>(ready_plot.plottable(k));
    REQUIRE(map);
    CHECK(views::drawsReadyImage(*map));
    CHECK_FALSE(views::drawsReadyImage(*qobject_cast<QCPColorMap*>(here.plottable(k))));
  }
  const QImage expected = pixels(here);
  const QImage drawn = pixels(ready_plot);
  REQUIRE(expected.size() == drawn.size());
  CHECK(expected == drawn);
  // The cells (hover, SVG export) are the weights too.
  auto* a_map = qobject_cast<QCPColorMap*>(here.plottable(0));
  auto* b_map = qobject_cast<QCPColorMap*>(ready_plot.plottable(0));
  REQUIRE(a_map->data()->keySize() == b_map->data()->keySize());
  for (int c = 0; c < a_map->data()->keySize(); ++c) {
    const double x = a_map->data()->cell(c, 0), y = b_map->data()->cell(c, 0);
    CHECK(((std::isnan(x) && std::isnan(y)) || x == y));
  }
}

}  // namespace

TEST_CASE("maps filled on another thread draw the same pixels", "[views][ready]") {
  SECTION("a grid of every token, linear") {
    checkSamePixels(QSize(700, 500), result(4, 10, 10, Mask::kNone, 0.0), result(4, 10, 10, Mask::kNone, 0.4), -1,
                    {views::ColorScale::kLinear, views::Pool::kMax});
  }
  SECTION("a pooled overview, log scale, causal, block mean") {
    const QSize size(420, 420);
    const AttentionResult a = result(1, 300, 300, Mask::kCausal, 0.0);
    QCustomPlot probe;
    draw(probe, size, a, 0, {views::ColorScale::kLog, views::Pool::kMean});
    REQUIRE(views::heatmapBlock(probe) > 1);  // an overview indeed
    checkSamePixels(size, a, result(1, 300, 300, Mask::kCausal, 0.9), 0, {views::ColorScale::kLog, views::Pool::kMean});
  }
  SECTION("one query row (two half cells), relative scale") {
    checkSamePixels(QSize(600, 300), result(2, 1, 6, Mask::kNone, 0.0), result(2, 1, 6, Mask::kNone, 1.1), 1,
                    {views::ColorScale::kRelative, views::Pool::kMax});
  }
}

TEST_CASE("maps filled for another picture's plan are not used", "[views][ready]") {
  const AttentionResult a = result(2, 8, 8, Mask::kNone, 0.0);
  const AttentionResult b = result(2, 8, 8, Mask::kNone, 0.5);
  QCustomPlot log_plot, linear_plot;
  draw(log_plot, QSize(600, 400), a, -1, {views::ColorScale::kLog, views::Pool::kMax});
  draw(linear_plot, QSize(600, 400), a, -1, {views::ColorScale::kLinear, views::Pool::kMax});
  const auto log_ready = views::fillReadyMaps(b, views::mapPlan(log_plot, -1));
  REQUIRE(log_ready);
  REQUIRE(views::updateWeights(linear_plot, b, -1, {}, {}, views::RunLabel{},
                               {views::ColorScale::kLinear, views::Pool::kMax}, log_ready.get()));
  auto* map = qobject_cast<QCPColorMap*>(linear_plot.plottable(1));
  CHECK_FALSE(views::drawsReadyImage(*map));
  CHECK(map->data()->cell(3, 2) == Approx(b.weights(1, 2, 3)));
  // A result of another shape does not fit the plan at all.
  CHECK_FALSE(views::fillReadyMaps(result(2, 9, 9, Mask::kNone, 0.0), views::mapPlan(log_plot, -1)));
  CHECK_FALSE(views::fillReadyMaps(b, views::mapPlan(log_plot, 2)));
}

}  // namespace attnlab_test_ready_maps
