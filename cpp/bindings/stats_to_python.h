// TensorStats as the dict the dump records take: Max, Min, Mean, Norm (None, bool, int or
// float), then Max_except_inf_nan / Min_except_inf_nan when set. Callers add their own keys.
#pragma once
#include <nanobind/nanobind.h>

#include "msprobe/stats/tensor_stats.h"

namespace msprobe {

nanobind::dict stats_to_python(const TensorStats& st);

}  // namespace msprobe
