// Python tensors for ArgEncoder: the view the core reads, the identity that recognises a tensor
// saved before (tensor_dedup.h), the host copy of device memory.
#include <Python.h>
#include <nanobind/stl/string.h>

#include "arg_encoder.h"
#include "msprobe/base/error.h"

namespace msprobe {

// A tensor of a dtype the core cannot view (uint16, float8, quantized...) is written as null,
// like the original writes values it does not support.
bool ArgEncoder::view_tensor(nb::handle v, PyTensor& pt) {
  try {
    return tensor_from_python(v, pt);
  } catch (const InvalidInput&) {
    pt.view.data = nullptr;
    return false;
  }
}

namespace {
int64_t version_counter(nb::handle v) {
  PyObject* ver = PyObject_GetAttrString(v.ptr(), "_version");
  if (!ver) {
    PyErr_Clear();
    return -1;
  }
  const int64_t n = PyLong_AsLongLong(ver);
  Py_DECREF(ver);
  if (n == -1 && PyErr_Occurred()) PyErr_Clear();
  return n;
}
}  // namespace

namespace {
// A weak reference to a tensor object (tensor_dedup.h).
class PyWeakToken : public ObjectToken {
 public:
  explicit PyWeakToken(nb::object weak) : weak_(std::move(weak)) {}
  const void* object() const override {
    PyObject* obj = PyWeakref_GetObject(weak_.ptr());  // borrowed; Py_None once dead
    if (obj == nullptr || obj == Py_None) {
      PyErr_Clear();
      return nullptr;
    }
    return obj;
  }

 private:
  nb::object weak_;
};
}  // namespace

TensorIdentity ArgEncoder::identity_of(nb::handle v, const PyTensor& pt) const {
  TensorIdentity id;
  if (!out_.links_files()) return id;
  id.version = version_counter(v);
  if (id.version < 0) return id;
  PyObject* ref = PyWeakref_NewRef(v.ptr(), nullptr);
  if (!ref) {
    PyErr_Clear();
    id.version = -1;
    return id;
  }
  id.token = std::make_shared<PyWeakToken>(nb::steal(ref));
  id.data = pt.view.data;
  id.dtype = pt.view.dtype;
  id.shape = pt.view.shape;
  id.strides = pt.view.strides;
  return id;
}

void ArgEncoder::tensor(JsonWriter& w, nb::handle v, const std::string& stem) {
  PyTensor pt;
  if (!view_tensor(v, pt)) {
    w.null();
    return;
  }
  tensor_view(w, v, pt, stem);
}

void ArgEncoder::tensor_view(JsonWriter& w, nb::handle v, PyTensor& pt, const std::string& stem) {
  // Not for overflow_check, which keeps the tensors of an entry to save them if it overflows.
  if (types_.device_record.is_valid() && !pt.dispatch_subclass && pt.view.numel() > 0 &&
      (!pt.on_cpu || types_.device_all) && !s_.overflow_task()) {
    // Accelerator memory: statistics on the device (or an asynchronous host copy), read later.
    nb::object handle = types_.device_record(v);
    if (!handle.is_none()) {
      defer_device(w, v, std::move(handle), pt, stem);
      return;
    }
  }
  if (!pt.on_cpu && pt.view.data != nullptr && types_.to_host.is_valid()) {
    // Device memory cannot be read here: take a host copy through the adapter.
    nb::object host = types_.to_host(v);
    bool rg = pt.requires_grad;
    TensorIdentity id = identity_of(v, pt);
    PyTensor hp;
    if (!view_tensor(host, hp)) {
      w.null();
      return;
    }
    hp.requires_grad = rg;
    host_record(w, host, hp, stem, &id);
    return;
  }
  TensorIdentity id = identity_of(v, pt);
  host_record(w, v, pt, stem, &id);
}

void ArgEncoder::host_record(JsonWriter& w, nb::handle obj, PyTensor& pt, const std::string& stem,
                             const TensorIdentity* id) {
  // The GIL stays held: session state is guarded by it (hooks may run on other threads).
  out_.write(w, pt.view, pt.requires_grad, stem, id,
             [&] { return std::make_unique<PyHeldTensor>(nb::borrow(obj), stem, pt.requires_grad); });
}

void ArgEncoder::save_held(OverflowSink& sink) {
  for (const auto& held : sink.held) {
    const auto& h = static_cast<const PyHeldTensor&>(*held);
    PyTensor pt;
    if (!view_tensor(h.tensor, pt) || pt.view.data == nullptr) continue;
    out_.save_held(pt.view, h);
  }
  sink.held.clear();
}

}  // namespace msprobe
