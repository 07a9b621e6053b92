// Hook for name mapping in matching (MindSpore compare's -am/-cm/-dm/-lm). Matching compares
// the keys a NameMapper produces from op names; the default is the identity. The MindSpore
// mappings live in name_mapping.h (owned by the "fixtures" helper).
#pragma once
#include <string>

namespace msprobe {
namespace compare {

class NameMapper {
 public:
  virtual ~NameMapper() = default;
  // Key of an NPU-side full op name (e.g. "Functional.conv2d.0.forward.input.0") for matching
  // against bench keys.
  virtual std::string npu_key(const std::string& op_name) const { return op_name; }
  // Key of a bench-side full op name.
  virtual std::string bench_key(const std::string& op_name) const { return op_name; }
};

}  // namespace compare
}  // namespace msprobe
