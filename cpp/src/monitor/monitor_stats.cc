// The monitor's statistics in one pass: the tensor is read in blocks (float32 in place, other
// dtypes converted to float or double) that stay in the L1 cache, with independent lanes so the
// block loop vectorises. Float tensors sum in float over short runs (kRows elements a lane), then
// in double: half the work of converting every element, and within a few float ulps. Where float
// squares could have overflowed or underflowed, the tensor is summed again in double.
#include "msprobe/monitor/monitor_stats.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/tensor/element_reader.h"
#include "msprobe/tensor/half.h"

namespace msprobe {
namespace monitor {
namespace {

constexpr int64_t kBlock = 2048;
constexpr int kLanes = 16;
constexpr int kRows = 8;  // elements a lane sums in T before the sum goes to double

// Per-lane accumulators (independent chains, so the block loop vectorises). T is float for
// float32 / float16 / bfloat16 (exact), double otherwise; sums run kRows elements in T, then in
// double.
// kCounts: also count NaNs and |x| < eps (ops nans, zeros); without them a NaN is still seen, in
// the sum of squares (a square is never negative: only a NaN makes the sum NaN).
template <typename T, bool kCounts>
struct Pass {
  T mx[kLanes], mn[kLanes];
  double s[kLanes] = {}, q[kLanes] = {};
  int64_t nan = 0, zeros = 0;
  T eps;
  explicit Pass(T e) : eps(e) {
    for (int k = 0; k < kLanes; ++k) {
      mx[k] = -std::numeric_limits<T>::infinity();
      mn[k] = std::numeric_limits<T>::infinity();
    }
  }
  // The same loop built twice, for AVX2 where the CPU has it (three-operand instructions and
  // 8-float registers keep every lane in a register; the SSE build spills) and for the x86-64
  // baseline. No SSE code may run inside the AVX2 loop: a call there costs more than the loop.
#if defined(__x86_64__)
  __attribute__((noinline, target("avx2"))) void block_avx2(const T* __restrict x, int64_t n) { body(x, n); }
  __attribute__((noinline)) void block_baseline(const T* __restrict x, int64_t n) { body(x, n); }
  void block(const T* x, int64_t n) {
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) {
      block_avx2(x, n);
    } else {
      block_baseline(x, n);
    }
  }
#else
  void block(const T* x, int64_t n) { body(x, n); }
#endif
  // The lanes are copied into locals for the loop: members could alias `x`, which would keep
  // them in memory (a load and a store per element).
  __attribute__((always_inline)) inline void body(const T* __restrict x, int64_t n) {
    T lmx[kLanes], lmn[kLanes];
    double ls[kLanes], lq[kLanes];
    int32_t cn[kLanes] = {}, cz[kLanes] = {};
    const T e = eps;
    std::memcpy(lmx, mx, sizeof(lmx));
    std::memcpy(lmn, mn, sizeof(lmn));
    std::memcpy(ls, s, sizeof(ls));
    std::memcpy(lq, q, sizeof(lq));
    const int64_t full = n - n % (kLanes * kRows);
    for (int64_t i = 0; i < full; i += kLanes * kRows) {
      T ps[kLanes] = {}, pq[kLanes] = {};
      for (int r = 0; r < kRows; ++r) {
        for (int k = 0; k < kLanes; ++k) {
          const T v = x[i + r * kLanes + k];
          lmx[k] = v > lmx[k] ? v : lmx[k];
          lmn[k] = v < lmn[k] ? v : lmn[k];
          ps[k] += v;
          pq[k] += v * v;
          if (kCounts) {
            cn[k] += (int32_t)(v != v);
            cz[k] += (int32_t)((v < 0 ? -v : v) < e);
          }
        }
      }
      for (int k = 0; k < kLanes; ++k) {
        ls[k] += (double)ps[k];
        lq[k] += (double)pq[k];
      }
    }
    for (int64_t i = full; i < n; ++i) {
      const T v = x[i];
      lmx[0] = v > lmx[0] ? v : lmx[0];
      lmn[0] = v < lmn[0] ? v : lmn[0];
      ls[0] += (double)v;
      lq[0] += (double)v * (double)v;
      if (kCounts) {
        cn[0] += (int32_t)(v != v);
        cz[0] += (int32_t)((v < 0 ? -v : v) < e);
      }
    }
    std::memcpy(mx, lmx, sizeof(lmx));
    std::memcpy(mn, lmn, sizeof(lmn));
    std::memcpy(s, ls, sizeof(ls));
    std::memcpy(q, lq, sizeof(lq));
    for (int k = 0; k < kLanes; ++k) {
      nan += cn[k];
      zeros += cz[k];
    }
  }
};

// torch compares |x| < eps in the tensor's dtype: eps is rounded to it first (1e-8 is 0 in
// float16).
double eps_in(DType t, double eps) {
  switch (t) {
    case DType::kFloat16: return half_to_float(float_to_half((float)eps));
    case DType::kBFloat16: return bf16_to_float(float_to_bf16((float)eps));
    case DType::kFloat32: return (double)(float)eps;
    default: return eps;
  }
}

// Whether float sums of squares can be trusted: finite (no square overflowed; an inf or NaN
// element is summed again in double too) and, unless every element is 0, so large that squares
// lost below float's normal range (each < 2^-126) change it by less than 2^-26 of itself.
bool float_squares_hold(double q, double mn, double mx, int64_t n) {
  if (!std::isfinite(q)) return false;
  if (mn == 0 && mx == 0) return true;
  return q >= (double)n * std::ldexp(1.0, -100);
}

template <typename T, bool kCounts>
MonitorStats run(const TensorView& t, double eps) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  MonitorStats out;
  const int64_t n = t.numel();
  Pass<T, kCounts> p((T)eps_in(t.dtype, eps));
  std::vector<T> buf(kBlock);
  const size_t es = dtype_size(t.dtype);
  t.for_each_run([&](const void* ptr, int64_t count) {
    const char* src = static_cast<const char*>(ptr);
    for (int64_t off = 0; off < count; off += kBlock) {
      const int64_t m = std::min(kBlock, count - off);
      if (t.dtype == DType::kFloat32 && std::is_same<T, float>::value) {
        p.block(reinterpret_cast<const T*>(src + (size_t)off * es), m);  // read in place
      } else {
        convert_run<T>(src + (size_t)off * es, t.dtype, m, buf.data());
        p.block(buf.data(), m);
      }
    }
  });
  T mx = p.mx[0], mn = p.mn[0];
  double s = 0, q = 0;
  for (int k = 0; k < kLanes; ++k) {
    mx = p.mx[k] > mx ? p.mx[k] : mx;
    mn = p.mn[k] < mn ? p.mn[k] : mn;
    s += p.s[k];
    q += p.q[k];
  }
  if (std::is_same<T, float>::value && !float_squares_hold(q, (double)mn, (double)mx, n))
    return run<double, kCounts>(t, eps);
  const bool any_nan = kCounts ? p.nan > 0 : std::isnan(q);
  out.max = any_nan ? nan : (double)mx;
  out.min = any_nan ? nan : (double)mn;
  out.mean = s / (double)n;
  out.norm = std::sqrt(q);
  out.zeros = (double)((float)p.zeros / (float)n);
  out.nans = (double)p.nan;
  out.id = n == 1 ? s : nan;
  return out;
}

}  // namespace

