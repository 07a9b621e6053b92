#include "msprobe/format/xlsx_reader.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>

#include "msprobe/base/error.h"
#include "msprobe/format/json_text.h"
#include "msprobe/format/zip_reader.h"

namespace msprobe {

namespace {

constexpr size_t kMaxRows = 1048576, kMaxCols = 16384;

// A forward-only scanner over XML text: enough for the SpreadsheetML parts (no DTDs, no CDATA
// in practice; CDATA is still skipped correctly as text).
struct Tag {
  std::string_view name;  // local name, namespace prefix dropped
  bool closing = false, self_closing = false;
  std::string_view attrs;
  std::string_view attr(std::string_view key) const;
};

std::string_view local_name(std::string_view n) {
  const size_t colon = n.find(':');
  return colon == std::string_view::npos ? n : n.substr(colon + 1);
}

std::string_view Tag::attr(std::string_view key) const {
  size_t i = 0;
  while (i < attrs.size()) {
    while (i < attrs.size() && (attrs[i] == ' ' || attrs[i] == '\t' || attrs[i] == '\n' || attrs[i] == '\r'))
      ++i;
    const size_t ks = i;
    while (i < attrs.size() && attrs[i] != '=' && attrs[i] != ' ') ++i;
    const std::string_view k = attrs.substr(ks, i - ks);
    while (i < attrs.size() && attrs[i] != '=') ++i;
    if (i >= attrs.size()) break;
    ++i;
    while (i < attrs.size() && attrs[i] != '"' && attrs[i] != '\'') ++i;
    if (i >= attrs.size()) break;
    const char q = attrs[i++];
    const size_t vs = i;
    while (i < attrs.size() && attrs[i] != q) ++i;
    const std::string_view v = attrs.substr(vs, i - vs);
    ++i;
    if (local_name(k) == key || k == key) return v;
  }
  return {};
}

class XmlScanner {
 public:
  XmlScanner(std::string_view text, const std::string& origin) : t_(text), origin_(origin) {}
  // Next tag; text between tags is collected into *text when given. False at the end.
  bool next(Tag& tag, std::string* text = nullptr) {
    while (pos_ < t_.size()) {
      const size_t lt = t_.find('<', pos_);
      if (text != nullptr)
        text->append(t_.substr(pos_, (lt == std::string_view::npos ? t_.size() : lt) - pos_));
      if (lt == std::string_view::npos) {
        pos_ = t_.size();
        return false;
      }
      if (t_.compare(lt, 4, "<!--") == 0) {
        const size_t e = t_.find("-->", lt);
        pos_ = e == std::string_view::npos ? t_.size() : e + 3;
        continue;
      }
      if (t_.compare(lt, 9, "<![CDATA[") == 0) {
        const size_t e = t_.find("]]>", lt);
        const size_t end = e == std::string_view::npos ? t_.size() : e;
        if (text != nullptr)
          text->append(
                  "\x01"
                  "CDATA")
              .append(t_.substr(lt + 9, end - lt - 9))
              .append("\x01");
        pos_ = e == std::string_view::npos ? t_.size() : e + 3;
        continue;
      }
      const size_t gt = t_.find('>', lt);
      if (gt == std::string_view::npos) throw FileError(origin_ + ": malformed XML (unclosed tag)");
      pos_ = gt + 1;
      if (t_[lt + 1] == '?' || t_[lt + 1] == '!') continue;
      std::string_view inner = t_.substr(lt + 1, gt - lt - 1);
      tag.closing = !inner.empty() && inner[0] == '/';
      if (tag.closing) inner.remove_prefix(1);
      tag.self_closing = !inner.empty() && inner.back() == '/';
      if (tag.self_closing) inner.remove_suffix(1);
      size_t n = 0;
      while (n < inner.size() && inner[n] != ' ' && inner[n] != '\t' && inner[n] != '\n' && inner[n] != '\r')
        ++n;
      tag.name = local_name(inner.substr(0, n));
      tag.attrs = inner.substr(n);
      return true;
    }
    return false;
  }

