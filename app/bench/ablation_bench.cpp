// attention-lab-bench --model M --ablation [--tokens 32]: how fast an ablation answers once the
// pass is kept (what the window does when a head is toggled): the kept pass with the residual
// stream (the first time), then the pass resumed at the ablated head's layer with every later
// layer, the next-token top 5 and every token's loss — the worst case a head of layer 0.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/backend.hpp"
#include "attnlab/interventions.hpp"
#include "attnlab/pretrained.hpp"
#include "bench/bench.hpp"

namespace attnlab::bench {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int runAblationBench(const std::string& path, int tokens, int rounds) {
  const auto model = PretrainedModel::load(path);
  const ModelConfig& c = model->config();
  auto backend = makeCpuBackend();
  std::string text;
  Encoding e;
  while (static_cast<int>(e.ids.size()) < tokens) {
    text += "the cat sat on the mat because it was tired. ";
    e = model->tokenizer().encode(text);
  }
  e.ids.resize(static_cast<std::size_t>(tokens));
  Encoding ids;
  ids.ids = e.ids;
  ModelRunOptions keep;
  keep.keep_residual = keep.keep_context = keep.token_loss = true;
  std::vector<double> kept_ms;
  std::shared_ptr<const ModelRun> kept;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    kept = std::make_shared<const ModelRun>(model->runIds(ids, keep, *backend));
    kept_ms.push_back(msSince(t0));
  }
  std::printf("model: %s, %d tokens, every layer's attention kept, CPU backend; medians of %d\n\n",
              model->name().c_str(), tokens, rounds);
  std::printf("| what | ms |\n|---|---:|\n");
  std::printf("| the kept pass (residual stream, head outputs, losses) | %.1f |\n", median(kept_ms));
  for (int layer : {c.layers - 1, c.layers / 2, 0}) {
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r) {
      ModelRunOptions o;
      o.ablation = {{HeadRef{layer, 0}}, AblationMode::kZero};
      o.resume = std::make_shared<const Resume>(
          Resume{layer, kept->residual[static_cast<std::size_t>(layer)]});
      o.keep_residual = o.keep_context = o.token_loss = true;
      const auto t0 = Clock::now();
      const ModelRun ablated = model->runIds(ids, o, *backend);
      ms.push_back(msSince(t0));
    }
    std::printf("| head %d.0 ablated: layers %d–%d again, top 5, %d losses | %.1f |\n", layer, layer,
                c.layers - 1, tokens - 1, median(ms));
  }
  return 0;
}

}  // namespace attnlab::bench
