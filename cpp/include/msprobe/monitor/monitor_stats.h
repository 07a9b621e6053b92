// The training monitor's statistics of one tensor (1.2.1's TrainerMon ops, docs 19), all in one
// pass over its memory: min, max, norm, zeros, nans, mean.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace monitor {

// The ops 1.2.1 knows, in its order (MonitorConst.OP_LIST). "id" is the value of a 0-d tensor.
enum class MonitorOp : uint8_t { kNorm, kMin, kMax, kZeros, kNans, kId, kMean };

const std::vector<std::string>& monitor_op_names();
// Throws InvalidInput for a name that is not in monitor_op_names().
MonitorOp monitor_op_from_name(const std::string& name);

struct MonitorStats {
  // As 1.2.1 reports them: min and max in the tensor's dtype (NaN when any element is NaN or the
  // tensor is empty), norm and mean summed in float over runs of 8 then in float64 (float64 only
  // for float64 tensors, or where float squares would overflow or vanish), zeros the share of
  // |x| < eps as float32 (1.2.1 divides an integer count by numel), nans a count. Empty tensor:
  // all NaN but nans 0.
  double min = 0, max = 0, norm = 0, zeros = 0, nans = 0, mean = 0;
  double id = 0;  // the value of a one-element tensor, NaN otherwise
  double get(MonitorOp op) const;
};

// One pass over `t` (any dtype, any strides). counts false: zeros and nans are not counted (left
// 0; a cheaper pass when the ops do not ask for them).
MonitorStats monitor_stats(const TensorView& t, double eps, bool counts = true);
// monitor_stats of each tensor (nullptr: left all 0), the pieces of large calls read by several
// threads; the values do not depend on the number of threads.
std::vector<MonitorStats> monitor_stats_many(const std::vector<const TensorView*>& tensors, double eps,
                                             bool counts = true);

}  // namespace monitor
}  // namespace msprobe
