// ArgEncoder's values read later (deferred_values.h): MindSpore's asynchronous values and the
// device path's statistics, rendered in batches as they become ready.
#include <Python.h>
#include <nanobind/stl/string.h>

#include <algorithm>
#include <cstring>

#include "arg_encoder.h"
#include "msprobe/dump/external_stats.h"

namespace msprobe {

DeferredValue& ArgEncoder::defer(JsonWriter& w, nb::handle v, std::string stem) {
  return deferred_.add(w, std::move(stem), out_.sink(), out_.output_side(),
                       std::make_unique<PyDeferred>(nb::borrow(v)));
}

void ArgEncoder::defer_device(JsonWriter& w, nb::handle v, nb::object handle, const PyTensor& pt,
                              const std::string& stem) {
  PyDeferred& d = payload(defer(w, handle, stem));
  d.device = true;
  d.dtype = pt.view.dtype;
  d.shape = pt.view.shape;
  d.requires_grad = pt.requires_grad;
  d.identity = identity_of(v, pt);
}

void ArgEncoder::external_record(JsonWriter& w, PyDeferred& d, nb::handle numbers, DType dtype,
                                 const std::vector<int64_t>& shape, bool requires_grad) {
  char* data = nullptr;
  Py_ssize_t len = 0;
  if (PyBytes_AsStringAndSize(numbers.ptr(), &data, &len) != 0) throw nb::python_error();
  ExternalStats e = decode_external_stats(dtype, shape, data, (size_t)len);
  if (types_.extremes.is_valid() && external_stats_need_extremes(dtype, shape, e)) {
    // Max or Min is inf/NaN (overflow; rare): the extremes over the finite values.
    nb::object x = types_.extremes(d.value);
    if (PyBytes_Check(x.ptr())) {
      std::string all(data, (size_t)len);
      all.append(PyBytes_AS_STRING(x.ptr()), (size_t)PyBytes_GET_SIZE(x.ptr()));
      e = decode_external_stats(dtype, shape, all.data(), all.size());
    }
  }
  if (types_.rescaled.is_valid() && external_stats_need_rescale(dtype, shape, e)) {
    const double scale = external_stats_scale(e);
    nb::object m = types_.rescaled(d.value, scale);
    if (PyBytes_Check(m.ptr()) && PyBytes_GET_SIZE(m.ptr()) == 2 * sizeof(double)) {
      double mn[2];
      std::memcpy(mn, PyBytes_AS_STRING(m.ptr()), sizeof(mn));
      set_rescaled_moments(e, mn[0] * scale, mn[1] * scale);
    }
  }
  write_external_tensor_record(w, dtype, shape, e, requires_grad, std::string(), s_.record_options());
}

// The same rendering as value() gives an object it reads at once: a tensor view, else the
// adapter's description of it; statistics computed on a device come back as numbers.
void ArgEncoder::render_one(JsonWriter& w, DeferredValue& dv) {
  PyDeferred& d = payload(dv);
  nb::object r = types_.resolve(d.value);
  if (PyBytes_Check(r.ptr())) {  // numbers of a device record (external_stats.h)
    external_record(w, d, r, d.dtype, d.shape, d.requires_grad);
    return;
  }
  if (PyTuple_Check(r.ptr()) && PyTuple_GET_SIZE(r.ptr()) == 3 &&
      PyBytes_Check(PyTuple_GET_ITEM(r.ptr(), 0))) {
    // (numbers, dtype name, shape) of a value whose tensor the core has not seen
    std::vector<int64_t> shape;
    for (nb::handle s : nb::borrow(PyTuple_GET_ITEM(r.ptr(), 2))) shape.push_back(nb::cast<int64_t>(s));
    const DType dtype = dtype_from_name(nb::cast<std::string>(nb::borrow(PyTuple_GET_ITEM(r.ptr(), 1))));
    external_record(w, d, nb::borrow(PyTuple_GET_ITEM(r.ptr(), 0)), dtype, shape, false);
    return;
  }
  PyTensor pt;
  if (view_tensor(r, pt)) {
    if (d.device) {  // the host copy of a device record
      pt.requires_grad = d.requires_grad;
      host_record(w, r, pt, dv.stem, &d.identity);
    } else {
      tensor_view(w, r, pt, dv.stem);
    }
  } else if (types_.fallback.is_valid()) {
    plain(w, types_.fallback(r, nb::none()), 1);
  } else {
    w.null();
  }
}

std::vector<std::pair<uint64_t, std::string>> ArgEncoder::render_deferred(bool force) {
  size_t ready = deferred_.size();
  if (types_.prepare.is_valid() && !deferred_.empty()) {
    nb::list fresh;
    for (const DeferredValue* d : deferred_.announce())
      fresh.append(static_cast<const PyDeferred&>(*d->payload).value);
    const size_t n = nb::cast<size_t>(types_.prepare(fresh, force));
    ready = force ? deferred_.size() : std::min(n, deferred_.size());
  }
  std::vector<std::pair<uint64_t, std::string>> out;
  if (ready == 0) return out;
  std::vector<DeferredValue> items = deferred_.take(ready);
  out.reserve(items.size());
  for (DeferredValue& d : items) {
    std::string text;
    JsonWriter w(text, d.depth);
    set_target(d.sink, d.output_side);
    // The same rendering as value() gives an object it reads at once: a tensor view, else
    // the adapter's description of it.
    try {
      render_one(w, d);
    } catch (const nb::python_error&) {
      text = "null";  // unreadable value: null, as value() writes for values it cannot view
    }
    out.emplace_back(d.id, std::move(text));
  }
  set_target(nullptr, false);
  return out;
}

}  // namespace msprobe
