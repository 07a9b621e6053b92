// Python-compatible JSON text: float repr and string escaping as json.dumps does them.
#include "msprobe/format/json_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace msprobe {

void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, res.ptr);
}

void append_python_float(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "Infinity" : "-Infinity";
    return;
  }
  if (v == 0.0) {
    out += std::signbit(v) ? "-0.0" : "0.0";
    return;
  }
  // Shortest round-trip digits in scientific form: d[.ddd]e[+-]XX
  char sci[40];
  auto res = std::to_chars(sci, sci + sizeof(sci), v, std::chars_format::scientific);
  std::string_view s(sci, (size_t)(res.ptr - sci));
  size_t epos = s.find('e');
  int exp10 = 0;
  std::from_chars(s.data() + epos + 1 + (s[epos + 1] == '+' ? 1 : 0), s.data() + s.size(), exp10);
  bool neg = s[0] == '-';
  std::string digits;
  for (size_t i = neg ? 1 : 0; i < epos; ++i)
    if (s[i] != '.') digits += s[i];
  if (neg) out += '-';
  // Python's repr: scientific when exp < -4 or exp >= 16, else positional.
  if (exp10 < -4 || exp10 >= 16) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1, std::string::npos);
    }
    char eb[8];
    std::snprintf(eb, sizeof(eb), "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += eb;
    return;
  }
  if (exp10 < 0) {
    out += "0.";
    out.append((size_t)(-exp10 - 1), '0');
    out += digits;
  } else if ((size_t)exp10 + 1 >= digits.size()) {
    out += digits;
    out.append((size_t)exp10 + 1 - digits.size(), '0');
    out += ".0";
  } else {
    out.append(digits, 0, (size_t)exp10 + 1);
    out += '.';
    out.append(digits, (size_t)exp10 + 1, std::string::npos);
  }
}

namespace {
inline bool needs_escape(unsigned char c) { return c < 0x20 || c >= 0x80 || c == '"' || c == '\\'; }

void append_u16_escape(std::string& out, unsigned cp) {
  char b[8];
  std::snprintf(b, sizeof(b), "\\u%04x", cp);
  out += b;
}
}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  // Fast path: the plain-ASCII prefix (usually the whole string) is copied in one append.
  size_t plain = 0;
  while (plain < s.size() && !needs_escape((unsigned char)s[plain])) ++plain;
  out.append(s.data(), plain);
  s = s.substr(plain);
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    if (c < 0x20) {
      append_u16_escape(out, c);
      continue;
    }
    if (c < 0x80) {
      out += (char)c;
      continue;
    }
    // Decode one UTF-8 sequence; invalid bytes become U+FFFD.
    unsigned cp = 0xfffd;
    int extra = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : -1;
    if (extra > 0) {
      unsigned v = c & (0x3fu >> extra);
      bool ok = true;
      for (int k = 1; k <= extra; ++k) {
        if (i + k >= s.size()) {
          ok = false;
          break;
        }
        unsigned char cc = (unsigned char)s[i + k];
        if ((cc & 0xc0) != 0x80) {
          ok = false;
          break;
        }
        v = (v << 6) | (cc & 0x3f);
      }
      if (ok) {
        cp = v;
        i += (size_t)extra;
      }
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      append_u16_escape(out, 0xd800 + (cp >> 10));
      append_u16_escape(out, 0xdc00 + (cp & 0x3ff));
    } else {
      append_u16_escape(out, cp);
    }
  }
  out += '"';
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += (char)cp;
  } else if (cp < 0x800) {
    out += (char)(0xC0 | (cp >> 6));
    out += (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += (char)(0xE0 | (cp >> 12));
    out += (char)(0x80 | ((cp >> 6) & 0x3F));
    out += (char)(0x80 | (cp & 0x3F));
  } else {
    out += (char)(0xF0 | (cp >> 18));
    out += (char)(0x80 | ((cp >> 12) & 0x3F));
    out += (char)(0x80 | ((cp >> 6) & 0x3F));
    out += (char)(0x80 | (cp & 0x3F));
  }
}

}  // namespace msprobe
