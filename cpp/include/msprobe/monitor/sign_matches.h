// The monitor's mg_direction (1.2.1's TrainerMon, docs 19): how far each parameter's gradient
// points the way of Adam's first moment (exp_avg).
#pragma once
#include <vector>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace monitor {

// 1.2.1's value: (sum(sign(grad) * sign(exp_avg)) / numel + 1) / 2, so an element where both
// have the same sign counts 1, opposite signs 0, and a zero on either side (NaN too: torch.sign
// of NaN is 0) one half. Float32 arithmetic after an exact count (float64 for float64
// tensors), as torch does for float32; 1.2.1 rounds in the dtype for float16 / bfloat16.
// Throws InvalidInput when the two differ in element count.
double sign_matches(const TensorView& grad, const TensorView& exp_avg);

// Every parameter of a step in one call: exp_avgs[i] nullptr (no moment yet) gives 1.0, what
// 1.2.1 reports at step 0.
std::vector<double> sign_matches(const std::vector<const TensorView*>& grads,
                                 const std::vector<const TensorView*>& exp_avgs);

}  // namespace monitor
}  // namespace msprobe
