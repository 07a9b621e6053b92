// "The API or its inputs?" for a suspect whose tensors both dumps hold: the suspect API is
// replayed in float64 on each run's own dumped inputs (by the caller, with run_ut's replay
// machinery), and the four outputs are set against each other with compare's relative L2 error
// (the measure first divergence judges by):
//   dumped    = NPU dumped output vs bench dumped output      (what compare saw)
//   replayed  = float64 replay on NPU inputs vs on bench inputs (what the inputs' difference
//               alone explains)
//   npu_api   = NPU dumped output vs its own float64 replay   (the NPU kernel's own error)
//   bench_api = bench dumped output vs its own float64 replay
// Verdict: "its inputs" when replayed >= 0.5 x dumped (the replays differ as much as the dumped
// outputs), "the API" when replayed <= 0.1 x dumped (the output error is far beyond what the
// inputs explain), "both" between.
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace compare {

constexpr double kInputsExplainShare = 0.5;
constexpr double kApiExplainShare = 0.1;

struct SuspectReplay {
  std::string verdict;  // "the API", "its inputs", "both"; "" when not replayed
  std::string reason;   // one sentence with the numbers; why not, when not replayed
  double dumped_output_error = std::numeric_limits<double>::quiet_NaN();
  double replayed_output_error = std::numeric_limits<double>::quiet_NaN();
  double npu_api_error = std::numeric_limits<double>::quiet_NaN();
  double bench_api_error = std::numeric_limits<double>::quiet_NaN();
  bool empty() const { return verdict.empty() && reason.empty(); }
};

// The outputs of one call, in order (tensor outputs only). The output whose dumped error is
// largest decides. A verdict needs at least one output with a finite, non-zero dumped error.
SuspectReplay judge_replay(const std::vector<TensorView>& npu_dumped,
                           const std::vector<TensorView>& bench_dumped,
                           const std::vector<TensorView>& npu_replay,
                           const std::vector<TensorView>& bench_replay);

}  // namespace compare
}  // namespace msprobe
