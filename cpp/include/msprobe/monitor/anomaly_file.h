// The monitor's anomaly files (1.2.1, docs 19, alert "dump": true):
//   {output}/anomaly_detected/rank{R}/anomaly.json   every alert of the rank, by key
//       "{tag}_step_{step}_call_{call_id}" -> {rank, step, micro_step, pp_stage, vpp_stage,
//       call_id, tag_name, message, group_mates}, json.dump(indent=1) layout
// and their analysis (1.2.1's anomaly_analyse): the earliest alerts of all ranks, in the order
// training met them, into anomaly_analyse.json.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "msprobe/monitor/monitor_writer.h"

namespace msprobe {
namespace monitor {

// One alert as anomaly.json keeps it.
struct AnomalyEntry {
  int64_t rank = 0, step = 0, micro_step = 0, pp_stage = 0, vpp_stage = 0, call_id = 0;
  std::string tag_name, message;
  std::vector<int64_t> group_mates;
  std::string key() const;
};

class AnomalyFile {
 public:
  // Makes {dir}/rank{rank} and replaces its anomaly.json by {} (1.2.1 deletes an old one).
  AnomalyFile(const std::string& dir, int64_t rank, int64_t pp_stage, std::vector<int64_t> group_mates);
  // Adds the alerts (an entry of the same key is replaced in place) and rewrites the file.
  void write(const std::vector<MonitorAlert>& alerts);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int64_t rank_, pp_stage_;
  std::vector<int64_t> group_mates_;
  std::vector<AnomalyEntry> entries_;
};

// The entries of every {data_path}/*/anomaly.json (rank folders in name order).
std::vector<AnomalyEntry> read_anomalies(const std::string& data_path);
// The `top_k` earliest entries whose step is in `steps` (all when empty), in 1.2.1's order: step,
// micro step, stage (forward, backward, optimizer), then the pipeline stages (smaller first in
// forward, larger first after it) and call id.
std::vector<AnomalyEntry> earliest_anomalies(std::vector<AnomalyEntry> entries, int64_t top_k,
                                             const std::vector<int64_t>& steps);
// Writes {out_dir}/anomaly_analyse.json; returns its path.
std::string write_anomaly_analysis(const std::string& out_dir, const std::vector<AnomalyEntry>& entries);

}  // namespace monitor
}  // namespace msprobe
