#include "msprobe/dump/record_builder.h"

#include <chrono>

namespace msprobe {
namespace {
double unix_time() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
std::string call_key(const std::string& api, int64_t idx) { return api + "." + std::to_string(idx); }
}  // namespace

RecordBuilder::RecordBuilder(DumpSession& session, RecordAdapter& adapter)
    : session_(session), adapter_(adapter), overflow_(session.overflow_task()) {}

void RecordBuilder::set_deferral(size_t max_pending, double max_age_s) {
  max_deferred_ = max_pending ? max_pending : 1;
  max_deferred_age_s_ = max_age_s;
}

void RecordBuilder::stop() {
  flush_param_grads();
  resolve();
  session_.stop();
}

void RecordBuilder::close() {
  flush_param_grads();
  resolve();
  drop_unresolved();
  report_step_overflows();
  session_.close();
}

void RecordBuilder::step() {
  flush_param_grads();
  resolve();
  pending_.clear();  // calls without a post hook: their entries are never written
  drop_unresolved();
  param_places_.clear();
  backward_places_.clear();
  report_step_overflows();
  session_.step();
  adapter_.end_step();
  forward_source_.clear();
  forward_overflowed_.clear();
}

void RecordBuilder::resolve(bool force) {
  if (adapter_.deferred_count() != 0) {
    for (auto& [id, text] : adapter_.render_deferred(force)) resolved_.emplace(id, std::move(text));
  }
  drain();
}

int64_t RecordBuilder::api_pre(const std::string& api, ValueRef args, ValueRef kwargs) {
  if (!session_.healthy()) {
    session_.count_unrecorded();
    return -1;
  }
  const int64_t idx = session_.next_api_index(api);
  const std::string name = call_key(api, idx) + ".forward";
  session_.record_parent(name);
  EntryParts& e = pending_[name];
  if (session_.data_mode().allows(true, true) && session_.scope().check(name)) {
    part(e, "input_args", false, [&](JsonWriter& w) { adapter_.write_list(w, args, name, "input"); });
    part(e, "input_kwargs", false, [&](JsonWriter& w) { adapter_.write_kwargs(w, kwargs, name); });
  }
  return idx;
}

bool RecordBuilder::api_post(const std::string& api, int64_t idx, ValueRef output) {
  const std::string name = call_key(api, idx) + ".forward";
  auto it = pending_.find(name);
  EntryParts e;
  if (it != pending_.end()) {
    e = std::move(it->second);
    pending_.erase(it);
  }
  if (!session_.healthy()) return false;
  // The stack follows the scope filter but not data_mode (as in the original).
  const bool in_scope = session_.scope().check(name);
  if (in_scope && session_.data_mode().allows(true, false))
    part(e, "output", true, [&](JsonWriter& w) { adapter_.write_result(w, output, name, "output"); });
  if (in_scope) {
    forward_done(name, call_key(api, idx), e, adapter_.capture_stack());
  } else if (!e.empty() && !overflow_) {
    // The scope's last API: its inputs only (1.2.1 writes nothing of it under overflow_check).
    emit(name, e.finish());
  }
  maybe_resolve();
  return in_scope && session_.data_mode().backward();
}

void RecordBuilder::api_backward(const std::string& api, int64_t idx, ValueRef grad_outputs,
                                 ValueRef grad_inputs) {
  if (session_.disabled()) return;
  if (session_.overflow_terminated()) return;
  const std::string key = call_key(api, idx);
  const std::string name = key + ".backward";
  int64_t place = -1;
  if (auto it = backward_places_.find(name); it != backward_places_.end()) {
    place = it->second;
    backward_places_.erase(it);
  }
  backward_entry(name, grad_outputs, grad_inputs, true, key, place);
  maybe_resolve();
}

void RecordBuilder::api_backward_begin(const std::string& api, int64_t idx) {
  if (!session_.switch_on()) return;
  const std::string name = call_key(api, idx) + ".backward";
  session_.record_parent(name);
  backward_places_[name] = session_.mark_place(session_.step_entries() + queue_.size());
}

std::string RecordBuilder::module_pre(const std::string& prefix, const std::string& direction) {
  const std::string key = prefix + direction;
  const int64_t idx = session_.next_module_index(key);
  std::string name = call_key(key, idx);
  session_.push_module(name);
  session_.scope().begin_module(name);
  if (session_.switch_on()) session_.record_parent(name);
  return name;
}

bool RecordBuilder::module_post_forward(const std::string& name, ValueRef args, ValueRef kwargs,
                                        ValueRef output, ValueRef params) {
  bool collected = false;
  if (session_.healthy() && session_.scope().check(name)) {
    EntryParts e;
    const auto& dm = session_.data_mode();
    if (dm.allows(true, true)) {
      part(e, "input_args", false, [&](JsonWriter& w) { adapter_.write_list(w, args, name, "input"); });
      part(e, "input_kwargs", false, [&](JsonWriter& w) { adapter_.write_kwargs(w, kwargs, name); });
    }
    if (dm.allows(true, false))
      part(e, "output", true, [&](JsonWriter& w) { adapter_.write_result(w, output, name, "output"); });
    if (!e.empty()) {
      part(e, "parameters", false, [&](JsonWriter& w) { adapter_.write_parameters(w, params, name); });
    }
    forward_done(name, api_of_entry(name).api, e, adapter_.capture_stack());
    collected = true;
    // 1.2.1 writes the module's parameters_grad right here (a placeholder filled later).
    if (dm.backward() && adapter_.has_parameters(params)) {
      const std::string prefix = param_grads_prefix(name);
      if (!param_places_.count(prefix))
        param_places_.emplace(prefix, session_.mark_place(session_.step_entries() + queue_.size()));
    }
  }
  session_.pop_module(name);
  session_.scope().end_module(name);
  maybe_resolve();
  return collected;
}

void RecordBuilder::module_post_backward(const std::string& name, ValueRef grad_input, ValueRef grad_output) {
  if (session_.switch_on()) backward_entry(name, grad_output, grad_input, false, api_of_entry(name).api);
  session_.pop_module(name);
  session_.scope().end_module(name);
  maybe_resolve();
}

void RecordBuilder::param_grad(const std::string& prefix, const std::string& param, ValueRef grad,
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
    adapter_.set_target(sink, true);
  }
  w.begin_array();
  adapter_.write_tensor(w, grad, name + "." + param);
  w.end_array();
  adapter_.set_target(nullptr, false);
  if (!p.rendered.count(param)) p.arrival.push_back(param);
  p.rendered[param] = std::move(text);
  if (p.complete()) write_param_grads(name);
  maybe_resolve();
}

