/// \file main.cpp
/// attention-lab: the window. Takes the CLI's run options (--text, --source, --mechanism, …, and
/// --model DIR --layer L|all --pair TEXT --hide-special for a pretrained model) plus
/// --screenshot FILE (render after the first result, save the window, exit), --lang en|zh_CN,
/// --presentation and --head N.

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QPixmap>
#include <QTimer>
#include <cstdio>
#include <cstring>

#include "lab_settings.hpp"
#include "main_window.hpp"
#include "views/views.hpp"

namespace {

constexpr char kUsage[] =
    "usage: attention-lab [--text TEXT] [--source TEXT] [--mechanism additive|dot|scaled]\n"
    "         [--causal] [--heads H] [--d-model D] [--d-k K] [--seed S] [--temperature T]\n"
    "         [--no-scale] [--backend auto|cpu|opencl] [--device N]\n"
    "         [--model DIR [--layer L|all] [--pair TEXT] [--hide-special]]\n"
    "         [--lang en|zh_CN] [--presentation] [--head N] [--screenshot FILE.png]\n";

}  // namespace

int main(int argc, char* argv[]) {
  // Before QApplication, which needs a display: `--help` works on a headless machine too.
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  attnlab::views::installQuietMessageHandler();
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("AttentionLab"));
  QApplication::setApplicationName(QStringLiteral("attention-lab"));
  QApplication::setApplicationDisplayName(QStringLiteral("Attention Lab"));
  QApplication::setDesktopFileName(QStringLiteral("attention-lab"));
  attnlab::gui::initResources();

  QStringList args = QApplication::arguments();
  args.removeFirst();
  attnlab::gui::WindowOptions options;
  QStringList rest;
  const bool has_run_options = !args.isEmpty();
  if (const QString error = attnlab::gui::parseCommandLine(args, options.settings, rest);
      !error.isEmpty()) {
    std::fprintf(stderr, "attention-lab: %s\n%s", qPrintable(error), kUsage);
    return 2;
  }
  QString screenshot;
  for (int i = 0; i < rest.size(); ++i) {
    const QString& arg = rest.at(i);
    auto value = [&](QString& out) {
      if (i + 1 >= rest.size()) return false;
      out = rest.at(++i);
      return true;
    };
    QString v;
    if (arg == QLatin1String("--screenshot") && value(screenshot)) continue;
    if (arg == QLatin1String("--lang") && value(options.language)) continue;
    if (arg == QLatin1String("--presentation")) {
      options.presentation = true;
      continue;
    }
    if (arg == QLatin1String("--head") && value(v)) {
      bool ok = false;
      options.head = v.toInt(&ok);
      if (ok && options.head >= 0) continue;
    }
    std::fprintf(stderr, "attention-lab: unknown or incomplete option '%s'\n%s", qPrintable(arg),
                 kUsage);
    return 2;
  }
  if (!screenshot.isEmpty()) {
    if (!QFileInfo(screenshot).absoluteDir().exists()) {
      std::fprintf(stderr, "attention-lab: --screenshot: the folder of %s does not exist\n",
                   qPrintable(screenshot));
      return 2;
    }
    // A screenshot shows exactly the command line's settings, and leaves the stored ones alone.
    options.restore_settings = false;
    options.persist = false;
  } else if (has_run_options) {
    options.restore_settings = false;  // the command line wins over the last session
  }

  attnlab::gui::MainWindow window(options);
  window.show();
  if (!screenshot.isEmpty()) {
    QObject::connect(&window, &attnlab::gui::MainWindow::pictureReady, &window, [&] {
      static bool taken = false;
      if (taken) return;
      taken = true;
      // Let the queued replots and the layout settle, then grab what is on screen.
      QTimer::singleShot(400, &window, [&] {
        const bool ok = window.grab().save(screenshot);
        if (!ok) std::fprintf(stderr, "attention-lab: cannot write %s\n", qPrintable(screenshot));
        std::printf("%s\n", qPrintable(screenshot));
        QApplication::exit(ok ? 0 : 1);
      });
    });
    // Bad input in a scripted screenshot is the caller's mistake: say it on one line, exit 2,
    // as the command line does.
    QObject::connect(&window, &attnlab::gui::MainWindow::inputRejected, &window,
                     [](const QString& message) {
                       std::fprintf(stderr, "attention-lab: %s\n", qPrintable(message));
                       QApplication::exit(2);
                     });
    QTimer::singleShot(60000, &window, [] {
      std::fprintf(stderr, "attention-lab: no picture after 60 s\n");
      QApplication::exit(1);
    });
  }
  return QApplication::exec();
}
