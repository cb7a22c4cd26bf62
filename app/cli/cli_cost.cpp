/// \file cli_cost.cpp
/// attention-lab-cli cost: what one attention layer costs as n grows (attnlab/cost.hpp), with the
/// measured time of this machine's backends (attnlab/timing.hpp, the code attention-lab-bench
/// times with).

#include <qcustomplot.h>

#include <QFileInfo>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnlab/cost.hpp"
#include "attnlab/error.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/timing.hpp"
#include "cli/commands.hpp"
#include "views/cost_plot.hpp"

namespace attnlab::cli {
namespace {

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

/// Extra memory a measured path may take (the CPU reference keeps S and P of every head).
constexpr double kMeasureBytes = 2.0 * 1024 * 1024 * 1024;

struct Measured {
  std::vector<TimedPath> paths;
  std::vector<std::vector<PathTime>> rows;  ///< Per n, per path.
  std::string device;                       ///< "CPU; OpenCL: <device>".
  std::string opencl_note;                  ///< Why OpenCL was not measured.
};

Measured measure(const options::Options& o, const CostShape& shape, const std::vector<int>& ns) {
  Measured m;
  const bool opencl = o.lab.backend != options::BackendKind::kCpu;
  AttentionTimer timer(opencl, o.lab.device);
  m.paths = {TimedPath::kCpuReference};
  if (opencl) m.paths.insert(m.paths.end(), {TimedPath::kOpenClTiled, TimedPath::kOpenClFused});
  m.device = cpuDeviceName();
  if (timer.hasOpenCl()) {
    m.device += "; OpenCL: " + timer.openClDevice();
    timer.prepare(shape.resolvedDk());
  } else if (opencl) {
    m.opencl_note = timer.openClUnavailable();
  }
  for (int n : ns) {
    TimingCase c;
    c.n = n;
    c.heads = shape.heads;
    c.d_k = shape.resolvedDk();
    // The bench's schedule: 7 rounds, 5 from n = 8192 on.
    m.rows.push_back(timer.time(c, m.paths, n >= 8192 ? 5 : 7, kMeasureBytes));
  }
  return m;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

int commandCost(const options::Options& o, std::ostream& out, std::ostream& /*err*/) {
  CostShape shape;
  std::string model_name;
  if (o.lab.pretrained()) {
    const auto model = PretrainedModel::load(utf8(o.lab.model_dir));
    const ModelConfig& c = model->config();
    model_name = model->name();
    shape.d_model = c.d_model;
    shape.heads = c.heads;
    shape.kv_heads = c.kv_heads;
    shape.d_k = c.dK();
    shape.d_v = c.dK();
    shape.layers = c.layers;
  } else {
    shape.d_model = o.lab.spec.d_model;
    shape.heads = o.lab.spec.heads;
    shape.kv_heads = o.lab.spec.kv_heads;
    shape.d_k = o.lab.spec.d_k;
    shape.d_v = o.lab.spec.d_v;
  }
  shape.validate();
  std::vector<int> ns = o.cost.n;
  if (ns.empty()) ns = {128, 256, 512, 1024, 2048, 4096, 8192};
  const double crossover = attentionCrossover(shape);
  const AttentionCost one = attentionCost(
      CostShape{1, shape.d_model, shape.heads, shape.kv_heads, shape.d_k, shape.d_v, shape.layers});
  std::optional<Measured> measured;
  if (o.cost.measure) measured = measure(o, shape, ns);

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
    CostShape s = shape;
    s.n = ns[i];
    const AttentionCost c = attentionCost(s);
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
      views::CostPlotData data;
      data.shape = shape;
      data.n = ns;
      data.model = QString::fromStdString(model_name);
      if (measured) {
        data.device = QString::fromStdString(measured->device);
        for (std::size_t p = 0; p < measured->paths.size(); ++p) {
          std::vector<double> ms;
          for (const auto& row : measured->rows) ms.push_back(row[p].ran ? row[p].median_ms : NAN);
          data.measured.emplace_back(QString::fromStdString(toString(measured->paths[p])), ms);
        }
      }
      QCustomPlot plot;
      const views::ImageSize size = outputSize(o, {900, measured ? 1150 : 820, 1.0});
      plot.setViewport(QRect(0, 0, size.width, size.height));
      views::drawCost(plot, data);
      views::exportPlot(plot, o.output.out, size);
    }
    out << "\nwrote " << path << "\n";
  }
  return 0;
}

}  // namespace attnlab::cli
