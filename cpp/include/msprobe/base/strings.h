// Text helpers every area uses, the one place for them (C++17's std::string has no starts_with
// or ends_with): byte-wise, ASCII only, no locale. Python's names where Python has the operation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace msprobe {

inline bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}
inline bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
// Python's `part in s`.
inline bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// ASCII letters lowered, every other byte kept.
std::string to_lower(std::string s);

// A number for a sentence, 3 significant digits (printf's %.3g): "0.0099", "1.2e+04", "inf".
std::string short_number(double v);

// Python's str.strip(): " \t\n\r\f\v" removed from both ends.
std::string_view strip(std::string_view s);

// Python's s.split(sep): every piece, empty ones too ("a..b" -> a, "", b; "" -> one empty piece).
// The pieces point into `s`.
std::vector<std::string_view> split(std::string_view s, char sep);

// Python's sep.join(parts[begin:end]); an end past the last part is the last part.
template <class Parts>
std::string join(const Parts& parts, std::string_view sep, size_t begin = 0, size_t end = SIZE_MAX) {
  std::string out;
  for (size_t i = begin; i < end && i < parts.size(); ++i) {
    if (i > begin) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace msprobe
