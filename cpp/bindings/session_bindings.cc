// msprobe._core.DumpSession: one call per framework event (API pre/post/backward, module
// pre/post, parameter gradient). Naming, counting, filtering and rendering happen here in C++.
#include <Python.h>
#include <frameobject.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <deque>
#include <memory>
#include <unordered_map>

#include "arg_encoder.h"
#include "msprobe/base/error.h"
#include "msprobe/dump/dump_session.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace msprobe {
namespace {

// Builds an entry object key by key: `"key": value` parts rendered at depth 3.
class EntryBuilder {
 public:
  template <typename Fn>
  void part(const char* key, Fn&& fn) {
    std::string text;
    append_json_string(text, key);
    text += ": ";
    JsonWriter w(text, 3);
    fn(w);
    parts_.push_back(std::move(text));
  }
  bool empty() const { return parts_.empty(); }
  std::string finish() const {
    if (parts_.empty()) return "{}";
    std::string out = "{";
    for (size_t i = 0; i < parts_.size(); ++i) {
      out += i ? ",\n   " : "\n   ";
      out += parts_[i];
    }
    out += "\n  }";
    return out;
  }
  void append(EntryBuilder&& other) {
    for (auto& p : other.parts_) parts_.push_back(std::move(p));
  }

 private:
  std::vector<std::string> parts_;
};

// parameters_grad of one module call tree: filled as gradients arrive.
struct PendingParamGrads {
  std::vector<std::string> names;
  std::unordered_map<std::string, std::string> rendered;  // param → "[...]" text at depth 3
};

class PySession {
 public:
  PySession(const DumpConfig& cfg, const std::string& framework, size_t writer_memory_mb)
      : session_(cfg, options(framework, writer_memory_mb)), encoder_(session_, types_) {}

  static SessionOptions options(const std::string& framework, size_t mb) {
    SessionOptions o;
    o.framework = framework == "mindspore" ? Framework::kMindSpore : Framework::kPyTorch;
    o.framework_name = framework;
    o.writer_memory_bytes = mb << 20;
    return o;
  }

  void set_types(nb::object size_type, nb::object numpy_generic, nb::object fallback,
                 nb::object to_host, std::string internal_prefix) {
    types_.size_type = std::move(size_type);
    types_.numpy_generic = std::move(numpy_generic);
    types_.fallback = std::move(fallback);
    types_.to_host = std::move(to_host);
    internal_prefix_ = std::move(internal_prefix);
  }

  // Deferred reads: values of type `deferred` are rendered by resolve() at the latest when
  // `max_pending` are waiting or the oldest has waited `max_age_s`, and at stop/step/close.
  void set_deferral(nb::object deferred, nb::object resolve, size_t max_pending,
                    double max_age_s) {
    types_.deferred = std::move(deferred);
    types_.resolve = std::move(resolve);
    max_deferred_ = max_pending ? max_pending : 1;
    max_deferred_age_s_ = max_age_s;
  }

  // Device path (arg_encoder.h, PythonTypes): accelerator tensors are recorded through
  // `record`, read back in batches through prepare/resolve; `all_tensors` (a testing aid) sends
  // CPU tensors the same way.
  void set_device_path(nb::object record, nb::object prepare, nb::object extremes,
                       nb::object rescaled, bool all_tensors) {
    auto callable = [](nb::object f) { return f.is_none() ? nb::object() : std::move(f); };
    types_.device_record = callable(std::move(record));
    types_.prepare = callable(std::move(prepare));
    types_.extremes = callable(std::move(extremes));
    types_.rescaled = callable(std::move(rescaled));
    types_.device_all = all_tensors;
  }

  bool start(int64_t rank) { return session_.start(rank); }
  void stop() {
    flush_param_grads();
    resolve();
    session_.stop();
  }
  // Interpreter exit: write what is pending and close the files without advancing the step.
  void close() {
    flush_param_grads();
    resolve();
    drop_unresolved();
    session_.close();
  }
  void step() {
    flush_param_grads();
    resolve();
    pending_.clear();  // calls without a post hook: their entries are never written
    drop_unresolved();
    session_.step();
    encoder_.clear_saved();
  }

