// Python / numpy number text (see number_format.h).
#include "msprobe/check/number_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "msprobe/tensor/dtype.h"

namespace msprobe {
namespace check {

namespace {

// Digits and exponent of "d.ddde[+-]x" (C %e output), trailing zeros removed.
void split_sci(const char* s, std::string& digits, int& exp10) {
  digits.clear();
  const char* p = s;
  for (; *p && *p != 'e'; ++p) {
    if (*p >= '0' && *p <= '9') digits.push_back(*p);
  }
  exp10 = *p == 'e' ? std::atoi(p + 1) : 0;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
}

// repr-style text from the shortest digits: positional for 1e-4 <= |v| < 1e16.
std::string python_style(double v, const std::string& digits, int exp10) {
  std::string out;
  if (std::signbit(v)) out.push_back('-');
  const double a = std::fabs(v);
  if (a >= 1e-4 && a < 1e16) {
    if (exp10 >= 0) {
      if ((int)digits.size() <= exp10 + 1) {
        out += digits;
        out.append(exp10 + 1 - digits.size(), '0');
        out += ".0";
      } else {
        out.append(digits, 0, exp10 + 1);
        out.push_back('.');
        out.append(digits, exp10 + 1, std::string::npos);
      }
    } else {
      out += "0.";
      out.append(-exp10 - 1, '0');
      out += digits;
    }
  } else {
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    char eb[16];
    std::snprintf(eb, sizeof(eb), "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    out += eb;
  }
  return out;
}

template <typename RoundTrip>
std::string shortest(double v, int max_digits, RoundTrip same) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  for (int p = 1; p <= max_digits; ++p) {
    std::snprintf(buf, sizeof(buf), "%.*e", p - 1, v);
    if (same(std::strtod(buf, nullptr)) || p == max_digits) break;
  }
  std::string digits;
  int exp10;
  split_sci(buf, digits, exp10);
  return python_style(v, digits, exp10);
}

inline bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
         (c >= '\x1c' && c <= '\x1f');
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// digitpart := digit (["_"] digit)*; appends the digits to out. Returns chars consumed (0: none).
size_t digit_part(std::string_view s, size_t i, std::string& out) {
  size_t start = i;
  if (i >= s.size() || !(s[i] >= '0' && s[i] <= '9')) return 0;
  out.push_back(s[i++]);
  while (i < s.size()) {
    if (s[i] >= '0' && s[i] <= '9') {
      out.push_back(s[i++]);
    } else if (s[i] == '_' && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') {
      ++i;
    } else {
      break;
    }
  }
  return i - start;
}

}  // namespace

std::string format_fixed(double v, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[400];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, precision);
  return std::string(buf, res.ptr);
}

std::string format_float32(double v) {
  const float f = (float)v;
  return shortest((double)f, 9, [f](double x) { return (float)x == f; });
}

std::string format_float16(double v) {
  const float h = round_to_half((float)v);
  return shortest((double)h, 5, [h](double x) { return round_to_half((float)x) == h; });
}

std::string format_metric(const Num& n, int precision) {
  if (!n.set) return " ";
  switch (n.kind) {
    case NumKind::kFloat64: return format_fixed(n.value, precision);
    case NumKind::kFloat32: return format_float32(n.value);
    case NumKind::kFloat16: return format_float16(n.value);
    case NumKind::kInt: return std::to_string((long long)n.value);
  }
  return " ";
}

bool parse_python_float(std::string_view text, double& out) {
  size_t b = 0, e = text.size();
  while (b < e && is_ws(text[b])) ++b;
  while (e > b && is_ws(text[e - 1])) --e;
  std::string_view s = text.substr(b, e - b);
  if (s.empty()) return false;
  bool neg = false;
  size_t i = 0;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    ++i;
  }
  std::string_view rest = s.substr(i);
  if (iequals(rest, "inf") || iequals(rest, "infinity")) {
    out = neg ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  if (iequals(rest, "nan")) {
    out = neg ? -std::nan("") : std::nan("");
    return true;
  }
  std::string clean;
  if (neg) clean.push_back('-');
  const size_t int_len = digit_part(s, i, clean);
  i += int_len;
  size_t frac_len = 0;
  if (i < s.size() && s[i] == '.') {
    clean.push_back('.');
    ++i;
    frac_len = digit_part(s, i, clean);
    i += frac_len;
  }
  if (int_len == 0 && frac_len == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    clean.push_back('e');
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) clean.push_back(s[i++]);
    const size_t exp_len = digit_part(s, i, clean);
    if (exp_len == 0) return false;
    i += exp_len;
  }
  if (i != s.size()) return false;
  const char* first = clean.data();
  const char* last = first + clean.size();
  double v = 0;
  auto res = std::from_chars(first, last, v, std::chars_format::general);
  if (res.ec == std::errc::result_out_of_range) {
    // from_chars leaves v unset on overflow/underflow; Python gives +-inf or +-0.0.
    v = std::strtod(clean.c_str(), nullptr);
  } else if (res.ec != std::errc() || res.ptr != last) {
    return false;
  }
  out = v;
  return true;
}

}  // namespace check
}  // namespace msprobe
