// One gradient's grad_probe summary (1.2.1's grad_probe, docs 17): MD5, max, min, norm, the share
// of elements in each interval of `bounds` and of zeros, and the direction (element > 0), all in
// one pass over the gradient's memory.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace grad {

struct GradSummaryOptions {
  bool md5 = false;           // MD5 of the gradient as float32 bytes (1.2.1: grad.float())
  bool distribution = false;  // interval and zero shares
  // Ascending interval bounds. As in 1.2.1 (torch.bucketize against torch.Tensor(bounds)) they
  // are rounded to float32; interval i is (bounds[i-1], bounds[i]], NaN falls in the last one.
  std::vector<double> bounds;
};

struct GradSummary {
  std::string md5;  // 32 hex digits when asked
  // As 1.2.1 reports them: in the gradient's dtype (NaN when any element is NaN), then as float32
  // (its .float()). The norm is accumulated in double and rounded once to the dtype (then to
  // float32). Empty gradient: NaN, NaN, 0.
  double max = 0, min = 0, norm = 0;
  // bounds.size() + 1 interval shares, then the share of zeros (-0.0 included). Empty: all 0.
  std::vector<double> distribution;
  int64_t numel = 0;
};

// Summarises `grad` (a floating dtype, any strides). When `direction` is not null it receives
// numel bytes, 1 where the element is > 0 (row-major order): the bool .npy data. Throws
// InvalidInput for a non-floating dtype.
GradSummary summarize_gradient(const TensorView& grad, const GradSummaryOptions& options, uint8_t* direction);

}  // namespace grad
}  // namespace msprobe
