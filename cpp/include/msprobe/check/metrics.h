// Accuracy metrics of one output tensor against its bench (accuracy-checker spec §2.1, §2.4):
// cosine similarity, max absolute error, 双百/双千/双万 indicators, and the metrics of each
// precision standard (benchmark, absolute threshold, ULP, binary consistency, 双千,
// accumulative error).
//
// One pass over the two tensors (a second one only for a float64 cosine whose unscaled sums
// overflow), counts in int64, sums in double. Element-wise arithmetic is done in the precision
// the original's numpy code used (the promoted dtype of bench and device, fp16 emulated by
// rounding every step), so every count and threshold decision matches it bit for bit; only the
// sums are more accurate (double instead of numpy's pairwise float32 accumulation).
//
// Dtype rules (1.2.1): when the device output is bf16 both sides are taken as float32 (bench
// rounded from float64 if needed) and ε = 2^-8; otherwise each side keeps its dtype and ε is
// the machine epsilon of the bench dtype. A bf16 bench with a non-bf16 device is read as
// float32.
#pragma once
#include <cstdint>
#include <string>

#include "msprobe/check/standards.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace check {

// A metric value together with the numpy/Python type the original held it in, because that
// decides how it is written to the details CSV (see format_metric in number_format.h):
// kFloat64 -> "{:.14f}", kFloat32 / kFloat16 -> numpy's shortest repr, kInt -> "0" / "1".
enum class NumKind : uint8_t { kFloat64, kFloat32, kFloat16, kInt };
// "float64", "float32", "float16", "int".
const char* num_kind_name(NumKind k);
struct Num {
  double value = 0.0;
  NumKind kind = NumKind::kFloat64;
  bool set = false;  // false: the metric was not computed (the cell stays " ")
};

struct CosineResult {
  bool has_value = false;  // false: the cell is " " (scalar or all-zero data)
  double value = 0.0;      // clipped to [-1, 1]; NaN when the data holds inf or NaN
  bool pass = false;       // value > 0.99, or the all-zero / scalar rules
  std::string message;     // "" or one of the original's messages (no trailing newline)
};

struct FloatMetrics {
  int64_t numel = 0;
  Standard standard = Standard::kBenchmark;
  bool new_standard = false;  // the device dtype is fp16/bf16/fp32: standard metrics computed

  CosineResult cosine;
  Num max_abs_err;     // max |d - b| in the promoted dtype (NaN if any NaN)
  Num hundredth;       // 双百 R(0.01) = #(r < 0.01) / N
  Num thousandth;      // 双千 R(0.001)
  Num ten_thousandth;  // 双万 R(0.0001)

  // Standard columns; only those of `standard` are set (and only when new_standard).
  Num error_rate;             // binary: #(b != d) / N
  Num eb;                     // benchmark / accumulative: |#(d>b) - #(d<b)| / N
  Num rmse;                   // benchmark
  Num small_value_err_ratio;  // benchmark
  Num max_rel_err;            // benchmark
  Num mean_rel_err;           // benchmark
  Num inf_nan_error_ratio;    // absolute threshold / accumulative
  Num rel_err_ratio;          // absolute threshold / accumulative
  Num abs_err_ratio;          // absolute threshold / accumulative
  Num max_ulp_err;            // ULP
  Num mean_ulp_err;           // ULP
  Num ulp_err_proportion;     // ULP
  Num rel_err_thousandth;     // 双千 standard (same number as `thousandth`)
};

// Metrics of a float output pair (shapes must have equal element counts; both float dtypes).
// `standard` selects the standard columns; they are computed only when the device dtype is
// fp16, bf16 or fp32 (as run_ut does). Throws InvalidInput on non-float or mismatched input.
FloatMetrics compute_float_metrics(const TensorView& bench, const TensorView& device, Standard standard);

// Cosine similarity alone (the original's cosine_sim).
CosineResult cosine_similarity(const TensorView& bench, const TensorView& device);

// #(b != d) / N for any dtypes (ints, bool, floats; NaN != NaN). 0 elements: 0.
double binary_error_rate(const TensorView& bench, const TensorView& device);

// Number of elements equal to zero (for the dropout check).
int64_t count_zeros(const TensorView& t);

}  // namespace check
}  // namespace msprobe
