/// \file commands.cpp
/// The sections of --help and usage() (options.hpp), from the commands' table (commands.hpp) and
/// the option table.

#include <QString>
#include <array>

#include "options/option_table.hpp"
#include "options/options.hpp"

namespace attnlab::options {
namespace {

using detail::q;

// clang-format off
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

QString usage(unsigned program, unsigned command) {
  if (program == kWindow) command = 0;
  QString text;
  if (program == kWindow) {
    text = QStringLiteral("attention-lab - ") + q(programSummary(program)) +
           QStringLiteral("\n\n  attention-lab [options]\n");
  } else {
    text = QStringLiteral("attention-lab-cli - ") + q(programSummary(program)) +
           QStringLiteral("\n\n");
    for (const CommandSpec& c : kCommands) {
      if (command != 0 && c.command != command) continue;  // `generate --help`: generate's alone
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
      if (command != 0 && c.command != command) continue;
      mask |= c.command;
      if (c.command != kInfo || command == kInfo) optioned << q(c.name);
    }
  }
  for (const GroupSpec& section : kGroups) {
    QString lines;
    for (const OptionSpec& spec : table()) {
      if (spec.group != section.group || !(spec.commands & mask)) continue;
      QString head = QStringLiteral("  --") + q(spec.name);
      if (!spec.value_name.empty()) head += QLatin1Char(' ') + q(spec.value_name);
      // A long option and its value keep two spaces before the help ("--sample-temperature T").
      head = head.size() <= 22 ? head.leftJustified(24) : head + QStringLiteral("  ");
      QString where;
      if (program != kWindow) {
        QStringList names;
        for (const CommandSpec& c : kCommands)
          if ((spec.commands & c.command) && (command == 0 || c.command == command))
            names << q(c.name);  // info takes --model only
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