  // Reads every deferred value (only those ready without waiting unless `force`) and writes
  // the entries that were waiting for them, in order.
  void resolve(bool force = true) {
    if (encoder_.deferred_count() != 0) {
      for (auto& [id, text] : encoder_.render_deferred(force))
        resolved_.emplace(id, std::move(text));
    }
    drain();
  }

  // API forward pre-hook: counts the call and records its inputs. Returns the call index, or
  // -1 when nothing is collected for this call.
  int64_t api_pre(const std::string& api, nb::handle args, nb::handle kwargs) {
    if (!session_.healthy()) return -1;
    const int64_t idx = session_.next_api_index(api);
    const std::string name = api + "." + std::to_string(idx) + ".forward";
    session_.record_parent(name);
    EntryBuilder& e = pending_[name];
    if (session_.data_mode().allows(true, true) && session_.scope().check(name)) {
      e.part("input_args", [&](JsonWriter& w) { positional(w, args, name, "input"); });
      e.part("input_kwargs", [&](JsonWriter& w) { keywords(w, kwargs, name); });
    }
    return idx;
  }

  // API forward hook: records the outputs and the stack, writes the entry. Returns whether the
  // forward was collected (then the adapter hooks the backward).
  bool api_post(const std::string& api, int64_t idx, nb::handle output) {
    const std::string name = api + "." + std::to_string(idx) + ".forward";
    auto it = pending_.find(name);
    EntryBuilder e;
    if (it != pending_.end()) {
      e = std::move(it->second);
      pending_.erase(it);
    }
    if (!session_.healthy()) return false;
    // The stack follows the scope filter but not data_mode (as in the original).
    const bool in_scope = session_.scope().check(name);
    if (in_scope && session_.data_mode().allows(true, false))
      e.part("output", [&](JsonWriter& w) { as_list(w, output, name, "output"); });
    if (!e.empty()) emit(name, e.finish());
    if (in_scope) session_.emit_stack(name, capture_stack());
    maybe_resolve();
    return in_scope && session_.data_mode().backward();
  }

  // API backward (autograd node hook): grad_outputs are the gradients flowing in ("input"),
  // grad_inputs those produced ("output").
  void api_backward(const std::string& api, int64_t idx, nb::handle grad_outputs,
                    nb::handle grad_inputs) {
    if (session_.disabled()) return;
    const std::string name = api + "." + std::to_string(idx) + ".backward";
    backward_entry(name, grad_outputs, grad_inputs, true);
    maybe_resolve();
  }

  // Module / Cell node pre-hook (forward or backward): counts, pushes and records the parent.
  std::string module_pre(const std::string& prefix, const std::string& direction) {
    const std::string key = prefix + direction;
    const int64_t idx = session_.next_module_index(key);
    std::string name = key + "." + std::to_string(idx);
    session_.push_module(name);
    session_.scope().begin_module(name);
    if (session_.switch_on()) session_.record_parent(name);
    return name;
  }

  // Module forward hook: records inputs, outputs and direct parameters; pops the module.
  // Returns whether the entry was collected (then parameter gradients are wanted).
  bool module_post_forward(const std::string& name, nb::handle args, nb::handle kwargs,
                           nb::handle output, nb::handle params) {
    bool collected = false;
    if (session_.healthy() && session_.scope().check(name)) {
      EntryBuilder e;
      const auto& dm = session_.data_mode();
      if (dm.allows(true, true)) {
        e.part("input_args", [&](JsonWriter& w) { positional(w, args, name, "input"); });
        e.part("input_kwargs", [&](JsonWriter& w) { keywords(w, kwargs, name); });
      }
      if (dm.allows(true, false))
        e.part("output", [&](JsonWriter& w) { as_list(w, output, name, "output"); });
      if (!e.empty()) {
        e.part("parameters", [&](JsonWriter& w) {
          w.begin_object();
          PyObject *k, *v;
          Py_ssize_t pos = 0;
          while (!params.is_none() && PyDict_Next(params.ptr(), &pos, &k, &v)) {
            if (v == Py_None) continue;
            std::string key = nb::str(k).c_str();
            w.key(key);
            std::string path = key;
            encoder_.value(w, v, name, "parameters", path, 1, nullptr);
          }
          w.end_object();
        });
      }
      if (!e.empty()) emit(name, e.finish());
      session_.emit_stack(name, capture_stack());  // follows the scope, not data_mode
      collected = true;
    }
    session_.pop_module(name);
    session_.scope().end_module(name);
    maybe_resolve();
    return collected;
  }

