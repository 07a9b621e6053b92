// 1.2.1's red/yellow highlighting of compare rows (core/compare/highlight.py): rows are grouped
// per API; every row is checked for overflow, and every output row is checked against each
// input/parameter row of its API. Messages of highlighted rows are appended to Err_message as
// 1.2.1 does before it writes the workbook.
#pragma once
#include "msprobe/compare/compare_table.h"

namespace msprobe {
namespace compare {

// Fills table.fills (one per row) and appends the highlight messages to Err_message. md5 tables
// get no highlight.
void apply_highlight(CompareTable& table);

}  // namespace compare
}  // namespace msprobe
