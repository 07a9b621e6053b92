// Bindings of the tensor file encoders: encode_pt (torch.save format) and encode_npy.
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <string>

#include "msprobe/format/npy_writer.h"
#include "msprobe/format/pt_writer.h"
#include "msprobe/format/zip_writer.h"
#include "tensor_from_python.h"

namespace nb = nanobind;

namespace {

// Moves an encoded file into a new bytes object; the copy runs without the GIL.
nb::bytes to_bytes(const std::string& s) {
  PyObject* b = PyBytes_FromStringAndSize(nullptr, (Py_ssize_t)s.size());
  if (!b) throw nb::python_error();
  {
    nb::gil_scoped_release release;
    msprobe::advise_huge_pages(PyBytes_AS_STRING(b), s.size());
    std::memcpy(PyBytes_AS_STRING(b), s.data(), s.size());
  }
  return nb::steal<nb::bytes>(b);
}

}  // namespace

void bind_formats(nb::module_& m) {
  m.def(
      "encode_pt",
      [](nb::handle tensor, const std::string& archive_name, bool requires_grad) {
        msprobe::PyTensor t = msprobe::host_tensor_arg(tensor, "encode_pt");
        std::string out;
        {
          nb::gil_scoped_release release;
          out = msprobe::encode_pt(t.view, archive_name, requires_grad);
        }
        return to_bytes(out);
      },
      nb::arg("tensor"), nb::arg("archive_name"), nb::arg("requires_grad") = false,
      "The bytes of a torch.save file holding `tensor` (contiguous copy, CPU), loadable with "
      "torch.load(weights_only=True). archive_name: the zip's top folder (torch uses the file "
      "stem).");
  m.def(
      "encode_npy",
      [](nb::handle tensor) {
        msprobe::PyTensor t = msprobe::host_tensor_arg(tensor, "encode_npy");
        std::string out;
        {
          nb::gil_scoped_release release;
          out = msprobe::encode_npy(t.view);
        }
        return to_bytes(out);
      },
      nb::arg("tensor"),
      "The bytes of a .npy file (format 1.0) holding `tensor`; bfloat16 is written as float32.");
}
