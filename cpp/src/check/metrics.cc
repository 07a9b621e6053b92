// One-pass accuracy metrics (accuracy-checker spec §2.1, §2.4).
//
// Both tensors are read block by block in logical order (any strides), converted to the
// storage type of their numpy dtype (fp16 and bf16 values held in float), and one fused loop
// updates every accumulator the requested standard needs. Element arithmetic follows numpy's
// promotion: a value of precision X is computed in X's arithmetic (fp16: in float, rounded to
// fp16 after every operation, as numpy's float16 loops do), so masks, counts and threshold
// decisions are those of the original; reductions are summed in double.
#include "msprobe/check/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/tensor/dtype.h"
#include "msprobe/tensor/element_reader.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>
#endif

// The vector helpers are always inlined; their by-value vectors never cross an ABI boundary.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace msprobe {
namespace check {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kBlock = 2048;

// ---------------------------------------------------------------------------------------------
// Precisions and their arithmetic.

enum class Prec : uint8_t { kHalf = 0, kFloat = 1, kDouble = 2 };

template <Prec P> struct Arith;
template <> struct Arith<Prec::kHalf> {
  using S = float;  // fp16 values are held in float
  static inline float rnd(float x) { return half_to_float(float_to_half(x)); }
  static inline float from(double x) { return rnd((float)x); }
  static constexpr NumKind kKind = NumKind::kFloat16;
  static constexpr double kEps = 0.0009765625;  // finfo(float16).eps = 2^-10
  static constexpr double kMax = 65504.0;
};
template <> struct Arith<Prec::kFloat> {
  using S = float;
  static inline float rnd(float x) { return x; }
  static inline float from(double x) { return (float)x; }
  static constexpr NumKind kKind = NumKind::kFloat32;
  static constexpr double kEps = 1.1920928955078125e-07;  // 2^-23
  static constexpr double kMax = 3.4028234663852886e+38;
};
template <> struct Arith<Prec::kDouble> {
  using S = double;
  static inline double rnd(double x) { return x; }
  static inline double from(double x) { return x; }
  static constexpr NumKind kKind = NumKind::kFloat64;
  static constexpr double kEps = 2.220446049250313e-16;  // 2^-52
  static constexpr double kMax = 1.7976931348623157e+308;
};

constexpr Prec max_prec(Prec a, Prec b) { return (uint8_t)a > (uint8_t)b ? a : b; }

template <Prec P> using S = typename Arith<P>::S;

// Converts a value held in storage type of precision `From` to precision `To` (numpy astype).
template <Prec To, typename V>
inline S<To> cvt(V x) {
  return Arith<To>::from((double)x);
}
template <>
inline float cvt<Prec::kFloat, float>(float x) { return x; }
template <>
inline double cvt<Prec::kDouble, float>(float x) { return x; }
template <>
inline double cvt<Prec::kDouble, double>(double x) { return x; }
template <>
inline float cvt<Prec::kHalf, float>(float x) { return Arith<Prec::kHalf>::rnd(x); }

Prec prec_of(DType t) {
  switch (t) {
    case DType::kFloat16: return Prec::kHalf;
    case DType::kBFloat16:
    case DType::kFloat32: return Prec::kFloat;
    case DType::kFloat64: return Prec::kDouble;
    default: throw InvalidInput(std::string("accuracy metrics need floating-point tensors, got ") +
                                torch_dtype_name(t));
  }
}

// ---------------------------------------------------------------------------------------------
// Run-time SIMD selection (shared with the element reader): AVX2 + F16C, no FMA (contracted
// multiply-adds would change the numpy-exact element results). MSPROBE_CHECK_SIMD=0 forces the
// scalar code (tests compare both paths).

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define MSPROBE_TARGET_SIMD __attribute__((target("avx2,f16c")))
#else
#define MSPROBE_TARGET_SIMD
#endif
inline bool simd_available() { return avx2_f16c_enabled(); }

using Reader = ElementReader;

// ---------------------------------------------------------------------------------------------
// The fused pass.

struct Params {
  // B precision
  double eps_b = 0, sv_b = 0;
  // P precision
  double t1 = 0, t2 = 0, t3 = 0, atol_bench = 0, atol_abs = 0, rtol = 0;
  // D precision: the clip bound of the inf/nan check
  double clip_hi = 0;
  // ULP
  int ulp_min_eb = 0, ulp_m = 0;
  double ulp_thr = 0;
};

struct Acc {
  int64_t n = 0;
  // cosine
  double sdd = 0, sbb = 0, sdb = 0, maxd = 0, maxb = 0;
  bool nan_d = false, nan_b = false, nonfinite = false;
  // max abs err (NaN tracked apart)
  double max_e = -kInf;
  bool nan_e = false;
  int64_t c1 = 0, c2 = 0, c3 = 0, neq = 0, pos = 0, neg = 0;
  // benchmark / absolute / accumulative
  int64_t n_inf = 0, n_small = 0, n_small_err_bench = 0, n_small_err_abs = 0, n_normal = 0,
          n_rel_err = 0, n_inf_fail = 0, cnt_r = 0;
  double sumsq = 0, max_r = -1, sum_r = 0;
  // ULP
  double max_u = -kInf, sum_u = 0;
  bool nan_u = false;
  int64_t cnt_u = 0;
};

enum Mode : unsigned { kCommon = 0, kStd = 1, kUlpMode = 2 };

template <typename T>
inline bool is_finite(T x) {
  return std::fabs(x) <= std::numeric_limits<T>::max();
}

// floor(log2(x)) as numpy computes it in precision B (x > 0, may be inf/NaN). Exact exponent
// from frexp, except just below a power of two, where the rounded log2 may reach the next
// integer: there the library log2 of precision B decides.
template <Prec B>
inline double floor_log2(S<B> x) {
  if (!(x <= std::numeric_limits<S<B>>::max())) return x != x ? kNaN : kInf;
  int e;
  const double m = std::frexp((double)x, &e);
  if (m < 0.984375) return (double)(e - 1);
  if (B == Prec::kDouble) return std::floor(std::log2((double)x));
  float l = std::log2((float)x);
  if (B == Prec::kHalf) l = Arith<Prec::kHalf>::rnd(l);
  return std::floor((double)l);
}

// ULP error of one element (spec §2.4), generic path: any value, any precision.
template <Prec B, Prec D, Prec T>
inline S<T> ulp_generic(S<B> bv, S<D> dv, const Params& p) {
  constexpr Prec U = max_prec(T, B);
  using TS = S<T>;
  using US = S<U>;
  const US du = Arith<U>::rnd((US)cvt<T>(dv) - (US)bv);
  const TS dt = cvt<T>(du);
  const S<B> abv = std::fabs(bv);
  double eb = abv == 0 ? 0.0 : floor_log2<B>(abv);
  if (eb < (double)p.ulp_min_eb) eb = (double)p.ulp_min_eb;  // NaN stays NaN
  double scale;
  const double k = (double)p.ulp_m - eb;
  if (k != k) {
    scale = kNaN;
  } else if (k > 4000) {
    scale = kInf;
  } else if (k < -4000) {
    scale = 0.0;
  } else {
    scale = std::ldexp(1.0, (int)k);
  }
  const TS sc = cvt<T>(cvt<B>(scale));
  return (TS)std::fabs(Arith<T>::rnd(dt * sc));
}

// Fast path for a float or double bench: the exponent from the bits, 2^k built from bits.
// Returns false (caller takes ulp_generic) for zero, inf/NaN and values just below a power of
// two, where numpy's rounded log2 decides.
template <Prec B, Prec D, Prec T>
inline bool ulp_fast(S<B> bv, S<D> dv, const Params& p, S<T>& out) {
  using TS = S<T>;
  int e;
  if (B == Prec::kFloat) {
    uint32_t bits;
    const float f = (float)std::fabs(bv);
    std::memcpy(&bits, &f, 4);
    const uint32_t ef = bits >> 23;
    if (ef == 0 || ef == 255 || (bits & 0x7C0000u) == 0x7C0000u) return false;
    e = (int)ef - 127;
  } else if (B == Prec::kDouble) {
    uint64_t bits;
    const double x = std::fabs((double)bv);
    std::memcpy(&bits, &x, 8);
    const uint64_t ef = bits >> 52;
    if (ef == 0 || ef == 2047 || (bits & (0x1FULL << 47)) == (0x1FULL << 47)) return false;
    e = (int)ef - 1023;
  } else {
    return false;
  }
  if (e < p.ulp_min_eb) e = p.ulp_min_eb;
  const int k = p.ulp_m - e;  // in [-105, 149]
  TS sc;
  if (B == Prec::kFloat && k > 127) {
    sc = (TS)kInf;  // numpy's float32 exp2 overflows
  } else {
    uint64_t db = (uint64_t)(k + 1023) << 52;
    double s2;
    std::memcpy(&s2, &db, 8);
    sc = (TS)s2;
  }
  constexpr Prec U = max_prec(T, B);
  using US = S<U>;
  const US du = Arith<U>::rnd((US)cvt<T>(dv) - (US)bv);
  out = (TS)std::fabs(Arith<T>::rnd(cvt<T>(du) * sc));
  return true;
}

// The absolute-threshold inf/nan check over the non-finite positions of a block (rare).
template <Prec B, Prec D>
void inf_nan_check(const S<B>* bs, const S<D>* ds, int64_t n, const Params& p, Acc& a) {
  constexpr Prec P = max_prec(B, D);
  using BS = S<B>;
  using DS = S<D>;
  using PS = S<P>;
  const BS eps_b = (BS)p.eps_b;
  const PS rtol = (PS)p.rtol;
  const DS hi = (DS)p.clip_hi, lo = -hi;
  auto clip = [&](DS x) -> DS { return x != x ? x : (x < lo ? lo : (x > hi ? hi : x)); };
  for (int64_t k = 0; k < n; ++k) {
    const BS bv = bs[k];
    const DS dv = ds[k];
    const DS bd = cvt<D>(bv);
    if (is_finite(dv) && is_finite(bd)) continue;
    ++a.n_inf;
    const BS abe = Arith<B>::rnd((BS)std::fabs(bv) + eps_b);
    const DS dc = clip(dv), bc = clip(bd);
    const DS cd = (DS)std::fabs(Arith<D>::rnd(dc - bc));
    const PS q = Arith<P>::rnd((PS)cd / (PS)abe);
    const bool ok = q <= rtol || (dv != dv && bc != bc);
    a.n_inf_fail += !ok;
  }
}

template <Prec B, Prec D, Prec T, unsigned M>
void kernel(const S<B>* bs, const S<D>* ds, int64_t n, const Params& p, Acc& a) {
  constexpr Prec P = max_prec(B, D);
  using BS = S<B>;
  using DS = S<D>;
  using PS = S<P>;
  using TS = S<T>;
  const BS eps_b = (BS)p.eps_b, sv_b = (BS)p.sv_b;
  const PS t1 = (PS)p.t1, t2 = (PS)p.t2, t3 = (PS)p.t3;
  const PS atol_bench = (PS)p.atol_bench, atol_abs = (PS)p.atol_abs, rtol = (PS)p.rtol;
  const TS ulp_thr = (TS)p.ulp_thr;
  constexpr double kDMax = std::numeric_limits<double>::max();

  // Independent lanes, laid out as in kernel_simd (element i in lane i % 4, lanes summed in
  // order), so both kernels give bit-identical sums.
  constexpr int L = 4;
  double sdd[L] = {}, sbb[L] = {}, sdb[L] = {}, maxd[L] = {}, maxb[L] = {}, sumsq[L] = {},
         sumr[L] = {}, sumu[L] = {};
  double maxe[L], maxr[L], maxu[L];
  int64_t c1[L] = {}, c2[L] = {}, c3[L] = {}, neq[L] = {}, pos[L] = {}, neg[L] = {},
          nfin[L] = {}, nsmall[L] = {}, nse_b[L] = {}, nse_a[L] = {}, nnorm[L] = {},
          nrel[L] = {}, cntu[L] = {};
  int flags[L] = {};  // 1: NaN in d, 2: NaN in b, 4: inf/NaN anywhere, 8: NaN in e, 16: NaN ULP
  for (int j = 0; j < L; ++j) maxe[j] = maxu[j] = -kInf, maxr[j] = -1;

  // Written without short-circuit operators or NaN-sensitive branches so that the lane loop
  // vectorises: `a < x ? x : a` is a max that ignores a NaN x (NaN is tracked in `flags`).
  auto body = [&](int64_t i, int j) __attribute__((always_inline)) {
    const BS bv = bs[i];
    const DS dv = ds[i];
    const PS bp = (PS)bv, dp = (PS)dv;
    const PS e = (PS)std::fabs(Arith<P>::rnd(dp - bp));
    const BS abv = (BS)std::fabs(bv);
    const BS abe = Arith<B>::rnd(abv + eps_b);
    const PS r = Arith<P>::rnd(e / (PS)abe);
    const DS bd = cvt<D>(bv);
    const double bdd = (double)bv, ddd = (double)dv;
    sdd[j] += ddd * ddd;
    sbb[j] += bdd * bdd;
    sdb[j] += ddd * bdd;
    const double ad = std::fabs(ddd), ab = std::fabs(bdd), ed = (double)e;
    maxd[j] = maxd[j] < ad ? ad : maxd[j];
    maxb[j] = maxb[j] < ab ? ab : maxb[j];
    maxe[j] = maxe[j] < ed ? ed : maxe[j];
    flags[j] |= (int)(ddd != ddd) | ((int)(bdd != bdd) << 1) |
                ((int)((!(ad <= kDMax)) | (!(ab <= kDMax))) << 2) | ((int)(ed != ed) << 3);
    c1[j] += r < t1;
    c2[j] += r < t2;
    c3[j] += r < t3;
    neq[j] += bp != dp;
    pos[j] += dv > bd;
    neg[j] += dv < bd;
    if (M & kStd) {
      const bool fin = is_finite(dv) & is_finite(bd);
      const bool small = fin & (abv <= sv_b);
      const bool normal = fin & !small;
      nfin[j] += fin;
      nsmall[j] += small;
      nse_b[j] += small & (e > atol_bench);
      nse_a[j] += small & (e > atol_abs);
      nnorm[j] += normal;
      nrel[j] += normal & (r > rtol);
      const double sq = (double)Arith<P>::rnd(e * e);
      const double rd = (double)r;
      sumsq[j] += normal ? sq : 0.0;
      sumr[j] += normal ? rd : 0.0;
      const double rm = normal ? rd : -1.0;
      maxr[j] = maxr[j] < rm ? rm : maxr[j];
    }
    if (M & kUlpMode) {
      TS u;
      if (!ulp_fast<B, D, T>(bv, dv, p, u)) u = ulp_generic<B, D, T>(bv, dv, p);
      const double ud = (double)u;
      flags[j] |= (int)(ud != ud) << 4;
      maxu[j] = maxu[j] < ud ? ud : maxu[j];
      sumu[j] += ud;
      cntu[j] += u > ulp_thr;
    }
  };
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int j = 0; j < L; ++j) body(i + j, j);
  }
  for (int j = 0; i < n; ++i, ++j) body(i, j);

  int fl = 0;
  int64_t nfin_total = 0;
  for (int j = 0; j < L; ++j) {
    a.sdd += sdd[j];
    a.sbb += sbb[j];
    a.sdb += sdb[j];
    a.maxd = std::max(a.maxd, maxd[j]);
    a.maxb = std::max(a.maxb, maxb[j]);
    a.max_e = std::max(a.max_e, maxe[j]);
    fl |= flags[j];
    a.c1 += c1[j];
    a.c2 += c2[j];
    a.c3 += c3[j];
    a.neq += neq[j];
    a.pos += pos[j];
    a.neg += neg[j];
    nfin_total += nfin[j];
    a.n_small += nsmall[j];
    a.n_small_err_bench += nse_b[j];
    a.n_small_err_abs += nse_a[j];
    a.n_normal += nnorm[j];
    a.n_rel_err += nrel[j];
    a.cnt_r += nnorm[j];
    a.sumsq += sumsq[j];
    a.sum_r += sumr[j];
    a.max_r = std::max(a.max_r, maxr[j]);
    a.max_u = std::max(a.max_u, maxu[j]);
    a.sum_u += sumu[j];
    a.cnt_u += cntu[j];
  }
  a.nan_d |= (fl & 1) != 0;
  a.nan_b |= (fl & 2) != 0;
  a.nonfinite |= (fl & 4) != 0;
  a.nan_e |= (fl & 8) != 0;
  a.nan_u |= (fl & 16) != 0;
  a.n += n;

  if ((M & kStd) && nfin_total < n) inf_nan_check<B, D>(bs, ds, n, p, a);
}

