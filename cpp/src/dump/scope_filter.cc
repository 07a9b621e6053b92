// scope / list / data_mode filters: see scope_filter.h.
#include "msprobe/dump/scope_filter.h"

#include <algorithm>

#include "msprobe/base/strings.h"

namespace msprobe {

ScopeFilter::ScopeFilter(std::vector<std::string> scope, std::vector<std::string> list, std::string level,
                         bool exact_names)
    : scope_(std::move(scope)), list_(std::move(list)), mix_(level == "mix"), exact_names_(exact_names) {
  module_range_ = !exact_names_ && scope_.size() == 2 && is_module_name(scope_[0]);
}

bool ScopeFilter::is_module_name(const std::string& name) const {
  return starts_with(name, "Module.") || starts_with(name, "Cell.");
}

bool ScopeFilter::list_match(const std::string& name) const {
  for (const auto& item : list_)
    if (name.find(item) != std::string::npos) return true;
  return false;
}

bool ScopeFilter::check(const std::string& name) {
  if (scope_.empty() && list_.empty()) return true;
  if (exact_names_) {
    if (!scope_.empty() && std::find(scope_.begin(), scope_.end(), name) == scope_.end()) return false;
    return list_.empty() || list_match(name);
  }
  if (mix_ && !list_module_.empty() && scope_.empty()) return true;
  bool in_range = true;
  if (scope_.size() == 2) {
    if (!module_range_ && name == scope_[0]) in_scope_ = true;
    in_range = in_scope_;
    if (!module_range_ && name == scope_[1]) in_scope_ = false;
  }
  if (!in_range) return false;
  if (list_.empty()) return true;
  return list_match(name) || (mix_ && !list_module_.empty());
}

void ScopeFilter::begin_module(const std::string& name) {
  if (exact_names_) return;
  if (scope_.size() == 2 && module_range_ && name == scope_[0]) in_scope_ = true;
  if (mix_ && list_module_.empty() && !list_.empty() && list_match(name)) list_module_ = name;
}

void ScopeFilter::end_module(const std::string& name) {
  if (scope_.size() == 2 && module_range_ && name == scope_[1]) in_scope_ = false;
  if (!list_module_.empty() && name == list_module_) list_module_.clear();
}

DataModeFilter::DataModeFilter(const std::vector<std::string>& data_mode) {
  auto has = [&](const char* m) {
    return std::find(data_mode.begin(), data_mode.end(), m) != data_mode.end();
  };
  if (data_mode.empty() || has("all")) return;
  forward_ = has("forward");
  backward_ = has("backward");
  if (!forward_ && !backward_) forward_ = backward_ = true;
  input_ = has("input");
  output_ = has("output");
  if (!input_ && !output_) input_ = output_ = true;
}

}  // namespace msprobe
