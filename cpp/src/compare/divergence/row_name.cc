#include "msprobe/compare/row_name.h"

#include <vector>

#include "msprobe/base/strings.h"

namespace msprobe {
namespace compare {
namespace {

bool is_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

RowName split_row_name(std::string_view row) {
  RowName rn;
  const std::vector<std::string_view> parts = split(row, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "parameters_grad") {
      rn.entry = join(parts, ".", 0, i + 1);
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
    rn.entry = join(parts, ".", 0, end);
    rn.forward = parts[i] == "forward";
    return rn;
  }
  return rn;
}

}  // namespace compare
}  // namespace msprobe
