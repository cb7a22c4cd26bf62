/// \file test_overview_run.cpp
/// The model view of a long input from pooled overviews (issue 27, item 3): a pooled overview
/// draws the cells the full weights draw at every multiple of its block; a run whose every layer
/// in full is over the memory budget gives, where the caller allows it, each layer's overview and
/// the last layer in full, while compute and raw exports refuse it in the same words as before;
/// render draws it.

#include <qcustomplot.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <random>

#include "attnlab/overview.hpp"
#include "attnlab/pretrained.hpp"
#include "cli_test_support.hpp"
#include "pooled_checks.hpp"
#include "run/run.hpp"
#include "views/heatmap.hpp"
#include "views/heatmap_layout_parts.hpp"
#include "views/heatmap_paint.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_overview_run {

namespace {

using attnlab::AttentionResult;
using attnlab::Mask;
using attnlab::PooledAttention;
namespace views = attnlab::views;
namespace run = attnlab::run;

const std::string kTinyLlama =
    std::string(ATTNLAB_TEST_DATA_DIR) + "/models/tiny-llama/tiny-llama.gguf";

/// h heads of n × n softmax rows over the visible keys of `mask` and `window` (0: none),
/// deterministic; masked weights exactly 0.
AttentionResult weights(int h, int n, Mask mask, int window, unsigned seed) {
  AttentionResult r;
  r.mask = mask;
  r.mask_pattern.window = window;
  r.weights = attnlab::Tensor3(h, n, n);
  r.scores = attnlab::Tensor3(h, n, n);
  std::mt19937 rng(seed);
  std::normal_distribution<double> score(0.0, 2.0);
  const attnlab::MaskPattern pattern = r.pattern();
  for (int k = 0; k < h; ++k) {
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      std::vector<double> e(static_cast<std::size_t>(n), 0.0);
      for (int j = 0; j < n; ++j) {
        if (!pattern.visible(i, j)) continue;
        e[static_cast<std::size_t>(j)] = std::exp(score(rng));
        sum += e[static_cast<std::size_t>(j)];
      }
      for (int j = 0; j < n; ++j) r.weights(k, i, j) = static_cast<float>(e[static_cast<std::size_t>(j)] / sum);
    }
  }
  return r;
}

/// A map of n × n tokens in cells of `block` tokens a side.
views::MapGeometry geometry(int n, int block) {
  views::MapGeometry g;
  g.block = block;
  g.rows = g.columns = views::detail::ceilDiv(n, block);
  g.n_q = g.n_k = n;
  g.cell = 4;
  return g;
}

/// A text of about `tokens` tokens for the tiny Llama (its context is 64).
std::string textOf(const attnlab::PretrainedModel& model, int tokens) {
  std::string text = "the";
  while (static_cast<int>(model.encode(text, std::nullopt).ids.size()) < tokens) text += " cat sat on the mat";
  return text;
}

}  // namespace

