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
#include "msprobe/tensor/dlpack.h"
#include "py_torch_cache.h"

namespace msprobe {
namespace {

std::string torch_dtype_str(PyObject* tensor);

// Reads a DLPack capsule (legacy or versioned) into `out.view`. Does not consume it.
// A torch tensor, when given, names the dtype in errors (e.g. "torch.uint16").
void read_capsule(PyObject* cap, PyTensor& out, PyObject* torch_tensor) {
  const DLTensor* t = nullptr;
  if (PyCapsule_IsValid(cap, "dltensor")) {
    t = &static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"))->dl_tensor;
  } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    t = &dlpack_versioned_tensor(
        *static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned")));
  } else {
    throw InvalidInput("__dlpack__ did not return a DLPack capsule");
  }
  if (!view_from_dlpack(*t, out.view, out.on_cpu)) {
    throw InvalidInput(
        unsupported_dlpack_dtype(*t, torch_tensor ? torch_dtype_str(torch_tensor) : std::string()));
  }
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
  if (!o || o == Py_None || PyLong_Check(o) || PyFloat_Check(o) || PyUnicode_Check(o) || PyTuple_Check(o) ||
      PyList_Check(o) || PyDict_Check(o) || PyBytes_Check(o) || PySlice_Check(o) || o == Py_Ellipsis)
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

PyTensor host_tensor_arg(nb::handle obj, const std::string& what, bool allow_no_storage) {
  PyTensor t;
  bool ok;
  try {
    ok = tensor_from_python(obj, t);
  } catch (const InvalidInput& e) {
    throw nb::type_error((what + ": " + e.what()).c_str());
  }
  if (!ok) {
    throw nb::type_error((what + ": expected a torch.Tensor, numpy.ndarray or DLPack producer, got " +
                          nb::inst_name(obj).c_str())
                             .c_str());
  }
  const bool no_storage = t.view.data == nullptr && t.view.numel() > 0;
  if (!t.on_cpu && !(allow_no_storage && no_storage))
    throw nb::value_error((what + ": the tensor is in device memory; move it to the CPU first").c_str());
  if (no_storage && !allow_no_storage)
    throw nb::value_error((what + ": the tensor has no readable storage").c_str());
  return t;
}

}  // namespace msprobe
