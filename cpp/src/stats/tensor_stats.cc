// One-pass tensor statistics (msprobe 1.2.1 semantics, reference data-dump §7.1).
//
// Every element is read once. Contiguous memory is processed in cache-sized blocks: the
// statistics kernel runs over a block, then (when asked) the CRC runs over the same block
// while it is still in cache. Strided views are walked run by run (in memory order when no
// CRC is wanted); short or strided runs are gathered into a small buffer first so the kernels
// always see arrays.
//
// The kernel keeps 16 independent lanes of: max and min ignoring NaN, sum and sum of squares
// in double. It is written with GCC/Clang vector extensions, so it vectorises on any target;
// on x86 an AVX2 (+FMA, F16C) copy is selected at run time. Summation order depends only on
// the lane layout, so results are the same with and without AVX2 (FMA changes nothing for
// float inputs, whose squares are exact in double).
//
// Only a tensor that contains +-inf takes a second pass, to find the finite extremes for
// Max_except_inf_nan / Min_except_inf_nan (tracking them in the main loop costs ~40% of its
// in-cache speed for a case that only occurs on overflow).
#include "msprobe/stats/tensor_stats.h"
#include "msprobe/base/cpu_features.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "stats_internal.h"

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
namespace {

constexpr int kLanes = 16;          // independent accumulators per statistic
constexpr int64_t kBlock = 1024;    // elements per block when converting / checksumming
constexpr size_t kGatherBytes = kBlock * 16;  // kBlock elements of the widest dtype
constexpr size_t kDirectRunBytes = 256;     // runs at least this long are not gathered

// Vector types by total size VB (16: SSE2 / NEON baseline; 32: the AVX2 copy).
typedef float vf4 __attribute__((vector_size(16)));
typedef float vf8 __attribute__((vector_size(32)));
typedef double vd2 __attribute__((vector_size(16)));
typedef double vd4 __attribute__((vector_size(32)));
typedef uint32_t vu4 __attribute__((vector_size(16)));
typedef uint32_t vu8 __attribute__((vector_size(32)));
typedef uint16_t vh4 __attribute__((vector_size(8)));
typedef uint16_t vh8 __attribute__((vector_size(16)));

template <typename V, int VB>
struct Vec;
template <>
struct Vec<float, 16> {
  typedef vf4 type;
  typedef vu4 utype;
  typedef vh4 htype;
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
  typedef vu8 utype;
  typedef vh8 htype;
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

// fp16 -> fp32, exact for every pattern, branch-free (vectorised, VB-byte vectors).
template <int VB>
MSPROBE_ALWAYS_INLINE void convert_f16(const uint16_t* in, float* out, int64_t n) {
  typedef typename Vec<float, VB>::utype vu;
  typedef typename Vec<float, VB>::htype vh;
  typedef typename Vec<float, VB>::type vf;
  constexpr int L = VB / 4;
  int64_t i = 0;
  const vu shifted_exp = vu{} + (0x7c00u << 13);
  for (; i + L <= n; i += L) {
    const vu h = __builtin_convertvector(load<vh>(in + i), vu);
    vu o = (h & 0x7fffu) << 13;
    const vu e = o & shifted_exp;
    o += (127u - 15u) << 23;
    o += (vu)(e == shifted_exp) & ((128u - 16u) << 23);  // inf / NaN
    const vu denorm = (vu)(e == 0u);                     // zero / subnormal: renormalise
    o += denorm & (1u << 23);
    // Subtracting 2^-14 (or 0) is exact and turns the renormalised subnormal into its value.
    const vf f = bitcast<vf>(o) - bitcast<vf>(vu(denorm & (113u << 23)));
    const vu r = bitcast<vu>(f) | ((h & 0x8000u) << 16);
    std::memcpy(out + i, &r, sizeof(r));
  }
  for (; i < n; ++i) out[i] = half_to_float(load<uint16_t>(in + i));
}

#ifdef MSPROBE_STATS_X86
// Hardware conversion for the AVX2 copy (every AVX2 CPU has F16C); exact like the above.
MSPROBE_TARGET_AVX2 inline void convert_f16_f16c(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) out[i] = half_to_float(load<uint16_t>(in + i));
}
#endif

template <int VB>
MSPROBE_ALWAYS_INLINE void convert_bf16(const uint16_t* in, float* out, int64_t n) {
  typedef typename Vec<float, VB>::utype vu;
  typedef typename Vec<float, VB>::htype vh;
  constexpr int L = VB / 4;
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const vu b = __builtin_convertvector(load<vh>(in + i), vu) << 16;
    std::memcpy(out + i, &b, sizeof(b));
  }
  for (; i < n; ++i) out[i] = bf16_to_float(load<uint16_t>(in + i));
}

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
  for (int64_t i = 0; i < n; ++i)
    out[i] = abs_c128(load<double>(in + 2 * i), load<double>(in + 2 * i + 1));
}

