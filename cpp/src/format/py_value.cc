// Python semantics over parsed JSON values (see py_value.h).
#include "msprobe/format/py_value.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/format/json_text.h"

namespace msprobe {

std::string py_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string out;
  append_python_float(out, v);
  return out;
}

namespace {

// Decodes one UTF-8 code point at s[i] (the JSON parser has validated the text).
uint32_t next_code_point(std::string_view s, size_t& i) {
  const unsigned char c = (unsigned char)s[i];
  int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
  uint32_t cp = extra == 0 ? c : extra == 1 ? (c & 0x1F) : extra == 2 ? (c & 0x0F) : (c & 0x07);
  for (int k = 0; k < extra && i + 1 < s.size(); ++k) cp = (cp << 6) | ((unsigned char)s[++i] & 0x3F);
  ++i;
  return cp;
}

// str.isprintable() for the non-ASCII code points that commonly matter: controls, non-space
// separators, format characters and private use are not printable.
bool printable_non_ascii(uint32_t cp) {
  if (cp >= 0x80 && cp <= 0xA0) return false;
  if (cp == 0xAD || cp == 0x1680 || cp == 0x180E || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
      cp == 0x205F || cp == 0x3000 || cp == 0xFEFF || cp == 0x061C || cp == 0x06DD || cp == 0x070F)
    return false;
  if (cp >= 0x0600 && cp <= 0x0605) return false;
  if (cp >= 0x2000 && cp <= 0x200F) return false;
  if (cp >= 0x202A && cp <= 0x202E) return false;
  if (cp >= 0x2060 && cp <= 0x206F) return false;
  if (cp >= 0xD800 && cp <= 0xF8FF) return false;  // surrogates, private use
  if (cp >= 0xFFF9 && cp <= 0xFFFB) return false;
  if (cp == 0xFFFE || cp == 0xFFFF) return false;
  if (cp >= 0xF0000) return false;
  return true;
}

void append_repr(std::string& out, const JsonValue& v);

void append_str(std::string& out, const JsonValue& v) {
  if (v.is_string()) {
    out += v.as_string();
  } else {
    append_repr(out, v);
  }
}

void append_repr(std::string& out, const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::kNull: out += "None"; return;
    case JsonValue::Type::kBool: out += v.as_bool() ? "True" : "False"; return;
    case JsonValue::Type::kInt: append_int(out, v.as_int()); return;
    case JsonValue::Type::kFloat: out += py_float_repr(v.as_double()); return;
    case JsonValue::Type::kString: out += py_str_repr(v.as_string()); return;
    case JsonValue::Type::kArray: {
      out += '[';
      bool first = true;
      for (const auto& e : v.as_array()) {
        if (!first) out += ", ";
        first = false;
        append_repr(out, e);
      }
      out += ']';
      return;
    }
    case JsonValue::Type::kObject: {
      out += '{';
      bool first = true;
      for (const auto& kv : v.as_object()) {
        if (!first) out += ", ";
        first = false;
        out += py_str_repr(kv.first);
        out += ": ";
        append_repr(out, kv.second);
      }
      out += '}';
      return;
    }
  }
}

}  // namespace

std::string py_str_repr(std::string_view s) {
  const bool has_single = s.find('\'') != std::string_view::npos;
  const bool has_double = s.find('"') != std::string_view::npos;
  const char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out;
  out.reserve(s.size() + 2);
  out += quote;
  size_t i = 0;
  char buf[16];
  while (i < s.size()) {
    const size_t start = i;
    const uint32_t cp = next_code_point(s, i);
    if (cp == (uint32_t)quote || cp == '\\') {
      out += '\\';
      out += (char)cp;
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x20 || cp == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\x%02x", cp);
      out += buf;
    } else if (cp < 0x7F) {
      out += (char)cp;
    } else if (printable_non_ascii(cp)) {
      out.append(s.data() + start, i - start);
    } else {
      if (cp <= 0xFF) {
        std::snprintf(buf, sizeof buf, "\\x%02x", cp);
      } else if (cp <= 0xFFFF) {
        std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      } else {
        std::snprintf(buf, sizeof buf, "\\U%08x", cp);
      }
      out += buf;
    }
  }
  out += quote;
  return out;
}

std::string py_str(const JsonValue& v) {
  std::string out;
  append_str(out, v);
  return out;
}

std::string py_repr(const JsonValue& v) {
  std::string out;
  append_repr(out, v);
  return out;
}

std::string py_type_str(const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::kNull: return "<class 'NoneType'>";
    case JsonValue::Type::kBool: return "<class 'bool'>";
    case JsonValue::Type::kInt: return "<class 'int'>";
    case JsonValue::Type::kFloat: return "<class 'float'>";
    case JsonValue::Type::kString: return "<class 'str'>";
    case JsonValue::Type::kArray: return "<class 'list'>";
    case JsonValue::Type::kObject: return "<class 'dict'>";
  }
  return "";
}

namespace {

// numpy's shape of np.array(value): nested lists of equal length add dimensions.
bool np_shape(const JsonValue& v, std::vector<size_t>& dims) {
  if (!v.is_array()) return true;
  const auto& a = v.as_array();
  dims.push_back(a.size());
  if (a.empty() || !a[0].is_array()) {
    for (const auto& e : a)
      if (e.is_array()) return false;  // lists mixed with scalars: ragged
    return true;
  }
  std::vector<size_t> first;
  if (!np_shape(a[0], first)) return false;
  for (size_t i = 1; i < a.size(); ++i) {
    std::vector<size_t> other;
    if (!a[i].is_array() || !np_shape(a[i], other) || other != first) return false;
  }
  dims.insert(dims.end(), first.begin(), first.end());
  return true;
}

}  // namespace

std::string np_shape_str(const JsonValue& v) {
  std::vector<size_t> dims;
  if (!np_shape(v, dims)) throw InvalidInput("a slice value is a ragged nested list: " + py_repr(v));
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(dims[i]);
  }
  if (dims.size() == 1) out += ',';
  out += ')';
  return out;
}

Cell cell_of(const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::kNull: return Cell::empty();
    case JsonValue::Type::kBool: return Cell::boolean(v.as_bool());
    case JsonValue::Type::kInt: return Cell::integer((double)v.as_int());
    case JsonValue::Type::kFloat: return Cell::num(v.as_double());
    case JsonValue::Type::kString: return Cell::str(v.as_string());
    default: return Cell::str(py_str(v));
  }
}

std::string cell_str(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::kEmpty: return "None";
    case Cell::Kind::kBool: return c.d != 0 ? "True" : "False";
    case Cell::Kind::kString: return c.s;
    case Cell::Kind::kNumber: {
      if (c.is_int) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", c.d);
        return buf;
      }
      return py_float_repr(c.d);
    }
  }
  return "";
}

}  // namespace msprobe
