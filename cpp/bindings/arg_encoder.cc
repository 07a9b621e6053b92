// Python values → dump.json values: see arg_encoder.h.
#include "arg_encoder.h"

#include <Python.h>
#include <nanobind/stl/string.h>

#include <cstring>

#include "msprobe/base/error.h"
#include "msprobe/dump/deferred_text.h"
#include "msprobe/dump/overflow_monitor.h"
#include "msprobe/dump/external_stats.h"
#include "msprobe/format/npy_writer.h"
#include "msprobe/format/pt_writer.h"
#include "tensor_from_python.h"

namespace msprobe {

namespace {
constexpr int kMaxDepth = 10;           // the original's nesting limit

void typed_scalar(JsonWriter& w, const char* type) {
  w.begin_object();
  w.key("type");
  w.string(type);
  w.key("value");
}

void python_int(JsonWriter& w, nb::handle v) {
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow == 0) {
    w.integer(x);
  } else {
    nb::str s = nb::str(v);
    w.raw(s.c_str());
  }
}

void slice_part(JsonWriter& w, PyObject* p) {
  if (p == Py_None) { w.null(); return; }
  nb::object as_int = nb::steal(PyNumber_Long(p));
  if (!as_int.is_valid()) { PyErr_Clear(); w.null(); return; }
  python_int(w, as_int);
}
}  // namespace

void ArgEncoder::plain(JsonWriter& w, nb::handle v, int depth) {
  PyObject* o = v.ptr();
  if (o == Py_None || depth > kMaxDepth) { w.null(); return; }
  if (PyBool_Check(o)) { w.boolean(o == Py_True); return; }
  if (PyLong_Check(o)) { python_int(w, v); return; }
  if (PyFloat_Check(o)) { w.floating(PyFloat_AS_DOUBLE(o)); return; }
  if (PyUnicode_Check(o)) { w.string(PyUnicode_AsUTF8(o)); return; }
  if (PyDict_Check(o)) {
    w.begin_object();
    PyObject *k, *val;
    Py_ssize_t pos = 0;
    while (PyDict_Next(o, &pos, &k, &val)) {
      w.key(nb::str(k).c_str());
      plain(w, val, depth + 1);
    }
    w.end_object();
    return;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    w.begin_array();
    for (nb::handle item : v) plain(w, item, depth + 1);
    w.end_array();
    return;
  }
  w.null();
}

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

ArgEncoder::TensorIdentity ArgEncoder::identity_of(nb::handle v, const PyTensor& pt) const {
  TensorIdentity id;
  id.version = version_counter(v);
  if (id.version < 0) return id;
  PyObject* ref = PyWeakref_NewRef(v.ptr(), nullptr);
  if (!ref) {
    PyErr_Clear();
    id.version = -1;
    return id;
  }
  id.weak = nb::steal(ref);
  id.view.data = pt.view.data;
  id.view.dtype = pt.view.dtype;
  id.view.shape = pt.view.shape;
  id.view.strides = pt.view.strides;
  return id;
}

// Returns true when the file was linked (contents handed over as a fallback).
bool ArgEncoder::save_or_link(const TensorIdentity& id, uint32_t crc, const std::string& data_name,
                              std::string& contents) {
  constexpr size_t kMaxRemembered = 8192;
  if (id.version < 0 || !id.weak.is_valid()) return false;
  PyObject* obj = PyWeakref_GetObject(id.weak.ptr());  // borrowed; Py_None once dead
  if (obj == nullptr || obj == Py_None) {
    PyErr_Clear();
    return false;
  }
  auto it = saved_.find(obj);
  if (it != saved_.end()) {
    const SavedTensor& old = it->second;
    const bool same = PyWeakref_GetObject(old.weak.ptr()) == obj && old.version == id.version &&
                      old.crc == crc && old.data == id.view.data &&
                      old.dtype == id.view.dtype && old.shape == id.view.shape &&
                      old.strides == id.view.strides;
    if (same) {
      s_.link_tensor_file(old.data_name, data_name, std::move(contents));
      return true;
    }
  }
  if (saved_.size() >= kMaxRemembered) saved_.clear();
  saved_[obj] = SavedTensor{id.weak, id.version, crc, id.view.data, id.view.dtype,
                            id.view.shape, id.view.strides, data_name};
  return false;
}

void ArgEncoder::tensor(JsonWriter& w, nb::handle v, const std::string& stem) {
  PyTensor pt;
  if (!view_tensor(v, pt)) { w.null(); return; }
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
    TensorIdentity id = links_files() ? identity_of(v, pt) : TensorIdentity{};
    PyTensor hp;
    if (!view_tensor(host, hp)) { w.null(); return; }
    hp.requires_grad = rg;
    host_record(w, host, hp, stem, &id);
    return;
  }
  TensorIdentity id = links_files() ? identity_of(v, pt) : TensorIdentity{};
  host_record(w, v, pt, stem, &id);
}

