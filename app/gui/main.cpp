/// \file main.cpp
/// attention-lab: the window. Takes the command line's options from the one option table
/// (options.hpp): the run options of attention-lab-cli, the picture options (--head, --color-scale,
/// --pool) and the window's own (--screenshot FILE.png [--layout-json FILE], --lang en|zh_CN,
/// --presentation, --lesson NAME[:STEP]). A bad option or input exits 2 with the same line attention-lab-cli prints.

#include <QApplication>
#include <QFile>
#include <QJsonDocument>
#include <QPixmap>
#include <QTimer>
#include <cstdio>
#include <string>
#include <vector>

#include "attnlab/cpu_path.hpp"
#include "lesson_controller.hpp"
#include "main_window.hpp"
#include "options/options.hpp"
#include "views/export.hpp"
#include "views/heatmap.hpp"
#include "options/openmp_env.hpp"

namespace {

int usageError(const QString& message) {
  std::fprintf(stderr, "attention-lab: %s\n", message.toUtf8().constData());
  return 2;
}

}  // namespace

int main(int argc, char* argv[]) {
  attnlab::applyOpenMpWaiting(argv);  // before any OpenMP region (options/openmp_env.hpp)
  namespace options = attnlab::options;
  // Raw bytes, before Qt decodes them (invalid UTF-8 is refused with its byte offset), and before
  // QApplication, which needs a display: --help and bad options work on a headless machine too.
  const std::vector<std::string> raw(argv + 1, argv + argc);
  options::Options parsed;
  try {
    parsed = options::parse(raw, options::kWindow);
  } catch (const options::OptionError& e) {
    return usageError(e.message().english());
  }
  if (parsed.help) {
    std::fputs(options::usage(options::kWindow).toUtf8().constData(), stdout);
    return 0;
  }
  try {
    (void)attnlab::activeCpuPath();  // an unusable ATTNLAB_CPU_PATH: attention-lab-cli's line
  } catch (const std::exception& e) {
    return usageError(QString::fromUtf8(e.what()));
  }
  // The embedded resources (the lesson files among them) before the window and before a display:
  // an unknown lesson or step exits 2 on a headless machine too, with the lesson library's line
  // (attention-lab-cli lesson's words).
  attnlab::gui::initResources();
  if (!parsed.window.lesson.isEmpty()) {
    try {
      attnlab::gui::LessonController::resolve(parsed.window.lesson);
    } catch (const options::OptionError& e) {
      return usageError(e.message().english());
    } catch (const std::exception& e) {
      return usageError(QString::fromUtf8(e.what()));
    }
  }
  attnlab::views::installQuietMessageHandler();
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("AttentionLab"));
  QApplication::setApplicationName(QStringLiteral("attention-lab"));
  QApplication::setApplicationDisplayName(QStringLiteral("Attention Lab"));
  QApplication::setDesktopFileName(QStringLiteral("attention-lab"));

  attnlab::gui::WindowOptions window_options;
  window_options.settings = parsed.lab;
  window_options.picture = parsed.picture;
  window_options.language = parsed.window.language;
  window_options.presentation = parsed.window.presentation;
  window_options.decode_step = parsed.window.decode_step.value_or(-1);
  window_options.lesson = parsed.window.lesson;
  window_options.head_role = parsed.window.head_role;
  window_options.head = parsed.head.value_or(-1);
  window_options.compare = parsed.diff;
  const QString screenshot = parsed.window.screenshot;
  const QString layout_json = parsed.output.layout_json;
  if (!screenshot.isEmpty()) {
    // A screenshot shows exactly the command line's settings, and leaves the stored ones alone.
    window_options.restore_settings = false;
    window_options.persist = false;
  } else if (!raw.empty()) {
    window_options.restore_settings = false;  // the command line wins over the last session
  }

  attnlab::gui::MainWindow window(window_options);
  window.show();
  if (!screenshot.isEmpty()) {
    // Taken once the picture is ready and, in a lesson, the caption's live numbers are computed
    // (and a cache bug's decoded rows are in).
    static bool picture_ready = false;
    const auto take = [&] {
      static bool taken = false;
      if (taken || !picture_ready || window.extrasPending())
        return;
      taken = true;
      // One more pass for the layout to settle, then grab what is on screen.
      QTimer::singleShot(100, &window, [&] {
        bool ok = window.grab().save(screenshot);
        if (!ok) std::fprintf(stderr, "attention-lab: cannot write %s\n", qPrintable(screenshot));
        if (ok && !layout_json.isEmpty()) {
          QFile file(layout_json);
          ok = file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
               file.write(QJsonDocument(window.layoutJson()).toJson()) > 0;
          if (!ok) std::fprintf(stderr, "attention-lab: cannot write %s\n", qPrintable(layout_json));
        }
        if (ok) std::printf("%s\n", qPrintable(screenshot));
        QApplication::exit(ok ? 0 : 1);
      });
    };
    QObject::connect(&window, &attnlab::gui::MainWindow::pictureReady, &window, [&] {
      picture_ready = true;
      take();
    });
    QObject::connect(&window, &attnlab::gui::MainWindow::extrasChanged, &window, take);
    // Bad input in a scripted screenshot is the caller's mistake: the CLI's line, exit 2.
    QObject::connect(&window, &attnlab::gui::MainWindow::inputRejected, &window,
                     [](const QString& message) { QApplication::exit(usageError(message)); });
    QTimer::singleShot(60000, &window, [] {
      std::fprintf(stderr, "attention-lab: no picture after 60 s\n");
      QApplication::exit(1);
    });
  }
  return QApplication::exec();
}
