// The monitor's statistics in one pass: the tensor is read in blocks (float32 in place, other
// dtypes converted to float or double) that stay in the L1 cache, with independent lanes so the
// block loop vectorises. Float tensors sum in float over short runs (kRows elements a lane), then
// in double: half the work of converting every element, and within a few float ulps. Where float
// squares could have overflowed or underflowed, the tensor is summed again in double.
// A call's tensors are cut into fixed pieces; when there is enough to read, pieces go to pooled
// threads too (parallel_for): in training the gradients come from L3 or memory, which one core
// cannot drain as fast as two.
#include "msprobe/monitor/monitor_stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/base/parallel_for.h"
#include "msprobe/tensor/element_reader.h"
#include "msprobe/tensor/half.h"

namespace msprobe {
namespace monitor {
namespace {

constexpr int64_t kBlock = 2048;
constexpr int kLanes = 16;
constexpr int kRows = 8;  // elements a lane sums in T before the sum goes to double
// A tensor is read in pieces of this many elements, each pass merged in order: fixed, so the
// sums are the same however many threads read the pieces.
constexpr int64_t kPiece = 1 << 16;
// Below this many elements in one call the pieces are read on the calling thread alone: waking a
// worker costs more than it saves (in the monitor's gradient hooks a sleeping worker took about as
// long to join a 262144-element call as the call takes alone).
constexpr int64_t kParallelElements = 1 << 20;

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

// A pass's lanes, in double (a float min or max converts exactly), to merge passes over the
// pieces of a tensor.
struct Partial {
  double mx[kLanes], mn[kLanes], s[kLanes], q[kLanes];
  int64_t nan = 0, zeros = 0;
};

template <typename T, bool kCounts>
void export_pass(const Pass<T, kCounts>& p, Partial& out) {
  for (int k = 0; k < kLanes; ++k) {
    out.mx[k] = (double)p.mx[k];
    out.mn[k] = (double)p.mn[k];
    out.s[k] = p.s[k];
    out.q[k] = p.q[k];
  }
  out.nan = p.nan;
  out.zeros = p.zeros;
}

// One pass over elements [begin, end) of a contiguous tensor, or (end < 0) over every run of a
// strided one.
template <typename T, bool kCounts>
void run_piece(const TensorView& t, double eps, int64_t begin, int64_t end, Partial& out) {
  Pass<T, kCounts> p((T)eps_in(t.dtype, eps));
  T buf[kBlock];
  const size_t es = dtype_size(t.dtype);
  auto over = [&](const void* ptr, int64_t count) {
    const char* src = static_cast<const char*>(ptr);
    for (int64_t off = 0; off < count; off += kBlock) {
      const int64_t m = std::min(kBlock, count - off);
      if (t.dtype == DType::kFloat32 && std::is_same<T, float>::value) {
        p.block(reinterpret_cast<const T*>(src + (size_t)off * es), m);  // read in place
      } else {
        convert_run<T>(src + (size_t)off * es, t.dtype, m, buf);
        p.block(buf, m);
      }
    }
  };
  if (end < 0) {
    t.for_each_run(over);
  } else {
    over(static_cast<const char*>(t.data) + (size_t)begin * es, end - begin);
  }
  export_pass(p, out);
}

void run_piece(const TensorView& t, double eps, bool counts, bool in_double, int64_t begin, int64_t end,
               Partial& out) {
  if (in_double) {
    counts ? run_piece<double, true>(t, eps, begin, end, out)
           : run_piece<double, false>(t, eps, begin, end, out);
  } else {
    counts ? run_piece<float, true>(t, eps, begin, end, out)
           : run_piece<float, false>(t, eps, begin, end, out);
  }
}

// Pieces are merged lane by lane in tensor order, so the sums do not depend on which thread
// read which piece.
void merge(Partial& into, const Partial& p) {
  for (int k = 0; k < kLanes; ++k) {
    into.mx[k] = p.mx[k] > into.mx[k] ? p.mx[k] : into.mx[k];
    into.mn[k] = p.mn[k] < into.mn[k] ? p.mn[k] : into.mn[k];
    into.s[k] += p.s[k];
    into.q[k] += p.q[k];
  }
  into.nan += p.nan;
  into.zeros += p.zeros;
}

// The statistics of a merged pass; false when float sums of squares cannot be trusted (the
// tensor is read again in double).
bool finish(const Partial& p, int64_t n, bool counts, bool in_double, MonitorStats& out) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  double mx = p.mx[0], mn = p.mn[0], s = 0, q = 0;
  for (int k = 0; k < kLanes; ++k) {
    mx = p.mx[k] > mx ? p.mx[k] : mx;
    mn = p.mn[k] < mn ? p.mn[k] : mn;
    s += p.s[k];
    q += p.q[k];
  }
  if (!in_double && !float_squares_hold(q, mn, mx, n)) return false;
  const bool any_nan = counts ? p.nan > 0 : std::isnan(q);
  out.max = any_nan ? nan : mx;
  out.min = any_nan ? nan : mn;
  out.mean = s / (double)n;
  out.norm = std::sqrt(q);
  out.zeros = (double)((float)p.zeros / (float)n);
  out.nans = (double)p.nan;
  out.id = n == 1 ? s : nan;
  return true;
}

bool float_family(DType d) { return d == DType::kFloat32 || d == DType::kFloat16 || d == DType::kBFloat16; }

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

std::vector<MonitorStats> monitor_stats_many(const std::vector<const TensorView*>& tensors, double eps,
                                             bool counts) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<MonitorStats> out(tensors.size());
  struct Piece {
    size_t tensor;
    int64_t begin, end;  // end < 0: every run of a strided tensor
  };
  std::vector<Piece> pieces;
  int64_t elements = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i]) continue;
    const TensorView& t = *tensors[i];
    const int64_t n = t.numel();
    if (n == 0) {
      out[i].min = out[i].max = out[i].norm = out[i].zeros = out[i].mean = out[i].id = nan;
      continue;
    }
    elements += n;
    if (!t.is_contiguous()) {
      pieces.push_back({i, 0, -1});
      continue;
    }
    for (int64_t b = 0; b < n; b += kPiece) pieces.push_back({i, b, std::min(n, b + kPiece)});
  }
  std::vector<Partial> partial(pieces.size());
  auto read = [&](int64_t k) {
    const Piece& pc = pieces[(size_t)k];
    const TensorView& t = *tensors[pc.tensor];
    run_piece(t, eps, counts, !float_family(t.dtype), pc.begin, pc.end, partial[(size_t)k]);
  };
  if (elements >= kParallelElements) {
    parallel_for((int64_t)pieces.size(), read);
  } else {
    for (size_t k = 0; k < pieces.size(); ++k) read((int64_t)k);
  }
  for (size_t k = 0; k < pieces.size();) {
    const size_t i = pieces[k].tensor;
    const TensorView& t = *tensors[i];
    Partial whole = partial[k];
    for (++k; k < pieces.size() && pieces[k].tensor == i; ++k) merge(whole, partial[k]);
    if (finish(whole, t.numel(), counts, !float_family(t.dtype), out[i])) continue;
    // Squares under or over float's range: again in double, in one piece (rare).
    run_piece(t, eps, counts, true, 0, t.is_contiguous() ? t.numel() : -1, whole);
    finish(whole, t.numel(), counts, true, out[i]);
  }
  return out;
}

MonitorStats monitor_stats(const TensorView& t, double eps, bool counts) {
  return monitor_stats_many({&t}, eps, counts)[0];
}

}  // namespace monitor
}  // namespace msprobe
