// NumPy .npy (format 1.0) serialisation of a tensor, readable by numpy.load(allow_pickle=False).
// bf16 has no NumPy dtype: it is written as float32 (the original's MindSpore rule).
#pragma once
#include <string>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {

// The .npy header of `t` (magic to the newline before the data): encode_npy's first bytes, for
// writers that fill the data themselves.
std::string npy_header(const TensorView& t);
// Returns the complete file contents (header + data in C order).
std::string encode_npy(const TensorView& t);

}  // namespace msprobe
