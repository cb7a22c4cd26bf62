/// \file attention.cpp
/// The attention result's accessors (attention.hpp).

#include "results/attention.hpp"

namespace attnlab::results {

const AttentionResult& Run::attention(int entry) const {
  if (!model && !translator) return run.attention;
  return layers().at(static_cast<std::size_t>(entry));
}

const std::vector<AttentionResult>& Run::layers() const {
  static const std::vector<AttentionResult> kNone;
  if (translator) return translator->layers;
  if (!filtered.empty()) return filtered;
  return model_run ? model_run->attention : kNone;
}

const std::vector<int>& Run::layerIndices() const {
  static const std::vector<int> kNone;
  if (translator) return translator->layer_indices;
  return model_run ? model_run->layers : kNone;
}

std::vector<std::string> Run::displayLabels() const {
  std::vector<std::string> labels;
  for (const TokenDisplay& d : token_display) labels.push_back(d.label);
  return labels;
}

std::string Run::fallbackNote() const {
  if (settings.backend != BackendKind::kOpenCl) return {};
  return attention(0).fallback_reason;
}

}  // namespace attnlab::results
