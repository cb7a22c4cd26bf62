// attention-lab-cli: headless compute and export (see docs/cli.md, "Command line (stable contract)").

#include <QApplication>
#include <cstdlib>
#include <iostream>

#include "cli/cli.hpp"
#include "views/export.hpp"
#include "options/openmp_env.hpp"

int main(int argc, char** argv) {
  attnlab::applyOpenMpWaiting(argv);  // before any OpenMP region (options/openmp_env.hpp)
  attnlab::views::installQuietMessageHandler();
  // Draw offscreen when there is no display, so the CLI runs on servers and in CI.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
      qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  std::vector<std::string> args(argv + 1, argv + argc);  // raw bytes, before Qt sees them
  QApplication app(argc, argv);
  return attnlab::cli::run(args, std::cout, std::cerr);
}
