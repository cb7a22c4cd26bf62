#pragma once
/// \file window_test_support.hpp
/// The window as the GUI tests drive it: options that neither read nor write the user's stored
/// settings, a wait for the result of given settings, and the window's widgets and controllers
/// found by objectName (the list in docs/DESIGN.md, "The window": object names).

#include <QElapsedTimer>
#include <QtTest>
#include <cstdio>
#include <cstdlib>

#include "main_window.hpp"
#include "options/lab_settings.hpp"

namespace attnlab::test {

/// The child of `window` of type T named `name` (QObject::findChild). A missing one ends the test
/// program with a line naming it: the object names are the tests' contract with the window.
template <class T>
T* named(const QObject& window, const char* name) {
  T* child = window.findChild<T*>(QLatin1String(name));
  if (!child) {
    std::fprintf(stderr, "no %s named '%s' in the window\n", T::staticMetaObject.className(), name);
    std::abort();
  }
  return child;
}

/// The hover text of a cell of the layer in focus (HeadsView::cellText).
inline QString cellText(const QObject& window, int head, int query, int key) {
  auto* heads = named<gui::HeadsView>(window, "headsView");
  return heads->cellText(heads->focusEntry(), head, query, key);
}

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