// ---------------------------------------------------------------------------------------------
// SIMD kernel for float/double benches and devices (the common cases: fp32 device with fp64 or
// fp32 bench, bf16 device read as fp32, fp64 device), common and benchmark/absolute metrics.
// Same arithmetic as `kernel`, 4 elements at a time with GCC vector extensions; masks are
// all-ones lanes, counters int64 lanes.

// 4 lanes: float vectors in xmm, double vectors and int64 masks in ymm (native AVX2 widths).
typedef float vf8 __attribute__((vector_size(16)));
typedef double vd8 __attribute__((vector_size(32)));
typedef int32_t vi8 __attribute__((vector_size(16)));
typedef int64_t vl8 __attribute__((vector_size(32)));
constexpr int kV = 4;

template <Prec P> struct VecOf;
template <> struct VecOf<Prec::kFloat> { using V = vf8; using M = vi8; };
template <> struct VecOf<Prec::kDouble> { using V = vd8; using M = vl8; };
template <> struct VecOf<Prec::kHalf> { using V = vf8; using M = vi8; };  // fp16 held in float

template <Prec P> using Vec = typename VecOf<P>::V;

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
MSPROBE_VINLINE To vconv(From x) { return __builtin_convertvector(x, To); }
template <>
MSPROBE_VINLINE vf8 vconv<vf8, vf8>(vf8 x) { return x; }
template <>
MSPROBE_VINLINE vd8 vconv<vd8, vd8>(vd8 x) { return x; }
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
template <typename V> struct MaskOf;
template <> struct MaskOf<vf8> { using M = vi8; };
template <> struct MaskOf<vd8> { using M = vl8; };
// A 32-bit lane mask widened to the lane width of V.
MSPROBE_VINLINE vi8 mask_for(vi8 m, vf8) { return m; }
MSPROBE_VINLINE vl8 mask_for(vi8 m, vd8) { return mask64(m); }
template <typename V>
MSPROBE_VINLINE V select_or_zero(V x, vi8 m) {
  using MV = typename MaskOf<V>::M;
  return (V)((MV)x & mask_for(m, V{}));
}
template <typename V>
MSPROBE_VINLINE V vmax(V acc, V x) { return acc < x ? x : acc; }  // ignores a NaN x

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
MSPROBE_TARGET_SIMD int64_t kernel_simd(const S<B>* bs, const S<D>* ds, int64_t n,
                                        const Params& p, Acc& a) {
  constexpr Prec P = max_prec(B, D);
  using BV = Vec<B>;
  using DV = Vec<D>;
  using PV = Vec<P>;
  const BV eps_b = splat<BV>(p.eps_b), sv_b = splat<BV>(p.sv_b);
  const PV t1 = splat<PV>(p.t1), t2 = splat<PV>(p.t2), t3 = splat<PV>(p.t3);
  const PV atol_bench = splat<PV>(p.atol_bench), atol_abs = splat<PV>(p.atol_abs),
           rtol = splat<PV>(p.rtol);
  const DV dmax = splat<DV>(Arith<D>::kMax);
  const BV bmax = splat<BV>(Arith<B>::kMax);
  const vd8 zero = splat<vd8>(0.0);
  vd8 sdd = zero, sbb = zero, sdb = zero, sumsq = zero, sumr = zero;
  DV maxd = splat<DV>(0.0);
  BV maxb = splat<BV>(0.0);
  PV maxe = splat<PV>(-kInf), maxr = splat<PV>(-1.0), minus1 = splat<PV>(-1.0);
  // int32 lane counters: a call covers at most kBlock elements, so they cannot overflow.
  const vi8 z = {0, 0, 0, 0};
  vi8 c1 = z, c2 = z, c3 = z, neq = z, pos = z, neg = z, nfin = z, nsmall = z, nse_b = z,
      nse_a = z, nnorm = z, nrel = z, flags = z, cntu = z;
  using TV = Vec<T>;
  constexpr Prec U = max_prec(T, B);
  using UV = Vec<U>;
  TV maxu = splat<TV>(-kInf);
  const TV ulp_thr = splat<TV>(p.ulp_thr);
  vd8 sumu = zero;
  const vl8 min_eb = {p.ulp_min_eb, p.ulp_min_eb, p.ulp_min_eb, p.ulp_min_eb};
  const vl8 mant = {p.ulp_m, p.ulp_m, p.ulp_m, p.ulp_m};
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
  int64_t nfin_total = 0;
  int fl = 0;
  for (int j = 0; j < kV; ++j) {
    a.sdd += sdd[j];
    a.sbb += sbb[j];
    a.sdb += sdb[j];
    a.maxd = std::max(a.maxd, (double)maxd[j]);
    a.maxb = std::max(a.maxb, (double)maxb[j]);
    a.max_e = std::max(a.max_e, (double)maxe[j]);
    fl |= flags[j];
    a.c1 += c1[j];
    a.c2 += c2[j];
    a.c3 += c3[j];
    a.neq += neq[j];
    a.pos += pos[j];
    a.neg += neg[j];
    nfin_total += nfin[j];
    a.n_small += nsmall[j];
    a.n_small_err_bench += nse_b[j];
    a.n_small_err_abs += nse_a[j];
    a.n_normal += nnorm[j];
    a.n_rel_err += nrel[j];
    a.cnt_r += nnorm[j];
    a.sumsq += sumsq[j];
    a.sum_r += sumr[j];
    a.max_r = std::max(a.max_r, (double)maxr[j]);
    a.max_u = std::max(a.max_u, (double)maxu[j]);
    a.sum_u += sumu[j];
    a.cnt_u += cntu[j];
  }
  a.nan_d |= (fl & 1) != 0;
  a.nan_b |= (fl & 2) != 0;
  a.nonfinite |= (fl & 4) != 0;
  a.nan_e |= (fl & 8) != 0;
  a.nan_u |= (fl & 16) != 0;
  a.n += nv;
  if ((M & kStd) && nfin_total < nv) inf_nan_check<B, D>(bs, ds, nv, p, a);
  return nv;
}

