// "{module}.parameters_grad" entries: one module call's parameter gradients arrive one by one
// (in autograd's order) and are written as one entry once all have come, or at stop/step.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "msprobe/dump/overflow_sink.h"

namespace msprobe {

struct PendingParamGrads {
  std::vector<std::string> names;                         // the parameters, in module order
  std::unordered_map<std::string, std::string> rendered;  // param -> "[...]" text at depth 3
  std::unordered_map<std::string, SinkPtr> sinks;         // overflow_check: per parameter
  std::vector<std::string> arrival;                       // parameters in gradient order
  bool complete() const { return rendered.size() >= names.size(); }
  bool holds_deferred() const;
};

// The entry's value: every parameter in module order, [null] for those that never came.
std::string param_grads_text(const PendingParamGrads& p);

// overflow_check (1.2.1): only the gradients that overflowed, in arrival order; when the
// module's forward overflowed (1.2.1 wrote a placeholder then), every parameter in module order
// with [null] for the finite ones. Fills `overflowing`; returns "" when nothing is listed.
std::string overflowing_param_grads_text(const PendingParamGrads& p, bool forward_overflowed,
                                         std::vector<std::string>& overflowing);

// "Mod.fc.forward.0" -> "Mod.fc." : the prefix its "parameters_grad" entry name starts with.
std::string param_grads_prefix(const std::string& forward_entry);

}  // namespace msprobe
