#pragma once
/// \file generate_choices.hpp
/// generate's sampling and cache choices, one rule and one translation to the engine for the
/// CLI's `generate` and the window's Generate box (generate_checks.cpp).

#include "attnlab/generate.hpp"
#include "options/options.hpp"

namespace attnlab::options {

/// The rules of generate's sampling and cache policy, one for the CLI (after parsing) and the
/// window's Generate box: --top-k and --seed apply when sampling (--sample-temperature > 0),
/// --sink-tokens > 0 needs --cache-window. `top_k_given`, `seed_given`: the option was written
/// (the window: its box is not 0); the CLI passes seed_given false when --sample-temperature is
/// written too, 0 included (greedy, the seed unused). Each value's limits are the option table's (the parser's; the
/// window's boxes take them from option()). Throws OptionError in the CLI's words.
void checkGenerateChoices(const GenerateSettings& g, bool top_k_given, bool seed_given);

/// The engine's options for generating with g and the lab's attention settings (the first of
/// --cache-window and --sink-tokens): what the CLI's generate and the window's Generate box run.
GenerateOptions generateOptions(const GenerateSettings& g, const LabSettings& lab);

}  // namespace attnlab::options
