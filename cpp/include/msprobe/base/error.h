// The error model of the core: one exception type per kind of user error, each carrying a
// typed code and one line that names the field, file or position and what is allowed.
// The bindings (cpp/bindings/error_translator.cc) turn them into Python exceptions:
//   ErrorCode::kInvalidInput -> msprobe._core.ConfigError      (ValueError)
//   ErrorCode::kFile         -> msprobe._core.MsprobeFileError (OSError, ValueError)
// Internal invariants that a user cannot break stay asserts; everything a config, argument or
// file can get wrong throws one of these, usually through MSPROBE_CHECK.
#pragma once
#include <stdexcept>
#include <string>

namespace msprobe {

enum class ErrorCode {
  kInvalidInput,  // a value supplied by the user (config field, argument, scope...)
  kFile,          // a file that cannot be read, parsed or written
};

// Base of the core's user errors; what() is the one-line message.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Error(ErrorCode code, const char* message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// A value supplied by the user is invalid (config field, argument, scope...).
class InvalidInput : public Error {
 public:
  explicit InvalidInput(const std::string& message) : Error(ErrorCode::kInvalidInput, message) {}
  explicit InvalidInput(const char* message) : Error(ErrorCode::kInvalidInput, message) {}
};

// A file could not be read, parsed or written.
class FileError : public Error {
 public:
  explicit FileError(const std::string& message) : Error(ErrorCode::kFile, message) {}
  explicit FileError(const char* message) : Error(ErrorCode::kFile, message) {}
};

}  // namespace msprobe

// Throws msprobe::KIND(message) unless `cond` holds. KIND is InvalidInput or FileError;
// `message` is evaluated only on failure, so it may build a string.
//   MSPROBE_CHECK(n >= 0, InvalidInput, "step: " + std::to_string(n) + " is negative");
#define MSPROBE_CHECK(cond, KIND, message)       \
  do {                                           \
    if (!(cond)) throw ::msprobe::KIND(message); \
  } while (0)
