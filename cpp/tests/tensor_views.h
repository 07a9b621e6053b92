// Views of test vectors as tensors, and the non-finite doubles the tests compare with.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace test {

inline const double kInf = std::numeric_limits<double>::infinity();
inline const double kNaN = std::numeric_limits<double>::quiet_NaN();

// `v` as a tensor of dtype `d`: one dimension of v.size() unless `shape` is given; contiguous
// unless `strides` is given.
template <typename T>
TensorView view_of(const std::vector<T>& v, DType d, std::vector<int64_t> shape = {},
                   std::vector<int64_t> strides = {}) {
  TensorView t;
  t.data = v.data();
  t.dtype = d;
  t.shape = shape.empty() ? std::vector<int64_t>{(int64_t)v.size()} : shape;
  t.strides = strides;
  return t;
}

}  // namespace test
}  // namespace msprobe
