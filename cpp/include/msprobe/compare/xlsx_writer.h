// compare_result_*.xlsx as msprobe 1.2.1 writes it (core/compare/highlight.py: openpyxl,
// ws.append of each row after compare_result_df_convert):
//   - one sheet named "Sheet"; row 1 = the header, plain text, no styling; no column widths;
//   - cells converted by written_cell() (compare_table.h): numbers stay numbers, NaN/inf become
//     "nan\t"/"inf\t", None becomes "None", bools "True"/"False"; "" is an empty cell;
//   - rows with Fill::kRed / kYellow get a solid fill of FF0000 / FFFF00 on every column;
//   - file mode 0640.
// Differences (docs/compatibility.md): numbers carry 16 significant digits (libxlsxwriter's
// %.16G; Excel shows 15), text starting with '=' stays text (openpyxl would store a formula),
// cells are cut at Excel's 32,767-character limit, and a table longer than one sheet continues
// on "Sheet2", "Sheet3", ... each with the header (1.2.1 fails there).
#pragma once
#include <string>
#include <vector>

#include "msprobe/compare/compare_table.h"

namespace msprobe {
namespace compare {

// 1.2.1's CompareConst.RED / YELLOW, as RGB.
constexpr unsigned kRedFill = 0xFF0000;
constexpr unsigned kYellowFill = 0xFFFF00;

// Writes `table` to `path` (replacing a file there; refusing a symbolic link). Throws FileError.
void write_compare_xlsx(const CompareTable& table, const std::string& path);

// A plain sheet as pandas.DataFrame.to_excel(index=False) writes it: header row bold, thin
// border, centred; kEmpty cells (pandas NaN) left blank; kBool as a boolean-valued number.
// Used by merge_result (multi_ranks_compare_merge_*.xlsx).
struct PlainSheet {
  std::string name;
  std::vector<std::string> header;
  std::vector<std::vector<Cell>> rows;
};
void write_pandas_xlsx(const std::vector<PlainSheet>& sheets, const std::string& path);

}  // namespace compare
}  // namespace msprobe
