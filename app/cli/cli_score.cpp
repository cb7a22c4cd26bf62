/// \file cli_score.cpp
/// attention-lab-cli decode --model: a real model reads the text token by token through its KV
/// cache (attnlab/generate.hpp, scoreText) under the full cache and every --cache-window ×
/// --sink-tokens policy — the attention-sink experiment of Xiao et al. 2023 (StreamingLLM) — as
/// JSON (per-token log-probabilities, log likelihood, perplexity, the heads' sink mass), and the
/// perplexities beside the sink mass as a picture.

#include <qcustomplot.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "attnlab/generate.hpp"
#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "views/export.hpp"
#include "views/sinks_plot.hpp"

namespace attnlab::cli {
namespace {

nlohmann::ordered_json scoreJson(const TextScore& s) {
  nlohmann::ordered_json j;
  j["cache"] = s.cache.describe();
  j["cache_window"] = s.cache.window;
  j["sink_tokens"] = s.cache.sinks;
  j["log_likelihood"] = s.log_likelihood;
  j["mean_log_prob"] = s.log_likelihood / static_cast<double>(s.log_probs.size());
  j["perplexity"] = s.perplexity;
  j["sink_mass_mean"] = s.sink_mass.size() > 0 ? static_cast<double>(s.sink_mass.mean()) : 0.0;
  j["ms"] = s.ms;
  j["log_probs"] = s.log_probs;
  return j;
}

}  // namespace

int commandDecodeModel(const options::Options& o, std::ostream& out, std::ostream& /*err*/) {
  run::Session session;
  const std::shared_ptr<const run::ModelInfo> info = session.model(o.lab.model_dir, cliHooks());
  const PretrainedModel& model = *session.pretrained();
  const std::string text = o.lab.text.toUtf8().toStdString();
  const Encoding e = model.encode(text, std::nullopt);
  const ModelRunOptions run = o.lab.toModelOptions();
  const std::vector<int> sinks = o.generate.sink_tokens.empty() ? std::vector<int>{0} : o.generate.sink_tokens;

  const TextScore full = scoreText(model, e, {}, run);
  std::vector<TextScore> scored;
  for (int w : o.generate.cache_windows)
    for (int s : sinks) scored.push_back(scoreText(model, e, {w, s}, run));

  nlohmann::ordered_json j;
  j["command"] = "decode";
  j["model"] = model.name();
  j["tokens"] = e.labels;
  j["input_ids"] = e.ids;
  j["positions"] = "original";  // a cached token keeps its position in the text
  j["load_ms"] = info->load_ms;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  rows.push_back(scoreJson(full));
  for (const TextScore& s : scored) rows.push_back(scoreJson(s));
  j["scores"] = std::move(rows);
  // The heads' sink mass under the full cache: per layer the mean over heads, and the heads
  // that put the most weight on token 0.
  std::vector<double> per_layer;
  for (Eigen::Index l = 0; l < full.sink_mass.rows(); ++l) per_layer.push_back(full.sink_mass.row(l).mean());
  j["sink_mass_per_layer"] = per_layer;
  std::vector<std::tuple<float, int, int>> heads;
  for (Eigen::Index l = 0; l < full.sink_mass.rows(); ++l)
    for (Eigen::Index h = 0; h < full.sink_mass.cols(); ++h)
      heads.emplace_back(full.sink_mass(l, h), static_cast<int>(l), static_cast<int>(h));
  std::sort(heads.begin(), heads.end(), [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
  nlohmann::ordered_json top = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < std::min<std::size_t>(5, heads.size()); ++i)
    top.push_back({{"layer", std::get<1>(heads[i])}, {"head", std::get<2>(heads[i])}, {"sink_mass", std::get<0>(heads[i])}});
  j["top_sink_heads"] = std::move(top);

  if (!o.output.out.isEmpty()) {
    views::SinkPlotData data;
    data.model = QString::fromStdString(model.name());
    data.tokens = static_cast<int>(e.ids.size());
    data.full_perplexity = full.perplexity;
    data.windows = o.generate.cache_windows;
    std::sort(data.windows.begin(), data.windows.end());
    for (int s : sinks) {
      std::vector<double> ppl(data.windows.size(), std::numeric_limits<double>::quiet_NaN());
      for (const TextScore& t : scored)
        for (std::size_t i = 0; i < data.windows.size(); ++i)
          if (t.cache.sinks == s && t.cache.window == data.windows[i]) ppl[i] = t.perplexity;
      data.curves.emplace_back(s, std::move(ppl));
    }
    data.sink_mass = full.sink_mass;
    QCustomPlot plot;
    const views::ImageSize size = outputSize(o, {1100, 560});
    plot.setViewport(QRect(0, 0, size.width, size.height));
    views::setCanvasSize(plot, QSize(size.width, size.height));
    views::drawSinks(plot, data);
    views::exportPlot(plot, o.output.out, size);
  }
  out << j.dump() << "\n";
  return kExitOk;
}

}  // namespace attnlab::cli
