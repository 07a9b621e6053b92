#include "report_json.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "msprobe/format/json_text.h"

namespace msprobe {
namespace report {
namespace {

using compare::Cell;

// A string like "12.5%" (1.2.1's relative errors in statistics mode): its number, or false.
bool parse_percent(const std::string& s, double* v) {
  if (s.size() < 2 || s.back() != '%') return false;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);  // stops at the '%'
  if (end != s.c_str() + s.size() - 1) return false;
  *v = d;
  return true;
}

bool fits_float(double d) {
  return !std::isfinite(d) || std::fabs(d) <= (double)std::numeric_limits<float>::max();
}

// The cell as the dictionary stores it: strings that start with the row's name lose that
// prefix and gain a leading U+0000 (the page puts the name back).
std::string dict_key(const Cell& c, const std::string& row_name) {
  std::string out;
  if (c.kind == Cell::Kind::kString && !row_name.empty() && c.s.compare(0, row_name.size(), row_name) == 0) {
    std::string rel(1, '\0');
    rel.append(c.s, row_name.size(), std::string::npos);
    append_html_json_string(out, rel);
  } else {
    append_cell_json(out, c);
  }
  return out;
}

void append_index_column(std::string& out, const std::vector<uint32_t>& idx, size_t dict_size) {
  if (dict_size <= 0xff) {
    std::vector<uint8_t> v(idx.begin(), idx.end());
    out += "\"w\":1,\"data\":";
    append_base64_array(out, v);
  } else if (dict_size <= 0xffff) {
    std::vector<uint16_t> v(idx.begin(), idx.end());
    out += "\"w\":2,\"data\":";
    append_base64_array(out, v);
  } else {
    out += "\"w\":4,\"data\":";
    append_base64_array(out, idx);
  }
}

}  // namespace

void append_html_json_string(std::string& out, std::string_view s) {
  size_t start = out.size();
  append_json_string(out, s);
  if (out.find('<', start) == std::string::npos) return;
  std::string tail = out.substr(start);
  out.resize(start);
  for (char c : tail) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
}

void append_json_number(std::string& out, double v) {
  if (std::isnan(v))
    out += "\"nan\"";
  else if (std::isinf(v))
    out += v > 0 ? "\"inf\"" : "\"-inf\"";
  else
    append_python_float(out, v);
}

void append_cell_json(std::string& out, const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::kEmpty: out += "null"; break;
    case Cell::Kind::kString: append_html_json_string(out, c.s); break;
    case Cell::Kind::kBool: out += c.d != 0 ? "true" : "false"; break;
    case Cell::Kind::kNumber:
      // Integers (counts, -1 data names) keep their integer form.
      if (std::isfinite(c.d) && c.d == std::floor(c.d) && std::fabs(c.d) < 9.007199254740992e15)
        append_int(out, (int64_t)c.d);
      else
        append_json_number(out, c.d);
      break;
  }
}

void append_base64(std::string& out, const void* data, size_t bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const unsigned char* p = static_cast<const unsigned char*>(data);
  out += '"';
  size_t pos = out.size();
  out.resize(pos + (bytes + 2) / 3 * 4);
  char* o = &out[pos];
  size_t i = 0;
  for (; i + 3 <= bytes; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
    *o++ = kAlphabet[v >> 18];
    *o++ = kAlphabet[(v >> 12) & 63];
    *o++ = kAlphabet[(v >> 6) & 63];
    *o++ = kAlphabet[v & 63];
  }
  if (i < bytes) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < bytes ? (uint32_t)p[i + 1] << 8 : 0);
    *o++ = kAlphabet[v >> 18];
    *o++ = kAlphabet[(v >> 12) & 63];
    *o++ = i + 1 < bytes ? kAlphabet[(v >> 6) & 63] : '=';
    *o++ = '=';
  }
  out += '"';
}

