#pragma once
/// \file cli.hpp
/// attention-lab-cli as a function, so tests run it in-process. Needs a QApplication (the views
/// draw through QCustomPlot); main() creates one on the offscreen platform when no display exists.

#include <ostream>
#include <string>
#include <vector>

namespace attnlab::cli {

/// Exit codes of the command line.
enum ExitCode : int {
  kExitOk = 0,         ///< Success.
  kExitInternal = 1,   ///< A bug or a backend failure.
  kExitUsage = 2,      ///< Bad arguments or bad input; one line on stderr names the problem.
};

/// Runs one command; its options are read by the option table (options/options.hpp), so the
/// window takes the same ones with the same limits and messages. `args` excludes the program name and holds raw UTF-8 bytes (never
/// re-encoded, so invalid UTF-8 reaches the tokenizer and is reported with its byte offset).
/// Writes results to `out` (JSON, paths) and one-line errors to `err`. Returns an ExitCode.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// The usage text printed by `--help`.
std::string usage();

}  // namespace attnlab::cli
