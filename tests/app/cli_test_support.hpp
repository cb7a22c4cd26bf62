#pragma once
/// \file cli_test_support.hpp
/// Runs attention-lab-cli in-process (cli::run) and keeps what it printed, for the app tests.

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace attnlab::test {

/// The exit status and the two streams of one CLI run.
struct CliResult {
  int code = -1;
  std::string out, err;
};

/// attention-lab-cli with `args` (without the program name), run in this process.
inline CliResult runCli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  CliResult r;
  r.code = attnlab::cli::run(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace attnlab::test
