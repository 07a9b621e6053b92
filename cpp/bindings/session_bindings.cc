// msprobe._core.DumpSession: one call per framework event (API pre/post/backward, module
// pre/post, parameter gradient). Naming, counting, filtering and rendering happen here in C++.
#include <Python.h>
#include <frameobject.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "arg_encoder.h"
#include "msprobe/base/error.h"
#include "msprobe/dump/dump_session.h"
#include "msprobe/dump/overflow_monitor.h"
#include "overflow_sink.h"

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
  SinkPtr sink;  // overflow_check: what the parts saw
  // overflow_check: decided already (no inf/NaN, no value still to read): nothing to write.
  bool finite_and_complete() const {
    if (!sink || sink->overflowed()) return false;
    for (const auto& p : parts_)
      if (p.find(kDeferredMark) != std::string::npos) return false;
    return true;
  }

 private:
  std::vector<std::string> parts_;
};

// parameters_grad of one module call tree: filled as gradients arrive.
struct PendingParamGrads {
  std::vector<std::string> names;
  std::unordered_map<std::string, std::string> rendered;  // param → "[...]" text at depth 3
  std::unordered_map<std::string, SinkPtr> sinks;         // overflow_check: per parameter
  std::vector<std::string> arrival;                        // parameters in gradient order
};

// An entry on its way to the session, waiting for deferred values when it holds some.
struct QueuedEntry {
  std::string name;
  std::string text;
  SinkPtr sink;        // overflow_check: what its tensors held
  int64_t source;      // overflow_check: the user's frame, or -1
  double time;         // overflow_check: when the call ended
  bool has_entry = true;
  bool has_stack = false;  // overflow_check: the forward's stack.json member goes with it
  std::vector<uint32_t> frames;
  int64_t place = -1;      // where in the step's entries it goes (DumpSession::mark_place)
};

class PySession {
 public:
  PySession(const DumpConfig& cfg, const std::string& framework, size_t writer_memory_mb)
      : session_(cfg, options(framework, writer_memory_mb)),
        encoder_(session_, types_),
        overflow_(session_.overflow_task()) {}

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

  // overflow_check: report(level, message) logs the first overflow and the step results;
  // library_prefixes are the folders whose frames are not the user's code.
  void set_overflow_reporting(nb::object report, std::vector<std::string> library_prefixes) {
    overflow_report_ = std::move(report);
    session_.set_library_prefixes(std::move(library_prefixes));
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
    report_step_overflows();
    session_.close();
  }
  void step() {
    flush_param_grads();
    resolve();
    pending_.clear();  // calls without a post hook: their entries are never written
    drop_unresolved();
    param_places_.clear();
    report_step_overflows();
    session_.step();
    encoder_.clear_saved();
    forward_source_.clear();
    forward_overflowed_.clear();
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
      part(e, "input_args", false, [&](JsonWriter& w) { positional(w, args, name, "input"); });
      part(e, "input_kwargs", false, [&](JsonWriter& w) { keywords(w, kwargs, name); });
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
      part(e, "output", true, [&](JsonWriter& w) { as_list(w, output, name, "output"); });
    if (in_scope) {
      std::vector<uint32_t> frames = capture_stack();
      if (overflow_) {
        const int64_t source = session_.user_frame(frames);
        forward_source_[api + "." + std::to_string(idx)] = source;
        emit_overflow_forward(name, e, source, std::move(frames));
      } else {
        if (!e.empty()) emit(name, e.finish());
        session_.emit_stack(name, frames);
      }
    } else if (!e.empty() && !overflow_) {
      // The scope's last API: its inputs only (1.2.1 writes nothing of it under overflow_check).
      emit(name, e.finish());
    }
    maybe_resolve();
    return in_scope && session_.data_mode().backward();
  }