// forward_key: the forward call whose source line a backward overflow reports.
void RecordBuilder::backward_entry(const std::string& name, ValueRef in, ValueRef out, bool is_api,
                                   const std::string& forward_key, int64_t place) {
  // Modules recorded their parent in module_pre, begun API backwards in api_backward_begin.
  if (is_api && place < 0) session_.record_parent(name);
  if (!session_.scope().check(name)) return;
  EntryParts e;
  const auto& dm = session_.data_mode();
  if (dm.allows(false, true))
    part(e, "input", false, [&](JsonWriter& w) { adapter_.write_result(w, in, name, "input"); });
  if (dm.allows(false, false))
    part(e, "output", true, [&](JsonWriter& w) { adapter_.write_result(w, out, name, "output"); });
  if (e.empty() || e.finite_and_complete()) return;
  int64_t source = -1;
  if (overflow_) {
    auto it = forward_source_.find(forward_key);
    if (it != forward_source_.end()) source = it->second;
  }
  emit(name, e.finish(), e.sink, source, overflow_ ? -1 : place);
}

// EntryParts::part; under overflow_check the part's tensors mark the entry's sink.
template <typename Fn>
void RecordBuilder::part(EntryParts& e, const char* key, bool output_side, Fn&& fn) {
  // free_benchmark records no values: its dump.json keeps "data" empty, as 1.2.1's does.
  if (session_.stack_only()) return;
  if (!overflow_) {
    e.part(key, std::forward<Fn>(fn));
    return;
  }
  if (!e.sink) e.sink = std::make_shared<OverflowSink>();
  adapter_.set_target(e.sink, output_side);
  try {
    e.part(key, std::forward<Fn>(fn));
  } catch (...) {
    adapter_.set_target(nullptr, false);
    throw;
  }
  adapter_.set_target(nullptr, false);
}

