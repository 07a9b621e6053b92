// Tensor-mode metrics of 1.2.1's compare (see tensor_metrics.h).
#include "tensor_metrics.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "msprobe/check/number_format.h"
#include "msprobe/compare/compare_const.h"
#include "msprobe/tensor/element_reader.h"
#include "msprobe/tensor/numpy_precision.h"

namespace msprobe {
namespace compare {

namespace {

constexpr double kFloatEps = 2.220446049250313e-16;  // np.finfo(float).eps
constexpr double kThousandth = 0.001;
constexpr double kFiveThousandths = 0.005;
constexpr double kCosineRoundAbove = 0.9999;
constexpr int64_t kBlock = 2048;

using numpy::max_prec;
using numpy::Prec;
using numpy::round_to;

// x + finfo(float64).eps computed in precision P (numpy casts the scalar to the array's dtype).
template <Prec P>
inline double add_eps(double x) {
  if constexpr (P == Prec::kHalf) return x;  // eps rounds to 0 in float16
  if constexpr (P == Prec::kFloat) return (double)((float)x + (float)kFloatEps);
  return x + kFloatEps;
}

DType effective(DType t) { return t == DType::kBFloat16 ? DType::kFloat32 : t; }

bool is_float(DType t) { return t == DType::kFloat16 || t == DType::kFloat32 || t == DType::kFloat64; }

Prec prec_of_float(DType t) {
  return t == DType::kFloat16 ? Prec::kHalf : t == DType::kFloat32 ? Prec::kFloat : Prec::kDouble;
}

// Rank of a non-float dtype in numpy's promotion with a float dtype.
Prec promotion_rank(DType t) {
  switch (t) {
    case DType::kBool:
    case DType::kInt8:
    case DType::kUInt8: return Prec::kHalf;
    case DType::kInt16: return Prec::kFloat;
    default: return Prec::kDouble;
  }
}

// The precisions of get_relative_err: NE / BE for the eps added where bench is 0, PP for the
// subtraction and division.
struct RelPrecisions {
  Prec ne, be, pp;
};

RelPrecisions rel_precisions(DType n, DType b) {
  if (!is_float(b)) return {Prec::kDouble, Prec::kDouble, Prec::kDouble};  // both astype(float)
  const Prec bp = prec_of_float(b);
  if (!is_float(n)) {
    const Prec pp = max_prec(promotion_rank(n), bp);
    return {pp, bp, pp};
  }
  const Prec np = prec_of_float(n);
  return {np, bp, max_prec(np, bp)};
}

enum class Cls : uint8_t { kFinite, kInf, kNan };
inline Cls classify(double x) {
  if (std::isnan(x)) return Cls::kNan;
  if (std::isinf(x)) return Cls::kInf;
  return Cls::kFinite;
}

struct Acc {
  bool mismatch = false;  // inf/NaN positions differ
  double dot = 0, nn = 0, bb = 0;
  double dd = 0;  // sum of squared differences (first divergence's relative L2 error)
  double max_abs = 0;
  double max_rel = 0;
  bool rel_nan = false;
  int64_t c1 = 0, c5 = 0;
};

// The element work shared by both loops: float64 sums and MaxAbsErr, the relative error in
// numpy's precisions (eps added to both sides where bench is 0), its maximum and threshold counts.
struct Lanes {
  double dot[4] = {0, 0, 0, 0}, nn[4] = {0, 0, 0, 0}, bb[4] = {0, 0, 0, 0}, dd[4] = {0, 0, 0, 0};
  double max_abs = 0, max_rel = 0;
  bool rel_nan = false;
  int64_t c1 = 0, c5 = 0;
};

template <Prec NE, Prec BE, Prec PP>
inline void element(double n, double b, int lane, double thr1, double thr5, Lanes& l) {
  l.dot[lane] += n * b;
  l.nn[lane] += n * n;
  l.bb[lane] += b * b;
  const double d = std::fabs(n - b);
  l.dd[lane] += d * d;
  l.max_abs = d > l.max_abs ? d : l.max_abs;
  const bool zero = b == 0;
  const double bc = zero ? add_eps<BE>(b) : b;
  const double nc = zero ? add_eps<NE>(n) : n;
  const double r = std::fabs(round_to<PP>(round_to<PP>(nc - bc) / bc));
  l.rel_nan |= r != r;
  l.max_rel = r > l.max_rel ? r : l.max_rel;  // a NaN never replaces the maximum
  l.c1 += r < thr1;
  l.c5 += r < thr5;
}

// One block of the fused pass; returns false on an inf/NaN position mismatch.
template <Prec NE, Prec BE, Prec PP>
bool block_pass(const double* nv, const double* bv, int64_t k, double thr1, double thr5, Acc& a) {
  Lanes l;
  l.max_abs = a.max_abs;
  l.max_rel = a.max_rel;
  l.rel_nan = a.rel_nan;
  bool finite = true;  // x - x is NaN exactly for inf and NaN
  for (int64_t i = 0; i < k; ++i) finite &= (nv[i] - nv[i] == 0) & (bv[i] - bv[i] == 0);
  if (finite) {
    int64_t i = 0;
    for (; i + 4 <= k; i += 4)
      for (int j = 0; j < 4; ++j) element<NE, BE, PP>(nv[i + j], bv[i + j], j, thr1, thr5, l);
    for (; i < k; ++i) element<NE, BE, PP>(nv[i], bv[i], (int)(i & 3), thr1, thr5, l);
  } else {
    for (int64_t i = 0; i < k; ++i) {
      double n = nv[i], b = bv[i];
      const Cls cn = classify(n), cb = classify(b);
      if (cn != cb) return false;
      if (cn != Cls::kFinite) n = b = 0.0;
      element<NE, BE, PP>(n, b, (int)(i & 3), thr1, thr5, l);
    }
  }
  a.dot += (l.dot[0] + l.dot[1]) + (l.dot[2] + l.dot[3]);
  a.nn += (l.nn[0] + l.nn[1]) + (l.nn[2] + l.nn[3]);
  a.bb += (l.bb[0] + l.bb[1]) + (l.bb[2] + l.bb[3]);
  a.dd += (l.dd[0] + l.dd[1]) + (l.dd[2] + l.dd[3]);
  a.max_abs = l.max_abs;
  a.max_rel = l.max_rel;
  a.rel_nan = l.rel_nan;
  a.c1 += l.c1;
  a.c5 += l.c5;
  return true;
}

using BlockFn = bool (*)(const double*, const double*, int64_t, double, double, Acc&);

template <Prec NE, Prec BE>
BlockFn pick3(Prec pp) {
  switch (pp) {
    case Prec::kHalf: return &block_pass<NE, BE, Prec::kHalf>;
    case Prec::kFloat: return &block_pass<NE, BE, Prec::kFloat>;
    default: return &block_pass<NE, BE, Prec::kDouble>;
  }
}
template <Prec NE>
BlockFn pick2(Prec be, Prec pp) {
  switch (be) {
    case Prec::kHalf: return pick3<NE, Prec::kHalf>(pp);
    case Prec::kFloat: return pick3<NE, Prec::kFloat>(pp);
    default: return pick3<NE, Prec::kDouble>(pp);
  }
}
BlockFn pick(const RelPrecisions& p) {
  switch (p.ne) {
    case Prec::kHalf: return pick2<Prec::kHalf>(p.be, p.pp);
    case Prec::kFloat: return pick2<Prec::kFloat>(p.be, p.pp);
    default: return pick2<Prec::kDouble>(p.be, p.pp);
  }
}

double add_eps_in(Prec p, double x) {
  switch (p) {
    case Prec::kHalf: return add_eps<Prec::kHalf>(x);
    case Prec::kFloat: return add_eps<Prec::kFloat>(x);
    default: return add_eps<Prec::kDouble>(x);
  }
}

Cell metric(double v) { return Cell::num(format_value(v)); }

const char* kMsg0d =
    "This is type of 0-d tensor, can not calculate 'Cosine', 'One Thousandth Err Ratio' and "
    "'Five Thousandths Err Ratio'. ";
const char* kMsgMaxAbsNan = "Cannot compare by MaxAbsError, the data contains nan/inf/-inf in dump data.";
const char* kMsgMaxRelNan =
    "Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data.";

TensorMetrics all_cells(const Cell& c, const std::string& msg) {
  TensorMetrics m;
  m.cosine = m.max_abs_err = m.max_relative_err = m.one_thousandth = m.five_thousandths = c;
  m.err_msg = msg;
  return m;
}

// numpy's n - b for two 0-d arrays in their promoted dtype, then abs.
double scalar_abs_diff(double n, DType nt, double b, DType bt) {
  if (nt == DType::kBool) nt = bt = DType::kFloat64;  // reshape_value: 0-d bool -> float
  const bool n_int = dtype_is_integer(nt) || nt == DType::kBool;
  const bool b_int = dtype_is_integer(bt) || bt == DType::kBool;
  if (n_int && b_int) {
    int64_t d = (int64_t)n - (int64_t)b;
    if (nt == bt) {  // wraps in the common integer type, as does abs()
      switch (nt) {
        case DType::kInt8: {
          int8_t v = (int8_t)d;
          v = (int8_t)(v < 0 ? -v : v);
          return v;
        }
        case DType::kUInt8: return (double)(uint8_t)d;
        case DType::kInt16: {
          int16_t v = (int16_t)d;
          v = (int16_t)(v < 0 ? -v : v);
          return v;
        }
        case DType::kInt32: {
          int32_t v = (int32_t)d;
          v = (int32_t)(v < 0 ? -(int64_t)v : v);
          return v;
        }
        default: break;
      }
    }
    return (double)(d < 0 ? -d : d);
  }
  Prec p = Prec::kDouble;
  if (is_float(nt) && is_float(bt)) {
    p = max_prec(prec_of_float(nt), prec_of_float(bt));
  } else if (is_float(bt)) {
    p = max_prec(promotion_rank(nt), prec_of_float(bt));
  } else if (is_float(nt)) {
    p = max_prec(promotion_rank(bt), prec_of_float(nt));
  }
  return std::fabs(round_to(p, n - b));
}

// The 0-d NPU tensor path: no inf/NaN handling, no shape check; MaxAbsErr and MaxRelativeErr
// only (the bench broadcasts against the scalar).
TensorMetrics compare_scalar(const TensorView& npu, DType nt, const TensorView& bench, DType bt) {
  TensorMetrics m;
  m.err_msg = kMsg0d;
  double n = 0;
  ElementReader(npu).read(1, &n);
  const int64_t count = bench.numel();
  std::vector<double> bv((size_t)count);
  ElementReader(bench).read(count, bv.data());
  const RelPrecisions rp = rel_precisions(nt, bt);
  double max_abs = -std::numeric_limits<double>::infinity(), max_rel = max_abs;
  bool abs_nan = false, rel_nan = false;
  for (double b : bv) {
    const double d = scalar_abs_diff(n, nt, b, bt);
    if (d != d)
      abs_nan = true;
    else if (d > max_abs)
      max_abs = d;
    double nc = n, bc = b;
    if (b == 0) {
      bc = add_eps_in(rp.be, b);
      nc = add_eps_in(rp.ne, n);
    }
    const double r = std::fabs(round_to(rp.pp, round_to(rp.pp, nc - bc) / bc));
    if (r != r)
      rel_nan = true;
    else if (r > max_rel)
      max_rel = r;
  }
  m.cosine = Cell::str(k::kUnsupported);
  if (abs_nan || count == 0) {
    m.max_abs_err = Cell::str(k::kNan);
    m.err_msg += kMsgMaxAbsNan;
  } else {
    m.max_abs_err = metric(max_abs);
  }
  if (rel_nan || count == 0) {
    m.max_relative_err = Cell::str(k::kNan);
    m.err_msg += kMsgMaxRelNan;
  } else {
    m.max_relative_err = metric(max_rel);
  }
  m.one_thousandth = m.five_thousandths = Cell::str(k::kUnsupported);
  return m;
}

}  // namespace

double format_value(double v) {
  if (std::isnan(v) || std::isinf(v)) return v;
  std::vector<char> buf(400);
  const int n = std::snprintf(buf.data(), buf.size(), "%.12f", v);
  if (n >= (int)buf.size()) {
    buf.resize((size_t)n + 1);
    std::snprintf(buf.data(), buf.size(), "%.12f", v);
  }
  return std::strtod(buf.data(), nullptr);
}

double py_round(double v, int ndigits) {
  if (std::isnan(v) || std::isinf(v)) return v;
  std::vector<char> buf(400);
  const int n = std::snprintf(buf.data(), buf.size(), "%.*f", ndigits, v);
  if (n >= (int)buf.size()) {
    buf.resize((size_t)n + 1);
    std::snprintf(buf.data(), buf.size(), "%.*f", ndigits, v);
  }
  return std::strtod(buf.data(), nullptr);
}

std::string file_not_found_msg(const std::string& data_name) {
  return "Dump file: " + data_name + " not found.";
}

TensorMetrics unreadable_metrics(const std::string& err_msg) {
  return all_cells(Cell::str(k::kUnsupported), err_msg);
}

TensorMetrics compare_tensor_data(const TensorView& npu, const TensorView& bench) {
  const DType nt = effective(npu.dtype), bt = effective(bench.dtype);
  const int64_t numel = npu.numel();
  if (numel == 0) return all_cells(Cell::integer(0), "This is empty data, can not compare.");
  if (npu.shape.empty()) return compare_scalar(npu, nt, bench, bt);
  if (npu.shape != bench.shape)
    return all_cells(Cell::str(k::kShapeUnmatch), "Shape of NPU and bench tensor do not match. Skipped.");

  const RelPrecisions rp = rel_precisions(nt, bt);
  const BlockFn pass = pick(rp);
  const double thr1 = round_to(rp.pp, kThousandth), thr5 = round_to(rp.pp, kFiveThousandths);
  Acc acc;
  {
    std::vector<double> nb((size_t)std::min<int64_t>(kBlock, numel)), bb(nb.size());
    ElementReader rn(npu), rb(bench);
    for (int64_t off = 0; off < numel; off += kBlock) {
      const int64_t k = std::min(kBlock, numel - off);
      rn.read(k, nb.data());
      rb.read(k, bb.data());
      if (!pass(nb.data(), bb.data(), k, thr1, thr5, acc)) {
        acc.mismatch = true;
        break;
      }
    }
  }
  if (acc.mismatch) {
    TensorMetrics m =
        all_cells(Cell::str(k::kNA), "The position of inf or nan in NPU and bench Tensor do not match.");
    m.relative_l2_error = std::numeric_limits<double>::infinity();
    return m;
  }

  TensorMetrics m;
  // Over the finite elements (matching inf/NaN positions count as equal).
  m.relative_l2_error = acc.bb > 0   ? std::sqrt(acc.dd / acc.bb)
                        : acc.dd > 0 ? std::numeric_limits<double>::infinity()
                                     : 0.0;
  if (nt != bt) m.err_msg = "Dtype of NPU and bench tensor do not match.";
  // Cosine
  if (numel == 1) {
    m.cosine = Cell::str(k::kUnsupported);
    m.err_msg += "This is a 1-d tensor of length 1.";
  } else {
    const double a_norm = std::sqrt(acc.nn), b_norm = std::sqrt(acc.bb);
    if (a_norm <= kFloatEps && b_norm <= kFloatEps) {
      m.cosine = Cell::num(1.0);
    } else if (a_norm <= kFloatEps) {
      m.cosine = Cell::str(k::kNan);
      m.err_msg += "Cannot compare by Cosine Similarity, All the data is Zero in npu dump data.";
    } else if (b_norm <= kFloatEps) {
      m.cosine = Cell::str(k::kNan);
      m.err_msg += "Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data.";
    } else {
      const double cos = acc.dot / (a_norm * b_norm);
      if (std::isnan(cos)) {
        m.cosine = Cell::str(k::kNan);
        m.err_msg += "Cannot compare by Cosine Similarity, the dump data has NaN.";
      } else {
        double v = format_value(cos);
        if (v > kCosineRoundAbove) v = py_round(v, 6);
        m.cosine = Cell::num(v);
      }
    }
  }
  // MaxAbsErr (no NaN is left after the inf/NaN handling, but an overflow can make one)
  if (std::isnan(acc.max_abs)) {
    m.max_abs_err = Cell::str(k::kNan);
    m.err_msg += kMsgMaxAbsNan;
  } else {
    m.max_abs_err = metric(acc.max_abs);
  }
  if (acc.rel_nan) {
    m.max_relative_err = Cell::str(k::kNan);
    m.err_msg += kMsgMaxRelNan;
  } else {
    m.max_relative_err = metric(acc.max_rel);
  }
  m.one_thousandth = metric((double)acc.c1 / (double)numel);
  m.five_thousandths = metric((double)acc.c5 / (double)numel);
  return m;
}

Cell accuracy_verdict(const Cell& cos, const Cell& max_abs) {
  auto is_str = [](const Cell& c, const char* s) { return c.is_string() && c.s == s; };
  if (is_str(cos, k::kShapeUnmatch)) return Cell::str(k::kUnmatched);
  if (is_str(cos, k::kNone) || is_str(max_abs, k::kNone)) return Cell::str(k::kNone);
  if (is_str(cos, k::kNA) || is_str(max_abs, k::kNA)) return Cell::str(k::kNo);
  // float(): numbers, and strings Python can parse ("Nan" is NaN; "unsupported" is not a float)
  auto to_float = [](const Cell& c, double& out) {
    if (c.is_number() || c.is_bool()) {
      out = c.d;
      return true;
    }
    return c.is_string() && check::parse_python_float(c.s, out);
  };
  double c = 0, m = 0;
  if (!to_float(cos, c) || !to_float(max_abs, m)) return Cell::str(k::kNone);
  if (c < 0.99 && m > 0.001) return Cell::str(k::kNo);
  if (c < 0.9 || m > 1) return Cell::str(k::kNo);
  return Cell::str(k::kYes);
}

}  // namespace compare
}  // namespace msprobe
