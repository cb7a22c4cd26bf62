#pragma once
/// \file model_cache.hpp
/// The process's one model cache: pretrained models, trained translators and the synthetic
/// lab's weights, each kept once however many windows, workers, sweeps and lessons read them, and
/// freed when no session holds them any more (weak references).

#include <QString>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "attnlab/pretrained.hpp"
#include "attnlab/spec.hpp"
#include "attnlab/synthetic.hpp"
#include "attnlab/translator.hpp"

namespace attnlab::run {

/// Models shared by every session of the process. Thread-safe.
class ModelCache {
 public:
  /// The process's cache.
  static ModelCache& instance();
  /// The pretrained model at `dir` (a folder or a .gguf file), loaded when no session holds it
  /// (`loaded` set true then). Throws what PretrainedModel::load throws.
  std::shared_ptr<const PretrainedModel> get(const QString& dir, bool* loaded = nullptr);
  /// The trained translator at `dir`, loaded when no session holds it. Throws what
  /// Translator::load throws.
  std::shared_ptr<const Translator> translator(const QString& dir);
  /// The synthetic lab's weights for (spec, seed, positions): a model some session holds when
  /// SyntheticModel::sameWeights says it has them, else drawn now (`drawn` set true then; drawing
  /// is the expensive part at large d_model and d_k). Throws what SyntheticModel's constructor
  /// throws.
  std::shared_ptr<const SyntheticModel> synthetic(const AttentionSpec& spec, std::uint64_t seed,
                                                  bool positions = true, bool* drawn = nullptr);

 private:
  std::mutex mutex_;
  std::map<QString, std::weak_ptr<const PretrainedModel>> models_;
  std::map<QString, std::weak_ptr<const Translator>> translators_;
  std::vector<std::weak_ptr<const SyntheticModel>> synthetic_;
};

/// What the model at `dir` (a folder or a .gguf file) is — its config, name and weights' sizes —
/// read from its header or config.json without reading a weight (attnlab::inspectModel): the cost
/// mode's shape and `info --model`. Throws what inspectModel throws.
ModelFileInfo inspect(const QString& dir);

}  // namespace attnlab::run
