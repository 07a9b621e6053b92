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

// A Python str as UTF-8; lone surrogates (which strict UTF-8 refuses) pass through as their
// three-byte forms, which the JSON writer escapes.
std::string utf8_text(PyObject* s) {
  Py_ssize_t n = 0;
  if (const char* p = PyUnicode_AsUTF8AndSize(s, &n)) return std::string(p, (size_t)n);
  PyErr_Clear();
  nb::object b = nb::steal(PyUnicode_AsEncodedString(s, "utf-8", "surrogatepass"));
  if (!b.is_valid()) {
    PyErr_Clear();
    return std::string();
  }
  return std::string(PyBytes_AS_STRING(b.ptr()), (size_t)PyBytes_GET_SIZE(b.ptr()));
}

// A dict key as 1.2.1 writes it (str(key)); a key whose __str__ raises is named by its type.
std::string key_text(PyObject* k) {
  if (PyUnicode_Check(k)) return utf8_text(k);
  nb::object s = nb::steal(PyObject_Str(k));
  if (!s.is_valid()) {
    PyErr_Clear();
    return Py_TYPE(k)->tp_name;
  }
  return utf8_text(s.ptr());
}

// The "type" of a scalar record: 1.2.1 writes type(value).__name__, so an IntEnum member is
// recorded under its enum's name.
const char* scalar_type_name(PyObject* o, const char* exact) {
  return Py_IS_TYPE(o, &PyLong_Type) || Py_IS_TYPE(o, &PyFloat_Type) || Py_IS_TYPE(o, &PyUnicode_Type)
             ? exact
             : _PyType_Name(Py_TYPE(o));
}

// A dataclass instance (not the class): 1.2.1 records it as a dict of its fields.
bool is_dataclass_instance(PyObject* o) {
  if (PyType_Check(o)) return false;
  PyObject* t = (PyObject*)Py_TYPE(o);
  int has = PyObject_HasAttrString(t, "__dataclass_fields__");
  return has == 1;
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
    w.string(utf8_text(o));
    return;
  }
  if (PyDict_Check(o)) {
    w.begin_object();
    PyObject *k, *val;
    Py_ssize_t pos = 0;
    while (PyDict_Next(o, &pos, &k, &val)) {
      w.key(key_text(k));
      plain(w, val, depth + 1);
    }
    w.end_object();
    return;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    w.begin_array();
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    for (Py_ssize_t i = 0; i < n; ++i) plain(w, PySequence_Fast_GET_ITEM(o, i), depth + 1);
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

void ArgEncoder::note_name(const PyTensor& pt, const std::string& entry, const std::string& path) {
  if (pt.view.data == nullptr || (types_.parameters.names.empty() && types_.model_inputs.names.empty()))
    return;
  if (const std::string* name = types_.name_of(pt.view)) s_.note_tensor_name(entry + ".input." + path, *name);
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
      if (category[0] == 'i' || category[0] == 'k') note_name(pt, entry, path);  // input, kwargs
      tensor_view(w, v, pt, tensor_file_stem(entry, category, path));
      return;
    }
  }
  if (PyBool_Check(o)) return write_bool_record(w, o == Py_True);
  if (PyLong_Check(o)) {
    begin_value_record(w, scalar_type_name(o, "int"));
    python_int(w, v);
    return end_value_record(w);
  }
  if (PyFloat_Check(o)) {
    if (Py_IS_TYPE(o, &PyFloat_Type)) return write_float_record(w, PyFloat_AS_DOUBLE(o));
    begin_value_record(w, scalar_type_name(o, "float"));
    w.floating(PyFloat_AS_DOUBLE(o));
    return end_value_record(w);
  }
  if (PyUnicode_Check(o)) {
    begin_value_record(w, scalar_type_name(o, "str"));
    w.string(utf8_text(o));
    return end_value_record(w);
  }
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
    const Py_ssize_t n = PyTuple_GET_SIZE(o);
    for (nb::handle f : fields) {
      if (i >= n) break;
      std::string key = key_text(f.ptr());
      w.key(key);
      child_path(key);
      value(w, PyTuple_GET_ITEM(o, i++), entry, category, path, depth + 1, nullptr);
    }
    path.resize(base_len);
    w.end_object();
    return;
  }
  // Before dicts: a dataclass that is also a dict (transformers' ModelOutput) is recorded by its
  // fields, the unset ones as null, as 1.2.1 does.
  if (!PyDict_CheckExact(o) && !PyList_CheckExact(o) && !PyTuple_CheckExact(o) && is_dataclass_instance(o)) {
    nb::object fields = nb::borrow(v).attr("__dataclass_fields__");
    w.begin_object();
    for (nb::handle f : fields) {
      std::string key = key_text(f.ptr());
      w.key(key);
      child_path(key);
      nb::object field = nb::steal(PyObject_GetAttr(o, f.ptr()));
      if (!field.is_valid()) {
        PyErr_Clear();
        w.null();
        continue;
      }
      value(w, field, entry, category, path, depth + 1, nullptr);
    }
    path.resize(base_len);
    w.end_object();
    return;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    w.begin_array();
    // Item by item, not through iter(): a list subclass's own __iter__ is not run.
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    for (Py_ssize_t i = 0; i < n; ++i) {
      child_path(std::to_string(i));
      value(w, PySequence_Fast_GET_ITEM(o, i), entry, category, path, depth + 1, nullptr);
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
      std::string key = key_text(k);
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
  // Values rendered by Python code (numpy scalars, the framework's fallback): whatever that code
  // raises leaves the value recorded as null and the recording going on.
  try {
    if (types_.numpy_generic.is_valid() && PyObject_TypeCheck(o, (PyTypeObject*)types_.numpy_generic.ptr())) {
      nb::object item = nb::borrow(v).attr("item")();
      begin_value_record(w, Py_TYPE(o)->tp_name);
      plain(w, item, depth + 1);
      return end_value_record(w);
    }
    if (types_.fallback.is_valid()) {
      nb::object r = kwarg_name ? types_.fallback(v, kwarg_name) : types_.fallback(v, nb::none());
      plain(w, r, depth + 1);
      return;
    }
  } catch (const nb::python_error&) {
  }
  w.null();
}

}  // namespace msprobe
