#include "msprobe/dump/deferred_text.h"

#include <cstdlib>

namespace msprobe {

std::string deferred_marker(uint64_t id) {
  std::string marker(1, kDeferredMark);
  marker += std::to_string(id);
  marker += kDeferredMark;
  return marker;
}

bool substitute_deferred(std::string& text, std::unordered_map<uint64_t, std::string>& rendered) {
  size_t pos = text.find(kDeferredMark);
  if (pos == std::string::npos) return true;
  std::string out;
  out.reserve(text.size() + 256);
  size_t done = 0;
  bool complete = true;
  while (pos != std::string::npos) {
    const size_t end = text.find(kDeferredMark, pos + 1);
    if (end == std::string::npos) break;
    const uint64_t id = std::strtoull(text.c_str() + pos + 1, nullptr, 10);
    auto it = rendered.find(id);
    out.append(text, done, pos - done);
    if (it != rendered.end()) {
      out += it->second;
      rendered.erase(it);
    } else {
      out.append(text, pos, end + 1 - pos);
      complete = false;
    }
    done = end + 1;
    pos = text.find(kDeferredMark, done);
  }
  out.append(text, done, std::string::npos);
  text.swap(out);
  return complete;
}

std::string null_deferred(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != kDeferredMark) {
      out += text[i];
      continue;
    }
    const size_t end = text.find(kDeferredMark, i + 1);
    if (end == std::string::npos) break;
    out += "null";
    i = end;
  }
  return out;
}

}  // namespace msprobe
