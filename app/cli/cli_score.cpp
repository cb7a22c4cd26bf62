/// \file cli_score.cpp
/// attention-lab-cli decode --model: a real model reads the text token by token through its KV
/// cache under the full cache and every --cache-window × --sink-tokens policy
/// (run::Session::score) — the attention-sink experiment of Xiao et al. 2023 (StreamingLLM) — as
/// JSON (per-token log-probabilities, log likelihood, perplexity, the heads' sink mass), and the
/// perplexities beside the sink mass as a picture.

#include <qcustomplot.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>

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
  const std::shared_ptr<const results::Scored> scored =
      session.score({o.lab, o.generate.cache_windows, o.generate.sink_tokens},
                    cliHooks(false, "scored token"));
  const results::Scored& r = *scored;
  const TextScore& full = r.full;

  nlohmann::ordered_json j;
  j["command"] = "decode";
  j["model"] = r.model->name.toStdString();
  j["tokens"] = r.encoding.labels;
  j["input_ids"] = r.encoding.ids;
  j["positions"] = "original";  // a cached token keeps its position in the text
  j["load_ms"] = r.model->load_ms;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  rows.push_back(scoreJson(full));
  for (const TextScore& s : r.scored) rows.push_back(scoreJson(s));
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
    QCustomPlot plot;
    const views::ImageSize size = outputSize(o, {1100, 560});
    plot.setViewport(QRect(0, 0, size.width, size.height));
    views::setCanvasSize(plot, QSize(size.width, size.height));
    views::drawSinks(plot, views::sinkPlotData(r));
    views::exportPlot(plot, o.output.out, size);
  }
  out << j.dump() << "\n";
  return kExitOk;
}

}  // namespace attnlab::cli
