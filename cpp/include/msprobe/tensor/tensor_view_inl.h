// Template part of tensor_view.h.
#pragma once
#include <cstddef>

namespace msprobe {

template <typename Fn>
void TensorView::for_each_run(Fn&& fn) const {
  const int64_t n = numel();
  if (n == 0) return;
  const size_t esz = dtype_size(dtype);
  if (is_contiguous()) {
    fn(data, n);
    return;
  }
  const size_t nd = shape.size();
  // The innermost dimension forms a run when its stride is 1; otherwise runs have length 1.
  const bool inner_unit = shape[nd - 1] == 1 || strides[nd - 1] == 1;
  const int64_t run = inner_unit ? shape[nd - 1] : 1;
  const size_t outer_dims = inner_unit ? nd - 1 : nd;
  std::vector<int64_t> idx(outer_dims, 0);
  const char* base = static_cast<const char*>(data);
  for (int64_t done = 0; done < n; done += run) {
    int64_t off = 0;
    for (size_t d = 0; d < outer_dims; ++d) off += idx[d] * strides[d];
    fn(base + off * (int64_t)esz, run);
    for (size_t d = outer_dims; d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace msprobe