// ---- Per-dtype block processing ----------------------------------------------------------

// How each dtype feeds the kernel: the value type V, whether inf/NaN can occur, and whether
// the raw memory already is an array of V.
template <DType D>
struct Kind;
#define MSPROBE_KIND(D, V_, NONFINITE, DIRECT)       \
  template <>                                        \
  struct Kind<DType::D> {                            \
    typedef V_ V;                                    \
    static constexpr bool kCanBeNonFinite = NONFINITE; \
    static constexpr bool kDirect = DIRECT;          \
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
        convert_f16_f16c(static_cast<const uint16_t*>(raw), scratch, n);
      } else {
        convert_f16<VB>(static_cast<const uint16_t*>(raw), scratch, n);
      }
#else
      convert_f16<VB>(static_cast<const uint16_t*>(raw), scratch, n);
#endif
    } else if constexpr (D == DType::kBFloat16) {
      convert_bf16<VB>(static_cast<const uint16_t*>(raw), scratch, n);
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

template <DType D, bool kFinite>
void block_portable(const void* raw, int64_t n, Acc<typename Kind<D>::V>& a,
                    typename Kind<D>::V* scratch) {
  block_impl<D, kFinite, 16>(raw, n, a, scratch);
}

#ifdef MSPROBE_STATS_X86
template <DType D, bool kFinite>
MSPROBE_TARGET_AVX2 __attribute__((flatten)) void block_avx2(const void* raw, int64_t n,
                                                             Acc<typename Kind<D>::V>& a,
                                                             typename Kind<D>::V* scratch) {
  block_impl<D, kFinite, 32>(raw, n, a, scratch);
}

bool cpu_has_avx2() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
           cpu_has_f16c();
  }();
  return has;
}
#endif

std::atomic<bool> g_force_portable{false};

template <DType D, bool kFinite>
BlockFn<D> pick_block_fn() {
#ifdef MSPROBE_STATS_X86
  if (cpu_has_avx2() && !g_force_portable.load(std::memory_order_relaxed))
    return &block_avx2<D, kFinite>;
#endif
  return &block_portable<D, kFinite>;
}

// ---- Walking the memory ----------------------------------------------------------------------

template <size_t N>
struct Bytes {
  unsigned char b[N];
};

// Copies n elements of size N spaced `stride` elements apart into dst.
template <size_t N>
void gather_strided(unsigned char* dst, const unsigned char* src, int64_t stride, int64_t n) {
  const int64_t step = stride * (int64_t)N;
  for (int64_t i = 0; i < n; ++i, src += step, dst += N) std::memcpy(dst, src, N);
}

void gather_strided(size_t esz, unsigned char* dst, const unsigned char* src, int64_t stride,
                    int64_t n) {
  switch (esz) {
    case 1: gather_strided<1>(dst, src, stride, n); break;
    case 2: gather_strided<2>(dst, src, stride, n); break;
    case 4: gather_strided<4>(dst, src, stride, n); break;
    case 8: gather_strided<8>(dst, src, stride, n); break;
    default: gather_strided<16>(dst, src, stride, n); break;
  }
}

// Copies n contiguous elements of size N to dst, dst_step bytes apart.
template <size_t N>
void scatter_contiguous(unsigned char* dst, int64_t dst_step, const unsigned char* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i, dst += dst_step, src += N) std::memcpy(dst, src, N);
}

