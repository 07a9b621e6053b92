// The libxlsxwriter wrapper: see xlsx_book.h.
#include "xlsx_book.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/base/path.h"

namespace msprobe {

namespace {

// Cuts at a UTF-8 character boundary so that the cell stays valid text. Excel counts UTF-16
// units; counting code points is close enough for a limit that only ever truncates stack text.
std::string cut_to_cell_limit(const std::string& s) {
  size_t chars = 0, i = 0;
  while (i < s.size()) {
    const unsigned char c = (unsigned char)s[i];
    const size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (++chars > kXlsxMaxCellChars) break;
    i += len;
  }
  return s.substr(0, i);
}

size_t utf8_chars(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

XlsxBook::XlsxBook(const std::string& path, bool large) : path_(path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) throw FileError(path + ": is a symbolic link; refusing to write through it");
    if (S_ISDIR(st.st_mode)) throw FileError(path + ": is a folder, expected a file name");
  }
  const std::string dir = folder_of(path);
  // AtomicFile's temporary name, which `msprobe repair` knows for a leftover of a killed process;
  // made here, new and no link, for libxlsxwriter to write.
  tmp_path_ = AtomicFile::temp_path_for(path);
  ::unlink(tmp_path_.c_str());  // a leftover of a killed process
  const int fd = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (fd < 0) throw FileError(path + ": cannot create the file: " + std::strerror(errno));
  ::close(fd);

  lxw_workbook_options options{};
  options.constant_memory = LXW_TRUE;  // rows streamed; inline strings, as openpyxl writes them
  options.tmpdir = const_cast<char*>(dir.c_str());
  options.use_zip64 = large ? LXW_TRUE : LXW_FALSE;
  wb_ = workbook_new_opt(tmp_path_.c_str(), &options);
  if (wb_ == nullptr) {
    ::unlink(tmp_path_.c_str());
    throw FileError(path + ": cannot start the workbook");
  }
}

XlsxBook::~XlsxBook() {
  if (closed_) return;
  if (wb_ != nullptr) {
    // workbook_close is the only way to free the workbook; its file is then discarded.
    workbook_close(wb_);
  }
  ::unlink(tmp_path_.c_str());
}

lxw_format* XlsxBook::solid_fill(uint32_t rgb) {
  lxw_format* f = workbook_add_format(wb_);
  format_set_pattern(f, LXW_PATTERN_SOLID);
  format_set_fg_color(f, rgb);
  format_set_bg_color(f, rgb);
  return f;
}

lxw_format* XlsxBook::pandas_header() {
  lxw_format* f = workbook_add_format(wb_);
  format_set_bold(f);
  format_set_border(f, LXW_BORDER_THIN);
  format_set_align(f, LXW_ALIGN_CENTER);
  format_set_align(f, LXW_ALIGN_VERTICAL_TOP);
  return f;
}

void XlsxBook::add_sheet(const std::string& name) {
  ws_ = workbook_add_worksheet(wb_, name.c_str());
  if (ws_ == nullptr) throw InvalidInput("cannot add a sheet named '" + name + "' to " + path_);
}

void XlsxBook::write_string(uint32_t row, uint16_t col, const std::string& s, lxw_format* fmt) {
  if (s.empty()) {
    if (fmt != nullptr) worksheet_write_blank(ws_, row, col, fmt);
    return;
  }
  lxw_error e;
  if (s.size() > kXlsxMaxCellChars && utf8_chars(s) > kXlsxMaxCellChars) {
    e = worksheet_write_string(ws_, row, col, cut_to_cell_limit(s).c_str(), fmt);
  } else {
    e = worksheet_write_string(ws_, row, col, s.c_str(), fmt);
  }
  if (e != LXW_NO_ERROR) {
    throw FileError(path_ + ": cannot write cell at row " + std::to_string(row + 1) + ": " + lxw_strerror(e));
  }
}

void XlsxBook::write_number(uint32_t row, uint16_t col, double v, lxw_format* fmt) {
  const lxw_error e = worksheet_write_number(ws_, row, col, v, fmt);
  if (e != LXW_NO_ERROR) {
    throw FileError(path_ + ": cannot write cell at row " + std::to_string(row + 1) + ": " + lxw_strerror(e));
  }
}

void XlsxBook::write_boolean(uint32_t row, uint16_t col, bool v) {
  const lxw_error e = worksheet_write_boolean(ws_, row, col, v ? 1 : 0, nullptr);
  if (e != LXW_NO_ERROR) {
    throw FileError(path_ + ": cannot write cell at row " + std::to_string(row + 1) + ": " + lxw_strerror(e));
  }
}

void XlsxBook::close() {
  const lxw_error e = workbook_close(wb_);
  wb_ = nullptr;
  if (e != LXW_NO_ERROR) {
    ::unlink(tmp_path_.c_str());
    closed_ = true;
    throw FileError(path_ + ": cannot write the workbook: " + lxw_strerror(e));
  }
  ::chmod(tmp_path_.c_str(), 0640);
  if (::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_path_.c_str());
    closed_ = true;
    throw FileError(path_ + ": cannot move the finished file into place: " + std::strerror(err));
  }
  closed_ = true;
}

}  // namespace msprobe
