#include "msprobe/dump/entry_parts.h"

namespace msprobe {

std::string EntryParts::finish() const {
  if (parts_.empty()) return "{}";
  std::string out = "{";
  for (size_t i = 0; i < parts_.size(); ++i) {
    out += i ? ",\n   " : "\n   ";
    out += parts_[i];
  }
  out += "\n  }";
  return out;
}

bool EntryParts::finite_and_complete() const {
  if (!sink || sink->overflowed()) return false;
  for (const auto& p : parts_)
    if (holds_deferred(p)) return false;
  return true;
}

}  // namespace msprobe
