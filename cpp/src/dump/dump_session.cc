// The dump session: see dump_session.h.
#include "msprobe/dump/dump_session.h"

#include <algorithm>
#include <chrono>

#include "msprobe/base/error.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/base/path.h"
#include "msprobe/dump/dump_repair.h"
#include "msprobe/format/json_text.h"

namespace msprobe {

DumpSession::DumpSession(DumpConfig config, SessionOptions options)
    : config_(std::move(config)),
      opt_(std::move(options)),
      scope_(config_.scope, config_.list, config_.level, config_.task == "free_benchmark"),
      data_mode_(config_.data_mode) {
  given_dump_path_ = config_.dump_path;
  while (given_dump_path_.size() > 1 && given_dump_path_.back() == '/') given_dump_path_.pop_back();
  config_.dump_path = absolute_path(config_.dump_path);
  record_opt_.framework = opt_.framework;
  record_opt_.want_crc = config_.summary_mode == "md5" && config_.task != "tensor";
  tensor_task_ = config_.task == "tensor";
  stack_only_ = config_.task == "free_benchmark";
  if (config_.task == "overflow_check") overflow_ = std::make_unique<OverflowMonitor>(config_.overflow_nums);
  has_construct_ = config_.level == "L0" || config_.level == "mix";
  tensor_ext_ = opt_.framework == Framework::kPyTorch ? ".pt" : ".npy";
  writer_ = std::make_unique<AsyncWriter>(opt_.writer_memory_bytes);
}

DumpSession::~DumpSession() {
  try {
    close_step_files();
  } catch (...) {
  }
}

void DumpSession::disable(const std::string& reason) {
  if (disabled_) return;
  disabled_ = true;
  disabled_reason_ = reason;
  switch_ = false;
}

void DumpSession::disable_after_error(const std::string& reason, const std::string& call) {
  if (disabled_) return;
  const bool was_on = switch_on();
  disable(reason);
  wanted_ = was_on;
  failed_call_ = call;
  failed_step_ = current_step_;
  entries_before_failure_ = step_entries_;
  unrecorded_in_step_ = 0;
  if (files_open_) {
    note_in_step_ = true;
    writer_->set_tail(dump_file_, disabled_note());
  }
}

std::string DumpSession::disabled_note() const {
  std::string t = ",\n \"probe_disabled\": {\n  \"reason\": ";
  append_json_string(t, disabled_reason_);
  t += ",\n  \"step\": " + std::to_string(failed_step_);
  t += ",\n  \"first_unrecorded_call\": ";
  if (failed_call_.empty()) {
    t += "null";
  } else {
    append_json_string(t, failed_call_);
  }
  t += ",\n  \"entries_recorded\": " + std::to_string(entries_before_failure_);
  t += ",\n  \"unrecorded_calls\": " + std::to_string(unrecorded_in_step_);
  t += "\n }\n}";
  return t;
}

bool DumpSession::healthy() {
  if (!disabled_ && writer_->failed()) disable(writer_->error());
  return switch_on();
}

bool DumpSession::selected(int64_t rank) {
  if (!config_.rank.empty() &&
      !std::binary_search(config_.rank.begin(), config_.rank.end(), rank < 0 ? 0 : rank))
    return false;
  if (!config_.step.empty()) {
    if (current_step_ > config_.step.back()) {
      ended_ = true;
      return false;
    }
    if (!std::binary_search(config_.step.begin(), config_.step.end(), current_step_)) return false;
  }
  return true;
}

bool DumpSession::start(int64_t rank) {
  if (overflow_terminated_) ended_ = true;  // 1.2.1 ends the service at the next start()
  if (ended_) return false;
  if (disabled_) {
    // Nothing is collected any more; the calls of selected steps are counted as lost.
    wanted_ = selected(rank);
    return false;
  }
  rank_ = rank;
  if (!selected(rank)) return false;
  if (!files_open_) {
    try {
      open_step_files();
    } catch (const std::exception& e) {
      disable(e.what());
      wanted_ = true;  // this step's calls are lost too
      return false;
    }
  }
  switch_ = true;
  return true;
}

void DumpSession::stop() {
  switch_ = false;
  wanted_ = false;
  place_entries();
  if (overflow_ && files_open_) write_overflow_summary();
  flush();
}

void DumpSession::step() {
  switch_ = false;
  wanted_ = false;
  close_step_files();
  ++current_step_;
  api_counts_.clear();
  module_counts_.clear();
  module_stack_.clear();
  any_module_seen_ = false;
  if (overflow_) overflow_->begin_step();
  if (!config_.step.empty() && current_step_ > config_.step.back()) ended_ = true;
}

void DumpSession::close() {
  switch_ = false;
  close_step_files();
}

void DumpSession::open_step_files() {
  const std::string rank_name = rank_ < 0 ? "rank" : "rank" + std::to_string(rank_);
  if (!repaired_) {
    // A killed run may have left cut files of this rank in dump_path: make them whole for other
    // tools before writing (other ranks repair their own).
    repaired_ = true;
    RepairOptions quick;
    quick.quick = true;
    quick.rank_folder = rank_name;
    for (auto& r : repair_dump_tree(config_.dump_path, quick)) repair_messages_.push_back(r.message);
  }
  const std::string rel = "/step" + std::to_string(current_step_) + "/" + rank_name;
  rank_dir_ = config_.dump_path + rel;
  make_dirs(rank_dir_, "dump directory");
  std::string header = "{\n \"task\": ";
  append_json_string(header, config_.task);
  header += ",\n \"level\": ";
  append_json_string(header, config_.level);
  header += ",\n \"framework\": ";
  append_json_string(header, opt_.framework_name);
  header += ",\n \"dump_data_dir\": ";
  if (tensor_task_ || overflow_ || stack_only_) {  // 1.2.1 makes the folder for free_benchmark too (empty)
    tensor_dir_ = rank_dir_ + "/dump_tensor_data";
    make_dirs(tensor_dir_, "dump directory");
    // The original writes the directory as the user gave dump_path (relative stays relative).
    append_json_string(header, given_dump_path_ + rel + "/dump_tensor_data");
  } else {
    header += "null";
  }
  header += ",\n \"data\": {";
  // json.dump writes no trailing newline.
  dump_file_ = writer_->open_object_file(rank_dir_ + "/dump.json", header, "\n}", 2,
                                         /*reorderable=*/true);
  step_entries_ = 0;
  places_.clear();
  placed_.clear();
  unplaced_ = false;
  stack_file_ = writer_->open_object_file(rank_dir_ + "/stack.json", "{", "", 1);
  construct_file_ = writer_->open_object_file(rank_dir_ + "/construct.json", "{", "", 1);
  files_open_ = true;
}

void DumpSession::close_step_files() {
  if (!files_open_) return;
  place_entries();
  if (note_in_step_) {
    writer_->set_tail(dump_file_, disabled_note());
    note_in_step_ = false;
  }
  if (overflow_) write_overflow_summary();
  writer_->close_object_file(dump_file_);
  writer_->close_object_file(stack_file_);
  writer_->close_object_file(construct_file_);
  if (tensor_names_file_ >= 0) writer_->close_object_file(tensor_names_file_);
  tensor_names_file_ = -1;
  writer_->flush();
  files_open_ = false;
  healthy();
}

void DumpSession::flush() {
  writer_->flush();
  healthy();
}

int64_t DumpSession::next_api_index(const std::string& api) { return api_counts_[api]++; }

int64_t DumpSession::next_module_index(const std::string& key) { return module_counts_[key]++; }

void DumpSession::push_module(const std::string& name) {
  module_stack_.push_back(name);
  any_module_seen_ = true;
}

void DumpSession::pop_module(const std::string& name) {
  // Pop up to and including `name`; a mismatched pop (hooks skipped by an exception) heals here.
  for (size_t i = module_stack_.size(); i-- > 0;) {
    if (module_stack_[i] == name) {
      module_stack_.resize(i);
      return;
    }
  }
}

void DumpSession::record_parent(const std::string& node) {
  if (!has_construct_ || !files_open_ || !switch_on()) return;
  std::string member;
  append_json_string(member, node);
  member += ": ";
  if (!module_stack_.empty()) {
    // A module records its enclosing module, not itself.
    const std::string& top = module_stack_.back();
    if (top != node) {
      append_json_string(member, top);
    } else if (module_stack_.size() >= 2) {
      append_json_string(member, module_stack_[module_stack_.size() - 2]);
    } else {
      member += "null";
    }
  } else if (any_module_seen_) {
    member += "null";
  } else {
    member += "\"\"";
  }
  writer_->append_member(construct_file_, std::move(member));
}

void DumpSession::note_tensor_name(const std::string& row, const std::string& name) {
  if (!files_open_ || disabled_) return;
  if (tensor_names_file_ < 0)
    tensor_names_file_ = writer_->open_object_file(rank_dir_ + "/tensor_names.json", "{", "", 1);
  std::string member;
  append_json_string(member, row);
  member += ": ";
  append_json_string(member, name);
  writer_->append_member(tensor_names_file_, std::move(member));
}

void DumpSession::emit_entry(const std::string& name, const std::string& value_text) {
  if (!files_open_ || disabled_) return;
  std::string member;
  member.reserve(name.size() + value_text.size() + 8);
  append_json_string(member, name);
  member += ": ";
  member += value_text;
  writer_->append_member(dump_file_, std::move(member));
  ++entries_written_;
  ++step_entries_;
}

int64_t DumpSession::mark_place(uint64_t entries_before) {
  places_.push_back(entries_before);
  return (int64_t)places_.size() - 1;
}

void DumpSession::emit_entry_at(int64_t place, const std::string& name, const std::string& value_text) {
  if (!files_open_ || disabled_) return;
  if (place >= 0 && (size_t)place < places_.size()) {
    placed_.emplace_back(step_entries_, place);
    unplaced_ = true;  // the writer skips the rewrite when the file is in that order already
  }
  emit_entry(name, value_text);
}

// The final order: entries in the order they came, except those emitted at a place, which go
// before the first ordinary entry numbered at or after their place (several at one place in the
// order their places were marked). This is the order in which 1.2.1 inserts its placeholders.
// An entry emitted again at the same place (parameters_grad after each backward of the step)
// replaces the earlier one, as 1.2.1 updates its placeholder.
void DumpSession::place_entries() {
  if (!files_open_ || !unplaced_) return;
  unplaced_ = false;
  std::vector<char> is_placed(step_entries_, 0);
  std::vector<int64_t> latest(places_.size(), -1);  // by place: the last entry emitted there
  for (const auto& [entry, place] : placed_) {
    is_placed[entry] = 1;
    latest[(size_t)place] = std::max(latest[(size_t)place], (int64_t)entry);
  }
  std::vector<std::pair<std::pair<uint64_t, int64_t>, uint32_t>> moved;  // ((before, place), entry)
  for (size_t place = 0; place < latest.size(); ++place)
    if (latest[place] >= 0) moved.push_back({{places_[place], (int64_t)place}, (uint32_t)latest[place]});
  std::sort(moved.begin(), moved.end());
  std::vector<uint32_t> order;
  order.reserve(step_entries_);
  size_t next = 0;
  for (uint64_t e = 0; e < step_entries_; ++e) {
    if (is_placed[e]) continue;
    while (next < moved.size() && moved[next].first.first <= e) order.push_back(moved[next++].second);
    order.push_back((uint32_t)e);
  }
  while (next < moved.size()) order.push_back(moved[next++].second);
  writer_->reorder_object_file(dump_file_, std::move(order));
}

uint32_t DumpSession::intern_frame(const std::string& file, int64_t line, const std::string& function) {
  bool user = !file.empty() && file[0] != '<';
  for (const auto& p : library_prefixes_)
    if (!p.empty() && file.compare(0, p.size(), p) == 0) user = false;
  frames_.push_back(FrameRef{file, function, line, user});
  std::string text;
  append_json_string(text, sources_.frame(file, line, function));
  frame_json_.push_back(std::move(text));
  return (uint32_t)frame_json_.size() - 1;
}

void DumpSession::emit_stack(const std::string& name, const std::vector<uint32_t>& frame_ids) {
  if (!files_open_ || disabled_) return;
  std::string member;
  size_t size = name.size() + 16;
  for (uint32_t id : frame_ids) size += frame_json_[id].size() + 4;
  member.reserve(size);
  append_json_string(member, name);
  member += ": [";
  if (frame_ids.empty()) member += "\n  \"The call stack retrieval failed.\"";
  for (size_t i = 0; i < frame_ids.size(); ++i) {
    member += i ? ",\n  " : "\n  ";
    member += frame_json_[frame_ids[i]];
  }
  member += "\n ]";
  writer_->append_member(stack_file_, std::move(member));
}

void DumpSession::save_tensor_file(const std::string& data_name, std::string contents) {
  if (!files_open_ || disabled_) return;
  writer_->write_file(tensor_dir_ + "/" + data_name, std::move(contents));
}

void DumpSession::link_tensor_file(const std::string& existing_data_name, const std::string& data_name,
                                   std::string contents) {
  if (!files_open_ || disabled_) return;
  writer_->link_file(tensor_dir_ + "/" + existing_data_name, tensor_dir_ + "/" + data_name,
                     std::move(contents));
}

int64_t DumpSession::user_frame(const std::vector<uint32_t>& frame_ids) const {
  for (uint32_t id : frame_ids)
    if (id < frames_.size() && frames_[id].user) return id;
  return -1;
}

void DumpSession::describe_frame(int64_t frame_id, OverflowEvent& ev) {
  if (frame_id < 0 || (size_t)frame_id >= frames_.size()) return;
  const FrameRef& f = frames_[(size_t)frame_id];
  ev.file = f.file;
  ev.line = f.line;
  ev.function = f.function;
  ev.text = sources_.line(f.file, f.line);
}

bool DumpSession::record_overflow(OverflowEvent ev) {
  if (!overflow_) return false;
  if (ev.time == 0) {
    ev.time = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  const bool first_of_step = overflow_->step_count() == 0;
  const bool first = overflow_->record(std::move(ev));
  if (overflow_->limit_reached()) {
    // 1.2.1 writes its JSON at once when the limit is reached and collects nothing more.
    overflow_terminated_ = true;
    write_overflow_summary();
    flush();
  } else if (first_of_step) {
    write_overflow_summary();  // evidence on disk at once, even if training dies next
  }
  return first;
}

void DumpSession::write_overflow_summary() {
  if (!overflow_ || !files_open_ || disabled_) return;
  writer_->write_file(rank_dir_ + "/overflow_summary.json",
                      overflow_->step_summary_json(opt_.framework_name, config_.level, current_step_, rank_));
}

}  // namespace msprobe
