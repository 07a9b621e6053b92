// Non-template part of TensorView.
#include "msprobe/tensor/tensor_view.h"

#include <cstring>

namespace msprobe {

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool TensorView::is_contiguous() const {
  if (strides.empty()) return true;
  // Row-major with no gaps; dimensions of size 1 may carry any stride. An empty view is
  // trivially contiguous (nothing is read).
  for (int64_t d : shape) {
    if (d == 0) return true;
  }
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

void TensorView::copy_contiguous(void* dst) const {
  const size_t esz = dtype_size(dtype);
  char* out = static_cast<char*>(dst);
  for_each_run([&](const void* p, int64_t count) {
    const size_t bytes = (size_t)count * esz;
    std::memcpy(out, p, bytes);
    out += bytes;
  });
}

}  // namespace msprobe
