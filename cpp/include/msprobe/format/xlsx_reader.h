// Reading the cells of an .xlsx workbook (compare results written by us, by msprobe 1.2.1's
// openpyxl, or re-saved by Excel/LibreOffice) for merge_result. Values only: numbers, shared,
// inline and formula-result strings, booleans; styles are ignored. A missing cell is kEmpty.
#pragma once
#include <string>
#include <vector>

#include "msprobe/format/cell.h"

namespace msprobe {

struct XlsxSheet {
  std::string name;
  std::vector<std::vector<Cell>> rows;  // rows[0] is the sheet's first row; ragged
};

// All sheets, in workbook order (first_only: just the first). Throws FileError with the file name
// when the file is not a readable workbook.
std::vector<XlsxSheet> read_xlsx(const std::string& path, bool first_only = false);
// The same for a workbook already in memory; `origin` names it in errors.
std::vector<XlsxSheet> read_xlsx_bytes(const std::string& bytes, const std::string& origin,
                                       bool first_only = false);

}  // namespace msprobe
