// A non-owning view of tensor memory (from DLPack or the buffer protocol): pointer, dtype,
// shape and strides in elements. Never copies.
#pragma once
#include <cstdint>
#include <vector>

#include "msprobe/tensor/dtype.h"

namespace msprobe {

struct TensorView {
  const void* data = nullptr;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements; empty means C-contiguous

  int64_t numel() const;
  bool is_contiguous() const;
  size_t nbytes() const { return (size_t)numel() * dtype_size(dtype); }
  // Visits the elements in logical (row-major) order as runs of contiguous memory:
  // fn(const void* ptr, int64_t count). A contiguous view is a single run.
  template <typename Fn>
  void for_each_run(Fn&& fn) const;
  // Copies the elements in logical order into dst (nbytes() bytes).
  void copy_contiguous(void* dst) const;
};

}  // namespace msprobe

#include "msprobe/tensor/tensor_view_inl.h"
