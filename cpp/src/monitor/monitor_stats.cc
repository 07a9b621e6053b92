// The monitor's statistics in one pass: the tensor is read in blocks converted to double that stay
// in the L1 cache, with independent lanes so the block loop vectorises.
#include "msprobe/monitor/monitor_stats.h"

#include <cmath>
#include <limits>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/tensor/element_reader.h"

namespace msprobe {
namespace monitor {
namespace {

constexpr int64_t kBlock = 2048;
constexpr int kLanes = 8;

struct Pass {
  double mx[kLanes], mn[kLanes], s[kLanes] = {}, q[kLanes] = {};
  int64_t nan = 0, zeros = 0;
  double eps;
  explicit Pass(double e) : eps(e) {
    for (int k = 0; k < kLanes; ++k) {
      mx[k] = -std::numeric_limits<double>::infinity();
      mn[k] = std::numeric_limits<double>::infinity();
    }
  }
  void block(const double* x, int64_t n) {
    int64_t cn[kLanes] = {}, cz[kLanes] = {};
    for (int64_t i = 0; i < n; ++i) {
      const int k = (int)(i % kLanes);
      const double v = x[i];
      mx[k] = v > mx[k] ? v : mx[k];
      mn[k] = v < mn[k] ? v : mn[k];
      s[k] += v;
      q[k] += v * v;
      cn[k] += (v != v);
      cz[k] += (std::fabs(v) < eps);
    }
    for (int k = 0; k < kLanes; ++k) {
      nan += cn[k];
      zeros += cz[k];
    }
  }
};

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

MonitorStats monitor_stats(const TensorView& t, double eps) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  MonitorStats out;
  const int64_t n = t.numel();
  if (n == 0) {
    out.min = out.max = out.norm = out.zeros = out.mean = out.id = nan;
    return out;
  }
  Pass p(eps);
  std::vector<double> buf(kBlock);
  t.for_each_run([&](const void* ptr, int64_t count) {
    const char* src = static_cast<const char*>(ptr);
    const size_t es = dtype_size(t.dtype);
    for (int64_t off = 0; off < count; off += kBlock) {
      const int64_t m = std::min(kBlock, count - off);
      convert_run<double>(src + (size_t)off * es, t.dtype, m, buf.data());
      p.block(buf.data(), m);
    }
  });
  double mx = p.mx[0], mn = p.mn[0], s = 0, q = 0;
  for (int k = 0; k < kLanes; ++k) {
    mx = p.mx[k] > mx ? p.mx[k] : mx;
    mn = p.mn[k] < mn ? p.mn[k] : mn;
    s += p.s[k];
    q += p.q[k];
  }
  const bool any_nan = p.nan > 0;
  out.max = any_nan ? nan : mx;
  out.min = any_nan ? nan : mn;
  out.mean = s / (double)n;
  out.norm = std::sqrt(q);
  out.zeros = (double)((float)p.zeros / (float)n);
  out.nans = (double)p.nan;
  out.id = n == 1 ? s : nan;
  return out;
}

}  // namespace monitor
}  // namespace msprobe
