#pragma once
// Shared by the engine, kernel and app tests: error matchers that fail when nothing is thrown, and
// skips that CTest reports as skipped (Catch2 v2 has no SKIP).

#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>
#include <ostream>
#include <string>

#include "attnlab/error.hpp"

namespace attnlab {

/// How Catch prints an engine error that did not match.
inline std::ostream& operator<<(std::ostream& out, const Error& e) {
  return out << "Error(code " << static_cast<int>(e.code()) << ", \"" << e.what() << "\")";
}

}  // namespace attnlab

namespace attnlab::test {

/// Matches an attnlab::Error with `code` whose message is one line containing `part`. Use as
/// REQUIRE_THROWS_MATCHES(expr, attnlab::Error, ErrorMatches(code, "part")), which fails when
/// expr throws nothing, another type, another code or another message.
class ErrorMatcher : public Catch::MatcherBase<Error> {
 public:
  ErrorMatcher(ErrorCode code, std::string part) : code_(code), part_(std::move(part)) {}
  bool match(const Error& e) const override {
    const std::string what = e.what();
    return e.code() == code_ && what.find(part_) != std::string::npos &&
           what.find('\n') == std::string::npos;
  }
  std::string describe() const override {
    return "is an Error with code " + std::to_string(static_cast<int>(code_)) +
           " and a one-line message containing \"" + part_ + "\"";
  }

 private:
  ErrorCode code_;
  std::string part_;
};

inline ErrorMatcher ErrorMatches(ErrorCode code, std::string part) {
  return ErrorMatcher(code, std::move(part));
}

/// True when the CI environment variable is "true".
inline bool inCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

/// The marker tests/CMakeLists.txt gives CTest as SKIP_REGULAR_EXPRESSION.
inline constexpr const char* kSkipMarker = "ATTNLAB_TEST_SKIPPED";

/// Reports the running test case as skipped: prints the marker with the reason, so CTest counts
/// the test as "Skipped" (never "Passed"), and scripts/test fails a CI run that skipped anything.
/// The caller returns from the test case right after. Keep a skipping check in a test case of
/// its own, since the marker skips the whole case.
inline void skipTest(const std::string& reason) {
  std::cout << kSkipMarker << ": " << reason << std::endl;
  WARN("skipped: " << reason);
}

}  // namespace attnlab::test
