// Turning Python tensor objects (torch.Tensor, numpy.ndarray, anything with __dlpack__) into
// zero-copy TensorViews for the core.
#pragma once
#include <nanobind/nanobind.h>

#include <string>

#include "msprobe/tensor/tensor_view.h"

namespace nb = nanobind;

namespace msprobe {

struct PyTensor {
  TensorView view;
  nb::object owner;  // keeps the exported memory alive while the view is used
  bool requires_grad = false;
  bool on_cpu = true;              // false: device memory, the view's data must not be read on the host
  bool dispatch_subclass = false;  // a torch subclass that intercepts dispatch (fake, DTensor...)
};

// Fills `out` from a torch.Tensor (detached, conj resolved), a numpy array, or a DLPack producer.
// Returns false when `obj` is not a tensor we can view. Throws on unsupported dtypes.
bool tensor_from_python(nb::handle obj, PyTensor& out);

// The one host-view rule of the bindings' functions that take a tensor argument: `obj` as a view
// of host memory, or a Python TypeError / ValueError starting with `what` (e.g. "float_metrics:
// bench") when it is not a tensor, lives in device memory, or (unless allow_no_storage: shape
// and dtype only, e.g. meta tensors for statistics) has no readable storage.
PyTensor host_tensor_arg(nb::handle obj, const std::string& what, bool allow_no_storage = false);

}  // namespace msprobe