template <Prec B, Prec D, Prec T, unsigned M>
void run_pass(const TensorView& bench, const TensorView& device, DType bench_as,
              const Params& p, Acc& a) {
  const int64_t n = device.numel();
  std::vector<S<B>> bb(kBlock);
  std::vector<S<D>> db(kBlock);
  Reader rb(bench), rd(device);
  const bool round_bench = bench_as == DType::kFloat32 && bench.dtype == DType::kFloat64;
  std::vector<double> tmp(round_bench ? kBlock : 0);
  // Contiguous float32 / float64 data already has the storage type: read it in place.
  auto direct = [](const TensorView& v, Prec pr) {
    return v.is_contiguous() && ((pr == Prec::kFloat && v.dtype == DType::kFloat32) ||
                                 (pr == Prec::kDouble && v.dtype == DType::kFloat64));
  };
  const S<B>* b_direct = !round_bench && direct(bench, B) ? static_cast<const S<B>*>(bench.data) : nullptr;
  const S<D>* d_direct = direct(device, D) ? static_cast<const S<D>*>(device.data) : nullptr;
  const bool simd = B != Prec::kHalf && simd_available();
  for (int64_t off = 0; off < n; off += kBlock) {
    const int64_t k = std::min(kBlock, n - off);
    const S<B>* bp = b_direct ? b_direct + off : bb.data();
    const S<D>* dp = d_direct ? d_direct + off : db.data();
    if (round_bench) {
      // bf16 device: bench.to(float32) rounds a float64 bench to float32 first.
      rb.read(k, tmp.data());
      for (int64_t i = 0; i < k; ++i) bb[i] = (S<B>)(float)tmp[i];
    } else if (!b_direct) {
      rb.read(k, bb.data());
    }
    if (!d_direct) rd.read(k, db.data());
    // The multiple-of-4 prefix (SIMD when available), then the tail: the same split and
    // summation order on both paths.
    int64_t done = 0;
    if constexpr (B != Prec::kHalf && !(D == Prec::kHalf && B == Prec::kDouble)) {
      if (simd) done = kernel_simd<B, D, T, M>(bp, dp, k, p, a);
    }
    if (done == 0 && k >= 4) {
      done = k / 4 * 4;
      kernel<B, D, T, M>(bp, dp, done, p, a);
    }
    if (done < k) kernel<B, D, T, M>(bp + done, dp + done, k - done, p, a);
  }
}

