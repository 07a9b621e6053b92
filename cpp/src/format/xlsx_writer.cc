// Workbooks as 1.2.1's writers leave them: see xlsx_writer.h.
#include "msprobe/format/xlsx_writer.h"

#include <xlsxwriter.h>

#include <algorithm>
#include <cmath>

#include "msprobe/base/error.h"
#include "xlsx_book.h"

namespace msprobe {

void write_appended_xlsx(const std::vector<std::string>& header, const std::vector<std::vector<Cell>>& rows,
                         const std::vector<uint32_t>& fill_colours, const std::vector<uint8_t>& row_fill,
                         const std::string& path) {
  const size_t per_sheet = kXlsxMaxRows - 1;  // row 1 is the header
  XlsxBook book(path, rows.size() > 200000);
  std::vector<lxw_format*> fills;
  for (uint32_t rgb : fill_colours) fills.push_back(book.solid_fill(rgb));
  auto fill_of = [&](size_t r) -> lxw_format* {
    const size_t k = r < row_fill.size() ? row_fill[r] : 0;
    return k == 0 || k > fills.size() ? nullptr : fills[k - 1];
  };
  const size_t sheets = rows.empty() ? 1 : (rows.size() + per_sheet - 1) / per_sheet;
  for (size_t sheet = 0; sheet < sheets; ++sheet) {
    book.add_sheet(sheet == 0 ? "Sheet" : "Sheet" + std::to_string(sheet + 1));
    for (size_t c = 0; c < header.size(); ++c) book.write_string(0, (uint16_t)c, header[c]);
    const size_t first = sheet * per_sheet;
    const size_t last = std::min(rows.size(), first + per_sheet);
    for (size_t r = first; r < last; ++r) {
      const uint32_t row = (uint32_t)(r - first + 1);
      lxw_format* fmt = fill_of(r);
      const std::vector<Cell>& cells = rows[r];
      for (size_t c = 0; c < cells.size(); ++c) {
        // Most cells are written as they are: a copy per cell would be millions of string
        // copies in a large compare.
        Cell converted;
        const Cell& cell = written_as_is(cells[c]) ? cells[c] : (converted = written_cell(cells[c]));
        if (cell.kind == Cell::Kind::kNumber) {
          book.write_number(row, (uint16_t)c, cell.d, fmt);
        } else {
          book.write_string(row, (uint16_t)c, cell.s, fmt);
        }
      }
    }
  }
  book.close();
}

void write_pandas_xlsx(const std::vector<PlainSheet>& sheets, const std::string& path) {
  if (sheets.empty()) throw InvalidInput(path + ": no sheet to write");
  size_t total = 0;
  for (const PlainSheet& s : sheets) total += s.rows.size();
  XlsxBook book(path, total > 200000);
  lxw_format* header_fmt = book.pandas_header();
  for (const PlainSheet& s : sheets) {
    if (s.rows.size() >= kXlsxMaxRows) {
      throw InvalidInput(path + ": sheet '" + s.name + "' has more rows than Excel allows");
    }
    book.add_sheet(s.name);
    for (size_t c = 0; c < s.header.size(); ++c) book.write_string(0, (uint16_t)c, s.header[c], header_fmt);
    for (size_t r = 0; r < s.rows.size(); ++r) {
      for (size_t c = 0; c < s.rows[r].size(); ++c) {
        const Cell& cell = s.rows[r][c];
        const uint32_t row = (uint32_t)(r + 1);
        switch (cell.kind) {
          case Cell::Kind::kEmpty: break;
          case Cell::Kind::kString: book.write_string(row, (uint16_t)c, cell.s); break;
          case Cell::Kind::kBool: book.write_boolean(row, (uint16_t)c, cell.d != 0); break;
          case Cell::Kind::kNumber:
            // pandas writes inf as a number Excel cannot hold; openpyxl stores NaN as text.
            if (std::isfinite(cell.d)) {
              book.write_number(row, (uint16_t)c, cell.d);
            } else {
              book.write_string(row, (uint16_t)c, std::isnan(cell.d) ? "nan" : cell.d > 0 ? "inf" : "-inf");
            }
            break;
        }
      }
    }
  }
  book.close();
}

}  // namespace msprobe
