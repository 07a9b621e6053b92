// The page beside run_ut's and api_precision_compare's CSVs: each API (forward and backward
// outputs under it) coloured by its status, the worst metric along the API order, and each
// output's metrics. Same page as the compare report; the data comes from the details CSV.
#pragma once
#include <string>

namespace msprobe {
namespace report {

// details_csv: accuracy_checking_details_*.csv (run_ut) or api_precision_compare_details_*.csv.
// Throws FileError naming the file when it cannot be read, InvalidInput when it has neither
// layout (no "API Name" column and status column).
std::string render_check_report(const std::string& details_csv, const std::string& title = "");

// "<prefix>report_<stamp>.html" beside a details CSV named "<prefix>details_<stamp>.csv"; the
// details path with ".csv" replaced by ".html" otherwise.
std::string check_report_path(const std::string& details_csv);

}  // namespace report
}  // namespace msprobe
