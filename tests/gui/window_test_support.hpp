#pragma once
/// \file window_test_support.hpp
/// The window as the GUI tests drive it: options that neither read nor write the user's stored
/// settings, and a wait for the result of given settings.

#include <QElapsedTimer>
#include <QtTest>

#include "main_window.hpp"
#include "options/lab_settings.hpp"

namespace attnlab::test {

/// English, no stored settings read or written.
inline gui::WindowOptions testOptions() {
  gui::WindowOptions options;
  options.restore_settings = false;
  options.persist = false;
  options.language = QStringLiteral("en");
  return options;
}

/// Waits up to wait_ms until the window shows a result for exactly `settings` with nothing
/// pending, then lets `settle_ms` of queued replots run. False on timeout.
inline bool waitFor(gui::MainWindow& window, const options::LabSettings& settings, int wait_ms,
                    int settle_ms = 30) {
  QElapsedTimer timer;
  timer.start();
  while (timer.elapsed() < wait_ms) {
    const auto shown = window.currentResult();
    if (shown && shown->settings == settings && !window.controller().busy()) {
      QTest::qWait(settle_ms);
      return true;
    }
    QTest::qWait(10);
  }
  return false;
}

}  // namespace attnlab::test
