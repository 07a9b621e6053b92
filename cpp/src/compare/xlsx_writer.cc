#include "msprobe/compare/xlsx_writer.h"

#include <xlsxwriter.h>

#include <algorithm>
#include <cmath>

#include "msprobe/base/error.h"
#include "xlsx_book.h"

namespace msprobe {
namespace compare {

namespace {

void check_table(const CompareTable& t, const std::string& path) {
  if (t.header.empty()) throw InvalidInput(path + ": the compare table has no columns");
  if (t.header.size() > 16384) throw InvalidInput(path + ": the compare table has too many columns");
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (t.rows[r].size() != t.header.size()) {
      throw InvalidInput(path + ": compare table row " + std::to_string(r) + " has " +
                         std::to_string(t.rows[r].size()) + " cells for " + std::to_string(t.header.size()) +
                         " columns");
    }
  }
}

}  // namespace

void write_compare_xlsx(const CompareTable& table, const std::string& path) {
  check_table(table, path);
  const size_t per_sheet = kXlsxMaxRows - 1;  // row 1 is the header
  XlsxBook book(path, table.rows.size() > 200000);
  lxw_format* red = book.solid_fill(kRedFill);
  lxw_format* yellow = book.solid_fill(kYellowFill);
  const size_t sheets = table.rows.empty() ? 1 : (table.rows.size() + per_sheet - 1) / per_sheet;
  for (size_t sheet = 0; sheet < sheets; ++sheet) {
    book.add_sheet(sheet == 0 ? "Sheet" : "Sheet" + std::to_string(sheet + 1));
    for (size_t c = 0; c < table.header.size(); ++c) book.write_string(0, (uint16_t)c, table.header[c]);
    const size_t first = sheet * per_sheet;
    const size_t last = std::min(table.rows.size(), first + per_sheet);
    for (size_t r = first; r < last; ++r) {
      const uint32_t row = (uint32_t)(r - first + 1);
      const Fill fill = r < table.fills.size() ? table.fills[r] : Fill::kNone;
      lxw_format* fmt = fill == Fill::kRed ? red : fill == Fill::kYellow ? yellow : nullptr;
      const std::vector<Cell>& cells = table.rows[r];
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

}  // namespace compare
}  // namespace msprobe
