// Zero-copy views of Python tensors.
//
// torch.Tensor (the hot path: every tensor of every hooked API call):
//   * the type test is a pointer compare against the cached torch.Tensor / nn.Parameter types
//     (cached once torch is in sys.modules; we never import torch ourselves);
//   * the memory is described by torch._C._to_dlpack(t), a C function (~0.2 us), instead of
//     t.detach().__dlpack__(), which runs Python checks (~2.5 us). _to_dlpack does not refuse
//     tensors that require grad, so no detach() is needed; it does not resolve the negative
//     or conjugate bits, so those are resolved first (is_neg() always, is_conj() for complex);
//   * the capsule is read directly (DLPack is a stable C ABI) and dropped; `owner` keeps the
//     tensor itself alive, which keeps its storage alive.
// Tensors without host-readable storage (meta, fake, wrapper subclasses such as DTensor)
// come back as metadata only: data == nullptr and on_cpu == false.
// numpy arrays and other DLPack producers: __dlpack__(max_version=(1, 0)), falling back to
// __dlpack__(); the unconsumed capsule is the owner (its destructor frees the export).
#include "tensor_from_python.h"

#include <Python.h>

#include <cstring>
#include <string>

#include "msprobe/base/error.h"

namespace msprobe {
namespace {

// ---- DLPack ABI (dlpack.h, v0.8 legacy and v1.x versioned structs) -----------------------------

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion {
  uint32_t major, minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned*);
  uint64_t flags;
  DLTensor dl_tensor;
};

enum : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};
enum : int32_t { kDLCPU = 1, kDLCUDAHost = 3, kDLROCMHost = 11 };

// ---- Cached Python objects (all accessed with the GIL held) ----------------------------------

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

TorchCache g_torch;

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

// Borrowed reference to an attribute found on the type (not the instance), or nullptr.
PyObject* type_lookup(PyTypeObject* tp, PyObject* name) {
#if PY_VERSION_HEX >= 0x030D0000
  PyObject* r = _PyType_LookupRef(tp, name);
  Py_XDECREF(r);  // types keep their attributes alive
  return r;
#else
  return _PyType_Lookup(tp, name);
#endif
}

PyObject* get_attr_or_null(PyObject* o, const char* name) {
  PyObject* r = PyObject_GetAttrString(o, name);
  if (!r) PyErr_Clear();
  return r;
}

// Fills the cache once torch has been imported by the user. Returns false while it is not.
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
    if (p && PyType_Check(p)) c.parameter = (PyTypeObject*)p;
    else Py_XDECREF(p);
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

// ---- DLPack decoding ------------------------------------------------------------------------

// Returns false when the dtype is not one we support.
bool dtype_from_dlpack(DLDataType t, DType& out) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case kDLBool:
      if (t.bits == 8) return out = DType::kBool, true;
      return false;
    case kDLInt:
      switch (t.bits) {
        case 8: return out = DType::kInt8, true;
        case 16: return out = DType::kInt16, true;
        case 32: return out = DType::kInt32, true;
        case 64: return out = DType::kInt64, true;
      }
      return false;
    case kDLUInt:
      if (t.bits == 8) return out = DType::kUInt8, true;
      return false;
    case kDLFloat:
      switch (t.bits) {
        case 16: return out = DType::kFloat16, true;
        case 32: return out = DType::kFloat32, true;
        case 64: return out = DType::kFloat64, true;
      }
      return false;
    case kDLBfloat:
      if (t.bits == 16) return out = DType::kBFloat16, true;
      return false;
    case kDLComplex:
      if (t.bits == 64) return out = DType::kComplex64, true;
      if (t.bits == 128) return out = DType::kComplex128, true;
      return false;
  }
  return false;
}

std::string torch_dtype_str(PyObject* tensor);

