// CSV reading (pandas-compatible acceptance, clear errors) and Python-csv-compatible writing.
#include "msprobe/check/csv_table.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "msprobe/base/error.h"

namespace msprobe {
namespace check {

CsvTable CsvTable::read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    throw FileError(path + ": cannot open: " + std::strerror(errno));
  }
  std::string text;
  char buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, got);
  const bool err = std::ferror(f) != 0;
  std::fclose(f);
  if (err) throw FileError(path + ": read error");
  return parse(std::move(text), path);
}

CsvTable CsvTable::parse(std::string text, const std::string& name) {
  CsvTable t;
  t.text_ = std::make_shared<std::string>(std::move(text));
  t.unquoted_ = std::make_shared<std::string>();
  const std::string& s = *t.text_;
  // Unescaped quoted content is never longer than the file: reserving keeps views stable.
  t.unquoted_->reserve(s.size() + 1);
  std::string& uq = *t.unquoted_;

  size_t i = 0;
  const size_t n = s.size();
  if (n >= 3 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF) {
    i = 3;
  }
  int64_t line = 1;
  bool have_header = false;
  std::vector<std::string_view> rec;
  auto fail = [&](int64_t at, const std::string& what) -> void {
    throw FileError(name + ":" + std::to_string(at) + ": " + what);
  };

  while (i < n) {
    // Skip empty lines.
    if (s[i] == '\n') {
      ++i;
      ++line;
      continue;
    }
    if (s[i] == '\r') {
      ++i;
      if (i < n && s[i] == '\n') ++i;
      ++line;
      continue;
    }
    const int64_t rec_line = line;
    rec.clear();
    bool end_of_record = false;
    while (!end_of_record) {
      if (i < n && s[i] == '"') {
        ++i;
        const size_t start = uq.size();
        const int64_t quote_line = line;
        bool closed = false;
        while (i < n) {
          const char c = s[i];
          if (c == '"') {
            if (i + 1 < n && s[i + 1] == '"') {
              uq.push_back('"');
              i += 2;
              continue;
            }
            ++i;
            closed = true;
            break;
          }
          if (c == '\n' || (c == '\r' && !(i + 1 < n && s[i + 1] == '\n'))) ++line;
          uq.push_back(c);
          ++i;
        }
        if (!closed) fail(quote_line, "unterminated quoted field (a '\"' opened here is never closed)");
        // Text between the closing quote and the next ',' belongs to the field (pandas, csv).
        while (i < n && s[i] != ',' && s[i] != '\n' && s[i] != '\r') uq.push_back(s[i++]);
        rec.emplace_back(uq.data() + start, uq.size() - start);
      } else {
        // A '"' inside an unquoted field is an ordinary character (pandas, csv).
        const size_t start = i;
        while (i < n && s[i] != ',' && s[i] != '\n' && s[i] != '\r') ++i;
        rec.emplace_back(s.data() + start, i - start);
      }
      if (i >= n) {
        end_of_record = true;
      } else if (s[i] == ',') {
        ++i;
      } else {  // line break
        if (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n') ++i;
        ++i;
        ++line;
        end_of_record = true;
      }
    }
    if (!have_header) {
      t.header_ = rec;
      have_header = true;
      continue;
    }
    if (rec.size() > t.header_.size()) {
      fail(rec_line, "expected at most " + std::to_string(t.header_.size()) +
                         " fields (the header's), found " + std::to_string(rec.size()));
    }
    t.row_start_.push_back(t.cells_.size());
    t.row_line_.push_back(rec_line);
    t.cells_.insert(t.cells_.end(), rec.begin(), rec.end());
  }
  if (!have_header) throw FileError(name + ": empty file (no header line)");
  return t;
}

int CsvTable::column(std::string_view name) const {
  for (size_t c = 0; c < header_.size(); ++c) {
    if (header_[c] == name) return (int)c;
  }
  return -1;
}

void append_csv_row(std::string& out, const std::vector<std::string>& fields) {
  for (size_t k = 0; k < fields.size(); ++k) {
    if (k) out.push_back(',');
    const std::string& f = fields[k];
    const bool quote = f.find_first_of(",\"\r\n") != std::string::npos || (f.empty() && fields.size() == 1);
    if (!quote) {
      out += f;
      continue;
    }
    out.push_back('"');
    for (char c : f) {
      if (c == '"') out.push_back('"');
      out.push_back(c);
    }
    out.push_back('"');
  }
  out += "\r\n";
}

}  // namespace check
}  // namespace msprobe