TEST_CASE("a pooled overview draws the cells the full weights draw", "[overview]") {
  for (const Mask mask : {Mask::kCausal, Mask::kNone}) {
    for (const int window : {0, 5}) {
      for (const int n : {1, 7, 37}) {
        const AttentionResult full = weights(2, n, mask, window, static_cast<unsigned>(n + 10 * window));
        for (const int b : {1, 2, 3}) {
          const PooledAttention pooled = attnlab::poolWeights(full, b);
          for (const int cell_block : {b, 2 * b, 3 * b}) {
            for (const views::Pool pool : {views::Pool::kMax, views::Pool::kMean}) {
              for (const views::ColorScale scale_kind : {views::ColorScale::kLinear, views::ColorScale::kLog}) {
                INFO("mask " << static_cast<int>(mask) << " window " << window << " n " << n << " b " << b
                             << " cells " << cell_block << " mean " << (pool == views::Pool::kMean));
                const views::ScaleSpec scale = views::makeScale(scale_kind, pool, n, cell_block);
                const views::MapGeometry g = geometry(n, cell_block);
                for (int head = 0; head < 2; ++head) {
                  const views::MapValues want = views::mapValues(full, head, g, scale);
                  const views::MapValues got = views::mapValues(pooled, head, g, scale);
                  REQUIRE(got.values.size() == want.values.size());
                  CHECK(got.key_cells == want.key_cells);
                  CHECK(got.query_cells == want.query_cells);
                  for (std::size_t i = 0; i < want.values.size(); ++i) {
                    if (std::isnan(want.values[i])) {
                      CHECK(std::isnan(got.values[i]));
                    } else {
                      // The max is the same float; a mean is the engine's float mean of a block,
                      // weighted back by its count.
                      CHECK(got.values[i] == Approx(want.values[i]).epsilon(1e-6).margin(1e-7));
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  // A cell block that is not a multiple of the overview's is refused.
  const PooledAttention pooled = attnlab::poolWeights(weights(1, 8, Mask::kCausal, 0, 1), 2);
  CHECK_THROWS_AS(views::pooledCell(pooled, 0, 0, 0, 3), attnlab::Error);
  CHECK_THROWS_AS(views::pooledCell(pooled, 1, 0, 0, 2), attnlab::Error);
  // The hand-checked corner: causal block (0, 0) of 2 × 2 tokens sees (0, 0), (1, 0) and (1, 1):
  // row 0's one weight is 1 and row 1's two sum to 1, so the max is 1 and the mean 2/3.
  const views::PooledCell corner = views::pooledCell(pooled, 0, 0, 0, 2);
  CHECK(corner.visible == 3);
  CHECK(corner.max == 1.0);
  CHECK(corner.mean == Approx(2.0 / 3.0).epsilon(1e-6));
}

TEST_CASE("a run over the budget in full gives every layer's overview where the caller allows it",
          "[overview]") {
  const auto model = attnlab::PretrainedModel::load(kTinyLlama);
  const attnlab::ModelConfig& c = model->config();
  REQUIRE(c.layers >= 2);
  const std::string text = textOf(*model, 48);
  const int n = static_cast<int>(model->encode(text, std::nullopt).ids.size());
  attnlab::ModelRunOptions all, pooled;
  pooled.layer = c.layers - 1;
  pooled.overview_block = 2;  // max(2, ⌈n/256⌉)
  const long long full_bytes = model->memoryNeeds(n, all).total();
  const long long pooled_bytes = model->memoryNeeds(n, pooled).total();
  REQUIRE(pooled_bytes < full_bytes);

  attnlab::options::LabSettings s;
  s.model_dir = QString::fromStdString(kTinyLlama);
  s.text = QString::fromStdString(text);
  s.backend = attnlab::options::BackendKind::kCpu;
  run::Session session;
  const std::shared_ptr<attnlab::results::Run> whole = session.run(s);  // the default budget: every layer
  REQUIRE(whole->layers().size() == static_cast<std::size_t>(c.layers));
  CHECK_FALSE(whole->pooled());

  s.memory_budget_gb = static_cast<double>(pooled_bytes + full_bytes) / 2 / 1e9;
  std::string refusal;
  try {
    (void)session.run(s);
    FAIL("every layer in full is over the budget");
  } catch (const attnlab::options::OptionError& e) {
    refusal = e.message().english().toStdString();
  }
  CHECK_THAT(refusal, Catch::Contains("this run would keep") && Catch::Contains("--layer"));

  run::RunHooks hooks;
  hooks.allow_overview = true;
  const std::shared_ptr<attnlab::results::Run> r = session.run(s, hooks);
  REQUIRE(r->pooled());
  REQUIRE(r->overview);
  CHECK(r->overview->block == 2);
  REQUIRE(r->overview->layers.size() == static_cast<std::size_t>(c.layers));
  for (int l = 0; l < c.layers; ++l) CHECK(r->overview->layer_indices[static_cast<std::size_t>(l)] == l);
  REQUIRE(r->layers().size() == 1);
  CHECK(r->layerIndices() == std::vector<int>{c.layers - 1});
  REQUIRE(r->overview->full_refusal);
  CHECK(r->overview->full_refusal->english().toStdString() == refusal);  // compute's and the exports' words
  CHECK(r->layers().front().weights.data == whole->layers().back().weights.data);
  for (int l = 0; l < c.layers; ++l) {
    const PooledAttention want = attnlab::poolWeights(whole->layers()[static_cast<std::size_t>(l)], 2);
    attnlab::test::checkSamePooled(r->overview->layers[static_cast<std::size_t>(l)], want);
  }

  // The same session keeps the pooled pass for callers that draw overviews only.
  CHECK(session.run(s, hooks)->pooled());
  CHECK_THROWS_WITH(session.run(s), Catch::Contains("this run would keep"));

  // Not even the pooled run fits: the full run's refusal, as without the allowance.
  s.memory_budget_gb = static_cast<double>(pooled_bytes - 1) / 1e9;
  CHECK_THROWS_WITH(session.run(s, hooks), Catch::Contains("this run would keep"));
}

TEST_CASE("render draws a pooled model view; compute and raw data keep the refusal",
          "[overview][cli]") {
  const auto model = attnlab::PretrainedModel::load(kTinyLlama);
  const std::string text = textOf(*model, 48);
  const int n = static_cast<int>(model->encode(text, std::nullopt).ids.size());
  attnlab::ModelRunOptions all, pooled;
  pooled.layer = model->config().layers - 1;
  pooled.overview_block = 2;
  const double budget_gb =
      static_cast<double>(model->memoryNeeds(n, all).total() + model->memoryNeeds(n, pooled).total()) / 2 / 1e9;
  const std::string budget = std::to_string(budget_gb);
  QTemporaryDir dir;
  const std::string png = dir.filePath(QStringLiteral("layers.png")).toStdString();
  const std::string layout = dir.filePath(QStringLiteral("layers.json")).toStdString();
  const auto r = attnlab::test::runCli({"render", "--model", kTinyLlama, "--text", text, "--memory-budget",
                                        budget, "--backend", "cpu", "--out", png, "--layout-json", layout});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(std::filesystem::file_size(png) > 0);
  QFile file(QString::fromStdString(layout));
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
  const QJsonArray maps = json["maps"].toArray();
  CHECK(maps.size() == model->config().layers * model->config().heads);
  for (const QJsonValue& m : maps) CHECK(m.toObject()["block"].toInt() % 2 == 0);
  bool noted = false;
  for (const QJsonValue& t : json["texts"].toArray()) noted = noted || t.toObject()["text"].toString().contains(QStringLiteral("pooled while computing"));
  CHECK(noted);

  attnlab::test::requireRefused({"compute", "--model", kTinyLlama, "--text", text, "--memory-budget", budget},
                                "this run would keep", false);
  const std::string csv = dir.filePath(QStringLiteral("layers.csv")).toStdString();
  attnlab::test::requireRefused({"render", "--model", kTinyLlama, "--text", text, "--memory-budget", budget,
                                 "--out", csv},
                                "this run would keep", false);
  // The last layer alone fits (the layers before it are let go as it runs): drawn in full.
  const auto one = attnlab::test::runCli({"render", "--model", kTinyLlama, "--text", text, "--memory-budget",
                                          budget, "--layer", "1", "--out", png});
  INFO(one.err);
  CHECK(one.code == 0);
}

}  // namespace attnlab_test_overview_run
