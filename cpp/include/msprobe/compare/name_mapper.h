// Hooks for name mapping in matching (MindSpore compare's -am/-cm/-dm/-lm). The default mapper is
// the identity and maps nothing. The MindSpore mappings live in name_mapping.h (owned by the
// "fixtures" helper) and implement this interface.
//
// How 1.2.1 uses them (mindspore/compare/ms_compare.py, core/compare/acc_compare.py):
//  - -cm / -am: every NPU row gets a compare key (npu_key); bench rows are keyed by their own
//    name; rows are joined on (key, shape). maps_names() true makes the compare "cross framework"
//    (MindSpore dtype names mapped to torch names before the dtype check).
//  - -dm / -lm: an explicit list of (NPU row name, bench row name) pairs replaces matching
//    (compare_process_custom); rows come out in the list's order.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace msprobe {
namespace compare {

class NameMapper {
 public:
  virtual ~NameMapper() = default;
  // Called once before matching with every flattened row name of both dumps, in dump order (the
  // user -am table needs to know which bench APIs exist).
  virtual void prepare(const std::vector<std::string>& npu_rows, const std::vector<std::string>& bench_rows) {
    (void)npu_rows;
    (void)bench_rows;
  }
  // Compare key of an NPU row name (e.g. "Cell.fc1.Dense.forward.0.input.0"); bench rows are keyed
  // by their own name.
  virtual std::string npu_key(const std::string& row_name) const { return row_name; }
  // True when cell or API mapping is active (1.2.1: cross_frame = cell_mapping or api_mapping).
  virtual bool maps_names() const { return false; }
  // -dm / -lm: (NPU row name, bench row name) pairs in mapping order; nullptr when not used.
  virtual const std::vector<std::pair<std::string, std::string>>* data_mapping() const { return nullptr; }
};

}  // namespace compare
}  // namespace msprobe
