// The statistics kernel shared by its per-ISA copies (stats_kernel_portable.cc, and on x86
// stats_kernel_avx2.cc) and the front (tensor_stats.cc), which walks the memory and merges the
// lanes.
//
// The kernel keeps 16 independent lanes of: max and min ignoring NaN, sum and sum of squares
// in double. It is written with GCC/Clang vector extensions, so it vectorises on any target;
// on x86 an AVX2 (+FMA, F16C) copy is selected at run time. Summation order depends only on
// the lane layout, so results are the same with and without AVX2 (FMA changes nothing for
// float inputs, whose squares are exact in double).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "msprobe/tensor/dtype.h"
#include "msprobe/tensor/half_kernels.h"

// The vector helpers are always inlined; their by-value 32-byte vectors never cross an ABI.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MSPROBE_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define MSPROBE_ALWAYS_INLINE inline
#endif

// MSPROBE_NO_X86_SIMD: build only the portable code (to test it on x86).
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(MSPROBE_NO_X86_SIMD)
#define MSPROBE_STATS_X86 1
#define MSPROBE_TARGET_AVX2 __attribute__((target("avx2,fma,f16c")))
#include <immintrin.h>
#endif

namespace msprobe {
namespace stats_kernel {

constexpr int kLanes = 16;        // independent accumulators per statistic
constexpr int64_t kBlock = 1024;  // elements per block when converting / checksumming

// Vector types by total size VB (16: SSE2 / NEON baseline; 32: the AVX2 copy).
typedef float vf4 __attribute__((vector_size(16)));
typedef float vf8 __attribute__((vector_size(32)));
typedef double vd2 __attribute__((vector_size(16)));
typedef double vd4 __attribute__((vector_size(32)));

template <typename V, int VB>
struct Vec;
template <>
struct Vec<float, 16> {
  typedef vf4 type;
  typedef vd2 dtype;
};
template <>
struct Vec<double, 16> {
  typedef vd2 type;
  typedef vd2 dtype;
};
template <>
struct Vec<float, 32> {
  typedef vf8 type;
  typedef vd4 dtype;
};
template <>
struct Vec<double, 32> {
  typedef vd4 type;
  typedef vd4 dtype;
};

// Per-lane running state. V is float or double (the type the extremes are kept in).
template <typename V>
struct Acc {
  V mx[kLanes], mn[kLanes];    // max / min ignoring NaN
  V fmx[kLanes], fmn[kLanes];  // max over x < +inf, min over x > -inf
  double s[kLanes], q[kLanes];
  int64_t n = 0;
  Acc() {
    const V inf = std::numeric_limits<V>::infinity();
    for (int i = 0; i < kLanes; ++i) {
      mx[i] = -inf;
      mn[i] = inf;
      fmx[i] = -inf;
      fmn[i] = inf;
      s[i] = 0.0;
      q[i] = 0.0;
    }
  }
};

template <typename T>
MSPROBE_ALWAYS_INLINE T load(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename To, typename From>
MSPROBE_ALWAYS_INLINE To bitcast(const From& f) {
  static_assert(sizeof(To) == sizeof(From), "size");
  To t;
  std::memcpy(&t, &f, sizeof(t));
  return t;
}

// Widens float lanes to double: the low and high halves of x. Generic vector conversions
// between different widths are lowered poorly by GCC, so x86 uses the instructions directly.
MSPROBE_ALWAYS_INLINE void widen(const vf4& x, vd2& lo, vd2& hi) {
#ifdef MSPROBE_STATS_X86
  lo = _mm_cvtps_pd(x);
  hi = _mm_cvtps_pd(_mm_movehl_ps(x, x));
#else
  lo = __builtin_convertvector(__builtin_shufflevector(x, x, 0, 1), vd2);
  hi = __builtin_convertvector(__builtin_shufflevector(x, x, 2, 3), vd2);
#endif
}

#ifdef MSPROBE_STATS_X86
// Not always_inline: it may only be inlined into the AVX2 copy (block_avx2 is flattened).
MSPROBE_TARGET_AVX2 inline void widen(const vf8& x, vd4& lo, vd4& hi) {
  lo = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
  hi = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
}
#endif

// The statistics kernel over a contiguous array, with VB-byte vectors. kFinite: also track the
// finite extremes (second pass over tensors that contain infinities). Element i (counted from
// the start of this call) goes to lane i % kLanes, the tail too, whatever VB is, so every
// vector width gives the same sums.
template <typename V, bool kFinite, int VB>
MSPROBE_ALWAYS_INLINE void accumulate(Acc<V>& a, const V* p, int64_t n) {
  typedef typename Vec<V, VB>::type vec;
  typedef typename Vec<V, VB>::dtype dvec;
  constexpr int L = VB / (int)sizeof(V);  // elements per vector
  constexpr int NV = kLanes / L;          // vectors per extreme
  constexpr int LD = VB / 8;              // doubles per vector
  constexpr int ND = kLanes / LD;         // vectors per sum
  const V inf_s = std::numeric_limits<V>::infinity();
  const vec inf = vec{} + inf_s, ninf = vec{} - inf_s;
  vec mx[NV], mn[NV], fmx[NV], fmn[NV];
  dvec s[ND], q[ND];
  std::memcpy(mx, a.mx, sizeof(mx));
  std::memcpy(mn, a.mn, sizeof(mn));
  std::memcpy(fmx, a.fmx, sizeof(fmx));
  std::memcpy(fmn, a.fmn, sizeof(fmn));
  std::memcpy(s, a.s, sizeof(s));
  std::memcpy(q, a.q, sizeof(q));
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
#pragma GCC unroll 8
    for (int k = 0; k < NV; ++k) {
      const vec x = load<vec>(p + i + k * L);
      mx[k] = x > mx[k] ? x : mx[k];
      mn[k] = x < mn[k] ? x : mn[k];
      if constexpr (kFinite) {
        const vec t = x < inf ? x : ninf;
        fmx[k] = t > fmx[k] ? t : fmx[k];
        const vec u = x > ninf ? x : inf;
        fmn[k] = u < fmn[k] ? u : fmn[k];
      }
      if constexpr (sizeof(V) == 4) {
        dvec lo, hi;
        widen(x, lo, hi);
        s[2 * k] += lo;
        q[2 * k] += lo * lo;
        s[2 * k + 1] += hi;
        q[2 * k + 1] += hi * hi;
      } else {
        s[k] += x;
        q[k] += x * x;
      }
    }
  }
  std::memcpy(a.mx, mx, sizeof(mx));
  std::memcpy(a.mn, mn, sizeof(mn));
  std::memcpy(a.fmx, fmx, sizeof(fmx));
  std::memcpy(a.fmn, fmn, sizeof(fmn));
  std::memcpy(a.s, s, sizeof(s));
  std::memcpy(a.q, q, sizeof(q));
  for (int lane = 0; i < n; ++i, ++lane) {
    const V x = load<V>(p + i);  // tensors read from files may be unaligned
    a.mx[lane] = x > a.mx[lane] ? x : a.mx[lane];
    a.mn[lane] = x < a.mn[lane] ? x : a.mn[lane];
    if constexpr (kFinite) {
      const V t = x < inf_s ? x : -inf_s;
      a.fmx[lane] = t > a.fmx[lane] ? t : a.fmx[lane];
      const V u = x > -inf_s ? x : inf_s;
      a.fmn[lane] = u < a.fmn[lane] ? u : a.fmn[lane];
    }
    const double d = (double)x;
    a.s[lane] += d;
    a.q[lane] += d * d;
  }
  a.n += n;
}

// ---- Conversions of one block to the kernel's value type ----------------------------------

template <typename In, typename V>
MSPROBE_ALWAYS_INLINE void convert_plain(const In* in, V* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = (V)load<In>(in + i);
}

// |z| of complex64 as float32: sqrt in double is exact enough (the squares are exact) and
// cannot overflow; an infinite part gives inf even when the other part is NaN (like hypot).
MSPROBE_ALWAYS_INLINE void convert_abs_c64(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float re = load<float>(in + 2 * i), im = load<float>(in + 2 * i + 1);
    const double d = (double)re * re + (double)im * im;
    float m = (float)std::sqrt(d);
    if (std::fabs(re) == std::numeric_limits<float>::infinity() ||
        std::fabs(im) == std::numeric_limits<float>::infinity())
      m = std::numeric_limits<float>::infinity();
    out[i] = m;
  }
}

MSPROBE_ALWAYS_INLINE double abs_c128(double re, double im) {
  const double a = std::fabs(re), b = std::fabs(im);
  const double m = a > b ? a : b;
  if (m < 1e150 && m > 1e-150) return std::sqrt(re * re + im * im);
  return std::hypot(re, im);  // extreme ranges, inf and NaN
}

MSPROBE_ALWAYS_INLINE void convert_abs_c128(const double* in, double* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = abs_c128(load<double>(in + 2 * i), load<double>(in + 2 * i + 1));
}

// ---- Per-dtype block processing ----------------------------------------------------------

// How each dtype feeds the kernel: the value type V, whether inf/NaN can occur, and whether
// the raw memory already is an array of V.
template <DType D>
struct Kind;
#define MSPROBE_KIND(D, V_, NONFINITE, DIRECT)         \
  template <>                                          \
  struct Kind<DType::D> {                              \
    typedef V_ V;                                      \
    static constexpr bool kCanBeNonFinite = NONFINITE; \
    static constexpr bool kDirect = DIRECT;            \
  };
MSPROBE_KIND(kFloat32, float, true, true)
MSPROBE_KIND(kFloat64, double, true, true)
MSPROBE_KIND(kFloat16, float, true, false)
MSPROBE_KIND(kBFloat16, float, true, false)
MSPROBE_KIND(kUInt8, float, false, false)
MSPROBE_KIND(kInt8, float, false, false)
MSPROBE_KIND(kInt16, float, false, false)
MSPROBE_KIND(kInt32, double, false, false)
MSPROBE_KIND(kInt64, double, false, false)
MSPROBE_KIND(kComplex64, float, true, false)
MSPROBE_KIND(kComplex128, double, true, false)
#undef MSPROBE_KIND

// Converts (unless direct) n <= kBlock elements into scratch and accumulates them.
template <DType D, bool kFinite, int VB>
MSPROBE_ALWAYS_INLINE void block_impl(const void* raw, int64_t n, Acc<typename Kind<D>::V>& a,
                                      typename Kind<D>::V* scratch) {
  typedef typename Kind<D>::V V;
  if constexpr (Kind<D>::kDirect) {
    accumulate<V, kFinite, VB>(a, static_cast<const V*>(raw), n);
    return;
  } else {
    if constexpr (D == DType::kFloat16) {
#ifdef MSPROBE_STATS_X86
      if constexpr (VB == 32) {
        half_kernels::halves_to_floats_f16c(static_cast<const uint16_t*>(raw), scratch, n);
      } else {
        half_kernels::halves_to_floats_vec<VB>(static_cast<const uint16_t*>(raw), scratch, n);
      }
#else
      half_kernels::halves_to_floats_vec<VB>(static_cast<const uint16_t*>(raw), scratch, n);
#endif
    } else if constexpr (D == DType::kBFloat16) {
      half_kernels::bf16s_to_floats_vec<VB>(static_cast<const uint16_t*>(raw), scratch, n);
    } else if constexpr (D == DType::kUInt8) {
      convert_plain(static_cast<const uint8_t*>(raw), scratch, n);
    } else if constexpr (D == DType::kInt8) {
      convert_plain(static_cast<const int8_t*>(raw), scratch, n);
    } else if constexpr (D == DType::kInt16) {
      convert_plain(static_cast<const int16_t*>(raw), scratch, n);
    } else if constexpr (D == DType::kInt32) {
      convert_plain(static_cast<const int32_t*>(raw), scratch, n);
    } else if constexpr (D == DType::kInt64) {
      convert_plain(static_cast<const int64_t*>(raw), scratch, n);
    } else if constexpr (D == DType::kComplex64) {
      convert_abs_c64(static_cast<const float*>(raw), scratch, n);
    } else if constexpr (D == DType::kComplex128) {
      convert_abs_c128(static_cast<const double*>(raw), scratch, n);
    }
    accumulate<V, kFinite, VB>(a, scratch, n);
  }
}

template <DType D>
using BlockFn = void (*)(const void*, int64_t, Acc<typename Kind<D>::V>&, typename Kind<D>::V*);

// The per-ISA copies of block_impl, instantiated for every dtype of Kind in their own files.
template <DType D, bool kFinite>
void block_portable(const void* raw, int64_t n, Acc<typename Kind<D>::V>& a, typename Kind<D>::V* scratch);
#ifdef MSPROBE_STATS_X86
template <DType D, bool kFinite>
MSPROBE_TARGET_AVX2 void block_avx2(const void* raw, int64_t n, Acc<typename Kind<D>::V>& a,
                                    typename Kind<D>::V* scratch);
#endif

// Instantiates FN<D, false> and FN<D, true> for every dtype the kernel takes.
// clang-format off
#define MSPROBE_STATS_INSTANTIATE(FN)                                                   \
  MSPROBE_STATS_INSTANTIATE_1(FN, kFloat32)    MSPROBE_STATS_INSTANTIATE_1(FN, kFloat64) \
  MSPROBE_STATS_INSTANTIATE_1(FN, kFloat16)    MSPROBE_STATS_INSTANTIATE_1(FN, kBFloat16) \
  MSPROBE_STATS_INSTANTIATE_1(FN, kUInt8)      MSPROBE_STATS_INSTANTIATE_1(FN, kInt8)     \
  MSPROBE_STATS_INSTANTIATE_1(FN, kInt16)      MSPROBE_STATS_INSTANTIATE_1(FN, kInt32)    \
  MSPROBE_STATS_INSTANTIATE_1(FN, kInt64)      MSPROBE_STATS_INSTANTIATE_1(FN, kComplex64) \
  MSPROBE_STATS_INSTANTIATE_1(FN, kComplex128)
#define MSPROBE_STATS_INSTANTIATE_1(FN, D)                                                              \
  template void FN<DType::D, false>(const void*, int64_t, Acc<Kind<DType::D>::V>&, Kind<DType::D>::V*); \
  template void FN<DType::D, true>(const void*, int64_t, Acc<Kind<DType::D>::V>&, Kind<DType::D>::V*);
// clang-format on

}  // namespace stats_kernel
}  // namespace msprobe