// Reads a DLPack capsule (legacy or versioned) into `out.view`. Does not consume it.
// A torch tensor, when given, names the dtype in errors (e.g. "torch.uint16").
void read_capsule(PyObject* cap, PyTensor& out, PyObject* torch_tensor) {
  const DLTensor* t = nullptr;
  if (PyCapsule_IsValid(cap, "dltensor")) {
    t = &static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"))->dl_tensor;
  } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    auto* v = static_cast<DLManagedTensorVersioned*>(
        PyCapsule_GetPointer(cap, "dltensor_versioned"));
    if (v->version.major != 1)
      throw InvalidInput("unsupported DLPack major version " + std::to_string(v->version.major));
    t = &v->dl_tensor;
  } else {
    throw InvalidInput("__dlpack__ did not return a DLPack capsule");
  }
  DType d;
  if (!dtype_from_dlpack(t->dtype, d)) {
    std::string name = torch_tensor ? torch_dtype_str(torch_tensor) : std::string();
    if (name.empty())
      name = "DLPack type code " + std::to_string(t->dtype.code) + " with " +
             std::to_string(t->dtype.bits) + " bits";
    throw InvalidInput("unsupported tensor dtype " + name +
                       ": supported are bool, uint8, int8-int64, float16, bfloat16, float32, "
                       "float64, complex64, complex128");
  }
  out.view.dtype = d;
  out.view.data = static_cast<const char*>(t->data) + t->byte_offset;
  out.view.shape.assign(t->shape, t->shape + t->ndim);
  if (t->strides && t->ndim > 0) out.view.strides.assign(t->strides, t->strides + t->ndim);
  else out.view.strides.clear();
  const int32_t dev = t->device.device_type;
  out.on_cpu = dev == kDLCPU || dev == kDLCUDAHost || dev == kDLROCMHost;
}

std::string torch_dtype_str(PyObject* tensor) {
  PyObject* dt = PyObject_GetAttr(tensor, names().dtype);
  if (!dt) {
    PyErr_Clear();
    return std::string();
  }
  nb::object d = nb::steal(dt);
  nb::str s = nb::str(d);
  return s.c_str();
}

// Shape, strides and dtype from Python attributes; no data. For tensors whose memory cannot
// be exported (meta, fake, wrapper subclasses). Returns false for non-strided layouts and for
// symbolic shapes; throws InvalidInput for unsupported dtypes.
bool torch_metadata_only_impl(PyObject* o, PyTensor& out) {
  if (g_torch.strided) {
    PyObject* layout = PyObject_GetAttr(o, names().layout);
    if (!layout) {
      PyErr_Clear();
      return false;
    }
    const bool strided = layout == g_torch.strided;
    Py_DECREF(layout);
    if (!strided) return false;
  }
  out.view.dtype = dtype_from_name(torch_dtype_str(o));  // throws for unsupported dtypes
  nb::object shape = nb::steal(PyObject_GetAttr(o, names().shape));
  if (!shape.is_valid()) throw nb::python_error();
  out.view.shape.clear();
  for (nb::handle s : shape) out.view.shape.push_back(nb::cast<int64_t>(s));
  out.view.strides.clear();
  PyObject* st = PyObject_CallMethodNoArgs(o, names().stride);
  if (st) {
    nb::object strides = nb::steal(st);
    for (nb::handle s : strides) out.view.strides.push_back(nb::cast<int64_t>(s));
    if (out.view.strides.size() != out.view.shape.size()) out.view.strides.clear();
  } else {
    PyErr_Clear();
  }
  out.view.data = nullptr;
  out.on_cpu = false;
  return true;
}

bool torch_metadata_only(PyObject* o, PyTensor& out) {
  try {
    return torch_metadata_only_impl(o, out);
  } catch (const nb::python_error&) {
    return false;  // e.g. a shape attribute that raises
  } catch (const nb::cast_error&) {
    return false;  // symbolic sizes
  }
}

bool is_plain_tensor_type(PyTypeObject* tp) {
  return tp == g_torch.tensor || (g_torch.parameter && tp == g_torch.parameter);
}