void scatter_contiguous(size_t esz, unsigned char* dst, int64_t dst_step, const unsigned char* src,
                        int64_t n) {
  switch (esz) {
    case 1: scatter_contiguous<1>(dst, dst_step, src, n); break;
    case 2: scatter_contiguous<2>(dst, dst_step, src, n); break;
    case 4: scatter_contiguous<4>(dst, dst_step, src, n); break;
    case 8: scatter_contiguous<8>(dst, dst_step, src, n); break;
    default: scatter_contiguous<16>(dst, dst_step, src, n); break;
  }
}

// Calls sink(ptr, count) over every element of the view, in pieces that are either long
// contiguous runs of the view or a gather buffer of up to kBlock elements.
//
// logical_order: visit the elements in row-major order (needed for the CRC). Otherwise the
// dimensions are reordered to follow memory (largest stride outermost, negative strides
// flipped), so that for example a transposed contiguous tensor is read as one run; the
// statistics do not depend on the order.
//
// Like TensorView::for_each_run, but dimensions are coalesced and a non-unit innermost stride
// is gathered with a strided copy rather than one callback per element.
template <typename Sink>
void walk(const TensorView& t, bool logical_order, Sink&& sink) {
  if (t.is_contiguous()) {
    sink(t.data, t.numel());
    return;
  }
  const size_t esz = dtype_size(t.dtype);
  const unsigned char* base = static_cast<const unsigned char*>(t.data);
  struct Dim {
    int64_t size, stride;
  };
  Dim dims[64];
  size_t nd = 0;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] == 1) continue;
    if (nd == 64) throw InvalidInput("compute_stats: more than 64 dimensions");
    dims[nd++] = {t.shape[d], t.strides[d]};
  }
  if (!logical_order) {
    for (size_t d = 0; d < nd; ++d) {
      if (dims[d].stride < 0) {
        base += dims[d].stride * (dims[d].size - 1) * (int64_t)esz;
        dims[d].stride = -dims[d].stride;
      }
    }
    std::stable_sort(dims, dims + nd,
                     [](const Dim& a, const Dim& b) { return a.stride > b.stride; });
  }
  // Merge a dimension into the next-inner one when they are laid out back to back.
  size_t m = 0;
  for (size_t d = 0; d < nd; ++d) {
    if (m > 0 && dims[m - 1].stride == dims[d].stride * dims[d].size) {
      dims[m - 1] = {dims[m - 1].size * dims[d].size, dims[d].stride};
    } else {
      dims[m++] = dims[d];
    }
  }
  nd = m;
  if (nd == 0) {  // a single element
    sink(base, 1);
    return;
  }
  const Dim inner = dims[nd - 1];
  if (nd == 1 && inner.stride == 1) {
    sink(base, inner.size);
    return;
  }

  alignas(64) unsigned char gather[kGatherBytes];
  const int64_t cap = kBlock;
  int64_t used = 0;
  auto flush = [&] {
    if (used) sink(gather, used);
    used = 0;
  };
  // One run of `size` elements `stride` apart: long contiguous runs go to the sink directly,
  // others through the gather buffer.
  auto run = [&](const unsigned char* p, int64_t size, int64_t stride) {
    if (stride == 1) {
      if ((size_t)size * esz >= kDirectRunBytes) {
        flush();
        sink(p, size);
        return;
      }
      if (used + size > cap) flush();
      std::memcpy(gather + used * esz, p, (size_t)size * esz);
      used += size;
      return;
    }
    for (int64_t done = 0; done < size;) {
      if (used == cap) flush();
      const int64_t k = std::min(size - done, cap - used);
      gather_strided(esz, gather + used * esz, p + done * stride * (int64_t)esz, stride, k);
      used += k;
      done += k;
    }
  };
  // Odometer over dims[0, n_outer) with an incrementally updated pointer.
  auto for_each_outer = [&](size_t n_outer, auto&& fn) {
    int64_t idx[64] = {0};
    const unsigned char* p = base;
    for (;;) {
      fn(p);
      size_t d = n_outer;
      for (; d-- > 0;) {
        p += dims[d].stride * (int64_t)esz;
        if (++idx[d] < dims[d].size) break;
        p -= dims[d].stride * dims[d].size * (int64_t)esz;
        idx[d] = 0;
      }
      if (d == (size_t)-1) break;
    }
  };

  // Logical order over a transposed innermost pair (x.t(), x.mT): the innermost dimension
  // jumps through memory while the next one is contiguous. Element by element, every element
  // would touch a new cache line and often a new page; instead copy tiles of `rows` logical
  // rows, reading `rows` contiguous elements of every memory row, then emit the rows in order.
  if (logical_order && nd >= 2 && inner.stride != 1 && dims[nd - 2].stride == 1 &&
      dims[nd - 2].size >= 4 && inner.size >= 8) {
    const Dim outer_rows = dims[nd - 2];
    const int64_t row_bytes = inner.size * (int64_t)esz;
    // Tile rows are padded so that they do not all fall into the same cache sets.
    const int64_t pitch = (row_bytes + 63) / 64 * 64 + 64;
    const int64_t want = std::max<int64_t>(4, 256 / (int64_t)esz);
    const int64_t rows = std::min<int64_t>({want, outer_rows.size, (int64_t)(512 << 10) / pitch});
    if (rows >= 4) {
      std::vector<unsigned char> tile((size_t)(rows * pitch));
      const int64_t src_step = inner.stride * (int64_t)esz;
      for_each_outer(nd - 2, [&](const unsigned char* p) {
        for (int64_t r0 = 0; r0 < outer_rows.size; r0 += rows) {
          const int64_t t = std::min(rows, outer_rows.size - r0);
          const unsigned char* src = p + r0 * (int64_t)esz;
          for (int64_t i = 0; i < inner.size; ++i, src += src_step)
            scatter_contiguous(esz, tile.data() + i * (int64_t)esz, pitch, src, t);
          for (int64_t r = 0; r < t; ++r) run(tile.data() + r * pitch, inner.size, 1);
        }
      });
      flush();
      return;
    }
  }

  for_each_outer(nd - 1, [&](const unsigned char* p) { run(p, inner.size, inner.stride); });
  flush();
}

