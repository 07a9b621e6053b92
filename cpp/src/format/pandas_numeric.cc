// pandas 2.0 to_numeric for one string (see pandas_numeric.h).
#include "msprobe/format/pandas_numeric.h"

#include <strings.h>
#include <cmath>
#include <cstdint>

namespace msprobe {

namespace {

bool ascii_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool ascii_digit(char c) { return c >= '0' && c <= '9'; }

// 10^k as the double literal 1ek (correctly rounded), 0 <= k <= 308.
double power_of_ten(int k) {
  static double table[309];
  static const bool ready = [] {
    for (int i = 0; i <= 308; ++i) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "1e%d", i);
      table[i] = std::strtod(buf, nullptr);
    }
    return true;
  }();
  (void)ready;
  return table[k];
}

// pandas' precise_xstrtod with '.' decimal, 'E' exponent, no thousands separator, trailing
// spaces skipped. Returns false unless the whole string is consumed.
bool precise_xstrtod(const std::string& str, double& out, bool& maybe_int) {
  const char* p = str.c_str();
  maybe_int = true;
  while (ascii_space(*p)) ++p;
  bool negative = false;
  if (*p == '-') {
    negative = true;
    ++p;
  } else if (*p == '+') {
    ++p;
  }
  constexpr int kMaxDigits = 17;
  double number = 0;
  int exponent = 0, num_digits = 0, num_decimals = 0;
  while (ascii_digit(*p)) {
    if (num_digits < kMaxDigits) {
      number = number * 10. + (*p - '0');
      ++num_digits;
    } else {
      ++exponent;
    }
    ++p;
  }
  if (*p == '.') {
    maybe_int = false;
    ++p;
    while (num_digits < kMaxDigits && ascii_digit(*p)) {
      number = number * 10. + (*p - '0');
      ++p;
      ++num_digits;
      ++num_decimals;
    }
    if (num_digits >= kMaxDigits)
      while (ascii_digit(*p)) ++p;
    exponent -= num_decimals;
  }
  if (num_digits == 0) return false;
  if (negative) number = -number;
  if (*p == 'e' || *p == 'E') {
    maybe_int = false;
    bool neg_exp = false;
    ++p;
    if (*p == '-') {
      neg_exp = true;
      ++p;
    } else if (*p == '+') {
      ++p;
    }
    // pandas sums up to 17 exponent digits in a C int, which wraps on x86: "1e4294967296" is 1.0
    // there. Unsigned arithmetic gives the same wrap without signed overflow.
    uint32_t n = 0;
    int digits = 0;
    while (digits < kMaxDigits && ascii_digit(*p)) {
      n = n * 10u + static_cast<uint32_t>(*p - '0');
      ++digits;
      ++p;
    }
    exponent = static_cast<int32_t>(static_cast<uint32_t>(exponent) + (neg_exp ? 0u - n : n));
    if (digits == 0) --p;
  }
  if (exponent > 308) return false;  // ERANGE
  if (exponent > 0) {
    number *= power_of_ten(exponent);
  } else if (exponent < -308) {
    if (exponent < -616) {
      number = 0.;
    } else {
      number /= power_of_ten(-308 - exponent);
      number /= power_of_ten(308);
    }
  } else {
    number /= power_of_ten(-exponent);
  }
  if (std::isinf(number)) return false;  // ERANGE
  while (ascii_space(*p)) ++p;
  if (*p != '\0') return false;
  out = number;
  return true;
}

}  // namespace

PandasNumber pandas_to_numeric(const std::string& s) {
  PandasNumber r;
  double v = 0;
  bool maybe_int = false;
  if (precise_xstrtod(s, v, maybe_int)) {
    r.ok = true;
    r.is_int = maybe_int;
    r.value = v;
    return r;
  }
  // floatify's fallback: inf / infinity with an optional sign, any case
  const char* d = s.c_str();
  const size_t n = s.size();
  auto is = [&](const char* w) { return strcasecmp(d, w) == 0; };
  if ((n == 3 && is("inf")) || (n == 8 && is("infinity")) || (n == 4 && is("+inf")) ||
      (n == 9 && is("+infinity"))) {
    r.ok = true;
    r.value = HUGE_VAL;
  } else if ((n == 4 && is("-inf")) || (n == 9 && is("-infinity"))) {
    r.ok = true;
    r.value = -HUGE_VAL;
  }
  return r;
}

}  // namespace msprobe
