// attention-lab-bench: speed of the engine, printed as a table (never a timed test).
//
// Synthetic-lab latency — what the window needs for live updates: the wall time of one
// runSynthetic (tokenize, embed, project, attention, W_O) after a warm-up, median of many runs,
// and the one-off cost of drawing a SyntheticModel's weights.
//
// With OpenCL: Eigen materialised vs OpenCL tiled materialised vs OpenCL fused (bench.hpp).
//
// With --model DIR or FILE.gguf: a pretrained model's load time, resident memory, KV-cache size
// and forward pass with every layer's attention kept (the model view), at 32, 128 and 512 tokens;
// tests/reference/bench_models.py runs it beside HuggingFace transformers and prints the ratio.
//
//   attention-lab-bench [--runs N] [--sizes 512,1024,…] [--heads 1,8] [--device N]
//                       [--csv FILE] [--no-opencl] [--window W] [--window-n N] [--window-only]
//                       [--linear-sizes 64,256,…]   (linear vs softmax attention, d_k = 64)
//   attention-lab-bench --model DIR|FILE.gguf [--runs N] [--tokens 32,128,512] [--json]
//   attention-lab-bench --dense [32,128,512]   (the model passes' dense products, dense_bench.cpp)
//
// Every table names the CPU path in use (attnlab/cpu_path.hpp); ATTNLAB_CPU_PATH=avx512|avx2|
// baseline forces one, so each path can be measured on one machine.

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attnlab/backend.hpp"
#include "attnlab/cpu_path.hpp"
#include "attnlab/memory.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/synthetic.hpp"
#include "bench/bench.hpp"
#include "options/openmp_env.hpp"

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

/// A /proc/self/status field in MB ("VmRSS", "VmHWM"); 0 where unavailable.
double statusMb(const char* field) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  double kb = 0;
  const std::size_t len = std::strlen(field);
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, field, len) == 0 && line[len] == ':') kb = std::atof(line + len + 1);
  }
  std::fclose(f);
  return kb / 1024.0;
}

/// Floating-point operations of one forward pass at n tokens as the engine computes it: the dense
/// products (2 per multiply-add) and, per layer and head, Q Kᵀ and P V over all n² pairs (the
/// causal half included: the CPU reference computes it). Element-wise work is not counted.
double forwardFlops(const attnlab::ModelConfig& c, int n) {
  const double d = c.d_model, dk = c.dK(), h = c.heads;
  const double g = c.resolvedKvHeads();
  const double dense = c.architecture == attnlab::Architecture::kLlama
                           ? d * (h + 2 * g) * dk + h * dk * d + 3 * d * c.d_ff
                           : 4 * d * d + 2 * d * c.d_ff;
  return c.layers * (2.0 * n * dense + 4.0 * h * n * double(n) * dk);
}

/// Text of `target` tokens (special tokens included), grown word by word.
std::string textOfTokens(const attnlab::PretrainedModel& model, int target) {
  int words = target;
  std::string text = wordsText(words);
  while (words > 1 && static_cast<int>(model.tokenizer().encode(text).ids.size()) > target) {
    text = wordsText(--words);
  }
  return text;
}

/// --model PATH --tokens N --json: one line of JSON for tests/reference/bench_models.py.
int runModelJson(const std::string& path, int tokens, int runs, bool int8_activations) {
  const auto model = attnlab::PretrainedModel::load(path);
  const double load_ms = model->loadMs();
  auto cpu = attnlab::makeCpuBackend();
  const std::string text = textOfTokens(*model, tokens);
  attnlab::ModelRunOptions options;
  options.int8_activations = int8_activations;
  model->run(text, std::nullopt, options, *cpu);  // warm-up
  std::vector<double> times;
  attnlab::Encoding encoding;
  for (int r = 0; r < runs; ++r) {
    const auto start = Clock::now();
    const attnlab::ModelRun run = model->run(text, std::nullopt, options, *cpu);
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    encoding = run.encoding;
  }
  std::printf("{\"forward_ms\": %.3f, \"load_ms\": %.3f, \"rss_mb\": %.1f, \"peak_rss_mb\": %.1f, "
              "\"gflops\": %.4f, \"ids\": [",
              median(times), load_ms, statusMb("VmRSS"), statusMb("VmHWM"),
              forwardFlops(model->config(), static_cast<int>(encoding.ids.size())) / 1e9);
  for (std::size_t i = 0; i < encoding.ids.size(); ++i) {
    std::printf("%s%d", i ? ", " : "", encoding.ids[i]);
  }
  std::printf("]}\n");
  return 0;
}