template <Prec B, Prec D>
void dispatch_mode(unsigned mode, bool ulp_double, const TensorView& bench,
                   const TensorView& device, DType bench_as, const Params& p, Acc& a) {
  switch (mode) {
    case kCommon: return run_pass<B, D, Prec::kFloat, kCommon>(bench, device, bench_as, p, a);
    case kStd: return run_pass<B, D, Prec::kFloat, kStd>(bench, device, bench_as, p, a);
    default:
      if (ulp_double) return run_pass<B, D, Prec::kDouble, kUlpMode>(bench, device, bench_as, p, a);
      return run_pass<B, D, Prec::kFloat, kUlpMode>(bench, device, bench_as, p, a);
  }
}

void dispatch(Prec b, Prec d, unsigned mode, bool ulp_double, const TensorView& bench,
              const TensorView& device, DType bench_as, const Params& p, Acc& a) {
#define MSPROBE_CASE(BP, DP)                                                        \
  if (b == Prec::BP && d == Prec::DP)                                               \
    return dispatch_mode<Prec::BP, Prec::DP>(mode, ulp_double, bench, device, bench_as, p, a);
  MSPROBE_CASE(kHalf, kHalf)
  MSPROBE_CASE(kHalf, kFloat)
  MSPROBE_CASE(kHalf, kDouble)
  MSPROBE_CASE(kFloat, kHalf)
  MSPROBE_CASE(kFloat, kFloat)
  MSPROBE_CASE(kFloat, kDouble)
  MSPROBE_CASE(kDouble, kHalf)
  MSPROBE_CASE(kDouble, kFloat)
  MSPROBE_CASE(kDouble, kDouble)
#undef MSPROBE_CASE
}

