// One-pass accuracy metrics (accuracy-checker spec §2.1, §2.4): the front.
//
// Both tensors are read block by block in logical order (any strides), converted to the
// storage type of their numpy dtype (fp16 and bf16 values held in float), and one fused loop
// (metrics_kernel.h; an AVX2 copy in metrics_kernel_avx2.cc) updates every accumulator the
// requested standard needs. This file picks the precisions and parameters, runs the pass and
// turns the accumulator into the metrics.
#include "msprobe/check/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "metrics_kernel.h"
#include "msprobe/base/cpu_features.h"
#include "msprobe/base/error.h"
#include "msprobe/tensor/dtype.h"
#include "msprobe/tensor/element_reader.h"

namespace msprobe {
namespace check {

namespace {

using namespace metrics_kernel;
using numpy::eps_of;
using numpy::max_of;
using numpy::round_to;
using Reader = ElementReader;

Prec prec_of(DType t) {
  switch (t) {
    case DType::kFloat16: return Prec::kHalf;
    case DType::kBFloat16:
    case DType::kFloat32: return Prec::kFloat;
    case DType::kFloat64: return Prec::kDouble;
    default:
      throw InvalidInput(std::string("accuracy metrics need floating-point tensors, got ") +
                         torch_dtype_name(t));
  }
}

// MSPROBE_CHECK_SIMD=0 forces the portable kernel (tests compare both paths).
inline bool simd_available() { return check_simd_enabled(); }

template <Prec B, Prec D, Prec T, unsigned M>
void run_pass(const TensorView& bench, const TensorView& device, DType bench_as, const Params& p, Acc& a) {
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
#ifdef MSPROBE_METRICS_X86
    if constexpr (B != Prec::kHalf && !(D == Prec::kHalf && B == Prec::kDouble)) {
      if (simd) done = kernel_avx2<B, D, T, M>(bp, dp, k, p, a);
    }
#endif
    if (done == 0 && k >= 4) {
      done = k / 4 * 4;
      kernel_portable<B, D, T, M>(bp, dp, done, p, a);
    }
    if (done < k) kernel_portable<B, D, T, M>(bp + done, dp + done, k - done, p, a);
  }
}

template <Prec B, Prec D>
void dispatch_mode(unsigned mode, bool ulp_double, const TensorView& bench, const TensorView& device,
                   DType bench_as, const Params& p, Acc& a) {
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
#define MSPROBE_CASE(BP, DP)          \
  if (b == Prec::BP && d == Prec::DP) \
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

NumKind kind_of(Prec p) {
  switch (p) {
    case Prec::kHalf: return NumKind::kFloat16;
    case Prec::kFloat: return NumKind::kFloat32;
    default: return NumKind::kFloat64;
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
  MSPROBE_CHECK(bench.numel() == device.numel(), InvalidInput,
                "accuracy metrics: bench has " + std::to_string(bench.numel()) + " elements but device has " +
                    std::to_string(device.numel()));
  MSPROBE_CHECK(
      (bench.numel() == 0 || bench.data != nullptr) && (device.numel() == 0 || device.data != nullptr),
      InvalidInput, "accuracy metrics: a tensor has no readable storage");
}

const double kCosEps = 2.220446049250313e-16;  // np.finfo(float).eps

// Cosine from the accumulated sums (see cosine_sim in the spec §2.1).
CosineResult cosine_from(const Acc& a, const TensorView& bench, const TensorView& device, bool any_double) {
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
                       torch_dtype_name(bench.dtype) + " and device " + torch_dtype_name(device.dtype));
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

// #(bench != device), both read as T.
template <typename T>
int64_t count_unequal(const TensorView& bench, const TensorView& device) {
  const int64_t n = device.numel();
  std::vector<T> bb(kBlock), db(kBlock);
  Reader rb(bench), rd(device);
  int64_t neq = 0;
  for (int64_t off = 0; off < n; off += kBlock) {
    const int64_t k = std::min(kBlock, n - off);
    rb.read(k, bb.data());
    rd.read(k, db.data());
    for (int64_t i = 0; i < k; ++i) neq += bb[i] != db[i];
  }
  return neq;
}

}  // namespace

const char* num_kind_name(NumKind k) {
  switch (k) {
    case NumKind::kFloat64: return "float64";
    case NumKind::kFloat32: return "float32";
    case NumKind::kFloat16: return "float16";
    case NumKind::kInt: return "int";
  }
  return "float64";
}

FloatMetrics compute_float_metrics(const TensorView& bench, const TensorView& device, Standard standard) {
  check_pair(bench, device);
  const Setup s = setup_for(bench, device);
  FloatMetrics m;
  m.numel = device.numel();
  m.standard = standard;
  m.new_standard = s.tau == DType::kFloat16 || s.tau == DType::kBFloat16 || s.tau == DType::kFloat32;
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
    case Standard::kBinaryConsistency: m.error_rate = f64(n == 0 ? kNaN : (double)a.neq / (double)n); break;
    case Standard::kThousandth: m.rel_err_thousandth = m.thousandth; break;
    case Standard::kBenchmark: {
      m.small_value_err_ratio = ratio_or_zero(a.n_small_err_bench, a.n_small);
      const int64_t masked = a.n_small + a.n_inf;
      // numpy holds mean(square(e)) in the promoted dtype: rounded to it, as numpy does.
      const double mse = n == 0 ? kNaN : round_to(p, a.sumsq / (double)n);
      m.rmse = f64(std::sqrt(mse * ((double)n / ((double)(n - masked) + 0.0001) + 0.0001)));
      m.max_rel_err = a.cnt_r > 0 && a.max_r >= 0 ? make(round_to(p, a.max_r), pk) : int_num(0);
      m.mean_rel_err = a.cnt_r > 0 ? make(round_to(p, a.sum_r / (double)a.cnt_r), pk) : int_num(0);
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
  const int64_t neq = ints ? count_unequal<int64_t>(bench, device) : count_unequal<double>(bench, device);
  return (double)neq / (double)n;
}

int64_t count_zeros(const TensorView& t) {
  const int64_t n = t.numel();
  MSPROBE_CHECK(n == 0 || t.data != nullptr, InvalidInput, "count_zeros: the tensor has no readable storage");
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
