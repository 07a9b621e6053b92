// 1.2.1's MindSpore accuracy checker metrics: one pass, float64.
#include "msprobe/check/ms_checker_metrics.h"

#include <cmath>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/tensor/element_reader.h"

namespace msprobe {
namespace check {

namespace {

// max that propagates NaN, as numpy.max does.
inline double nan_max(double acc, double v) {
  return (std::isnan(v) || v > acc) ? (std::isnan(acc) ? acc : v) : acc;
}

}  // namespace

MsCheckerMetrics ms_checker_metrics(const TensorView& bench, const TensorView& tested) {
  const int64_t n = bench.numel();
  if (n != tested.numel()) {
    throw InvalidInput("ms_checker_metrics: the bench and tested outputs differ in size");
  }
  if (n == 0) throw InvalidInput("zero-size array to reduction operation maximum which has no identity");
  ElementReader rb(bench), rt(tested);
  constexpr int64_t kBlock = 4096;
  std::vector<double> b(kBlock), t(kBlock);
  double dot = 0, bb = 0, tt = 0;
  double max_abs = -INFINITY, max_rel = -INFINITY;
  for (int64_t done = 0; done < n; done += kBlock) {
    const int64_t m = std::min(kBlock, n - done);
    rb.read<double>(m, b.data());
    rt.read<double>(m, t.data());
    for (int64_t i = 0; i < m; ++i) {
      const double x = b[i], y = t[i];
      dot += x * y;
      bb += x * x;
      tt += y * y;
      const double d = std::fabs(x - y);
      max_abs = nan_max(max_abs, d);
      max_rel = nan_max(max_rel, d / (std::fabs(x) + (x == 0 ? kMsEpsilon : 0.0)));
    }
  }
  MsCheckerMetrics m;
  m.cosine = (kMsEpsilon + dot) / (kMsEpsilon + std::sqrt(bb) * std::sqrt(tt));
  m.max_abs_err = max_abs;
  m.max_rel_err = max_rel;
  m.cosine_pass = m.cosine > kMsCosineThreshold;
  m.max_abs_pass = m.max_abs_err < kMsMaxAbsErrThreshold;
  return m;
}

}  // namespace check
}  // namespace msprobe