  // API backward (autograd node hook): grad_outputs are the gradients flowing in ("input"),
  // grad_inputs those produced ("output").
  void api_backward(const std::string& api, int64_t idx, nb::handle grad_outputs,
                    nb::handle grad_inputs) {
    if (session_.disabled()) return;
    if (session_.overflow_terminated()) return;
    const std::string name = api + "." + std::to_string(idx) + ".backward";
    backward_entry(name, grad_outputs, grad_inputs, true, api + "." + std::to_string(idx));
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
        part(e, "input_args", false, [&](JsonWriter& w) { positional(w, args, name, "input"); });
        part(e, "input_kwargs", false, [&](JsonWriter& w) { keywords(w, kwargs, name); });
      }
      if (dm.allows(true, false))
        part(e, "output", true, [&](JsonWriter& w) { as_list(w, output, name, "output"); });
      if (!e.empty()) {
        part(e, "parameters", false, [&](JsonWriter& w) {
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
      std::vector<uint32_t> frames = capture_stack();
      if (overflow_) {
        const int64_t source = session_.user_frame(frames);
        forward_source_[api_of_entry(name).api] = source;
        emit_overflow_forward(name, e, source, std::move(frames));
      } else {
        if (!e.empty()) emit(name, e.finish());
        session_.emit_stack(name, frames);  // follows the scope, not data_mode
      }
      collected = true;
      // 1.2.1 writes the module's parameters_grad right here (a placeholder filled later).
      if (dm.backward() && !params.is_none() && PyDict_Size(params.ptr()) > 0) {
        const std::string prefix = name.substr(0, name.rfind("forward."));
        if (!param_places_.count(prefix))
          param_places_.emplace(prefix, session_.mark_place(session_.step_entries() + queue_.size()));
      }
    }
    session_.pop_module(name);
    session_.scope().end_module(name);
    maybe_resolve();
    return collected;
  }

  // Module full backward hook: grad_output flows in ("input"), grad_input out ("output").
  void module_post_backward(const std::string& name, nb::handle grad_input,
                            nb::handle grad_output) {
    if (session_.switch_on()) backward_entry(name, grad_output, grad_input, false, api_of_entry(name).api);
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
    if (overflow_) {
      SinkPtr& sink = p.sinks[param];
      sink = std::make_shared<OverflowSink>();
      encoder_.set_target(sink, true);
    }
    w.begin_array();
    encoder_.tensor_named(w, grad, name + "." + param);
    w.end_array();
    encoder_.set_target(nullptr, false);
    if (!p.rendered.count(param)) p.arrival.push_back(param);
    p.rendered[param] = std::move(text);
    if (p.rendered.size() >= p.names.size()) write_param_grads(name);
    maybe_resolve();
  }

  void flush() { session_.flush(); }
  void enter_region(const std::string& name) { session_.enter_region(name); }
  void exit_region(const std::string& name) { session_.exit_region(name); }
  DumpSession& core() { return session_; }

 private:
  // forward_key: the forward call whose source line a backward overflow reports.
  void backward_entry(const std::string& name, nb::handle in, nb::handle out, bool is_api,
                      const std::string& forward_key) {
    if (is_api) session_.record_parent(name);  // modules recorded theirs in module_pre
    if (!session_.scope().check(name)) return;
    EntryBuilder e;
    const auto& dm = session_.data_mode();
    if (dm.allows(false, true))
      part(e, "input", false, [&](JsonWriter& w) { as_list(w, in, name, "input"); });
    if (dm.allows(false, false))
      part(e, "output", true, [&](JsonWriter& w) { as_list(w, out, name, "output"); });
    if (e.empty() || e.finite_and_complete()) return;
    int64_t source = -1;
    if (overflow_) {
      auto it = forward_source_.find(forward_key);
      if (it != forward_source_.end()) source = it->second;
    }
    emit(name, e.finish(), e.sink, source);
  }

  // EntryBuilder::part; under overflow_check the part's tensors mark the entry's sink.
  template <typename Fn>
  void part(EntryBuilder& e, const char* key, bool output_side, Fn&& fn) {
    if (!overflow_) {
      e.part(key, std::forward<Fn>(fn));
      return;
    }
    if (!e.sink) e.sink = std::make_shared<OverflowSink>();
    encoder_.set_target(e.sink, output_side);
    try {
      e.part(key, std::forward<Fn>(fn));
    } catch (...) {
      encoder_.set_target(nullptr, false);
      throw;
    }
    encoder_.set_target(nullptr, false);
  }

  void write_param_grads(const std::string& name) {
    auto it = param_grads_.find(name);
    if (it == param_grads_.end()) return;
    if (overflow_) {
      write_overflowing_param_grads(name);
      return;
    }
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
    const std::string prefix = name.substr(0, name.size() - std::strlen("parameters_grad"));
    auto place = param_places_.find(prefix);
    emit(name, std::move(text), nullptr, -1, place == param_places_.end() ? -1 : place->second);
    param_grads_.erase(it);
  }

  // Entries go to the session in the order they were made; one that holds deferred values
  // waits (with every later one) until they are rendered. `place`: see DumpSession::mark_place.
  // sink and source (a frame id, or -1): overflow_check, which writes only the entries whose
  // tensors held inf/NaN, once their values are known.
  void emit(const std::string& name, std::string text, SinkPtr sink = nullptr, int64_t source = -1,
            int64_t place = -1) {
    QueuedEntry q{name, std::move(text), std::move(sink), source, overflow_ ? unix_time() : 0.0};
    q.place = place;
    enqueue(std::move(q));
  }

  // overflow_check, a forward entry: its stack is written when the entry is decided (1.2.1 writes
  // the stack of every forward call until overflow_nums is reached, and nothing after).
  void emit_overflow_forward(const std::string& name, EntryBuilder& e, int64_t source,
                             std::vector<uint32_t> frames) {
    const bool skip = e.empty() || e.finite_and_complete();
    QueuedEntry q{name, skip ? std::string() : e.finish(), e.sink, source, unix_time()};
    q.has_entry = !skip;
    q.has_stack = true;
    q.frames = std::move(frames);
    enqueue(std::move(q));
  }

  void enqueue(QueuedEntry q) {
    if (queue_.empty() && q.text.find(kDeferredMark) == std::string::npos) {
      deliver(q);
      return;
    }
    queue_.push_back(std::move(q));
    drain();
  }

  void drain() {
    while (!queue_.empty()) {
      QueuedEntry& q = queue_.front();
      if (!substitute(q.text)) return;
      deliver(q);
      queue_.pop_front();
    }
  }

  void deliver(const QueuedEntry& q) {
    if (!overflow_) {
      session_.emit_entry_at(q.place, q.name, q.text);
      return;
    }
    if (session_.overflow_terminated() || session_.disabled()) return;
    if (q.has_entry) deliver_overflow(q.name, q.text, q.sink, q.source, q.time);
    if (q.has_stack) session_.emit_stack(q.name, q.frames);  // also the call that hit the limit
  }

  void deliver_overflow(const std::string& name, const std::string& text, const SinkPtr& sink,
                        int64_t source, double time) {
    if (!sink || !sink->overflowed()) return;
    encoder_.save_held(*sink);
    session_.emit_entry(name, text);
    const ApiOfEntry a = api_of_entry(name);
    if (a.direction == "forward" && (name.rfind("Module.", 0) == 0 || name.rfind("Cell.", 0) == 0))
      forward_overflowed_.insert(a.api);  // 1.2.1 then writes its parameters_grad placeholder
    count_overflow(name, classify_overflow(sink->inputs, sink->outputs), source, time);
  }

  // One overflowing entry written: counted, the first of the run logged, the limit reported.
  void count_overflow(const std::string& name, OverflowKind kind, int64_t source, double time) {
    OverflowEvent ev;
    ev.entry = name;
    ev.kind = kind;
    ev.time = time;
    session_.describe_frame(source, ev);
    const std::string first = first_overflow_message(ev, session_.current_step(), session_.rank());
    if (session_.record_overflow(std::move(ev))) report("WARNING", first);
    if (session_.overflow_terminated()) {
      report("INFO", "Reached the preset overflow times, current overflow times: " +
                         std::to_string(session_.overflow()->total()) + ".");
    }
  }

  // parameters_grad under overflow_check (1.2.1): the gradients that overflowed, each counted;
  // when the module's forward overflowed, every parameter is listed ([null] where finite).
  void write_overflowing_param_grads(const std::string& name) {
    auto it = param_grads_.find(name);
    PendingParamGrads& p = it->second;
    bool pending = !queue_.empty();
    for (const auto& [pname, text] : p.rendered) pending |= text.find(kDeferredMark) != std::string::npos;
    if (pending) {  // the decision needs the values, and entries stay in order
      resolve();
      for (auto& [pname, text] : p.rendered) substitute(text);
    }
    const std::string module = name.substr(0, name.size() - std::string(".parameters_grad").size());
    const bool forward_overflowed = forward_overflowed_.count(module) != 0;
    std::string text = "{";
    bool first = true;
    std::vector<std::string> overflowing;
    // With 1.2.1's placeholder the keys follow the parameters; without it, the gradients' order.
    for (const auto& pname : forward_overflowed ? p.names : p.arrival) {
      auto r = p.rendered.find(pname);
      auto sk = p.sinks.find(pname);
      const bool over = r != p.rendered.end() && sk != p.sinks.end() && sk->second->overflowed();
      if (!over && !forward_overflowed) continue;
      text += first ? "\n   " : ",\n   ";
      first = false;
      append_json_string(text, pname);
      text += ": ";
      text += over ? r->second : "[\n    null\n   ]";
      if (over) overflowing.push_back(pname);
    }
    text += first ? "}" : "\n  }";
    if (!first && !session_.overflow_terminated() && !session_.disabled()) {
      for (const auto& pname : overflowing) encoder_.save_held(*p.sinks[pname]);
      session_.emit_entry(name, text);
      int64_t source = -1;
      if (auto fs = forward_source_.find(module); fs != forward_source_.end()) source = fs->second;
      for (size_t i = 0; i < overflowing.size(); ++i)
        count_overflow(name, OverflowKind::kPassedOn, source, unix_time());
    }
    param_grads_.erase(it);
  }

  void report(const char* level, const std::string& message) {
    if (!overflow_report_.is_valid() || overflow_report_.is_none()) return;
    try {
      overflow_report_(level, message);
    } catch (const nb::python_error&) {
    }
  }

  // The end of a step that had overflows: one line pointing at overflow_summary.json.
  void report_step_overflows() {
    OverflowMonitor* m = session_.overflow();
    if (!m || m->step_count() == 0) return;
    report("WARNING", "overflow_check: step " + std::to_string(session_.current_step()) + ": " +
                          std::to_string(m->step_count()) + " overflowing entries written (" +
                          std::to_string(m->step_culprits()) + " produced inf/NaN from finite inputs); see " +
                          session_.rank_dir() + "/overflow_summary.json");
  }

  static double unix_time() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
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
      q.text = std::move(out);
      deliver(q);
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
  std::deque<QueuedEntry> queue_;                      // entries waiting for deferred values
  std::unordered_map<uint64_t, std::string> resolved_;  // rendered, not yet substituted
  size_t max_deferred_ = 64;
  double max_deferred_age_s_ = 0.5;
  std::unordered_map<std::string, PendingParamGrads> param_grads_;
  std::vector<std::string> param_order_;
  std::unordered_map<std::string, int64_t> param_places_;  // module prefix -> parameters_grad place
  // overflow_check
  bool overflow_;
  nb::object overflow_report_;
  std::unordered_map<std::string, int64_t> forward_source_;  // "api.idx" / module → user frame
  std::unordered_set<std::string> forward_overflowed_;       // modules whose forward overflowed
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
      .def("set_overflow_reporting", &PySession::set_overflow_reporting, "report"_a.none(),
           "library_prefixes"_a)
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
      .def_prop_ro("overflow_terminated", [](PySession& s) { return s.core().overflow_terminated(); })
      .def_prop_ro("disabled", [](PySession& s) { return s.core().disabled(); })
      .def_prop_ro("disabled_reason", [](PySession& s) { return s.core().disabled_reason(); })
      .def_prop_ro("current_step", [](PySession& s) { return s.core().current_step(); })
      .def_prop_ro("entries_written", [](PySession& s) { return s.core().entries_written(); })
      .def_prop_ro("rank_dir", [](PySession& s) { return s.core().rank_dir(); })
      .def("take_repair_messages", [](PySession& s) { return s.core().take_repair_messages(); });
}