 private:
  std::string_view t_;
  const std::string& origin_;
  size_t pos_ = 0;
};

bool is_hex(char c) { return std::isxdigit((unsigned char)c) != 0; }

// A code point as UTF-8; what UTF-8 cannot hold (a lone surrogate, beyond U+10FFFF) becomes
// U+FFFD, so that a hostile sheet cannot put invalid UTF-8 into compare's strings.
void append_code_point(std::string& out, unsigned long cp) {
  const bool valid = cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
  append_utf8(out, valid ? (uint32_t)cp : 0xFFFDu);
}

// "_xHHHH_" (the sheet's escape of a UTF-16 unit) at ent[i]: its value, or -1.
long escaped_unit(const std::string& ent, size_t i) {
  if (ent[i] == '_' && i + 6 < ent.size() && ent[i + 1] == 'x' && is_hex(ent[i + 2]) && is_hex(ent[i + 3]) &&
      is_hex(ent[i + 4]) && is_hex(ent[i + 5]) && ent[i + 6] == '_')
    return (long)std::strtoul(ent.substr(i + 2, 4).c_str(), nullptr, 16);
  return -1;
}

// XML entities, then OOXML's _xHHHH_ escapes of control characters. CDATA (marked by the
// scanner) is taken literally.
std::string decode_text(const std::string& raw) {
  std::string ent;
  ent.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\x01' && raw.compare(i, 6,
                                        "\x01"
                                        "CDATA") == 0) {
      const size_t e = raw.find('\x01', i + 6);
      ent.append(raw, i + 6, (e == std::string::npos ? raw.size() : e) - i - 6);
      i = e == std::string::npos ? raw.size() : e;
      continue;
    }
    if (raw[i] != '&') {
      ent += raw[i];
      continue;
    }
    // The ';' of an entity is at most 12 characters on; looking further (raw.find) made text of
    // many '&' without one quadratic: a few KiB of deflated '&' kept merge_result busy for hours.
    size_t semi = std::string::npos;
    for (size_t j = i + 1; j < raw.size() && j - i <= 12; ++j) {
      if (raw[j] == ';') {
        semi = j;
        break;
      }
    }
    if (semi == std::string::npos) {
      ent += raw[i];
      continue;
    }
    const std::string name = raw.substr(i + 1, semi - i - 1);
    if (name == "lt")
      ent += '<';
    else if (name == "gt")
      ent += '>';
    else if (name == "amp")
      ent += '&';
    else if (name == "quot")
      ent += '"';
    else if (name == "apos")
      ent += '\'';
    else if (!name.empty() && name[0] == '#') {
      const bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
      append_code_point(ent, std::strtoul(name.c_str() + (hex ? 2 : 1), nullptr, hex ? 16 : 10));
    } else {
      ent.append(raw, i, semi - i + 1);
    }
    i = semi;
  }
  std::string out;
  out.reserve(ent.size());
  for (size_t i = 0; i < ent.size(); ++i) {
    const long unit = escaped_unit(ent, i);
    if (unit >= 0) {
      i += 6;
      const long low = unit >= 0xD800 && unit <= 0xDBFF && i + 1 < ent.size() ? escaped_unit(ent, i + 1) : -1;
      if (low >= 0xDC00 && low <= 0xDFFF) {  // a surrogate pair: one code point
        append_code_point(out,
                          0x10000 + (((unsigned long)unit - 0xD800) << 10) + ((unsigned long)low - 0xDC00));
        i += 7;
      } else {
        append_code_point(out, (unsigned long)unit);
      }
      continue;
    }
    out += ent[i];
  }
  return out;
}

