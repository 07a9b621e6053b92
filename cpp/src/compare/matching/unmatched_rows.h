// Why NPU rows found no bench row: one console line for compare (CompareTable::notes), so that a
// user sees at once that rows were left out and what to look at.
#pragma once
#include <string>
#include <vector>

#include "dump_parse.h"
#include "result_rows.h"

namespace msprobe {
namespace compare {

// "" when every row has a bench row; else "N of M rows found no bench row (K calls): A (not in
// the bench dump), B (shape [2, 3] vs [2, 4]), ..." naming the first few calls.
std::string unmatched_rows_line(const std::vector<Row>& rows, const ParsedDump& npu, const ParsedDump& bench);

}  // namespace compare
}  // namespace msprobe
