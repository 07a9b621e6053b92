// .xlsx workbooks written as 1.2.1's two writers leave them, streamed row by row (format/
// xlsx_book.h: constant memory, replaced atomically, mode 0640).
//
// write_appended_xlsx: openpyxl's ws.append of each row (1.2.1's compare_result_*.xlsx,
// core/compare/highlight.py after compare_result_df_convert):
//   - one sheet named "Sheet"; row 1 = the header, plain text, no styling; no column widths;
//   - cells converted by written_cell(): numbers stay numbers, NaN/inf become "nan\t"/"inf\t",
//     None becomes "None", bools "True"/"False"; "" is an empty cell;
//   - a row with a fill colour gets it as a solid fill on every column.
// Differences (docs/compatibility.md): numbers carry 16 significant digits (libxlsxwriter's
// %.16G; Excel shows 15), text starting with '=' stays text (openpyxl would store a formula),
// cells are cut at Excel's 32,767-character limit, and rows beyond one sheet continue on
// "Sheet2", "Sheet3", ... each with the header (1.2.1 fails there).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "msprobe/format/cell.h"

namespace msprobe {

// What 1.2.1 writes into the xlsx for a DataFrame cell (highlight.py compare_result_df_convert):
// a finite number stays a number; NaN / inf / -inf become the strings "nan\t" / "inf\t" /
// "-inf\t"; a bool becomes "True" / "False"; None becomes "None"; a string "inf", "-inf" or "nan"
// gets a trailing tab; any other string is written as is.
// True when written_cell(c) is c itself (most cells: a writer can skip the copy).
inline bool written_as_is(const Cell& c) {
  if (c.kind == Cell::Kind::kNumber) return c.d == c.d && c.d != 1.0 / 0.0 && c.d != -1.0 / 0.0;
  return c.kind == Cell::Kind::kString && c.s != "inf" && c.s != "-inf" && c.s != "nan";
}
inline Cell written_cell(const Cell& c) {
  if (written_as_is(c)) return c;
  switch (c.kind) {
    case Cell::Kind::kEmpty: return Cell::str("None");
    case Cell::Kind::kBool: return Cell::str(c.d != 0 ? "True" : "False");
    case Cell::Kind::kString:
      if (c.s == "inf" || c.s == "-inf" || c.s == "nan") return Cell::str(c.s + "\t");
      return c;
    case Cell::Kind::kNumber:
      if (c.d != c.d) return Cell::str("nan\t");
      if (c.d == 1.0 / 0.0) return Cell::str("inf\t");
      if (c.d == -1.0 / 0.0) return Cell::str("-inf\t");
      return c;
  }
  return c;
}

// Writes `header` and `rows` to `path` as above. The solid fills are made in the order of
// `fill_colours` (RGB, 0xRRGGBB); row r gets fill_colours[row_fill[r] - 1] on every column, none
// when row_fill[r] is 0 or r is past its end. Every row must have header.size() cells. Replaces a
// file there, refuses a symbolic link. Throws FileError.
void write_appended_xlsx(const std::vector<std::string>& header, const std::vector<std::vector<Cell>>& rows,
                         const std::vector<uint32_t>& fill_colours, const std::vector<uint8_t>& row_fill,
                         const std::string& path);

// A plain sheet as pandas.DataFrame.to_excel(index=False) writes it: header row bold, thin
// border, centred; kEmpty cells (pandas NaN) left blank; kBool as a boolean-valued number.
// Used by merge_result (multi_ranks_compare_merge_*.xlsx).
struct PlainSheet {
  std::string name;
  std::vector<std::string> header;
  std::vector<std::vector<Cell>> rows;
};
void write_pandas_xlsx(const std::vector<PlainSheet>& sheets, const std::string& path);

}  // namespace msprobe
