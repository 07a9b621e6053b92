// Bindings of the statistics kernel and the CRC-32.
//   tensor_stats(obj, want_crc=False) -> dict   Max / Min / Mean / Norm (+ *_except_inf_nan, md5)
//   crc32(data, start=0) -> int                 zlib.crc32-compatible, any bytes-like object
#include <Python.h>
#include <nanobind/nanobind.h>

#include <cstdio>
#include <string>

#include "msprobe/base/error.h"
#include "msprobe/stats/tensor_stats.h"
#include "stats_to_python.h"
#include "tensor_from_python.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

nb::dict tensor_stats(nb::handle obj, bool want_crc) {
  msprobe::PyTensor t = msprobe::host_tensor_arg(obj, "tensor_stats", /*allow_no_storage=*/true);
  msprobe::TensorStats st;
  if (t.view.data != nullptr || t.view.numel() == 0) {
    nb::gil_scoped_release release;
    st = msprobe::compute_stats(t.view, want_crc);
  }
  // else: no readable storage (meta, fake or wrapper tensors): null statistics, as msprobe
  // 1.2.1 reports for meta tensors, and no checksum.
  nb::dict d = msprobe::stats_to_python(st);
  if (want_crc && st.crc32) {
    char hex[9];
    std::snprintf(hex, sizeof(hex), "%08x", (unsigned)*st.crc32);
    d["md5"] = nb::str(hex);
  }
  return d;
}

uint32_t crc32_py(nb::handle data, uint32_t start) {
  Py_buffer view;
  if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_SIMPLE) != 0) throw nb::python_error();
  uint32_t crc;
  if (view.len >= (1 << 16)) {
    nb::gil_scoped_release release;
    crc = msprobe::crc32_update(start, view.buf, (size_t)view.len);
  } else {
    crc = msprobe::crc32_update(start, view.buf, (size_t)view.len);
  }
  PyBuffer_Release(&view);
  return crc;
}

}  // namespace

void bind_stats(nb::module_& m) {
  m.def("tensor_stats", &tensor_stats, "obj"_a.none(), "want_crc"_a = false,
        "Statistics of a CPU tensor as msprobe 1.2.1 writes them to dump.json: a dict with\n"
        "Max, Min, Mean, Norm (None, bool, int or float), Max_except_inf_nan /\n"
        "Min_except_inf_nan when Max / Min is inf or NaN, and md5 (8 hex digits of the\n"
        "CRC-32, bf16 taken as float32) when want_crc. One pass; the GIL is released.");
  m.def("crc32", &crc32_py, "data"_a, "start"_a = 0,
        "CRC-32 of a bytes-like object, continuing from start (same as zlib.crc32).");
}