// A forward entry with its stack (which follows the scope, not data_mode).
void RecordBuilder::forward_done(const std::string& name, const std::string& forward_key, EntryParts& e,
                                 std::vector<uint32_t> frames) {
  if (overflow_) {
    const int64_t source = session_.user_frame(frames);
    forward_source_[forward_key] = source;
    emit_overflow_forward(name, e, source, std::move(frames));
  } else {
    if (!e.empty()) emit(name, e.finish());
    session_.emit_stack(name, frames);
  }
}

void RecordBuilder::write_param_grads(const std::string& name) {
  auto it = param_grads_.find(name);
  if (it == param_grads_.end()) return;
  if (overflow_) {
    write_overflowing_param_grads(name);
    return;
  }
  std::string text = param_grads_text(it->second);
  const std::string prefix = name.substr(0, name.size() - std::string("parameters_grad").size());
  auto place = param_places_.find(prefix);
  emit(name, std::move(text), nullptr, -1, place == param_places_.end() ? -1 : place->second);
  param_grads_.erase(it);
}

// parameters_grad under overflow_check (1.2.1): the gradients that overflowed, each counted.
void RecordBuilder::write_overflowing_param_grads(const std::string& name) {
  auto it = param_grads_.find(name);
  PendingParamGrads& p = it->second;
  if (!queue_.empty() || p.holds_deferred()) {  // the decision needs the values, in order
    resolve();
    for (auto& [pname, text] : p.rendered) substitute_deferred(text, resolved_);
  }
  const std::string module = name.substr(0, name.size() - std::string(".parameters_grad").size());
  std::vector<std::string> overflowing;
  const std::string text =
      overflowing_param_grads_text(p, forward_overflowed_.count(module) != 0, overflowing);
  if (!text.empty() && !session_.overflow_terminated() && !session_.disabled()) {
    for (const auto& pname : overflowing) adapter_.save_held(*p.sinks[pname]);
    session_.emit_entry(name, text);
    int64_t source = -1;
    if (auto fs = forward_source_.find(module); fs != forward_source_.end()) source = fs->second;
    for (size_t i = 0; i < overflowing.size(); ++i)
      count_overflow(name, OverflowKind::kPassedOn, source, unix_time());
  }
  param_grads_.erase(it);
}

void RecordBuilder::flush_param_grads() {
  for (const auto& name : param_order_) write_param_grads(name);
  param_order_.clear();
}

// Entries go to the session in the order they were made; one that holds deferred values waits
// (with every later one) until they are rendered. `place`: see DumpSession::mark_place. sink and
// source (a frame id, or -1): overflow_check, which writes only the entries whose tensors held
// inf/NaN, once their values are known.
void RecordBuilder::emit(const std::string& name, std::string text, SinkPtr sink, int64_t source,
                         int64_t place) {
  QueuedEntry q;
  q.name = name;
  q.text = std::move(text);
  q.sink = std::move(sink);
  q.source = source;
  q.time = overflow_ ? unix_time() : 0.0;
  q.place = place;
  enqueue(std::move(q));
}

