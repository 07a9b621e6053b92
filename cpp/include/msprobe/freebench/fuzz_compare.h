// free_benchmark's verdicts over an API's original and perturbed outputs (1.2.1's check handler):
// the max ratio |a|/|b| either way with per-dtype thresholds ("npu" comparison), and the
// benchmark errors against a CPU result (to_cpu and the preheat's CPU check).
#pragma once
#include <cstdint>
#include <string>

#include "msprobe/tensor/dtype.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace freebench {

// 1.2.1's relative-error threshold of an output whose first tensor has `dtype`: fp16 1.002,
// bf16 1.004, anything else 1.0002; 1.0 for no_change (the output must not move at all).
double ratio_threshold(DType dtype, bool no_change);
// The floor below which values count as "tiny" in the ratio (1.2.1's abs_tol): per perturbed
// dtype 1e-4 (bf16), 1e-6 (fp16), 1e-8 (fp32 and others), 1e-16 (fp64), square-rooted in the
// forward stage; 1e-3 in the backward stage.
double ratio_floor(DType perturbed_dtype, bool backward);

// The reductions the verdict needs, over the original converted to the perturbed dtype (o) and
// the perturbed output (p), computed in the perturbed dtype's precision as 1.2.1 does:
// min(o*p) and the extremes of max(|o|,floor)/max(|p|,floor) (NaN read as 1, inf as the dtype's
// largest value). Devices compute the same three numbers with framework ops (fuzz_compare on
// the adapter side) and hand them in.
struct RatioStats {
  bool empty = true;  // no elements: consistent, ratio 1
  double min_product = 0;
  double min_ratio = 1, max_ratio = 1;
};
RatioStats ratio_stats(const TensorView& original, const TensorView& perturbed, double floor);

struct RatioVerdict {
  bool consistent = true;
  bool symbol_flipping = false;  // some element changed sign beyond the floor
  double ratio = 1;              // max(|o|/|p|, |p|/|o|) over the elements (>= 1)
};
RatioVerdict judge_ratio(const RatioStats& s, double floor, double threshold);

// MindSpore 1.2.1's measure of one output. With o the original output in the perturbed dtype, p
// the perturbed output and the floor of ratio_floor (forward, in both stages), r1 = where(|p| >
// floor, o/p, 1) and r2 = where(|o| > floor, p/o, 1), computed in the perturbed dtype (bf16 in
// fp32) by MindSpore's kernels on the tensor's device. The adapter reads their extremes as
// float32; the verdict reads inf and NaN as 1, a negative min(r1) as a sign flip (ratio 8.0, as
// 1.2.1 writes), else the ratio is max(max(r1), max(r2)).
struct MsNorms {
  double max_forward = 1, max_backward = 1, min_forward = 1;
};
RatioVerdict judge_ms_norms(const MsNorms& n, double threshold);
// The same extremes over host tensors, in one pass, as MindSpore's CPU kernels compute them:
// the original rounded to the perturbed dtype, each quotient rounded to it (float16; bfloat16 in
// float32), NaN quotients skipped by max and min as MindSpore's are, the results as float32.
MsNorms ms_norms(const TensorView& original, const TensorView& perturbed, double floor);
// Python scalars as 1.2.1 compares them: ints by ==, floats by math.isclose with ratio o/p
// (both shifted by 1e-8 when p is 0).
RatioVerdict judge_float(double original, double perturbed);

// 1.2.1's SingleCompare of an actual (the original output) against a golden (the CPU result), in
// double: inf/NaN in the golden means "not comparable" (consistent); inf/NaN in the actual are
// read as 1 (1.2.1 wrote 1 into the training tensor; we do not touch it).
struct BenchmarkErrors {
  bool golden_overflow = false;
  double abs_err = 0, rel_err = 0, err_balance = 0;
};
BenchmarkErrors benchmark_errors(const TensorView& actual, const TensorView& golden);
// The standard of `actual_dtype` (fp32: 2^-14, fp16: 2^-11, bf16: 2^-8 for both the relative and
// the small-value absolute error, 1e-4 for the error balance; others as fp32).
bool benchmark_consistent(DType actual_dtype, const BenchmarkErrors& e);

}  // namespace freebench
}  // namespace msprobe
