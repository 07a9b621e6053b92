// TensorStats -> Python dict: see stats_to_python.h.
#include "stats_to_python.h"

namespace nb = nanobind;

namespace msprobe {

namespace {

nb::object stat_to_python(const StatValue& v) {
  switch (v.kind) {
    case StatValue::Kind::kNull: return nb::none();
    case StatValue::Kind::kBool: return nb::bool_(v.b);
    case StatValue::Kind::kInt: return nb::int_(v.i);
    case StatValue::Kind::kFloat: return nb::float_(v.f);
  }
  return nb::none();
}

}  // namespace

nb::dict stats_to_python(const TensorStats& st) {
  nb::dict d;
  d["Max"] = stat_to_python(st.max);
  d["Min"] = stat_to_python(st.min);
  d["Mean"] = stat_to_python(st.mean);
  d["Norm"] = stat_to_python(st.norm);
  if (st.max_except_inf_nan) d["Max_except_inf_nan"] = nb::float_(*st.max_except_inf_nan);
  if (st.min_except_inf_nan) d["Min_except_inf_nan"] = nb::float_(*st.min_except_inf_nan);
  return d;
}

}  // namespace msprobe
