// attention-lab-bench: speed of the engine, printed as a table (never a timed test).
//
// Synthetic-lab latency — what the window needs for live updates: the wall time of one
// runSynthetic (tokenize, embed, project, attention, W_O) after a warm-up, median of many runs,
// and the one-off cost of drawing a SyntheticModel's weights.
//
//   attention-lab-bench [--runs N]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attnlab/backend.hpp"
#include "attnlab/synthetic.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Case {
  const char* name;
  int tokens;  // 0: use the cat sentence
  int heads;
  int d_model;
};

std::string sentenceOf(int tokens) {
  if (tokens == 0) return "The cat sat on the mat because it was tired.";
  std::string text;
  for (int i = 0; i < tokens; ++i) text.append("word").append(std::to_string(i)).append(" ");
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 200;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(5, std::atoi(argv[i + 1]));

  const Case cases[] = {
      {"cat sentence (11 tokens), h=8, d_model=64", 0, 8, 64},
      {"32 tokens, h=8, d_model=512", 32, 8, 512},
      {"128 tokens, h=8, d_model=512", 128, 8, 512},
      {"256 tokens, h=8, d_model=512", 256, 8, 512},
  };
  auto cpu = attnlab::makeCpuBackend();
  std::printf("device: %s\n\n", cpu->device().c_str());
  std::printf("| case | model build (ms) | runSynthetic median (ms) | p90 (ms) |\n");
  std::printf("|---|---:|---:|---:|\n");
  for (const Case& c : cases) {
    attnlab::AttentionSpec spec;
    spec.heads = c.heads;
    spec.d_model = c.d_model;
    const auto t0 = Clock::now();
    const attnlab::SyntheticModel model(spec, 0);
    const double build_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const std::string text = sentenceOf(c.tokens);
    for (int w = 0; w < 5; ++w) attnlab::runSynthetic(model, spec, text, std::nullopt, *cpu);
    std::vector<double> times;
    for (int r = 0; r < runs; ++r) {
      const auto start = Clock::now();
      attnlab::runSynthetic(model, spec, text, std::nullopt, *cpu);
      times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    std::printf("| %s | %.2f | %.3f | %.3f |\n", c.name, build_ms, median(times),
                times[times.size() * 9 / 10]);
  }
  return 0;
}
