/// \file sweep.cpp
/// The sweep mode's frames (run.hpp: sweepFrames).

#include "options/variants.hpp"
#include "run/run.hpp"

namespace attnlab::run {

std::vector<options::SweepFrame> sweepFrames(const options::Options& o, Session& session) {
  if (!o.sweep.param)
    throw options::OptionError(
        options::Message(ATTNLAB_MSG("--param NAME is required (e.g. --param d_k)")));
  std::vector<options::SweepFrame> frames = options::sweepFrames(o, 0);
  if (frames.empty()) {
    // Every layer or every head of a model: known once the model is loaded.
    options::validate(o.lab);
    const ModelConfig& config = session.model(o.lab.model_dir)->config;
    frames = options::sweepFrames(o, o.sweep.param->name == "layer" ? config.layers : config.heads);
  }
  return frames;
}

}  // namespace attnlab::run
