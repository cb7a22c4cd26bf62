#pragma once
/// \file error.hpp
/// The engine's single error type. The engine never exits or aborts: every failure is thrown as
/// an attnlab::Error carrying a code, a one-line message and, for OpenCL builds, the build log.

#include <stdexcept>
#include <string>

namespace attnlab {

/// What kind of failure an Error reports. Callers map these to exit codes (CLI) or inline
/// messages (GUI).
enum class ErrorCode {
  kInvalidArgument,  ///< A setting is out of range or inconsistent (heads, d_k, mechanism ...).
  kInvalidInput,     ///< The user's text or file is unusable (empty, invalid UTF-8 ...).
  kIo,               ///< A file could not be written or read.
  kBackend,          ///< A compute backend (OpenCL) failed; the message names the call.
  kInternal,         ///< A bug: an invariant did not hold.
};

/// The engine's exception. `what()` is a single line naming the problem.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message, std::string build_log = {})
      : std::runtime_error(message), code_(code), build_log_(std::move(build_log)) {}

  ErrorCode code() const noexcept { return code_; }
  /// The OpenCL program build log when a kernel build failed; empty otherwise.
  const std::string& buildLog() const noexcept { return build_log_; }

 private:
  ErrorCode code_;
  std::string build_log_;
};

}  // namespace attnlab
