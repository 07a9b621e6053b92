// Python objects the tensor conversion (tensor_from_python.cc) looks up once: torch's types and
// methods (cached once the user has imported torch; never imported here) and interned names.
// All accessed with the GIL held.
#pragma once
#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace msprobe {

struct TorchCache {
  bool ready = false;
  PyTypeObject* tensor = nullptr;     // torch.Tensor
  PyTypeObject* parameter = nullptr;  // torch.nn.Parameter
  PyObject* to_dlpack = nullptr;      // torch._C._to_dlpack, or nullptr
  PyObject* is_neg = nullptr;         // torch.Tensor.is_neg (unbound)
  PyObject* is_conj = nullptr;        // torch.Tensor.is_conj
  PyObject* resolve_neg = nullptr;
  PyObject* resolve_conj = nullptr;
  PyObject* detach = nullptr;
  PyObject* dispatch_default = nullptr;  // torch.Tensor.__torch_dispatch__ as stored on the type
  PyObject* bool_dtype = nullptr;        // torch.bool
  PyObject* strided = nullptr;           // torch.strided
};

extern TorchCache g_torch;

struct Names {
  PyObject* torch;
  PyObject* requires_grad;
  PyObject* dlpack;
  PyObject* torch_dispatch;
  PyObject* dtype;
  PyObject* layout;
  PyObject* shape;
  PyObject* stride;
  PyObject* max_version_kw;  // ("max_version",)
  PyObject* version_1_0;     // (1, 0)
};

const Names& names();
// Borrowed reference to an attribute found on the type (not the instance), or nullptr.
PyObject* type_lookup(PyTypeObject* tp, PyObject* name);
// Fills g_torch once torch has been imported by the user. Returns false while it is not.
bool torch_ready();
// Calls an unbound method descriptor with `self`.
nb::object call_method(PyObject* descr, PyObject* self);
bool call_bool_method(PyObject* descr, PyObject* self);

}  // namespace msprobe
