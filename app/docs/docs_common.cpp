/// \file docs_common.cpp
/// What the man pages and the completion scripts share: the options of a program, the commands
/// of an entry, its value rule in words (docs.hpp).

#include <QString>
#include <algorithm>

#include "docs/docs.hpp"
#include "options/bundled_models.hpp"

namespace attnlab::docs {

using options::Kind;
using options::OptionSpec;

std::string programName(Program program) {
  return program == options::kWindow ? "attention-lab" : "attention-lab-cli";
}

std::vector<const OptionSpec*> programOptions(Program program) {
  unsigned mask = program == options::kWindow ? unsigned{options::kWindow} : 0u;
  if (program != options::kWindow)
    for (const options::CommandSpec& c : options::commands()) mask |= c.command;
  std::vector<const OptionSpec*> list;
  // In the order of --help: by section, then table order.
  for (const options::GroupSpec& group : options::groups())
    for (const OptionSpec& spec : options::table())
      if (spec.group == group.group && (spec.commands & mask)) list.push_back(&spec);
  return list;
}

std::vector<const options::CommandSpec*> commandsOf(const OptionSpec& spec) {
  std::vector<const options::CommandSpec*> list;
  for (const options::CommandSpec& c : options::commands())
    if (spec.commands & c.command) list.push_back(&c);
  return list;
}

bool takesFolder(const OptionSpec& spec) {
  return spec.kind == Kind::kPath && spec.value_name.find("DIR") != std::string_view::npos &&
         spec.value_name.find("FILE") == std::string_view::npos;
}

std::string valueRule(const OptionSpec& spec) {
  const std::string min = std::to_string(spec.min), max = std::to_string(spec.max);
  switch (spec.kind) {
    case Kind::kFlag:
    case Kind::kText:
      return {};
    case Kind::kPath:
      return takesFolder(spec) ? "a folder" : "a file name";
    case Kind::kInt:
      return "a whole number from " + min + " to " + max;
    case Kind::kIntOrAll:
      return "a whole number from " + min + " to " + max + ", or all";
    case Kind::kIntList:
      return "comma-separated whole numbers from " + min + " to " + max;
    case Kind::kNumber: {
      std::string rule =
          spec.min_exclusive ? "a number greater than " + min : "a number of at least " + min;
      if (spec.max != 0) rule += " and at most " + max;
      return rule;
    }
    case Kind::kChoice:
      return "one of " + join(choiceWords(spec), ", ");
  }
  return {};
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

std::vector<std::string> choiceWords(const OptionSpec& spec) {
  return {spec.choices.begin(), spec.choices.end()};
}

std::vector<std::string> modelNames() {
  std::vector<std::string> names;
  for (const QString& name : options::bundledModelNames()) names.push_back(name.toStdString());
  return names;
}

}  // namespace attnlab::docs
