// api_precision_compare (accuracy-checker spec §5): judges the device under test ("NPU") against
// a reference device ("GPU") from their two run_ut accuracy_checking_details CSVs, and writes
// api_precision_compare_result_{ts}.csv and api_precision_compare_details_{ts}.csv.
//
// Rules are those of msprobe 1.2.1 (ratios NPU/GPU with per-dtype floors, thresholds 2 and 10,
// the ULP rules, binary / absolute-threshold / 双千 judged on the NPU value alone, SKIP for
// float64 and complex), with these deliberate fixes:
//  - ULP with an inf/nan inconsistency writes "error" in ULP误差判定结果 (1.2.1 left it blank);
//  - an API is SKIPped as "This data type does not support benchmark compare." only when all
//    its rows have an unsupported dtype (1.2.1 looked at the API's last row only, so an fp16
//    forward with an fp64 backward hid the forward verdict);
//  - unreadable or malformed input is reported as one line and nothing is written;
//  - output files are written whole and replaced atomically (1.2.1 appended row by row).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace msprobe {
namespace check {

struct PrecisionCompareConfig {
  std::string npu_csv_path;
  std::string gpu_csv_path;
  std::string result_csv_path;   // api_precision_compare_result_{ts}.csv
  std::string details_csv_path;  // api_precision_compare_details_{ts}.csv
  int precision = 14;            // decimals of computed numbers (config.yaml `precision`)
};

struct PrecisionCompareReport {
  int64_t npu_rows = 0;               // data rows of the NPU file
  int64_t detail_rows = 0;            // rows written to the details file
  int64_t result_rows = 0;            // rows written to the result file
  std::vector<std::string> warnings;  // e.g. NPU rows without a GPU row (one line each)
  // Non-empty when processing stopped early on bad data (a name with several GPU rows, an
  // empty API Name): the files hold the rows before it, as in 1.2.1, and the caller should
  // report this line and exit non-zero.
  std::string error;
};

// Runs the comparison. Throws FileError / InvalidInput (one line) for unreadable files, broken
// CSV, or missing required columns; nothing is written then.
PrecisionCompareReport api_precision_compare(const PrecisionCompareConfig& config);

}  // namespace check
}  // namespace msprobe
