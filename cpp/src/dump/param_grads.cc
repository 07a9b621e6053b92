#include "msprobe/dump/param_grads.h"

#include "msprobe/dump/deferred_text.h"
#include "msprobe/format/json_text.h"

namespace msprobe {
namespace {
constexpr const char* kNullGrad = "[\n    null\n   ]";

void add_key(std::string& text, bool& first, const std::string& name) {
  text += first ? "\n   " : ",\n   ";
  first = false;
  append_json_string(text, name);
  text += ": ";
}
}  // namespace

bool PendingParamGrads::holds_deferred() const {
  for (const auto& [name, text] : rendered)
    if (msprobe::holds_deferred(text)) return true;
  return false;
}

std::string param_grads_text(const PendingParamGrads& p) {
  std::string text = "{";
  bool first = true;
  for (const auto& name : p.names) {
    add_key(text, first, name);
    auto r = p.rendered.find(name);
    text += r != p.rendered.end() ? r->second : kNullGrad;
  }
  text += first ? "}" : "\n  }";
  return text;
}

std::string overflowing_param_grads_text(const PendingParamGrads& p, bool forward_overflowed,
                                         std::vector<std::string>& overflowing) {
  std::string text = "{";
  bool first = true;
  for (const auto& name : forward_overflowed ? p.names : p.arrival) {
    auto r = p.rendered.find(name);
    auto sk = p.sinks.find(name);
    const bool over = r != p.rendered.end() && sk != p.sinks.end() && sk->second->overflowed();
    if (!over && !forward_overflowed) continue;
    add_key(text, first, name);
    text += over ? r->second : kNullGrad;
    if (over) overflowing.push_back(name);
  }
  if (first) return std::string();
  text += "\n  }";
  return text;
}

std::string param_grads_prefix(const std::string& forward_entry) {
  return forward_entry.substr(0, forward_entry.rfind("forward."));
}

}  // namespace msprobe
