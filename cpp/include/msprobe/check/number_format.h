// Number text as the original's CSV writers produce it.
#pragma once
#include <string>
#include <string_view>

#include "msprobe/check/metrics.h"

namespace msprobe {
namespace check {

// Python "{:.{precision}f}".format(v): fixed notation, correctly rounded; "nan", "inf", "-inf".
std::string format_fixed(double v, int precision = 14);
// str(numpy.float32(v)) / str(numpy.float16(v)): the shortest text that reads back to the same
// value, positional for 1e-4 <= |v| < 1e16, else scientific ("1e-05", "3.4e+38"); "nan", "inf".
std::string format_float32(double v);
std::string format_float16(double v);
// A metric cell of a run_ut details row: " " when unset, "{:.14f}" for float64 values (Python
// and numpy.float64), numpy's str() for float32/float16 values, the integer for ints.
std::string format_metric(const Num& n, int precision = 14);

// Python float(text): surrounding whitespace, optional sign, digits with single underscores
// between them, ".", exponent, "inf"/"infinity"/"nan" in any case. Returns false if `text` is
// not a Python float literal.
bool parse_python_float(std::string_view text, double& out);

}  // namespace check
}  // namespace msprobe
