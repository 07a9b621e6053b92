#include "msprobe/freebench/fuzz_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "msprobe/base/cpu_features.h"
#include "msprobe/base/error.h"
#include "msprobe/tensor/element_reader.h"
#include "msprobe/tensor/half.h"

namespace msprobe {
namespace freebench {
namespace {

constexpr int64_t kBlock = 4096;

// Arithmetic "in dtype t": T is the type the result is held in, round() the storage rounding of
// fp16 / bf16 (torch computes their elementwise ops in float and rounds each result).
template <typename T>
struct Arith {
  DType t;
  T round(T x) const {
    if constexpr (std::is_same<T, float>::value) {
      if (t == DType::kFloat16) return round_to_half(x);
      if (t == DType::kBFloat16) return bf16_to_float(float_to_bf16(x));
    }
    return x;
  }
  T largest() const {
    if (t == DType::kFloat16) return (T)65504.0;
    if (t == DType::kBFloat16) return (T)bf16_to_float(0x7f7f);
    return std::numeric_limits<T>::max();
  }
};

// The same-dtype contiguous case (no conversion, no rounding): one pass over the two buffers,
// written so that the compiler vectorizes it (the AVX2 copy below is the same body).
template <typename T>
struct FlatAcc {
  T min_prod = std::numeric_limits<T>::infinity();
  T lo = std::numeric_limits<T>::infinity(), hi = -std::numeric_limits<T>::infinity();
  T nan_products = 0;
};

template <typename T>
__attribute__((always_inline)) inline void ratio_flat_body(const T* o, const T* p, int64_t n, T floor,
                                                           T largest, FlatAcc<T>& a) {
  T min_prod = a.min_prod, lo = a.lo, hi = a.hi, nans = a.nan_products;
  for (int64_t i = 0; i < n; ++i) {
    const T x = o[i], y = p[i];
    const T prod = x * y;
    nans += prod != prod ? (T)1 : (T)0;
    min_prod = prod < min_prod ? prod : min_prod;
    const T ax = std::fabs(x), ay = std::fabs(y);
    const T cx = ax < floor ? floor : ax, cy = ay < floor ? floor : ay;
    T r = cx / cy;
    r = r != r ? (T)1 : r;
    r = r > largest ? largest : r;
    lo = r < lo ? r : lo;
    hi = r > hi ? r : hi;
  }
  a.min_prod = min_prod;
  a.lo = lo;
  a.hi = hi;
  a.nan_products = nans;
}

template <typename T>
void ratio_flat_portable(const T* o, const T* p, int64_t n, T floor, T largest, FlatAcc<T>& a) {
  ratio_flat_body(o, p, n, floor, largest, a);
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define MSPROBE_FREEBENCH_AVX2 1
// fp32 with AVX2: 8 lanes of the same operations; min/max operand order keeps the portable
// body's NaN semantics (a NaN product is skipped, a NaN ratio reads as 1).
__attribute__((target("avx2"))) void ratio_flat_f32_avx2(const float* o, const float* p, int64_t n,
                                                         float floor, float largest, FlatAcc<float>& a) {
  const __m256 vfloor = _mm256_set1_ps(floor), vlargest = _mm256_set1_ps(largest), one = _mm256_set1_ps(1.0f);
  const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  __m256 vmin = _mm256_set1_ps(a.min_prod), vlo = _mm256_set1_ps(a.lo), vhi = _mm256_set1_ps(a.hi);
  __m256 vnan = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(o + i), y = _mm256_loadu_ps(p + i);
    const __m256 prod = _mm256_mul_ps(x, y);
    vnan = _mm256_or_ps(vnan, _mm256_cmp_ps(prod, prod, _CMP_UNORD_Q));
    vmin = _mm256_min_ps(prod, vmin);
    const __m256 cx = _mm256_max_ps(vfloor, _mm256_and_ps(x, absmask));
    const __m256 cy = _mm256_max_ps(vfloor, _mm256_and_ps(y, absmask));
    __m256 r = _mm256_div_ps(cx, cy);
    r = _mm256_blendv_ps(r, one, _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
    r = _mm256_min_ps(vlargest, r);
    vlo = _mm256_min_ps(r, vlo);
    vhi = _mm256_max_ps(r, vhi);
  }
  alignas(32) float mins[8], los[8], his[8], nans[8];
  _mm256_store_ps(mins, vmin);
  _mm256_store_ps(los, vlo);
  _mm256_store_ps(his, vhi);
  _mm256_store_ps(nans, vnan);
  for (int k = 0; k < 8; ++k) {
    a.min_prod = mins[k] < a.min_prod ? mins[k] : a.min_prod;
    a.lo = los[k] < a.lo ? los[k] : a.lo;
    a.hi = his[k] > a.hi ? his[k] : a.hi;
    if (nans[k] != 0) a.nan_products += 1;  // all bits set: a NaN product in that lane
  }
  ratio_flat_body(o + i, p + i, n - i, floor, largest, a);
}
#endif

template <typename T>
RatioStats finish_flat(const FlatAcc<T>& a);

template <typename T>
void ratio_flat(const T* o, const T* p, int64_t n, T floor, T largest, FlatAcc<T>& a) {
#ifdef MSPROBE_FREEBENCH_AVX2
  if constexpr (std::is_same<T, float>::value) {
    if (cpu_features().avx2) return ratio_flat_f32_avx2(o, p, n, floor, largest, a);
  }
#endif
  ratio_flat_portable(o, p, n, floor, largest, a);
}

// Effective strides (contiguous when the view has none).
std::vector<int64_t> strides_of(const TensorView& v) {
  if (!v.strides.empty()) return v.strides;
  std::vector<int64_t> s(v.shape.size(), 1);
  for (size_t d = v.shape.size(); d-- > 1;) s[d - 1] = s[d] * v.shape[d];
  return s;
}

// The reductions do not depend on the order of the elements: two views of the same layout
// (transposes, slices of equal shapes and strides) are read run by run, and a dense one
// (a permutation of a contiguous block) as one flat block.
template <typename T>
bool ratio_same_layout(const TensorView& o, const TensorView& p, T floor, T largest, FlatAcc<T>& a) {
  if (o.shape != p.shape || strides_of(o) != strides_of(p)) return false;
  const std::vector<int64_t> st = strides_of(o);
  // Dense: sorted by stride, each stride is the product of the sizes of the faster dimensions.
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dimensions of size > 1
  for (size_t d = 0; d < o.shape.size(); ++d) {
    if (st[d] < 0) return false;
    if (o.shape[d] > 1) dims.emplace_back(st[d], o.shape[d]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  bool dense = true;
  for (const auto& [stride, size] : dims) {
    dense = dense && stride == expected;
    expected *= size;
  }
  const int64_t n = o.numel();
  if (dense) {  // a permutation of a contiguous block: every element of the block once
    ratio_flat(static_cast<const T*>(o.data), static_cast<const T*>(p.data), n, floor, largest, a);
    return true;
  }
  const char* obase = static_cast<const char*>(o.data);
  const char* pbase = static_cast<const char*>(p.data);
  o.for_each_run([&](const void* ptr, int64_t count) {
    const ptrdiff_t off = static_cast<const char*>(ptr) - obase;
    ratio_flat(static_cast<const T*>(ptr), reinterpret_cast<const T*>(pbase + off), count, floor, largest, a);
  });
  return true;
}

template <typename T>
RatioStats ratio_stats_flat(const T* o, const T* p, int64_t n, T floor, T largest) {
  FlatAcc<T> a;
  ratio_flat(o, p, n, floor, largest, a);
  return finish_flat(a);
}

template <typename T>
RatioStats finish_flat(const FlatAcc<T>& a) {
  RatioStats s;
  s.empty = false;
  s.min_product = a.nan_products > 0 ? std::nan("") : (double)a.min_prod;
  s.min_ratio = a.lo;
  s.max_ratio = a.hi;
  return s;
}

template <typename T>
RatioStats ratio_stats_as(const TensorView& o, const TensorView& p, double floor_d) {
  const Arith<T> a{p.dtype};
  const T floor = a.round((T)floor_d);
  RatioStats s;
  const int64_t n = o.numel();
  s.empty = n == 0;
  if (s.empty) return s;
  constexpr DType kSame = std::is_same<T, float>::value ? DType::kFloat32 : DType::kFloat64;
  if (o.dtype == kSame && p.dtype == kSame) {
    if (o.is_contiguous() && p.is_contiguous())
      return ratio_stats_flat<T>(static_cast<const T*>(o.data), static_cast<const T*>(p.data), n, floor,
                                 a.largest());
    FlatAcc<T> acc;
    if (ratio_same_layout<T>(o, p, floor, a.largest(), acc)) return finish_flat(acc);
  }
  ElementReader ro(o), rp(p);
  std::vector<T> bo(kBlock), bp(kBlock);
  T min_prod = std::numeric_limits<T>::infinity();
  bool prod_nan = false;
  T lo = std::numeric_limits<T>::infinity(), hi = -std::numeric_limits<T>::infinity();
  for (int64_t done = 0; done < n; done += kBlock) {
    const int64_t m = std::min(kBlock, n - done);
    ro.read<T>(m, bo.data());
    rp.read<T>(m, bp.data());
    for (int64_t i = 0; i < m; ++i) {
      const T x = a.round(bo[i]);  // original.to(perturbed dtype)
      const T y = bp[i];
      const T prod = a.round(x * y);
      if (std::isnan(prod))
        prod_nan = true;
      else
        min_prod = std::min(min_prod, prod);
      const T cx = std::max(std::fabs(x), floor), cy = std::max(std::fabs(y), floor);
      T r = a.round(cx / cy);
      if (std::isnan(r))
        r = 1;
      else if (std::isinf(r))
        r = a.largest();
      lo = std::min(lo, r);
      hi = std::max(hi, r);
    }
  }
  s.min_product = prod_nan ? std::nan("") : (double)min_prod;
  s.min_ratio = lo;
  s.max_ratio = hi;
  return s;
}

struct BenchThresholds {
  double rtol, small_value, small_value_atol, err_balance;
};

BenchThresholds bench_thresholds(DType t) {
  if (t == DType::kFloat16) return {std::ldexp(1.0, -11), 1.0, std::ldexp(1.0, -11), 1e-4};
  if (t == DType::kBFloat16) return {std::ldexp(1.0, -8), 1.0, std::ldexp(1.0, -8), 1e-4};
  return {std::ldexp(1.0, -14), 1.0, std::ldexp(1.0, -14), 1e-4};
}

}  // namespace

double ratio_threshold(DType dtype, bool no_change) {
  if (no_change) return 1.0;
  if (dtype == DType::kFloat16) return 1.002;
  if (dtype == DType::kBFloat16) return 1.004;
  return 1.0002;
}

double ratio_floor(DType perturbed_dtype, bool backward) {
  if (backward) return 1e-3;
  double tol = 1e-8;
  if (perturbed_dtype == DType::kBFloat16) tol = 1e-4;
  if (perturbed_dtype == DType::kFloat16) tol = 1e-6;
  if (perturbed_dtype == DType::kFloat64) tol = 1e-16;
  return std::pow(tol, 0.5);
}

RatioStats ratio_stats(const TensorView& original, const TensorView& perturbed, double floor) {
  MSPROBE_CHECK(original.numel() == perturbed.numel(), InvalidInput,
                "the perturbed output has " + std::to_string(perturbed.numel()) + " elements, the original " +
                    std::to_string(original.numel()));
  switch (perturbed.dtype) {
    case DType::kFloat32:
    case DType::kFloat16:
    case DType::kBFloat16: return ratio_stats_as<float>(original, perturbed, floor);
    default: return ratio_stats_as<double>(original, perturbed, floor);
  }
}

RatioVerdict judge_ratio(const RatioStats& s, double floor, double threshold) {
  RatioVerdict v;
  if (s.empty) return v;
  if (s.min_product < -(floor * floor)) {
    v.symbol_flipping = true;
    v.consistent = false;
    return v;
  }
  const double reciprocal = s.min_ratio == 0 ? std::numeric_limits<double>::infinity() : 1.0 / s.min_ratio;
  v.ratio = std::max(s.max_ratio, reciprocal);
  v.consistent = threshold >= v.ratio && v.ratio >= 1.0 / threshold;
  return v;
}

RatioVerdict judge_ms_norms(const MsNorms& n, double threshold) {
  constexpr double kSymbolFlippingRatio = 8.0;
  const auto read = [](double x) { return std::isfinite(x) ? x : 1.0; };  // 1.2.1's overflow rule
  RatioVerdict v;
  if (read(n.min_forward) < 0) {
    v.symbol_flipping = true;
    v.ratio = kSymbolFlippingRatio;
  } else {
    v.ratio = std::max(read(n.max_forward), read(n.max_backward));
  }
  v.consistent = threshold >= v.ratio && v.ratio >= 1.0 / threshold;
  return v;
}

namespace {

template <typename T>
MsNorms ms_norms_as(const TensorView& o, const TensorView& p, double floor_d) {
  // bfloat16 is divided in float32 (1.2.1 casts both up); float16 rounds every quotient.
  const Arith<T> a{p.dtype == DType::kBFloat16 ? DType::kFloat32 : p.dtype};
  const T floor = (T)floor_d;
  const int64_t n = o.numel();
  ElementReader ro(o), rp(p);
  std::vector<T> bo(kBlock), bp(kBlock);
  const T none = std::numeric_limits<T>::quiet_NaN();
  T max_f = none, max_b = none, min_f = none;
  const auto take_max = [](T& m, T r) {
    if (!std::isnan(r) && (std::isnan(m) || r > m)) m = r;
  };
  const auto take_min = [](T& m, T r) {
    if (!std::isnan(r) && (std::isnan(m) || r < m)) m = r;
  };
  const Arith<T> cast{p.dtype};  // original.astype(perturbed dtype)
  for (int64_t done = 0; done < n; done += kBlock) {
    const int64_t m = std::min(kBlock, n - done);
    ro.read<T>(m, bo.data());
    rp.read<T>(m, bp.data());
    for (int64_t i = 0; i < m; ++i) {
      const T x = cast.round(bo[i]), y = bp[i];
      const T f = std::fabs(y) > floor ? a.round(x / y) : (T)1;
      const T b = std::fabs(x) > floor ? a.round(y / x) : (T)1;
      take_max(max_f, f);
      take_min(min_f, f);
      take_max(max_b, b);
    }
  }
  // All NaN: MindSpore's max returns NaN, which the verdict reads as 1.
  return MsNorms{(double)(float)max_f, (double)(float)max_b, (double)(float)min_f};
}

}  // namespace

MsNorms ms_norms(const TensorView& original, const TensorView& perturbed, double floor) {
  MSPROBE_CHECK(original.numel() == perturbed.numel(), InvalidInput,
                "the perturbed output has " + std::to_string(perturbed.numel()) + " elements, the original " +
                    std::to_string(original.numel()));
  if (original.numel() == 0) return MsNorms{};
  if (perturbed.dtype == DType::kFloat64) return ms_norms_as<double>(original, perturbed, floor);
  return ms_norms_as<float>(original, perturbed, floor);
}

RatioVerdict judge_float(double original, double perturbed) {
  RatioVerdict v;
  if (perturbed == 0) {
    original += 1e-8;
    perturbed += 1e-8;
  }
  // math.isclose with its defaults: rel_tol 1e-9, abs_tol 0.
  const double diff = std::fabs(original - perturbed);
  v.consistent = original == perturbed ||
                 (std::isfinite(diff) && diff <= 1e-9 * std::max(std::fabs(original), std::fabs(perturbed)));
  v.ratio = original / perturbed;
  return v;
}

BenchmarkErrors benchmark_errors(const TensorView& actual, const TensorView& golden) {
  MSPROBE_CHECK(actual.numel() == golden.numel(), InvalidInput,
                "the CPU output has " + std::to_string(golden.numel()) + " elements, the original " +
                    std::to_string(actual.numel()));
  const BenchThresholds th = bench_thresholds(actual.dtype);
  BenchmarkErrors e;
  const int64_t n = actual.numel();
  ElementReader ra(actual), rg(golden);
  std::vector<double> ba(kBlock), bg(kBlock);
  double abs_err = 0, rel_err = 0, eb_sum = 0;
  bool rel_nan = false;
  for (int64_t done = 0; done < n; done += kBlock) {
    const int64_t m = std::min(kBlock, n - done);
    ra.read<double>(m, ba.data());
    rg.read<double>(m, bg.data());
    for (int64_t i = 0; i < m; ++i) {
      if (!std::isfinite(bg[i])) {
        e.golden_overflow = true;
        return e;
      }
      const double x = std::isfinite(ba[i]) ? ba[i] : 1.0;
      const double g = bg[i];
      const double diff = x - g, diff_abs = std::fabs(diff), g_abs = std::fabs(g);
      if (std::fabs(x) < th.small_value) {
        abs_err = std::max(abs_err, diff_abs);
      } else {
        const double rel = diff_abs / g_abs;  // 0/0: NaN, which torch.max propagates
        if (std::isnan(rel))
          rel_nan = true;
        else
          rel_err = std::max(rel_err, rel);
      }
      eb_sum += diff / (g_abs >= th.small_value ? g_abs : 1.0);
    }
  }
  e.abs_err = abs_err;
  e.rel_err = rel_nan ? std::nan("") : rel_err;
  e.err_balance = n ? eb_sum / (double)n : std::nan("");
  return e;
}

bool benchmark_consistent(DType actual_dtype, const BenchmarkErrors& e) {
  if (e.golden_overflow) return true;
  const BenchThresholds th = bench_thresholds(actual_dtype);
  return !(e.abs_err > th.small_value_atol) && !(e.rel_err > th.rtol) && !(e.err_balance > th.err_balance);
}

}  // namespace freebench
}  // namespace msprobe