double round_to(Prec p, double x) {
  switch (p) {
    case Prec::kHalf: return Arith<Prec::kHalf>::from(x);
    case Prec::kFloat: return (double)(float)x;
    default: return x;
  }
}

NumKind kind_of(Prec p) {
  switch (p) {
    case Prec::kHalf: return NumKind::kFloat16;
    case Prec::kFloat: return NumKind::kFloat32;
    default: return NumKind::kFloat64;
  }
}

double eps_of(Prec p) {
  switch (p) {
    case Prec::kHalf: return Arith<Prec::kHalf>::kEps;
    case Prec::kFloat: return Arith<Prec::kFloat>::kEps;
    default: return Arith<Prec::kDouble>::kEps;
  }
}

double max_of(Prec p) {
  switch (p) {
    case Prec::kHalf: return Arith<Prec::kHalf>::kMax;
    case Prec::kFloat: return Arith<Prec::kFloat>::kMax;
    default: return Arith<Prec::kDouble>::kMax;
  }
}

Num make(double v, NumKind k) {
  Num n;
  n.value = v;
  n.kind = k;
  n.set = true;
  return n;
}
Num f64(double v) { return make(v, NumKind::kFloat64); }
Num int_num(int64_t v) { return make((double)v, NumKind::kInt); }
// count / total as numpy divides two integers (float64), or the literal int 0 when total is 0.
Num ratio_or_zero(int64_t count, int64_t total) {
  return total == 0 ? int_num(0) : f64((double)count / (double)total);
}

