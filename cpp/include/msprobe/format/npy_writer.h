// NumPy .npy (format 1.0) serialisation of a tensor, readable by numpy.load(allow_pickle=False).
// bf16 has no NumPy dtype: it is written as float32 (the original's MindSpore rule).
#pragma once
#include <string>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {

// Returns the complete file contents (header + data in C order).
std::string encode_npy(const TensorView& t);

}  // namespace msprobe
