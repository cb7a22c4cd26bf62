#pragma once
/// \file docs.hpp
/// The man pages and shell completion of attention-lab-cli and attention-lab, written from the
/// one option table (options::table(), commands(), groups(): app/options) by the build-time tool
/// attention-lab-docs (docs_main.cpp), so they can never disagree with --help. Qt Core and the
/// options library only.

#include <string>
#include <string_view>
#include <vector>

#include "options/options.hpp"

namespace attnlab::docs {

/// The program a page or script is for: options::kWindow (attention-lab) or 0 (attention-lab-cli).
using Program = unsigned;

/// The executable's name: "attention-lab" or "attention-lab-cli".
std::string programName(Program program);

/// The table's entries the program takes (the window: kWindow; the CLI: any command), in --help
/// order. An option name may appear twice with different commands (--d-k of the lab and of
/// saturation; --out FILE and lesson's --out DIR).
std::vector<const options::OptionSpec*> programOptions(Program program);

/// The command bits an entry is shown for: kWindow for the window, else every CLI command of
/// options::commands() it takes.
std::vector<const options::CommandSpec*> commandsOf(const options::OptionSpec& spec);

/// Whether a kPath entry names a folder only (its value name has DIR and no FILE: lesson --out).
bool takesFolder(const options::OptionSpec& spec);

/// What the value of an entry may be, in words ("one of additive, dot, scaled, linear", "a whole
/// number from 1 to 64", …); empty for a flag or free text.
std::string valueRule(const options::OptionSpec& spec);

/// The roff source of the man page, section 1 (man(7) macros), with `version` in its footer.
/// Its EXAMPLES are checked by options::parse as it is written (std::runtime_error when one is
/// refused).
std::string manPage(Program program, std::string_view version);

/// The bash-completion script (for /usr/share/bash-completion/completions/NAME).
std::string bashCompletion(Program program);

/// The zsh completion function (for /usr/share/zsh/vendor-completions/_NAME).
std::string zshCompletion(Program program);

/// The items joined by `separator`.
std::string join(const std::vector<std::string>& items, std::string_view separator);

/// The choices of a kChoice entry, as words.
std::vector<std::string> choiceWords(const options::OptionSpec& spec);

/// The model names --model completes: the bundled translators (options::bundledModelNames()).
std::vector<std::string> modelNames();

}  // namespace attnlab::docs
