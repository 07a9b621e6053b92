// pandas 2.0's to_numeric(str, errors="coerce") for one string, as 1.2.1's MindSpore compare
// uses it on the str() of every statistic. pandas parses with its own "precise_xstrtod": at most
// 17 significant digits accumulated in a double, then one multiplication or division by a power
// of ten. That is not always correctly rounded (values can move by an ulp), and the compare's
// differences inherit it, so it is reproduced here rather than using strtod.
#pragma once
#include <string>

namespace msprobe {

struct PandasNumber {
  bool ok = false;      // parsed; false: coerced to NaN
  bool is_int = false;  // an integer literal (no '.', no exponent): pandas keeps an int64 column
  double value = 0;
};

PandasNumber pandas_to_numeric(const std::string& s);

}  // namespace msprobe
