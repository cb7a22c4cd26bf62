/// \file cli_cost.cpp
/// attention-lab-cli cost: what one attention layer costs as n grows, with the measured time of
/// this machine's backends (run::cost; a model's shape read from its header by run::costShape)
/// as a table, JSON, CSV or a picture.

#include <qcustomplot.h>

#include <QFileInfo>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnlab/error.hpp"
#include "cli/commands.hpp"
#include "views/cost_plot.hpp"

namespace attnlab::cli {
namespace {

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

int commandCost(const options::Options& o, std::ostream& out, std::ostream& /*err*/) {
  const auto [layer, name] = run::costShape(o.lab);
  run::CostRequest request;
  request.shape = layer;
  request.model = name;
  request.n = o.cost.n;
  request.measure = o.cost.measure;
  request.backend = o.lab.backend;
  request.device = o.lab.device;
  const results::CostTable table = run::cost(request);
  const CostShape& shape = table.shape;
  const std::string model_name = utf8(table.model);
  const std::vector<int>& ns = table.n;
  const double crossover = table.crossover;
  const AttentionCost& one = table.per_token;
  const std::optional<results::CostTimes>& measured = table.measured;

  // The table on stdout.
  const int g = shape.resolvedKvHeads();
  out << "cost of one attention layer" << (model_name.empty() ? "" : " of " + model_name)
      << ": d_model = " << shape.d_model << ", h = " << shape.heads << ", K/V heads G = " << g
      << ", d_k = " << shape.resolvedDk() << ", d_v = " << shape.resolvedDv()
      << (shape.layers > 1 ? ", " + std::to_string(shape.layers) + " layers" : "") << "\n";
  out << "parameters: " << fixed(one.parameters, 0)
      << " (seed: 4·d_model² = " << fixed(one.seed_parameters, 0)
      << "); crossover: attention's FLOPs pass the projections' at n = " << fixed(crossover, 1)
      << " (seed: 2·d_model = " << 2 * shape.d_model << ")\n";
  out << "FLOPs count the engine's matrix products (2 per multiply–add; the seed counts "
         "multiply–adds); "
         "bytes are float32\n\n";
  out << "| n | projections FLOPs | attention FLOPs | attention / projections | P bytes | KV cache "
         "MHA | "
      << (g != shape.heads ? "KV cache GQA | " : "") << "KV cache MQA |";
  if (measured)
    for (TimedPath p : measured->paths) out << " " << toString(p) << " ms |";
  out << "\n|---:|---:|---:|---:|---:|---:|" << (g != shape.heads ? "---:|" : "") << "---:|";
  if (measured)
    for (std::size_t i = 0; i < measured->paths.size(); ++i) out << "---:|";
  out << "\n";
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < ns.size(); ++i) {
    const AttentionCost& c = table.rows[i];
    out << "| " << ns[i] << " | " << humanCount(c.projection_flops, "FLOP") << " | "
        << humanCount(c.attentionFlops(), "FLOP") << " | "
        << fixed(c.attentionFlops() / c.projection_flops, 3) << " | "
        << humanCount(c.score_matrix_bytes, "B") << " | " << humanCount(c.kv_cache_bytes_mha, "B")
        << " | ";
    if (g != shape.heads) out << humanCount(c.kv_cache_bytes, "B") << " | ";
    out << humanCount(c.kv_cache_bytes_mqa, "B") << " |";
    nlohmann::json row = {{"n", ns[i]},
                          {"projection_flops", c.projection_flops},
                          {"score_flops", c.score_flops},
                          {"value_flops", c.value_flops},
                          {"attention_flops", c.attentionFlops()},
                          {"seed_projection_macs", c.seed_projection_macs},
                          {"seed_attention_macs", c.seed_attention_macs},
                          {"score_matrix_bytes", c.score_matrix_bytes},
                          {"kv_cache_bytes", c.kv_cache_bytes},
                          {"kv_cache_bytes_mha", c.kv_cache_bytes_mha},
                          {"kv_cache_bytes_mqa", c.kv_cache_bytes_mqa}};
    if (measured) {
      nlohmann::json ms = nlohmann::json::object(), skipped = nlohmann::json::object();
      for (const PathTime& t : measured->rows[i]) {
        if (t.ran) {
          out << " " << fixed(t.median_ms, t.median_ms < 10 ? 3 : 1) << " |";
          ms[toString(t.path)] = t.median_ms;
        } else {
          out << " — |";
          skipped[toString(t.path)] = t.skipped;
        }
      }
      row["measured_ms"] = ms;
      if (!skipped.empty()) row["skipped"] = skipped;
    }
    out << "\n";
    rows.push_back(row);
  }
  if (measured) {
    out << "\nmeasured on " << measured->device
        << " (median of 7 rounds, 5 from n = 8192; the paths "
        << "take turns, as in attention-lab-bench; — = skipped";
    if (!measured->opencl_note.empty()) out << "; OpenCL: " << measured->opencl_note;
    out << ")\n";
  }

  if (!o.output.out.isEmpty()) {
    const QString format = QFileInfo(o.output.out).suffix().toLower();
    const std::string path = utf8(o.output.out);
    if (format == QLatin1String("json")) {
      nlohmann::json j = {{"d_model", shape.d_model},
                          {"heads", shape.heads},
                          {"kv_heads", g},
                          {"d_k", shape.resolvedDk()},
                          {"d_v", shape.resolvedDv()},
                          {"layers", shape.layers},
                          {"parameters", one.parameters},
                          {"seed_parameters", one.seed_parameters},
                          {"crossover_n", crossover},
                          {"seed_crossover_n", 2 * shape.d_model},
                          {"rows", rows}};
      if (!model_name.empty()) j["model"] = model_name;
      if (measured) {
        j["device"] = measured->device;
        if (!measured->opencl_note.empty()) j["opencl_unavailable"] = measured->opencl_note;
      }
      std::ofstream f(path, std::ios::trunc);
      f << j.dump(2) << "\n";
      if (!f) throw Error(ErrorCode::kIo, "cannot write " + path);
    } else if (format == QLatin1String("csv")) {
      std::ofstream f(path, std::ios::trunc);
      f << "n,projection_flops,attention_flops,seed_projection_macs,seed_attention_macs,score_"
           "matrix_bytes,"
           "kv_cache_bytes,kv_cache_bytes_mha,kv_cache_bytes_mqa";
      if (measured)
        for (TimedPath p : measured->paths) {
          std::string column = toString(p);
          for (char& ch : column)
            if (ch == ' ') ch = '_';
          f << ',' << column << "_ms";
        }
      f << "\n";
      f.precision(17);
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const nlohmann::json& r = rows[i];
        f << r["n"].get<int>();
        for (const char* key :
             {"projection_flops", "attention_flops", "seed_projection_macs", "seed_attention_macs",
              "score_matrix_bytes", "kv_cache_bytes", "kv_cache_bytes_mha", "kv_cache_bytes_mqa"})
          f << ',' << r[key].get<double>();
        if (measured)
          for (const PathTime& t : measured->rows[i])
            f << ',' << (t.ran ? std::to_string(t.median_ms) : "");
        f << "\n";
      }
      if (!f) throw Error(ErrorCode::kIo, "cannot write " + path);
    } else {
      QCustomPlot plot;
      const views::ImageSize size = outputSize(o, {900, measured ? 1150 : 820, 1.0});
      plot.setViewport(QRect(0, 0, size.width, size.height));
      views::drawCost(plot, table);
      views::exportPlot(plot, o.output.out, size);
    }
    out << "\nwrote " << path << "\n";
  }
  return 0;
}

}  // namespace attnlab::cli
