// The AVX2 (+F16C) copy of the accuracy-metrics kernel, chosen at run time by the front where
// check_simd_enabled() (msprobe/base/cpu_features.h).
#include "metrics_kernel.h"

#ifdef MSPROBE_METRICS_X86
#include <immintrin.h>

// The vector helpers are always inlined; their by-value vectors never cross an ABI boundary.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace msprobe {
namespace check {
namespace metrics_kernel {

// The kernel for float/double benches and devices (the common cases: fp32 device with fp64 or
// fp32 bench, bf16 device read as fp32, fp64 device), common and benchmark/absolute metrics.
// Same arithmetic as `kernel_portable`, 4 elements at a time with GCC vector extensions; masks are
// all-ones lanes, counters int64 lanes.

// 4 lanes: float vectors in xmm, double vectors and int64 masks in ymm (native AVX2 widths).
typedef float vf8 __attribute__((vector_size(16)));
typedef double vd8 __attribute__((vector_size(32)));
typedef int32_t vi8 __attribute__((vector_size(16)));
typedef int64_t vl8 __attribute__((vector_size(32)));
constexpr int kV = 4;

template <Prec P>
struct VecOf;
template <>
struct VecOf<Prec::kFloat> {
  using V = vf8;
  using M = vi8;
};
template <>
struct VecOf<Prec::kDouble> {
  using V = vd8;
  using M = vl8;
};
template <>
struct VecOf<Prec::kHalf> {
  using V = vf8;
  using M = vi8;
};  // fp16 held in float

template <Prec P>
using Vec = typename VecOf<P>::V;

#define MSPROBE_VINLINE inline __attribute__((always_inline)) MSPROBE_TARGET_SIMD
template <typename V, typename Sc>
MSPROBE_VINLINE V vload(const Sc* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
MSPROBE_VINLINE vf8 vabs(vf8 x) { return (vf8)((vi8)x & 0x7fffffff); }
MSPROBE_VINLINE vd8 vabs(vd8 x) { return (vd8)((vl8)x & 0x7fffffffffffffffLL); }
template <typename To, typename From>
MSPROBE_VINLINE To vconv(From x) {
  return __builtin_convertvector(x, To);
}
template <>
MSPROBE_VINLINE vf8 vconv<vf8, vf8>(vf8 x) {
  return x;
}
template <>
MSPROBE_VINLINE vd8 vconv<vd8, vd8>(vd8 x) {
  return x;
}
MSPROBE_VINLINE vl8 mask64(vi8 m) { return __builtin_convertvector(m, vl8); }
MSPROBE_VINLINE vl8 mask64(vl8 m) { return m; }
template <typename V>
MSPROBE_VINLINE V splat(double x) {
  V v;
  for (size_t k = 0; k < sizeof(V) / sizeof(v[0]); ++k) v[k] = (decltype(v[0] + 0))x;
  return v;
}

// The bench in the device's dtype (numpy astype): for an fp16 device, round to fp16 (F16C,
// round to nearest even, overflow to inf, as numpy's float-to-half).
template <Prec D, typename BV>
MSPROBE_TARGET_SIMD MSPROBE_VINLINE Vec<D> to_device(BV b) {
  if constexpr (D == Prec::kHalf) {
    __m128 x;
    std::memcpy(&x, &b, 16);
    const __m128 y = _mm_cvtph_ps(_mm_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT));
    vf8 r;
    std::memcpy(&r, &y, 16);
    return r;
  } else {
    return vconv<Vec<D>>(b);
  }
}

MSPROBE_VINLINE vi8 mask32(vi8 m) { return m; }
MSPROBE_VINLINE vi8 mask32(vl8 m) { return __builtin_convertvector(m, vi8); }
template <typename V>
struct MaskOf;
template <>
struct MaskOf<vf8> {
  using M = vi8;
};
template <>
struct MaskOf<vd8> {
  using M = vl8;
};
// A 32-bit lane mask widened to the lane width of V.
MSPROBE_VINLINE vi8 mask_for(vi8 m, vf8) { return m; }
MSPROBE_VINLINE vl8 mask_for(vi8 m, vd8) { return mask64(m); }
template <typename V>
MSPROBE_VINLINE V select_or_zero(V x, vi8 m) {
  using MV = typename MaskOf<V>::M;
  return (V)((MV)x & mask_for(m, V{}));
}
template <typename V>
MSPROBE_VINLINE V vmax(V acc, V x) {
  return acc < x ? x : acc;
}  // ignores a NaN x

// ULP exponent of |b| from its bits: floor(log2 |b|) clamped at min_eb, 0 for b == 0. `spec`
// marks lanes the bits cannot decide (subnormal, inf/NaN, just below a power of two).
MSPROBE_VINLINE vl8 ulp_exponent(vf8 ab, vl8 min_eb, vl8& spec) {
  const vi8 bits = (vi8)ab;
  const vi8 ef = (bits >> 23) & 0xff;
  const vi8 zero = bits == 0;
  const vi8 sp = ((ef == 0) & ~zero) | (ef == 255) | ((bits & 0x7C0000) == 0x7C0000);
  spec = mask64(sp);
  const vl8 e = __builtin_convertvector((ef - 127) & ~zero, vl8);
  return e < min_eb ? min_eb : e;
}
MSPROBE_VINLINE vl8 ulp_exponent(vd8 ab, vl8 min_eb, vl8& spec) {
  const vl8 bits = (vl8)ab;
  const vl8 ef = (bits >> 52) & 0x7ff;
  const vl8 zero = bits == 0;
  const vl8 top = (vl8){0x1FLL << 47, 0x1FLL << 47, 0x1FLL << 47, 0x1FLL << 47};
  spec = ((ef == 0) & ~zero) | (ef == 0x7ff) | ((bits & top) == top);
  const vl8 e = (ef - 1023) & ~zero;
  return e < min_eb ? min_eb : e;
}

template <Prec B, Prec D, Prec T, unsigned M>
MSPROBE_TARGET_SIMD int64_t kernel_avx2(const S<B>* bs, const S<D>* ds, int64_t n, const Params& p, Acc& a) {
  constexpr Prec P = max_prec(B, D);
  using BV = Vec<B>;
  using DV = Vec<D>;
  using PV = Vec<P>;
  const BV eps_b = splat<BV>(p.eps_b), sv_b = splat<BV>(p.sv_b);
  const PV t1 = splat<PV>(p.t1), t2 = splat<PV>(p.t2), t3 = splat<PV>(p.t3);
  const PV atol_bench = splat<PV>(p.atol_bench), atol_abs = splat<PV>(p.atol_abs), rtol = splat<PV>(p.rtol);
  const DV dmax = splat<DV>(Arith<D>::kMax);
  const BV bmax = splat<BV>(Arith<B>::kMax);
  using TV = Vec<T>;
  constexpr Prec U = max_prec(T, B);
  using UV = Vec<U>;
  const PV minus1 = splat<PV>(-1.0);
  const TV ulp_thr = splat<TV>(p.ulp_thr);
  const vl8 min_eb = {p.ulp_min_eb, p.ulp_min_eb, p.ulp_min_eb, p.ulp_min_eb};
  const vl8 mant = {p.ulp_m, p.ulp_m, p.ulp_m, p.ulp_m};
  const vd8 zero = splat<vd8>(0.0);
  vd8 sdd = zero, sbb = zero, sdb = zero, sumsq = zero, sumr = zero, sumu = zero;
  DV maxd = splat<DV>(0.0);
  BV maxb = splat<BV>(0.0);
  PV maxe = splat<PV>(-kInf), maxr = minus1;
  TV maxu = splat<TV>(-kInf);
  // int32 lane counters: a call covers at most kBlock elements, so they cannot overflow.
  const vi8 z = {0, 0, 0, 0};
  vi8 c1 = z, c2 = z, c3 = z, neq = z, pos = z, neg = z, nfin = z, nsmall = z, nse_b = z, nse_a = z,
      nnorm = z, nrel = z, flags = z, cntu = z;
  const int64_t nv = n / kV * kV;
  for (int64_t i = 0; i < nv; i += kV) {
    const BV b = vload<BV>(bs + i);
    const DV d = vload<DV>(ds + i);
    const PV bp = vconv<PV>(b), dp = vconv<PV>(d);
    const PV e = vabs(dp - bp);
    const BV abv = vabs(b);
    const BV abe = abv + eps_b;
    const PV r = e / vconv<PV>(abe);
    const DV bd = to_device<D>(b);
    const vd8 bdd = vconv<vd8>(b), ddd = vconv<vd8>(d);
    sdd += ddd * ddd;
    sbb += bdd * bdd;
    sdb += ddd * bdd;
    const DV ad = vabs(d);
    maxd = vmax(maxd, ad);
    maxb = vmax(maxb, abv);
    maxe = vmax(maxe, e);
    // bit 0: NaN in d, 1: NaN in b, 2: inf/NaN in d or b, 3: NaN in e
    flags |= (mask32(d != d) & 1) | (mask32(b != b) & 2) |
             ((mask32(~(ad <= dmax)) | mask32(~(abv <= bmax))) & 4) | (mask32(e != e) & 8);
    c1 -= mask32(r < t1);
    c2 -= mask32(r < t2);
    c3 -= mask32(r < t3);
    neq -= mask32(bp != dp);
    pos -= mask32(d > bd);
    neg -= mask32(d < bd);
    if (M & kStd) {
      const vi8 fin = mask32(ad <= dmax) & mask32(vabs(bd) <= dmax);
      const vi8 small = fin & mask32(abv <= sv_b);
      const vi8 normal = fin & ~small;
      nfin -= fin;
      nsmall -= small;
      nse_b -= small & mask32(e > atol_bench);
      nse_a -= small & mask32(e > atol_abs);
      nnorm -= normal;
      nrel -= normal & mask32(r > rtol);
      sumsq += vconv<vd8>(select_or_zero(e * e, normal));
      sumr += vconv<vd8>(select_or_zero(r, normal));
      using PM = typename MaskOf<PV>::M;
      const PM nm = mask_for(normal, PV{});
      maxr = vmax(maxr, (PV)(((PM)r & nm) | ((PM)minus1 & ~nm)));
    }
    if (M & kUlpMode) {
      vl8 spec;
      const vl8 eb = ulp_exponent(abv, min_eb, spec);
      const vd8 scale = (vd8)((mant - eb + 1023) << 52);  // 2^(m - eb), |m - eb| < 1023
      // In B precision first (a float32 2^k overflows to inf, as numpy's exp2), then T.
      const TV sc = vconv<TV>(vconv<BV>(scale));
      const TV dt = vconv<TV>(vconv<UV>(vconv<TV>(d)) - vconv<UV>(b));
      TV u = vabs(dt * sc);
      bool any_spec = false;
      for (int j = 0; j < kV; ++j) any_spec |= spec[j] != 0;
      if (any_spec) {
        for (int j = 0; j < kV; ++j) {
          if (spec[j]) u[j] = ulp_generic<B, D, T>(bs[i + j], ds[i + j], p);
        }
      }
      flags |= mask32(u != u) & 16;
      maxu = vmax(maxu, u);
      sumu += vconv<vd8>(u);
      cntu -= mask32(u > ulp_thr);
    }
  }
  const Lanes<vd8, DV, BV, PV, TV, vi8> ln{
      sdd, sbb, sdb, sumsq, sumr, sumu,   maxd,  maxb,  maxe,  maxr, maxu, c1,   c2,
      c3,  neq, pos, neg,   nfin, nsmall, nse_b, nse_a, nnorm, nrel, cntu, flags};  // Lanes' field order
  const int64_t finite = a.merge(ln, nv);
  if ((M & kStd) && finite < nv) inf_nan_check<B, D>(bs, ds, nv, p, a);
  return nv;
}

// Every (bench, device) pair run_pass sends here, with the (ULP precision, mode) pairs in use.
#define MSPROBE_AVX2_MODES(BP, DP)                                           \
  template int64_t kernel_avx2<Prec::BP, Prec::DP, Prec::kFloat, kCommon>(   \
      const S<Prec::BP>*, const S<Prec::DP>*, int64_t, const Params&, Acc&); \
  template int64_t kernel_avx2<Prec::BP, Prec::DP, Prec::kFloat, kStd>(      \
      const S<Prec::BP>*, const S<Prec::DP>*, int64_t, const Params&, Acc&); \
  template int64_t kernel_avx2<Prec::BP, Prec::DP, Prec::kFloat, kUlpMode>(  \
      const S<Prec::BP>*, const S<Prec::DP>*, int64_t, const Params&, Acc&); \
  template int64_t kernel_avx2<Prec::BP, Prec::DP, Prec::kDouble, kUlpMode>( \
      const S<Prec::BP>*, const S<Prec::DP>*, int64_t, const Params&, Acc&);
MSPROBE_AVX2_MODES(kFloat, kHalf)
MSPROBE_AVX2_MODES(kFloat, kFloat)
MSPROBE_AVX2_MODES(kFloat, kDouble)
MSPROBE_AVX2_MODES(kDouble, kFloat)
MSPROBE_AVX2_MODES(kDouble, kDouble)
#undef MSPROBE_AVX2_MODES

}  // namespace metrics_kernel
}  // namespace check
}  // namespace msprobe
#endif  // MSPROBE_METRICS_X86
