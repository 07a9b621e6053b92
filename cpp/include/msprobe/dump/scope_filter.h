// The scope / list filters of msprobe 1.2.1 (reference data-dump §5.6): API ranges, module
// ranges, mix ranges and substring lists. Stateful: range scopes open and close as names pass.
#pragma once
#include <string>
#include <vector>

namespace msprobe {

class ScopeFilter {
 public:
  // exact_names: free_benchmark's form (1.2.1's ListScope): scope lists whole call names
  // ("Torch.matmul.0.forward"), not a range; list still matches substrings.
  ScopeFilter(std::vector<std::string> scope, std::vector<std::string> list, std::string level,
              bool exact_names = false);
  // Called for every piece of data about to be collected (an API's inputs and its outputs are
  // checked separately, which is why a range's end API contributes only its inputs).
  bool check(const std::string& name);
  // Module (or Cell) node hooks: forward and backward pre-hooks call begin, post-hooks end.
  void begin_module(const std::string& name);
  void end_module(const std::string& name);
  bool filters_nothing() const { return scope_.empty() && list_.empty(); }

 private:
  bool list_match(const std::string& name) const;
  bool is_module_name(const std::string& name) const;

  std::vector<std::string> scope_, list_;
  bool mix_;
  bool exact_names_ = false;
  bool module_range_ = false;
  bool in_scope_ = false;
  std::string list_module_;  // mix: the module call whose name matched the list
};

// data_mode (reference §5.7): which directions and io kinds are dumped.
class DataModeFilter {
 public:
  explicit DataModeFilter(const std::vector<std::string>& data_mode);
  bool allows(bool forward, bool input) const {
    return (forward ? forward_ : backward_) && (input ? input_ : output_);
  }
  bool forward() const { return forward_; }
  bool backward() const { return backward_; }

 private:
  bool forward_ = true, backward_ = true, input_ = true, output_ = true;
};

}  // namespace msprobe