void ArgEncoder::host_record(JsonWriter& w, nb::handle obj, PyTensor& pt, const std::string& stem,
                             const TensorIdentity* id) {
  const TensorRecordOptions& opt = s_.record_options();
  TensorStats stats;
  if (pt.view.data == nullptr && pt.view.numel() > 0) {
    // No readable memory (meta / fake tensors): shape and dtype only, statistics null.
    write_tensor_record_with_stats(w, pt.view.dtype, pt.view.shape, stats, pt.requires_grad,
                                   std::string(), opt);
    return;
  }
  std::string file_contents;
  const bool save = s_.tensor_task();
  // overflow_check names every tensor's file; the files are written if the entry overflows.
  const std::string data_name =
      save || s_.overflow_task() ? stem + s_.tensor_extension() : std::string();
  // The GIL stays held: session state is guarded by it (hooks may run on other threads).
  stats = compute_stats(pt.view, opt.want_crc);
  if (sink_) {
    if (stats_overflow(stats)) (sink_output_ ? sink_->outputs : sink_->inputs) = true;
    sink_->held.push_back(std::make_unique<PyHeldTensor>(nb::borrow(obj), stem, pt.requires_grad));
  }
  uint32_t data_crc = 0;
  if (save) {
    file_contents = opt.framework == Framework::kPyTorch
                        ? encode_pt(pt.view, stem, pt.requires_grad, &data_crc)
                        : encode_npy(pt.view);
  }
  write_tensor_record_with_stats(w, pt.view.dtype, pt.view.shape, stats, pt.requires_grad,
                                 data_name, opt);
  if (save && !(links_files() && id != nullptr &&
                save_or_link(*id, data_crc, data_name, file_contents)))
    s_.save_tensor_file(data_name, std::move(file_contents));
}

void ArgEncoder::save_held(OverflowSink& sink) {
  const TensorRecordOptions& opt = s_.record_options();
  for (const auto& held : sink.held) {
    const auto& h = static_cast<const PyHeldTensor&>(*held);
    PyTensor pt;
    if (!view_tensor(h.tensor, pt) || pt.view.data == nullptr) continue;
    std::string contents = opt.framework == Framework::kPyTorch
                               ? encode_pt(pt.view, h.stem, h.requires_grad, nullptr)
                               : encode_npy(pt.view);
    s_.save_tensor_file(h.stem + s_.tensor_extension(), std::move(contents));
  }
  sink.held.clear();
}

void ArgEncoder::tensor_named(JsonWriter& w, nb::handle v, const std::string& data_name_stem) {
  if (v.is_none()) { w.null(); return; }
  if (is_deferred(v.ptr())) { defer(w, v, data_name_stem); return; }
  tensor(w, v, data_name_stem);
}

void ArgEncoder::defer(JsonWriter& w, nb::handle v, std::string stem) {
  const uint64_t id = next_deferred_id_++;
  const int depth = w.depth();
  w.raw(deferred_marker(id));
  deferred_.push_back(
      Deferred{id, nb::borrow(v), std::move(stem), depth, sink_, sink_output_,
               std::chrono::steady_clock::now()});
}

void ArgEncoder::defer_device(JsonWriter& w, nb::handle v, nb::object handle, const PyTensor& pt,
                              const std::string& stem) {
  defer(w, handle, stem);
  Deferred& d = deferred_.back();
  d.device = true;
  d.dtype = pt.view.dtype;
  d.shape = pt.view.shape;
  d.requires_grad = pt.requires_grad;
  if (links_files()) d.identity = identity_of(v, pt);
}

double ArgEncoder::deferred_age_s() const {
  if (deferred_.empty()) return 0.0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - deferred_.front().since)
      .count();
}

void ArgEncoder::external_record(JsonWriter& w, Deferred& d, nb::handle numbers, DType dtype,
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
  write_external_tensor_record(w, dtype, shape, e, requires_grad, std::string(),
                               s_.record_options());
}

