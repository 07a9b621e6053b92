// The page of a training monitor's output folder (MONITOR_OUTPUT_DIR, beyond 1.2.1): for each rank,
// its anomalies earliest first, then each statistic of each data type along the steps, one line
// per module or parameter, the anomalies marked. Inline SVG, no script, like the grad_probe page.
#pragma once
#include <string>

namespace msprobe {
namespace report {

// Whether `path` is a monitor output: rank folders "{time}-rank{R}-{id}" holding the monitor's csv
// files, or one such folder.
bool is_monitor_output(const std::string& path);

// The page. Throws InvalidInput when `path` is not a monitor output, FileError when a file cannot
// be read.
std::string render_monitor_report(const std::string& path, const std::string& title = "");

}  // namespace report
}  // namespace msprobe
