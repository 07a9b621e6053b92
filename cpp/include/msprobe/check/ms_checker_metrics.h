// The three metrics of 1.2.1's MindSpore accuracy checker (docs 09), computed in float64 over the
// bench (PyTorch on the CPU) and tested (MindSpore) outputs of one API:
//   Cosine         (1e-8 + b·t) / (1e-8 + ‖b‖‖t‖)           pass when > 0.99
//   MaxAbsErr      max |b - t|                               pass when < 0.001 (the docs say
//                                                             0.0001; 1.2.1's code uses 0.001)
//   MaxRelativeErr max |b - t| / (|b| + 1e-8·[b == 0])        reported only
// NaN anywhere propagates into MaxAbsErr / MaxRelativeErr (numpy's max) and fails both checks.
#pragma once
#include <string>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace check {

struct MsCheckerMetrics {
  double cosine = 0.0;
  double max_abs_err = 0.0;
  double max_rel_err = 0.0;
  bool cosine_pass = false;
  bool max_abs_pass = false;
};

inline constexpr double kMsCosineThreshold = 0.99;
inline constexpr double kMsMaxAbsErrThreshold = 0.001;
inline constexpr double kMsEpsilon = 1e-8;

// Both views must hold the same number of elements (any dtypes, any strides). An empty pair
// throws InvalidInput with numpy's message for max() of an empty array, which 1.2.1 wrote as
// the SKIP reason.
MsCheckerMetrics ms_checker_metrics(const TensorView& bench, const TensorView& tested);

}  // namespace check
}  // namespace msprobe