int runModelBench(const std::string& path, int runs, const std::vector<int>& lengths,
                  bool int8_activations) {
  std::vector<double> loads;
  std::unique_ptr<attnlab::PretrainedModel> model;
  double rss_loaded = 0;
  for (int r = 0; r < 5; ++r) {
    model.reset();
    model = attnlab::PretrainedModel::load(path);
    loads.push_back(model->loadMs());
    if (r == 0) rss_loaded = statusMb("VmRSS");
  }
  const auto touch_start = Clock::now();
  model->touchWeights({});  // the first touch of the mapped weights, timed apart
  const double touch_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - touch_start).count();
  const attnlab::ModelConfig& c = model->config();
  auto cpu = attnlab::makeCpuBackend();
  std::printf("model: %s (%s from %s %s, %d layers × %d heads", model->name().c_str(),
              c.model_type.c_str(), c.format.c_str(), c.weight_type.c_str(), c.layers, c.heads);
  if (c.kv_heads != c.heads) std::printf(" sharing %d K/V heads", c.kv_heads);
  std::printf(", d_model %d)\ndevice: %s, %d threads; cpu path %s%s\n\n", c.d_model,
              cpu->device().c_str(), omp_get_max_threads(), attnlab::describeCpuPath().c_str(),
              int8_activations ? "; int8 activations in the weight products" : "");
  std::printf("load (header and tokenizer; the weights of a GGUF file or a Llama-family or Gemma "
              "folder stay in the mapped file, BERT's and GPT-2's are copied): first %.1f ms, "
              "median of 5 %.1f ms; resident memory after the first load %.0f MB\n",
              loads.front(), median(loads), rss_loaded);
  std::printf("weights: %s as stored; their first touch (every page mapped) %.1f ms\n",
              attnlab::formatBytes(model->weightBytes().total).c_str(), touch_ms);
  std::printf("KV cache (float32, all layers): %lld bytes per token; with one K/V head per query "
              "head (MHA) %lld\n\n",
              c.kvCacheBytesPerToken(), c.mhaKvCacheBytesPerToken());
  std::printf("| tokens | heads captured | forward median (ms) | p90 (ms) | GFLOP/s | runs | "
              "peak RSS so far (MB) |\n"
              "|---:|---:|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  for (int target : lengths) {
    if (target > c.max_positions) continue;
    const std::string text = textOfTokens(*model, target);
    // Every layer's heads kept up to 512 tokens (the model view); beyond, the last layer in full
    // and every other layer as its pooled overview (blocks of ⌈n/128⌉ tokens: a thumbnail of at
    // most 128 cells a side), so that long inputs stay within the memory budget.
    attnlab::ModelRunOptions all_layers;
    all_layers.int8_activations = int8_activations;
    if (target > 512) {
      all_layers.layer = c.layers - 1;
      all_layers.overview_block = (target + 127) / 128;
    }
    const auto warm = Clock::now();
    model->run(text, std::nullopt, all_layers, *cpu);
    const double once = std::chrono::duration<double, std::milli>(Clock::now() - warm).count();
    std::vector<double> times;
    int n = 0, captured = 0, pooled = 0;
    // At most `runs` runs and about 8 s per length (at least 3 runs), so that the defaults finish
    // in well under 2 minutes on 2 cores of a slow path.
    const int most = std::clamp(static_cast<int>(8000.0 / std::max(once, 1e-3)), 3, runs);
    int reps = 0;
    const auto length_start = Clock::now();
    // Also stopped by the clock: on a shared machine later runs can be far slower than the first.
    for (int r = 0; r < most; ++r, ++reps) {
      if (r >= 3 && std::chrono::duration<double>(Clock::now() - length_start).count() > 8.0) break;
      const auto start = Clock::now();
      const attnlab::ModelRun run = model->run(text, std::nullopt, all_layers, *cpu);
      times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      n = static_cast<int>(run.encoding.ids.size());
      captured = static_cast<int>(run.attention.size()) * c.heads;
      pooled = static_cast<int>(run.overviews.size()) * c.heads;
    }
    std::sort(times.begin(), times.end());
    const std::string kept =
        pooled > 0 ? std::to_string(captured) + " + " + std::to_string(pooled) + " pooled (" +
                         std::to_string(all_layers.overview_block) + "-token blocks)"
                   : std::to_string(captured);
    std::printf("| %d | %s | %.2f | %.2f | %.1f | %d | %.0f |\n", n, kept.c_str(), median(times),
                times[times.size() * 9 / 10], forwardFlops(c, n) / median(times) / 1e6, reps,
                statusMb("VmHWM"));
    std::fflush(stdout);
  }
  std::printf("\nresident memory after the runs: %.0f MB (peak %.0f MB)\n", statusMb("VmRSS"),
              statusMb("VmHWM"));
  return 0;
}

}  // namespace

