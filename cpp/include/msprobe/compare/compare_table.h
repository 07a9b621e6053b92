// The result table of `compare` (1.2.1's compare_result_*.xlsx), typed as 1.2.1's DataFrame
// holds it, so a writer can give each xlsx cell the type the original gives it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "msprobe/format/cell.h"

namespace msprobe {
namespace compare {

// The table's cells are spreadsheet cells (format/cell.h).
using msprobe::Cell;

// 1.2.1: Const.SUMMARY (statistics), Const.ALL (tensors), Const.MD5.
enum class CompareMode { kStatistics, kTensor, kMd5 };

// 1.2.1 highlight rules (core/compare/highlight.py): red = error, yellow = warning.
enum class Fill { kNone, kRed, kYellow };

// CompareTable::divergence values.
constexpr uint8_t kNotSuspect = 0, kLowSuspect = 1, kSuspect = 2;

struct CompareTable {
  CompareMode mode = CompareMode::kStatistics;
  bool stack_mode = false;
  std::vector<std::string> header;      // exactly 1.2.1's column names, in order
  std::vector<std::vector<Cell>> rows;  // 1.2.1's row order; each row has header.size() cells
  std::vector<Fill> fills;              // one per row
  // Tensor mode: ||npu - bench||_2 / ||bench||_2 per row (NaN when not computed); not a column of
  // 1.2.1's table, what first divergence judges tensors by. Empty in the other modes.
  std::vector<double> relative_l2_error;
  // First divergence's verdict per row (divergence.h, mark_suspect_rows): a suspect's output row,
  // a source's input row. Empty until the suspects are marked.
  std::vector<uint8_t> divergence;
  // One line per input file that was cut (torn) and read up to its last complete record (1.2.1
  // would have failed on it); for the caller to show as warnings.
  std::vector<std::string> notes;

  // Index of a column by its 1.2.1 name; -1 when absent.
  int column(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return (int)i;
    return -1;
  }
};

}  // namespace compare
}  // namespace msprobe
