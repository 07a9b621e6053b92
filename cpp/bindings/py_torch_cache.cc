// See py_torch_cache.h.
#include "py_torch_cache.h"

#include <Python.h>

namespace msprobe {

TorchCache g_torch;

const Names& names() {
  static const Names n = [] {
    Names x;
    x.torch = PyUnicode_InternFromString("torch");
    x.requires_grad = PyUnicode_InternFromString("requires_grad");
    x.dlpack = PyUnicode_InternFromString("__dlpack__");
    x.torch_dispatch = PyUnicode_InternFromString("__torch_dispatch__");
    x.dtype = PyUnicode_InternFromString("dtype");
    x.layout = PyUnicode_InternFromString("layout");
    x.shape = PyUnicode_InternFromString("shape");
    x.stride = PyUnicode_InternFromString("stride");
    x.max_version_kw = Py_BuildValue("(s)", "max_version");
    x.version_1_0 = Py_BuildValue("(ii)", 1, 0);
    return x;
  }();
  return n;
}

PyObject* type_lookup(PyTypeObject* tp, PyObject* name) {
#if PY_VERSION_HEX >= 0x030D0000
  PyObject* r = _PyType_LookupRef(tp, name);
  Py_XDECREF(r);  // types keep their attributes alive
  return r;
#else
  return _PyType_Lookup(tp, name);
#endif
}

namespace {
PyObject* get_attr_or_null(PyObject* o, const char* name) {
  PyObject* r = PyObject_GetAttrString(o, name);
  if (!r) PyErr_Clear();
  return r;
}

}  // namespace

bool torch_ready() {
  if (g_torch.ready) return true;
  PyObject* mod = PyImport_GetModule(names().torch);  // new ref or nullptr; never imports
  if (!mod) {
    PyErr_Clear();
    return false;
  }
  nb::object torch = nb::steal(mod);
  PyObject* tensor = get_attr_or_null(mod, "Tensor");
  if (!tensor || !PyType_Check(tensor)) {  // torch is still being imported
    Py_XDECREF(tensor);
    return false;
  }
  TorchCache c;
  c.tensor = (PyTypeObject*)tensor;  // references below are kept for the process lifetime
  if (PyObject* nn = get_attr_or_null(mod, "nn")) {
    PyObject* p = get_attr_or_null(nn, "Parameter");
    if (p && PyType_Check(p))
      c.parameter = (PyTypeObject*)p;
    else
      Py_XDECREF(p);
    Py_DECREF(nn);
  }
  if (PyObject* C = get_attr_or_null(mod, "_C")) {
    c.to_dlpack = get_attr_or_null(C, "_to_dlpack");
    Py_DECREF(C);
  }
  c.is_neg = get_attr_or_null(tensor, "is_neg");
  c.is_conj = get_attr_or_null(tensor, "is_conj");
  c.resolve_neg = get_attr_or_null(tensor, "resolve_neg");
  c.resolve_conj = get_attr_or_null(tensor, "resolve_conj");
  c.detach = get_attr_or_null(tensor, "detach");
  c.dispatch_default = type_lookup(c.tensor, names().torch_dispatch);
  Py_XINCREF(c.dispatch_default);
  c.bool_dtype = get_attr_or_null(mod, "bool");
  c.strided = get_attr_or_null(mod, "strided");
  if (!c.detach) return false;
  c.ready = true;
  g_torch = c;
  return true;
}

// Calls an unbound method descriptor with `self`.
nb::object call_method(PyObject* descr, PyObject* self) {
  PyObject* args[] = {self};
  PyObject* r = PyObject_Vectorcall(descr, args, 1, nullptr);
  if (!r) throw nb::python_error();
  return nb::steal(r);
}

bool call_bool_method(PyObject* descr, PyObject* self) {
  if (!descr) return false;
  nb::object r = call_method(descr, self);
  return r.ptr() == Py_True;
}

}  // namespace msprobe
