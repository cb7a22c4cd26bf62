// attention-lab-cli: headless compute and export (see docs/DESIGN.md, "Command line").

#include <QApplication>
#include <cstdlib>
#include <iostream>

#include "cli/cli.hpp"

namespace {
// Qt warns on stderr when XDG_RUNTIME_DIR is unset (usual for root and in CI) and then uses a
// private folder anyway; the CLI's stderr is for one-line problems, so drop that notice.
QtMessageHandler g_default_handler = nullptr;

void messageHandler(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set"))) return;
  if (g_default_handler) g_default_handler(type, context, message);
}
}  // namespace

int main(int argc, char** argv) {
  g_default_handler = qInstallMessageHandler(messageHandler);
  // Draw offscreen when there is no display, so the CLI runs on servers and in CI.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
      qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  std::vector<std::string> args(argv + 1, argv + argc);  // raw bytes, before Qt sees them
  QApplication app(argc, argv);
  return attnlab::cli::run(args, std::cout, std::cerr);
}