// The same rendering as value() gives an object it reads at once: a tensor view, else the
// adapter's description of it; statistics computed on a device come back as numbers.
void ArgEncoder::render_one(JsonWriter& w, Deferred& d) {
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
      host_record(w, r, pt, d.stem, &d.identity);
    } else {
      tensor_view(w, r, pt, d.stem);
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
    for (size_t i = prepared_; i < deferred_.size(); ++i) fresh.append(deferred_[i].value);
    prepared_ = deferred_.size();
    const size_t n = nb::cast<size_t>(types_.prepare(fresh, force));
    ready = force ? deferred_.size() : std::min(n, deferred_.size());
  }
  std::vector<std::pair<uint64_t, std::string>> out;
  if (ready == 0) return out;
  std::vector<Deferred> items;
  if (ready == deferred_.size()) {
    items.swap(deferred_);
  } else {
    items.assign(std::make_move_iterator(deferred_.begin()),
                 std::make_move_iterator(deferred_.begin() + (std::ptrdiff_t)ready));
    deferred_.erase(deferred_.begin(), deferred_.begin() + (std::ptrdiff_t)ready);
  }
  prepared_ = prepared_ > ready ? prepared_ - ready : 0;
  out.reserve(items.size());
  for (Deferred& d : items) {
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

void ArgEncoder::value(JsonWriter& w, nb::handle v, const std::string& entry, const char* category,
                       std::string& path, int depth, const char* kwarg_name) {
  PyObject* o = v.ptr();
  if (o == Py_None || depth > kMaxDepth) { w.null(); return; }
  if (is_deferred(o)) {
    defer(w, v, entry + "." + category + "." + path);
    return;
  }
  // Tensors first: they are by far the most common value.
  if (!PyBool_Check(o) && !PyLong_Check(o) && !PyFloat_Check(o) && !PyUnicode_Check(o) &&
      !PyList_Check(o) && !PyTuple_Check(o) && !PyDict_Check(o)) {
    PyTensor pt;
    if (view_tensor(v, pt)) {
      tensor_view(w, v, pt, entry + "." + category + "." + path);
      return;
    }
  }
  if (PyBool_Check(o)) { typed_scalar(w, "bool"); w.boolean(o == Py_True); w.end_object(); return; }
  if (PyLong_Check(o)) { typed_scalar(w, "int"); python_int(w, v); w.end_object(); return; }
  if (PyFloat_Check(o)) {
    typed_scalar(w, "float");
    w.floating(PyFloat_AS_DOUBLE(o));
    w.end_object();
    return;
  }
  if (PyUnicode_Check(o)) {
    typed_scalar(w, "str");
    w.string(PyUnicode_AsUTF8(o));
    w.end_object();
    return;
  }
  if (types_.size_type.is_valid() && PyObject_TypeCheck(o, (PyTypeObject*)types_.size_type.ptr())) {
    typed_scalar(w, "torch.Size");
    w.begin_array();
    for (nb::handle d : v) python_int(w, d);
    w.end_array();
    w.end_object();
    return;
  }
  const size_t base_len = path.size();
  auto child_path = [&](const std::string& part) {
    path.resize(base_len);
    if (!path.empty()) path += '.';
    path += part;
  };
  if (PyTuple_Check(o) && PyObject_HasAttrString(o, "_fields")) {  // namedtuple
    nb::object fields = nb::borrow(v).attr("_fields");
    w.begin_object();
    Py_ssize_t i = 0;
    for (nb::handle f : fields) {
      std::string key = nb::str(f).c_str();
      w.key(key);
      child_path(key);
      value(w, PyTuple_GET_ITEM(o, i++), entry, category, path, depth + 1, nullptr);
    }
    path.resize(base_len);
    w.end_object();
    return;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    w.begin_array();
    Py_ssize_t i = 0;
    for (nb::handle item : v) {
      child_path(std::to_string(i++));
      value(w, item, entry, category, path, depth + 1, nullptr);
    }
    path.resize(base_len);
    w.end_array();
    return;
  }
  if (PyDict_Check(o)) {
    w.begin_object();
    PyObject *k, *val;
    Py_ssize_t pos = 0;
    while (PyDict_Next(o, &pos, &k, &val)) {
      std::string key = nb::str(k).c_str();
      w.key(key);
      child_path(key);
      value(w, val, entry, category, path, depth + 1, key.c_str());
    }
    path.resize(base_len);
    w.end_object();
    return;
  }
  if (PySlice_Check(o)) {
    auto* s = reinterpret_cast<PySliceObject*>(o);
    typed_scalar(w, "slice");
    w.begin_array();
    slice_part(w, s->start);
    slice_part(w, s->stop);
    slice_part(w, s->step);
    w.end_array();
    w.end_object();
    return;
  }
  if (o == Py_Ellipsis) {
    typed_scalar(w, "ellipsis");
    w.string("...");
    w.end_object();
    return;
  }
  if (types_.numpy_generic.is_valid() &&
      PyObject_TypeCheck(o, (PyTypeObject*)types_.numpy_generic.ptr())) {
    typed_scalar(w, Py_TYPE(o)->tp_name);
    plain(w, nb::borrow(v).attr("item")(), depth + 1);
    w.end_object();
    return;
  }
  if (types_.fallback.is_valid()) {
    nb::object r = kwarg_name ? types_.fallback(v, kwarg_name) : types_.fallback(v, nb::none());
    plain(w, r, depth + 1);
    return;
  }
  w.null();
}

}  // namespace msprobe
