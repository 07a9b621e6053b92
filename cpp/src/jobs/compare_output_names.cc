#include "msprobe/jobs/compare_output_names.h"

namespace msprobe {
namespace compare {

std::string compare_result_file_name(const std::string& suffix, const std::string& timestamp) {
  return "compare_result" + suffix + "_" + timestamp + ".xlsx";
}

std::string advisor_file_name(const std::string& suffix, const std::string& timestamp) {
  return "advisor" + suffix + "_" + timestamp + ".txt";
}

std::string divergence_file_name(const std::string& suffix, const std::string& timestamp) {
  return "divergence" + suffix + "_" + timestamp + ".json";
}

std::string compare_report_file_name(const std::string& suffix, const std::string& timestamp) {
  return "compare_report" + suffix + "_" + timestamp + ".html";
}

std::string merge_result_file_name(const std::string& timestamp) {
  return "multi_ranks_compare_merge_" + timestamp + ".xlsx";
}

std::string rank_pair_suffix(const std::string& npu_rank_dir, const std::string& bench_rank_dir) {
  return "_" + npu_rank_dir + "-" + bench_rank_dir;
}

}  // namespace compare
}  // namespace msprobe
