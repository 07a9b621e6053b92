// A thin RAII wrapper over libxlsxwriter for the workbooks msprobe writes: rows streamed in order
// (constant-memory mode, so a table of millions of rows needs no more memory than one row, and
// strings are inline as openpyxl writes them), written to a temporary file beside the target and
// renamed into place with mode 0640, so a crash never leaves a half-written file under the final
// name. Private to cpp/src/format.
#pragma once
#include <cstdint>
#include <string>

struct lxw_workbook;
struct lxw_worksheet;
struct lxw_format;

namespace msprobe {

// Excel's limits: one sheet holds 1,048,576 rows; one cell at most 32,767 characters.
constexpr uint32_t kXlsxMaxRows = 1048576;
constexpr size_t kXlsxMaxCellChars = 32767;

class XlsxBook {
 public:
  // Refuses (FileError) a target that is a symbolic link or a folder; the folder must exist.
  explicit XlsxBook(const std::string& path, bool large = false);
  ~XlsxBook();  // discards the temporary file unless close() succeeded
  XlsxBook(const XlsxBook&) = delete;
  XlsxBook& operator=(const XlsxBook&) = delete;

  // Solid fill formats (fg and bg both set to `rgb`, as openpyxl's PatternFill(start, end)).
  lxw_format* solid_fill(uint32_t rgb);
  // pandas.DataFrame.to_excel's header style: bold, thin border, centred, top-aligned.
  lxw_format* pandas_header();

  void add_sheet(const std::string& name);
  // Cells of the current sheet. Strings longer than Excel's limit are cut to it (Excel refuses
  // longer cells); an empty string writes nothing, as a blank cell reads back empty.
  void write_string(uint32_t row, uint16_t col, const std::string& s, lxw_format* fmt = nullptr);
  void write_number(uint32_t row, uint16_t col, double v, lxw_format* fmt = nullptr);
  void write_boolean(uint32_t row, uint16_t col, bool v);

  // Writes the file and moves it to its final name (mode 0640). Throws FileError.
  void close();

  const std::string& path() const { return path_; }

 private:
  std::string path_, tmp_path_;
  lxw_workbook* wb_ = nullptr;
  lxw_worksheet* ws_ = nullptr;
  bool closed_ = false;
};

}  // namespace msprobe
