// JsonValue -> Python objects: see json_to_python.h.
#include "json_to_python.h"

#include <Python.h>

#include "msprobe/base/error.h"

namespace nb = nanobind;

namespace msprobe {

namespace {

nb::object convert(const JsonValue& v, int depth) {
  if (depth > 200) throw InvalidInput("JSON value nested too deeply");
  switch (v.type()) {
    case JsonValue::Type::kNull: return nb::none();
    case JsonValue::Type::kBool: return nb::bool_(v.as_bool());
    case JsonValue::Type::kInt: return nb::int_((long long)v.as_int());
    case JsonValue::Type::kFloat: return nb::float_(v.as_double());
    case JsonValue::Type::kString: return nb::str(v.as_string().data(), v.as_string().size());
    case JsonValue::Type::kArray: {
      const auto& a = v.as_array();
      PyObject* list = PyList_New((Py_ssize_t)a.size());
      if (!list) throw nb::python_error();
      nb::object owner = nb::steal(list);
      for (size_t i = 0; i < a.size(); ++i) {
        PyList_SET_ITEM(list, (Py_ssize_t)i, convert(a[i], depth + 1).release().ptr());
      }
      return owner;
    }
    case JsonValue::Type::kObject: {
      nb::dict d;
      for (const auto& kv : v.as_object()) {
        d[nb::str(kv.first.data(), kv.first.size())] = convert(kv.second, depth + 1);
      }
      return d;
    }
  }
  return nb::none();
}

}  // namespace

nb::object json_to_python(const JsonValue& v) { return convert(v, 0); }

}  // namespace msprobe
