/// \file cli_generate.cpp
/// attention-lab-cli generate: a real model generates token by token with its KV cache
/// (attnlab/generate.hpp) — per step the token, its probability, the top 5, the new attention
/// row of every layer and head over the cache, the cache's length and bytes — as JSON, and the
/// causal matrix as it grew (one layer and head) as a picture.

#include <qcustomplot.h>

#include <nlohmann/json.hpp>

#include "attnlab/generate.hpp"
#include "attnlab/token_display.hpp"
#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "options/generate_choices.hpp"
#include "views/heatmap.hpp"

namespace attnlab::cli {
namespace {

nlohmann::ordered_json tokenJson(const NextToken& t) {
  nlohmann::ordered_json j;
  j["id"] = t.id;
  j["token"] = t.label;
  j["label"] = displayToken(t.bytes, t.label).label;
  j["probability"] = t.probability;
  j["logit"] = t.logit;
  return j;
}

/// The layer and head the picture shows by default: of the kept layers, the head whose generated
/// rows put the least weight on the first token (its pattern is the one to read; sink heads
/// show one bright column). Prompt rows count when nothing was generated past step 0.
std::pair<int, int> readableHead(const std::vector<AttentionResult>& grown, int n_p) {
  std::pair<int, int> best{0, 0};
  double least = 2;
  for (std::size_t li = 0; li < grown.size(); ++li) {
    const Tensor3& w = grown[li].weights;
    const int from = w.rows > n_p ? n_p : 1;
    for (int h = 0; h < w.h; ++h) {
      double mass = 0;
      for (int i = from; i < w.rows; ++i) mass += w(h, i, 0);
      mass /= std::max(w.rows - from, 1);
      if (mass < least) {
        least = mass;
        best = {static_cast<int>(li), h};
      }
    }
  }
  return best;
}

/// Draws the grown matrix of one layer and head with the prompt block framed (a line under the
/// prompt's rows and one right of its columns).
void drawGeneration(const options::Options& o, const Generation& g, const PretrainedModel& model,
                    const AttentionSpec& spec) {
  const std::vector<AttentionResult> grown = grownAttention(g);
  const auto n_p = static_cast<int>(g.prompt.ids.size());
  auto [entry, head] = readableHead(grown, n_p);
  if (o.head) head = *o.head;
  if (o.lab.layer) entry = 0;  // the only layer kept
  const int n = grown.front().nQ();
  std::vector<int> ids(g.ids.begin(), g.ids.begin() + n);
  QStringList names;
  for (const TokenDisplay& d : displayTokens(labelIds(model.tokenizer(), ids)))
    names << QString::fromStdString(d.label);
  const GenerationStep& last = g.steps.back();
  views::RunLabel label{spec, false, QString::fromStdString(model.name()),
                        g.layers[static_cast<std::size_t>(entry)], {}, {}};
  label.note = views::viewText("prompt rows 0–%1, generated rows %2–%3 · KV cache %4 tokens · %5 bytes")
                   .arg(n_p - 1)
                   .arg(n_p)
                   .arg(n - 1)
                   .arg(last.cache_length)
                   .arg(views::bytesText(last.cache_bytes));
  QCustomPlot plot;
  const views::ImageSize size = outputSize(o, views::defaultHeatmapSize(n, n, 1));
  plot.setViewport(QRect(0, 0, size.width, size.height));
  views::setCanvasSize(plot, QSize(size.width, size.height));
  views::drawHeatmap(plot, grown[static_cast<std::size_t>(entry)], head, names, names, label,
                     o.picture);
  if (n > n_p) {
    // Map coordinates are cells (blocks in an overview): the boundary after the prompt's rows.
    const double edge = static_cast<double>(n_p) / std::max(views::heatmapBlock(plot), 1) - 0.5;
    const double far = static_cast<double>(n) / std::max(views::heatmapBlock(plot), 1) - 0.5;
    QPen pen(QColor(0xd5, 0x5e, 0x00), 2.0);
    for (const auto& [x0, y0, x1, y1] : {std::array<double, 4>{-0.5, edge, far, edge},
                                         std::array<double, 4>{edge, -0.5, edge, edge}}) {
      auto* line = new QCPItemLine(&plot);
      line->setClipAxisRect(plot.axisRect());
      line->start->setAxes(plot.xAxis2, plot.yAxis);
      line->end->setAxes(plot.xAxis2, plot.yAxis);
      line->start->setCoords(x0, y0);
      line->end->setCoords(x1, y1);
      line->setPen(pen);
    }
  }
  views::exportPlot(plot, o.output.out, size);
}

}  // namespace

int commandGenerate(const options::Options& o, std::ostream& out, std::ostream& /*err*/) {
  run::Session session;
  const std::shared_ptr<const run::ModelInfo> info = session.model(o.lab.model_dir, cliHooks());
  const PretrainedModel& model = *session.pretrained();
  const ModelConfig& c = model.config();
  const std::string text = o.lab.text.toUtf8().toStdString();
  const Encoding prompt = model.encode(text, std::nullopt);
  const GenerateOptions go = options::generateOptions(o.generate, o.lab);
  if (o.head && o.lab.layer && *o.head >= c.heads)
    throw Error(ErrorCode::kInvalidArgument, "--head must be between 0 and " +
                                                 std::to_string(c.heads - 1) + " (got " +
                                                 std::to_string(*o.head) + ")");
  const Generation g = generate(model, prompt, go);
  const AttentionSpec spec = model.attentionSpec(go.run);

  nlohmann::ordered_json j;
  j["command"] = "generate";
  j["model"] = model.name();
  j["architecture"] = toString(c.architecture);
  j["layers"] = c.layers;
  j["heads"] = c.heads;
  j["kv_heads"] = c.resolvedKvHeads();
  j["d_k"] = c.dK();
  j["context"] = c.max_positions;
  j["kv_cache_bytes_per_token"] = c.kvCacheBytesPerToken();
  j["mha_kv_cache_bytes_per_token"] = c.mhaKvCacheBytesPerToken();
  j["eos_token_ids"] = c.eos_token_ids;
  j["max_tokens"] = go.max_tokens;
  j["sampling"] = go.sample_temperature > 0 ? "sample" : "greedy";
  j["sample_temperature"] = go.sample_temperature;
  j["seed"] = go.seed;
  j["top_k"] = go.top_k;
  j["cache"] = go.cache.describe();
  j["cache_window"] = go.cache.window;
  j["sink_tokens"] = go.cache.sinks;
  j["positions"] = "original";  // evicted tokens' neighbours keep their text positions
  j["prompt"] = text;
  j["prompt_ids"] = prompt.ids;
  j["prompt_tokens"] = prompt.labels;
  j["layers_kept"] = g.layers;
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  std::string generated;
  for (std::size_t k = 0; k < g.steps.size(); ++k) {
    const GenerationStep& s = g.steps[k];
    nlohmann::ordered_json step;
    step["step"] = k;
    step["position"] = s.position;
    step["input_id"] = s.input_id;
    step["input_token"] = model.tokenizer().tokenLabel(s.input_id);
    nlohmann::ordered_json token = tokenJson(s.token);
    for (auto it = token.begin(); it != token.end(); ++it) step[it.key()] = it.value();
    nlohmann::ordered_json top = nlohmann::ordered_json::array();
    for (const NextToken& t : s.top) top.push_back(tokenJson(t));
    step["top"] = std::move(top);
    step["cache_length"] = s.cache_length;
    step["cache_bytes"] = s.cache_bytes;
    step["cache_positions"] = s.cache_positions;
    step["ms"] = s.ms;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();  // [layer][head][cache]
    for (const Tensor3& r : s.rows) {
      nlohmann::ordered_json heads = nlohmann::ordered_json::array();
      for (int h = 0; h < r.h; ++h) heads.push_back(std::vector<float>(r.row(h, 0), r.row(h, 0) + r.cols));
      rows.push_back(std::move(heads));
    }
    step["attention"] = std::move(rows);
    steps.push_back(std::move(step));
    generated += s.token.bytes;
  }
  j["steps"] = std::move(steps);
  j["generated_ids"] = std::vector<int>(g.ids.begin() + static_cast<std::ptrdiff_t>(prompt.ids.size()), g.ids.end());
  j["generated_text"] = generated;
  j["stop"] = g.stop;
  j["load_ms"] = info->load_ms;
  j["prefill_ms"] = g.prefill_ms;
  j["total_ms"] = g.total_ms;
  double step_ms = 0;
  for (std::size_t k = 1; k < g.steps.size(); ++k) step_ms += g.steps[k].ms;
  if (g.steps.size() > 1) {
    j["tokens_per_s"] = 1000.0 * static_cast<double>(g.steps.size() - 1) / step_ms;
  } else {
    j["tokens_per_s"] = nullptr;
  }
  if (!o.output.out.isEmpty()) drawGeneration(o, g, model, spec);
  // A token may end inside a UTF-8 character: such bytes are written as U+FFFD.
  out << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  return kExitOk;
}

}  // namespace attnlab::cli