/// Linear attention (Katharopoulos et al. 2020) against softmax attention, one head, d_k = d_v = 64,
/// causal, as n grows: the CPU reference's scaled dot-product (materialises S and P: O(n²·d)) and
/// linear attention's output by prefix sums (O(n·d_k·d_v)), medians of `runs` runs, and their ratio.
void runLinearBench(const std::vector<int>& sizes, int runs) {
  std::printf("\nlinear vs softmax attention (CPU reference), h = 1, d_k = d_v = 64, causal\n\n");
  std::printf("| n | softmax (ms) | linear, prefix sums (ms) | softmax / linear |\n");
  std::printf("|---:|---:|---:|---:|\n");
  for (int n : sizes) {
    attnlab::AttentionInputs in;
    attnlab::Rng rng(7);
    for (attnlab::Tensor3* t : {&in.q, &in.k, &in.v}) {
      *t = attnlab::Tensor3(1, n, 64);
      for (float& x : t->data) x = static_cast<float>(rng.normal());
    }
    attnlab::AttentionSpec softmax;
    softmax.heads = 1;
    softmax.d_model = 64;
    softmax.mask = attnlab::Mask::kCausal;
    attnlab::AttentionSpec linear = softmax;
    linear.mechanism = attnlab::Mechanism::kLinear;
    const auto time = [runs](auto&& work) {
      work();  // warm-up
      std::vector<double> times;
      for (int r = 0; r < runs; ++r) {
        const auto start = Clock::now();
        work();
        times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      }
      return median(times);
    };
    const double soft_ms = time([&] { (void)attnlab::computeAttentionCpu(in, softmax); });
    const double linear_ms = time([&] { (void)attnlab::linearAttentionOutputs(in, linear); });
    std::printf("| %d | %.3f | %.3f | %.2f |\n", n, soft_ms, linear_ms, soft_ms / linear_ms);
  }
}

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
  attnlab::applyOpenMpWaiting(argv);  // before any OpenMP region (options/openmp_env.hpp)
  int runs = 200;
  std::string model_dir;
  std::vector<int> lengths = {32, 128, 512};
  bool json = false;
  bool int8_activations = false;
  bool ablation = false;  // --ablation: the live-ablation table (bench/ablation_bench.cpp)
  bool with_opencl = true;
  std::vector<int> linear_sizes = {64, 256, 1024, 2048, 4096};
  attnlab::bench::OpenClBenchOptions cl;
  attnlab::bench::DecodeBenchOptions decode;
  bool decode_only = false;
  bool dense_only = false;
  std::vector<int> generate_prompts;  // --generate: prompt lengths (empty: not asked)
  int new_tokens = 32;
  std::vector<int> dense_rows = {32, 128, 512};
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--runs") == 0 && has_value) {
      runs = std::max(5, std::atoi(argv[++i]));
      cl.runs = cl.runs_large = std::max(5, runs / 40);
    } else if (std::strcmp(argv[i], "--sizes") == 0 && has_value) {
      cl.sizes = parseList(argv[++i]);
    } else if (std::strcmp(argv[i], "--window") == 0 && has_value) {
      cl.window = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--window-n") == 0 && has_value) {
      cl.window_n = std::max(0, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--decode") == 0) {
      decode_only = true;
      if (has_value && argv[i + 1][0] != '-') decode.sizes = parseList(argv[++i]);
    } else if (std::strcmp(argv[i], "--kv-heads") == 0 && has_value) {
      decode.kv_heads = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--window-only") == 0) {
      cl.sizes.clear();
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
          "                      [--csv FILE] [--no-opencl] [--window W] [--window-n N]\n"
          "                      [--window-only]\n"
          "      synthetic-lab latency, then Eigen vs OpenCL tiled vs OpenCL fused attention,\n"
          "      then dense vs sliding-window fused (W = 256 at n = 16384, h = 8; --window-n 0\n"
          "      leaves it out) beside the FMA peak measured in the same run;\n"
          "      linear vs softmax attention at d_k = 64 (--linear-sizes 64,256,...; empty: none)\n"
          "  attention-lab-bench --dense [32,128,512]\n"
          "      the model passes' dense products at the models' shapes on the CPU path in use,\n"
          "      beside its FMA peak and Eigen's GEMM (ATTNLAB_CPU_PATH=avx512|avx2|baseline)\n"
          "  attention-lab-bench --model DIR|FILE.gguf [--runs N] [--tokens 32,128,512] [--json]\n"
          "                     [--int8-activations]\n"
          "      a pretrained model: load time, resident memory, KV-cache size and the forward\n"
          "      pass with every head's attention kept (--json: one length, one line of JSON with\n"
          "      the ids, for tests/reference/bench_models.py)\n"
          "  attention-lab-bench --model FILE --generate [32,512] [--new-tokens 32] [--runs N] [--json]\n"
          "                     [--int8-activations] [--ablation]\n"
          "      generation through the KV cache, every head's row kept: prefill, ms and tokens/s\n"
          "      per generated token after each prompt length, the output layer's share\n"
          "      (--int8-activations: the weight products with int8 activations, as llama.cpp)\n"
          "      (--ablation: a head ablated with the pass kept, as the window toggles one)\n"
          "  attention-lab-bench --decode [256,1024,4096] [--kv-heads G]\n"
          "      KV-cache decoding (O(n) per step) against recomputing the causal prefix every\n"
          "      step (O(n^2) per step), h = 8, d_k = 64\n"
          "For stable figures: OMP_WAIT_POLICY=passive POCL_AFFINITY=1 on a quiet machine.\n");
      return 0;
    } else if (std::strcmp(argv[i], "--model") == 0 && has_value) {
      model_dir = argv[++i];
    } else if (std::strcmp(argv[i], "--tokens") == 0 && has_value) {
      lengths = parseList(argv[++i]);
    } else if (std::strcmp(argv[i], "--dense") == 0) {
      dense_only = true;
      if (has_value && argv[i + 1][0] != '-') dense_rows = parseList(argv[++i]);
    } else if (std::strcmp(argv[i], "--generate") == 0) {
      generate_prompts = {32, 512};
      if (has_value && argv[i + 1][0] != '-') generate_prompts = parseList(argv[++i]);
    } else if (std::strcmp(argv[i], "--new-tokens") == 0 && has_value) {
      new_tokens = std::max(2, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (std::strcmp(argv[i], "--int8-activations") == 0) {
      int8_activations = true;
    } else if (std::strcmp(argv[i], "--ablation") == 0) {
      ablation = true;
    } else if (std::strcmp(argv[i], "--linear-sizes") == 0 && has_value) {
      linear_sizes = parseList(argv[++i]);
    } else if (std::strcmp(argv[i], "--no-opencl") == 0) {
      with_opencl = false;
    } else {
      std::fprintf(stderr, "attention-lab-bench: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }

  try {
    (void)attnlab::activeCpuPath();  // an unusable ATTNLAB_CPU_PATH: one line, exit 2
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attention-lab-bench: %s\n", e.what());
    return 2;
  }
  if (dense_only) return attnlab::bench::runDenseBench(dense_rows);
  if (decode_only) {
    try {
      return attnlab::bench::runDecodeBench(decode);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "attention-lab-bench: %s\n", e.what());
      return 2;
    }
  }
  if (!model_dir.empty()) {
    try {
      if (ablation)
        return attnlab::bench::runAblationBench(model_dir, lengths.empty() ? 32 : lengths.front(),
                                                std::clamp(runs / 20, 3, 15));
      if (!generate_prompts.empty())
        return attnlab::bench::runGenerateBench(model_dir, generate_prompts, new_tokens,
                                                std::clamp(runs / 40, 1, 5), json, int8_activations);
      if (json)
        return runModelJson(model_dir, lengths.empty() ? 32 : lengths.front(), runs, int8_activations);
      return runModelBench(model_dir, runs, lengths, int8_activations);
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
  std::printf("device: %s; cpu path %s\n\n", cpu->device().c_str(),
              attnlab::describeCpuPath().c_str());
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
  runLinearBench(linear_sizes, std::max(3, runs / 40));
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
