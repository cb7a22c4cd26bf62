/// \file window_bench.cpp
/// attention-lab-window-bench: how long the window's GUI thread stalls while d_k is dragged.
/// A 2 ms timer on the GUI thread records the gaps between event-loop passes, first while the
/// window sits idle (the machine's own noise: the reference), then while the d_k slider moves
/// every 30 ms through 64 … 1024 … 1 … 32, as a mouse drag would, with 256 tokens × 8 heads
/// (issue 10: the worst gap should stay under one 60 Hz frame, 16.7 ms). Prints a table of the
/// worst, 99th-percentile and median gaps of both, and their ratio to the frame budget.
/// Usage: attention-lab-window-bench [--tokens N] [--heads H] [--moves M] [--platform offscreen]

#include <QApplication>
#include <QElapsedTimer>
#include <QSlider>
#include <QStandardPaths>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "main_window.hpp"
#include "views/export.hpp"
#include "options/openmp_env.hpp"

namespace {

constexpr double kFrameMs = 1000.0 / 60.0;

struct Gaps {
  std::vector<double> ms;
  double percentile(double p) const {
    if (ms.empty()) return 0;
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const auto index = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1));
    return sorted[index];
  }
};

/// Runs the event loop until `done` returns true or timeout_ms passes; false on timeout.
bool spinUntil(const std::function<bool()>& done, int timeout_ms) {
  QElapsedTimer timer;
  timer.start();
  while (!done()) {
    if (timer.elapsed() > timeout_ms) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
  return true;
}

/// Records the gaps between event-loop passes while `action` runs; stops when `finished`.
Gaps measure(const std::function<void()>& start, const std::function<bool()>& finished) {
  Gaps gaps;
  QElapsedTimer clock;
  clock.start();
  qint64 last = clock.nsecsElapsed();
  QTimer ticker;
  ticker.setTimerType(Qt::PreciseTimer);
  ticker.setInterval(2);
  QObject::connect(&ticker, &QTimer::timeout, [&] {
    const qint64 now = clock.nsecsElapsed();
    gaps.ms.push_back((now - last) / 1e6);
    last = now;
  });
  ticker.start();
  start();
  spinUntil(finished, 60000);
  ticker.stop();
  return gaps;
}

}  // namespace

int main(int argc, char* argv[]) {
  attnlab::applyOpenMpWaiting(argv);  // before any OpenMP region (options/openmp_env.hpp)
  int tokens = 256, heads = 8, moves = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--tokens") == 0) tokens = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--heads") == 0) heads = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--moves") == 0) moves = std::atoi(argv[i + 1]);
  }
  attnlab::views::installQuietMessageHandler();
  QApplication app(argc, argv);
  QStandardPaths::setTestModeEnabled(true);
  attnlab::gui::initResources();
  attnlab::gui::WindowOptions options;
  options.restore_settings = false;
  options.persist = false;
  options.language = QStringLiteral("en");
  const QStringList vocabulary = QStringLiteral(
      "attention lets every token look at every other token and decide how much each one matters "
      "while the softmax saturates when the scores grow with the width of the keys")
                                     .split(QLatin1Char(' '));
  QStringList words;
  for (int i = 0; i < tokens; ++i) words << vocabulary.at(i % vocabulary.size());
  options.settings.text = words.join(QLatin1Char(' '));
  options.settings.spec.heads = heads;
  options.settings.spec.d_model = 64 * heads;
  options.settings.spec.d_k = 64;
  attnlab::gui::MainWindow window(options);
  auto* dk_slider = window.findChild<QSlider*>(QStringLiteral("dkSlider"));  // docs/DESIGN.md, object names
  window.resize(1500, 920);
  window.show();
  bool ready = false;
  QObject::connect(&window, &attnlab::gui::MainWindow::pictureReady, [&] { ready = true; });
  if (!spinUntil([&] { return ready; }, 60000)) {
    std::fprintf(stderr, "attention-lab-window-bench: no picture after 60 s\n");
    return 1;
  }
  spinUntil([] { return false; }, 500);  // let the OpenCL build and first replots settle

  // Reference: the idle event loop for as long as the drag takes.
  const int duration_ms = moves * 30 + 400;
  QElapsedTimer idle_clock;
  const Gaps idle = measure([&] { idle_clock.start(); }, [&] { return idle_clock.elapsed() > duration_ms; });

  const int path[] = {6, 7, 8, 9, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5};
  int step = 0;
  const int before = window.resultsShown();
  QTimer drag;
  drag.setInterval(30);
  QObject::connect(&drag, &QTimer::timeout, [&] {
    dk_slider->setValue(path[step % std::size(path)]);
    if (++step == moves) drag.stop();
  });
  dk_slider->setSliderDown(true);
  QElapsedTimer settle;
  const Gaps dragging = measure([&] { drag.start(); },
                                [&] {
                                  if (step < moves) return false;
                                  if (!settle.isValid()) settle.start();
                                  return settle.elapsed() > 400 && !window.controller().busy();
                                });
  dk_slider->setSliderDown(false);

  std::printf("d_k drag in the window: %d tokens x %d heads, %d slider moves every 30 ms, %d results drawn\n",
              tokens, heads, moves, window.resultsShown() - before);
  std::printf("%-22s %10s %10s %10s %16s\n", "GUI thread", "worst ms", "p99 ms", "median ms", "worst / 16.7 ms");
  for (const auto& [name, gaps] : {std::pair<const char*, const Gaps&>{"idle (reference)", idle},
                                   std::pair<const char*, const Gaps&>{"dragging d_k", dragging}}) {
    std::printf("%-22s %10.1f %10.1f %10.1f %15.2fx\n", name, gaps.percentile(1.0), gaps.percentile(0.99),
                gaps.percentile(0.5), gaps.percentile(1.0) / kFrameMs);
  }
  return 0;
}
