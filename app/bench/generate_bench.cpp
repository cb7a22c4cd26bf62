// attention-lab-bench --model M --generate [32,512]: generation through the model's KV cache
// (attnlab/generate.hpp) with every layer's and head's new row kept, tokens per second after a
// prompt of N tokens, and where a step's time goes (the layers, the output layer's logits).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "attnlab/generate.hpp"
#include "attnlab/pretrained.hpp"
#include "bench/bench.hpp"

namespace attnlab::bench {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// n prompt ids: the model's tokens of "the cat sat on the mat because it was tired." repeated
/// (special tokens the tokenizer adds included), cut at n.
Encoding promptOf(const PretrainedModel& model, int n) {
  std::string text;
  Encoding e;
  while (static_cast<int>(e.ids.size()) < n) {
    text += "the cat sat on the mat because it was tired. ";
    e = model.tokenizer().encode(text);
  }
  e.ids.resize(static_cast<std::size_t>(n));
  e.labels.resize(e.ids.size());
  e.bytes.resize(e.ids.size());
  e.special.resize(e.ids.size());
  e.type_ids.assign(e.ids.size(), 0);
  return e;
}

}  // namespace

int runGenerateBench(const std::string& path, const std::vector<int>& prompts, int new_tokens,
                     int rounds, bool json, bool int8_activations) {
  const auto model = PretrainedModel::load(path);
  GenerateOptions o;
  o.run.int8_activations = int8_activations;
  o.max_tokens = new_tokens;
  o.stop_at_eos = false;  // always new_tokens steps
  if (!json) {
    std::printf("model: %s, %d new tokens, every layer's and head's row kept%s; medians of %d\n\n",
                model->name().c_str(), new_tokens, int8_activations ? ", int8 activations" : "",
                rounds);
    std::printf("| prompt | prefill (ms) | per token (ms) | tokens/s | logits per token (ms) |\n");
    std::printf("|---:|---:|---:|---:|---:|\n");
  }
  for (int n : prompts) {
    const Encoding prompt = promptOf(*model, n);
    std::vector<double> per_token, prefill;
    Generation g;
    for (int r = 0; r < rounds + 1; ++r) {  // the first round warms up
      g = generate(*model, prompt, o);
      double ms = 0;
      for (std::size_t k = 1; k < g.steps.size(); ++k) ms += g.steps[k].ms;
      if (r == 0) continue;
      per_token.push_back(ms / static_cast<double>(g.steps.size() - 1));
      prefill.push_back(g.prefill_ms);
    }
    // The output layer alone: the logits of the last hidden state, timed apart.
    Matrix hidden = Matrix::Random(1, model->config().d_model);
    const auto t0 = Clock::now();
    for (int r = 0; r < 10; ++r) (void)model->nextLogits(hidden);
    const double logits_ms = msSince(t0) / 10;
    std::sort(per_token.begin(), per_token.end());
    std::sort(prefill.begin(), prefill.end());
    const double t = per_token[per_token.size() / 2], p = prefill[prefill.size() / 2];
    if (json) {
      std::printf("{\"prompt_tokens\": %d, \"new_tokens\": %d, \"prefill_ms\": %.3f, "
                  "\"ms_per_token\": %.3f, \"tokens_per_s\": %.3f, \"logits_ms\": %.3f, \"ids\": [",
                  n, new_tokens, p, t, 1000.0 / t, logits_ms);
      for (std::size_t i = 0; i < g.ids.size(); ++i) std::printf("%s%d", i ? ", " : "", g.ids[i]);
      std::printf("]}\n");
    } else {
      std::printf("| %d | %.1f | %.2f | %.1f | %.2f |\n", n, p, t, 1000.0 / t, logits_ms);
    }
  }
  return 0;
}

}  // namespace attnlab::bench
