// The training monitor's config.json (1.2.1's TrainerMon, docs 19): every field with 1.2.1's
// default and check, and, unlike 1.2.1, an unknown field is an error. Each problem is one line
// naming the field and what is allowed.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "msprobe/format/json_value.h"
#include "msprobe/monitor/monitor_stats.h"

namespace msprobe {
namespace monitor {

// An alert rule: 1.2.1 knows only AnomalyTurbulence (the value leaves its running mean by more
// than threshold times the mean).
struct AlertRule {
  std::string rule_name = "AnomalyTurbulence";
  double threshold = 0;
};

// What is monitored of one target module: "input", "output", "input_grad", "output_grad" mapped
// to a spec ("tensor", "tuple[N]:I"), empty when the module's own structure decides.
struct MonitorTarget {
  std::string module;
  std::vector<std::pair<std::string, std::string>> specs;
};

struct MonitorConfig {
  std::vector<MonitorTarget> targets;  // empty in the file: every module and parameter ("")
  bool print_struct = false;
  std::vector<int64_t> module_ranks;
  bool xy_distribution = false, all_xy = false, forward_only = false, backward_only = false;
  bool wg_distribution = false, mv_distribution = false, param_distribution = false;
  bool ur_distribution = false, mg_direction = false;
  // cc_distribution: statistics of the torch.distributed collectives.
  bool cc_enable = false;
  std::vector<std::string> cc_codeline;     // regexes; a call counts when one matches its stack
  bool cc_pre_hook = false;                 // also the inputs before the call ("pre_i")
  bool cc_log_only = false;                 // log the collectives used and their stacks, then stop
  std::vector<std::string> ops = {"norm"};  // the valid ones of the file, else ["norm"]
  double eps = 1e-8;
  int64_t ndigits = 6;
  std::vector<AlertRule> alert_rules;
  bool alert_dump = false;
  std::string format = "tensorboard";  // csv, tensorboard or api
  int64_t step_interval = 1, start_step = 0, collect_times = 100000000, step_count_per_record = 1;
  bool squash_name = true;
  bool switch_on = false;                  // "switch": dynamic start (DYNAMIC_MONITOR=True)
  std::vector<std::string> append_output;  // [time_start, time_end]
  // Notes that are not errors (an op 1.2.1 drops with a warning), one line each.
  std::vector<std::string> warnings;
};

// Throws InvalidInput ("monitor config <origin>: ...") for a field of the wrong type or value or
// an unknown field.
MonitorConfig parse_monitor_config(const JsonValue& doc, const std::string& origin);
MonitorConfig load_monitor_config(const std::string& path);

}  // namespace monitor
}  // namespace msprobe
