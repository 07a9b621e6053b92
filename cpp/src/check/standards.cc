// API -> standard lists and per-dtype constants (accuracy-checker spec §2.2, §2.3).
#include "msprobe/check/standards.h"

#include "msprobe/base/error.h"

#include <string>
#include <unordered_map>

namespace msprobe {
namespace check {

namespace {

// The 1.2.1 api_precision_standard.yaml lists (unchanged through the newest versions), searched
// in this order; the lists are disjoint.
const char* const kAbsoluteApis[] = {
    "mul",        "mul_",        "__mul__", "__imul__",   "__rmul__",    "add",      "add_",   "__add__",
    "__iadd__",   "__radd__",    "div",     "div_",       "__div__",     "__idiv__", "divide", "divide_",
    "leaky_relu", "leaky_relu_", "prelu",   "reciprocal", "reciprocal_", "rsqrt",    "rsqrt_", "square",
    "square_",    "sub",         "sub_",    "rsub",       "__isub__",    "__sub__"};
const char* const kBinaryApis[] = {
    "abs",           "abs_",           "absolute",    "absolute_",   "argmin",       "bitwise_and",
    "bitwise_and_",  "broadcast_to",   "ceil",        "ceil_",       "equal",        "fill_",
    "flatten",       "floor",          "floor_",      "gather",      "greater",      "greater_",
    "greater_equal", "greater_equal_", "histc",       "isfinite",    "isnan",        "less",
    "less_",         "less_equal",     "less_equal_", "logical_and", "logical_and_", "logical_not",
    "logical_not_",  "logical_or",     "logical_or_", "masked_fill", "masked_fill_", "max_pool3d",
    "maximum",       "minimum",        "neg",         "neg_",        "nonzero",      "not_equal",
    "not_equal_",    "one_hot",        "pad",         "relu",        "reshape",      "round",
    "round_",        "select",         "sign",        "sign_",       "sort",         "tile",
    "topk",          "transpose",      "transpose_",  "tril",        "tril_",        "triu",
    "triu_",         "type_as"};
const char* const kUlpApis[] = {"__matmul__", "addbmm",   "addbmm_", "addmm",        "addmm_",  "baddbmm",
                                "baddbmm_",   "bilinear", "bmm",     "chain_matmul", "hspmm",   "linear",
                                "matmul",     "mm",       "mv",      "smm",          "sspaddmm"};
const char* const kThousandthApis[] = {"conv1d", "conv2d"};
const char* const kAccumulativeApis[] = {"test_api"};

const std::unordered_map<std::string_view, Standard>& api_map() {
  static const std::unordered_map<std::string_view, Standard> m = [] {
    std::unordered_map<std::string_view, Standard> r;
    for (const char* n : kAbsoluteApis) r.emplace(n, Standard::kAbsoluteThreshold);
    for (const char* n : kBinaryApis) r.emplace(n, Standard::kBinaryConsistency);
    for (const char* n : kUlpApis) r.emplace(n, Standard::kUlp);
    for (const char* n : kThousandthApis) r.emplace(n, Standard::kThousandth);
    for (const char* n : kAccumulativeApis) r.emplace(n, Standard::kAccumulativeError);
    return r;
  }();
  return m;
}

constexpr double p2(int e) {  // 2^e for the constant tables
  double v = 1.0;
  if (e >= 0) {
    for (int i = 0; i < e; ++i) v *= 2.0;
  } else {
    for (int i = 0; i < -e; ++i) v /= 2.0;
  }
  return v;
}

//                                       sv        atol_abs  atol_bench rtol     acc_bound
//                                       min_err   acc_eb
constexpr DtypeThresholds kFp16{p2(-10), p2(-16), 1e-16, p2(-10), p2(-8), p2(-11), p2(-20)};
constexpr DtypeThresholds kBf16{p2(-10), 1e-16, 1e-16, p2(-8), p2(-7), p2(-8), p2(-7)};
constexpr DtypeThresholds kFp32{p2(-20), p2(-30), p2(-30), p2(-20), p2(-11), p2(-14), p2(-14)};
constexpr DtypeThresholds kDefault = kFp32;  // every "default" entry equals the fp32 one

constexpr UlpParams kUlpFp16{-14, 10, 1.0};
constexpr UlpParams kUlpBf16{-126, 7, 1.0};
constexpr UlpParams kUlpFp32{-126, 23, 32.0};

}  // namespace

const char* standard_key(Standard s) {
  switch (s) {
    case Standard::kBenchmark: return "benchmark";
    case Standard::kAbsoluteThreshold: return "absolute_threshold";
    case Standard::kBinaryConsistency: return "binary_consistency";
    case Standard::kUlp: return "ulp_compare";
    case Standard::kThousandth: return "thousandth_threshold";
    case Standard::kAccumulativeError: return "accumulative_error_compare";
  }
  return "benchmark";
}

const char* standard_label(Standard s) {
  switch (s) {
    case Standard::kBenchmark: return "标杆比对法";
    case Standard::kAbsoluteThreshold: return "绝对阈值法";
    case Standard::kBinaryConsistency: return "二进制一致法";
    case Standard::kUlp: return "ULP误差比对法";
    case Standard::kThousandth: return "双千指标法";
    case Standard::kAccumulativeError: return "累积误差比对法";
  }
  return "标杆比对法";
}

Standard standard_for_api(std::string_view short_name) {
  const auto& m = api_map();
  auto it = m.find(short_name);
  return it == m.end() ? Standard::kBenchmark : it->second;
}

Standard standard_for_precision_row(std::string_view short_name, std::string_view device_dtype) {
  static const std::string_view kNotBinary[] = {"torch.float16", "torch.bfloat16",  "torch.float32",
                                                "torch.float64", "torch.complex64", "torch.complex128"};
  bool float_like = false;
  for (std::string_view d : kNotBinary) float_like = float_like || d == device_dtype;
  if (!device_dtype.empty() && !float_like) return Standard::kBinaryConsistency;
  return standard_for_api(short_name);
}

const DtypeThresholds& thresholds_for(DType device_dtype) {
  switch (device_dtype) {
    case DType::kFloat16: return kFp16;
    case DType::kBFloat16: return kBf16;
    case DType::kFloat32: return kFp32;
    default: return kDefault;
  }
}

const DtypeThresholds& thresholds_for_name(std::string_view name) {
  if (name == "torch.float16") return kFp16;
  if (name == "torch.bfloat16") return kBf16;
  if (name == "torch.float32") return kFp32;
  return kDefault;
}

Standard standard_from_key(std::string_view key) {
  for (Standard s : {Standard::kBenchmark, Standard::kAbsoluteThreshold, Standard::kBinaryConsistency,
                     Standard::kUlp, Standard::kThousandth, Standard::kAccumulativeError}) {
    if (key == standard_key(s)) return s;
  }
  throw InvalidInput("unknown standard '" + std::string(key) +
                     "': expected benchmark, absolute_threshold, binary_consistency, "
                     "ulp_compare, thousandth_threshold or accumulative_error_compare");
}

const UlpParams* ulp_params_for_name(const std::string& dtype_name) {
  try {
    return ulp_params_for(dtype_from_name(dtype_name));
  } catch (const InvalidInput&) {
    return nullptr;
  }
}

const UlpParams* ulp_params_for(DType device_dtype) {
  switch (device_dtype) {
    case DType::kFloat16: return &kUlpFp16;
    case DType::kBFloat16: return &kUlpBf16;
    case DType::kFloat32: return &kUlpFp32;
    default: return nullptr;
  }
}

const char* status_text(Status s) {
  switch (s) {
    case Status::kPass: return "pass";
    case Status::kWarning: return "Warning";
    case Status::kError: return "error";
    case Status::kSkip: return "SKIP";
    case Status::kBlank: return " ";
  }
  return " ";
}

Status status_from_text(std::string_view text) {
  for (Status x : {Status::kPass, Status::kWarning, Status::kError, Status::kSkip, Status::kBlank}) {
    if (text == status_text(x)) return x;
  }
  throw InvalidInput("unknown status '" + std::string(text) +
                     "': expected pass, Warning, error, SKIP or ' '");
}

}  // namespace check
}  // namespace msprobe
