// Precision standards of the accuracy checker (msprobe 1.2.1): which standard judges an API, the
// per-dtype constants every metric and verdict uses, and the status strings.
// Reference: accuracy-checker spec §2.2 (API lists), §2.3 (constants), §5.3 (thresholds).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "msprobe/tensor/dtype.h"

namespace msprobe {
namespace check {

enum class Standard : uint8_t {
  kBenchmark,          // 标杆比对法: everything not listed below
  kAbsoluteThreshold,  // 绝对阈值法
  kBinaryConsistency,  // 二进制一致法
  kUlp,                // ULP误差比对法
  kThousandth,         // 双千指标法
  kAccumulativeError,  // 累积误差比对法 (placeholder list: only "test_api")
};

// "benchmark", "absolute_threshold", "binary_consistency", "ulp_compare",
// "thousandth_threshold", "accumulative_error_compare" (the original's CompareConst keys).
const char* standard_key(Standard s);
// The Chinese algorithm label written in the 比对算法 column.
const char* standard_label(Standard s);
// The standard of a key above; throws InvalidInput naming the allowed keys.
Standard standard_from_key(std::string_view key);

// run_ut: the standard of an API, by its short name ("matmul", "conv2d", "__mul__"), from the
// name lists only. Unknown names use kBenchmark.
Standard standard_for_api(std::string_view short_name);
// api_precision_compare: a DEVICE Dtype outside {fp16, bf16, fp32, fp64, complex64,
// complex128} (ints, bool, "<class 'int'>") selects kBinaryConsistency whatever the name;
// otherwise standard_for_api(short_name).
Standard standard_for_precision_row(std::string_view short_name, std::string_view device_dtype);

// Per-dtype constants (spec §2.3). Dtypes other than fp16/bf16/fp32 get the "default" column.
struct DtypeThresholds {
  double small_value;                // |bench| <= this is a small value (benchmark, absolute)
  double small_value_atol_abs;       // small-value abs-error tolerance, absolute-threshold standard
  double small_value_atol_bench;     // small-value abs-error tolerance, benchmark standard
  double rtol;                       // absolute-threshold relative tolerance
  double accumulative_bound;         // accumulative-error rtol and atol
  double minimum_err;                // api_precision_compare ratio denominator floor
  double accumulative_eb_threshold;  // api_precision_compare accumulative EB bound
};
const DtypeThresholds& thresholds_for(DType device_dtype);
// Same, keyed by the torch name written in DEVICE Dtype ("torch.float16"...).
const DtypeThresholds& thresholds_for_name(std::string_view torch_dtype_name);

// ULP parameters: minimum exponent, mantissa bits, and the error threshold T of 占比.
struct UlpParams {
  int min_exponent;
  int mantissa_bits;
  double error_threshold;
};
// fp16 (-14, 10, 1), bf16 (-126, 7, 1), fp32 (-126, 23, 32); other dtypes: nullptr.
const UlpParams* ulp_params_for(DType device_dtype);
// Same, by any dtype name dtype_from_name reads; nullptr for other dtypes and unknown names.
const UlpParams* ulp_params_for_name(const std::string& dtype_name);

// Accumulative-error standard: the small-value threshold is 1 for every dtype.
constexpr double kAccumulativeSmallValue = 1.0;

// api_precision_compare benchmark ratio error thresholds (ratio > threshold -> error).
constexpr double kSmallValueErrRatioThreshold = 2.0;
constexpr double kRmseRatioThreshold = 2.0;
constexpr double kMaxRelErrRatioThreshold = 10.0;
constexpr double kMeanRelErrRatioThreshold = 2.0;
constexpr double kEbRatioThreshold = 2.0;
// api_precision_compare ULP rules.
constexpr double kUlpFp32MeanErrThreshold = 64.0;
constexpr double kUlpFp32ProportionThreshold = 0.05;
constexpr double kUlpFp16ProportionThreshold = 0.001;
constexpr double kUlpProportionRatioThreshold = 1.0;
// api_precision_compare 双千: pass iff >= this (the 1.2.1 code; its doc says ">").
constexpr double kThousandthPassValue = 0.999;

// Verdicts, written exactly as the original: "pass", "Warning", "error", "SKIP", " ".
enum class Status : uint8_t { kPass, kWarning, kError, kSkip, kBlank };
const char* status_text(Status s);
// The status of one of those strings; throws InvalidInput naming the allowed ones.
Status status_from_text(std::string_view text);

}  // namespace check
}  // namespace msprobe
