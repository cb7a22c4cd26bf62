/// \file saturation.cpp
/// The saturation mode (run.hpp: saturation, interactiveSaturation).

#include "run/run.hpp"

namespace attnlab::run {

results::SaturationCurves saturation(const SaturationRequest& request) {
  results::SaturationCurves r;
  SaturationConfig config;
  if (!request.saturation.d_k.empty()) config.d_k = request.saturation.d_k;
  config.n_k = request.saturation.keys;
  config.samples = request.saturation.samples;
  config.seed = request.lab.seed;
  // The text's settings without a d_k of their own: the curves' list is the d_k here.
  options::LabSettings lab = request.lab;
  lab.spec.d_k = 0;
  const AttentionSpec spec = lab.toSpec();
  // The marked d_k: --mark, else the list's single value, else the one a run would use.
  r.mark = config.d_k.size() == 1 ? config.d_k.front() : spec.resolvedDk();
  if (request.saturation.mark) r.mark = *request.saturation.mark;
  r.scaled = request.lab.spec.mechanism != Mechanism::kDot;
  if (request.sentence) {
    checkTokens(lab);
    std::optional<std::string> source;
    if (lab.cross()) source = lab.source.toUtf8().toStdString();
    r.sentence = saturationOfSentence(spec, lab.seed, true, lab.text.toUtf8().toStdString(), source,
                                      config.d_k);
    config.n_k = r.sentence->n_k;  // like with like: as many keys as the text has
  }
  r.monte_carlo = saturationMonteCarlo(config);
  return r;
}

SaturationAnalysis interactiveSaturation(int n_k, std::uint64_t seed, std::optional<int> d_k) {
  SaturationConfig config;
  if (d_k) config.d_k = {*d_k};
  config.n_k = n_k;
  config.samples = saturationSamples(n_k);
  config.seed = seed;
  return saturationMonteCarlo(config);
}

}  // namespace attnlab::run
