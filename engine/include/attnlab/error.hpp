#pragma once
/// \file error.hpp
/// The engine's single error type. The engine never exits or aborts: every failure is thrown as
/// an attnlab::Error carrying a code, a one-line message and, for OpenCL builds, the build log.

#include <cstddef>
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
  kCancelled,        ///< The caller asked a long computation to stop (a progress callback).
};

/// `message` made one line: control characters (C0, DEL) and the Unicode line breaks U+0085,
/// U+2028, U+2029 — which a message can pick up from a file or text it quotes — become visible
/// escapes ("\n", "\t", "\x01", "\u2028"); everything else, UTF-8 included, is kept.
inline std::string oneLine(const std::string& message) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(message.size());
  for (std::size_t i = 0; i < message.size(); ++i) {
    const auto c = static_cast<unsigned char>(message[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else if (c == 0xC2 && i + 1 < message.size() &&
               static_cast<unsigned char>(message[i + 1]) == 0x85) {
      out += "\\u0085";
      ++i;
    } else if (c == 0xE2 && i + 2 < message.size() &&
               static_cast<unsigned char>(message[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(message[i + 2]) == 0xA8 ||
                static_cast<unsigned char>(message[i + 2]) == 0xA9)) {
      out += static_cast<unsigned char>(message[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += message[i];
    }
  }
  return out;
}

/// The engine's exception. `what()` is a single line naming the problem: whatever the message
/// quotes (a model_type, a tensor name, a line of a vocabulary) cannot break it (see oneLine).
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message, std::string build_log = {})
      : std::runtime_error(oneLine(message)), code_(code), build_log_(std::move(build_log)) {}

  ErrorCode code() const noexcept { return code_; }
  /// The OpenCL program build log when a kernel build failed; empty otherwise.
  const std::string& buildLog() const noexcept { return build_log_; }

 private:
  ErrorCode code_;
  std::string build_log_;
};

}  // namespace attnlab