void check_pair(const TensorView& bench, const TensorView& device) {
  if (bench.numel() != device.numel()) {
    throw InvalidInput("accuracy metrics: bench has " + std::to_string(bench.numel()) +
                       " elements but device has " + std::to_string(device.numel()));
  }
  if ((bench.numel() > 0 && bench.data == nullptr) || (device.numel() > 0 && device.data == nullptr)) {
    throw InvalidInput("accuracy metrics: a tensor has no readable storage");
  }
}

const double kCosEps = 2.220446049250313e-16;  // np.finfo(float).eps

// Cosine from the accumulated sums (see cosine_sim in the spec §2.1).
CosineResult cosine_from(const Acc& a, const TensorView& bench, const TensorView& device,
                         bool any_double) {
  CosineResult c;
  if (a.n == 1) {
    c.pass = true;
    c.message = "All the data in device dump data is scalar. Please refer to other compare algorithms.";
    return c;
  }
  const double md = a.nan_d ? kNaN : a.maxd, mb = a.nan_b ? kNaN : a.maxb;
  if (md <= kCosEps && mb <= kCosEps) {
    c.pass = true;
    c.message = "All the data in device and bench outputs are zero.";
    return c;
  }
  if (md <= kCosEps) {
    c.message = "All the data is zero in device dump data.";
    return c;
  }
  if (mb <= kCosEps) {
    c.message = "All the data is zero in bench dump data.";
    return c;
  }
  double cos;
  if (a.nonfinite || a.nan_d || a.nan_b) {
    cos = kNaN;
  } else {
    double sdd = a.sdd, sbb = a.sbb, sdb = a.sdb;
    if (any_double && (!(sdd <= 1e300) || !(sbb <= 1e300))) {
      // float64 data whose squares overflow: sum the max-scaled values instead. (Underflow
      // cannot matter: data with max |x| <= 2.2e-16 took the all-zero branch above.)
      sdd = sbb = sdb = 0;
      const int64_t n = device.numel();
      std::vector<double> bb(kBlock), db(kBlock);
      Reader rb(bench), rd(device);
      for (int64_t off = 0; off < n; off += kBlock) {
        const int64_t k = std::min(kBlock, n - off);
        rb.read(k, bb.data());
        rd.read(k, db.data());
        for (int64_t i = 0; i < k; ++i) {
          const double x = db[i] / md, y = bb[i] / mb;
          sdd += x * x;
          sbb += y * y;
          sdb += x * y;
        }
      }
    }
    cos = sdb / (std::sqrt(sdd) * std::sqrt(sbb));
  }
  if (cos != cos) {
    c.message = "Dump data has NaN when comparing with Cosine Similarity.";
  } else {
    cos = std::min(1.0, std::max(-1.0, cos));
  }
  c.has_value = true;
  c.value = cos;
  c.pass = cos > 0.99;
  return c;
}

