// Statistics-mode differences of one matched row, 1.2.1's get_rela_diff_summary_mode
// (core/compare/utils.py): "Max diff".."L2norm diff" = npu - bench, the relative errors as
// "x%" strings, the Warning rule |diff| / (max(|npu|, |bench|) + 1e-10) > 0.5 on any statistic.
#pragma once
#include <array>
#include <vector>

#include "msprobe/compare/compare_table.h"
#include "msprobe/format/json_value.h"

namespace msprobe {
namespace compare {

// row: a statistics-mode row holding at least the 22 columns up to "Bench l2norm" (diff and
// relative cells are overwritten; "inf"/"-inf"/"nan" cells from "Max diff" on get a trailing tab
// as 1.2.1 writes them). Returns true when the Warning rule fires.
bool apply_summary_diff(std::vector<Cell>& row, const std::array<JsonValue, 4>& npu,
                        const std::array<JsonValue, 4>& bench);

}  // namespace compare
}  // namespace msprobe
