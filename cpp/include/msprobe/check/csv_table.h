// Reading and writing CSV the way the accuracy checker's files are written (Python csv module,
// UTF-8 with BOM) and read (pandas.read_csv defaults).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace msprobe {
namespace check {

// A parsed CSV file: a header and rows of fields. Fields point into memory the table owns.
//
// Grammar (RFC 4180 as Python's csv module writes it): fields separated by ',', records by
// "\n", "\r\n" or "\r"; a field starting with '"' is quoted, may hold ',', '"' (doubled) and
// line breaks; as in pandas, text after its closing quote and a '"' inside an unquoted field
// are kept literally. A leading UTF-8 BOM is skipped. Empty lines are skipped (pandas). Rows
// shorter than the header are allowed (the missing cells read as absent). Errors: a quoted
// field never closed, a row longer than the header, no header.
class CsvTable {
 public:
  // Throws FileError naming the file (and the line, for syntax errors) on any problem.
  static CsvTable read_file(const std::string& path);
  // Parses text; `name` is used in error messages.
  static CsvTable parse(std::string text, const std::string& name);

  const std::vector<std::string_view>& header() const { return header_; }
  size_t num_rows() const { return row_start_.size(); }
  size_t row_width(size_t row) const {
    return (row + 1 < row_start_.size() ? row_start_[row + 1] : cells_.size()) - row_start_[row];
  }
  // The field, or nullptr when the row is shorter than `col`.
  const std::string_view* cell(size_t row, size_t col) const {
    return col < row_width(row) ? &cells_[row_start_[row] + col] : nullptr;
  }
  // 1-based line number where the row's record starts.
  int64_t row_line(size_t row) const { return row_line_[row]; }
  // Index of a header column, or -1.
  int column(std::string_view name) const;

 private:
  std::shared_ptr<std::string> text_;      // the file
  std::shared_ptr<std::string> unquoted_;  // quoted fields with their escapes removed
  std::vector<std::string_view> header_;
  std::vector<std::string_view> cells_;
  std::vector<size_t> row_start_;
  std::vector<int64_t> row_line_;
};

// Appends one record as Python's csv.writer (QUOTE_MINIMAL, "\r\n") writes it.
void append_csv_row(std::string& out, const std::vector<std::string>& fields);

}  // namespace check
}  // namespace msprobe