  // Module full backward hook: grad_output flows in ("input"), grad_input out ("output").
  void module_post_backward(const std::string& name, nb::handle grad_input,
                            nb::handle grad_output) {
    if (session_.switch_on()) backward_entry(name, grad_output, grad_input, false);
    session_.pop_module(name);
    session_.scope().end_module(name);
    maybe_resolve();
  }

  // One parameter's gradient for "{prefix}parameters_grad"; `names` lists every parameter the
  // entry waits for. The entry is written once all have arrived (or at stop()/step()).
  void param_grad(const std::string& prefix, const std::string& param, nb::handle grad,
                  std::vector<std::string> names) {
    if (!session_.switch_on() || !session_.data_mode().backward()) return;
    const std::string name = prefix + "parameters_grad";
    PendingParamGrads& p = param_grads_[name];
    if (p.names.empty()) {
      p.names = std::move(names);
      param_order_.push_back(name);
    }
    std::string text;
    JsonWriter w(text, 3);
    w.begin_array();
    encoder_.tensor_named(w, grad, name + "." + param);
    w.end_array();
    p.rendered[param] = std::move(text);
    if (p.rendered.size() >= p.names.size()) write_param_grads(name);
    maybe_resolve();
  }

  void flush() { session_.flush(); }
  void enter_region(const std::string& name) { session_.enter_region(name); }
  void exit_region(const std::string& name) { session_.exit_region(name); }
  DumpSession& core() { return session_; }

 private:
  void backward_entry(const std::string& name, nb::handle in, nb::handle out, bool is_api) {
    if (is_api) session_.record_parent(name);  // modules recorded theirs in module_pre
    if (!session_.scope().check(name)) return;
    EntryBuilder e;
    const auto& dm = session_.data_mode();
    if (dm.allows(false, true))
      e.part("input", [&](JsonWriter& w) { as_list(w, in, name, "input"); });
    if (dm.allows(false, false))
      e.part("output", [&](JsonWriter& w) { as_list(w, out, name, "output"); });
    if (!e.empty()) emit(name, e.finish());
  }

  void write_param_grads(const std::string& name) {
    auto it = param_grads_.find(name);
    if (it == param_grads_.end()) return;
    std::string text = "{";
    bool first = true;
    for (const auto& pname : it->second.names) {
      text += first ? "\n   " : ",\n   ";
      first = false;
      append_json_string(text, pname);
      text += ": ";
      auto r = it->second.rendered.find(pname);
      text += r != it->second.rendered.end() ? r->second : "[\n    null\n   ]";
    }
    text += first ? "}" : "\n  }";
    emit(name, std::move(text));
    param_grads_.erase(it);
  }

  // Entries go to the session in the order they were made; one that holds deferred values
  // waits (with every later one) until they are rendered.
  void emit(const std::string& name, std::string text) {
    if (queue_.empty() && text.find(kDeferredMark) == std::string::npos) {
      session_.emit_entry(name, text);
      return;
    }
    queue_.push_back(QueuedEntry{name, std::move(text)});
    drain();
  }

  void drain() {
    while (!queue_.empty()) {
      QueuedEntry& q = queue_.front();
      if (!substitute(q.text)) return;
      session_.emit_entry(q.name, q.text);
      queue_.pop_front();
    }
  }

