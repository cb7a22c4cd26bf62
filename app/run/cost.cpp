/// \file cost.cpp
/// The cost mode (run.hpp: costShape, cost): one attention layer's counts as n grows, the curves
/// of its picture, and this machine's measured times.

#include <algorithm>
#include <cmath>

#include "attnlab/timing.hpp"
#include "run/run.hpp"

namespace attnlab::run {
namespace {

/// Extra memory a measured path may take (the CPU reference keeps S and P of every head).
constexpr double kMeasureBytes = 2.0 * 1024 * 1024 * 1024;
/// Points per curve of the picture (log-spaced).
constexpr int kCurveSamples = 96;

CostShape modelShape(const ModelConfig& c) {
  CostShape s;
  s.d_model = c.d_model;
  s.heads = c.heads;
  s.kv_heads = c.resolvedKvHeads();
  s.d_k = c.dK();
  s.d_v = c.dK();
  s.layers = c.layers;
  return s;
}

CostShape specShape(const AttentionSpec& spec) {
  CostShape s;
  s.d_model = spec.d_model;
  s.heads = spec.heads;
  s.kv_heads = spec.resolvedKvHeads();
  s.d_k = spec.resolvedDk();
  s.d_v = spec.resolvedDv();
  return s;
}

/// The curves over n of `shape`: the formulas are polynomials in n, so the n = 1 counts scaled
/// are exact for fractional n too.
results::CostCurves curvesOf(const CostShape& shape, double lo, double hi) {
  CostShape one = shape;
  one.n = 1;
  const AttentionCost c = attentionCost(one);
  results::CostCurves curves;
  for (int i = 0; i <= kCurveSamples; ++i) {
    const double n = lo * std::pow(hi / lo, static_cast<double>(i) / kCurveSamples);
    curves.n.push_back(n);
    curves.projection_flops.push_back(c.projection_flops * n);
    curves.attention_flops.push_back((c.score_flops + c.value_flops) * n * n);
    curves.score_matrix_bytes.push_back(c.score_matrix_bytes * n * n);
    curves.kv_cache_bytes.push_back(c.kv_cache_bytes * n);
    curves.kv_cache_bytes_mha.push_back(c.kv_cache_bytes_mha * n);
    curves.kv_cache_bytes_mqa.push_back(c.kv_cache_bytes_mqa * n);
  }
  return curves;
}

results::CostTimes measure(const CostRequest& request, const std::vector<int>& ns) {
  results::CostTimes m;
  const bool opencl = request.backend != BackendKind::kCpu;
  AttentionTimer timer(opencl, request.device);
  m.paths = {TimedPath::kCpuReference};
  // OpenCL's paths are listed whenever they were asked for: without a device they are skipped
  // and say why.
  if (opencl) m.paths.insert(m.paths.end(), {TimedPath::kOpenClTiled, TimedPath::kOpenClFused});
  m.device = cpuDeviceName();
  if (timer.hasOpenCl()) {
    m.device += "; OpenCL: " + timer.openClDevice();
    timer.prepare(request.shape.resolvedDk());
  } else if (opencl) {
    m.opencl_note = timer.openClUnavailable();
  }
  for (int n : ns) {
    if (request.cancel && request.cancel->load()) break;
    TimingCase c;
    c.n = n;
    c.heads = request.shape.heads;
    c.d_k = request.shape.resolvedDk();
    // The bench's schedule: 7 rounds, 5 from n = 8192 on.
    m.rows.push_back(timer.time(c, m.paths, n >= 8192 ? 5 : 7, kMeasureBytes));
  }
  return m;
}

}  // namespace

std::pair<CostShape, QString> costShape(const options::LabSettings& settings) {
  options::validate(settings);
  if (!settings.pretrained()) return {specShape(settings.spec), QString()};
  try {
    if (settings.translator) {
      const std::shared_ptr<const Translator> t =
          ModelCache::instance().translator(settings.model_dir);
      const TranslatorConfig& c = t->config();
      const bool additive = c.kind == TranslatorKind::kAdditiveGru;
      CostShape s;
      s.d_model = additive ? c.decoder_hidden : c.d_model;
      s.heads = additive ? 1 : c.heads;
      s.kv_heads = s.heads;
      s.d_k = additive ? c.attention_dim : c.d_k;
      s.d_v = s.d_k;
      s.layers = additive ? 1 : std::max(1, c.decoder_layers);
      return {s, QString::fromStdString(t->name())};
    }
    const ModelFileInfo info = inspect(settings.model_dir);  // the header: no weight read
    return {modelShape(info.config), QString::fromStdString(info.name)};
  } catch (const Error& e) {
    throw LoadFailure(e);
  }
}

std::pair<CostShape, QString> costShape(const Run& run) {
  std::pair<CostShape, QString> shape;
  if (run.model) {
    shape = {modelShape(run.model->config), run.model->name};
  } else if (run.translator) {
    shape = costShape(run.settings);
  } else {
    shape = {specShape(run.spec), QString()};
  }
  shape.first.n = run.attention(0).nK();
  return shape;
}

results::CostTable cost(const CostRequest& request) {
  results::CostTable t;
  t.shape = request.shape;
  t.shape.validate();
  t.model = request.model;
  t.n = request.n.empty() ? std::vector<int>{128, 256, 512, 1024, 2048, 4096, 8192} : request.n;
  t.current_n = request.current_n;
  CostShape one = t.shape;
  one.n = 1;
  t.per_token = attentionCost(one);
  t.crossover = attentionCrossover(t.shape);
  if (t.current_n > 0) {
    CostShape at = t.shape;
    at.n = t.current_n;
    t.current = attentionCost(at);
  }
  for (int n : t.n) {
    CostShape s = t.shape;
    s.n = n;
    t.rows.push_back(attentionCost(s));
  }
  // The picture's n range: the table's n, the crossover and the current n, an octave of air on
  // each side.
  double lo = std::min<double>(*std::min_element(t.n.begin(), t.n.end()), t.crossover);
  double hi = std::max<double>(*std::max_element(t.n.begin(), t.n.end()), t.crossover);
  if (t.current_n > 0) {
    lo = std::min<double>(lo, t.current_n);
    hi = std::max<double>(hi, t.current_n);
  }
  t.curves = curvesOf(t.shape, std::max(1.0, lo / 2), hi * 2);
  if (request.measure) t.measured = measure(request, t.n);
  return t;
}

}  // namespace attnlab::run
