// The replay verdict of a suspect (see replay_verdict.h).
#include "msprobe/compare/replay_verdict.h"

#include <algorithm>
#include <cmath>

#include "compare/metrics/tensor_metrics.h"
#include "msprobe/base/strings.h"

namespace msprobe {
namespace compare {
namespace {

double rel_l2(const TensorView& a, const TensorView& b) {
  if (a.shape != b.shape) return std::numeric_limits<double>::quiet_NaN();
  return compare_tensor_data(a, b).relative_l2_error;
}

}  // namespace

SuspectReplay judge_replay(const std::vector<TensorView>& npu_dumped,
                           const std::vector<TensorView>& bench_dumped,
                           const std::vector<TensorView>& npu_replay,
                           const std::vector<TensorView>& bench_replay) {
  SuspectReplay r;
  const size_t n = std::min({npu_dumped.size(), bench_dumped.size(), npu_replay.size(), bench_replay.size()});
  double best = -1;
  for (size_t i = 0; i < n; ++i) {
    const double dumped = rel_l2(npu_dumped[i], bench_dumped[i]);
    if (!std::isfinite(dumped) || dumped <= best) continue;
    best = dumped;
    r.dumped_output_error = dumped;
    r.replayed_output_error = rel_l2(npu_replay[i], bench_replay[i]);
    r.npu_api_error = rel_l2(npu_dumped[i], npu_replay[i]);
    r.bench_api_error = rel_l2(bench_dumped[i], bench_replay[i]);
  }
  if (!(best > 0)) {
    r.reason = "not judged: no output whose dumped tensors differ by a finite amount";
    return r;
  }
  const double share = r.replayed_output_error / r.dumped_output_error;
  if (!std::isfinite(share)) {
    r.reason = "not judged: the float64 replays cannot be compared (shape or inf/nan positions differ)";
    return r;
  }
  const std::string numbers =
      "the float64 replays on each run's own inputs differ by " + short_number(r.replayed_output_error) +
      ", the dumped outputs by " + short_number(r.dumped_output_error) + " (NPU output vs its own replay " +
      short_number(r.npu_api_error) + ", bench " + short_number(r.bench_api_error) + ")";
  if (share >= kInputsExplainShare) {
    r.verdict = "its inputs";
    r.reason = numbers + ": its inputs' difference explains the output error";
  } else if (share <= kApiExplainShare) {
    r.verdict = "the API";
    r.reason = numbers + ": the output error is far beyond what its inputs' difference explains";
  } else {
    r.verdict = "both";
    r.reason = numbers + ": its inputs explain part of the output error, the API the rest";
  }
  return r;
}

}  // namespace compare
}  // namespace msprobe