// overflow_check, a forward entry: its stack is written when the entry is decided (1.2.1 writes
// the stack of every forward call until overflow_nums is reached, and nothing after).
void RecordBuilder::emit_overflow_forward(const std::string& name, EntryParts& e, int64_t source,
                                          std::vector<uint32_t> frames) {
  const bool skip = e.empty() || e.finite_and_complete();
  QueuedEntry q;
  q.name = name;
  if (!skip) q.text = e.finish();
  q.sink = e.sink;
  q.source = source;
  q.time = unix_time();
  q.has_entry = !skip;
  q.has_stack = true;
  q.frames = std::move(frames);
  enqueue(std::move(q));
}

void RecordBuilder::enqueue(QueuedEntry q) {
  if (queue_.empty() && !holds_deferred(q.text)) {
    deliver(q);
    return;
  }
  queue_.push_back(std::move(q));
  drain();
}

void RecordBuilder::drain() {
  while (!queue_.empty()) {
    QueuedEntry& q = queue_.front();
    if (!substitute_deferred(q.text, resolved_)) return;
    deliver(q);
    queue_.pop_front();
  }
}

void RecordBuilder::deliver(const QueuedEntry& q) {
  if (!overflow_) {
    session_.emit_entry_at(q.place, q.name, q.text);
    return;
  }
  if (session_.overflow_terminated() || session_.disabled()) return;
  if (q.has_entry) deliver_overflow(q);
  if (q.has_stack) session_.emit_stack(q.name, q.frames);  // also the call that hit the limit
}

void RecordBuilder::deliver_overflow(const QueuedEntry& q) {
  if (!q.sink || !q.sink->overflowed()) return;
  adapter_.save_held(*q.sink);
  session_.emit_entry(q.name, q.text);
  const ApiOfEntry a = api_of_entry(q.name);
  if (a.direction == "forward" && (q.name.rfind("Module.", 0) == 0 || q.name.rfind("Cell.", 0) == 0))
    forward_overflowed_.insert(a.api);  // 1.2.1 then writes its parameters_grad placeholder
  count_overflow(q.name, classify_overflow(q.sink->inputs, q.sink->outputs), q.source, q.time);
}

// One overflowing entry written: counted, the first of the run logged, the limit reported.
void RecordBuilder::count_overflow(const std::string& name, OverflowKind kind, int64_t source, double time) {
  OverflowEvent ev;
  ev.entry = name;
  ev.kind = kind;
  ev.time = time;
  session_.describe_frame(source, ev);
  const std::string first = first_overflow_message(ev, session_.current_step(), session_.rank());
  if (session_.record_overflow(std::move(ev))) adapter_.report("WARNING", first);
  if (session_.overflow_terminated()) {
    adapter_.report("INFO", "Reached the preset overflow times, current overflow times: " +
                                std::to_string(session_.overflow()->total()) + ".");
  }
}

// The end of a step that had overflows: one line pointing at overflow_summary.json.
void RecordBuilder::report_step_overflows() {
  OverflowMonitor* m = session_.overflow();
  if (!m || m->step_count() == 0) return;
  adapter_.report("WARNING", "overflow_check: step " + std::to_string(session_.current_step()) + ": " +
                                 std::to_string(m->step_count()) + " overflowing entries written (" +
                                 std::to_string(m->step_culprits()) +
                                 " produced inf/NaN from finite inputs); see " + session_.rank_dir() +
                                 "/overflow_summary.json");
}

void RecordBuilder::maybe_resolve() {
  const size_t n = adapter_.deferred_count();
  if (n != 0 && (n >= max_deferred_ || adapter_.deferred_age_s() >= max_deferred_age_s_)) resolve(false);
}

// End of a step: entries whose values were never rendered (their call had no post hook) are
// written with null there.
void RecordBuilder::drop_unresolved() {
  resolved_.clear();
  while (!queue_.empty()) {
    QueuedEntry& q = queue_.front();
    q.text = null_deferred(q.text);
    deliver(q);
    queue_.pop_front();
  }
}

}  // namespace msprobe
