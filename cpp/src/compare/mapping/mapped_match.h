// 1.2.1's compare with an explicit data mapping (-dm, or -lm which generates one):
// core/compare/acc_compare.py compare_process_custom / merge_data / get_accuracy. Each (NPU row,
// bench row) pair of the mapping, in the mapping's order, gives one row when both names exist;
// the bench name "N/A" stands for a bench row of "N/A" values. Other pairs are skipped.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "compare/matching/dump_parse.h"
#include "compare/matching/result_rows.h"
#include "msprobe/compare/compare_table.h"

namespace msprobe {
namespace compare {

// Appends rows with the stack column still present (finish_rows drops it outside stack mode).
void mapped_match(const ParsedDump& npu, const ParsedDump& bench,
                  const std::vector<std::pair<std::string, std::string>>& mapping, CompareMode mode,
                  std::vector<Row>& rows);

}  // namespace compare
}  // namespace msprobe
