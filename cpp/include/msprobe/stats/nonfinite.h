// Whether a tensor holds inf or NaN, by its bits: the test overflow_check needs for a call's
// tensors before deciding to compute and write their statistics. Several times cheaper than
// compute_stats (integer compares, no accumulation) and stops at the first hit.
#pragma once
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {

// Float dtypes (fp16, bf16, fp32, fp64, complex): true when some element (or component) has an
// all-ones exponent. Integer and bool tensors never do. Equals stats_overflow(compute_stats(t))
// for every float tensor.
bool has_nonfinite(const TensorView& t);

}  // namespace msprobe