struct Reduced {
  double mx, mn, fmx, fmn, s, q;
  int64_t n;
};

template <typename V>
Reduced reduce(const Acc<V>& a) {
  const double inf = std::numeric_limits<double>::infinity();
  Reduced r{-inf, inf, -inf, inf, 0.0, 0.0, a.n};
  for (int i = 0; i < kLanes; ++i) {
    const double mx = a.mx[i], mn = a.mn[i], fmx = a.fmx[i], fmn = a.fmn[i];
    r.mx = mx > r.mx ? mx : r.mx;
    r.mn = mn < r.mn ? mn : r.mn;
    r.fmx = fmx > r.fmx ? fmx : r.fmx;
    r.fmn = fmn < r.fmn ? fmn : r.fmn;
    r.s += a.s[i];
    r.q += a.q[i];
  }
  return r;
}

// fp64 sums of squares (and sums) can overflow or underflow where the true norm / mean is
// representable. Recompute them scaled by the largest magnitude; only for such tensors.
void rescale_f64(const TensorView& t, double scale, double& mean, double& norm) {
  double s = 0.0, q = 0.0;
  const double inv = 1.0 / scale;
  int64_t n = 0;
  walk(t, false, [&](const void* p, int64_t count) {
    const double* x = static_cast<const double*>(p);
    for (int64_t i = 0; i < count; ++i) {
      const double y = load<double>(x + i) * inv;
      s += y;
      q += y * y;
    }
    n += count;
  });
  mean = s / (double)n * scale;
  norm = std::sqrt(q) * scale;
}

double round_f32(double v) { return (double)(float)v; }