bool from_torch(PyObject* o, PyTensor& out) {
  PyObject* rg = PyObject_GetAttr(o, names().requires_grad);
  if (!rg) throw nb::python_error();
  out.requires_grad = rg == Py_True;
  Py_DECREF(rg);

  PyTypeObject* tp = Py_TYPE(o);
  if (!is_plain_tensor_type(tp)) {
    // Subclasses that intercept dispatch (FakeTensor, FunctionalTensor, DTensor...) may not
    // have real storage behind their data pointer: describe them without data.
    PyObject* disp = type_lookup(tp, names().torch_dispatch);
    if (disp && disp != g_torch.dispatch_default) {
      out.dispatch_subclass = true;
      return torch_metadata_only(o, out);
    }
  }

  nb::object t = nb::borrow(o);
  if (call_bool_method(g_torch.is_neg, o)) t = call_method(g_torch.resolve_neg, o);
  if (!g_torch.to_dlpack) t = call_method(g_torch.detach, t.ptr());  // old torch: __dlpack__

  for (int attempt = 0; attempt < 2; ++attempt) {
    PyObject* cap;
    if (g_torch.to_dlpack) {
      PyObject* args[] = {t.ptr()};
      cap = PyObject_Vectorcall(g_torch.to_dlpack, args, 1, nullptr);
    } else {
      cap = PyObject_CallMethodNoArgs(t.ptr(), names().dlpack);
    }
    if (!cap) {
      // meta, sparse, quantized, nested, no storage...
      PyErr_Clear();
      return torch_metadata_only(t.ptr(), out);
    }
    nb::object capsule = nb::steal(cap);
    read_capsule(capsule.ptr(), out, t.ptr());
    if (out.view.dtype == DType::kComplex64 || out.view.dtype == DType::kComplex128) {
      if (attempt == 0 && call_bool_method(g_torch.is_conj, t.ptr())) {
        t = call_method(g_torch.resolve_conj, t.ptr());
        continue;
      }
    } else if (out.view.dtype == DType::kUInt8 && g_torch.bool_dtype) {
      // Old torch versions exported bool as uint8.
      PyObject* dt = PyObject_GetAttr(t.ptr(), names().dtype);
      if (!dt) throw nb::python_error();
      if (dt == g_torch.bool_dtype) out.view.dtype = DType::kBool;
      Py_DECREF(dt);
    }
    break;
  }
  out.owner = std::move(t);  // keeps the storage alive; the capsule is released here
  return true;
}

bool from_dlpack_producer(PyObject* o, PyObject* dlpack_method, PyTensor& out) {
  const Names& n = names();
  // __dlpack__ looked up on the type is a plain function: call it with self first.
  PyObject* args[] = {o, n.version_1_0};
  PyObject* cap = PyObject_Vectorcall(dlpack_method, args, 1, n.max_version_kw);
  if (!cap) {
    PyErr_Clear();  // producers older than DLPack 1.0 do not take max_version
    cap = PyObject_Vectorcall(dlpack_method, args, 1, nullptr);
    if (!cap) {
      PyErr_Clear();
      return false;
    }
  }
  nb::object capsule = nb::steal(cap);
  read_capsule(capsule.ptr(), out, nullptr);
  out.requires_grad = false;
  out.owner = std::move(capsule);  // unconsumed: its destructor releases the export
  return true;
}

}  // namespace

bool tensor_from_python(nb::handle obj, PyTensor& out) {
  PyObject* o = obj.ptr();
  if (!o || o == Py_None || PyLong_Check(o) || PyFloat_Check(o) || PyUnicode_Check(o) ||
      PyTuple_Check(o) || PyList_Check(o) || PyDict_Check(o) || PyBytes_Check(o) ||
      PySlice_Check(o) || o == Py_Ellipsis)
    return false;
  PyTypeObject* tp = Py_TYPE(o);
  if (torch_ready() && (is_plain_tensor_type(tp) || PyType_IsSubtype(tp, g_torch.tensor)))
    return from_torch(o, out);
  PyObject* dl = type_lookup(tp, names().dlpack);
  if (!dl) return false;
  Py_INCREF(dl);
  nb::object keep = nb::steal(dl);
  return from_dlpack_producer(o, dl, out);
}

}  // namespace msprobe
