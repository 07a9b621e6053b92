// Error types of the core. User errors (bad config, bad file) carry one line that names the
// field, file or position and what is allowed; the bindings turn them into Python exceptions.
#pragma once
#include <stdexcept>
#include <string>

namespace msprobe {

// A value supplied by the user is invalid (config field, argument, scope...).
class InvalidInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file could not be read, parsed or written.
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace msprobe
