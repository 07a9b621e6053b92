// Python values -> dump.json values: see arg_encoder.h. Tensors: arg_encoder_tensors.cc;
// values read later: arg_encoder_deferred.cc.
#include "arg_encoder.h"

#include <Python.h>
#include <nanobind/stl/string.h>

#include "msprobe/dump/value_record.h"

namespace msprobe {

namespace {
constexpr int kMaxDepth = 10;  // the original's nesting limit

void python_int(JsonWriter& w, nb::handle v) {
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow == 0) {
    w.integer(x);
  } else {
    nb::str s = nb::str(v);
    w.raw(s.c_str());
  }
}

void slice_part(JsonWriter& w, PyObject* p) {
  if (p == Py_None) {
    w.null();
    return;
  }
  nb::object as_int = nb::steal(PyNumber_Long(p));
  if (!as_int.is_valid()) {
    PyErr_Clear();
    w.null();
    return;
  }
  python_int(w, as_int);
}
}  // namespace

void ArgEncoder::plain(JsonWriter& w, nb::handle v, int depth) {
  PyObject* o = v.ptr();
  if (o == Py_None || depth > kMaxDepth) {
    w.null();
    return;
  }
  if (PyBool_Check(o)) {
    w.boolean(o == Py_True);
    return;
  }
  if (PyLong_Check(o)) {
    python_int(w, v);
    return;
  }
  if (PyFloat_Check(o)) {
    w.floating(PyFloat_AS_DOUBLE(o));
    return;
  }
  if (PyUnicode_Check(o)) {
    w.string(PyUnicode_AsUTF8(o));
    return;
  }
  if (PyDict_Check(o)) {
    w.begin_object();
    PyObject *k, *val;
    Py_ssize_t pos = 0;
    while (PyDict_Next(o, &pos, &k, &val)) {
      w.key(nb::str(k).c_str());
      plain(w, val, depth + 1);
    }
    w.end_object();
    return;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    w.begin_array();
    for (nb::handle item : v) plain(w, item, depth + 1);
    w.end_array();
    return;
  }
  w.null();
}

void ArgEncoder::tensor_named(JsonWriter& w, nb::handle v, const std::string& data_name_stem) {
  if (v.is_none()) {
    w.null();
    return;
  }
  if (is_deferred(v.ptr())) {
    defer(w, v, data_name_stem);
    return;
  }
  tensor(w, v, data_name_stem);
}

void ArgEncoder::value(JsonWriter& w, nb::handle v, const std::string& entry, const char* category,
                       std::string& path, int depth, const char* kwarg_name) {
  PyObject* o = v.ptr();
  if (o == Py_None || depth > kMaxDepth) {
    w.null();
    return;
  }
  if (is_deferred(o)) {
    defer(w, v, tensor_file_stem(entry, category, path));
    return;
  }
  // Tensors first: they are by far the most common value.
  if (!PyBool_Check(o) && !PyLong_Check(o) && !PyFloat_Check(o) && !PyUnicode_Check(o) && !PyList_Check(o) &&
      !PyTuple_Check(o) && !PyDict_Check(o)) {
    PyTensor pt;
    if (view_tensor(v, pt)) {
      tensor_view(w, v, pt, tensor_file_stem(entry, category, path));
      return;
    }
  }
  if (PyBool_Check(o)) return write_bool_record(w, o == Py_True);
  if (PyLong_Check(o)) {
    begin_value_record(w, "int");
    python_int(w, v);
    return end_value_record(w);
  }
  if (PyFloat_Check(o)) return write_float_record(w, PyFloat_AS_DOUBLE(o));
  if (PyUnicode_Check(o)) return write_str_record(w, PyUnicode_AsUTF8(o));
  if (types_.size_type.is_valid() && PyObject_TypeCheck(o, (PyTypeObject*)types_.size_type.ptr())) {
    begin_value_record(w, "torch.Size");
    w.begin_array();
    for (nb::handle d : v) python_int(w, d);
    w.end_array();
    return end_value_record(w);
  }
  const size_t base_len = path.size();
  auto child_path = [&](const std::string& part) {
    path.resize(base_len);
    if (!path.empty()) path += '.';
    path += part;
  };
  if (PyTuple_Check(o) && PyObject_HasAttrString(o, "_fields")) {  // namedtuple
    nb::object fields = nb::borrow(v).attr("_fields");
    w.begin_object();
    Py_ssize_t i = 0;
    for (nb::handle f : fields) {
      std::string key = nb::str(f).c_str();
      w.key(key);
      child_path(key);
      value(w, PyTuple_GET_ITEM(o, i++), entry, category, path, depth + 1, nullptr);
    }
    path.resize(base_len);
    w.end_object();
    return;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    w.begin_array();
    Py_ssize_t i = 0;
    for (nb::handle item : v) {
      child_path(std::to_string(i++));
      value(w, item, entry, category, path, depth + 1, nullptr);
    }
    path.resize(base_len);
    w.end_array();
    return;
  }
  if (PyDict_Check(o)) {
    w.begin_object();
    PyObject *k, *val;
    Py_ssize_t pos = 0;
    while (PyDict_Next(o, &pos, &k, &val)) {
      std::string key = nb::str(k).c_str();
      w.key(key);
      child_path(key);
      value(w, val, entry, category, path, depth + 1, key.c_str());
    }
    path.resize(base_len);
    w.end_object();
    return;
  }
  if (PySlice_Check(o)) {
    auto* s = reinterpret_cast<PySliceObject*>(o);
    begin_value_record(w, "slice");
    w.begin_array();
    slice_part(w, s->start);
    slice_part(w, s->stop);
    slice_part(w, s->step);
    w.end_array();
    return end_value_record(w);
  }
  if (o == Py_Ellipsis) return write_ellipsis_record(w);
  if (types_.numpy_generic.is_valid() && PyObject_TypeCheck(o, (PyTypeObject*)types_.numpy_generic.ptr())) {
    begin_value_record(w, Py_TYPE(o)->tp_name);
    plain(w, nb::borrow(v).attr("item")(), depth + 1);
    return end_value_record(w);
  }
  if (types_.fallback.is_valid()) {
    nb::object r = kwarg_name ? types_.fallback(v, kwarg_name) : types_.fallback(v, nb::none());
    plain(w, r, depth + 1);
    return;
  }
  w.null();
}

}  // namespace msprobe