  // Replaces the markers whose values are rendered; returns whether none is left.
  bool substitute(std::string& text) {
    size_t pos = text.find(kDeferredMark);
    if (pos == std::string::npos) return true;
    std::string out;
    out.reserve(text.size() + 256);
    size_t done = 0;
    bool complete = true;
    while (pos != std::string::npos) {
      const size_t end = text.find(kDeferredMark, pos + 1);
      if (end == std::string::npos) break;
      const uint64_t id = std::strtoull(text.c_str() + pos + 1, nullptr, 10);
      auto it = resolved_.find(id);
      out.append(text, done, pos - done);
      if (it != resolved_.end()) {
        out += it->second;
        resolved_.erase(it);
      } else {
        out.append(text, pos, end + 1 - pos);
        complete = false;
      }
      done = end + 1;
      pos = text.find(kDeferredMark, done);
    }
    out.append(text, done, std::string::npos);
    text.swap(out);
    return complete;
  }

  void maybe_resolve() {
    const size_t n = encoder_.deferred_count();
    if (n != 0 && (n >= max_deferred_ || encoder_.deferred_age_s() >= max_deferred_age_s_))
      resolve(false);
  }

  // End of a step: entries whose values were never rendered (their call had no post hook)
  // are written with null there.
  void drop_unresolved() {
    resolved_.clear();
    while (!queue_.empty()) {
      QueuedEntry& q = queue_.front();
      std::string out;
      for (size_t i = 0; i < q.text.size(); ++i) {
        if (q.text[i] != kDeferredMark) { out += q.text[i]; continue; }
        const size_t end = q.text.find(kDeferredMark, i + 1);
        if (end == std::string::npos) break;
        out += "null";
        i = end;
      }
      session_.emit_entry(q.name, out);
      queue_.pop_front();
    }
  }

  void flush_param_grads() {
    for (const auto& name : param_order_) write_param_grads(name);
    param_order_.clear();
  }

  void positional(JsonWriter& w, nb::handle args, const std::string& entry, const char* cat) {
    w.begin_array();
    if (!args.is_none()) {
      Py_ssize_t i = 0;
      for (nb::handle a : args) {
        std::string path = std::to_string(i++);
        encoder_.value(w, a, entry, cat, path, 1, nullptr);
      }
    }
    w.end_array();
  }

  void keywords(JsonWriter& w, nb::handle kwargs, const std::string& entry) {
    w.begin_object();
    if (!kwargs.is_none()) {
      PyObject *k, *v;
      Py_ssize_t pos = 0;
      while (PyDict_Next(kwargs.ptr(), &pos, &k, &v)) {
        std::string key = nb::str(k).c_str();
        w.key(key);
        std::string path = key;
        encoder_.value(w, v, entry, "kwargs", path, 1, key.c_str());
      }
    }
    w.end_object();
  }

  // A non-tuple result is recorded as a one-element list.
  void as_list(JsonWriter& w, nb::handle v, const std::string& entry, const char* cat) {
    if (PyTuple_Check(v.ptr()) || PyList_Check(v.ptr())) {
      if (!(PyTuple_Check(v.ptr()) && PyObject_HasAttrString(v.ptr(), "_fields"))) {
        positional(w, v, entry, cat);
        return;
      }
    }
    w.begin_array();
    std::string path = "0";
    encoder_.value(w, v, entry, cat, path, 1, nullptr);
    w.end_array();
  }

  // Walks the interpreter's frames (the probe's own excluded) and returns interned frame ids.
  // Frames are keyed by (code object, line); the code objects are kept alive so that their
  // addresses stay unique.
  std::vector<uint32_t> capture_stack() {
    std::vector<uint32_t> ids;
    PyFrameObject* f = PyEval_GetFrame();
    if (f) Py_INCREF(f);
    while (f) {
      PyCodeObject* code = PyFrame_GetCode(f);
      const int line = PyFrame_GetLineNumber(f);
      const FrameKey key{(PyObject*)code, line};
      auto it = frame_ids_.find(key);
      if (it != frame_ids_.end()) {
        if (it->second != kInternalFrame) ids.push_back(it->second);
        Py_DECREF(code);
      } else {
        const char* file = PyUnicode_AsUTF8(code->co_filename);
        uint32_t id = kInternalFrame;
        if (file && (internal_prefix_.empty() ||
                     std::strncmp(file, internal_prefix_.c_str(), internal_prefix_.size()) != 0)) {
          id = session_.intern_frame(file, line, PyUnicode_AsUTF8(code->co_name));
          ids.push_back(id);
        }
        frame_ids_.emplace(key, id);
        code_refs_.push_back(nb::steal((PyObject*)code));
      }
      PyFrameObject* back = PyFrame_GetBack(f);
      Py_DECREF(f);
      f = back;
    }
    return ids;
  }

