/// \file cli_generate.cpp
/// attention-lab-cli generate: a real model generates token by token with its KV cache
/// (run::Session::generate) — per step the token, its probability, the top 5, the new attention
/// row of every layer and head over the cache, the cache's length and bytes — as JSON, and the
/// causal matrix as it grew (one layer and head) as a picture.

#include <qcustomplot.h>

#include <nlohmann/json.hpp>

#include "attnlab/token_display.hpp"
#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "views/heatmap.hpp"
#include "views/mode_plots.hpp"

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

}  // namespace

int commandGenerate(const options::Options& o, std::ostream& out, std::ostream& err) {
  run::Session session;
  run::GenerateRequest request{o.lab, o.generate, o.isGiven("top-k"),
                               o.isGiven("seed") && !o.isGiven("sample-temperature"), o.head};
  const std::shared_ptr<const results::Generated> result =
      session.generate(request, {}, cliHooks(false, "generated token"));
  const results::Generated& r = *result;
  const Generation& g = *r.generation;
  const ModelConfig& c = r.model->config;
  const GenerateOptions& go = r.options;
  const Encoding& prompt = g.prompt;
  const std::string text = o.lab.text.toUtf8().toStdString();

  nlohmann::ordered_json j;
  j["command"] = "generate";
  j["model"] = r.model->name.toStdString();
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
  if (!go.run.ablation.empty()) {  // generated with these heads ablated (--ablate)
    nlohmann::json heads = nlohmann::json::array();
    for (const HeadRef& h : go.run.ablation.heads) heads.push_back(toString(h));
    j["ablation"] = {{"heads", std::move(heads)}, {"mode", toString(go.run.ablation.mode)}};
  }
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
    step["input_token"] = r.input_labels[k];
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
  j["load_ms"] = r.model->load_ms;
  j["prefill_ms"] = g.prefill_ms;
  j["total_ms"] = g.total_ms;
  double step_ms = 0;
  for (std::size_t k = 1; k < g.steps.size(); ++k) step_ms += g.steps[k].ms;
  if (g.steps.size() > 1) {
    j["tokens_per_s"] = 1000.0 * static_cast<double>(g.steps.size() - 1) / step_ms;
  } else {
    j["tokens_per_s"] = nullptr;
  }
  if (isHtml(o.output.out)) {
    generationHtml(o, result, err);
  } else if (!o.output.out.isEmpty()) {
    auto [entry, head] = views::readableHead(r);
    if (o.head) head = *o.head;
    const int n = r.shown->attention(entry).nQ();
    QCustomPlot plot;
    const views::ImageSize size = outputSize(o, views::defaultHeatmapSize(n, n, 1));
    plot.setViewport(QRect(0, 0, size.width, size.height));
    views::setCanvasSize(plot, QSize(size.width, size.height));
    views::drawGeneration(plot, r, entry, head, o.picture);
    exportPicture(plot, o, size);
  }
  // A token may end inside a UTF-8 character: such bytes are written as U+FFFD.
  out << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  return kExitOk;
}

}  // namespace attnlab::cli
