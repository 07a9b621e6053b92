// Source line cache for stack.json: see source_lines.h.
#include "msprobe/dump/source_lines.h"

#include <fstream>

#include "msprobe/base/strings.h"

namespace msprobe {

const std::string& SourceLines::line(const std::string& file, int64_t line) {
  auto it = files_.find(file);
  if (it == files_.end()) {
    std::vector<std::string> lines;
    std::ifstream in(file);
    std::string l;
    while (in && std::getline(in, l)) lines.emplace_back(strip(l));
    it = files_.emplace(file, std::move(lines)).first;
  }
  if (line < 1 || (size_t)line > it->second.size()) return empty_;
  return it->second[(size_t)line - 1];
}

const std::string& SourceLines::frame(const std::string& file, int64_t lineno, const std::string& function) {
  std::lock_guard<std::mutex> lk(mu_);
  std::string key = file;
  key += '\0';
  key += std::to_string(lineno);
  key += '\0';
  key += function;
  auto it = frames_.find(key);
  if (it != frames_.end()) return it->second;
  std::string text =
      "File " + file + ", line " + std::to_string(lineno) + ", in " + function + ", \n " + line(file, lineno);
  return frames_.emplace(std::move(key), std::move(text)).first->second;
}

}  // namespace msprobe
