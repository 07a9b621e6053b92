// The result table of `compare` (1.2.1's compare_result_*.xlsx), typed as 1.2.1's DataFrame
// holds it, so a writer can give each xlsx cell the type the original gives it.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace msprobe {
namespace compare {

// 1.2.1: Const.SUMMARY (statistics), Const.ALL (tensors), Const.MD5.
enum class CompareMode { kStatistics, kTensor, kMd5 };

// One spreadsheet cell. kString: a Python str in the DataFrame; kNumber: a Python/numpy float
// or int (written as a number cell; may be NaN/inf, written as 1.2.1's writer does); kBool; kEmpty:
// None / missing.
struct Cell {
  enum class Kind : uint8_t { kEmpty, kString, kNumber, kBool };
  // Largest first: 48 bytes a cell (a large table has millions of them).
  std::string s;
  double d = 0;
  Kind kind = Kind::kEmpty;
  bool is_int = false;  // kNumber held as a Python int in 1.2.1 (written without a decimal point)

  static Cell empty() { return Cell{}; }
  static Cell str(std::string v) {
    Cell c;
    c.kind = Kind::kString;
    c.s = std::move(v);
    return c;
  }
  static Cell num(double v) {
    Cell c;
    c.kind = Kind::kNumber;
    c.d = v;
    return c;
  }
  static Cell integer(double v) {
    Cell c = num(v);
    c.is_int = true;
    return c;
  }
  static Cell boolean(bool v) {
    Cell c;
    c.kind = Kind::kBool;
    c.d = v ? 1.0 : 0.0;
    return c;
  }
  bool is_empty() const { return kind == Kind::kEmpty; }
  bool is_string() const { return kind == Kind::kString; }
  bool is_number() const { return kind == Kind::kNumber; }
  bool is_bool() const { return kind == Kind::kBool; }
  bool operator==(const Cell& o) const {
    return kind == o.kind && s == o.s && (d == o.d || (d != d && o.d != o.d));
  }
};

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

// 1.2.1 highlight rules (core/compare/highlight.py): red = error, yellow = warning.
enum class Fill { kNone, kRed, kYellow };

struct CompareTable {
  CompareMode mode = CompareMode::kStatistics;
  bool stack_mode = false;
  std::vector<std::string> header;      // exactly 1.2.1's column names, in order
  std::vector<std::vector<Cell>> rows;  // 1.2.1's row order; each row has header.size() cells
  std::vector<Fill> fills;              // one per row
  // Tensor mode: ||npu - bench||_2 / ||bench||_2 per row (NaN when not computed); not a column of
  // 1.2.1's table, what first divergence judges tensors by. Empty in the other modes.
  std::vector<double> relative_l2_error;
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
