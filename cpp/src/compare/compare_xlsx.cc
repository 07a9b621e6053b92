// compare_result_*.xlsx: see compare_xlsx.h.
#include "msprobe/compare/compare_xlsx.h"

#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/format/xlsx_writer.h"

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
  // Red, then yellow: the order in which the workbook has always made its fill formats.
  std::vector<uint8_t> row_fill(table.fills.size(), 0);
  for (size_t r = 0; r < table.fills.size(); ++r)
    row_fill[r] = table.fills[r] == Fill::kRed ? 1 : table.fills[r] == Fill::kYellow ? 2 : 0;
  write_appended_xlsx(table.header, table.rows, {kRedFill, kYellowFill}, row_fill, path);
}

}  // namespace compare
}  // namespace msprobe
