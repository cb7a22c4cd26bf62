/// \file main.cpp
/// Catch2 runner for the app tests: the views need a QApplication (fonts, pixmaps, printing), and
/// the tests run headless, so the offscreen platform is the default.

#define CATCH_CONFIG_RUNNER
#include <QApplication>
#include <QByteArray>
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    qputenv("QT_QPA_PLATFORM", QByteArrayLiteral("offscreen"));
  }
  QApplication app(argc, argv);
  return Catch::Session().run(argc, argv);
}
