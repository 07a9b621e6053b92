#include "msprobe/compare/row_name.h"

#include <vector>

namespace msprobe {
namespace compare {
namespace {

std::vector<std::string_view> split_dots(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    parts.push_back(s.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

bool is_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::string join(const std::vector<std::string_view>& parts, size_t end) {
  std::string out;
  for (size_t i = 0; i < end; ++i) {
    if (i) out += '.';
    out.append(parts[i]);
  }
  return out;
}

}  // namespace

RowName split_row_name(std::string_view row) {
  RowName rn;
  std::vector<std::string_view> parts = split_dots(row);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "parameters_grad") {
      rn.entry = join(parts, i + 1);
      rn.role = RowRole::kParametersGrad;
      rn.forward = false;
      return rn;
    }
  }
  // The first whole segment "forward"/"backward" followed by more segments, as 1.2.1's
  // r'\.(forward|backward)\.' split does.
  for (size_t i = 1; i + 1 < parts.size(); ++i) {
    if (parts[i] != "forward" && parts[i] != "backward") continue;
    size_t end = i + 1;
    if (end < parts.size() && is_digits(parts[end])) ++end;  // module call index
    if (end >= parts.size()) return rn;
    std::string_view state = parts[end];
    if (state == "input")
      rn.role = RowRole::kInput;
    else if (state == "kwargs")
      rn.role = RowRole::kKwargs;
    else if (state == "parameters")
      rn.role = RowRole::kParameters;
    else if (state == "output")
      rn.role = RowRole::kOutput;
    else
      return rn;
    rn.entry = join(parts, end);
    rn.forward = parts[i] == "forward";
    return rn;
  }
  return rn;
}

}  // namespace compare
}  // namespace msprobe
