// The fused accuracy-metrics pass shared by its per-ISA copies: the arithmetic of each numpy
// precision, the per-element metrics, the accumulator and the portable kernel. The AVX2 copy is
// metrics_kernel_avx2.cc; the front (metrics.cc) reads the blocks and picks the copy.
//
// Element arithmetic follows numpy's promotion (numpy_precision.h), so masks, counts and
// threshold decisions are those of the original; reductions are summed in double.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "msprobe/tensor/numpy_precision.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define MSPROBE_METRICS_X86 1
// AVX2 + F16C, no FMA: contracted multiply-adds would change the numpy-exact element results.
#define MSPROBE_TARGET_SIMD __attribute__((target("avx2,f16c")))
#endif

namespace msprobe {
namespace check {
namespace metrics_kernel {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kBlock = 2048;

using numpy::Arith;
using numpy::cvt;
using numpy::max_prec;
using numpy::Prec;
template <Prec P>
using S = numpy::Storage<P>;

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
  int64_t n_inf = 0, n_small = 0, n_small_err_bench = 0, n_small_err_abs = 0, n_normal = 0, n_rel_err = 0,
          n_inf_fail = 0, cnt_r = 0;
  double sumsq = 0, max_r = -1, sum_r = 0;
  // ULP
  double max_u = -kInf, sum_u = 0;
  bool nan_u = false;
  int64_t cnt_u = 0;

  // Adds one kernel call's lanes (`count` elements), lane by lane in order: the same summation
  // order for the portable and the AVX2 kernel. Returns how many elements were finite on both
  // sides (below `count`: the caller runs the inf/nan check).
  template <typename LanesT>
  int64_t merge(const LanesT& l, int64_t count) {
    int64_t fl = 0, nfin_total = 0;
    for (int j = 0; j < 4; ++j) {
      sdd += l.sdd[j];
      sbb += l.sbb[j];
      sdb += l.sdb[j];
      maxd = std::max(maxd, (double)l.maxd[j]);
      maxb = std::max(maxb, (double)l.maxb[j]);
      max_e = std::max(max_e, (double)l.maxe[j]);
      fl |= l.flags[j];
      c1 += l.c1[j];
      c2 += l.c2[j];
      c3 += l.c3[j];
      neq += l.neq[j];
      pos += l.pos[j];
      neg += l.neg[j];
      nfin_total += l.nfin[j];
      n_small += l.nsmall[j];
      n_small_err_bench += l.nse_b[j];
      n_small_err_abs += l.nse_a[j];
      n_normal += l.nnorm[j];
      n_rel_err += l.nrel[j];
      cnt_r += l.nnorm[j];
      sumsq += l.sumsq[j];
      sum_r += l.sumr[j];
      max_r = std::max(max_r, (double)l.maxr[j]);
      max_u = std::max(max_u, (double)l.maxu[j]);
      sum_u += l.sumu[j];
      cnt_u += l.cntu[j];
    }
    nan_d |= (fl & 1) != 0;
    nan_b |= (fl & 2) != 0;
    nonfinite |= (fl & 4) != 0;
    nan_e |= (fl & 8) != 0;
    nan_u |= (fl & 16) != 0;
    n += count;
    return nfin_total;
  }
};

enum Mode : unsigned { kCommon = 0, kStd = 1, kUlpMode = 2 };

// Per-lane partial results of one kernel call: lane j holds the elements i with i % 4 == j.
// The portable kernel keeps them in arrays, the AVX2 one in vectors; Acc::merge adds them.
// flags bits: 1 NaN in d, 2 NaN in b, 4 inf/NaN in d or b, 8 NaN in e, 16 NaN ULP error.
constexpr int kLanes = 4;
template <typename Sum, typename MaxD, typename MaxB, typename MaxP, typename MaxT, typename Count>
struct Lanes {
  Sum sdd, sbb, sdb, sumsq, sumr, sumu;
  MaxD maxd;
  MaxB maxb;
  MaxP maxe, maxr;
  MaxT maxu;
  Count c1, c2, c3, neq, pos, neg, nfin, nsmall, nse_b, nse_a, nnorm, nrel, cntu, flags;
};
using LaneD = double[kLanes];
using LaneI = int64_t[kLanes];
using PortableLanes = Lanes<LaneD, LaneD, LaneD, LaneD, LaneD, LaneI>;

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
void kernel_portable(const S<B>* bs, const S<D>* ds, int64_t n, const Params& p, Acc& a) {
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

  // Independent lanes, laid out as in kernel_avx2 (element i in lane i % 4), merged in order,
  // so both kernels give bit-identical sums.
  constexpr int L = kLanes;
  PortableLanes ln{};
  for (int j = 0; j < L; ++j) ln.maxe[j] = ln.maxu[j] = -kInf, ln.maxr[j] = -1;
  auto &sdd = ln.sdd, &sbb = ln.sbb, &sdb = ln.sdb, &sumsq = ln.sumsq, &sumr = ln.sumr, &sumu = ln.sumu,
       &maxd = ln.maxd, &maxb = ln.maxb, &maxe = ln.maxe, &maxr = ln.maxr, &maxu = ln.maxu;
  auto &c1 = ln.c1, &c2 = ln.c2, &c3 = ln.c3, &neq = ln.neq, &pos = ln.pos, &neg = ln.neg, &nfin = ln.nfin,
       &nsmall = ln.nsmall, &nse_b = ln.nse_b, &nse_a = ln.nse_a, &nnorm = ln.nnorm, &nrel = ln.nrel,
       &cntu = ln.cntu, &flags = ln.flags;

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

  const int64_t finite = a.merge(ln, n);
  if ((M & kStd) && finite < n) inf_nan_check<B, D>(bs, ds, n, p, a);
}

#ifdef MSPROBE_METRICS_X86
// The AVX2 copy over the multiple-of-4 prefix of n; returns how many elements it took (0: the
// caller runs kernel_portable). Instantiated in metrics_kernel_avx2.cc for float/double benches.
template <Prec B, Prec D, Prec T, unsigned M>
MSPROBE_TARGET_SIMD int64_t kernel_avx2(const S<B>* bs, const S<D>* ds, int64_t n, const Params& p, Acc& a);
#endif

}  // namespace metrics_kernel
}  // namespace check
}  // namespace msprobe