// Runs the kernel over the view; with want_crc also the CRC, block by block in logical order.
template <DType D, bool kFinite>
Acc<typename Kind<D>::V> run_pass(const TensorView& t, bool want_crc, uint32_t* crc_out) {
  typedef typename Kind<D>::V V;
  const BlockFn<D> fn = pick_block_fn<D, kFinite>();
  Acc<V> acc;
  uint32_t crc = 0;
  const size_t esz = dtype_size(D);
  alignas(64) V scratch[kBlock];
  walk(t, want_crc, [&](const void* p, int64_t count) {
    if (Kind<D>::kDirect && !want_crc) {
      fn(p, count, acc, nullptr);
      return;
    }
    const unsigned char* c = static_cast<const unsigned char*>(p);
    for (int64_t done = 0; done < count; done += kBlock) {
      const int64_t b = count - done < kBlock ? count - done : kBlock;
      if (want_crc && done + kBlock < count) {
        // Statistics then CRC over a block leaves the memory idle during the CRC; asking for
        // the next block first keeps it streaming (+20-40% with CRC, measured).
        const unsigned char* next = c + (done + kBlock) * (int64_t)esz;
        const int64_t next_bytes = std::min<int64_t>(kBlock, count - done - kBlock) * (int64_t)esz;
        for (int64_t o = 0; o < next_bytes; o += 64) __builtin_prefetch(next + o, 0, 3);
      }
      fn(c + done * (int64_t)esz, b, acc, scratch);
      if (want_crc) {
        if (D == DType::kBFloat16)  // the original checksums bf16 as float32 bytes
          crc = crc32_update(crc, scratch, (size_t)b * sizeof(float));
        else
          crc = crc32_update(crc, c + done * (int64_t)esz, (size_t)b * esz);
      }
    }
  });
  if (want_crc) *crc_out = crc;
  return acc;
}

template <DType D>
void stats_real(const TensorView& t, bool want_crc, TensorStats& out) {
  uint32_t crc = 0;
  Reduced r = reduce(run_pass<D, false>(t, want_crc, &crc));
  if (want_crc) out.crc32 = crc;

  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool has_nan = std::isnan(r.q);  // squares are >= 0 or +inf: only a NaN input gives NaN
  double mx = has_nan ? nan : r.mx;
  double mn = has_nan ? nan : r.mn;
  double mean = has_nan ? nan : r.s / (double)r.n;
  double norm = std::sqrt(r.q);
  if (D == DType::kFloat64 && !has_nan) {
    const double big = std::fabs(mx) > std::fabs(mn) ? std::fabs(mx) : std::fabs(mn);
    if (std::isfinite(big) && big > 0.0 && (big > 1e150 || big < 1e-150))
      rescale_f64(t, big, mean, norm);
  }
  if (D != DType::kFloat64 && D != DType::kComplex128) {
    mean = round_f32(mean);
    norm = round_f32(norm);
  }
  out.max = StatValue::floating(mx);
  out.min = StatValue::floating(mn);
  out.mean = StatValue::floating(mean);
  if (dtype_is_complex(D))
    out.complex_abs_norm = norm;
  else
    out.norm = StatValue::floating(norm);
  if (std::isfinite(mx) && std::isfinite(mn)) return;
  // Max or Min is inf/NaN: extremes over the finite values; without any finite value, over
  // the non-NaN values (+-inf); NaN when everything is NaN. Without infinities the finite
  // extremes are the NaN-ignoring ones already at hand; with infinities (overflow, rare) a
  // second pass tracks the finite extremes, so that the common pass stays lean.
  if constexpr (Kind<D>::kCanBeNonFinite) {
    if (r.mx == inf || r.mn == -inf) {
      const Reduced f = reduce(run_pass<D, true>(t, false, nullptr));
      r.fmx = f.fmx;
      r.fmn = f.fmn;
    } else {
      r.fmx = r.mx;
      r.fmn = r.mn;
    }
  }
  const bool any_finite = r.fmx > -inf;
  const bool any_non_nan = r.mn <= r.mx;
  if (!std::isfinite(mx)) out.max_except_inf_nan = any_finite ? r.fmx : any_non_nan ? r.mx : nan;
  if (!std::isfinite(mn)) out.min_except_inf_nan = any_finite ? r.fmn : any_non_nan ? r.mn : nan;
}

void stats_bool(const TensorView& t, bool want_crc, TensorStats& out) {
  bool any = false, all = true;
  uint32_t crc = 0;
  walk(t, want_crc, [&](const void* p, int64_t count) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    uint8_t orv = 0, andv = 1;
    for (int64_t i = 0; i < count; ++i) {
      orv |= b[i];
      andv &= (uint8_t)(b[i] != 0);
    }
    any = any || orv != 0;
    all = all && andv != 0;
    if (want_crc) crc = crc32_update(crc, p, (size_t)count);
  });
  out.max = StatValue::boolean(any);
  out.min = StatValue::boolean(all);
  if (want_crc) out.crc32 = crc;
}

