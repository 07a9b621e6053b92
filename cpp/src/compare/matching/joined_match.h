// 1.2.1's MindSpore compare (mindspore/compare/ms_compare.py MSComparator.compare_process,
// make_result_df, calc_accuracy): every leaf becomes a row keyed by (compare key, shape string);
// NPU rows are outer-joined with bench rows on that key as pandas 2.0 does (groups in the order
// their key first appears, each NPU row paired with every bench row of its group); a dtype pair
// outside 1.2.1's float group blanks the bench side. Statistics, md5 results and verdicts are then
// computed column-wise with MSComparator's own rules, which differ from the PyTorch ones: a zero
// bench statistic gives "Nan", not "N/A"; Warning needs all four statistics over the magnitude
// threshold and uses |max(npu, bench)|; the stack goes on every row.
#pragma once
#include <vector>

#include "dump_parse.h"
#include "msprobe/compare/compare_table.h"
#include "msprobe/compare/name_mapper.h"
#include "result_rows.h"

namespace msprobe {
namespace compare {

struct JoinedMatchOptions {
  CompareMode mode = CompareMode::kStatistics;
  bool stack_mode = false;
  bool cross_framework = false;  // MindSpore dtype names mapped to torch names for the dtype check
  NameMapper* mapper = nullptr;  // NPU compare keys; nullptr = the row names
};

// Appends final rows (header = table_header(mode, stack_mode)).
void joined_match(const ParsedDump& npu, const ParsedDump& bench, const JoinedMatchOptions& opt,
                  std::vector<Row>& rows);

}  // namespace compare
}  // namespace msprobe
