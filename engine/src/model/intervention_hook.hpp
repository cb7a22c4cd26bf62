#pragma once
/// \file intervention_hook.hpp
/// Private to the engine: how a pass's interventions (interventions.hpp) reach each layer's
/// attention. PretrainedModel::runIds installs a PassHook on its thread for the pass and sets its
/// layer before each layer runs; blocks::attend, which every architecture's full pass calls, hands
/// it the layer's head outputs (the context [n, h·d_k], before W_O) and its inputs, and the hook
/// ablates, patches and keeps what the options ask for. A generation's steps call applyStep.

#include "attnlab/attention.hpp"
#include "attnlab/pretrained.hpp"

namespace attnlab::interventions {

/// One pass's interventions; lives on the stack of runIds.
struct PassHook {
  const PretrainedModel* model = nullptr;
  const ModelRunOptions* options = nullptr;
  ModelRun* run = nullptr;
  int layer = 0;  ///< The layer now running.

  /// True when the pass asks the hook for anything.
  bool active() const;
  /// Applies the options to layer `layer`'s context [n, h·d_k] in place (and to *attention: the
  /// ablated heads' outputs, and uniform weights for kUniform) and keeps what is asked.
  void apply(Matrix& context, const AttentionInputs& inputs, const AttentionSpec& spec,
             AttentionResult* attention) const;
};

/// The hook of the pass running on this thread, or null.
const PassHook* activeHook();

/// Installs `hook` on this thread while it lives (restoring the previous one after).
class HookScope {
 public:
  explicit HookScope(const PassHook* hook);
  ~HookScope();
  HookScope(const HookScope&) = delete;
  HookScope& operator=(const HookScope&) = delete;

 private:
  const PassHook* previous_;
};

}  // namespace attnlab::interventions