void append_table_column(std::string& out, const std::string& name,
                         const std::vector<std::vector<Cell>>& rows, int col,
                         const std::vector<std::string>& row_names, const std::string& label) {
  const size_t n = rows.size();
  static const Cell kEmptyCell;
  auto cell = [&](size_t r) -> const Cell& { return col < (int)rows[r].size() ? rows[r][col] : kEmptyCell; };
  size_t numbers = 0, percents = 0;
  for (size_t r = 0; r < n; ++r) {
    const Cell& c = cell(r);
    double v;
    if (c.kind == Cell::Kind::kNumber)
      ++numbers;
    else if (c.kind == Cell::Kind::kString && parse_percent(c.s, &v))
      ++percents;
  }
  out += "{\"name\":";
  append_html_json_string(out, name);
  if (!label.empty() && label != name) {
    out += ",\"label\":";
    append_html_json_string(out, label);
  }

  if (n > 0 && std::max(numbers, percents) * 2 >= n) {
    // Mostly numbers: float32 values; every other cell (strings, empty, out-of-range numbers, and
    // the minority of plain-vs-percent) goes to a sparse list of exceptions.
    const bool pct = percents > numbers;
    std::vector<float> values(n, std::numeric_limits<float>::quiet_NaN());
    std::vector<std::string> dict;
    std::unordered_map<std::string, uint32_t> dict_index;
    std::vector<uint32_t> exc_rows, exc_values;
    for (size_t r = 0; r < n; ++r) {
      const Cell& c = cell(r);
      double v = 0;
      bool ok =
          pct ? (c.kind == Cell::Kind::kString && parse_percent(c.s, &v)) : c.kind == Cell::Kind::kNumber;
      if (!pct && ok) v = c.d;
      if (ok && fits_float(v)) {
        values[r] = (float)v;
        continue;
      }
      std::string key = dict_key(c, row_names[r]);
      auto [it, inserted] = dict_index.emplace(key, (uint32_t)dict.size());
      if (inserted) dict.push_back(key);
      exc_rows.push_back((uint32_t)r);
      exc_values.push_back(it->second);
    }
    out += ",\"enc\":\"f32\",\"pct\":";
    out += pct ? "true" : "false";
    out += ",\"data\":";
    append_base64_array(out, values);
    out += ",\"exc\":[";
    for (size_t i = 0; i < dict.size(); ++i) {
      if (i) out += ',';
      out += dict[i];
    }
    out += "],\"excRows\":";
    append_base64_array(out, exc_rows);
    out += ",\"excValues\":";
    append_base64_array(out, exc_values);
    out += '}';
    return;
  }

  // Strings: a dictionary and one index per row, or the plain list when nearly all differ.
  // Lookups go by the cell's text (or its part after the row's name) without copying it; only a
  // new value is rendered as JSON.
  std::vector<std::string> dict;
  std::unordered_map<std::string, uint32_t> dict_index;                   // rendered JSON
  std::unordered_map<std::string_view, uint32_t> plain_index, rel_index;  // string cells
  std::vector<uint32_t> idx(n);
  auto add = [&](std::string key) {
    auto [it, inserted] = dict_index.emplace(std::move(key), (uint32_t)dict.size());
    if (inserted) dict.push_back(it->first);
    return it->second;
  };
  for (size_t r = 0; r < n; ++r) {
    const Cell& c = cell(r);
    if (c.kind != Cell::Kind::kString) {
      idx[r] = add(dict_key(c, row_names[r]));
      continue;
    }
    const std::string& name = row_names[r];
    bool rel = !name.empty() && c.s.compare(0, name.size(), name) == 0;
    std::string_view text = rel ? std::string_view(c.s).substr(name.size()) : std::string_view(c.s);
    auto& index = rel ? rel_index : plain_index;
    auto it = index.find(text);
    if (it == index.end()) it = index.emplace(text, add(dict_key(c, name))).first;
    idx[r] = it->second;
  }
  if (dict.size() > 1024 && dict.size() * 2 > n) {
    out += ",\"enc\":\"list\",\"data\":[";
    for (size_t r = 0; r < n; ++r) {
      if (r) out += ',';
      out += dict[idx[r]];
    }
    out += "]}";
    return;
  }
  out += ",\"enc\":\"dict\",\"dict\":[";
  for (size_t i = 0; i < dict.size(); ++i) {
    if (i) out += ',';
    out += dict[i];
  }
  out += "],";
  append_index_column(out, idx, dict.size());
  out += '}';
}

}  // namespace report
}  // namespace msprobe
