// Statistics computed outside the core: see external_stats.h. The rules mirror
// stats/tensor_stats.cc (compute_stats), which is the reference for every case here.
#include "msprobe/dump/external_stats.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "msprobe/base/error.h"

namespace msprobe {

namespace {

int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool keeps_double(DType d) { return d == DType::kFloat64 || d == DType::kComplex128; }

}  // namespace

DType external_stats_number_dtype(DType dtype) {
  switch (dtype) {
    case DType::kFloat64:
    case DType::kComplex128:
    case DType::kInt32:
    case DType::kInt64: return DType::kFloat64;
    default: return DType::kFloat32;
  }
}

size_t external_stats_count(DType dtype, const std::vector<int64_t>& shape, bool with_extremes) {
  if (numel_of(shape) == 0) return 0;
  if (shape.empty()) return 1;
  if (dtype == DType::kBool) return 2;
  return with_extremes ? 8 : 4;
}

ExternalStats decode_external_stats(DType dtype, const std::vector<int64_t>& shape, const void* data,
                                    size_t nbytes) {
  const DType nd = external_stats_number_dtype(dtype);
  const size_t width = dtype_size(nd);
  const size_t n = nbytes / width;
  const size_t plain = external_stats_count(dtype, shape, false);
  const size_t full = external_stats_count(dtype, shape, true);
  if (nbytes % width != 0 || (n != plain && n != full)) {
    throw InvalidInput("device statistics of a " + std::string(torch_dtype_name(dtype)) + " tensor: got " +
                       std::to_string(nbytes) + " bytes, expected " + std::to_string(plain) +
                       (full != plain ? " or " + std::to_string(full) : "") + " " + torch_dtype_name(nd) +
                       " numbers");
  }
  double v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n && i < 8; ++i) {
    if (nd == DType::kFloat64) {
      std::memcpy(&v[i], p + i * width, sizeof(double));
    } else {
      float f;
      std::memcpy(&f, p + i * width, sizeof(float));
      v[i] = f;
    }
  }
  ExternalStats e;
  e.max = v[0];
  e.min = v[1];
  e.mean = v[2];
  e.norm = v[3];
  if (n == 8 && full == 8) e.extremes = ExternalExtremes{v[4], v[5], v[6], v[7]};
  return e;
}

bool external_stats_need_extremes(DType dtype, const std::vector<int64_t>& shape, const ExternalStats& e) {
  if (e.extremes || numel_of(shape) == 0 || shape.empty() || dtype == DType::kBool || dtype_is_integer(dtype))
    return false;
  return !(std::isfinite(e.max) && std::isfinite(e.min)) || std::isnan(e.norm);
}

double external_stats_scale(const ExternalStats& e) {
  const double a = std::fabs(e.max), b = std::fabs(e.min);
  return a > b ? a : b;
}

bool external_stats_need_rescale(DType dtype, const std::vector<int64_t>& shape, const ExternalStats& e) {
  if (!keeps_double(dtype) || shape.empty() || numel_of(shape) == 0 || std::isnan(e.norm)) return false;
  const double big = external_stats_scale(e);  // the condition of compute_stats()
  return std::isfinite(big) && big > 0.0 && (big > 1e150 || big < 1e-150);
}

TensorStats tensor_stats_from_external(DType dtype, const std::vector<int64_t>& shape,
                                       const ExternalStats& e) {
  TensorStats out;
  if (numel_of(shape) == 0) return out;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (shape.empty()) {  // 0-dim: every statistic is the value itself (t.item())
    const double v = e.max;
    if (dtype == DType::kBool) {
      out.max = out.min = StatValue::boolean(v != 0.0);
      return out;
    }
    if (dtype_is_integer(dtype)) {
      out.max = out.min = out.mean = out.norm = StatValue::integer((int64_t)v);
      return out;
    }
    out.max = out.min = out.mean = StatValue::floating(v);
    if (dtype_is_complex(dtype))
      out.complex_abs_norm = v;
    else
      out.norm = StatValue::floating(v);
    if (!std::isfinite(v)) out.max_except_inf_nan = out.min_except_inf_nan = v;
    return out;
  }
  if (dtype == DType::kBool) {
    out.max = StatValue::boolean(e.max != 0.0);
    out.min = StatValue::boolean(e.min != 0.0);
    return out;
  }
  // A NaN anywhere makes Max, Min and Mean NaN (some frameworks' max/min skip NaN).
  const bool has_nan = std::isnan(e.norm);
  const double mx = has_nan ? nan : e.max;
  const double mn = has_nan ? nan : e.min;
  set_float_stats(out, dtype, mx, mn, has_nan ? nan : e.mean, e.norm);
  if ((std::isfinite(mx) && std::isfinite(mn)) || !e.extremes) return out;
  const ExternalExtremes& x = *e.extremes;
  set_except_inf_nan(out, mx, mn, x.finite_max, x.finite_min, x.non_nan_max, x.non_nan_min);
  return out;
}

void write_external_tensor_record(JsonWriter& w, DType dtype, const std::vector<int64_t>& shape,
                                  const ExternalStats& e, bool requires_grad, const std::string& data_name,
                                  const TensorRecordOptions& opt) {
  write_tensor_record_with_stats(w, dtype, shape, tensor_stats_from_external(dtype, shape, e), requires_grad,
                                 data_name, opt);
}

}  // namespace msprobe