const std::vector<std::string>& monitor_op_names() {
  static const std::vector<std::string> names = {"norm", "min", "max", "zeros", "nans", "id", "mean"};
  return names;
}

MonitorOp monitor_op_from_name(const std::string& name) {
  const auto& names = monitor_op_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<MonitorOp>(i);
  throw InvalidInput("monitor op \"" + name +
                     "\" is not supported; the ops are norm, min, max, zeros, nans, id, mean");
}

double MonitorStats::get(MonitorOp op) const {
  switch (op) {
    case MonitorOp::kNorm: return norm;
    case MonitorOp::kMin: return min;
    case MonitorOp::kMax: return max;
    case MonitorOp::kZeros: return zeros;
    case MonitorOp::kNans: return nans;
    case MonitorOp::kId: return id;
    case MonitorOp::kMean: return mean;
  }
  return std::nan("");
}

MonitorStats monitor_stats(const TensorView& t, double eps, bool counts) {
  if (t.numel() == 0) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    MonitorStats out;
    out.min = out.max = out.norm = out.zeros = out.mean = out.id = nan;
    return out;
  }
  switch (t.dtype) {
    case DType::kFloat32:
    case DType::kFloat16:
    case DType::kBFloat16: return counts ? run<float, true>(t, eps) : run<float, false>(t, eps);
    default: return counts ? run<double, true>(t, eps) : run<double, false>(t, eps);
  }
}

}  // namespace monitor
}  // namespace msprobe
