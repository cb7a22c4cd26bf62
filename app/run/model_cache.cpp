/// \file model_cache.cpp
/// The process's model cache (model_cache.hpp).

#include "run/model_cache.hpp"

#include <algorithm>
#include <filesystem>

namespace attnlab::run {
namespace {

std::filesystem::path pathOf(const QString& dir) {
  return std::filesystem::path(dir.toUtf8().toStdString());
}

/// Forgets the entries no session holds any more.
template <class Map>
void forgetExpired(Map& map) {
  for (auto it = map.begin(); it != map.end();)
    it = it->second.expired() ? map.erase(it) : std::next(it);
}

}  // namespace

ModelCache& ModelCache::instance() {
  static ModelCache cache;
  return cache;
}

std::shared_ptr<const PretrainedModel> ModelCache::get(const QString& dir, bool* loaded) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (loaded) *loaded = false;
  std::weak_ptr<const PretrainedModel>& slot = models_[dir];
  if (std::shared_ptr<const PretrainedModel> model = slot.lock()) return model;
  std::shared_ptr<const PretrainedModel> model = PretrainedModel::load(pathOf(dir));
  slot = model;
  if (loaded) *loaded = true;
  forgetExpired(models_);
  return model;
}

std::shared_ptr<const Translator> ModelCache::translator(const QString& dir) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::weak_ptr<const Translator>& slot = translators_[dir];
  if (std::shared_ptr<const Translator> model = slot.lock()) return model;
  std::shared_ptr<const Translator> model = Translator::load(pathOf(dir));
  slot = model;
  forgetExpired(translators_);
  return model;
}

std::shared_ptr<const SyntheticModel> ModelCache::synthetic(const AttentionSpec& spec,
                                                            std::uint64_t seed, bool positions,
                                                            bool* drawn) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (drawn) *drawn = false;
  std::erase_if(synthetic_,
                [](const std::weak_ptr<const SyntheticModel>& w) { return w.expired(); });
  for (const std::weak_ptr<const SyntheticModel>& w : synthetic_)
    if (std::shared_ptr<const SyntheticModel> model = w.lock();
        model && model->sameWeights(spec, seed, positions))
      return model;
  auto model = std::make_shared<const SyntheticModel>(spec, seed, positions);
  synthetic_.push_back(model);
  if (drawn) *drawn = true;
  return model;
}

ModelFileInfo inspect(const QString& dir) { return inspectModel(pathOf(dir)); }

}  // namespace attnlab::run
