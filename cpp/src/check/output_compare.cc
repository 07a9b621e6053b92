// run_ut's per-output verdict (accuracy-checker spec §1.12) and the status merge.
#include "msprobe/check/output_compare.h"

#include <cstdlib>

#include "msprobe/check/number_format.h"

namespace msprobe {
namespace check {

namespace {

// numpy dtype name of a tensor after run_ut's conversion (bf16 outputs become float32).
const char* numpy_name(DType t) {
  switch (t) {
    case DType::kBool: return "bool";
    case DType::kUInt8: return "uint8";
    case DType::kInt8: return "int8";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "float32";
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kComplex64: return "complex64";
    case DType::kComplex128: return "complex128";
  }
  return "float32";
}

enum class Kind { kFloat, kBool, kInt, kOther };

Kind kind_of(DType t) {
  switch (t) {
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32:
    case DType::kFloat64: return Kind::kFloat;
    case DType::kBool:
    case DType::kUInt8: return Kind::kBool;
    case DType::kInt32:
    case DType::kInt64: return Kind::kInt;
    default: return Kind::kOther;
  }
}

const char* const kCosineFail =
    "Cosine similarity is less than 0.99, consider as error, skip other check and set to SPACE.\n";
const char* const kMaxAbsPass =
    "Max abs error is less than 0.001, consider as pass, skip other check and set to SPACE.\n";
const char* const kHundredError =
    "Relative error is greater than 0.01, consider as error, skip other check and set to SPACE.\n";
const char* const kThousandPass =
    "Relative error is less than 0.001, consider as pass, skip other check and set to SPACE.\n";
const char* const kThousandWarning =
    "Relative error is greater than 0.001, consider as warning, skip other check and set to "
    "SPACE.\n";
const char* const kThousandError =
    "Relative error is greater than 0.001, consider as error, skip other check and set to "
    "SPACE.\n";
const char* const kTenThousandWarning =
    "Relative error is greater than 0.0001, consider as warning, skip other check and set to "
    "SPACE.\n";
const char* const kTenThousandPass = "Relative error is less than 0.0001, consider as pass.\n";

void take_standard_columns(const FloatMetrics& m, OutputCompareResult& r) {
  r.error_rate = m.error_rate;
  r.eb = m.eb;
  r.rmse = m.rmse;
  r.small_value_err_ratio = m.small_value_err_ratio;
  r.max_rel_err = m.max_rel_err;
  r.mean_rel_err = m.mean_rel_err;
  r.inf_nan_error_ratio = m.inf_nan_error_ratio;
  r.rel_err_ratio = m.rel_err_ratio;
  r.abs_err_ratio = m.abs_err_ratio;
  r.max_ulp_err = m.max_ulp_err;
  r.mean_ulp_err = m.mean_ulp_err;
  r.ulp_err_proportion = m.ulp_err_proportion;
  if (m.rel_err_thousandth.set) r.thousandth = m.rel_err_thousandth;
}

}  // namespace

std::string python_tuple_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  s += ")";
  return s;
}

std::string torch_size_text(const std::vector<int64_t>& shape) {
  std::string s = "torch.Size([";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "])";
}

std::vector<std::string> OutputCompareResult::detail_cells(int precision) const {
  std::vector<std::string> c;
  c.reserve(22);
  c.push_back(bench_dtype.empty() ? " " : bench_dtype);
  c.push_back(device_dtype.empty() ? " " : device_dtype);
  c.push_back(shape.empty() ? " " : shape);
  for (const Num* n : {&cosine, &max_abs_err, &hundredth, &thousandth, &ten_thousandth, &error_rate, &eb,
                       &rmse, &small_value_err_ratio, &max_rel_err, &mean_rel_err, &inf_nan_error_ratio,
                       &rel_err_ratio, &abs_err_ratio, &max_ulp_err, &mean_ulp_err, &ulp_err_proportion}) {
    c.push_back(format_metric(*n, precision));
  }
  c.push_back(status_text(status));
  c.push_back(message);
  return c;
}

OutputCompareResult compare_output_tensor(std::string_view api_short_name, const TensorView& bench,
                                          const TensorView& device) {
  OutputCompareResult r;
  r.bench_dtype = torch_dtype_name(bench.dtype);
  r.device_dtype = torch_dtype_name(device.dtype);
  r.shape = python_tuple_text(device.shape);
  r.standard = standard_for_api(api_short_name);
  if (bench.shape != device.shape) {
    r.status = Status::kError;
    r.message = "The shape of bench" + torch_size_text(bench.shape) + " and npu" +
                torch_size_text(device.shape) + " not equal.";
    return r;
  }
  // bf16 device outputs are compared as float32 on both sides.
  const DType bt =
      device.dtype == DType::kBFloat16 && dtype_is_floating(bench.dtype) ? DType::kFloat32 : bench.dtype;
  const DType dt = device.dtype == DType::kBFloat16 ? DType::kFloat32 : device.dtype;
  const Kind bk = kind_of(bt), dk = kind_of(dt);
  if (bk == Kind::kOther || bk != dk) {
    r.status = Status::kError;
    r.message = std::string("Bench out dtype is ") + numpy_name(bt) + " but npu output dtype is " +
                numpy_name(dt) + ", cannot compare.";
    return r;
  }
  if (bench.numel() == 0) {
    r.status = Status::kError;
    r.message = "There is not bench calculation result.";
    return r;
  }
  if (bk != Kind::kFloat) {
    const double rate = binary_error_rate(bench, device);
    r.error_rate.value = rate;
    r.error_rate.kind = NumKind::kFloat64;
    r.error_rate.set = true;
    r.status = rate == 0 ? Status::kPass : Status::kError;
    r.message = std::string("Compare algorithm is not supported for ") + numpy_name(bt) +
                " data. Only judged by Error Rate.\n";
    return r;
  }

  const FloatMetrics m = compute_float_metrics(bench, device, r.standard);
  std::string msg;
  if (m.new_standard) {
    take_standard_columns(m, r);
  } else {
    msg += std::string("The data type ") + r.device_dtype + " is not supported for new precision standard.";
  }
  const CosineResult& cos = m.cosine;
  if (cos.has_value) {
    r.cosine.value = cos.value;
    r.cosine.kind = NumKind::kFloat64;
    r.cosine.set = true;
  }
  msg += cos.message + "\n";
  auto done = [&](Status s, const char* line) {
    r.status = s;
    r.message = msg + line;
    return r;
  };
  if (!cos.pass) return done(Status::kError, kCosineFail);
  r.max_abs_err = m.max_abs_err;
  if (m.max_abs_err.value < 0.001) return done(Status::kPass, kMaxAbsPass);

  const bool half_like = device.dtype == DType::kFloat16 || device.dtype == DType::kBFloat16;
  if (half_like) {
    r.hundredth = m.hundredth;
    if (!(m.hundredth.value > 1.0 - 0.01)) return done(Status::kError, kHundredError);
  }
  r.thousandth = m.thousandth;
  const bool thousand_ok = m.thousandth.value > 1.0 - 0.001;
  if (half_like) {
    return thousand_ok ? done(Status::kPass, kThousandPass) : done(Status::kWarning, kThousandWarning);
  }
  r.ten_thousandth = m.ten_thousandth;
  if (device.dtype == DType::kFloat32 || device.dtype == DType::kFloat64) {
    if (!thousand_ok) return done(Status::kError, kThousandError);
    if (!(m.ten_thousandth.value > 1.0 - 0.0001)) return done(Status::kWarning, kTenThousandWarning);
    msg += kTenThousandPass;
  }
  r.status = Status::kPass;
  r.message = msg;
  return r;
}

Status merge_output_statuses(const std::vector<Status>& statuses) {
  bool warning = false;
  for (Status s : statuses) {
    if (s == Status::kError) return Status::kError;
    warning = warning || s == Status::kWarning;
  }
  return warning ? Status::kWarning : Status::kPass;
}

DropoutResult compare_dropout(const TensorView& bench, const TensorView& device) {
  const int64_t n = bench.numel();
  if (n < 100) return {Status::kPass, 1};
  const int64_t zb = count_zeros(bench), zd = count_zeros(device);
  if ((double)std::llabs(zb - zd) / (double)n < 0.1) return {Status::kPass, 1};
  return {Status::kError, 0};
}

}  // namespace check
}  // namespace msprobe