// Text of a <si> or <is> element: its <t> runs, without phonetic (<rPh>) runs.
std::string rich_text(XmlScanner& sc, std::string_view end_name) {
  std::string out;
  Tag tag;
  bool in_t = false;
  int in_phonetic = 0;
  std::string raw;
  while (sc.next(tag, in_t && in_phonetic == 0 ? &raw : nullptr)) {
    if (tag.name == end_name && tag.closing) break;
    if (tag.name == "rPh") {
      if (!tag.self_closing) in_phonetic += tag.closing ? -1 : 1;
    } else if (tag.name == "t") {
      if (tag.self_closing) continue;
      if (!tag.closing) {
        in_t = true;
        raw.clear();
      } else {
        in_t = false;
        if (in_phonetic == 0) out += decode_text(raw);
      }
    }
  }
  return out;
}

std::vector<std::string> read_shared_strings(const std::string& xml, const std::string& origin) {
  std::vector<std::string> out;
  XmlScanner sc(xml, origin);
  Tag tag;
  while (sc.next(tag)) {
    if (tag.name == "si") {
      if (tag.self_closing)
        out.emplace_back();
      else if (!tag.closing)
        out.push_back(rich_text(sc, "si"));
    }
  }
  return out;
}

// "AB12" -> column 27 (0-based), row 11; false when malformed.
bool cell_ref(std::string_view r, size_t& row, size_t& col) {
  size_t i = 0, c = 0, n = 0;
  while (i < r.size() && std::isalpha((unsigned char)r[i])) {
    c = c * 26 + (size_t)(std::toupper((unsigned char)r[i]) - 'A' + 1);
    if (c > kMaxCols) return false;
    ++i;
  }
  if (i == 0 || i == r.size()) return false;
  for (; i < r.size(); ++i) {
    if (!std::isdigit((unsigned char)r[i])) return false;
    n = n * 10 + (size_t)(r[i] - '0');
    if (n > kMaxRows) return false;
  }
  if (n == 0) return false;
  row = n - 1;
  col = c - 1;
  return true;
}

std::vector<std::vector<Cell>> read_sheet(const std::string& xml, const std::vector<std::string>& shared,
                                          const std::string& origin) {
  std::vector<std::vector<Cell>> rows;
  XmlScanner sc(xml, origin);
  Tag tag;
  size_t row = 0, next_row = 0, next_col = 0, padded = 0, present = 0;
  bool in_row = false;
  auto bad = [&](const std::string& what) { throw FileError(origin + ": " + what); };
  while (sc.next(tag)) {
    if (tag.name == "row" && !tag.closing) {
      const std::string_view r = tag.attr("r");
      row = r.empty() ? next_row : (size_t)std::strtoull(std::string(r).c_str(), nullptr, 10) - 1;
      if (row >= kMaxRows) bad("row number out of range");
      next_row = row + 1;
      next_col = 0;
      in_row = !tag.self_closing;
      continue;
    }
    if (tag.name == "row" && tag.closing) {
      in_row = false;
      continue;
    }
    if (tag.name != "c" || tag.closing || !in_row) continue;
    size_t r = row, col = next_col;
    const std::string_view ref = tag.attr("r");
    if (!ref.empty() && !cell_ref(ref, r, col)) bad("bad cell reference '" + std::string(ref) + "'");
    next_col = col + 1;
    const std::string type(tag.attr("t"));
    Cell cell;
    if (!tag.self_closing) {
      std::string value_raw, inline_text;
      bool have_value = false, have_inline = false;
      Tag inner;
      while (sc.next(inner)) {
        if (inner.name == "c" && inner.closing) break;
        if (inner.name == "v" && !inner.closing && !inner.self_closing) {
          std::string raw;
          Tag end;
          while (sc.next(end, &raw))
            if (end.name == "v" && end.closing) break;
          value_raw = decode_text(raw);
          have_value = true;
        } else if (inner.name == "is" && !inner.closing && !inner.self_closing) {
          inline_text = rich_text(sc, "is");
          have_inline = true;
        } else if (inner.name == "f" && !inner.closing && !inner.self_closing) {
          Tag end;
          while (sc.next(end))
            if (end.name == "f" && end.closing) break;
        }
      }
      if (type == "inlineStr") {
        if (have_inline) cell = Cell::str(inline_text);
      } else if (!have_value) {
        // no value: an empty cell
      } else if (type == "s") {
        char* end = nullptr;
        const unsigned long long idx = std::strtoull(value_raw.c_str(), &end, 10);
        if (end == value_raw.c_str() || idx >= shared.size()) bad("shared string index out of range");
        cell = Cell::str(shared[idx]);
      } else if (type == "b") {
        cell = Cell::boolean(value_raw == "1" || value_raw == "true");
      } else if (type == "str" || type == "e" || type == "d") {
        cell = Cell::str(value_raw);
      } else {
        char* end = nullptr;
        const double d = std::strtod(value_raw.c_str(), &end);
        cell = end != value_raw.c_str() ? Cell::num(d) : Cell::str(value_raw);
      }
    }
    if (cell.is_empty()) continue;
    if (rows.size() <= r) rows.resize(r + 1);
    std::vector<Cell>& cells = rows[r];
    if (cells.size() <= col) {
      padded += col + 1 - cells.size();
      cells.resize(col + 1);
    }
    cells[col] = std::move(cell);
    ++present;
    if (padded > 64 * present + (1u << 20)) bad("too sparse to read (cells far apart)");
  }
  return rows;
}

