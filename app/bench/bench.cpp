// attention-lab-bench: speed of the engine, printed as a table (never a timed test).
//
// Synthetic-lab latency — what the window needs for live updates: the wall time of one
// runSynthetic (tokenize, embed, project, attention, W_O) after a warm-up, median of many runs,
// and the one-off cost of drawing a SyntheticModel's weights.
//
// With OpenCL: Eigen materialised vs OpenCL tiled materialised vs OpenCL fused (bench.hpp).
//
//   attention-lab-bench [--runs N] [--sizes 512,1024,…] [--heads 1,8] [--device N]
//                       [--csv FILE] [--no-opencl]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attnlab/backend.hpp"
#include "attnlab/synthetic.hpp"
#include "bench/bench.hpp"

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

std::vector<int> parseList(const char* text) {
  std::vector<int> list;
  for (const char* p = text; *p;) {
    list.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return list;
}

int main(int argc, char** argv) {
  int runs = 200;
  bool with_opencl = true;
  attnlab::bench::OpenClBenchOptions cl;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--runs") == 0 && has_value) {
      runs = std::max(5, std::atoi(argv[++i]));
      cl.runs = cl.runs_large = std::max(5, runs / 40);
    } else if (std::strcmp(argv[i], "--sizes") == 0 && has_value) {
      cl.sizes = parseList(argv[++i]);
    } else if (std::strcmp(argv[i], "--heads") == 0 && has_value) {
      cl.heads = parseList(argv[++i]);
    } else if (std::strcmp(argv[i], "--device") == 0 && has_value) {
      cl.device = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--csv") == 0 && has_value) {
      cl.csv_path = argv[++i];
    } else if (std::strcmp(argv[i], "--no-opencl") == 0) {
      with_opencl = false;
    } else {
      std::fprintf(stderr, "attention-lab-bench: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }

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
#ifdef ATTNLAB_WITH_OPENCL
  if (with_opencl) {
    try {
      return attnlab::bench::runOpenClBench(cl);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "attention-lab-bench: OpenCL part skipped: %s\n", e.what());
      return 1;
    }
  }
#else
  (void)with_opencl;
#endif
  return 0;
}
