// config.json of msprobe 1.2.1 (reference data-dump §1): parsed, validated, with defaults.
// Every invalid value raises InvalidInput with one line naming the field and what is allowed.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "msprobe/format/json_value.h"

namespace msprobe {

struct FreeBenchmarkConfig {
  std::vector<std::string> scope, list;
  std::string fuzz_device = "npu", pert_mode = "improve_precision", handler_type = "check";
  std::string fuzz_level = "L1", fuzz_stage = "forward";
  bool if_preheat = false;
  int64_t preheat_step = 15, max_sample = 20;
  // MindSpore: 1.2.1 warns that the preheat settings are not supported and ignores them; the
  // adapter logs this line (empty: nothing to say).
  std::string ignored_note;
};

struct RunUtConfig {
  std::vector<std::string> white_list, black_list;
  std::string error_data_path = "./";
};

struct GradProbeConfig {
  std::string grad_level = "L1";
  std::vector<std::string> param_list;
  std::vector<double> bounds = {-1, 0, 1};
  // Each bound as Python's str() prints the JSON value ("-1", "0.5", "100.0"): the interval
  // labels of grad_summary_{step}.csv.
  std::vector<std::string> bound_labels = {"-1", "0", "1"};
};

struct DumpConfig {
  // Common fields.
  std::string task = "statistics";
  std::string dump_path = "./dump_path";
  std::vector<int64_t> rank;  // expanded, de-duplicated, sorted; empty = all
  std::vector<int64_t> step;  // same
  std::string level = "L1";
  bool enable_dataloader = false;
  bool async_dump = false;
  // The selected task section (statistics / tensor / overflow_check).
  std::vector<std::string> scope, list;
  std::vector<std::string> data_mode = {"all"};
  std::string summary_mode = "statistics";     // PyTorch form
  std::vector<std::string> summary_mode_list;  // MindSpore list form, when given
  std::string file_format = "npy";
  int64_t overflow_nums = 1;
  std::string check_mode = "all";
  FreeBenchmarkConfig free_benchmark;
  RunUtConfig run_ut;
  GradProbeConfig grad_probe;
};

enum class Framework { kPyTorch, kMindSpore };

// Overrides from the PrecisionDebugger constructor (None = not given).
struct ConfigOverrides {
  std::optional<std::string> task, dump_path, level;
  std::optional<JsonValue> step;  // same syntax as config "step"
};

// Parses and validates a config.json document. `origin` names the file in messages.
DumpConfig parse_dump_config(const JsonValue& doc, Framework fw, const ConfigOverrides& ov,
                             const std::string& origin);
DumpConfig load_dump_config(const std::string& path, Framework fw, const ConfigOverrides& ov);

// The rank/step list syntax: ints in 0..1000000 and "a-b" strings with a <= b.
std::vector<int64_t> parse_int_ranges(const JsonValue& v, const std::string& field);

}  // namespace msprobe