std::string join_target(const std::string& target) {
  if (!target.empty() && target[0] == '/') return target.substr(1);
  if (target.compare(0, 3, "xl/") == 0) return target;
  return "xl/" + target;
}

std::string read_file_bytes(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    throw FileError(path + ": " + (errno == ENOENT ? std::string("no such file") : std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode)) throw FileError(path + ": is a symbolic link; pass the file itself");
  if (!S_ISREG(st.st_mode)) throw FileError(path + ": not a regular file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FileError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

std::vector<XlsxSheet> read_xlsx(const std::string& path, bool first_only) {
  return read_xlsx_bytes(read_file_bytes(path), path, first_only);
}

std::vector<XlsxSheet> read_xlsx_bytes(const std::string& bytes, const std::string& path, bool first_only) {
  ZipReader zip(bytes, path);
  // Sheet names and their parts: workbook.xml + its relationships.
  std::map<std::string, std::string> rel_target;
  std::string shared_path = "xl/sharedStrings.xml";
  if (zip.has("xl/_rels/workbook.xml.rels")) {
    const std::string rels = zip.read("xl/_rels/workbook.xml.rels");
    XmlScanner sc(rels, path);
    Tag tag;
    while (sc.next(tag)) {
      if (tag.name != "Relationship" || tag.closing) continue;
      const std::string target = join_target(decode_text(std::string(tag.attr("Target"))));
      rel_target[std::string(tag.attr("Id"))] = target;
      const std::string_view type = tag.attr("Type");
      if (type.size() >= 14 && type.substr(type.size() - 14) == "/sharedStrings") shared_path = target;
    }
  }
  std::vector<std::pair<std::string, std::string>> sheets;  // name, part
  {
    const std::string wb = zip.read("xl/workbook.xml");
    XmlScanner sc(wb, path);
    Tag tag;
    while (sc.next(tag)) {
      if (tag.name != "sheet" || tag.closing) continue;
      const std::string name = decode_text(std::string(tag.attr("name")));
      const auto it = rel_target.find(std::string(tag.attr("id")));
      const std::string part = it != rel_target.end()
                                   ? it->second
                                   : "xl/worksheets/sheet" + std::to_string(sheets.size() + 1) + ".xml";
      sheets.emplace_back(name, part);
    }
  }
  if (sheets.empty()) throw FileError(path + ": the workbook has no sheet");
  const std::vector<std::string> shared =
      zip.has(shared_path) ? read_shared_strings(zip.read(shared_path), path) : std::vector<std::string>{};
  std::vector<XlsxSheet> out;
  for (const auto& s : sheets) {
    XlsxSheet sheet;
    sheet.name = s.first;
    sheet.rows = read_sheet(zip.read(s.second), shared, path + " (sheet '" + s.first + "')");
    out.push_back(std::move(sheet));
    if (first_only) break;
  }
  return out;
}

}  // namespace msprobe
