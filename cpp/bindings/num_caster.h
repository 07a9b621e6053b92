// check::Num (a metric that may not have been computed) as a Python value: None when unset, int
// for integer metrics, float otherwise. From Python, int and float set it (kind int / float64).
#pragma once

#include <nanobind/nanobind.h>

#include "msprobe/check/metrics.h"

namespace nanobind {
namespace detail {

template <>
struct type_caster<msprobe::check::Num> {
  NB_TYPE_CASTER(msprobe::check::Num, const_name("int | float | None"))

  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    value = msprobe::check::Num{};
    if (src.is_none()) return true;
    if (PyLong_Check(src.ptr())) {
      value.kind = msprobe::check::NumKind::kInt;
      value.value = PyLong_AsDouble(src.ptr());
    } else if (PyFloat_Check(src.ptr())) {
      value.value = PyFloat_AsDouble(src.ptr());
    } else {
      return false;
    }
    value.set = !PyErr_Occurred();
    PyErr_Clear();
    return value.set;
  }

  static handle from_cpp(const msprobe::check::Num& n, rv_policy, cleanup_list*) noexcept {
    if (!n.set) return none().release();
    if (n.kind == msprobe::check::NumKind::kInt) return PyLong_FromLongLong((long long)n.value);
    return PyFloat_FromDouble(n.value);
  }
};

}  // namespace detail
}  // namespace nanobind