struct Setup {
  Prec b, d;
  DType bench_as;  // the dtype the bench is read as (float32 for a bf16 device)
  DType tau;       // device dtype
};

Setup setup_for(const TensorView& bench, const TensorView& device) {
  Setup s;
  s.tau = device.dtype;
  if (!dtype_is_floating(device.dtype) || !dtype_is_floating(bench.dtype)) {
    throw InvalidInput(std::string("accuracy metrics need floating-point tensors, got bench ") +
                       torch_dtype_name(bench.dtype) + " and device " +
                       torch_dtype_name(device.dtype));
  }
  if (device.dtype == DType::kBFloat16) {
    s.b = s.d = Prec::kFloat;
    s.bench_as = DType::kFloat32;
  } else {
    s.b = prec_of(bench.dtype);
    s.d = prec_of(device.dtype);
    s.bench_as = bench.dtype == DType::kBFloat16 ? DType::kFloat32 : bench.dtype;
  }
  return s;
}

Params params_for(const Setup& s, Standard standard) {
  const Prec p = max_prec(s.b, s.d);
  const DtypeThresholds& th = thresholds_for(s.tau);
  Params q;
  q.eps_b = s.tau == DType::kBFloat16 ? 0.00390625 : eps_of(s.b);
  const bool acc = standard == Standard::kAccumulativeError;
  q.sv_b = round_to(s.b, acc ? kAccumulativeSmallValue : th.small_value);
  q.t1 = round_to(p, 0.01);
  q.t2 = round_to(p, 0.001);
  q.t3 = round_to(p, 0.0001);
  q.atol_bench = round_to(p, th.small_value_atol_bench);
  q.atol_abs = round_to(p, acc ? th.accumulative_bound : th.small_value_atol_abs);
  q.rtol = round_to(p, acc ? th.accumulative_bound : th.rtol);
  q.clip_hi = s.tau == DType::kBFloat16 ? 3.3895313892515355e+38 : max_of(s.d);
  if (const UlpParams* u = ulp_params_for(s.tau)) {
    q.ulp_min_eb = u->min_exponent;
    q.ulp_m = u->mantissa_bits;
    q.ulp_thr = u->error_threshold;
  }
  return q;
}

}  // namespace

