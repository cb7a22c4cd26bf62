/// \file cli_decode.cpp
/// attention-lab-cli decode: the synthetic lab's text decoded token by token with a KV cache
/// (run::Session::decode) — per step the cache's length and bytes and the step's time, the
/// largest difference from the full causal computation — as JSON, and the decoded rows as a
/// picture (views::drawDecoded).

#include <qcustomplot.h>

#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "views/heatmap.hpp"
#include "views/mode_plots.hpp"

namespace attnlab::cli {

int commandDecode(const options::Options& o, std::ostream& out, std::ostream& err) {
  if (o.lab.pretrained()) return commandDecodeModel(o, out, err);
  run::Session session;
  const std::shared_ptr<const results::Decoded> decoded =
      session.decode({o.lab, o.decode.cache_bug, o.decode.bug_step});
  const results::Decoded& r = *decoded;
  const DecodeResult& d = r.decode;
  const AttentionSpec& spec = r.spec;

  nlohmann::ordered_json j;
  j["command"] = "decode";
  j["mechanism"] = toString(spec.mechanism);
  j["h"] = spec.heads;
  j["kv_heads"] = spec.resolvedKvHeads();
  j["d_model"] = spec.d_model;
  j["d_k"] = spec.resolvedDk();
  j["d_v"] = spec.resolvedDv();
  j["window"] = spec.window;
  j["positions"] = toString(spec.positions);
  j["seed"] = o.lab.seed;
  j["cache_bug"] = toString(d.bug);
  if (d.bug != CacheBug::kNone) {
    j["bug_step"] = d.bug_step;
  } else {
    j["bug_step"] = nullptr;
  }
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const DecodeStep& s : d.steps) {
    nlohmann::ordered_json step;
    step["step"] = s.token;
    step["token"] = r.tokens[static_cast<std::size_t>(s.token)].text;
    step["cache_length"] = s.cache_length;
    step["cache_bytes"] = s.cache_bytes;
    step["mha_cache_bytes"] = s.mha_cache_bytes;
    step["ms"] = s.ms;
    step["max_weight_diff"] = s.max_weight_diff;
    step["max_output_diff"] = s.max_output_diff;
    step["max_abs_diff"] = s.max_abs_diff;
    steps.push_back(std::move(step));
  }
  j["steps"] = std::move(steps);
  j["total_ms"] = d.total_ms;
  if (d.first_diff_step >= 0) {
    j["first_diff_step"] = d.first_diff_step;
  } else {
    j["first_diff_step"] = nullptr;
  }
  j["max_weight_diff"] = d.max_weight_diff;
  j["max_output_diff"] = d.max_output_diff;
  j["max_abs_diff"] = d.max_abs_diff;

  if (!o.output.out.isEmpty()) {
    const auto n = static_cast<int>(r.tokens.size());
    QCustomPlot plot;
    const views::ImageSize size =
        outputSize(o, views::defaultHeatmapSize(n, n, o.head ? 1 : spec.heads));
    plot.setViewport(QRect(0, 0, size.width, size.height));
    views::setCanvasSize(plot, QSize(size.width, size.height));
    views::drawDecoded(plot, r, o.head, o.picture);
    exportPicture(plot, o, size);
  }
  out << j.dump() << "\n";
  return kExitOk;
}

}  // namespace attnlab::cli
