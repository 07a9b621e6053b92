// Python values → dump.json values: see arg_encoder.h.
#include "arg_encoder.h"

#include <Python.h>

#include "msprobe/base/error.h"
#include "msprobe/dump/overflow_monitor.h"
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

// Returns true when the file was linked (contents handed over as a fallback).
bool ArgEncoder::save_or_link(nb::handle v, const PyTensor& pt, uint32_t crc,
                              const std::string& data_name, std::string& contents) {
  constexpr size_t kMaxRemembered = 8192;
  const int64_t version = version_counter(v);
  if (version < 0) return false;
  auto it = saved_.find(v.ptr());
  if (it != saved_.end()) {
    const SavedTensor& old = it->second;
    const bool same = PyWeakref_GetObject(old.weak.ptr()) == v.ptr() && old.version == version &&
                      old.crc == crc && old.data == pt.view.data && old.dtype == pt.view.dtype &&
                      old.shape == pt.view.shape && old.strides == pt.view.strides;
    if (same) {
      s_.link_tensor_file(old.data_name, data_name, std::move(contents));
      return true;
    }
  }
  PyObject* ref = PyWeakref_NewRef(v.ptr(), nullptr);
  if (!ref) {
    PyErr_Clear();
    return false;
  }
  if (saved_.size() >= kMaxRemembered) saved_.clear();
  saved_[v.ptr()] = SavedTensor{nb::steal(ref), version, crc, pt.view.data, pt.view.dtype,
                                pt.view.shape, pt.view.strides, data_name};
  return false;
}

void ArgEncoder::tensor(JsonWriter& w, nb::handle v, const std::string& stem) {
  PyTensor pt;
  if (!view_tensor(v, pt)) { w.null(); return; }
  tensor_view(w, v, pt, stem);
}

void ArgEncoder::tensor_view(JsonWriter& w, nb::handle v, PyTensor& pt, const std::string& stem) {
  nb::object host;
  if (!pt.on_cpu && pt.view.data != nullptr && types_.to_host.is_valid()) {
    // Device memory cannot be read here: take a host copy through the adapter.
    host = types_.to_host(v);
    bool rg = pt.requires_grad;
    if (!view_tensor(host, pt)) { w.null(); return; }
    pt.requires_grad = rg;
  }
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
    sink_->held.push_back(HeldTensor{host.is_valid() ? host : nb::borrow(v), stem, pt.requires_grad});
  }
  uint32_t data_crc = 0;
  if (save) {
    file_contents = opt.framework == Framework::kPyTorch
                        ? encode_pt(pt.view, stem, pt.requires_grad, &data_crc)
                        : encode_npy(pt.view);
  }
  write_tensor_record_with_stats(w, pt.view.dtype, pt.view.shape, stats, pt.requires_grad,
                                 data_name, opt);
  if (save && !(opt.framework == Framework::kPyTorch &&
                save_or_link(v, pt, data_crc, data_name, file_contents)))
    s_.save_tensor_file(data_name, std::move(file_contents));
}

void ArgEncoder::save_held(OverflowSink& sink) {
  const TensorRecordOptions& opt = s_.record_options();
  for (HeldTensor& h : sink.held) {
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
  std::string marker(1, kDeferredMark);
  marker += std::to_string(id);
  marker += kDeferredMark;
  w.raw(marker);
  if (deferred_.empty()) oldest_deferred_ = std::chrono::steady_clock::now();
  deferred_.push_back(Deferred{id, nb::borrow(v), std::move(stem), depth, sink_, sink_output_});
}

double ArgEncoder::deferred_age_s() const {
  if (deferred_.empty()) return 0.0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - oldest_deferred_)
      .count();
}

std::vector<std::pair<uint64_t, std::string>> ArgEncoder::render_deferred() {
  std::vector<Deferred> items;
  items.swap(deferred_);
  std::vector<std::pair<uint64_t, std::string>> out;
  out.reserve(items.size());
  for (Deferred& d : items) {
    std::string text;
    JsonWriter w(text, d.depth);
    set_target(d.sink, d.output_side);
    // The same rendering as value() gives an object it reads at once: a tensor view, else
    // the adapter's description of it.
    try {
      nb::object host = types_.resolve(d.value);
      PyTensor pt;
      if (view_tensor(host, pt)) {
        tensor_view(w, host, pt, d.stem);
      } else if (types_.fallback.is_valid()) {
        plain(w, types_.fallback(host, nb::none()), 1);
      } else {
        w.null();
      }
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
