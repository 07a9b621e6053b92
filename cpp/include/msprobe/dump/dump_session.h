// The dump session of one process: step/rank selection, call counters, filters, the
// construct.json module stack, and the output files of the current step (through AsyncWriter).
// Framework-neutral: adapters call it once per event with names and rendered records.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "msprobe/config/dump_config.h"
#include "msprobe/dump/async_writer.h"
#include "msprobe/dump/overflow_monitor.h"
#include "msprobe/dump/scope_filter.h"
#include "msprobe/dump/source_lines.h"
#include "msprobe/dump/tensor_record.h"

namespace msprobe {

struct SessionOptions {
  Framework framework = Framework::kPyTorch;
  std::string framework_name = "pytorch";  // dump.json "framework"
  size_t writer_memory_bytes = 512u << 20;
};

class DumpSession {
 public:
  DumpSession(DumpConfig config, SessionOptions options);
  ~DumpSession();

  const DumpConfig& config() const { return config_; }
  // Lifecycle (reference §2.1). start returns whether data is collected from now on.
  bool start(int64_t rank);  // rank < 0: not distributed ("rank" folder)
  void stop();
  void step();
  // Writes everything pending and closes the step's files (interpreter exit).
  void close();
  bool switch_on() const { return switch_ && !disabled_ && !overflow_terminated_; }
  bool ended() const { return ended_; }
  int64_t current_step() const { return current_step_; }
  int64_t rank() const { return rank_; }  // < 0: not distributed
  // Set when an internal or I/O error disabled the probe; training goes on.
  bool disabled() const { return disabled_; }
  const std::string& disabled_reason() const { return disabled_reason_; }
  // Checks the writer; on failure disables the session. Returns switch_on().
  bool healthy();
  void disable(const std::string& reason);
  // An internal error of the probe (a fault of ours, not the user's): disables the session and
  // says so in the step's dump.json, after "data": "probe_disabled" with the reason, the step, the
  // call that was not recorded (`call`, "" when unknown), the entries recorded before it and the
  // calls of the step not recorded after it (updated when the step's files close).
  void disable_after_error(const std::string& reason, const std::string& call);
  // A call that the probe would have recorded (the switch is on) but does not, being disabled.
  void count_unrecorded() {
    if (disabled_ && wanted_) {
      ++unrecorded_calls_;
      ++unrecorded_in_step_;
    }
  }
  // Calls not recorded since the probe disabled itself, in the whole run.
  int64_t unrecorded_calls() const { return unrecorded_calls_; }
  // The call (or "") and step at which the probe disabled itself after an internal error.
  const std::string& failed_call() const { return failed_call_; }
  int64_t failed_step() const { return failed_step_; }

  // Call counters, reset by step().
  int64_t next_api_index(const std::string& api);
  int64_t next_module_index(const std::string& key);

  ScopeFilter& scope() { return scope_; }
  const DataModeFilter& data_mode() const { return data_mode_; }
  bool tensor_task() const { return tensor_task_; }
  // Task free_benchmark: calls are named, counted and their stacks written, but no values are
  // recorded (dump.json's "data" stays empty; free_benchmark.csv is freebench/'s).
  bool stack_only() const { return stack_only_; }
  // Task overflow_check: tensor files are named in every record but written only for the
  // entries that overflowed (overflow_monitor.h).
  bool overflow_task() const { return overflow_ != nullptr; }
  OverflowMonitor* overflow() { return overflow_.get(); }
  // overflow_nums reached: nothing is collected any more; the next start() ends the session.
  bool overflow_terminated() const { return overflow_terminated_; }
  // Counts an overflowing entry written to dump.json (its step, rank and time are filled in
  // here) and keeps overflow_summary.json current. Returns whether it was the run's first.
  bool record_overflow(OverflowEvent ev);
  // Writes overflow_summary.json of the current step now (first overflow, limit, stop()).
  void write_overflow_summary();
  bool has_construct() const { return has_construct_; }
  const TensorRecordOptions& record_options() const { return record_opt_; }
  const std::string& tensor_extension() const { return tensor_ext_; }

  // construct.json: the module call stack. Nodes pushed by pre-hooks, popped by post-hooks.
  void push_module(const std::string& name);
  void pop_module(const std::string& name);
  // Records `node`'s parent (top of the stack) in construct.json.
  void record_parent(const std::string& node);
  // A named region without a module ("optimizer", "clip_grad") parents the APIs inside it.
  void enter_region(const std::string& name) { module_stack_.push_back(name); }
  void exit_region(const std::string& name) { pop_module(name); }

  // tensor_names.json of the current step (opened at the first name): which input row of a call
  // is a named tensor ("parameter:h.0.attn.c_attn.weight", "buffer:...", "input:input_ids"),
  // so that compare can name a tensor that differs before any call made it.
  void note_tensor_name(const std::string& row, const std::string& name);

