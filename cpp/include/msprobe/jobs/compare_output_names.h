// File names of compare's outputs, as msprobe 1.2.1 builds them (core/common/utils.py
// add_time_with_xlsx, core/advisor/advisor_result.py, compare_distributed's suffix):
//   compare_result{suffix}_{YYYYmmddHHMMSS}.xlsx      suffix "" for one rank,
//   advisor{suffix}_{YYYYmmddHHMMSS}.txt              "_{npu rank dir}-{bench rank dir}" per
//   multi_ranks_compare_merge_{YYYYmmddHHMMSS}.xlsx   rank pair, e.g. "_rank0-rank0"
// The timestamp is local time (base/output_dir.h, timestamp_now()).
#pragma once
#include <string>

namespace msprobe {
namespace compare {

std::string compare_result_file_name(const std::string& suffix, const std::string& timestamp);
std::string advisor_file_name(const std::string& suffix, const std::string& timestamp);
// Not in 1.2.1: first divergence and the HTML report of one compare, named like its xlsx.
std::string divergence_file_name(const std::string& suffix, const std::string& timestamp);
std::string compare_report_file_name(const std::string& suffix, const std::string& timestamp);
std::string merge_result_file_name(const std::string& timestamp);
// "_" + npu_rank_dir + "-" + bench_rank_dir (the folder names, e.g. "rank0").
std::string rank_pair_suffix(const std::string& npu_rank_dir, const std::string& bench_rank_dir);

}  // namespace compare
}  // namespace msprobe
