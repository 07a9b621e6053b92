// Field order and defaults follow 1.2.1's KernelKbykDump/KernelGraphDump: dump_mode 1 with a
// list, iteration "a|b|c" from step, saved_data from the task, input_output 0/1/2 from a
// one-item data_mode, support_device = rank or 0..7; O2 adds op_debug_mode 0 and file_format.
#include "msprobe/kernel/kernel_dump_config.h"

#include <cstdio>

#include "msprobe/base/error.h"
#include "msprobe/format/json_text.h"

namespace msprobe {
namespace {

// json.dump(indent=4) of the two-level object we need: scalars rendered by the caller.
class Indent4 {
 public:
  explicit Indent4(std::string& out) : out_(out) {}
  void open_object(int depth) {
    out_ += "{";
    first_ = true;
    depth_ = depth;
  }
  void key(const char* k) {
    out_ += first_ ? "\n" : ",\n";
    first_ = false;
    out_.append((size_t)(depth_ + 1) * 4, ' ');
    append_json_string(out_, k);
    out_ += ": ";
  }
  void close_object() {
    out_ += '\n';
    out_.append((size_t)depth_ * 4, ' ');
    out_ += '}';
    first_ = false;
  }
  // A list of rendered items at the current key.
  void list(const std::vector<std::string>& items) {
    if (items.empty()) {
      out_ += "[]";
      return;
    }
    out_ += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      out_ += i ? ",\n" : "\n";
      out_.append((size_t)(depth_ + 2) * 4, ' ');
      out_ += items[i];
    }
    out_ += '\n';
    out_.append((size_t)(depth_ + 1) * 4, ' ');
    out_ += ']';
  }

 private:
  std::string& out_;
  bool first_ = true;
  int depth_ = 0;
};

std::string js(const std::string& s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

}  // namespace

namespace {
// 1.2.1's KernelGraphOverflowCheck: every kernel and step ("Step would change to all in this
// task."), everything of an overflowing kernel saved, op_debug_mode 3/1/2 from check_mode.
std::string overflow_json(const DumpConfig& cfg, const std::string& saved_data) {
  std::vector<std::string> devices;
  if (cfg.rank.empty()) {
    for (int i = 0; i < 8; ++i) devices.push_back(std::to_string(i));
  } else {
    for (int64_t r : cfg.rank) devices.push_back(std::to_string(r));
  }
  const char* op_debug_mode = cfg.check_mode == "aicore" ? "1" : cfg.check_mode == "atomic" ? "2" : "3";
  std::string out = "{";
  out += "\n    \"common_dump_settings\": ";
  Indent4 c(out);
  c.open_object(1);
  c.key("dump_mode");
  out += "0";
  c.key("path");
  out += js(cfg.dump_path);
  c.key("net_name");
  out += "\"Net\"";
  c.key("iteration");
  out += "\"all\"";
  c.key("saved_data");
  out += js(saved_data.empty() ? "full" : saved_data);
  c.key("input_output");
  out += "0";
  c.key("kernels");
  c.list({});
  c.key("support_device");
  c.list(devices);
  c.key("op_debug_mode");
  out += op_debug_mode;
  c.key("file_format");
  out += "\"npy\"";
  c.close_object();
  out += "\n}";
  return out;
}
}  // namespace

std::string kernel_dump_json(const DumpConfig& cfg, KernelDumpKind kind, const std::string& saved_data) {
  if (kind == KernelDumpKind::kGraphOverflow) return overflow_json(cfg, saved_data);
  std::string iteration = "all";
  if (!cfg.step.empty()) {
    iteration.clear();
    for (size_t i = 0; i < cfg.step.size(); ++i) {
      if (i) iteration += '|';
      iteration += std::to_string(cfg.step[i]);
    }
  }
  int input_output = 0;
  if (cfg.data_mode.size() == 1) {
    if (cfg.data_mode[0] == "input") input_output = 1;
    if (cfg.data_mode[0] == "output") input_output = 2;
  }
  std::vector<std::string> kernels, devices;
  for (const auto& k : cfg.list) kernels.push_back(js(k));
  if (cfg.rank.empty()) {
    for (int i = 0; i < 8; ++i) devices.push_back(std::to_string(i));
  } else {
    for (int64_t r : cfg.rank) devices.push_back(std::to_string(r));
  }
  const std::string saved =
      !saved_data.empty() ? saved_data : (cfg.task == "tensor" ? "tensor" : "statistic");

  std::string out = "{";
  out += "\n    \"common_dump_settings\": ";
  Indent4 c(out);
  c.open_object(1);
  c.key("dump_mode");
  out += cfg.list.empty() ? "0" : "1";
  c.key("path");
  out += js(cfg.dump_path);
  c.key("net_name");
  out += "\"Net\"";
  c.key("iteration");
  out += js(iteration);
  c.key("saved_data");
  out += js(saved);
  c.key("input_output");
  out += std::to_string(input_output);
  c.key("kernels");
  c.list(kernels);
  c.key("support_device");
  c.list(devices);
  if (kind == KernelDumpKind::kGraph) {
    c.key("op_debug_mode");
    out += "0";
    c.key("file_format");
    out += js(cfg.task == "tensor" ? cfg.file_format : "npy");
  }
  c.close_object();
  if (kind == KernelDumpKind::kKbyk) {
    out += ",\n    \"e2e_dump_settings\": ";
    Indent4 e(out);
    e.open_object(1);
    e.key("enable");
    out += "true";
    e.key("trans_flag");
    out += "true";
    e.close_object();
  }
  out += "\n}";
  return out;
}

}  // namespace msprobe
