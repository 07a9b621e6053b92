// The gradient summary in one pass: the gradient is read in blocks of kBlock elements (converted
// to float, or double for float64) that stay in the L1 cache while every statistic, the MD5 and
// the direction bytes are taken from them.
#include "msprobe/grad/grad_summary.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "msprobe/base/error.h"
#include "msprobe/stats/md5.h"
#include "msprobe/tensor/element_reader.h"
#include "msprobe/tensor/half.h"

namespace msprobe {
namespace grad {
namespace {

constexpr int64_t kBlock = 2048;

// Rounds a double to the gradient's dtype and back (what 1.2.1's torch reduction returns), then to
// float32 (1.2.1 reports every value through .float()).
double round_to(DType t, double v) {
  switch (t) {
    case DType::kFloat16: return half_to_float(float_to_half((float)v));
    case DType::kBFloat16: return bf16_to_float(float_to_bf16((float)v));
    default: return (double)(float)v;
  }
}

// Per-lane accumulators: kLanes independent chains, so that the compiler vectorises the block
// loops (a single running max or sum would be one long dependency chain). Counts within a block
// fit the lane integer (kBlock elements), and are added to the totals after each block.
constexpr int kLanes = 16;

template <typename T>
struct Pass {
  using Count = typename std::conditional<sizeof(T) == 4, int32_t, int64_t>::type;
  T mx[kLanes], mn[kLanes];
  double sq[kLanes] = {};
  int64_t nan = 0, zeros = 0;
  std::vector<T> bounds;
  std::vector<int64_t> above;  // above[j]: non-NaN elements > bounds[j]

  Pass() {
    for (int k = 0; k < kLanes; ++k) {
      mx[k] = -std::numeric_limits<T>::infinity();
      mn[k] = std::numeric_limits<T>::infinity();
    }
  }

  void block(const T* x, int64_t n, uint8_t* dir) {
    Count cn[kLanes] = {}, cz[kLanes] = {};
    const int64_t full = n - n % kLanes;
    for (int64_t i = 0; i < full; i += kLanes) {
      for (int k = 0; k < kLanes; ++k) {
        const T v = x[i + k];
        mx[k] = v > mx[k] ? v : mx[k];
        mn[k] = v < mn[k] ? v : mn[k];
        sq[k] += (double)v * (double)v;
        cn[k] += (Count)(v != v);
        cz[k] += (Count)(v == 0);
      }
    }
    for (int64_t i = full; i < n; ++i) {
      const T v = x[i];
      mx[0] = v > mx[0] ? v : mx[0];
      mn[0] = v < mn[0] ? v : mn[0];
      sq[0] += (double)v * (double)v;
      cn[0] += (Count)(v != v);
      cz[0] += (Count)(v == 0);
    }
    for (int k = 0; k < kLanes; ++k) {
      nan += cn[k];
      zeros += cz[k];
    }
    if (dir) {
      for (int64_t i = 0; i < n; ++i) dir[i] = (uint8_t)(x[i] > 0);
    }
    for (size_t j = 0; j < bounds.size(); ++j) {
      const T b = bounds[j];
      Count c[kLanes] = {};
      for (int64_t i = 0; i < full; i += kLanes)
        for (int k = 0; k < kLanes; ++k) c[k] += (Count)(x[i + k] > b);
      int64_t total = 0;
      for (int64_t i = full; i < n; ++i) total += x[i] > b;
      for (int k = 0; k < kLanes; ++k) total += c[k];
      above[j] += total;
    }
  }

  T max() const {
    T m = mx[0];
    for (int k = 1; k < kLanes; ++k) m = mx[k] > m ? mx[k] : m;
    return m;
  }
  T min() const {
    T m = mn[0];
    for (int k = 1; k < kLanes; ++k) m = mn[k] < m ? mn[k] : m;
    return m;
  }
  double sumsq() const {
    double t = 0;
    for (int k = 0; k < kLanes; ++k) t += sq[k];
    return t;
  }
};

template <typename T>
GradSummary run(const TensorView& g, const GradSummaryOptions& o, uint8_t* dir) {
  GradSummary out;
  const int64_t n = g.numel();
  out.numel = n;
  Pass<T> p;
  if (o.distribution) {
    for (double b : o.bounds) p.bounds.push_back((T)(float)b);
    p.above.assign(p.bounds.size(), 0);
  }
  Md5 md5;
  const bool direct = g.is_contiguous() && ((std::is_same<T, float>::value && g.dtype == DType::kFloat32) ||
                                            (std::is_same<T, double>::value && g.dtype == DType::kFloat64));
  std::vector<T> buf(direct ? 0 : (size_t)std::min(n, kBlock));
  std::vector<float> md5buf(o.md5 && !std::is_same<T, float>::value ? (size_t)std::min(n, kBlock) : 0);
  ElementReader reader(g);
  for (int64_t at = 0; at < n; at += kBlock) {
    const int64_t m = std::min(kBlock, n - at);
    const T* x;
    if (direct) {
      x = static_cast<const T*>(g.data) + at;
    } else {
      reader.read(m, buf.data());
      x = buf.data();
    }
    if (o.md5) {
      if (std::is_same<T, float>::value) {
        md5.update(x, (size_t)m * sizeof(float));
      } else {
        for (int64_t i = 0; i < m; ++i) md5buf[i] = (float)x[i];
        md5.update(md5buf.data(), (size_t)m * sizeof(float));
      }
    }
    p.block(x, m, dir ? dir + at : nullptr);
  }
  if (o.md5) out.md5 = md5.hex_digest();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (n == 0) {
    out.max = out.min = nan;
    out.norm = 0;
  } else {
    out.max = p.nan ? nan : (double)(float)p.max();  // float64: float32, as 1.2.1's .float()
    out.min = p.nan ? nan : (double)(float)p.min();
    out.norm = p.nan ? nan : round_to(g.dtype, std::sqrt(p.sumsq()));
  }
  if (o.distribution) {
    const size_t k = p.bounds.size();
    std::vector<int64_t> counts(k + 2, 0);
    counts[0] = n - p.nan - (k ? p.above[0] : 0);
    for (size_t i = 1; i < k; ++i) counts[i] = p.above[i - 1] - p.above[i];
    counts[k] = (k ? p.above[k - 1] : n - p.nan) + p.nan;
    if (k == 0) counts[0] = n;
    counts[k + 1] = p.zeros;
    for (int64_t c : counts) out.distribution.push_back(n ? (double)c / (double)n : 0.0);
  }
  return out;
}

}  // namespace

GradSummary summarize_gradient(const TensorView& grad, const GradSummaryOptions& options,
                               uint8_t* direction) {
  switch (grad.dtype) {
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32: return run<float>(grad, options, direction);
    case DType::kFloat64: return run<double>(grad, options, direction);
    default:
      throw InvalidInput(std::string("grad_probe: a gradient of dtype ") + torch_dtype_name(grad.dtype) +
                         " is not supported (floating dtypes only)");
  }
}

}  // namespace grad
}  // namespace msprobe