  // Output of the current step directory (no-ops while not started or disabled).
  void emit_entry(const std::string& name, const std::string& value_text);  // value at depth 2
  // 1.2.1 reserves the place of some entries before their contents exist (parameters_grad goes
  // right after its module's first forward). mark_place(n) remembers "after the first n entries
  // of this step's dump.json" and returns a place; an entry emitted with it is appended when it
  // comes (so a kill keeps it) and moved there when the step's files are finalized (stop, step,
  // close) by atomic replacement of dump.json. Emitted again at the same place, it replaces the
  // earlier entry there (the earlier stays in the file until then).
  int64_t mark_place(uint64_t entries_before);
  void emit_entry_at(int64_t place, const std::string& name, const std::string& value_text);
  // Entries of this step's dump.json so far.
  uint64_t step_entries() const { return step_entries_; }
  // stack.json: frames are interned once ("File f, line n, in fn, \n src" rendered as JSON text)
  // and entries refer to them by id.
  uint32_t intern_frame(const std::string& file, int64_t line, const std::string& function);
  // Files under these prefixes (the frameworks, the standard library) are not the user's code.
  void set_library_prefixes(std::vector<std::string> prefixes) { library_prefixes_ = std::move(prefixes); }
  // The innermost of `frame_ids` (innermost first) that is the user's code, or -1.
  int64_t user_frame(const std::vector<uint32_t>& frame_ids) const;
  // Fills the source fields of `ev` from an interned frame (nothing for -1).
  void describe_frame(int64_t frame_id, OverflowEvent& ev);
  void emit_stack(const std::string& name, const std::vector<uint32_t>& frame_ids);
  // Queues a tensor file under dump_tensor_data/.
  void save_tensor_file(const std::string& data_name, std::string contents);
  // The same tensor saved again under another name: a hard link to the first file.
  void link_tensor_file(const std::string& existing_data_name, const std::string& data_name,
                        std::string contents);
  void flush();

  int64_t entries_written() const { return entries_written_; }
  // What the repair of this rank's earlier files in dump_path did (one line each), done once
  // before the first files are written; taken (and cleared) by the caller, which reports them.
  std::vector<std::string> take_repair_messages() { return std::move(repair_messages_); }
  std::string rank_dir() const { return rank_dir_; }

 private:
  // Whether the current step and `rank` are dumped; past the last configured step it ends the session.
  bool selected(int64_t rank);
  void open_step_files();
  void close_step_files();
  // Puts entries emitted at a marked place where they belong (see mark_place).
  void place_entries();
  // dump.json's text after "data" while the probe is disabled in this step (see disable_after_error).
  std::string disabled_note() const;

  DumpConfig config_;
  SessionOptions opt_;
  ScopeFilter scope_;
  DataModeFilter data_mode_;
  TensorRecordOptions record_opt_;
  bool tensor_task_;
  bool stack_only_ = false;
  bool has_construct_;
  std::string tensor_ext_;
  std::unique_ptr<AsyncWriter> writer_;
  SourceLines sources_;
  std::vector<std::string> frame_json_;  // by frame id
  struct FrameRef {
    std::string file, function;
    int64_t line;
    bool user;
  };
  std::vector<FrameRef> frames_;  // by frame id
  std::vector<std::string> library_prefixes_;
  std::unique_ptr<OverflowMonitor> overflow_;  // task overflow_check
  bool overflow_terminated_ = false;

  bool switch_ = false, disabled_ = false, ended_ = false, files_open_ = false;
  std::string disabled_reason_;
  // Between a start() that would have collected (the step and rank are selected) and stop().
  bool wanted_ = false;
  // disable_after_error: where, and what was lost after it.
  bool note_in_step_ = false;
  std::string failed_call_;
  int64_t failed_step_ = -1;
  uint64_t entries_before_failure_ = 0;
  int64_t unrecorded_calls_ = 0, unrecorded_in_step_ = 0;
  int64_t current_step_ = 0;
  int64_t rank_ = -1;
  bool rank_known_ = false;
  std::string given_dump_path_;  // as configured, for dump_data_dir
  std::string rank_dir_, tensor_dir_;
  int dump_file_ = -1, stack_file_ = -1, construct_file_ = -1, tensor_names_file_ = -1;
  std::unordered_map<std::string, int64_t> api_counts_, module_counts_;
  std::vector<std::string> module_stack_;
  bool any_module_seen_ = false;
  int64_t entries_written_ = 0;
  uint64_t step_entries_ = 0;
  bool repaired_ = false;
  std::vector<std::string> repair_messages_;
  std::vector<uint64_t> places_;                      // by place: entries before it
  std::vector<std::pair<uint64_t, int64_t>> placed_;  // (entry number, place)
  bool unplaced_ = false;                             // placed_ changed since place_entries()
};

}  // namespace msprobe
