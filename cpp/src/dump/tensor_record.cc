// Tensor objects of dump.json: see tensor_record.h.
#include "msprobe/dump/tensor_record.h"

#include <cstdio>

namespace msprobe {

namespace {
void write_stat(JsonWriter& w, const char* key, const StatValue& v) {
  w.key(key);
  switch (v.kind) {
    case StatValue::Kind::kNull: w.null(); break;
    case StatValue::Kind::kBool: w.boolean(v.b); break;
    case StatValue::Kind::kInt: w.integer(v.i); break;
    case StatValue::Kind::kFloat: w.floating(v.f); break;
  }
}
}  // namespace

void write_tensor_record_with_stats(JsonWriter& w, DType dtype, const std::vector<int64_t>& shape,
                                    const TensorStats& s, bool requires_grad, const std::string& data_name,
                                    const TensorRecordOptions& opt) {
  const bool torch = opt.framework == Framework::kPyTorch;
  w.begin_object();
  w.key("type");
  w.string(torch ? "torch.Tensor" : "mindspore.Tensor");
  w.key("dtype");
  w.string(torch ? torch_dtype_name(dtype) : mindspore_dtype_name(dtype));
  w.key("shape");
  w.begin_array();
  for (int64_t d : shape) w.integer(d);
  w.end_array();
  write_stat(w, "Max", s.max);
  write_stat(w, "Min", s.min);
  write_stat(w, "Mean", s.mean);
  if (!torch && s.complex_abs_norm)
    write_stat(w, "Norm", StatValue::floating(*s.complex_abs_norm));
  else
    write_stat(w, "Norm", s.norm);
  if (torch) {
    w.key("requires_grad");
    w.boolean(requires_grad);
    if (s.max_except_inf_nan) {
      w.key("Max_except_inf_nan");
      w.floating(*s.max_except_inf_nan);
    }
    if (s.min_except_inf_nan) {
      w.key("Min_except_inf_nan");
      w.floating(*s.min_except_inf_nan);
    }
  }
  if (opt.want_crc && s.crc32) {
    char hex[9];
    std::snprintf(hex, sizeof(hex), "%08x", *s.crc32);
    w.key("md5");
    w.string(hex);
  }
  if (!data_name.empty()) {
    w.key("data_name");
    w.string(data_name);
  }
  w.end_object();
}

void write_tensor_record(JsonWriter& w, const TensorView& t, bool requires_grad, const std::string& data_name,
                         const TensorRecordOptions& opt) {
  TensorStats s = compute_stats(t, opt.want_crc);
  write_tensor_record_with_stats(w, t.dtype, t.shape, s, requires_grad, data_name, opt);
}

}  // namespace msprobe
