// compare_result_*.xlsx as msprobe 1.2.1 writes it: the compare table through openpyxl's
// ws.append (format/xlsx_writer.h, write_appended_xlsx), rows with Fill::kRed / kYellow with a
// solid fill of FF0000 / FFFF00 on every column, file mode 0640.
#pragma once
#include <cstdint>
#include <string>

#include "msprobe/compare/compare_table.h"

namespace msprobe {
namespace compare {

// 1.2.1's CompareConst.RED / YELLOW, as RGB.
constexpr uint32_t kRedFill = 0xFF0000;
constexpr uint32_t kYellowFill = 0xFFFF00;

// Writes `table` to `path` (replacing a file there; refusing a symbolic link). Throws FileError,
// or InvalidInput for a table whose rows do not fit its header.
void write_compare_xlsx(const CompareTable& table, const std::string& path);

}  // namespace compare
}  // namespace msprobe
