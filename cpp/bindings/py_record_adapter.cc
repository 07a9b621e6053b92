// Python values and frames for the record builder: see py_record_adapter.h.
#include "py_record_adapter.h"

#include <Python.h>
#include <frameobject.h>
#include <nanobind/stl/string.h>

#include <cstring>

namespace msprobe {

void PyRecordAdapter::write_list(JsonWriter& w, ValueRef args, const std::string& entry,
                                 const char* category) {
  w.begin_array();
  PyObject* a = (PyObject*)args;
  if (PyTuple_Check(a) || PyList_Check(a)) {
    // Item by item, not through iter(): a subclass's own __iter__ is not run.
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(a);
    for (Py_ssize_t i = 0; i < n; ++i) {
      std::string path = std::to_string(i);
      encoder_.value(w, PySequence_Fast_GET_ITEM(a, i), entry, category, path, 1, nullptr);
    }
  } else if (a != Py_None) {
    std::string path = "0";
    encoder_.value(w, handle(args), entry, category, path, 1, nullptr);
  }
  w.end_array();
}

void PyRecordAdapter::write_dict(JsonWriter& w, nb::handle d, const std::string& entry, const char* category,
                                 bool skip_none, bool as_kwargs) {
  w.begin_object();
  if (PyDict_Check(d.ptr())) {
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d.ptr(), &pos, &k, &v)) {
      if (skip_none && v == Py_None) continue;
      std::string key = nb::str(k).c_str();
      w.key(key);
      std::string path = key;
      encoder_.value(w, v, entry, category, path, 1, as_kwargs ? key.c_str() : nullptr);
    }
  }
  w.end_object();
}

void PyRecordAdapter::write_kwargs(JsonWriter& w, ValueRef kwargs, const std::string& entry) {
  write_dict(w, handle(kwargs), entry, "kwargs", false, true);
}

void PyRecordAdapter::write_parameters(JsonWriter& w, ValueRef params, const std::string& entry) {
  write_dict(w, handle(params), entry, "parameters", true, false);
}

bool PyRecordAdapter::has_parameters(ValueRef params) {
  nb::handle p = handle(params);
  return PyDict_Check(p.ptr()) && PyDict_Size(p.ptr()) > 0;
}

// A tuple result is recorded item by item; anything else (None, a list, a namedtuple) as a
// one-element list, as 1.2.1 does (its convert_tuple).
void PyRecordAdapter::write_result(JsonWriter& w, ValueRef result, const std::string& entry,
                                   const char* category) {
  PyObject* v = (PyObject*)result;
  if (PyTuple_Check(v) && !PyObject_HasAttrString(v, "_fields")) {
    write_list(w, result, entry, category);
    return;
  }
  w.begin_array();
  std::string path = "0";
  encoder_.value(w, handle(result), entry, category, path, 1, nullptr);
  w.end_array();
}

// Walks the interpreter's frames (the probe's own excluded) and returns interned frame ids.
std::vector<uint32_t> PyRecordAdapter::capture_stack() {
  std::vector<uint32_t> ids;
  PyFrameObject* f = PyEval_GetFrame();
  if (f) Py_INCREF(f);
  while (f) {
    PyCodeObject* code = PyFrame_GetCode(f);
    const int line = PyFrame_GetLineNumber(f);
    const FrameKey key{(PyObject*)code, line};
    auto it = frame_ids_.find(key);
    if (it != frame_ids_.end()) {
      if (it->second != kInternalFrame) ids.push_back(it->second);
      Py_DECREF(code);
    } else {
      const char* file = PyUnicode_AsUTF8(code->co_filename);
      uint32_t id = kInternalFrame;
      if (file && (internal_prefix_.empty() ||
                   std::strncmp(file, internal_prefix_.c_str(), internal_prefix_.size()) != 0)) {
        id = session_.intern_frame(file, line, PyUnicode_AsUTF8(code->co_name));
        ids.push_back(id);
      }
      frame_ids_.emplace(key, id);
      code_refs_.push_back(nb::steal((PyObject*)code));
    }
    PyFrameObject* back = PyFrame_GetBack(f);
    Py_DECREF(f);
    f = back;
  }
  return ids;
}

void PyRecordAdapter::report(const char* level, const std::string& message) {
  if (!report_.is_valid() || report_.is_none()) return;
  try {
    report_(level, message);
  } catch (const nb::python_error&) {
  }
}

}  // namespace msprobe