FloatMetrics compute_float_metrics(const TensorView& bench, const TensorView& device,
                                   Standard standard) {
  check_pair(bench, device);
  const Setup s = setup_for(bench, device);
  FloatMetrics m;
  m.numel = device.numel();
  m.standard = standard;
  m.new_standard = s.tau == DType::kFloat16 || s.tau == DType::kBFloat16 ||
                   s.tau == DType::kFloat32;
  const Params q = params_for(s, standard);
  unsigned mode = kCommon;
  if (m.new_standard) {
    if (standard == Standard::kBenchmark || standard == Standard::kAbsoluteThreshold ||
        standard == Standard::kAccumulativeError) {
      mode = kStd;
    } else if (standard == Standard::kUlp) {
      mode = kUlpMode;
    }
  }
  Acc a;
  if (m.numel > 0) {
    dispatch(s.b, s.d, mode, s.tau == DType::kFloat32, bench, device, s.bench_as, q, a);
  }
  const int64_t n = m.numel;
  const Prec p = max_prec(s.b, s.d);
  const NumKind pk = kind_of(p);
  const bool any_double = s.b == Prec::kDouble || s.d == Prec::kDouble;

  if (n > 0) {
    m.cosine = cosine_from(a, bench, device, any_double);
    m.max_abs_err = make(a.nan_e ? kNaN : a.max_e, pk);
  }
  if (n == 0) {
    m.hundredth = m.thousandth = m.ten_thousandth = int_num(1);
  } else {
    m.hundredth = f64((double)a.c1 / (double)n);
    m.thousandth = f64((double)a.c2 / (double)n);
    m.ten_thousandth = f64((double)a.c3 / (double)n);
  }
  if (!m.new_standard) return m;

  const Num eb = n == 0 ? int_num(0) : f64((double)std::llabs(a.pos - a.neg) / (double)n);
  switch (standard) {
    case Standard::kBinaryConsistency:
      m.error_rate = f64(n == 0 ? kNaN : (double)a.neq / (double)n);
      break;
    case Standard::kThousandth:
      m.rel_err_thousandth = m.thousandth;
      break;
    case Standard::kBenchmark: {
      m.small_value_err_ratio = ratio_or_zero(a.n_small_err_bench, a.n_small);
      const int64_t masked = a.n_small + a.n_inf;
      // numpy holds mean(square(e)) in the promoted dtype: rounded to it, as numpy does.
      const double mse = n == 0 ? kNaN : round_to(p, a.sumsq / (double)n);
      m.rmse = f64(std::sqrt(mse * ((double)n / ((double)(n - masked) + 0.0001) + 0.0001)));
      m.max_rel_err = a.cnt_r > 0 && a.max_r >= 0 ? make(round_to(p, a.max_r), pk) : int_num(0);
      m.mean_rel_err =
          a.cnt_r > 0 ? make(round_to(p, a.sum_r / (double)a.cnt_r), pk) : int_num(0);
      m.eb = eb;
      break;
    }
    case Standard::kAbsoluteThreshold:
    case Standard::kAccumulativeError:
      m.inf_nan_error_ratio = ratio_or_zero(a.n_inf_fail, a.n_inf);
      m.rel_err_ratio = ratio_or_zero(a.n_rel_err, a.n_normal);
      m.abs_err_ratio = ratio_or_zero(a.n_small_err_abs, a.n_small);
      if (standard == Standard::kAccumulativeError) m.eb = eb;
      break;
    case Standard::kUlp: {
      const Prec t = s.tau == DType::kFloat32 ? Prec::kDouble : Prec::kFloat;
      const NumKind tk = kind_of(t);
      m.max_ulp_err = make(n == 0 ? kNaN : (a.nan_u ? kNaN : a.max_u), tk);
      m.mean_ulp_err = make(n == 0 ? kNaN : round_to(t, a.sum_u / (double)n), tk);
      m.ulp_err_proportion = f64(n == 0 ? kNaN : (double)a.cnt_u / (double)n);
      break;
    }
  }
  return m;
}

CosineResult cosine_similarity(const TensorView& bench, const TensorView& device) {
  check_pair(bench, device);
  const Setup s = setup_for(bench, device);
  if (device.numel() == 0) {
    CosineResult c;
    c.pass = true;
    return c;
  }
  const Params q = params_for(s, Standard::kBinaryConsistency);
  Acc a;
  dispatch(s.b, s.d, kCommon, false, bench, device, s.bench_as, q, a);
  return cosine_from(a, bench, device, s.b == Prec::kDouble || s.d == Prec::kDouble);
}

double binary_error_rate(const TensorView& bench, const TensorView& device) {
  check_pair(bench, device);
  const int64_t n = device.numel();
  if (n == 0) return 0.0;
  // Integers and bool compare exactly as int64; anything with a float side compares as double
  // (exact for every supported dtype, so the same as numpy's promoted comparison).
  const bool ints = !dtype_is_floating(bench.dtype) && !dtype_is_floating(device.dtype) &&
                    !dtype_is_complex(bench.dtype) && !dtype_is_complex(device.dtype);
  Reader rb(bench), rd(device);
  int64_t neq = 0;
  if (ints) {
    std::vector<int64_t> bb(kBlock), db(kBlock);
    for (int64_t off = 0; off < n; off += kBlock) {
      const int64_t k = std::min(kBlock, n - off);
      rb.read(k, bb.data());
      rd.read(k, db.data());
      for (int64_t i = 0; i < k; ++i) neq += bb[i] != db[i];
    }
  } else {
    std::vector<double> bb(kBlock), db(kBlock);
    for (int64_t off = 0; off < n; off += kBlock) {
      const int64_t k = std::min(kBlock, n - off);
      rb.read(k, bb.data());
      rd.read(k, db.data());
      for (int64_t i = 0; i < k; ++i) neq += bb[i] != db[i];
    }
  }
  return (double)neq / (double)n;
}

int64_t count_zeros(const TensorView& t) {
  const int64_t n = t.numel();
  if (n > 0 && t.data == nullptr) throw InvalidInput("count_zeros: the tensor has no readable storage");
  Reader r(t);
  std::vector<double> buf(kBlock);
  int64_t zeros = 0;
  for (int64_t off = 0; off < n; off += kBlock) {
    const int64_t k = std::min(kBlock, n - off);
    r.read(k, buf.data());
    for (int64_t i = 0; i < k; ++i) zeros += buf[i] == 0.0;
  }
  return zeros;
}

}  // namespace check
}  // namespace msprobe
