#pragma once
/// \file cli_test_support.hpp
/// Runs attention-lab-cli in-process (cli::run) and keeps what it printed, for the app tests.

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "options/lab_settings.hpp"
#include "options/options.hpp"
#include "run/checks.hpp"

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

/// The JSON that `args` print (status 0 required; throws on invalid JSON such as a raw NaN).
inline nlohmann::json runJson(const std::vector<std::string>& args) {
  const CliResult r = runCli(args);
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

/// A usage error as a user sees it: `args` exit with status 2 and exactly one line on stderr,
/// which contains `needle`.
inline void requireUsageError(const std::vector<std::string>& args, const std::string& needle) {
  const CliResult r = runCli(args);
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 2);
  REQUIRE(r.err.find(needle) != std::string::npos);
  REQUIRE(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

/// `compute ARGS --backend BACKEND` as JSON.
inline nlohmann::json computeJson(std::vector<std::string> args, const std::string& backend = "cpu") {
  args.insert(args.begin(), "compute");
  args.insert(args.end(), {"--backend", backend});
  return runJson(args);
}

/// What the window does with the settings of a CLI command line (args without the command):
/// "" when it accepts them, else its English words (options::parse for the window runs the same
/// checks; the text's checks run in checkTokens for both).
inline std::string windowRefusal(const std::vector<std::string>& args) {
  const std::vector<std::string> window(args.begin() + 1, args.end());
  try {
    const options::Options o = options::parse(window, options::kWindow);
    run::checkTokens(o.lab);
  } catch (const options::OptionError& e) {
    return e.message().english().toStdString();
  }
  return {};
}

/// Exit 2 with exactly one line on stderr containing `needle`; with `window_too`, the window
/// refuses the same settings with the same words.
inline void requireRefused(const std::vector<std::string>& args, const std::string& needle,
                           bool window_too = true) {
  const CliResult r = runCli(args);
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 2);
  REQUIRE(r.err.find(needle) != std::string::npos);
  REQUIRE(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  if (window_too) REQUIRE(windowRefusal(args).find(needle) != std::string::npos);
}

/// The lab's default sentence, 11 tokens.
inline const std::string kCat = "The cat sat on the mat because it was tired.";

}  // namespace attnlab::test
