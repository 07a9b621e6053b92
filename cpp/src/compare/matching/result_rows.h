// Result rows of matched and unmatched entries, as 1.2.1's ordered compare builds them
// (core/compare/utils.py get_accuracy, get_un_match_accuracy, result_item_init). Rows still hold
// the stack column (make_result_table drops it outside stack mode: see finish_rows).
#pragma once
#include <vector>

#include "merged_op.h"
#include "msprobe/compare/compare_table.h"

namespace msprobe {
namespace compare {

using Row = std::vector<Cell>;

// Rows of a matched NPU/bench entry pair: inputs, parameters, outputs, parameters_grad.
void append_matched_rows(std::vector<Row>& out, const MergedOp& npu, const MergedOp& bench, CompareMode mode);
// Rows of an NPU entry without a bench match ("No bench data matched.").
void append_unmatched_rows(std::vector<Row>& out, const MergedOp& npu, CompareMode mode);

// make_result_table: drops the stack column outside stack mode, then sizes every row to the
// header as pandas does (short rows padded with None).
void finish_rows(std::vector<Row>& rows, CompareMode mode, bool stack_mode);

// process_summary_data: a NaN statistic becomes the string "Nan".
Cell summary_cell(const JsonValue& v);

}  // namespace compare
}  // namespace msprobe