// A 0-dim tensor: every statistic is the value itself (msprobe uses t.item()).
void stats_scalar(const TensorView& t, bool want_crc, TensorStats& out) {
  const void* p = t.data;
  const DType d = t.dtype;
  if (want_crc) {
    if (d == DType::kBFloat16) {
      const float f = bf16_to_float(load<uint16_t>(p));
      out.crc32 = crc32_update(0, &f, sizeof(f));
    } else {
      out.crc32 = crc32_update(0, p, dtype_size(d));
    }
  }
  StatValue v;
  double f = 0.0;
  switch (d) {
    case DType::kBool:
      out.max = out.min = StatValue::boolean(load<uint8_t>(p) != 0);
      return;
    case DType::kComplex64:
    case DType::kComplex128: {
      // |z| as for larger tensors (Norm: see complex_abs_norm).
      if (d == DType::kComplex64) {
        float z[2], m;
        std::memcpy(z, p, sizeof(z));
        convert_abs_c64(z, &m, 1);
        f = m;
      } else {
        f = abs_c128(load<double>(p), load<double>(static_cast<const double*>(p) + 1));
      }
      out.max = out.min = out.mean = StatValue::floating(f);
      out.complex_abs_norm = f;
      break;
    }
    case DType::kUInt8: v = StatValue::integer(load<uint8_t>(p)); break;
    case DType::kInt8: v = StatValue::integer(load<int8_t>(p)); break;
    case DType::kInt16: v = StatValue::integer(load<int16_t>(p)); break;
    case DType::kInt32: v = StatValue::integer(load<int32_t>(p)); break;
    case DType::kInt64: v = StatValue::integer(load<int64_t>(p)); break;
    case DType::kFloat16: f = half_to_float(load<uint16_t>(p)); v = StatValue::floating(f); break;
    case DType::kBFloat16: f = bf16_to_float(load<uint16_t>(p)); v = StatValue::floating(f); break;
    case DType::kFloat32: f = load<float>(p); v = StatValue::floating(f); break;
    case DType::kFloat64: f = load<double>(p); v = StatValue::floating(f); break;
  }
  if (!dtype_is_complex(d)) out.max = out.min = out.mean = out.norm = v;
  if (!std::isfinite(f)) out.max_except_inf_nan = out.min_except_inf_nan = f;  // inf or NaN
}

}  // namespace

void stats_force_portable_kernels(bool on) { g_force_portable.store(on); }

TensorStats compute_stats(const TensorView& t, bool want_crc) {
  TensorStats out;
  if (t.numel() == 0) {
    if (want_crc) out.crc32 = 0u;
    return out;
  }
  if (t.data == nullptr) throw InvalidInput("compute_stats: tensor has no host data");
  if (!t.strides.empty() && t.strides.size() != t.shape.size())
    throw InvalidInput("compute_stats: " + std::to_string(t.strides.size()) + " strides for " +
                       std::to_string(t.shape.size()) + " dimensions");
  if (t.shape.empty()) {
    stats_scalar(t, want_crc, out);
    return out;
  }
  switch (t.dtype) {
    case DType::kBool: stats_bool(t, want_crc, out); break;
    case DType::kUInt8: stats_real<DType::kUInt8>(t, want_crc, out); break;
    case DType::kInt8: stats_real<DType::kInt8>(t, want_crc, out); break;
    case DType::kInt16: stats_real<DType::kInt16>(t, want_crc, out); break;
    case DType::kInt32: stats_real<DType::kInt32>(t, want_crc, out); break;
    case DType::kInt64: stats_real<DType::kInt64>(t, want_crc, out); break;
    case DType::kFloat16: stats_real<DType::kFloat16>(t, want_crc, out); break;
    case DType::kBFloat16: stats_real<DType::kBFloat16>(t, want_crc, out); break;
    case DType::kFloat32: stats_real<DType::kFloat32>(t, want_crc, out); break;
    case DType::kFloat64: stats_real<DType::kFloat64>(t, want_crc, out); break;
    case DType::kComplex64: stats_real<DType::kComplex64>(t, want_crc, out); break;
    case DType::kComplex128: stats_real<DType::kComplex128>(t, want_crc, out); break;
  }
  return out;
}

}  // namespace msprobe
