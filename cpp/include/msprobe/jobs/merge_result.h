// `msprobe merge_result -i DIR -o DIR -config cfg.yaml` (msprobe 1.2.1 core/compare/merge_result):
// gathers chosen metrics of chosen APIs from the per-rank compare results
// compare_result_rank{N}-rank{N}_{ts}.xlsx in DIR into multi_ranks_compare_merge_{ts}.xlsx, one
// sheet per metric ("compare index"), one row per matching NPU Name, one column per rank.
//   config: api = NPU Name prefixes (an API matches rows whose name contains "<api>."),
//           compare_index = metrics (default: every metric of the results' mode).
// md5 results cannot be merged. Single-rank results (compare_result_rank-rank_*) are skipped.
#pragma once
#include <string>
#include <vector>

namespace msprobe {
namespace compare {

struct MergeConfig {
  bool empty = false;  // the YAML file held nothing
  std::vector<std::string> api;
  std::vector<std::string> compare_index;
};

struct MergeReport {
  std::string path;                   // the merged workbook
  std::vector<std::string> warnings;  // one line each, in 1.2.1's wording
  std::vector<std::string> infos;
};

// Throws InvalidInput / FileError (one line) when there is nothing to merge or an input is bad;
// then nothing is written.
MergeReport merge_results(const std::string& input_dir, const std::string& output_dir,
                          const MergeConfig& config, const std::string& timestamp = "");

}  // namespace compare
}  // namespace msprobe