  struct FrameKey {
    PyObject* code;
    int line;
    bool operator==(const FrameKey& o) const { return code == o.code && line == o.line; }
  };
  struct FrameKeyHash {
    size_t operator()(const FrameKey& k) const {
      return std::hash<const void*>()(k.code) ^ ((size_t)k.line * 0x9e3779b97f4a7c15ull);
    }
  };
  static constexpr uint32_t kInternalFrame = 0xffffffffu;
  std::unordered_map<FrameKey, uint32_t, FrameKeyHash> frame_ids_;
  std::vector<nb::object> code_refs_;

  PythonTypes types_;
  DumpSession session_;
  ArgEncoder encoder_;
  std::string internal_prefix_;
  std::unordered_map<std::string, EntryBuilder> pending_;
  struct QueuedEntry {
    std::string name;
    std::string text;
  };
  std::deque<QueuedEntry> queue_;                      // entries waiting for deferred values
  std::unordered_map<uint64_t, std::string> resolved_;  // rendered, not yet substituted
  size_t max_deferred_ = 64;
  double max_deferred_age_s_ = 0.5;
  std::unordered_map<std::string, PendingParamGrads> param_grads_;
  std::vector<std::string> param_order_;
};

}  // namespace
}  // namespace msprobe

void bind_session(nb::module_& m) {
  using msprobe::PySession;
  nb::class_<PySession>(m, "DumpSession")
      .def(nb::init<const msprobe::DumpConfig&, const std::string&, size_t>(), "config"_a,
           "framework"_a = "pytorch", "writer_memory_mb"_a = 512)
      .def("set_types", &PySession::set_types, "size_type"_a.none(), "numpy_generic"_a.none(),
           "fallback"_a.none(), "to_host"_a.none(), "internal_prefix"_a)
      .def("start", &PySession::start, "rank"_a = -1)
      .def("stop", &PySession::stop)
      .def("step", &PySession::step)
      .def("close", &PySession::close)
      .def("set_deferral", &PySession::set_deferral, "deferred_type"_a, "resolve"_a,
           "max_pending"_a = 64, "max_age_s"_a = 0.5)
      .def("resolve", [](PySession& s) { s.resolve(true); })
      .def("set_device_path", &PySession::set_device_path, "record"_a.none(), "prepare"_a.none(),
           "extremes"_a.none(), "rescaled"_a.none(), "all_tensors"_a = false)
      .def("flush", &PySession::flush, nb::call_guard<nb::gil_scoped_release>())
      .def("api_pre", &PySession::api_pre)
      .def("api_post", &PySession::api_post)
      .def("api_backward", &PySession::api_backward)
      .def("module_pre", &PySession::module_pre)
      .def("module_post_forward", &PySession::module_post_forward)
      .def("module_post_backward", &PySession::module_post_backward)
      .def("param_grad", &PySession::param_grad)
      .def("enter_region", &PySession::enter_region)
      .def("exit_region", &PySession::exit_region)
      .def_prop_ro("needs_tensor_bytes",
                   [](PySession& s) {
                     return s.core().tensor_task() || s.core().record_options().want_crc;
                   },
                   "The task reads every byte of a tensor (tensor files or md5), not only its "
                   "statistics.")
      .def_prop_ro("switch_on", [](PySession& s) { return s.core().switch_on(); })
      .def_prop_ro("ended", [](PySession& s) { return s.core().ended(); })
      .def_prop_ro("disabled", [](PySession& s) { return s.core().disabled(); })
      .def_prop_ro("disabled_reason", [](PySession& s) { return s.core().disabled_reason(); })
      .def_prop_ro("current_step", [](PySession& s) { return s.core().current_step(); })
      .def_prop_ro("entries_written", [](PySession& s) { return s.core().entries_written(); })
      .def_prop_ro("rank_dir", [](PySession& s) { return s.core().rank_dir(); });
}
