// Source lines for stack.json, read once per file and cached ("File f, line n, in fn, \n src").
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace msprobe {

class SourceLines {
 public:
  // The stripped text of line `line` (1-based) of `file`, or "" when unavailable.
  const std::string& line(const std::string& file, int64_t line);
  // One stack.json frame string, cached per (file, line, function).
  const std::string& frame(const std::string& file, int64_t line, const std::string& function);

 private:
  std::mutex mu_;
  std::unordered_map<std::string, std::vector<std::string>> files_;
  std::unordered_map<std::string, std::string> frames_;
  std::string empty_;
};

}  // namespace msprobe
