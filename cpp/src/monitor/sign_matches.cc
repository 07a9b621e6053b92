// mg_direction: both tensors are read once, block by block in logical order (any strides and
// dtypes), and the sign products counted exactly.
#include "msprobe/monitor/sign_matches.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/tensor/element_reader.h"

namespace msprobe {
namespace monitor {
namespace {

constexpr int64_t kBlock = 4096;

// torch.sign: NaN and zeros are 0.
template <typename T>
int sign_of(T v) {
  return (int)(v > 0) - (int)(v < 0);
}

// int32 partial sums over chunks that cannot overflow them, so that the loop vectorises.
template <typename T>
int64_t block_sum(const T* __restrict a, const T* __restrict b, int64_t n) {
  constexpr int64_t kChunk = int64_t{1} << 30;
  int64_t sum = 0;
  for (int64_t off = 0; off < n; off += kChunk) {
    const int64_t end = std::min(n, off + kChunk);
    int32_t part = 0;
    for (int64_t i = off; i < end; ++i) part += sign_of(a[i]) * sign_of(b[i]);
    sum += part;
  }
  return sum;
}

template <typename T>
int64_t sign_product_sum(const TensorView& a, const TensorView& b) {
  const int64_t n = a.numel();
  const bool in_place = std::is_same<T, float>::value && a.dtype == DType::kFloat32 &&
                        b.dtype == DType::kFloat32 && a.is_contiguous() && b.is_contiguous();
  if (in_place) {  // the common case: read both where they are
    return block_sum(static_cast<const T*>(a.data), static_cast<const T*>(b.data), n);
  }
  ElementReader ra(a), rb(b);
  std::vector<T> xa(kBlock), xb(kBlock);
  int64_t sum = 0;
  for (int64_t off = 0; off < n; off += kBlock) {
    const int64_t m = std::min(kBlock, n - off);
    ra.read(m, xa.data());
    rb.read(m, xb.data());
    sum += block_sum(xa.data(), xb.data(), m);
  }
  return sum;
}

}  // namespace

double sign_matches(const TensorView& grad, const TensorView& exp_avg) {
  const int64_t n = grad.numel();
  MSPROBE_CHECK(n == exp_avg.numel(), InvalidInput,
                "mg_direction: the gradient has " + std::to_string(n) + " elements, exp_avg " +
                    std::to_string(exp_avg.numel()));
  if (grad.dtype == DType::kFloat64 || exp_avg.dtype == DType::kFloat64) {
    const double s = (double)sign_product_sum<double>(grad, exp_avg);
    return (s / (double)n + 1.0) / 2.0;
  }
  const float s = (float)sign_product_sum<float>(grad, exp_avg);
  return (double)((s / (float)n + 1.0f) / 2.0f);
}

std::vector<double> sign_matches(const std::vector<const TensorView*>& grads,
                                 const std::vector<const TensorView*>& exp_avgs) {
  MSPROBE_CHECK(grads.size() == exp_avgs.size(), InvalidInput, "mg_direction: as many exp_avg as gradients");
  std::vector<double> out(grads.size(), 1.0);
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i] && exp_avgs[i]) out[i] = sign_matches(*grads[i], *exp_avgs[i]);
  }
  return out;
}

}  // namespace monitor
}  // namespace msprobe
