// The dump record: one call per framework event (API pre/post/backward, module pre/post,
// parameter gradient). Decides which entries and parts are written, in which order and where:
// entry assembly, parameters_grad aggregation and placement, entries waiting for deferred
// values, and overflow_check's decision of what to keep. Values come through RecordAdapter.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "msprobe/dump/dump_session.h"
#include "msprobe/dump/entry_parts.h"
#include "msprobe/dump/overflow_monitor.h"
#include "msprobe/dump/param_grads.h"
#include "msprobe/dump/record_adapter.h"

namespace msprobe {

class RecordBuilder {
 public:
  RecordBuilder(DumpSession& session, RecordAdapter& adapter);

  // Deferred values are rendered at the latest when `max_pending` are waiting or the oldest has
  // waited `max_age_s`, and at stop/step/close.
  void set_deferral(size_t max_pending, double max_age_s);

  void stop();
  // Interpreter exit: writes what is pending and closes the files without advancing the step.
  void close();
  void step();
  // Reads the deferred values (only those ready without waiting unless `force`) and writes the
  // entries that were waiting for them, in order.
  void resolve(bool force = true);

  // API forward pre-hook: counts the call and records its inputs. Returns the call index, or
  // -1 when nothing is collected for this call.
  int64_t api_pre(const std::string& api, ValueRef args, ValueRef kwargs);
  // API forward hook: records the outputs and the stack, writes the entry. Returns whether the
  // backward is wanted.
  bool api_post(const std::string& api, int64_t idx, ValueRef output);
  // API backward: grad_outputs flow in ("input"), grad_inputs are produced ("output").
  void api_backward(const std::string& api, int64_t idx, ValueRef grad_outputs, ValueRef grad_inputs);
  // The backward of an API call begins (its outputs' gradients arrived), before its inputs'
  // gradients are known: the entry's construct.json parent and its place in dump.json are taken
  // now, as 1.2.1 does; api_backward writes the entry there. Optional (MindSpore's capture
  // reports it; a call without it is placed when api_backward comes).
  void api_backward_begin(const std::string& api, int64_t idx);
  // Module / Cell pre-hook (forward or backward): counts, pushes, records the parent; returns
  // the node's name "{prefix}{direction}.{n}".
  std::string module_pre(const std::string& prefix, const std::string& direction);
  // Module forward hook: inputs, outputs and direct parameters; pops the module. Returns
  // whether the entry was collected (then parameter gradients are wanted).
  bool module_post_forward(const std::string& name, ValueRef args, ValueRef kwargs, ValueRef output,
                           ValueRef params);
  // Module backward hook: grad_output flows in ("input"), grad_input out ("output").
  void module_post_backward(const std::string& name, ValueRef grad_input, ValueRef grad_output);
  // One parameter's gradient for "{prefix}parameters_grad"; `names` lists every parameter the
  // entry waits for. The entry is written once all have arrived (or at stop/step).
  void param_grad(const std::string& prefix, const std::string& param, ValueRef grad,
                  std::vector<std::string> names);

 private:
  // An entry on its way to the session, waiting for deferred values when it holds some.
  struct QueuedEntry {
    std::string name;
    std::string text;
    SinkPtr sink;         // overflow_check: what its tensors held
    int64_t source = -1;  // overflow_check: the user's frame, or -1
    double time = 0.0;    // overflow_check: when the call ended
    bool has_entry = true;
    bool has_stack = false;  // overflow_check: the forward's stack.json member goes with it
    std::vector<uint32_t> frames;
    int64_t place = -1;  // where in the step's entries it goes (DumpSession::mark_place)
  };

  void backward_entry(const std::string& name, ValueRef in, ValueRef out, bool is_api,
                      const std::string& forward_key, int64_t place = -1);
  template <typename Fn>
  void part(EntryParts& e, const char* key, bool output_side, Fn&& fn);
  void forward_done(const std::string& name, const std::string& forward_key, EntryParts& e,
                    std::vector<uint32_t> frames);
  void write_param_grads(const std::string& name);
  void write_overflowing_param_grads(const std::string& name);
  void flush_param_grads();
  void emit(const std::string& name, std::string text, SinkPtr sink = nullptr, int64_t source = -1,
            int64_t place = -1);
  void emit_overflow_forward(const std::string& name, EntryParts& e, int64_t source,
                             std::vector<uint32_t> frames);
  void enqueue(QueuedEntry q);
  void drain();
  void deliver(const QueuedEntry& q);
  void deliver_overflow(const QueuedEntry& q);
  void count_overflow(const std::string& name, OverflowKind kind, int64_t source, double time);
  void report_step_overflows();
  void maybe_resolve();
  void drop_unresolved();

  DumpSession& session_;
  RecordAdapter& adapter_;
  const bool overflow_;
  std::unordered_map<std::string, EntryParts> pending_;  // API inputs waiting for the outputs
  std::deque<QueuedEntry> queue_;                        // entries waiting for deferred values
  std::unordered_map<uint64_t, std::string> resolved_;   // rendered, not yet substituted
  size_t max_deferred_ = 64;
  double max_deferred_age_s_ = 0.5;
  std::unordered_map<std::string, PendingParamGrads> param_grads_;
  std::vector<std::string> param_order_;
  std::unordered_map<std::string, int64_t> param_places_;     // module prefix -> parameters_grad place
  std::unordered_map<std::string, int64_t> backward_places_;  // begun API backward -> its place
  // overflow_check
  std::unordered_map<std::string, int64_t> forward_source_;  // "api.idx" / module -> user frame
  std::unordered_set<std::string> forward_overflowed_;       // modules whose forward overflowed
};

}  // namespace msprobe
