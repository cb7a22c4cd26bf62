// attention-lab-bench: speed of the engine, printed as a table (never a timed test).
//
// Synthetic-lab latency — what the window needs for live updates: the wall time of one
// runSynthetic (tokenize, embed, project, attention, W_O) after a warm-up, median of many runs,
// and the one-off cost of drawing a SyntheticModel's weights.
//
// With OpenCL: Eigen materialised vs OpenCL tiled materialised vs OpenCL fused (bench.hpp).
//
// With --model DIR: a pretrained model's load time and forward pass with every layer's attention
// kept (the model view), at 32, 128 and 512 tokens.
//
//   attention-lab-bench [--runs N] [--sizes 512,1024,…] [--heads 1,8] [--device N]
//                       [--csv FILE] [--no-opencl]
//   attention-lab-bench --model DIR [--runs N]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attnlab/backend.hpp"
#include "attnlab/pretrained.hpp"
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

/// Words that tokenize to one WordPiece / BPE token each in common vocabularies.
std::string wordsText(int words) {
  static const char* const kWords[] = {"the", "cat", "sat", "on", "mat", "because", "it", "was",
                                       "tired", "and", "then", "a", "dog", "came", "in", "to"};
  std::string text;
  for (int i = 0; i < words; ++i) text.append(kWords[i % 16]).append(" ");
  return text;
}

int runModelBench(const std::string& dir, int runs) {
  std::vector<double> loads;
  std::unique_ptr<attnlab::PretrainedModel> model;
  for (int r = 0; r < 5; ++r) {
    model = attnlab::PretrainedModel::load(dir);
    loads.push_back(model->loadMs());
  }
  const attnlab::ModelConfig& c = model->config();
  auto cpu = attnlab::makeCpuBackend();
  std::printf("model: %s (%s, %d layers × %d heads, d_model %d)\ndevice: %s\n\n",
              model->name().c_str(), c.model_type.c_str(), c.layers, c.heads, c.d_model,
              cpu->device().c_str());
  std::printf("load (config + safetensors + tokenizer): first %.1f ms, median of 5 %.1f ms\n\n",
              loads.front(), median(loads));
  std::printf("| tokens | heads captured | forward median (ms) | p90 (ms) |\n|---:|---:|---:|---:|\n");
  for (int target : {32, 128, 512}) {
    if (target > c.max_positions) continue;
    // Grow the text until it gives `target` tokens (special tokens included).
    int words = target;
    std::string text = wordsText(words);
    while (words > 1 && static_cast<int>(model->tokenizer().encode(text).ids.size()) > target) {
      text = wordsText(--words);
    }
    const attnlab::ModelRunOptions all_layers;
    for (int w = 0; w < 3; ++w) model->run(text, std::nullopt, all_layers, *cpu);
    std::vector<double> times;
    int n = 0, captured = 0;
    for (int r = 0; r < runs; ++r) {
      const auto start = Clock::now();
      const attnlab::ModelRun run = model->run(text, std::nullopt, all_layers, *cpu);
      times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      n = static_cast<int>(run.encoding.ids.size());
      captured = static_cast<int>(run.attention.size()) * c.heads;
    }
    std::sort(times.begin(), times.end());
    std::printf("| %d | %d | %.2f | %.2f |\n", n, captured, median(times), times[times.size() * 9 / 10]);
  }
  return 0;
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
  std::string model_dir;
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
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf(
          "attention-lab-bench — speed tables (medians after a warm-up; no test)\n"
          "  attention-lab-bench [--runs N] [--sizes 512,1024,...] [--heads 1,8] [--device N]\n"
          "                      [--csv FILE] [--no-opencl]\n"
          "      synthetic-lab latency, then Eigen vs OpenCL tiled vs OpenCL fused attention\n"
          "  attention-lab-bench --model DIR [--runs N]\n"
          "      a pretrained model: load time and the forward pass at 32, 128, 512 tokens\n"
          "For stable figures: OMP_WAIT_POLICY=passive POCL_AFFINITY=1 on a quiet machine.\n");
      return 0;
    } else if (std::strcmp(argv[i], "--model") == 0 && has_value) {
      model_dir = argv[++i];
    } else if (std::strcmp(argv[i], "--no-opencl") == 0) {
      with_opencl = false;
    } else {
      std::fprintf(stderr, "attention-lab-bench: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }

  if (!model_dir.empty()) {
    try {
      return runModelBench(model_dir, runs);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "attention-lab-bench: %s\n", e.what());
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
