// A rank's monitor csv files read back as series along steps: 1.2.1's csv2tensorboard_by_step
// (every {data_type}_{a}-{b}.csv of the folder; a series per "vp{vpp_stage}:{name}", a value per
// op and step) and the monitor page of `msprobe report`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace msprobe {
namespace monitor {

struct MonitorSeries {
  std::string name;                         // "vp0:block.fc1_0" (1.2.1's tag prefix)
  std::vector<int64_t> steps;               // ascending
  std::vector<std::vector<double>> values;  // values[i][j]: steps[i], ops[j]
};

struct MonitorCsvSeries {
  std::string data_type;         // actv, actv_grad, exp_avg, exp_avg_sq, grad_unreduced, ...
  std::vector<std::string> ops;  // the header after name and step ("input.norm", or "norm")
  std::vector<MonitorSeries> series;
};

// The data types 1.2.1 converts, in its order.
const std::vector<std::string>& monitor_data_types();

// Reads every `data_type` file of `rank_dir`. Throws InvalidInput for an unknown data type, a file
// whose columns differ from the others, or a name seen twice at one step; FileError for a file
// that cannot be read.
MonitorCsvSeries read_monitor_csv_series(const std::string& rank_dir, const std::string& data_type);

}  // namespace monitor
}  // namespace msprobe
