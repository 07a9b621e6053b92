// One free_benchmark run's judge: the configured thresholds (or the preheat's), the comparison of
// each output of a perturbed call, and the rows it produces (fuzz_results.h). The adapter perturbs
// and re-runs the API with the framework's ops; everything that decides happens here.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "msprobe/config/dump_config.h"
#include "msprobe/freebench/fuzz_compare.h"
#include "msprobe/freebench/fuzz_results.h"
#include "msprobe/freebench/preheat.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace freebench {

// One output of one call.
struct OutputRef {
  std::string call;  // the call's name as the CSV writes it
  int64_t step = 0;
  int64_t rank = -1;
  int64_t output_index = -1;  // < 0: the output is not a sequence
};

using SourceFn = std::function<SourceLine()>;

class FuzzChecker {
 public:
  FuzzChecker(const FreeBenchmarkConfig& cfg, const std::string& dump_path, Framework framework);

  const FreeBenchmarkConfig& config() const { return cfg_; }
  bool backward_stage() const { return cfg_.fuzz_stage == "backward"; }
  bool preheat_on() const { return cfg_.if_preheat; }
  Preheat& preheat() { return preheat_; }
  FuzzResults& results() { return results_; }

  // The ratio verdict of one output tensor (host memory); writes a row when inconsistent.
  RatioVerdict check_tensor(const OutputRef& o, const TensorView& original, const TensorView& perturbed,
                            const SourceFn& source);
  // The same from the three reductions computed on the device (fuzz_compare.h).
  RatioVerdict check_stats(const OutputRef& o, DType original_dtype, const std::vector<int64_t>& shape,
                           DType perturbed_dtype, const RatioStats& stats, const SourceFn& source);
  // MindSpore: the verdict from the extremes its adapter computed on the device (MsNorms);
  // writes the row (max_rel = ratio - 1, 7.0 for a sign flip, as 1.2.1) when inconsistent.
  RatioVerdict check_ms_norms(const OutputRef& o, DType original_dtype, const std::vector<int64_t>& shape,
                              const MsNorms& norms, const SourceFn& source);
  // MindSpore, host tensors: the same from ms_norms over the two outputs.
  RatioVerdict check_ms_tensor(const OutputRef& o, const TensorView& original, const TensorView& perturbed,
                               const SourceFn& source);
  // The magnitude below which values count as tiny (MindSpore: the forward floor in both stages).
  double floor(DType perturbed_dtype) const;
  // A Python number in an output sequence: ints must be equal, floats math.isclose (ratio o/p);
  // a row (without dtype and shape) when they are not.
  RatioVerdict check_number(const OutputRef& o, double original, double perturbed, bool integer);
  // to_cpu: the SingleCompare of one tensor against its CPU result (no row by itself).
  bool benchmark_tensor(const TensorView& original, const TensorView& cpu, BenchmarkErrors* errors);
  // to_cpu: the call's one row when some output disagreed with its CPU result. `worst` is the
  // errors of the tensor that failed (may be null); dtype and shape those of the output when it
  // is one tensor.
  void add_benchmark_row(const OutputRef& o, const TensorView* original, const BenchmarkErrors* worst,
                         const SourceFn& source);
  // The dtype's threshold for this call's api (preheat: the learned one).
  double threshold(const std::string& call, DType dtype);

  std::string dtype_text(DType t) const;
  std::string shape_text(const std::vector<int64_t>& shape) const;

 private:
  RatioVerdict judge(const OutputRef& o, DType original_dtype, const std::vector<int64_t>& shape,
                     DType perturbed_dtype, const RatioStats& stats, const SourceFn& source);
  FuzzRow base_row(const OutputRef& o) const;
  // The row of an inconsistent ratio verdict (ranked by how far beyond thd - 1 it went).
  void add_ratio_row(const OutputRef& o, DType original_dtype, const std::vector<int64_t>& shape,
                     const RatioVerdict& v, double threshold, double flip_value, double flip_limit,
                     const std::string& flip_text, const SourceFn& source);

  FreeBenchmarkConfig cfg_;
  Framework framework_;
  Preheat preheat_;
  FuzzResults results_;
};

}  // namespace freebench
}  // namespace msprobe
