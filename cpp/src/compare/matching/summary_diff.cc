// Statistics-mode differences of 1.2.1 (see summary_diff.h).
#include "summary_diff.h"

#include <cmath>

#include "msprobe/compare/compare_const.h"
#include "msprobe/format/py_value.h"

namespace msprobe {
namespace compare {

namespace {

constexpr size_t kDiffStart = 6;  // index of "Max diff"
constexpr size_t kIndicators = 4;
constexpr double kEpsilon = 1e-10;
constexpr double kMagnitude = 0.5;

bool both_ints_fit(const JsonValue& a, const JsonValue& b, int64_t& diff) {
  if (!a.is_int() || !b.is_int()) return false;
  return !__builtin_sub_overflow(a.as_int(), b.as_int(), &diff);
}

}  // namespace

bool apply_summary_diff(std::vector<Cell>& row, const std::array<JsonValue, 4>& npu,
                        const std::array<JsonValue, 4>& bench) {
  bool warning = false;
  for (size_t i = 0; i < kIndicators; ++i) {
    const JsonValue& n = npu[i];
    const JsonValue& b = bench[i];
    Cell& diff_cell = row[kDiffStart + i];
    Cell& rel_cell = row[kDiffStart + i + kIndicators];
    if (!(n.is_number() && b.is_number())) {  // bools, strings, None: not numbers
      diff_cell = Cell::str(k::kNA);
      rel_cell = Cell::str(k::kNA);
      continue;
    }
    int64_t idiff = 0;
    const bool int_diff = both_ints_fit(n, b, idiff);
    const double nv = n.as_double(), bv = b.as_double();
    const double diff = int_diff ? (double)idiff : nv - bv;
    if (std::isnan(diff)) {
      diff_cell = Cell::str(k::kNan);
      rel_cell = Cell::str(k::kNan);
      continue;
    }
    diff_cell = int_diff ? Cell::integer(diff) : Cell::num(diff);
    if (bv != 0) {
      rel_cell = Cell::str(py_float_repr(std::fabs((diff / bv) * 100)) + "%");
    } else {
      rel_cell = Cell::str(k::kNA);
    }
    const double an = std::fabs(nv), ab = std::fabs(bv);
    const double biggest = ab > an ? ab : an;  // Python max() keeps the first on ties and NaN
    if (std::fabs(diff) / (biggest + kEpsilon) > kMagnitude) warning = true;
  }
  for (size_t i = kDiffStart; i < row.size(); ++i) {
    const std::string s = cell_str(row[i]);
    if (s == "inf" || s == "-inf" || s == "nan") row[i] = Cell::str(s + "\t");
  }
  return warning;
}

}  // namespace compare
}  // namespace msprobe
