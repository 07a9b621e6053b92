// Turning Python tensor objects (torch.Tensor, numpy.ndarray, anything with __dlpack__) into
// zero-copy TensorViews for the core.
#pragma once
#include <nanobind/nanobind.h>

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

}  // namespace msprobe
